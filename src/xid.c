/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <endian.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

#include "ethtool-ioctl.h"
#include "kernel-log.h"
#include "log.h"
#include "nic.h"

#define TXCONFIG 0x40

static const char *const source_names[_XID_SOURCE_MAX] = {
        [XID_SOURCE_NONE] = "none",
        [XID_SOURCE_REGS] = "regs",
        [XID_SOURCE_KERNEL_LOG] = "kernel-log",
        [XID_SOURCE_MMIO] = "mmio",
};

const char *xid_source_to_string(XidSource s) {
        return s >= 0 && s < _XID_SOURCE_MAX ? source_names[s] : NULL;
}

static void _printf_(2, 3) note(Nic *n, const char *fmt, ...) {
        size_t len = strlen(n->xid_notes);
        va_list ap;

        if (len + 3 >= sizeof(n->xid_notes))
                return;
        if (len > 0) {
                strcpy(n->xid_notes + len, "; ");
                len += 2;
        }
        va_start(ap, fmt);
        vsnprintf(n->xid_notes + len, sizeof(n->xid_notes) - len, fmt, ap);
        va_end(ap);
}

int xid_from_regs_dump(const uint8_t *buf, size_t len, uint16_t *ret) {
        uint32_t txconfig;

        if (len < TXCONFIG + 4)
                return -EBADMSG;
        memcpy(&txconfig, buf + TXCONFIG, sizeof(txconfig));
        txconfig = le32toh(txconfig);
        if (txconfig == UINT32_MAX)
                return -EIO; /* PCI read failed: the device is off or gone */
        *ret = chip_xid_from_txconfig(txconfig);
        return 0;
}

/*
 * (a) r8169's register dump is the first 256 bytes of its MMIO BAR, r8168's
 * the first 1024 with the MAC registers first: TxConfig is at 0x40 in both.
 * Needs CAP_NET_ADMIN: the ethtool core checks it for ETHTOOL_GREGS (net/ethtool/ioctl.c).
 */
static int xid_from_regs(Nic *n, uint16_t *ret) {
        _cleanup_free_ uint8_t *regs = NULL;
        struct ethtool_drvinfo info;
        const char *ifname = nic_ifname(n);
        size_t len;
        int r;

        if (!ifname) {
                note(n, "regs: no network interface");
                return -ENODEV;
        }
        r = ethtool_ioctl_drvinfo(ifname, &info);
        if (r >= 0)
                r = ethtool_ioctl_regs(ifname, info.regdump_len, &regs, &len);
        if (r < 0) {
                note(n, "regs: %s: %s", ifname, strerror(-r));
                return r;
        }
        /* A dump of some other device must not name this chip. */
        if (!streq(info.bus_info, n->slot)) {
                note(n, "regs: %s belongs to \"%s\", not %s", ifname, info.bus_info, n->slot);
                return -ENXIO;
        }
        r = xid_from_regs_dump(regs, len, ret);
        if (r == -EBADMSG)
                note(n, "regs: dump of %zu bytes is too short", len);
        else if (r < 0)
                note(n, "regs: TxConfig reads 0xffffffff");
        return r;
}

int xid_parse_kernel_line(const char *line, const char *slot, uint16_t *ret) {
        static const char *const markers[] = { "XID ", "unknown chip XID " };
        const char *p, *s;
        char hex[4];

        /* The slot must stand as a word: "r8169 0000:01:00.0 eth0: …" or "… 0000:01:00.0: …". */
        for (s = strstr(line, slot); s; s = strstr(s + 1, slot)) {
                char after = s[strlen(slot)];
                if ((s == line || s[-1] == ' ' || s[-1] == '+' || s[-1] == ':') && (after == ' ' || after == ':'))
                        break;
        }
        if (!s)
                return -ENOENT;
        for (size_t i = 0; i < ELEMENTSOF(markers); i++) {
                p = strstr(s, markers[i]);
                if (!p)
                        continue;
                p += strlen(markers[i]);
                if (!isxdigit((unsigned char) p[0]) || !isxdigit((unsigned char) p[1]) ||
                    !isxdigit((unsigned char) p[2]))
                        continue;
                /* The probe line goes on with ", IRQ n"; the error with ", contact …". */
                if (p[3] != ',')
                        continue;
                memcpy(hex, p, 3);
                hex[3] = '\0';
                return chip_parse_xid(hex, ret);
        }
        return -ENOENT;
}

