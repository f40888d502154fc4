/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diagnose: everything a bug report about a Realtek NIC needs, in one paste:
 * Markdown for people, --json for programs.
 */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/utsname.h>
#include <time.h>
#include <linux/ethtool_netlink.h>
#include <systemd/sd-journal.h>

#include "commands.h"
#include "ethtool-ioctl.h"
#include "kernel-log.h"
#include "log.h"
#include "report.h"

#define JOURNAL_LINES 20
#define KERNEL_LINES 64
/* What a kernel log file may be: dmesg or journalctl -k of one boot is far smaller. */

/* What diagnose could not read, and why: said in the report, not only on stderr. */
typedef struct Unread {
        char what[160];
        int error;
        char message[200];
} Unread;

static Unread unread[64];
static size_t n_unread;

static void not_read(int error, const char *message, const char *fmt, ...) _printf_(3, 4);
static void not_read(int error, const char *message, const char *fmt, ...) {
        va_list ap;
        Unread *u;

        if (n_unread >= ELEMENTSOF(unread))
                return;
        u = &unread[n_unread++];
        va_start(ap, fmt);
        vsnprintf(u->what, sizeof(u->what), fmt, ap);
        va_end(ap);
        u->error = error;
        snprintf(u->message, sizeof(u->message), "%s", message ?: error ? strerror(error < 0 ? -error : error) : "");
}

typedef struct JournalLine {
        uint64_t usec;
        char *message;
} JournalLine;

typedef struct NicFacts {
        Nic *nic;
        KnobReading current[_KNOB_MAX];
        NicPlan plan;
        struct ethtool_drvinfo drv;
        int drv_error;
        EthtoolStats stats;
        int stats_error;
        JournalLine journal[JOURNAL_LINES];
        size_t n_journal;
        char *kernel[KERNEL_LINES];     /* the kernel's own lines about this NIC, oldest first */
        size_t n_kernel, kernel_dropped;
        const char *phy;                /* the PHY driver attach line, in kernel[] */
        char port_id[16];               /* the upstream port's vendor:device, "" if unknown */
        EthtoolFeatures features;       /* every feature the kernel has for the interface */
        bool features_known;
        EthtoolAttrs linkmodes, linkstate; /* speed, duplex, autoneg; link detected */
        bool linkmodes_known, linkstate_known;
        bool link_power_known;          /* the running daemon's dynamic link power record */
        LinkPowerRecord link_power;
} NicFacts;

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

/* 2026-12-01 16:54:28.757868 UTC: the journal's time, readable. */
static const char *timestamp(uint64_t usec, char *buf, size_t size) {
        time_t t = (time_t) (usec / 1000000);
        struct tm tm;

        if (!gmtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0) {
                snprintf(buf, size, "@%" PRIu64, usec);
                return buf;
        }
        snprintf(buf + strlen(buf), size - strlen(buf), ".%06u UTC", (unsigned) (usec % 1000000));
        return buf;
}

