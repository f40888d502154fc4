/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <unistd.h>

#include "nic.h"

static void test_probe_lines(void **state) {
        uint16_t x = 0;

        /* seeds/003, with the dmesg timestamp */
        assert_int_equal(xid_parse_kernel_line("[    8.458515] r8169 0000:03:00.0 eth0: RTL8168gu/8111gu, "
                                               "8c:16:45:5d:f2:c2, XID 509, IRQ 136", "0000:03:00.0", &x), 0);
        assert_int_equal(x, 0x509);
        /* seeds/001 */
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: RTL8168h/8111h, f4:93:9f:f0:a5:f5, "
                                               "XID 541, IRQ 123", "0000:01:00.0", &x), 0);
        assert_int_equal(x, 0x541);
        /* the probe failure line names the XID too */
        assert_int_equal(xid_parse_kernel_line("r8169 0000:04:00.0: unknown chip XID 7c1, contact r8169 "
                                               "maintainers (see MAINTAINERS file)", "0000:04:00.0", &x), 0);
        assert_int_equal(x, 0x7c1);
}

static void test_not_this_slot(void **state) {
        uint16_t x = 0x123;

        assert_int_equal(xid_parse_kernel_line("r8169 0000:03:00.0 eth0: RTL8168gu/8111gu, 8c:16:45:5d:f2:c2, "
                                               "XID 509, IRQ 136", "0000:01:00.0", &x), -ENOENT);
        /* a slot that is only a substring of another word */
        assert_int_equal(xid_parse_kernel_line("r8169 10000:03:00.01 eth0: X, XID 509, IRQ 1", "0000:03:00.0", &x),
                         -ENOENT);
        assert_int_equal(x, 0x123); /* untouched on failure */
}

static void test_garbage(void **state) {
        uint16_t x = 0;

        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: jumbo features [frames: 9194 bytes, "
                                               "tx checksumming: ko]", "0000:01:00.0", &x), -ENOENT);
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: XID 54, IRQ 1", "0000:01:00.0", &x), -ENOENT);
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: XID 5411, IRQ 1", "0000:01:00.0", &x), -ENOENT);
        assert_int_equal(xid_parse_kernel_line("r8169 0000:01:00.0 eth0: XID zzz, IRQ 1", "0000:01:00.0", &x), -ENOENT);
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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_probe_lines), cmocka_unit_test(test_not_this_slot),
                cmocka_unit_test(test_garbage),     cmocka_unit_test(test_regs_dump),
                cmocka_unit_test(test_log_file_index),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
