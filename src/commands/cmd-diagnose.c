/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diagnose: everything a bug report about a Realtek NIC needs, in one paste:
 * Markdown for people, --json for programs.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/utsname.h>
#include <linux/ethtool_netlink.h>
#include <systemd/sd-journal.h>

#include "base/log.h"
#include "client/service.h"
#include "commands/commands.h"
#include "kernel/kernel-log.h"
#include "kernel/link-log.h"
#include "show/diagnosis.h"
#include "show/report.h"

static void not_read(Unreads *u, int error, const char *message, const char *fmt, ...) _printf_(4, 5);
static void not_read(Unreads *u, int error, const char *message, const char *fmt, ...) {
        va_list ap;
        Unread *x;

        if (u->n >= ELEMENTSOF(u->v))
                return;
        x = &u->v[u->n++];
        va_start(ap, fmt);
        vsnprintf(x->what, sizeof(x->what), fmt, ap);
        va_end(ap);
        x->error = error;
        snprintf(x->message, sizeof(x->message), "%s", message ?: error ? strerror(error < 0 ? -error : error) : "");
}

/* aa:bb:cc:dd:ee:ff, anywhere in s, as xx:xx:xx:xx:xx:xx unless --show-mac. */
static void redact_macs(char *s, bool show) {
        if (show)
                return;
        for (size_t i = 0; s[i]; i++) {
                bool mac = true;
                for (size_t k = 0; k < 17 && mac; k++)
                        mac = s[i + k] && (k % 3 == 2 ? s[i + k] == ':' : isxdigit((unsigned char) s[i + k]));
                if (!mac || isxdigit((unsigned char) s[i + 17]))
                        continue;
                for (size_t k = 0; k < 17; k++)
                        if (k % 3 != 2)
                                s[i + k] = 'x';
                i += 16;
        }
}

static void kernel_line_add(NicFacts *f, const char *line, size_t len, bool show_mac) {
        char *copy;

        if (f->n_kernel >= KERNEL_LINES) {
                /* Keep the first half (the probe) and the most recent: drop the oldest after it. */
                free(f->kernel[KERNEL_LINES / 2]);
                memmove(&f->kernel[KERNEL_LINES / 2], &f->kernel[KERNEL_LINES / 2 + 1],
                        (KERNEL_LINES / 2 - 1) * sizeof(char *));
                f->n_kernel--;
                f->kernel_dropped++;
        }
        copy = strndup(line, len);
        if (!copy)
                return;
        redact_macs(copy, show_mac);
        f->kernel[f->n_kernel++] = copy;
}

typedef struct KernelLineScan {
        NicFacts *facts;
        size_t n;
        bool show_mac;
} KernelLineScan;

static void kernel_line_scan(const char *line, size_t len, void *userdata) {
        KernelLineScan *scan = userdata;

        for (size_t i = 0; i < scan->n; i++)
                if (nic_kernel_line_is_ours(scan->facts[i].nic, line))
                        kernel_line_add(&scan->facts[i], line, len, scan->show_mac);
}

static void kernel_lines_from_file(Unreads *u, NicFacts *facts, size_t n, const char *path, bool show_mac) {
        int r = kernel_log_for_each_line(path, kernel_line_scan, &(KernelLineScan) { facts, n, show_mac });

        if (r < 0)
                not_read(u, r, r == -EBADF || r == -EFBIG ? kernel_log_error_string(r) : NULL, "kernel log %s", path);
}

static void kernel_journal_scan(const char *line, size_t len, const char *device, size_t dlen, void *userdata) {
        KernelLineScan *scan = userdata;

        for (size_t i = 0; i < scan->n; i++)
                if (nic_kernel_line_is_ours(scan->facts[i].nic, line) || nic_kernel_device_is_ours(scan->facts[i].nic, device, dlen))
                        kernel_line_add(&scan->facts[i], line, len, scan->show_mac);
}

/* This boot's kernel messages from the journal, as dmesg would show them. */
static void kernel_lines_from_journal(Unreads *u, NicFacts *facts, size_t n, bool show_mac) {
        int r = kernel_log_this_boot(kernel_journal_scan, &(KernelLineScan) { facts, n, show_mac });

        if (r < 0)
                not_read(u, r, NULL, "kernel messages of this boot (journal)");
}

