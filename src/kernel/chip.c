/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>

#include "kernel/chip.h"

/*
 * rtl_chip_infos[] of drivers/net/ethernet/realtek/r8169_main.c as of 7.1 (read from 7.1.5); order is
 * the kernel's, first match wins. 6.18 had the same rows but 708, 68b and the extended row.
 */
static const ChipInfo chips[] = {
        { 0x7cf, 0x6c9, 80, "RTL8127A", "rtl8127a-1.fw", false },
        { 0x7cf, 0x64a, 70, "RTL8126A", "rtl8126a-3.fw", false },
        { 0x7cf, 0x649, 70, "RTL8126A", "rtl8126a-2.fw", false },
        { 0x7cf, 0x681, 66, "RTL8125BP", "rtl8125bp-2.fw", false },
        { 0x7cf, 0x708, 65, "RTL8125CP", "rtl8125cp-1.fw", false },   /* 7.1 */
        { 0x7cf, 0x68b, 64, "RTL9151A", "rtl9151a-1.fw", false },     /* 7.1 */
        { 0x7cf, 0x68a, 64, "RTL8125K", "rtl8125k-1.fw", false },
        { 0x7cf, 0x689, 64, "RTL8125D", "rtl8125d-2.fw", false },
        { 0x7cf, 0x688, 64, "RTL8125D", "rtl8125d-1.fw", false },
        { 0x7cf, 0x641, 63, "RTL8125B", "rtl8125b-2.fw", false },
        { 0x7cf, 0x609, 61, "RTL8125A", "rtl8125a-3.fw", false },
        { 0x7cf, 0x54b, 52, "RTL8168fp/RTL8117", NULL, false },
        { 0x7cf, 0x54a, 52, "RTL8168fp/RTL8117", "rtl8168fp-3.fw", false },
        { 0x7cf, 0x502, 51, "RTL8168ep/8111ep", NULL, false },
        { 0x7cf, 0x541, 46, "RTL8168h/8111h", "rtl8168h-2.fw", false },
        { 0x7cf, 0x6c0, 46, "RTL8168M", "rtl8168h-2.fw", false },
        { 0x7cf, 0x5c8, 44, "RTL8411b", "rtl8411-2.fw", false },
        { 0x7cf, 0x509, 42, "RTL8168gu/8111gu", "rtl8168g-3.fw", false },
        { 0x7cf, 0x4c0, 40, "RTL8168g/8111g", "rtl8168g-2.fw", false },
        { 0x7c8, 0x488, 38, "RTL8411", "rtl8411-1.fw", false },
        { 0x7cf, 0x481, 36, "RTL8168f/8111f", "rtl8168f-2.fw", false },
        { 0x7cf, 0x480, 35, "RTL8168f/8111f", "rtl8168f-1.fw", false },
        { 0x7c8, 0x2c8, 34, "RTL8168evl/8111evl", "rtl8168e-3.fw", false },
        { 0x7cf, 0x2c1, 32, "RTL8168e/8111e", "rtl8168e-1.fw", false },
        { 0x7c8, 0x2c0, 33, "RTL8168e/8111e", "rtl8168e-2.fw", false },
        { 0x7cf, 0x281, 25, "RTL8168d/8111d", "rtl8168d-1.fw", false },
        { 0x7c8, 0x280, 26, "RTL8168d/8111d", "rtl8168d-2.fw", false },
        { 0x7cf, 0x28a, 28, "RTL8168dp/8111dp", NULL, false },
        { 0x7cf, 0x28b, 31, "RTL8168dp/8111dp", NULL, false },
        { 0x7cf, 0x3c9, 23, "RTL8168cp/8111cp", NULL, false },
        { 0x7cf, 0x3c8, 18, "RTL8168cp/8111cp", NULL, false },
        { 0x7c8, 0x3c8, 24, "RTL8168cp/8111cp", NULL, false },
        { 0x7cf, 0x3c0, 19, "RTL8168c/8111c", NULL, false },
        { 0x7cf, 0x3c2, 20, "RTL8168c/8111c", NULL, false },
        { 0x7cf, 0x3c3, 21, "RTL8168c/8111c", NULL, false },
        { 0x7c8, 0x3c0, 22, "RTL8168c/8111c", NULL, false },
        { 0x7c8, 0x380, 17, "RTL8168b/8111b", NULL, false },
        { 0x7c8, 0x448, 39, "RTL8106e", "rtl8106e-1.fw", false },
        { 0x7c8, 0x440, 37, "RTL8402", "rtl8402-1.fw", false },
        { 0x7cf, 0x409, 29, "RTL8105e", "rtl8105e-1.fw", false },
        { 0x7c8, 0x408, 30, "RTL8105e", "rtl8105e-1.fw", false },
        { 0x7cf, 0x349, 8, "RTL8102e", NULL, false },
        { 0x7cf, 0x249, 8, "RTL8102e", NULL, false },
        { 0x7cf, 0x348, 7, "RTL8102e", NULL, false },
        { 0x7cf, 0x248, 7, "RTL8102e", NULL, false },
        { 0x7cf, 0x240, 14, "RTL8401", NULL, false },
        { 0x7c8, 0x348, 9, "RTL8102e/RTL8103e", NULL, false },
        { 0x7c8, 0x248, 9, "RTL8102e/RTL8103e", NULL, false },
        { 0x7c8, 0x340, 10, "RTL8101e/RTL8100e", NULL, false },
        { 0xfc8, 0x980, 6, "RTL8169sc/8110sc", NULL, false },
        { 0xfc8, 0x180, 5, "RTL8169sc/8110sc", NULL, false },
        { 0xfc8, 0x100, 4, "RTL8169sb/8110sb", NULL, false },
        { 0xfc8, 0x040, 3, "RTL8110s", NULL, false },
        { 0xfc8, 0x008, 2, "RTL8169s", NULL, false },
        /* 7.1: the chip's real id is the 32-bit TX_CONFIG_V2 register (MMIO 0x60b0), looked up below. */
        { 0x7cf, 0x7c8, 0, NULL, NULL, true },
};

