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

#include "base/log.h"
#include "kernel/ethtool-ioctl.h"
#include "kernel/kernel-log.h"
#include "kernel/nic.h"

#define TXCONFIG 0x40

static const char *const source_names[_XID_SOURCE_MAX] = {
        [XID_SOURCE_NONE] = "none",
        [XID_SOURCE_REGS] = "regs",
        [XID_SOURCE_KERNEL_LOG] = "kernel-log",
        [XID_SOURCE_MMIO] = "mmio",
        [XID_SOURCE_CONFIG] = "config",
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

/*
 * One "XID " of a line, at p, if r8169 wrote it: preceded by ", " (the probe line) or
 * "unknown chip " (the refusal), either perhaps with 7.0's "ext" between, and followed by
 * hex digits that end the line or go on with ",".
 *
 * 5.4 to 6.18 print "XID %03x"; 7.0 prints "%sXID %x": no padding (RTL8169s is "XID 8") and,
 * for a chip of the extended row, "extXID" and the 32-bit id of TX_CONFIG_V2. In 7.0 and 7.1.y
 * every unknown XID also went down the extended path (d77f3f016826 fixed it for 7.2), so an
 * "unknown chip extXID n" line does not say which XID the chip has: xid is then not known.
 * 4.x printed TxConfig itself ("XID %08x", masked in ways that changed): not decoded.
 */
static int parse_xid_at(const char *start, const char *p, LogXid *ret) {
        const char *q = p, *d = p + 4;
        char hex[9];
        size_t n = 0;
        bool ext = false, refused;
        uint16_t v;

        if (q - start >= 3 && memcmp(q - 3, "ext", 3) == 0) {
                ext = true;
                q -= 3;
        }
        refused = q - start >= 13 && memcmp(q - 13, "unknown chip ", 13) == 0;
        if (!refused && !(q - start >= 2 && memcmp(q - 2, ", ", 2) == 0))
                return -ENOENT;
        while (n < sizeof(hex) - 1 && isxdigit((unsigned char) d[n])) {
                hex[n] = d[n];
                n++;
        }
        hex[n] = '\0';
        if (n == 0 || !(d[n] == ',' || d[n] == '\0'))
                return -ENOENT;
        if (ext) {
                uint32_t v2;
                if (chip_parse_xid2(hex, &v2) < 0)
                        return -ENOENT;
                *ret = (LogXid) { refused ? CHIP_XID_INVALID : CHIP_XID_EXTENDED_ROW, v2 };
                return 0;
        }
        if (n > 3) /* %03x pads, %x does not: an XID has at most three digits */
                return -ENOENT;
        v = (uint16_t) strtoul(hex, NULL, 16);
        if (v & ~0xfcf)
                return -ENOENT; /* bits 25:24 of TxConfig are never part of an XID */
        *ret = (LogXid) { v, CHIP_XID2_INVALID };
        return 0;
}

int xid_parse_kernel_line(const char *line, const char *slot, LogXid *ret) {
        const char *s;

        /* The slot must stand as a word: "r8169 0000:01:00.0 eth0: …" or "… 0000:01:00.0: …". */
        for (s = strstr(line, slot); s; s = strstr(s + 1, slot)) {
                char after = s[strlen(slot)];
                if ((s == line || s[-1] == ' ' || s[-1] == '+' || s[-1] == ':') && (after == ' ' || after == ':'))
                        break;
        }
        if (!s)
                return -ENOENT;
        for (const char *p = strstr(s, "XID "); p; p = strstr(p + 1, "XID "))
                if (parse_xid_at(s, p, ret) >= 0)
                        return 0;
        return -ENOENT;
}

const char *nic_xid_string(const Nic *n, char *buf, size_t size) {
        return chip_id_to_string(n->xid, n->xid2, buf, size);
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
                LogXid id;
                size_t k;

                if (line[i + 4] != ':' || line[i + 7] != ':' || line[i + 10] != '.')
                        continue;
                memcpy(slot, line + i, PCI_SLOT_LEN - 1);
                slot[PCI_SLOT_LEN - 1] = '\0';
                if (!pci_slot_valid(slot) || xid_parse_kernel_line(line, slot, &id) < 0)
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
                ctx->log_xids[k].id = id;
        }
}

void identify_context_done(IdentifyContext *ctx) {
        free(ctx->log_xids);
        ctx->log_xids = NULL;
        ctx->n_log_xids = 0;
        ctx->log_read = false;
}

/* The file is read once per scan, not once per NIC (a fixture of 251 NICs has 251 lines). */
static int xid_from_log_file(Nic *n, IdentifyContext *ctx, LogXid *ret) {
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
                        *ret = ctx->log_xids[k].id;
                        return 0;
                }
        note(n, "kernel-log: no XID line for %s in %s", n->slot, path);
        return -ENOENT;
}