/* Is this kernel line about this NIC: its PCI slot, its MDIO bus (the PHY lines) or its interface? */
static bool kernel_line_is_ours(const NicFacts *f, const char *line) {
        unsigned dom, bus, dev, fn;
        char mdio[40];

        if (strstr(line, f->nic->slot))
                return true;
        /* r8169 names its MDIO bus r8169-<domain>-<bus<<8 | devfn>, in hex. */
        if (sscanf(f->nic->slot, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4) {
                snprintf(mdio, sizeof(mdio), "r8169-%x-%x:", dom, bus << 8 | dev << 3 | fn);
                if (strstr(line, mdio))
                        return true;
        }
        for (size_t i = 0; i < f->nic->n_ifnames; i++) {
                char watchdog[64];
                snprintf(watchdog, sizeof(watchdog), "NETDEV WATCHDOG: %s ", f->nic->ifnames[i]);
                if (strstr(line, watchdog))
                        return true;
        }
        return false;
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
                if (kernel_line_is_ours(&scan->facts[i], line))
                        kernel_line_add(&scan->facts[i], line, len, scan->show_mac);
}

static void kernel_lines_from_file(NicFacts *facts, size_t n, const char *path, bool show_mac) {
        int r = kernel_log_for_each_line(path, kernel_line_scan, &(KernelLineScan) { facts, n, show_mac });

        if (r < 0)
                not_read(r, r == -EBADF || r == -EFBIG ? kernel_log_error_string(r) : NULL, "kernel log %s", path);
}

/* This boot's kernel messages from the journal, as dmesg would show them. */
static void kernel_lines_from_journal(NicFacts *facts, size_t n, bool show_mac) {
        _cleanup_journal_ sd_journal *j = NULL;
        char b[64] = "_BOOT_ID=";
        sd_id128_t boot;
        int r;

        r = sd_id128_get_boot(&boot);
        if (r >= 0)
                r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
        if (r >= 0) {
                sd_id128_to_string(boot, b + strlen(b));
                r = sd_journal_add_match(j, "_TRANSPORT=kernel", 0);
        }
        if (r >= 0)
                r = sd_journal_add_match(j, b, 0);
        if (r < 0) {
                not_read(r, NULL, "kernel messages of this boot (journal)");
                return;
        }
        SD_JOURNAL_FOREACH(j) {
                const void *data;
                size_t len;
                uint64_t usec = 0;
                char line[1100];

                if (sd_journal_get_data(j, "MESSAGE", &data, &len) < 0 || len <= 8 || len - 8 > 1000)
                        continue;
                (void) sd_journal_get_monotonic_usec(j, &usec, NULL);
                /* dmesg's form: the journal keeps the "r8169 0000:03:00.0" prefix out of MESSAGE for device lines. */
                snprintf(line, sizeof(line), "[%5" PRIu64 ".%06" PRIu64 "] %.*s", usec / 1000000, usec % 1000000,
                         (int) (len - 8), (const char *) data + 8);
                for (size_t i = 0; i < n; i++) {
                        const void *dev;
                        size_t dlen;
                        char want[64];
                        bool ours = kernel_line_is_ours(&facts[i], line);

                        snprintf(want, sizeof(want), "_KERNEL_DEVICE=+pci:%s", facts[i].nic->slot);
                        if (!ours && sd_journal_get_data(j, "_KERNEL_DEVICE", &dev, &dlen) >= 0)
                                ours = dlen == strlen(want) && memcmp(dev, want, dlen) == 0;
                        if (ours)
                                kernel_line_add(&facts[i], line, strlen(line), show_mac);
                }
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
                not_read(r, NULL, "vendor:device of the port %s above %s", f->nic->upstream, f->nic->slot);
                return;
        }
        snprintf(f->port_id, sizeof(f->port_id), "%.4s:%.4s", v + (strncmp(v, "0x", 2) == 0 ? 2 : 0),
                 d + (strncmp(d, "0x", 2) == 0 ? 2 : 0));
}

static void l1ss_text(uint32_t bits, char *buf, size_t size) {
        static const struct {
                uint32_t bit;
                const char *name;
        } states[] = { { 0x8, "ASPM-L1.1" }, { 0x4, "ASPM-L1.2" }, { 0x2, "PCI-PM-L1.1" }, { 0x1, "PCI-PM-L1.2" } };
        size_t n = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(states); i++)
                if (bits & states[i].bit)
                        n += (size_t) snprintf(buf + n, size > n ? size - n : 0, "%s%s", n ? " " : "", states[i].name);
        if (n == 0)
                snprintf(buf, size, "none");
}

/* "[default] performance powersave powersupersave" -> "default" */
static void aspm_policy(const Sysroot *root, char *buf, size_t size) {
        char raw[128];
        char *a, *b;

        if (sysroot_read(root, "module/pcie_aspm/parameters", "policy", raw, sizeof(raw)) < 0 ||
            !(a = strchr(raw, '[')) || !(b = strchr(a, ']'))) {
                snprintf(buf, size, "unknown (no pcie_aspm policy: CONFIG_PCIEASPM=n?)");
                return;
        }
        *b = '\0';
        snprintf(buf, size, "%s", a + 1);
}