/* rtl_chip_infos_extended[] of 7.1, for the XIDs of the extended row; first match wins. */
static const ChipInfo ext_chips[] = {
        { 0x7fffffff, 0x00000000, 64, "RTL9151AS", "rtl9151a-1.fw", false },
};

/* Post-lookup: without GMII (PCI 10ec:8136) VER_42 is an RTL8106eus and VER_46 an RTL8107e. */
static const struct {
        uint8_t from;
        ChipInfo to;
} no_gbit_variants[] = {
        { 42, { 0, 0, 43, "RTL8106eus", "rtl8106e-2.fw", false } },
        { 46, { 0, 0, 48, "RTL8107e", "rtl8107e-2.fw", false } },
};

const ChipInfo *chip_table(size_t *n) {
        *n = ELEMENTSOF(chips);
        return chips;
}

const ChipInfo *chip_ext_table(size_t *n) {
        *n = ELEMENTSOF(ext_chips);
        return ext_chips;
}

/* The first row of a table that matches id (mask: the row's bits; exact: the row is mask/val itself). */
static const ChipInfo *table_find(const ChipInfo *t, size_t n, uint32_t id, bool exact, uint32_t mask) {
        for (size_t i = 0; i < n; i++)
                if (exact ? t[i].mask == mask && t[i].val == id : (id & t[i].mask) == t[i].val)
                        return &t[i];
        return NULL;
}

const ChipInfo *chip_ext_row(uint32_t xid2) { return table_find(ext_chips, ELEMENTSOF(ext_chips), xid2, false, 0); }

bool chip_xid_is_extended(uint16_t xid) {
        const ChipInfo *c = chip_row(xid);
        return c && c->extended;
}

/* Every 12-bit XID resolved once: quirk matching and its lint test thousands of XIDs. */
const ChipInfo *chip_row(uint16_t xid) {
        static int8_t row[0x1000];
        static bool init;

        if (!init) {
                for (unsigned x = 0; x < ELEMENTSOF(row); x++) {
                        const ChipInfo *c = table_find(chips, ELEMENTSOF(chips), x, false, 0);
                        row[x] = c ? (int8_t) (c - chips) : -1;
                }
                init = true;
        }
        xid &= 0xfff;
        return row[xid] < 0 ? NULL : &chips[row[xid]];
}

bool chip_is_row(uint16_t mask, uint16_t val) { return table_find(chips, ELEMENTSOF(chips), val, true, mask); }
bool chip_is_ext_row(uint32_t mask, uint32_t val) { return table_find(ext_chips, ELEMENTSOF(ext_chips), val, true, mask); }

const ChipInfo *chip_lookup(uint16_t xid, uint32_t xid2, uint16_t pci_vendor, uint16_t pci_device) {
        const ChipInfo *c = chip_row(xid);

        if (!c)
                return NULL;
        if (c->extended)
                /* Without the second register the chip is unknown: never guessed from the row. */
                return xid2 == CHIP_XID2_INVALID ? NULL : chip_ext_row(xid2);
        if (pci_vendor == 0x10ec && pci_device == 0x8136)
                for (size_t i = 0; i < ELEMENTSOF(no_gbit_variants); i++)
                        if (no_gbit_variants[i].from == c->mac_version)
                                return &no_gbit_variants[i].to;
        return c;
}