/* Each NIC's speed (ethtool's, else the kernel log's), downshift and missing ASPM knobs. */
static void link_explain_all(Diagnose *d, const Options *o) {
        _cleanup_free_ const Nic **nics = calloc(d->n, sizeof(Nic *));
        _cleanup_free_ LinkLog *logs = calloc(d->n, sizeof(LinkLog));
        AspmControlLog aspm = {};
        bool known = false;

        if (!nics || !logs)
                return;
        for (size_t i = 0; i < d->n; i++)
                nics[i] = d->facts[i].nic;
        if (o->kernel_log || sysroot_is_live(d->c->root))
                known = link_log_read(o->kernel_log, nics, d->n, logs, &aspm) >= 0;
        for (size_t i = 0; i < d->n; i++) {
                const NicFacts *f = &d->facts[i];
                unsigned live = f->linkmodes_known && f->linkmodes.present[ETHTOOL_A_LINKMODES_SPEED] &&
                                                f->linkmodes.value[ETHTOOL_A_LINKMODES_SPEED] != UINT32_MAX
                                        ? f->linkmodes.value[ETHTOOL_A_LINKMODES_SPEED]
                                        : 0;
                link_explain_init(&d->facts[i].link, d->c->root, f->nic, known ? &logs[i] : NULL, known ? &aspm : NULL, live);
        }
}

static void find_phy_line(NicFacts *f) {
        for (size_t i = 0; i < f->n_kernel; i++)
                if (strstr(f->kernel[i], "attached PHY driver"))
                        f->phy = f->kernel[i];
}

static void read_port_id(const Sysroot *root, NicFacts *f) {
        char dir[64], v[16], d[16];
        int r;

        if (!f->nic->upstream[0])
                return;
        snprintf(dir, sizeof(dir), "bus/pci/devices/%s", f->nic->upstream);
        r = sysroot_read(root, dir, "vendor", v, sizeof(v));
        if (r >= 0)
                r = sysroot_read(root, dir, "device", d, sizeof(d));
        if (r < 0) {
                not_read(f->unread, r, NULL, "vendor:device of the port %s above %s", f->nic->upstream, f->nic->slot);
                return;
        }
        snprintf(f->port_id, sizeof(f->port_id), "%.4s:%.4s", v + (strncmp(v, "0x", 2) == 0 ? 2 : 0),
                 d + (strncmp(d, "0x", 2) == 0 ? 2 : 0));
}

static void read_journal(NicFacts *f, bool show_mac) {
        _cleanup_journal_ sd_journal *j = NULL;
        char match[64];
        size_t n = 0;
        int r;

        r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
        if (r < 0) {
                not_read(f->unread, r, NULL, "r8169-tuned's messages about %s (journal)", f->nic->slot);
                return;
        }
        snprintf(match, sizeof(match), "PCI_SLOT=%s", f->nic->slot);
        /* Any local user can log as SYSLOG_IDENTIFIER=r8169-tuned with a PCI_SLOT (security review
         * R1): only root's entries are ours. _UID is journald's own field, from the sender's
         * credentials, which no client can set; the service and the command run as root. */
        if (sd_journal_add_match(j, "SYSLOG_IDENTIFIER=r8169-tuned", 0) < 0 || sd_journal_add_match(j, match, 0) < 0 ||
            sd_journal_add_match(j, "_UID=0", 0) < 0 || sd_journal_seek_tail(j) < 0) {
                return;
        }
        while (n < JOURNAL_LINES && sd_journal_previous(j) > 0) {
                const void *data;
                size_t len;
                uint64_t usec = 0;
                char *line;

                if (sd_journal_get_data(j, "MESSAGE", &data, &len) < 0 || len < 8)
                        continue;
                (void) sd_journal_get_realtime_usec(j, &usec);
                line = strndup((const char *) data + 8, len - 8);
                if (!line)
                        break;
                redact_macs(line, show_mac);
                f->journal[n++] = (JournalLine) { usec, line };
        }
        /* Oldest first, as journalctl shows them. */
        for (size_t i = 0; i < n / 2; i++) {
                JournalLine t = f->journal[i];
                f->journal[i] = f->journal[n - 1 - i];
                f->journal[n - 1 - i] = t;
        }
        f->n_journal = n;
}

static void read_ethtool(Context *c, NicFacts *f);

