/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/util.h"

/*
 * A row of the kernel's chip table (r8169_main.c rtl_chip_infos, as of 7.1), or of its
 * table of extended ids (rtl_chip_infos_extended, 32-bit mask and value).
 */
typedef struct ChipInfo {
        uint32_t mask;
        uint32_t val;
        uint8_t mac_version; /* RTL_GIGA_MAC_VER_xx of 7.1: for display only, never keyed on */
        const char *name;    /* NULL on the extended row */
        const char *firmware;
        bool extended;       /* the row that sends the kernel to TX_CONFIG_V2 (MMIO 0x60b0) */
} ChipInfo;

#define CHIP_XID_INVALID 0xffff
/* TX_CONFIG_V2 not read (or not an extended chip); all ones is also what a failed PCI read gives. */
#define CHIP_XID2_INVALID UINT32_MAX
/* The value of the extended row (mask 7cf): what the XID of a chip named only by "extXID" is taken to be. */
#define CHIP_XID_EXTENDED_ROW 0x7c8
/* The register holding an extended chip's id (7.0): outside the 256 bytes of ethtool -d. */
#define CHIP_TX_CONFIG_V2 0x60b0

/* XID from the TxConfig register (MMIO 0x40): bits 31:26 and 23:20. */
static inline uint16_t chip_xid_from_txconfig(uint32_t txconfig) {
        return (uint16_t) ((txconfig >> 20) & 0xfcf);
}

/*
 * The chip for an XID, as the kernel decides it: first row whose (xid & mask)
 * == val, then the fast-Ethernet variants of 10ec:8136 (no GMII). On the extended
 * row, the chip xid2 (TX_CONFIG_V2) names in the extended table: NULL while xid2 is
 * CHIP_XID2_INVALID (unknown, never guessed). NULL when no row matches (the kernel
 * refuses such a chip).
 */
const ChipInfo *chip_lookup(uint16_t xid, uint32_t xid2, uint16_t pci_vendor, uint16_t pci_device);
/* Whether an XID resolves to the extended row: the chip is then named by TX_CONFIG_V2. */
bool chip_xid_is_extended(uint16_t xid);
/* The row of the extended table an id of TX_CONFIG_V2 resolves to; NULL if none. */
const ChipInfo *chip_ext_row(uint32_t xid2);
bool chip_is_ext_row(uint32_t mask, uint32_t val);
const ChipInfo *chip_ext_table(size_t *n);
/* The table row an XID resolves to (first match), before the 8136 variants; NULL if none. O(1). */
const ChipInfo *chip_row(uint16_t xid);
/* Whether mask/value is one of the table's rows. */
bool chip_is_row(uint16_t mask, uint16_t val);
/* The table itself, for listing and tests. */
const ChipInfo *chip_table(size_t *n);

/* Whether vendor:device (and subsystem, for two entries) is in r8169's PCI ID table. */
bool chip_pci_id_known(uint16_t vendor, uint16_t device, uint16_t subsys_vendor, uint16_t subsys_device);
/* Whether some subsystem ids could make chip_pci_id_known() true: the scan reads them only then. */
bool chip_pci_id_may_be_known(uint16_t vendor, uint16_t device);

/* "3 hex digits, lower case" as the kernel printed it up to 6.18. */
int chip_parse_xid(const char *s, uint16_t *ret);
/* 1 to 8 hex digits: an id of TX_CONFIG_V2 ("extXID %x" in 7.1's probe line). */
int chip_parse_xid2(const char *s, uint32_t *ret);
/* "XID 541" or "extXID 0", as the kernel's probe line says it; "no XID" when unknown. */
const char *chip_id_to_string(uint16_t xid, uint32_t xid2, char *buf, size_t size);
/* The fastest link the chip does, in Mb/s, by its chip version; 0 when not known. */
unsigned chip_max_mbps(const ChipInfo *c);
