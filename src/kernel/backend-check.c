/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the backend checks: the knob and backend tables against each other (the unit tests call
 * it), and whether this process shares the host's network namespace.
 */
#include <linux/ethtool_netlink.h>
#include <sys/stat.h>
#include <sys/utsname.h>

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

/* Namespace inodes the kernel fixes (include/linux/proc_ns.h): PID since 3.8, network since 6.18. */
#define PID_NS_INIT_INO UINT32_C(0xEFFFFFFC)
#define NET_NS_INIT_INO UINT32_C(0xEFFFFFF9)

/* Whether the running kernel gives the initial network namespace its fixed inode (6.18 and later). */
static bool kernel_numbers_init_netns(void) {
        struct utsname u;
        unsigned major = 0, minor = 0;

        return uname(&u) >= 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 && (major > 6 || (major == 6 && minor >= 18));
}

/*
 * Whether this process is in the host's network namespace, where a fixture's interface
 * names may be real interfaces of this machine. Where it cannot tell, it says yes, and
 * nothing is written to them.
 */
bool backend_in_initial_netns(void) {
        struct stat self, pid, init;

        if (stat("/proc/self/ns/net", &self) < 0)
                return true; /* no /proc */
        if (self.st_ino == NET_NS_INIT_INO)
                return true;
        /* In the initial PID namespace PID 1 is the host's init: its network namespace is the host's. */
        if (stat("/proc/self/ns/pid", &pid) >= 0 && pid.st_ino == PID_NS_INIT_INO && stat("/proc/1/ns/net", &init) >= 0)
                return self.st_dev == init.st_dev && self.st_ino == init.st_ino;
        /*
         * A PID namespace of its own (a sandbox, a container), or PID 1 hidden: a kernel that
         * numbers the initial network namespace has said this is not it; an older one cannot say.
         */
        return !kernel_numbers_init_netns();
}