static void read_journal(NicFacts *f, bool show_mac) {
        _cleanup_journal_ sd_journal *j = NULL;
        char match[64];
        size_t n = 0;
        int r;

        r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
        if (r < 0) {
                not_read(r, NULL, "r8169-tuned's messages about %s (journal)", f->nic->slot);
                return;
        }
        snprintf(match, sizeof(match), "PCI_SLOT=%s", f->nic->slot);
        if (sd_journal_add_match(j, "SYSLOG_IDENTIFIER=r8169-tuned", 0) < 0 || sd_journal_add_match(j, match, 0) < 0 ||
            sd_journal_seek_tail(j) < 0) {
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
                not_read(f->drv_error, ifname ? NULL : "no network interface", "driver information of %s (ethtool)", f->nic->slot);
        f->stats_error = ifname ? ethtool_ioctl_stats(ifname, &f->stats) : -ENODEV;
        if (f->stats_error < 0)
                not_read(f->stats_error, ifname ? NULL : "no network interface", "driver statistics of %s (ethtool)", f->nic->slot);
        read_journal(f, c->opts->show_mac);
        f->link_power_known = link_power_record_load(c->opts->state_dir, f->nic->slot, &f->link_power) >= 0;
        read_port_id(c->root, f);
        read_ethtool(c, f);
}

/* ethtool's -k and plain output: every feature, the link's speed, duplex, autonegotiation and state. */
static void read_ethtool(Context *c, NicFacts *f) {
        const char *ifname = nic_ifname(f->nic);
        uint8_t lm[ETHTOOL_ATTRS_MAX] = {}, ls[ETHTOOL_ATTRS_MAX] = {};
        EthtoolError err = {};
        int r;

        if (!ifname) {
                not_read(-ENODEV, "no network interface", "ethtool features and link settings of %s", f->nic->slot);
                return;
        }
        if (!c->backend.nl) {
                not_read(-EOPNOTSUPP, "ethtool netlink is not available", "ethtool features and link settings of %s", ifname);
                return;
        }
        r = ethtool_nl_features_get(c->backend.nl, ifname, &f->features, &err);
        if (r < 0)
                not_read(r, err.message[0] ? err.message : NULL, "ethtool features of %s", ifname);
        f->features_known = r >= 0;
        lm[ETHTOOL_A_LINKMODES_AUTONEG] = 1;
        lm[ETHTOOL_A_LINKMODES_SPEED] = 4;
        lm[ETHTOOL_A_LINKMODES_DUPLEX] = 1;
        err = (EthtoolError) {};
        r = ethtool_nl_attrs_get(c->backend.nl, ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_A_LINKMODES_HEADER, ifname, lm,
                                 &f->linkmodes, &err);
        if (r < 0)
                not_read(r, err.message[0] ? err.message : NULL, "ethtool link modes of %s", ifname);
        f->linkmodes_known = r >= 0;
        ls[ETHTOOL_A_LINKSTATE_LINK] = 1;
        err = (EthtoolError) {};
        r = ethtool_nl_attrs_get(c->backend.nl, ETHTOOL_MSG_LINKSTATE_GET, ETHTOOL_A_LINKSTATE_HEADER, ifname, ls,
                                 &f->linkstate, &err);
        if (r < 0)
                not_read(r, err.message[0] ? err.message : NULL, "ethtool link state of %s", ifname);
        f->linkstate_known = r >= 0;
}

/* "1000 Mb/s", or NULL: SPEED_UNKNOWN is (u32) -1. */
static const char *link_speed(const NicFacts *f, char *buf, size_t size) {
        if (!f->linkmodes_known || !f->linkmodes.present[ETHTOOL_A_LINKMODES_SPEED] ||
            f->linkmodes.value[ETHTOOL_A_LINKMODES_SPEED] == UINT32_MAX)
                return NULL;
        snprintf(buf, size, "%" PRIu32 " Mb/s", f->linkmodes.value[ETHTOOL_A_LINKMODES_SPEED]);
        return buf;
}

static const char *link_duplex(const NicFacts *f) {
        if (!f->linkmodes_known || !f->linkmodes.present[ETHTOOL_A_LINKMODES_DUPLEX])
                return NULL;
        switch (f->linkmodes.value[ETHTOOL_A_LINKMODES_DUPLEX]) {
        case DUPLEX_HALF:
                return "half";
        case DUPLEX_FULL:
                return "full";
        default:
                return NULL;
        }
}

/* true/false/null for a u8 attribute. */
static const char *attr_bool(bool known, const EthtoolAttrs *a, int attr) {
        if (!known || !a->present[attr])
                return "null";
        return a->value[attr] ? "true" : "false";
}

static void facts_done(NicFacts *f) {
        ethtool_features_done(&f->features);
        ethtool_stats_done(&f->stats);
        for (size_t i = 0; i < f->n_journal; i++)
                free(f->journal[i].message);
        for (size_t i = 0; i < f->n_kernel; i++)
                free(f->kernel[i]);
}

/* What the machine around the NICs says: firmware, kernel command line, loaded modules. */
typedef struct MachineFacts {
        char bios_version[128];
        char cmdline[2048];
        bool cmdline_known;
        const char *modules[8];
        size_t n_modules;
} MachineFacts;

static void machine_facts(const Context *c, MachineFacts *m) {
        static const char *const modules[] = { "r8169", "r8168", "r8125", "realtek" };
        _cleanup_close_ int fd = -1;
        ssize_t k;
        int r;

        r = sysroot_read(c->root, "class/dmi/id", "bios_version", m->bios_version, sizeof(m->bios_version));
        if (r < 0) {
                m->bios_version[0] = '\0';
                not_read(r, NULL, "BIOS version (class/dmi/id/bios_version)");
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
                not_read(0, "not this machine's sysfs (--sysfs)", "kernel command line (/proc/cmdline)");
                return;
        }
        fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
        k = fd < 0 ? -1 : read(fd, m->cmdline, sizeof(m->cmdline) - 1);
        if (k < 0) {
                not_read(-errno, NULL, "kernel command line (/proc/cmdline)");
                return;
        }
        m->cmdline[k] = '\0';
        m->cmdline[strcspn(m->cmdline, "\n")] = '\0';
        m->cmdline_known = true;
}

static const PlanItem *plan_item(const NicPlan *p, KnobId k) {
        for (size_t i = 0; i < p->n; i++)
                if (p->items[i].knob == k)
                        return &p->items[i];
        return NULL;
}

/* The quirks behind a NIC's plan, each once, in the order of the knobs: planned, held back, static link power. */
static size_t plan_quirks(const NicPlan *p, const Quirk **ret, size_t max) {
        size_t n = 0;

        for (size_t j = 0; j <= p->n + p->n_held; j++) {
                const Quirk *q = j < p->n ? (p->items[j].why.kind == PROVENANCE_QUIRK ? p->items[j].why.quirk : NULL)
                                 : j < p->n + p->n_held ? (p->held[j - p->n].why.kind == PROVENANCE_QUIRK ? p->held[j - p->n].why.quirk : NULL)
                                                        : p->link_power_quirk;
                bool seen = false;

                for (size_t k = 0; k < n && !seen; k++)
                        seen = ret[k] == q;
                if (q && !seen && n < max)
                        ret[n++] = q;
        }
        return n;
}

static const PlanItem *held_item(const NicPlan *p, KnobId k) {
        for (size_t i = 0; i < p->n_held; i++)
                if (p->held[i].knob == k)
                        return &p->held[i];
        return NULL;
}

static const char *current_text(KnobId k, const KnobReading *r, char *buf, size_t size) {
        if (r->status != KNOB_STATUS_OK)
                return knob_status_to_string(r->status);
        if (r->partial)
                return "partial";
        return knob_format_value(k, r->value, buf, size);
}

static void markdown_link_row(FILE *out, const char *what, const char *nic, const char *port) {
        fprintf(out, "| %s | %s | %s |\n", what, nic, port);
}

static const char *mac_text(const Context *c, const Nic *nic) {
        if (!nic->perm_mac[0])
                return "unknown";
        return c->opts->show_mac ? nic->perm_mac : "redacted (--show-mac shows it)";
}

/* The configuration's and quirk files' problems, as check-config finds them: in the report, not only on stderr. */
static Diagnostics problems;

static void read_problems(const Options *o) {
        Config config;
        QuirkDb quirks = {};

        config_defaults(&config);
        context_check_policy(o, &config, &quirks, &problems);
        config_done(&config);
        quirk_db_done(&quirks);
}

static void markdown(FILE *out, Context *c, const MachineFacts *mf, const char *kernel, const char *policy, NicFacts *facts,
                     size_t n) {
        const Machine *m = &c->machine;

        fprintf(out, "# r8169-tuned diagnose\n\n");
        fprintf(out, "- r8169-tuned: %s\n- kernel: %s\n", R8T_VERSION, kernel);
        if (m->dmi[DMI_SYS_VENDOR][0] || m->dmi[DMI_PRODUCT_NAME][0])
                fprintf(out, "- machine: %s %s (board: %s %s)\n", m->dmi[DMI_SYS_VENDOR], m->dmi[DMI_PRODUCT_NAME],
                        m->dmi[DMI_BOARD_VENDOR][0] ? m->dmi[DMI_BOARD_VENDOR] : "unknown", m->dmi[DMI_BOARD_NAME]);
        else
                fprintf(out, "- machine: unknown (no DMI data)\n");
        fprintf(out, "- BIOS: %s\n", mf->bios_version[0] ? mf->bios_version : "unknown");
        fprintf(out, "- power: %s; profile: %s\n- ASPM policy: %s\n", power_source_to_string(m->power),
                profile_to_string(c->profile), policy);
        fprintf(out, "- kernel command line: %s\n", mf->cmdline_known ? mf->cmdline : "unknown");
        fputs("- modules loaded:", out);
        for (size_t i = 0; i < mf->n_modules; i++)
                fprintf(out, " %s", mf->modules[i]);
        fputs(mf->n_modules ? "\n" : " none of r8169, r8168, r8125, realtek\n", out);
        fprintf(out, "- MAC addresses: %s\n", c->opts->show_mac ? "shown (--show-mac)" : "redacted (--show-mac shows them)");
        if (n == 0)
                fprintf(out, "\nNo Realtek NIC found on this machine (%s): nothing to diagnose.\n", c->opts->sysfs);

        for (size_t i = 0; i < n; i++) {
                NicFacts *f = &facts[i];
                const Nic *nic = f->nic;
                char chip[700], a[64], b[64];

                fprintf(out, "\n## %s %s\n\n", nic->slot, nic_ifname(nic) ?: "(no interface)");
                fprintf(out, "| | |\n|---|---|\n");
                fprintf(out, "| chip | %s |\n", report_chip_line(nic, chip, sizeof(chip)));
                if (nic->xid_notes[0])
                        fprintf(out, "| identification notes | %s |\n", nic->xid_notes);
                fprintf(out, "| PCI | %04x:%04x rev %02x, subsystem %04x:%04x |\n", nic->vendor, nic->device, nic->revision,
                        nic->subsys_vendor, nic->subsys_device);
                fprintf(out, "| driver (sysfs) | %s |\n", nic->driver[0] ? nic->driver : "none");
                if (f->drv_error >= 0)
                        fprintf(out, "| driver (ethtool) | %s %s, firmware %s, bus %s |\n", f->drv.driver, f->drv.version,
                                f->drv.fw_version[0] ? f->drv.fw_version : "none", f->drv.bus_info[0] ? f->drv.bus_info : "none");
                else
                        fprintf(out, "| driver (ethtool) | unavailable: %s |\n", strerror(-f->drv_error));
                fprintf(out, "| PHY driver | %s |\n",
                        !f->phy ? "no attach line in the kernel log" :
                        strstr(f->phy, "Generic FE-GE Realtek PHY") ? "Generic FE-GE Realtek PHY: the realtek PHY driver is missing (CONFIG_REALTEK_PHY)" :
                        "see the kernel line below");
                fprintf(out, "| permanent MAC | %s |\n", mac_text(c, nic));

                fprintf(out, "\n### PCIe link\n\n| | NIC %s | port %s |\n|---|---|---|\n", nic->slot,
                        nic->upstream[0] ? nic->upstream : "(none)");
                snprintf(a, sizeof(a), "%04x:%04x", nic->vendor, nic->device);
                markdown_link_row(out, "vendor:device", a, f->port_id[0] ? f->port_id : "unknown");
                markdown_link_row(out, "PCIe capability", yes_no(nic->link.pcie), yes_no(nic->upstream_link.pcie));
                markdown_link_row(out, "ASPM supported", report_aspm_states(nic->link.aspm_support), report_aspm_states(nic->upstream_link.aspm_support));
                markdown_link_row(out, "ASPM enabled", report_aspm_states(nic->link.aspm_control), report_aspm_states(nic->upstream_link.aspm_control));
                markdown_link_row(out, "clock PM capable", yes_no(nic->link.clkpm_capable), yes_no(nic->upstream_link.clkpm_capable));
                markdown_link_row(out, "clock PM enabled", yes_no(nic->link.clkpm_enabled), yes_no(nic->upstream_link.clkpm_enabled));
                l1ss_text(nic->link.l1ss ? nic->link.l1ss_cap : 0, a, sizeof(a));
                l1ss_text(nic->upstream_link.l1ss ? nic->upstream_link.l1ss_cap : 0, b, sizeof(b));
                markdown_link_row(out, "L1 substates supported", a, b);
                l1ss_text(nic->link.l1ss ? nic->link.l1ss_ctl1 : 0, a, sizeof(a));
                l1ss_text(nic->upstream_link.l1ss ? nic->upstream_link.l1ss_ctl1 : 0, b, sizeof(b));
                markdown_link_row(out, "L1 substates enabled", a, b);

                fprintf(out, "\n### Knobs\n\n| knob | current | desired | why |\n|---|---|---|---|\n");
                for (int k = 0; k < _KNOB_MAX; k++) {
                        const PlanItem *it = plan_item(&f->plan, k), *held = held_item(&f->plan, k);
                        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], why[600], hb[64] = "-";
                        if (held)
                                snprintf(hb, sizeof(hb), "held back: %s", knob_format_value(k, held->desired, des, sizeof(des)));
                        fprintf(out, "| %s | %s | %s | %s |\n", knob_get(k)->name, current_text(k, &f->current[k], cur, sizeof(cur)),
                                !it ? hb : it->action == PLAN_EXCLUDED ? "not touched" : knob_format_value(k, it->desired, des, sizeof(des)),
                                it ? plan_provenance_string(&it->why, why, sizeof(why)) :
                                held ? plan_provenance_string(&held->why, why, sizeof(why)) : "");
                }
                {
                        const Quirk *qs[_KNOB_MAX + 1];
                        size_t nq = plan_quirks(&f->plan, qs, ELEMENTSOF(qs));
                        if (nq > 0)
                                fputs("\n### Quirks behind the plan\n", out);
                        for (size_t j = 0; j < nq; j++) {
                                fprintf(out, "\n- **%s** (%s:%u): %s\n", qs[j]->id, qs[j]->file, qs[j]->line, qs[j]->reason);
                                fprintf(out, "  - evidence: %s\n", qs[j]->evidence ?: "none stated");
                                fprintf(out, "  - counter-evidence: %s\n", qs[j]->counter_evidence ?: "none known");
                                fprintf(out, "  - references: %s\n", qs[j]->reference);
                        }
                }
                if (f->plan.ignored)
                        fprintf(out, "\nIgnored by %s:%u.\n", f->plan.ignored_by.file, f->plan.ignored_by.line);
                if (f->plan.link_power_asked) {
                        fprintf(out, "\n### Link power\n\nDynamic (%s:%u): %s%s.\n", f->plan.link_power_origin.file ?: "-",
                                f->plan.link_power_origin.line, f->plan.link_power_blocked ? "not on this link, " : "runs in the daemon",
                                f->plan.link_power_blocked ?: "");
                        if (f->link_power_known)
                                fprintf(out, "\n- state: %s%s%s\n- L1 on: %.0f s, off: %.0f s\n- transitions: %u\n",
                                        f->link_power.state, f->link_power.reason[0] ? ": " : "", f->link_power.reason,
                                        (double) f->link_power.idle_usec / 1e6, (double) f->link_power.busy_usec / 1e6,
                                        f->link_power.transitions);
                        else
                                fprintf(out, "\nNo record from the daemon (not running, or the link is not up).\n");
                }

                fprintf(out, "\n### Driver statistics\n\n");
                if (f->stats_error < 0)
                        fprintf(out, "Unavailable: %s.\n", strerror(-f->stats_error));
                else if (f->stats.n == 0)
                        fprintf(out, "The driver reports none.\n");
                else {
                        fprintf(out, "| counter | value |\n|---|---|\n");
                        for (size_t s = 0; s < f->stats.n; s++)
                                fprintf(out, "| %s | %" PRIu64 " |\n", f->stats.names[s], f->stats.values[s]);
                }

                fprintf(out, "\n### Link and features (ethtool)\n\n");
                if (!f->linkmodes_known && !f->linkstate_known && !f->features_known)
                        fprintf(out, "Unavailable (see Not read).\n");
                else {
                        char sp[32];
                        const char *ln = attr_bool(f->linkstate_known, &f->linkstate, ETHTOOL_A_LINKSTATE_LINK),
                                   *an = attr_bool(f->linkmodes_known, &f->linkmodes, ETHTOOL_A_LINKMODES_AUTONEG);
                        fprintf(out, "- link detected: %s\n- speed: %s, duplex: %s, autonegotiation: %s\n",
                                streq(ln, "null") ? "unknown" : streq(ln, "true") ? "yes" : "no",
                                link_speed(f, sp, sizeof(sp)) ?: "unknown", link_duplex(f) ?: "unknown",
                                streq(an, "null") ? "unknown" : streq(an, "true") ? "on" : "off");
                        if (f->features_known) {
                                fprintf(out, "\n| feature | state |\n|---|---|\n");
                                for (size_t s = 0; s < f->features.n; s++)
                                        if (f->features.features[s].name[0])
                                                fprintf(out, "| %s | %s%s |\n", f->features.features[s].name,
                                                        f->features.features[s].active ? "on" : "off",
                                                        f->features.features[s].changeable ? "" : " [fixed]");
                        }
                }

                fprintf(out, "\n### Kernel messages about this NIC\n\n");
                if (f->n_kernel == 0)
                        fprintf(out, "None found.\n");
                else {
                        fprintf(out, "```\n");
                        for (size_t s = 0; s < f->n_kernel; s++) {
                                fprintf(out, "%s\n", f->kernel[s]);
                                if (s + 1 == KERNEL_LINES / 2 && f->kernel_dropped)
                                        fprintf(out, "[… %zu lines left out …]\n", f->kernel_dropped);
                        }
                        fprintf(out, "```\n");
                }

                fprintf(out, "\n### Recent r8169-tuned messages\n\n");
                if (f->n_journal == 0)
                        fprintf(out, "None in the journal.\n");
                else {
                        fprintf(out, "```\n");
                        for (size_t s = 0; s < f->n_journal; s++) {
                                char ts[64];
                                fprintf(out, "%s %s\n", timestamp(f->journal[s].usec, ts, sizeof(ts)), f->journal[s].message);
                        }
                        fprintf(out, "```\n");
                }
        }

        fprintf(out, "\n## Configuration problems\n\n");
        if (problems.n == 0)
                fprintf(out, "None (check-config finds nothing).\n");
        else {
                fprintf(out, "```\n");
                diag_print(&problems, out);
                fprintf(out, "```\n");
        }

        fprintf(out, "\n## Not read\n\n");
        if (n_unread == 0)
                fprintf(out, "Everything was read.\n");
        for (size_t i = 0; i < n_unread; i++)
                fprintf(out, "- %s: %s%s%s%s\n", unread[i].what, unread[i].message, unread[i].error ? " (" : "",
                        unread[i].error ? report_errno_name(unread[i].error) : "", unread[i].error ? ")" : "");
}

