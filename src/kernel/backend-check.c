/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The knob and backend tables checked against each other (the unit tests call it). */
#include <linux/ethtool_netlink.h>

#include "kernel/backend.h"

int backend_check_tables(const Knob *knobs, size_t n_knobs, const KnobBackend *backends, size_t n_backends, char *why,
                         size_t size) {
        for (int i = 0; i < (int) n_backends; i++) {
                const KnobBackend *be = &backends[i];
                if (be->id != i || !be->name || !be->journal_kind || !be->words[0] || !be->words[1] || !be->read ||
                    !be->expand || !be->read_items || !be->write_items) {
                        snprintf(why, size, "backend %d (%s): backend descriptor incomplete", i, be->name ?: "?");
                        return -EINVAL;
                }
                if (be->get_cmd && (!be->set_cmd || !be->header_attr)) {
                        snprintf(why, size, "backend %d (%s): attribute group without SET command or header", i, be->name ?: "?");
                        return -EINVAL;
                }
        }
        for (int k = 0; k < (int) n_knobs; k++) {
                const Knob *knob = &knobs[k];
                const KnobBackend *be = knob->backend;
                if (!knob->name || !be || be < backends || be >= backends + n_backends) {
                        snprintf(why, size, "knob %d (%s): knob without a backend", k, knob->name ?: "?");
                        return -EINVAL;
                }
                if (be->by_feature != (knob->pattern != NULL)) {
                        snprintf(why, size, "knob %d (%s): feature knob without a pattern, or a pattern on another backend", k, knob->name ?: "?");
                        return -EINVAL;
                }
                if (be->get_cmd && (knob->nl_attr == 0 || knob->nl_attr >= ETHTOOL_ATTRS_MAX)) {
                        snprintf(why, size, "knob %d (%s): attribute-group knob without its attribute", k, knob->name ?: "?");
                        return -EINVAL;
                }
                if (!be->get_cmd && knob->nl_attr) {
                        snprintf(why, size, "knob %d (%s): netlink attribute on a backend that has no attribute group", k, knob->name ?: "?");
                        return -EINVAL;
                }
                if (!be->sysfs_dir && !be->by_feature && !be->get_cmd) {
                        snprintf(why, size, "knob %d (%s): backend that names no sysfs directory, feature or attribute group", k, knob->name ?: "?");
                        return -EINVAL;
                }
                if (be->words_only && (knob->type != KNOB_TYPE_BOOL || !be->sysfs_dir)) {
                        snprintf(why, size, "knob %d (%s): a words-only backend holds two words of a sysfs attribute", k, knob->name ?: "?");
                        return -EINVAL;
                }
                if (knob->type == KNOB_TYPE_UINT && knob->max == 0) {
                        snprintf(why, size, "knob %d (%s): number knob without a maximum", k, knob->name ?: "?");
                        return -EINVAL;
                }
                if (!knob->summary || (knob->order[0] == 0 && knob->order[1] == 0)) {
                        snprintf(why, size, "knob %d (%s): knob without summary or write order", k, knob->name ?: "?");
                        return -EINVAL;
                }
        }
        return 0;
}
