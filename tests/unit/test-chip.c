/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kernel/chip.h"

/* One XID per row of the kernel 7.1 table (r8169_main.c of 7.1.5, rtl_chip_infos), chosen so
 * that no earlier row catches it: masked rows get a value only their mask admits. */
static const struct {
        uint16_t xid;
        uint8_t ver;
        const char *name;
} rows[] = {
        { 0x6c9, 80, "RTL8127A" },      { 0x64a, 70, "RTL8126A" },      { 0x649, 70, "RTL8126A" },
        { 0x681, 66, "RTL8125BP" },     { 0x708, 65, "RTL8125CP" },     { 0x68b, 64, "RTL9151A" },
        { 0x68a, 64, "RTL8125K" },      { 0x689, 64, "RTL8125D" },
        { 0x688, 64, "RTL8125D" },      { 0x641, 63, "RTL8125B" },      { 0x609, 61, "RTL8125A" },
        { 0x54b, 52, "RTL8168fp/RTL8117" }, { 0x54a, 52, "RTL8168fp/RTL8117" },
        { 0x502, 51, "RTL8168ep/8111ep" }, { 0x541, 46, "RTL8168h/8111h" }, { 0x6c0, 46, "RTL8168M" },
        { 0x5c8, 44, "RTL8411b" },      { 0x509, 42, "RTL8168gu/8111gu" }, { 0x4c0, 40, "RTL8168g/8111g" },
        { 0x489, 38, "RTL8411" },       { 0x481, 36, "RTL8168f/8111f" }, { 0x480, 35, "RTL8168f/8111f" },
        { 0x2c9, 34, "RTL8168evl/8111evl" }, { 0x2c1, 32, "RTL8168e/8111e" }, { 0x2c2, 33, "RTL8168e/8111e" },
        { 0x281, 25, "RTL8168d/8111d" }, { 0x282, 26, "RTL8168d/8111d" }, { 0x28a, 28, "RTL8168dp/8111dp" },
        { 0x28b, 31, "RTL8168dp/8111dp" }, { 0x3c9, 23, "RTL8168cp/8111cp" }, { 0x3c8, 18, "RTL8168cp/8111cp" },
        { 0x3cc, 24, "RTL8168cp/8111cp" }, { 0x3c0, 19, "RTL8168c/8111c" }, { 0x3c2, 20, "RTL8168c/8111c" },
        { 0x3c3, 21, "RTL8168c/8111c" }, { 0x3c4, 22, "RTL8168c/8111c" }, { 0x381, 17, "RTL8168b/8111b" },
        { 0x449, 39, "RTL8106e" },      { 0x441, 37, "RTL8402" },       { 0x409, 29, "RTL8105e" },
        { 0x40a, 30, "RTL8105e" },      { 0x349, 8, "RTL8102e" },       { 0x249, 8, "RTL8102e" },
        { 0x348, 7, "RTL8102e" },       { 0x248, 7, "RTL8102e" },       { 0x240, 14, "RTL8401" },
        { 0x34a, 9, "RTL8102e/RTL8103e" }, { 0x24a, 9, "RTL8102e/RTL8103e" }, { 0x341, 10, "RTL8101e/RTL8100e" },
        { 0x981, 6, "RTL8169sc/8110sc" }, { 0x181, 5, "RTL8169sc/8110sc" }, { 0x101, 4, "RTL8169sb/8110sb" },
        { 0x041, 3, "RTL8110s" },       { 0x009, 2, "RTL8169s" },
};

static void test_every_row(void **state) {
        size_t n;
        const ChipInfo *table = chip_table(&n);
        bool hit[64] = {};

        assert_int_equal(n, ELEMENTSOF(rows) + 1); /* and the extended row, below */
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                const ChipInfo *c = chip_lookup(rows[i].xid, CHIP_XID2_INVALID, 0x10ec, 0x8168);
                assert_non_null(c);
                assert_int_equal(c->mac_version, rows[i].ver);
                assert_string_equal(c->name, rows[i].name);
                hit[c - table] = true;
        }
        hit[chip_row(0x7c8) - table] = true;
        for (size_t i = 0; i < n; i++)
                assert_true(hit[i]); /* every row reachable by some XID */
}

/* 7.0: XID 7c8 names no chip; the kernel reads TX_CONFIG_V2 and looks that up (RTL9151AS, any id with bits 30:0 clear). */
static void test_extended(void **state) {
        assert_true(chip_xid_is_extended(0x7c8));
        assert_true(chip_xid_is_extended(0xfc8)); /* the row's mask 7cf leaves bit 11 out */
        assert_false(chip_xid_is_extended(0x7c9));
        assert_false(chip_xid_is_extended(0x541));
        assert_null(chip_row(0x7c8)->name);
        /* Without the second register: unknown, never guessed from the row. */
        assert_null(chip_lookup(0x7c8, CHIP_XID2_INVALID, 0x10ec, 0x8125));
        assert_string_equal(chip_lookup(0x7c8, 0, 0x10ec, 0x8125)->name, "RTL9151AS");
        assert_int_equal(chip_lookup(0x7c8, 0, 0x10ec, 0x8125)->mac_version, 64);
        assert_string_equal(chip_lookup(0x7c8, 0x80000000, 0x10ec, 0x8125)->name, "RTL9151AS");
        assert_null(chip_lookup(0x7c8, 1, 0x10ec, 0x8125));
        /* An ordinary chip ignores the second register. */
        assert_string_equal(chip_lookup(0x541, 5, 0x10ec, 0x8168)->name, "RTL8168h/8111h");
}