/* What a kernel log file may be: dmesg or journalctl -k of one boot is far smaller. */

/* (b) from a file of kernel messages: the last matching line wins (a re-probe replaces the first). */
/*
 * One line for the index: every slot-shaped word in it ("0000:01:00.0") that the line's
 * parser takes as an XID line of that slot; a later line replaces an earlier one.
 */
static void xid_index_line(const char *line, size_t len, void *userdata) {
        IdentifyContext *ctx = userdata;

        for (size_t i = 0; i + PCI_SLOT_LEN - 1 <= len; i++) {
                char slot[PCI_SLOT_LEN];
                KernelLogXid *x;
                uint16_t xid;
                size_t k;

                if (line[i + 4] != ':' || line[i + 7] != ':' || line[i + 10] != '.')
                        continue;
                memcpy(slot, line + i, PCI_SLOT_LEN - 1);
                slot[PCI_SLOT_LEN - 1] = '\0';
                if (!pci_slot_valid(slot) || xid_parse_kernel_line(line, slot, &xid) < 0)
                        continue;
                for (k = 0; k < ctx->n_log_xids && !streq(ctx->log_xids[k].slot, slot); k++)
                        ;
                if (k == ctx->n_log_xids) {
                        x = reallocarray(ctx->log_xids, ctx->n_log_xids + 1, sizeof(*x));
                        if (!x)
                                return; /* that slot is then not found in the file: said, never invented */
                        ctx->log_xids = x;
                        memcpy(ctx->log_xids[ctx->n_log_xids++].slot, slot, PCI_SLOT_LEN);
                }
                ctx->log_xids[k].xid = xid;
        }
}

void identify_context_done(IdentifyContext *ctx) {
        free(ctx->log_xids);
        ctx->log_xids = NULL;
        ctx->n_log_xids = 0;
        ctx->log_read = false;
}

/* The file is read once per scan, not once per NIC (a fixture of 251 NICs has 251 lines). */
static int xid_from_log_file(Nic *n, IdentifyContext *ctx, uint16_t *ret) {
        const char *path = ctx->kernel_log;

        if (!ctx->log_read) {
                ctx->log_read = true;
                ctx->log_error = kernel_log_for_each_line(path, xid_index_line, ctx);
        }
        if (ctx->log_error < 0) {
                note(n, "kernel-log: %s: %s", path, kernel_log_error_string(ctx->log_error));
                return ctx->log_error;
        }
        for (size_t k = 0; k < ctx->n_log_xids; k++)
                if (streq(ctx->log_xids[k].slot, n->slot)) {
                        *ret = ctx->log_xids[k].xid;
                        return 0;
                }
        note(n, "kernel-log: no XID line for %s in %s", n->slot, path);
        return -ENOENT;
}

/* (b) from this boot's journal: journald tags r8169's netdev_info() lines with the PCI device. */
static int xid_from_journal(Nic *n, uint16_t *ret) {
        _cleanup_journal_ sd_journal *j = NULL;
        sd_id128_t boot;
        char match[64];
        int r;

        r = sd_id128_get_boot(&boot);
        if (r >= 0)
                r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
        if (r < 0) {
                note(n, "kernel-log: journal: %s", strerror(-r));
                return r;
        }
        snprintf(match, sizeof(match), "_KERNEL_DEVICE=+pci:%s", n->slot);
        r = sd_journal_add_match(j, match, 0);
        if (r >= 0) {
                char b[64] = "_BOOT_ID=";
                sd_id128_to_string(boot, b + strlen(b));
                r = sd_journal_add_match(j, b, 0);
        }
        if (r >= 0)
                r = sd_journal_seek_tail(j);
        if (r < 0) {
                note(n, "kernel-log: journal: %s", strerror(-r));
                return r;
        }
        r = -ENOENT;
        while (sd_journal_previous(j) > 0) {
                const void *data;
                size_t len;
                char msg[512];

                if (sd_journal_get_data(j, "MESSAGE", &data, &len) < 0 || len <= 8)
                        continue;
                len -= 8;
                if (len >= sizeof(msg))
                        len = sizeof(msg) - 1;
                memcpy(msg, (const char *) data + 8, len);
                msg[len] = '\0';
                /* The journal stores the text without the "r8169 <slot>" prefix. */
                char full[600];
                snprintf(full, sizeof(full), "%s %s", n->slot, msg);
                if (xid_parse_kernel_line(full, n->slot, ret) >= 0) {
                        r = 0;
                        break;
                }
        }
        if (r < 0)
                note(n, "kernel-log: no XID line for %s in this boot's journal", n->slot);
        return r;
}

