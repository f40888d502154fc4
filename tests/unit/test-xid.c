/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <unistd.h>

#include "kernel/link-log.h"
#include "kernel/nic.h"

/*
 * r8169's own lines, one per format it has printed from 5.4 to 7.x, each decoded to the chip
 * the kernel named (format strings: 5.4-5.7 netif_info and 5.8-6.18 netdev_info "%s, %pM,
 * XID %03x, IRQ %d"; 7.0 "%s, %pM, %sXID %x, IRQ %d"; "unknown chip XID %03x" until 5.11,
 * with ", contact r8169 maintainers (see MAINTAINERS file)" from 5.12, "%sXID %x" from 7.0).
 */
static const struct {
        const char *line, *slot;
        uint16_t xid;
        uint32_t xid2;
        uint16_t pci_device;
        const char *chip; /* NULL: the kernel refused it */
} lines[] = {
        /* seeds/003 (5.x), with dmesg's timestamp */
        { "[    8.458515] r8169 0000:03:00.0 eth0: RTL8168gu/8111gu, 8c:16:45:5d:f2:c2, XID 509, IRQ 136", "0000:03:00.0",
          0x509, CHIP_XID2_INVALID, 0x8168, "RTL8168gu/8111gu" },
        /* seeds/001 (6.3) */
        { "r8169 0000:01:00.0 eth0: RTL8168h/8111h, f4:93:9f:f0:a5:f5, XID 541, IRQ 123", "0000:01:00.0", 0x541,
          CHIP_XID2_INVALID, 0x8168, "RTL8168h/8111h" },
        /* journalctl -k of 6.1 (Debian 12) */
        { "Dec 02 10:00:01 host kernel: r8169 0000:02:00.0 eth0: RTL8125B, 04:42:1a:00:00:01, XID 641, IRQ 129",
          "0000:02:00.0", 0x641, CHIP_XID2_INVALID, 0x8125, "RTL8125B" },
        /* 6.18: zero-padded */
        { "r8169 0000:05:01.0 eth0: RTL8169s, 00:0e:2e:00:00:01, XID 008, IRQ 17", "0000:05:01.0", 0x008, CHIP_XID2_INVALID,
          0x8169, "RTL8169s" },
        /* 7.x: no padding any more */
        { "r8169 0000:05:01.0 eth0: RTL8169s, 00:0e:2e:00:00:01, XID 8, IRQ 17", "0000:05:01.0", 0x008, CHIP_XID2_INVALID,
          0x8169, "RTL8169s" },
        { "r8169 0000:05:02.0 eth1: RTL8110s, 00:0e:2e:00:00:02, XID 40, IRQ 18", "0000:05:02.0", 0x040, CHIP_XID2_INVALID,
          0x8169, "RTL8110s" },
        { "r8169 0000:03:00.0 eth0: RTL8125CP, 00:e0:4c:00:00:03, XID 708, IRQ 140", "0000:03:00.0", 0x708, CHIP_XID2_INVALID,
          0x8125, "RTL8125CP" },
        { "r8169 0000:03:00.0 eth0: RTL9151A, 00:e0:4c:00:00:04, XID 68b, IRQ 140", "0000:03:00.0", 0x68b, CHIP_XID2_INVALID,
          0x8125, "RTL9151A" },
        /* 7.x: a chip of the extended row, named by TX_CONFIG_V2 */
        { "r8169 0000:03:00.0 eth0: RTL9151AS, 00:e0:4c:00:00:05, extXID 0, IRQ 140", "0000:03:00.0", 0x7c8, 0, 0x8125,
          "RTL9151AS" },
        /* refusals: 5.4-5.11 end the line after the XID; 5.12-6.18 and 7.x go on */
        { "r8169 0000:04:00.0: unknown chip XID 7c1", "0000:04:00.0", 0x7c1, CHIP_XID2_INVALID, 0x8168, NULL },
        { "r8169 0000:04:00.0: unknown chip XID 7c1, contact r8169 maintainers (see MAINTAINERS file)", "0000:04:00.0", 0x7c1,
          CHIP_XID2_INVALID, 0x8168, NULL },
        { "r8169 0000:04:00.0: unknown chip XID 8c, contact r8169 maintainers (see MAINTAINERS file)", "0000:04:00.0", 0x08c,
          CHIP_XID2_INVALID, 0x8168, NULL },
        /* 7.0/7.1.y send every unknown XID down the extended path: the line no longer has the XID */
        { "r8169 0000:04:00.0: unknown chip extXID 1a2b3c4d, contact r8169 maintainers (see MAINTAINERS file)",
          "0000:04:00.0", CHIP_XID_INVALID, 0x1a2b3c4d, 0x8168, NULL },
};

