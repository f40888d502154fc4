/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <net/if.h>

#include "base/util.h"
#include "kernel/chip.h"
#include "kernel/sysroot.h"

#define NIC_MAX_IFNAMES 4
#define PCI_SLOT_LEN 13 /* "0000:01:00.0" + NUL */

typedef enum XidSource {
        XID_SOURCE_NONE,
        XID_SOURCE_REGS,       /* ETHTOOL_GREGS, TxConfig at 0x40 */
        XID_SOURCE_KERNEL_LOG, /* r8169's probe line "…, XID 541, IRQ …" */
        XID_SOURCE_MMIO,       /* the first memory BAR, TxConfig at 0x40 */
        XID_SOURCE_CONFIG,     /* assumed: a [device] section's assume-xid names the slot */
        _XID_SOURCE_MAX,
} XidSource;

const char *xid_source_to_string(XidSource s);

/* The PCIe link as config space describes it (for status and diagnose, never written). */
typedef struct PciLink {
        bool truncated;        /* config space past 64 bytes unreadable (no CAP_SYS_ADMIN): nothing below is known */
        bool pcie;
        uint8_t aspm_support;  /* LnkCap bits 11:10: 1 = L0s, 2 = L1 */
        bool clkpm_capable;    /* LnkCap bit 18 */
        uint8_t aspm_control;  /* LnkCtl bits 1:0 */
        bool clkpm_enabled;    /* LnkCtl CLKREQ_EN */
        bool l1ss;             /* L1 PM Substates capability present */
        uint32_t l1ss_cap;
        uint32_t l1ss_ctl1;
} PciLink;

/*
 * A PCI function that a [device] section manages as a given chip, named by its slot: one that
 * r8169's ID table does not list (a Realtek id newer than the table, a test machine's e1000e),
 * or one whose XID no source can read. Nothing outside the table is touched without one.
 */
typedef struct SlotClaim {
        char slot[PCI_SLOT_LEN];
        uint16_t xid;
        char origin[96]; /* "FILE:LINE" of the assume-xid line */
} SlotClaim;

typedef struct SlotClaims {
        const SlotClaim *v;
        size_t n;
} SlotClaims;

/* A Realtek PCI function r8169 would drive (whatever is bound to it), or a claimed slot. */
typedef struct Nic {
        char slot[PCI_SLOT_LEN];
        char upstream[PCI_SLOT_LEN]; /* the port above it, "" if none */
        uint16_t vendor, device, subsys_vendor, subsys_device;
        uint8_t revision;
        char driver[64];             /* "" when no driver is bound */
        char ifnames[NIC_MAX_IFNAMES][IFNAMSIZ];
        size_t n_ifnames;
        char perm_mac[18];           /* "" when unknown */
        char runtime_status[16];     /* power/runtime_status: "active", "suspended", ...; "" when unknown */
        PciLink link;
        PciLink upstream_link;       /* the other end of the link (the port above) */

        uint16_t xid;                /* CHIP_XID_INVALID until identified */
        uint32_t xid2;               /* TX_CONFIG_V2 of an extended chip; CHIP_XID2_INVALID otherwise */
        XidSource xid_source;        /* of the XID, or of xid2 where the chip is an extended one */
        const ChipInfo *chip;        /* NULL: unknown XID, or not identified */
        char xid_notes[512];         /* why earlier sources did not answer */
        SlotClaim claim;             /* slot "" unless a [device] section claims this slot */
} Nic;

typedef struct NicList {
        Nic *nics;
        size_t n;
} NicList;

void nic_list_done(NicList *l);
static inline const char *nic_ifname(const Nic *n) { return n->n_ifnames > 0 ? n->ifnames[0] : NULL; }
/* The NIC that owns an interface name, NULL if none. */
Nic *nic_list_find_ifname(NicList *l, const char *ifname);

/* Scans the PCI bus under the sysfs root with libpci: the functions in r8169's ID table and the
 * claimed slots. Never exits the process. */
int nic_discover(const Sysroot *root, const SlotClaims *claims, NicList *ret);
/*
 * Whether a driver tunes this function: r8169 or one of Realtek's own (r8168, r8125, r8126,
 * r8101), or any driver of a slot a [device] section claims. Not with none bound (unbound), nor
 * with vfio-pci or another driver that hands the function to someone else.
 */
bool nic_driver_tunable(const Nic *n);

/*
 * What one kernel message identifies a chip by. For a probe line's "extXID n" (7.0, a chip of
 * the extended row) xid is that row's value, 7c8, and xid2 is n; for "unknown chip extXID n"
 * xid is CHIP_XID_INVALID (the line does not say it). Otherwise xid2 is CHIP_XID2_INVALID.
 */
typedef struct LogXid {
        uint16_t xid;
        uint32_t xid2;
} LogXid;

/* What the kernel log file says of each slot, read once for all NICs of a scan. */
typedef struct KernelLogXid {
        char slot[PCI_SLOT_LEN];
        LogXid id;
} KernelLogXid;

typedef struct IdentifyContext {
        const Sysroot *root;
        const char *kernel_log; /* file with kernel messages; NULL: this boot's journal (live root only) */
        /* Filled at the first NIC that needs it; identify_context_done() frees it. */
        bool log_read;
        int log_error;
        KernelLogXid *log_xids;
        size_t n_log_xids;
} IdentifyContext;

void identify_context_done(IdentifyContext *ctx);

typedef struct sd_device sd_device;
/*
 * Whether a network interface nobody knows may belong to a Realtek NIC: its parent is a PCI
 * function in r8169's ID table or a claimed slot. veths, bridges, Wi-Fi and other vendors' NICs
 * are not.
 */
bool nic_net_device_may_be_ours(sd_device *d, const SlotClaims *claims);

/* The tx watchdog's timeouts of the NIC's interface, summed over its queues (queues/tx-N/tx_timeout). */
int nic_read_tx_timeouts(const Sysroot *root, const Nic *n, uint64_t *ret);

/* Finds the XID from the first source that answers and looks the chip up. */
void nic_identify(Nic *nic, IdentifyContext *ctx);

/* Pure: the XID from a register dump (TxConfig, little-endian, at 0x40). */
int xid_from_regs_dump(const uint8_t *buf, size_t len, uint16_t *ret);
/*
 * Pure parser of a kernel message line for this slot: r8169's probe line or its "unknown chip"
 * error, in every format from 5.4 to 7.x: "XID 541" (%03x, 5.4 to 6.18), "XID 8" and "extXID 0"
 * (%x with an "ext" prefix, 7.0 on). -ENOENT for any other line.
 */
int xid_parse_kernel_line(const char *line, const char *slot, LogXid *ret);
/* Text of an identified NIC's XID as its probe line has it: "XID 541", "extXID 0". */
const char *nic_xid_string(const Nic *n, char *buf, size_t size);