static void json(FILE *out, Context *c, const MachineFacts *mf, const char *kernel, const char *policy, NicFacts *facts,
                 size_t n) {
        fprintf(out, "{\"schema\":%d,\"version\":\"%s\",\"kernel\":", REPORT_JSON_SCHEMA, R8T_VERSION);
        json_string(out, kernel);
        fputs(",\"dmi\":{", out);
        for (int d = 0; d < _DMI_FIELD_MAX; d++) {
                fprintf(out, "%s\"%s\":", d ? "," : "", dmi_field_to_string(d));
                json_string(out, c->machine.dmi[d][0] ? c->machine.dmi[d] : NULL);
        }
        fputs(",\"bios_version\":", out);
        json_string(out, mf->bios_version[0] ? mf->bios_version : NULL);
        fprintf(out, "},\"power_source\":\"%s\",\"profile\":\"%s\",\"aspm_policy\":", power_source_to_string(c->machine.power),
                profile_to_string(c->profile));
        json_string(out, policy);
        fputs(",\"cmdline\":", out);
        json_string(out, mf->cmdline_known ? mf->cmdline : NULL);
        fputs(",\"modules\":[", out);
        for (size_t i = 0; i < mf->n_modules; i++)
                fprintf(out, "%s\"%s\"", i ? "," : "", mf->modules[i]);
        fprintf(out, "],\"macs_shown\":%s,\"nics\":[", c->opts->show_mac ? "true" : "false");
        for (size_t i = 0; i < n; i++) {
                NicFacts *f = &facts[i];
                Nic copy = *f->nic;
                if (i)
                        fputc(',', out);
                fputc('{', out);
                /* The permanent MAC is null unless --show-mac: the report is meant for public trackers. */
                if (!c->opts->show_mac)
                        copy.perm_mac[0] = '\0';
                report_nic_json_members(out, &copy);
                fputc(',', out);
                report_link_json(out, "upstream_link", &f->nic->upstream_link);
                fputs(",\"upstream_id\":", out);
                json_string(out, f->port_id[0] ? f->port_id : NULL);
                fputs(",\"driver_info\":", out);
                if (f->drv_error < 0)
                        fputs("null", out);
                else {
                        fputs("{\"driver\":", out);
                        json_string(out, f->drv.driver);
                        fputs(",\"version\":", out);
                        json_string(out, f->drv.version);
                        fputs(",\"firmware\":", out);
                        json_string(out, f->drv.fw_version);
                        fputs(",\"bus_info\":", out);
                        json_string(out, f->drv.bus_info);
                        fputc('}', out);
                }
                fputs(",\"phy\":", out);
                json_string(out, f->phy);
                fprintf(out, ",\"phy_generic\":%s", f->phy && strstr(f->phy, "Generic FE-GE Realtek PHY") ? "true" : "false");
                fputs(",\"knobs\":{", out);
                for (int k = 0; k < _KNOB_MAX; k++) {
                        const PlanItem *it = plan_item(&f->plan, k), *held = held_item(&f->plan, k);
                        char why[600];
                        fprintf(out, "%s\"%s\":{\"current\":", k ? "," : "", knob_get(k)->name);
                        report_knob_reading_json(out, k, &f->current[k]);
                        fputs(",\"desired\":", out);
                        if (it && it->action != PLAN_EXCLUDED)
                                report_knob_value_json(out, k, it->desired);
                        else
                                fputs("null", out);
                        fputs(",\"why\":", out);
                        json_string(out, it ? plan_provenance_string(&it->why, why, sizeof(why)) : NULL);
                        fputs(",\"held_back\":", out);
                        if (held)
                                report_knob_value_json(out, k, held->desired);
                        else
                                fputs("null", out);
                        fputc('}', out);
                }
                fputs("},\"quirks\":[", out);
                {
                        const Quirk *qs[_KNOB_MAX + 1];
                        size_t nq = plan_quirks(&f->plan, qs, ELEMENTSOF(qs));
                        for (size_t j = 0; j < nq; j++) {
                                fputs(j ? ",{\"id\":" : "{\"id\":", out);
                                json_string(out, qs[j]->id);
                                fputs(",\"reason\":", out);
                                json_string(out, qs[j]->reason);
                                fputs(",\"evidence\":", out);
                                json_string(out, qs[j]->evidence);
                                fputs(",\"counter_evidence\":", out);
                                json_string(out, qs[j]->counter_evidence);
                                fputs(",\"reference\":", out);
                                report_words_json(out, qs[j]->reference);
                                fputc('}', out);
                        }
                }
                fputs("],\"link_power\":", out);
                report_link_power_json(out, f->link_power_known ? &f->link_power : NULL);
                fputs(",\"link_power_plan\":", out);
                report_plan_link_power_json(out, &f->plan);
                fputs(",\"statistics\":", out);
                if (f->stats_error < 0)
                        fputs("null", out);
                else {
                        fputc('{', out);
                        for (size_t s = 0; s < f->stats.n; s++) {
                                if (s)
                                        fputc(',', out);
                                json_string(out, f->stats.names[s]);
                                fprintf(out, ":%" PRIu64, f->stats.values[s]);
                        }
                        fputc('}', out);
                }
                {
                        char sp[32];
                        fputs(",\"ethtool\":{\"link_detected\":", out);
                        fputs(attr_bool(f->linkstate_known, &f->linkstate, ETHTOOL_A_LINKSTATE_LINK), out);
                        fputs(",\"speed_mbps\":", out);
                        if (link_speed(f, sp, sizeof(sp)))
                                fprintf(out, "%" PRIu32, f->linkmodes.value[ETHTOOL_A_LINKMODES_SPEED]);
                        else
                                fputs("null", out);
                        fputs(",\"duplex\":", out);
                        json_string(out, link_duplex(f));
                        fputs(",\"autoneg\":", out);
                        fputs(attr_bool(f->linkmodes_known, &f->linkmodes, ETHTOOL_A_LINKMODES_AUTONEG), out);
                        fputs(",\"features\":", out);
                        if (f->features_known) {
                                bool first = true;
                                fputc('[', out);
                                for (size_t s = 0; s < f->features.n; s++) {
                                        if (!f->features.features[s].name[0])
                                                continue; /* a bit the kernel has no name for */
                                        fputs(first ? "{\"name\":" : ",{\"name\":", out);
                                        first = false;
                                        json_string(out, f->features.features[s].name);
                                        fprintf(out, ",\"active\":%s,\"changeable\":%s}", f->features.features[s].active ? "true" : "false",
                                                f->features.features[s].changeable ? "true" : "false");
                                }
                                fputc(']', out);
                        } else
                                fputs("null", out);
                        fputc('}', out);
                }
                fputs(",\"kernel_log\":[", out);
                for (size_t s = 0; s < f->n_kernel; s++) {
                        if (s)
                                fputc(',', out);
                        json_string(out, f->kernel[s]);
                }
                fprintf(out, "],\"kernel_log_left_out\":%zu,\"journal\":[", f->kernel_dropped);
                for (size_t s = 0; s < f->n_journal; s++) {
                        char ts[64];
                        fprintf(out, "%s{\"time\":", s ? "," : "");
                        json_string(out, timestamp(f->journal[s].usec, ts, sizeof(ts)));
                        fprintf(out, ",\"usec\":%" PRIu64 ",\"message\":", f->journal[s].usec);
                        json_string(out, f->journal[s].message);
                        fputc('}', out);
                }
                fputs("]}", out);
        }
        fputs("],\"config_problems\":[", out);
        for (size_t i = 0; i < problems.n; i++) {
                if (i)
                        fputc(',', out);
                json_string(out, problems.msgs[i]);
        }
        fputs("],\"not_read\":[", out);
        for (size_t i = 0; i < n_unread; i++) {
                fputs(i ? ",{\"what\":" : "{\"what\":", out);
                json_string(out, unread[i].what);
                fputs(",\"errno\":", out);
                json_string(out, report_errno_name(unread[i].error));
                fputs(",\"message\":", out);
                json_string(out, unread[i].message);
                fputc('}', out);
        }
        fputs("]}\n", out);
}