static void test_probe_lines(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(lines); i++) {
                LogXid x = { 0x123, 0x456 };
                const ChipInfo *c;

                assert_int_equal(xid_parse_kernel_line(lines[i].line, lines[i].slot, &x), 0);
                assert_int_equal(x.xid, lines[i].xid);
                assert_int_equal(x.xid2, lines[i].xid2);
                c = x.xid == CHIP_XID_INVALID ? NULL : chip_lookup(x.xid, x.xid2, 0x10ec, lines[i].pci_device);
                if (lines[i].chip) {
                        assert_non_null(c);
                        assert_string_equal(c->name, lines[i].chip);
                } else
                        assert_null(c);
        }
}

static void test_not_this_slot(void **state) {
        LogXid x = { 0x123, 0x456 };

        assert_int_equal(xid_parse_kernel_line("r8169 0000:03:00.0 eth0: RTL8168gu/8111gu, 8c:16:45:5d:f2:c2, "
                                               "XID 509, IRQ 136", "0000:01:00.0", &x), -ENOENT);
        /* a slot that is only a substring of another word */
        assert_int_equal(xid_parse_kernel_line("r8169 10000:03:00.01 eth0: X, XID 509, IRQ 1", "0000:03:00.0", &x),
                         -ENOENT);
        assert_int_equal(x.xid, 0x123); /* untouched on failure */
        assert_int_equal(x.xid2, 0x456);
}

static void test_garbage(void **state) {
        LogXid x;

        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: jumbo features [frames: 9194 bytes, "
                                               "tx checksumming: ko]", "0000:01:00.0", &x), -ENOENT);
        /* bits 5:4 of an XID are TxConfig 25:24, never part of it */
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: X, XID 54, IRQ 1", "0000:01:00.0", &x), -ENOENT);
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: X, XID 5411, IRQ 1", "0000:01:00.0", &x), -ENOENT);
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: X, XID zzz, IRQ 1", "0000:01:00.0", &x), -ENOENT);
        /* "XID" not where r8169 puts it */
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: XID 541, IRQ 1", "0000:01:00.0", &x), -ENOENT);
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: X, fooXID 541, IRQ 1", "0000:01:00.0", &x), -ENOENT);
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: X, XID 541 IRQ 1", "0000:01:00.0", &x), -ENOENT);
        /* 4.x printed TxConfig itself, masked in ways that changed: not decoded, never guessed */
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: RTL8168g/8111g at 0xffffc90000c7c000, "
                                               "00:e0:4c:68:00:01, XID 0c000800 IRQ 30", "0000:01:00.0", &x), -ENOENT);
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: X, extXID 123456789, IRQ 1", "0000:01:00.0", &x),
                         -ENOENT);
        assert_int_equal(xid_parse_kernel_line("", "0000:01:00.0", &x), -ENOENT);
        assert_int_equal(xid_parse_kernel_line("0000:01:00.0", "0000:01:00.0", &x), -ENOENT);
}

static void test_regs_dump(void **state) {
        uint8_t regs[256] = {};
        uint16_t x = 0;

        /* TxConfig 0x54100000, little-endian at 0x40 */
        regs[0x43] = 0x54;
        regs[0x42] = 0x10;
        assert_int_equal(xid_from_regs_dump(regs, sizeof(regs), &x), 0);
        assert_int_equal(x, 0x541);
        assert_int_equal(xid_from_regs_dump(regs, 0x43, &x), -EBADMSG);
        memset(regs + 0x40, 0xff, 4);
        assert_int_equal(xid_from_regs_dump(regs, sizeof(regs), &x), -EIO);
}

/* A kernel log file is read once for every NIC of a scan; each slot gets its own last XID line. */
static void test_log_file_index(void **state) {
        char path[] = "/tmp/r8t-klog.XXXXXX";
        int fd = mkstemp(path);
        static const char text[] =
                "[    1.000000] r8169 0000:01:00.0 eth0: RTL8168c/8111c, 02:00:00:00:00:01, XID 3c4, IRQ 30\n"
                "[    1.100000] pcieport 0000:00:1c.0: PME: Signaling with IRQ 122\n"
                "[    1.200000] r8169 0000:02:00.0 eth1: RTL8168h/8111h, 02:00:00:00:00:02, XID 541, IRQ 31\n"
                "[    9.000000] r8169 0000:01:00.0 eth0: RTL8168g/8111g, 02:00:00:00:00:01, XID 4c0, IRQ 32\n"
                "[    9.500000] r8169 0000:03:00.0: unknown chip XID 7cf, contact r8169 maintainers\n";
        Sysroot *root = NULL;
        IdentifyContext ic;
        Nic a = { .slot = "0000:01:00.0" }, b = { .slot = "0000:02:00.0" }, c = { .slot = "0000:03:00.0" },
            d = { .slot = "0000:00:1c.0" };

        assert_true(fd >= 0);
        assert_int_equal(sysroot_new("/tmp", &root), 0); /* a root with no PCI devices: mmio finds nothing */
        ic = (IdentifyContext) { .root = root, .kernel_log = path };
        assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t) sizeof(text) - 1);
        close(fd);
        nic_identify(&a, &ic);
        unlink(path); /* read once: the others come from what was read */
        nic_identify(&b, &ic);
        nic_identify(&c, &ic);
        nic_identify(&d, &ic);
        assert_int_equal(a.xid, 0x4c0); /* the re-probe replaces the first line */
        assert_int_equal(a.xid_source, XID_SOURCE_KERNEL_LOG);
        assert_int_equal(b.xid, 0x541);
        assert_int_equal(c.xid, 0x7cf);
        assert_int_equal(d.xid, CHIP_XID_INVALID); /* named, but no XID line of its own */
        assert_non_null(strstr(d.xid_notes, "no XID line for 0000:00:1c.0"));
        identify_context_done(&ic);

        /* A file that is not there: said for each NIC, nothing invented. */
        ic = (IdentifyContext) { .root = root, .kernel_log = path };
        nic_identify(&a, &ic);
        assert_int_equal(a.xid, CHIP_XID_INVALID);
        assert_non_null(strstr(a.xid_notes, "kernel-log: /tmp/r8t-klog."));
        identify_context_done(&ic);
        sysroot_free(root);
}