/* rtl8169_pci_tbl[] of r8169_main.c (unchanged from 6.18 to 7.1). 0 as subsystem means any. */
static const struct {
        uint16_t vendor, device, subsys_vendor, subsys_device;
} pci_ids[] = {
        { 0x10ec, 0x2502, 0, 0 }, { 0x10ec, 0x2600, 0, 0 }, { 0x10ec, 0x8129, 0, 0 }, { 0x10ec, 0x8136, 0, 0 },
        { 0x10ec, 0x8161, 0, 0 }, { 0x10ec, 0x8162, 0, 0 }, { 0x10ec, 0x8167, 0, 0 }, { 0x10ec, 0x8168, 0, 0 },
        { 0x10ec, 0x8169, 0, 0 }, { 0x10ec, 0x8125, 0, 0 }, { 0x10ec, 0x3000, 0, 0 }, { 0x10ec, 0x8126, 0, 0 },
        { 0x10ec, 0x5000, 0, 0 }, { 0x10ec, 0x8127, 0, 0 }, { 0x10ec, 0x0e10, 0, 0 }, { 0x10ff, 0x8168, 0, 0 },
        { 0x1186, 0x4300, 0, 0 }, { 0x1186, 0x4302, 0, 0 }, { 0x1259, 0xc107, 0, 0 }, { 0x16ec, 0x0116, 0, 0 },
        { 0x1737, 0x1032, 0, 0x0024 },
        { 0x0001, 0x8168, 0, 0x2410 },
};

bool chip_pci_id_may_be_known(uint16_t vendor, uint16_t device) {
        for (size_t i = 0; i < ELEMENTSOF(pci_ids); i++)
                if (pci_ids[i].vendor == vendor && pci_ids[i].device == device)
                        return true;
        return false;
}

bool chip_pci_id_known(uint16_t vendor, uint16_t device, uint16_t subsys_vendor, uint16_t subsys_device) {
        for (size_t i = 0; i < ELEMENTSOF(pci_ids); i++) {
                if (pci_ids[i].vendor != vendor || pci_ids[i].device != device)
                        continue;
                if (pci_ids[i].subsys_device && pci_ids[i].subsys_device != subsys_device)
                        continue;
                return true;
        }
        return false;
}

/* min to max hex digits and nothing else (no "0x", no sign, no space). */
static int parse_hex(const char *s, size_t min, size_t max, uint32_t *ret) {
        size_t n = s ? strlen(s) : 0;
        uint32_t v = 0;

        if (n < min || n > max)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                int c = (unsigned char) s[i];
                if (!isxdigit(c))
                        return -EINVAL;
                v = v << 4 | (uint32_t) (isdigit(c) ? c - '0' : (tolower(c) - 'a' + 10));
        }
        *ret = v;
        return 0;
}

int chip_parse_xid(const char *s, uint16_t *ret) {
        uint32_t v;

        if (parse_hex(s, 3, 3, &v) < 0)
                return -EINVAL;
        if (v & ~0xfcfu)
                return -ERANGE; /* bits 25:24 of TxConfig are never part of an XID */
        *ret = (uint16_t) v;
        return 0;
}

int chip_parse_xid2(const char *s, uint32_t *ret) {
        uint32_t v;

        if (parse_hex(s, 1, 8, &v) < 0)
                return -EINVAL;
        if (v == CHIP_XID2_INVALID)
                return -ERANGE; /* what a failed PCI read returns, never an id */
        *ret = v;
        return 0;
}

const char *chip_id_to_string(uint16_t xid, uint32_t xid2, char *buf, size_t size) {
        if (xid == CHIP_XID_INVALID)
                snprintf(buf, size, "no XID");
        else if (xid2 != CHIP_XID2_INVALID)
                snprintf(buf, size, "extXID %x", xid2);
        else
                snprintf(buf, size, "XID %03x", xid);
        return buf;
}

unsigned chip_max_mbps(const ChipInfo *c) {
        switch (c ? c->mac_version : 0) {
        case 0:
                return 0;
        /* Fast Ethernet: RTL8101e/8102e/8103e, RTL8401, RTL8105e, RTL8402, RTL8106e, RTL8106eus, RTL8107e */
        case 7: case 8: case 9: case 10: case 14: case 29: case 30: case 37: case 39: case 43: case 48:
                return 100;
        case 61: case 63: case 64: case 65: case 66: /* RTL8125 family, RTL9151 */
                return 2500;
        case 70: /* RTL8126A */
                return 5000;
        case 80: /* RTL8127A */
                return 10000;
        default:
                return 1000;
        }
}