static void gather(Context *c, NicFacts *f) {
        const char *ifname = nic_ifname(f->nic);

        context_plan_nic(c, f->nic, f->current, &f->plan);
        f->drv_error = ifname ? ethtool_ioctl_drvinfo(ifname, &f->drv) : -ENODEV;
        if (f->drv_error < 0)
                not_read(f->unread, f->drv_error, ifname ? NULL : "no network interface", "driver information of %s (ethtool)", f->nic->slot);
        f->stats_error = ifname ? ethtool_ioctl_stats(ifname, &f->stats) : -ENODEV;
        if (f->stats_error < 0)
                not_read(f->unread, f->stats_error, ifname ? NULL : "no network interface", "driver statistics of %s (ethtool)", f->nic->slot);
        read_journal(f, c->opts->show_mac);
        f->link_power_known = link_power_record_load(c->opts->state_dir, f->nic->slot, &f->link_power) >= 0;
        read_port_id(c->root, f);
        read_ethtool(c, f);
        f->tx_timeouts_known = nic_read_tx_timeouts(c->root, f->nic, &f->tx_timeouts) >= 0;
        f->tx_guard = context_tx_guard(c, f->nic, &f->tx_timeouts);
}

/* ethtool's -k and plain output: every feature, the link's speed, duplex, autonegotiation and state. */
static void read_ethtool(Context *c, NicFacts *f) {
        const char *ifname = nic_ifname(f->nic);
        uint8_t lm[ETHTOOL_ATTRS_MAX] = {}, ls[ETHTOOL_ATTRS_MAX] = {};
        EthtoolError err = {};
        int r;

        if (!ifname) {
                not_read(f->unread, -ENODEV, "no network interface", "ethtool features and link settings of %s", f->nic->slot);
                return;
        }
        if (!c->backend.nl) {
                not_read(f->unread, -EOPNOTSUPP, "ethtool netlink is not available", "ethtool features and link settings of %s", ifname);
                return;
        }
        r = ethtool_nl_features_get(c->backend.nl, ifname, &f->features, &err);
        if (r < 0)
                not_read(f->unread, r, err.message[0] ? err.message : NULL, "ethtool features of %s", ifname);
        f->features_known = r >= 0;
        lm[ETHTOOL_A_LINKMODES_AUTONEG] = 1;
        lm[ETHTOOL_A_LINKMODES_SPEED] = 4;
        lm[ETHTOOL_A_LINKMODES_DUPLEX] = 1;
        err = (EthtoolError) {};
        r = ethtool_nl_attrs_get(c->backend.nl, ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_A_LINKMODES_HEADER, ifname, lm,
                                 &f->linkmodes, &err);
        if (r < 0)
                not_read(f->unread, r, err.message[0] ? err.message : NULL, "ethtool link modes of %s", ifname);
        f->linkmodes_known = r >= 0;
        ls[ETHTOOL_A_LINKSTATE_LINK] = 1;
        err = (EthtoolError) {};
        r = ethtool_nl_attrs_get(c->backend.nl, ETHTOOL_MSG_LINKSTATE_GET, ETHTOOL_A_LINKSTATE_HEADER, ifname, ls,
                                 &f->linkstate, &err);
        if (r < 0)
                not_read(f->unread, r, err.message[0] ? err.message : NULL, "ethtool link state of %s", ifname);
        f->linkstate_known = r >= 0;
}

static void facts_done(NicFacts *f) {
        ethtool_features_done(&f->features);
        ethtool_stats_done(&f->stats);
        for (size_t i = 0; i < f->n_journal; i++)
                free(f->journal[i].message);
        for (size_t i = 0; i < f->n_kernel; i++)
                free(f->kernel[i]);
}