/* The link's lines (issue 48, §5): phylib's speeds, the last Link is Up, a downshift; the ASPM control lines. */
static void test_link_log(void **state) {
        LinkLog l = {};
        AspmControlLog a = {};
        Nic n = { .slot = "0000:03:00.0", .n_ifnames = 1 };

        (void) state;
        snprintf(n.ifnames[0], sizeof(n.ifnames[0]), "enp3s0");
        assert_int_equal(link_log_parse_speed("100Mbps/Full"), 100);
        assert_int_equal(link_log_parse_speed("2.5Gbps/Full"), 2500);
        assert_int_equal(link_log_parse_speed("10Gbps"), 10000);
        assert_int_equal(link_log_parse_speed("Unknown! speed"), 0);
        assert_int_equal(link_log_parse_speed("99999999999Mbps"), 0);
        link_log_line(&l, "r8169 0000:03:00.0 enp3s0: Link is Up - 1Gbps/Full - flow control rx/tx");
        assert_int_equal(l.up_mbps, 1000);
        assert_false(l.up_downshifted);
        link_log_line(&l, "Generic FE-GE Realtek PHY r8169-0-300:00: Downshift occurred from negotiated speed 1Gbps to actual "
                          "speed 100Mbps, check cabling!");
        link_log_line(&l, "r8169 0000:03:00.0 enp3s0: Link is Up - 100Mbps/Full (downshifted) - flow control off");
        assert_int_equal(l.up_mbps, 100);
        assert_true(l.up_downshifted);
        assert_int_equal(l.negotiated_mbps, 1000);
        assert_int_equal(l.actual_mbps, 100);
        /* A cut line leaves what was known. */
        link_log_line(&l, "Downshift occurred from negotiated speed 1Gbps to act");
        assert_int_equal(l.actual_mbps, 100);

        /* The NIC's own lines: its slot, its MDIO bus (0x300 = bus 3, devfn 0), its watchdog; the journal's devices. */
        assert_true(nic_kernel_line_is_ours(&n, "Generic FE-GE Realtek PHY r8169-0-300:00: Downshift occurred"));
        assert_false(nic_kernel_line_is_ours(&n, "Generic FE-GE Realtek PHY r8169-0-400:00: Downshift occurred"));
        assert_true(nic_kernel_line_is_ours(&n, "NETDEV WATCHDOG: enp3s0 (r8169): transmit queue 0 timed out"));
        assert_true(nic_kernel_device_is_ours(&n, "+pci:0000:03:00.0", 17));
        assert_true(nic_kernel_device_is_ours(&n, "+mdio_bus:r8169-0-300:00", 24));
        assert_false(nic_kernel_device_is_ours(&n, "+mdio_bus:r8169-0-301:00", 24));
        assert_false(nic_kernel_device_is_ours(&n, "", 0));

        /* The first line that says why the OS has no ASPM control is kept; a mention elsewhere is not one. */
        aspm_control_log_line(&a, "audit: pcie_aspm=off in a message that is not the command line");
        assert_null(a.why);
        aspm_control_log_line(&a, "[    0.000000] Kernel command line: root=/dev/sda1 pcie_aspm=off");
        assert_non_null(a.why);
        assert_non_null(strstr(a.why, "pcie_aspm=off"));
        aspm_control_log_line(&a, "ACPI FADT declares the system doesn't support PCIe ASPM, so disable it");
        assert_non_null(strstr(a.line, "Kernel command line"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_link_log),
                cmocka_unit_test(test_probe_lines), cmocka_unit_test(test_not_this_slot),
                cmocka_unit_test(test_garbage),     cmocka_unit_test(test_regs_dump),
                cmocka_unit_test(test_log_file_index),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
