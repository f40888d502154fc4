/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_probe_lines), cmocka_unit_test(test_not_this_slot),
                cmocka_unit_test(test_garbage),     cmocka_unit_test(test_regs_dump),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
