/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "util.h"

/* A row of the kernel's chip table (r8169_main.c rtl_chip_infos, 6.18). */
typedef struct ChipInfo {
        uint16_t mask;
        uint16_t val;
        uint8_t mac_version; /* RTL_GIGA_MAC_VER_xx of 6.18: for display only, never keyed on */
        const char *name;
        const char *firmware;
} ChipInfo;

#define CHIP_XID_INVALID 0xffff

/* XID from the TxConfig register (MMIO 0x40): bits 31:26 and 23:20. */
static inline uint16_t chip_xid_from_txconfig(uint32_t txconfig) {
        return (uint16_t) ((txconfig >> 20) & 0xfcf);
}

/*
 * The chip for an XID, as the kernel decides it: first row whose (xid & mask)
 * == val, then the fast-Ethernet variants of 10ec:8136 (no GMII). NULL when no
 * row matches (the kernel refuses such a chip).
 */
const ChipInfo *chip_lookup(uint16_t xid, uint16_t pci_vendor, uint16_t pci_device);
/* The table row an XID resolves to (first match), before the 8136 variants; NULL if none. O(1). */
const ChipInfo *chip_row(uint16_t xid);
/* Whether mask/value is one of the table's rows. */
bool chip_is_row(uint16_t mask, uint16_t val);
/* The table itself, for listing and tests. */
const ChipInfo *chip_table(size_t *n);

/* Whether vendor:device (and subsystem, for two entries) is in r8169's PCI ID table. */
bool chip_pci_id_known(uint16_t vendor, uint16_t device, uint16_t subsys_vendor, uint16_t subsys_device);

/* "3 hex digits, lower case" as the kernel prints it. */
int chip_parse_xid(const char *s, uint16_t *ret);