static void machine_facts(const Context *c, MachineFacts *m, Unreads *u) {
        static const char *const modules[] = { "r8169", "r8168", "r8125", "realtek" };
        _cleanup_close_ int fd = -1;
        ssize_t k;
        int r;

        r = sysroot_read(c->root, "class/dmi/id", "bios_version", m->bios_version, sizeof(m->bios_version));
        if (r < 0) {
                m->bios_version[0] = '\0';
                not_read(u, r, NULL, "BIOS version (class/dmi/id/bios_version)");
        } else
                m->bios_version[strcspn(m->bios_version, "\n")] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(modules); i++) {
                char dir[64];
                _cleanup_close_ int d = -1;
                snprintf(dir, sizeof(dir), "module/%s", modules[i]);
                d = sysroot_open_dir(c->root, dir);
                if (d >= 0)
                        m->modules[m->n_modules++] = modules[i];
        }
        /* /proc/cmdline is this machine's: it says nothing about a fixture tree. */
        if (!sysroot_is_live(c->root)) {
                not_read(u, 0, "not this machine's sysfs (--sysfs)", "kernel command line (/proc/cmdline)");
                return;
        }
        fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
        k = fd < 0 ? -1 : read(fd, m->cmdline, sizeof(m->cmdline) - 1);
        if (k < 0) {
                not_read(u, -errno, NULL, "kernel command line (/proc/cmdline)");
                return;
        }
        m->cmdline[k] = '\0';
        m->cmdline[strcspn(m->cmdline, "\n")] = '\0';
        m->cmdline_known = true;
}

static void read_problems(const Options *o, Diagnostics *problems) {
        Config config;
        QuirkDb quirks = {};

        config_defaults(&config);
        context_check_policy(o, &config, &quirks, problems);
        config_done(&config);
        quirk_db_done(&quirks);
}

/* The facts: policy (a broken one is itself worth reporting: diagnose goes on without it), machine, NICs, logs. */
static int diagnose_gather(Diagnose *d, const Options *o, const bool *selected) {
        Context *c = d->c;
        struct utsname u;

        context_load_policy(c);
        (void) service_follow_profile(c, NULL);
        if (c->problems.n > 0)
                not_read(&d->unread, 0, "left out where they have problems (see the configuration problems); planned values come from the rest",
                         "configuration and quirk files");
        if (uname(&u) >= 0)
                snprintf(d->kernel, sizeof(d->kernel), "%s %s %s", u.release, u.version, u.machine);
        else
                snprintf(d->kernel, sizeof(d->kernel), "unknown");
        snprintf(d->policy, sizeof(d->policy), "%s",
                 c->machine.aspm_policy[0] ? c->machine.aspm_policy : "unknown (no pcie_aspm policy: CONFIG_PCIEASPM=n?)");
        if (strncmp(d->policy, "unknown", 7) == 0)
                not_read(&d->unread, 0, "no pcie_aspm policy: CONFIG_PCIEASPM=n?", "ASPM policy (module/pcie_aspm/parameters/policy)");
        machine_facts(c, &d->machine, &d->unread);
        read_problems(o, &d->problems);
        {
                _cleanup_(diag_done) Diagnostics kdp = {};
                char buf[PATH_MAX];
                const char *path = kernel_defaults_path(o->quirks, buf, sizeof(buf));
                int r = kernel_defaults_load(&d->kd, path, &kdp);
                if (r < 0 || kdp.n > 0)
                        not_read(&d->unread, r < 0 ? r : 0, r < 0 ? "cannot read it" : "has problems (check-config)", "%s", path);
        }
        d->facts = calloc(c->nics.n + 1, sizeof(NicFacts));
        if (!d->facts)
                return log_oom();
        for (size_t i = 0; i < c->nics.n; i++)
                if (selected[i]) {
                        d->facts[d->n] = (NicFacts) { .nic = &c->nics.nics[i], .unread = &d->unread };
                        gather(c, &d->facts[d->n++]);
                }
        if (d->n == 0)
                return 0;
        if (o->kernel_log)
                kernel_lines_from_file(&d->unread, d->facts, d->n, o->kernel_log, o->show_mac);
        else if (sysroot_is_live(c->root))
                kernel_lines_from_journal(&d->unread, d->facts, d->n, o->show_mac);
        else
                not_read(&d->unread, 0, "none given for this sysfs tree (--kernel-log)", "kernel log");
        for (size_t i = 0; i < d->n; i++)
                find_phy_line(&d->facts[i]);
        link_explain_all(d, o);
        return 0;
}

int cmd_diagnose(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        Context c;
        Diagnose d = { .c = &c };
        int ret = 1;

        if (context_open_selected(&c, o, false, &selected) < 0)
                goto out;
        if (diagnose_gather(&d, o, selected) < 0)
                goto out;
        diagnosis_show(stdout, &d, o->json);
        ret = 0;
out:
        for (size_t i = 0; i < d.n; i++)
                facts_done(&d.facts[i]);
        free(d.facts);
        diag_done(&d.problems);
        kernel_defaults_done(&d.kd);
        context_done(&c);
        return ret;
}