/* (b) from this boot's journal: journald tags r8169's netdev_info() lines with the PCI device. */
static int xid_from_journal(Nic *n, LogXid *ret) {
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

/*
 * (c) read-only mapping of the BAR: one 32-bit read of the register at off (TxConfig, or
 * TX_CONFIG_V2 of an extended chip). Needs CAP_SYS_ADMIN on /sys.
 */
static int mmio_read32(Nic *n, const Sysroot *root, size_t off, uint32_t *ret) {
        _cleanup_close_ int fd = -1;
        char dir[64], attr[16];
        size_t page = off & ~(size_t) 4095;
        struct stat st;
        uint32_t v;
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
        if ((size_t) st.st_size < off + 4) {
                note(n, "mmio: %s is only %lld bytes, the register at 0x%zx is past its end", attr, (long long) st.st_size,
                     off);
                return -EBADMSG;
        }
        p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t) page);
        if (p == MAP_FAILED) {
                note(n, "mmio: mapping %s: %m", attr);
                return -errno;
        }
        v = le32toh(*(volatile uint32_t *) ((uint8_t *) p + (off - page)));
        munmap(p, 4096);
        if (v == UINT32_MAX) {
                note(n, "mmio: the register at 0x%zx reads 0xffffffff (device off or gone)", off);
                return -EIO;
        }
        *ret = v;
        return 0;
}

static int xid_from_mmio(Nic *n, const Sysroot *root, uint16_t *ret) {
        uint32_t txconfig;
        int r = mmio_read32(n, root, TXCONFIG, &txconfig);

        if (r >= 0)
                *ret = chip_xid_from_txconfig(txconfig);
        return r;
}

static int xid_from_kernel_log(Nic *n, IdentifyContext *ctx, LogXid *ret) {
        LogXid id;
        int r;

        if (ctx->kernel_log)
                r = xid_from_log_file(n, ctx, &id);
        else if (!sysroot_is_live(ctx->root)) {
                /* This machine's log says nothing about a fixture's devices. */
                note(n, "kernel-log: none given for this sysfs tree (--kernel-log)");
                return -ENOENT;
        } else
                r = xid_from_journal(n, &id);
        if (r < 0)
                return r;
        if (id.xid == CHIP_XID_INVALID) {
                note(n, "kernel-log: r8169 refused %s as \"unknown chip extXID %x\", a line without its XID", n->slot, id.xid2);
                return -ENOENT;
        }
        *ret = id;
        return 0;
}

/*
 * An XID of the extended row names no chip by itself (7.1): the kernel then reads TX_CONFIG_V2.
 * Its probe line says what it read ("extXID n"); else the BAR has it. Neither: unknown, not guessed.
 */
static int xid2_resolve(Nic *n, IdentifyContext *ctx, bool log_tried, XidSource *source) {
        LogXid id;
        uint32_t v;

        if (!log_tried && xid_from_kernel_log(n, ctx, &id) >= 0 && id.xid2 != CHIP_XID2_INVALID) {
                n->xid2 = id.xid2;
                *source = XID_SOURCE_KERNEL_LOG;
                return 0;
        }
        if (mmio_read32(n, ctx->root, CHIP_TX_CONFIG_V2, &v) >= 0) {
                n->xid2 = v;
                *source = XID_SOURCE_MMIO;
                return 0;
        }
        note(n, "XID %03x is r8169's extended row: the chip's id is in TX_CONFIG_V2 (MMIO 0x%x), which no source gave",
             n->xid, CHIP_TX_CONFIG_V2);
        return -ENOENT;
}

void nic_identify(Nic *n, IdentifyContext *ctx) {
        XidSource source;
        LogXid id = { CHIP_XID_INVALID, CHIP_XID2_INVALID };
        bool log_tried = false;

        n->xid = CHIP_XID_INVALID;
        n->xid2 = CHIP_XID2_INVALID;
        n->xid_source = XID_SOURCE_NONE;
        n->chip = NULL;
        n->xid_notes[0] = '\0';

        /* A claimed slot is the chip its section says, whatever the hardware would answer. */
        if (n->claim.slot[0]) {
                n->xid = n->claim.xid;
                n->xid_source = XID_SOURCE_CONFIG;
                n->chip = chip_lookup(n->xid, CHIP_XID2_INVALID, n->vendor, n->device);
                note(n, "assumed by %s", n->claim.origin);
                return;
        }
        if (xid_from_regs(n, &id.xid) >= 0)
                source = XID_SOURCE_REGS;
        else if ((log_tried = true, xid_from_kernel_log(n, ctx, &id) >= 0))
                source = XID_SOURCE_KERNEL_LOG;
        else if (xid_from_mmio(n, ctx->root, &id.xid) >= 0)
                source = XID_SOURCE_MMIO;
        else
                return;
        n->xid = id.xid;
        n->xid2 = id.xid2;
        if (chip_xid_is_extended(n->xid) && n->xid2 == CHIP_XID2_INVALID)
                (void) xid2_resolve(n, ctx, log_tried, &source);
        n->xid_source = source;
        n->chip = chip_lookup(n->xid, n->xid2, n->vendor, n->device);
}
