/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "show/out.h"
#include "show/quirks.h"

void report_quirk_grounds_text(Out *o, const Quirk *q, const char *first) {
        out_text_wrapped(o, first, "    ", q->reason);
        out_text_wrapped(o, "    evidence:", "      ", q->evidence);
        out_text_wrapped(o, "    counter-evidence:", "      ", q->counter_evidence);
        out_text_wrapped(o, "    see:", "      ", q->reference);
}

static void quirk_ids_show(Out *o, const char *key, const IdMatch *ids, size_t n) {
        out_array_begin(o, key);
        for (size_t i = 0; i < n; i++) {
                char id[16];
                if (ids[i].any_device)
                        snprintf(id, sizeof(id), "%04x:*", ids[i].vendor);
                else
                        snprintf(id, sizeof(id), "%04x:%04x", ids[i].vendor, ids[i].device);
                out_json_str(o, NULL, id);
        }
        out_array_end(o);
}

/*
 * What an entry matches on: in JSON its XIDs, ids, drivers and DMI globs as schema 1 has them,
 * then (text and JSON) every condition set, as the file writes it.
 */
static void quirk_match_show(Out *o, const NicMatch *m) {
        out_array_begin(o, "xid");
        for (size_t i = 0; i < m->n_xids; i++) {
                char value[16], mask[16];
                bool ext = m->xids[i].extended;

                snprintf(value, sizeof(value), ext ? "%x" : "%03x", m->xids[i].value);
                snprintf(mask, sizeof(mask), ext ? "%x" : "%03x", m->xids[i].mask);
                out_object_begin(o, NULL);
                out_json_str(o, "value", value);
                out_json_str(o, "mask", mask);
                if (ext)
                        out_json_bool(o, "extended", true);
                out_object_end(o);
        }
        out_array_end(o);
        quirk_ids_show(o, "pci_ids", m->pci_ids, m->n_pci_ids);
        out_array_begin(o, "drivers");
        for (size_t i = 0; i < m->n_drivers; i++)
                out_json_str(o, NULL, m->drivers[i]);
        out_array_end(o);
        quirk_ids_show(o, "subsystems", m->subsystems, m->n_subsystems);
        out_object_begin(o, "dmi");
        for (int d = 0; d < _DMI_FIELD_MAX; d++)
                out_json_str(o, dmi_field_to_string(d), m->dmi[d]);
        out_object_end(o);

        out_object_begin(o, "match");
        for (size_t i = 0; i < match_key_count(); i++) {
                const char *name = match_key_name(i), *v;
                char buf[1024];
                bool list;

                v = match_condition_string(m, i, buf, sizeof(buf), &list);
                if (!v)
                        continue;
                out_text(o, "  %s = %s\n", name, v);
                if (list)
                        out_json_words(o, name, v);
                else
                        out_json_str(o, name, v);
        }
        out_object_end(o);
}

static const char *confidence_label(QuirkConfidence c) {
        return c == CONFIDENCE_KERNEL     ? "a later kernel does this by default"
               : c == CONFIDENCE_MEASURED ? "numbers before and after on a named machine"
                                          : "a suggestion, applied only where accepted";
}

/* An entry as its file says it: the same keys, one per line, the lists on one line. */
void report_quirk_show(Out *o, const Quirk *q) {
        const char *doubt = doubt_to_string(q->reported_because);
        char since[24] = "";
        bool any = false;

        if (q->kernel_default_since.known)
                kernel_version_to_string(&q->kernel_default_since, since, sizeof(since));
        out_object_begin(o, NULL);
        out_str(o, "id", "[%s]  ", q->id);
        out_str(o, "file", "%s:", q->file);
        out_u64(o, "line", "%" PRIu64 "\n", q->line);
        quirk_match_show(o, &q->match);
        out_text(o, "  profiles =");
        out_array_begin(o, "profiles");
        for (int p = 0; p < _PROFILE_MAX; p++)
                if (q->profiles[p])
                        out_str(o, NULL, " %s", profile_to_string(p));
        out_array_end(o);
        out_text(o, "\n");
        out_object_begin(o, "knobs");
        for (int k = 0; k < _KNOB_MAX; k++)
                if (q->set[k]) {
                        out_text(o, "  %s = ", knob_get(k)->name);
                        out_knob_value(o, knob_get(k)->name, "%s\n", k, q->value[k]);
                }
        out_object_end(o);
        out_array_begin(o, "skip");
        for (int k = 0; k < _KNOB_MAX; k++)
                if (q->skip[k]) {
                        out_str(o, NULL, any ? " %s" : "  skip = %s", knob_get(k)->name);
                        any = true;
                }
        out_array_end(o);
        if (any)
                out_text(o, " (the driver refuses them: not touched)\n");
        out_array_begin(o, "kernels");
        for (size_t i = 0; i < q->match.n_kernels; i++) {
                char range[64];
                out_json_str(o, NULL, kernel_range_to_string(&q->match.kernels[i], range, sizeof(range)));
        }
        out_array_end(o);
        out_json_str(o, "kernel_default_since", since[0] ? since : NULL);
        out_str(o, "link_power", "  link-power = %s (dynamic link power does not switch L1 on this chip)\n",
                q->link_power_static ? "static" : NULL);
        out_str(o, "confidence", "  confidence = %s", confidence_to_string(q->confidence));
        out_text(o, " (%s)\n", confidence_label(q->confidence));
        out_str(o, "reported_because", "  reported-because = %s", doubt);
        if (doubt)
                out_text(o, " (%s)\n", doubt_label(q->reported_because));
        out_str(o, "guard",
                "  guard = %s (taken back at a tx timeout on the NIC, and not applied again on that board)\n",
                q->guard_tx_timeout ? "tx-timeout" : NULL);
        if (since[0])
                out_text(o, "  kernel-default-since = %s (r8169 does this itself from that release)\n", since);
        /* Wrapped as plan wraps them, continued as the file continues a value (an indented line). */
        out_wrapped(o, "reason", "  reason =", "    ", q->reason);
        out_wrapped(o, "evidence", "  evidence =", "    ", q->evidence);
        out_wrapped(o, "counter_evidence", "  counter-evidence =", "    ", q->counter_evidence);
        out_words(o, "reference", "  reference =", "    ", q->reference);
        out_object_end(o);
}