int cmd_diagnose(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        _cleanup_free_ NicFacts *facts = NULL;
        MachineFacts mf = {};
        char kernel[600], policy[128];
        struct utsname u;
        size_t n = 0;
        Context c;
        int ret = 1;

        /* A broken configuration is itself worth reporting: diagnose goes on without it. */
        if (context_open_selected(&c, o, false, &selected) < 0)
                goto out;
        if (context_load_policy(&c) < 0) {
                log_warning("Planned values below assume no configuration and no quirks.");
                not_read(0, "rejected (see the configuration problems); planned values assume no configuration and no quirks",
                         "configuration and quirk files");
                machine_read(c.root, o->kernel_release, &c.machine);
                c.profile = profile_resolve(c.config.profile, c.machine.power);
        }
        if (uname(&u) >= 0)
                snprintf(kernel, sizeof(kernel), "%s %s %s", u.release, u.version, u.machine);
        else
                snprintf(kernel, sizeof(kernel), "unknown");
        aspm_policy(c.root, policy, sizeof(policy));
        if (strncmp(policy, "unknown", 7) == 0)
                not_read(0, "no pcie_aspm policy: CONFIG_PCIEASPM=n?", "ASPM policy (module/pcie_aspm/parameters/policy)");
        machine_facts(&c, &mf);
        read_problems(o);
        facts = calloc(c.nics.n + 1, sizeof(NicFacts));
        if (!facts)
                goto out;
        for (size_t i = 0; i < c.nics.n; i++)
                if (selected[i]) {
                        facts[n].nic = &c.nics.nics[i];
                        gather(&c, &facts[n++]);
                }
        if (n > 0) {
                if (o->kernel_log)
                        kernel_lines_from_file(facts, n, o->kernel_log, o->show_mac);
                else if (sysroot_is_live(c.root))
                        kernel_lines_from_journal(facts, n, o->show_mac);
                else
                        not_read(0, "none given for this sysfs tree (--kernel-log)", "kernel log");
                for (size_t i = 0; i < n; i++)
                        find_phy_line(&facts[i]);
        }
        if (o->json)
                json(stdout, &c, &mf, kernel, policy, facts, n);
        else
                markdown(stdout, &c, &mf, kernel, policy, facts, n);
        for (size_t i = 0; i < n; i++)
                facts_done(&facts[i]);
        ret = 0;
out:
        diag_done(&problems);
        context_done(&c);
        return ret;
}