/* "0x… 0x… 0x…" per BAR: the first with IORESOURCE_MEM (0x200) is the one r8169 maps. */
static int first_memory_bar(const Sysroot *root, const char *dir, int *ret) {
        char buf[2048], *line, *save = NULL;
        int i = 0, r;

        r = sysroot_read(root, dir, "resource", buf, sizeof(buf));
        if (r < 0)
                return r;
        for (line = strtok_r(buf, "\n", &save); line && i < 6; line = strtok_r(NULL, "\n", &save), i++) {
                unsigned long long start, end, flags;
                if (sscanf(line, "%llx %llx %llx", &start, &end, &flags) != 3)
                        return -EBADMSG;
                if ((flags & 0x200) && end > start) {
                        *ret = i;
                        return 0;
                }
        }
        return -ENOENT;
}

/* (c) read-only mapping of the BAR: one 32-bit read of TxConfig. Needs CAP_SYS_ADMIN on /sys. */
static int xid_from_mmio(Nic *n, const Sysroot *root, uint16_t *ret) {
        _cleanup_close_ int fd = -1;
        char dir[64], attr[16];
        struct stat st;
        uint32_t txconfig;
        void *p;
        int bar, r;

        snprintf(dir, sizeof(dir), "bus/pci/devices/%s", n->slot);
        r = first_memory_bar(root, dir, &bar);
        if (r < 0) {
                note(n, "mmio: no memory BAR: %s", strerror(-r));
                return r;
        }
        snprintf(attr, sizeof(attr), "resource%d", bar);
        fd = sysroot_open_attr(root, dir, attr);
        if (fd < 0) {
                note(n, "mmio: %s: %s", attr, strerror(-fd));
                return fd;
        }
        /* A short regular file (a truncated fixture) would SIGBUS on access. */
        if (fstat(fd, &st) < 0)
                return -errno;
        if (st.st_size < TXCONFIG + 4) {
                note(n, "mmio: %s is only %lld bytes", attr, (long long) st.st_size);
                return -EBADMSG;
        }
        p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
                note(n, "mmio: mapping %s: %m", attr);
                return -errno;
        }
        txconfig = le32toh(*(volatile uint32_t *) ((uint8_t *) p + TXCONFIG));
        munmap(p, 4096);
        if (txconfig == UINT32_MAX) {
                note(n, "mmio: TxConfig reads 0xffffffff (device off or gone)");
                return -EIO;
        }
        *ret = chip_xid_from_txconfig(txconfig);
        return 0;
}

static int xid_from_kernel_log(Nic *n, IdentifyContext *ctx, uint16_t *ret) {
        if (ctx->kernel_log)
                return xid_from_log_file(n, ctx, ret);
        if (!sysroot_is_live(ctx->root)) {
                /* This machine's log says nothing about a fixture's devices. */
                note(n, "kernel-log: none given for this sysfs tree (--kernel-log)");
                return -ENOENT;
        }
        return xid_from_journal(n, ret);
}

void nic_identify(Nic *n, IdentifyContext *ctx) {
        uint16_t xid;

        n->xid = CHIP_XID_INVALID;
        n->xid_source = XID_SOURCE_NONE;
        n->chip = NULL;
        n->xid_notes[0] = '\0';

        if (xid_from_regs(n, &xid) >= 0)
                n->xid_source = XID_SOURCE_REGS;
        else if (xid_from_kernel_log(n, ctx, &xid) >= 0)
                n->xid_source = XID_SOURCE_KERNEL_LOG;
        else if (xid_from_mmio(n, ctx->root, &xid) >= 0)
                n->xid_source = XID_SOURCE_MMIO;
        else
                return;
        n->xid = xid;
        n->chip = chip_lookup(xid, n->vendor, n->device);
}