static void test_id_string(void **state) {
        char b[24];
        assert_string_equal(chip_id_to_string(0x541, CHIP_XID2_INVALID, b, sizeof(b)), "XID 541");
        assert_string_equal(chip_id_to_string(0x008, CHIP_XID2_INVALID, b, sizeof(b)), "XID 008");
        assert_string_equal(chip_id_to_string(0x7c8, 0, b, sizeof(b)), "extXID 0");
        assert_string_equal(chip_id_to_string(CHIP_XID_INVALID, CHIP_XID2_INVALID, b, sizeof(b)), "no XID");
}

static void test_unknown(void **state) {
        assert_null(chip_lookup(0x7c1, CHIP_XID2_INVALID, 0x10ec, 0x8168));
        assert_null(chip_lookup(0x000, CHIP_XID2_INVALID, 0x10ec, 0x8168));
        /* 5.10 knew 8125A as XID 608; 6.18 only as 609. */
        assert_null(chip_lookup(0x608, CHIP_XID2_INVALID, 0x10ec, 0x8125));
}

static void test_8136_variants(void **state) {
        const ChipInfo *c;

        c = chip_lookup(0x509, CHIP_XID2_INVALID, 0x10ec, 0x8136);
        assert_string_equal(c->name, "RTL8106eus");
        assert_int_equal(c->mac_version, 43);
        c = chip_lookup(0x541, CHIP_XID2_INVALID, 0x10ec, 0x8136);
        assert_string_equal(c->name, "RTL8107e");
        assert_int_equal(c->mac_version, 48);
        /* Only those two change; the GbE device id keeps the table's name. */
        assert_string_equal(chip_lookup(0x541, CHIP_XID2_INVALID, 0x10ec, 0x8168)->name, "RTL8168h/8111h");
        assert_string_equal(chip_lookup(0x509, CHIP_XID2_INVALID, 0x10ec, 0x8168)->name, "RTL8168gu/8111gu");
        assert_string_equal(chip_lookup(0x4c0, CHIP_XID2_INVALID, 0x10ec, 0x8136)->name, "RTL8168g/8111g");
}

static void test_txconfig(void **state) {
        assert_int_equal(chip_xid_from_txconfig(0x54100000), 0x541);
        /* Bits 25:24 are other TxConfig settings, not part of the XID. */
        assert_int_equal(chip_xid_from_txconfig(0x57100000 | 0x0000ffff), 0x541);
        assert_int_equal(chip_xid_from_txconfig(0x98000000), 0x980);
}

static void test_parse_xid(void **state) {
        uint16_t x = 0;

        assert_int_equal(chip_parse_xid("541", &x), 0);
        assert_int_equal(x, 0x541);
        assert_int_equal(chip_parse_xid("6C9", &x), 0);
        assert_int_equal(x, 0x6c9);
        assert_int_equal(chip_parse_xid("54", &x), -EINVAL);
        assert_int_equal(chip_parse_xid("5411", &x), -EINVAL);
        assert_int_equal(chip_parse_xid("xyz", &x), -EINVAL);
        assert_int_equal(chip_parse_xid("031", &x), -ERANGE);
}

static void test_parse_xid2(void **state) {
        uint32_t x = 1;

        assert_int_equal(chip_parse_xid2("0", &x), 0);
        assert_int_equal(x, 0);
        assert_int_equal(chip_parse_xid2("7fffffff", &x), 0);
        assert_int_equal(x, 0x7fffffff);
        assert_int_equal(chip_parse_xid2("", &x), -EINVAL);
        assert_int_equal(chip_parse_xid2("123456789", &x), -EINVAL);
        assert_int_equal(chip_parse_xid2("12g", &x), -EINVAL);
        assert_int_equal(chip_parse_xid2("ffffffff", &x), -ERANGE); /* a failed read */
}

static void test_pci_ids(void **state) {
        assert_true(chip_pci_id_known(0x10ec, 0x8168, 0x17aa, 0x3098));
        assert_true(chip_pci_id_known(0x10ec, 0x8136, 0, 0));
        assert_true(chip_pci_id_known(0x10ec, 0x0e10, 0, 0));
        assert_false(chip_pci_id_known(0x8086, 0x15bc, 0x1028, 0x0869));
        assert_false(chip_pci_id_known(0x10ec, 0x8139, 0, 0)); /* 8139too, not r8169 */
        /* Linksys and the bogus-vendor entry match only with their subsystem device. */
        assert_true(chip_pci_id_known(0x1737, 0x1032, 0x1737, 0x0024));
        assert_false(chip_pci_id_known(0x1737, 0x1032, 0x1737, 0x0025));
        assert_true(chip_pci_id_known(0x0001, 0x8168, 0x0001, 0x2410));
        assert_false(chip_pci_id_known(0x0001, 0x8168, 0, 0));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_row),   cmocka_unit_test(test_unknown),
                cmocka_unit_test(test_8136_variants), cmocka_unit_test(test_txconfig),
                cmocka_unit_test(test_parse_xid),   cmocka_unit_test(test_pci_ids),
                cmocka_unit_test(test_extended),    cmocka_unit_test(test_id_string),
                cmocka_unit_test(test_parse_xid2),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
