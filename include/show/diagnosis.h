/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * diagnose's report: what was read of the machine and of each NIC (gathered by
 * commands/cmd-diagnose.c), and what could not be, rendered as Markdown or as JSON.
 */
#include <linux/ethtool.h>

#include "decide/context.h"
#include "decide/kernel-defaults.h"
#include "kernel/ethtool-ioctl.h"
#include "kernel/ethtool-nl.h"
#include "show/report.h"
#include "state/link-power-record.h"

#define JOURNAL_LINES 20
#define KERNEL_LINES 64
/* What a kernel log file may be: dmesg or journalctl -k of one boot is far smaller. */

/* What diagnose could not read, and why: said in the report, not only on stderr. */
typedef struct Unread {
        char what[160];
        int error;
        char message[200];
} Unread;

/* Everything that was not read, in the order it was tried. */
typedef struct Unreads {
        Unread v[64];
        size_t n;
} Unreads;

typedef struct JournalLine {
        uint64_t usec;
        char *message;
} JournalLine;

typedef struct NicFacts {
        Nic *nic;
        Unreads *unread;                /* the report's: what could not be read about this NIC goes there */
        KnobReading current[_KNOB_MAX];
        NicPlan plan;
        struct ethtool_drvinfo drv;
        int drv_error;
        EthtoolStats stats;
        int stats_error;
        JournalLine journal[JOURNAL_LINES];
        size_t n_journal;
        char *kernel[KERNEL_LINES];     /* the kernel's own lines about this NIC, oldest first */
        size_t n_kernel, kernel_dropped;
        const char *phy;                /* the PHY driver attach line, in kernel[] */
        char port_id[16];               /* the upstream port's vendor:device, "" if unknown */
        EthtoolFeatures features;       /* every feature the kernel has for the interface */
        bool features_known;
        EthtoolAttrs linkmodes, linkstate; /* speed, duplex, autoneg; link detected */
        bool linkmodes_known, linkstate_known;
        bool link_power_known;          /* the running daemon's dynamic link power record */
        LinkPowerRecord link_power;
        bool tx_timeouts_known;         /* the tx watchdog's timeouts, summed over the queues */
        uint64_t tx_timeouts;
        bool tx_guard;                  /* L1 stays off for this link until reboot */
        LinkExplain link;               /* speed, downshift, why the ASPM knobs are missing */
} NicFacts;

/* What the machine around the NICs says: firmware, kernel command line, loaded modules. */
typedef struct MachineFacts {
        char bios_version[128];
        char cmdline[2048];
        bool cmdline_known;
        const char *modules[8];
        size_t n_modules;
} MachineFacts;

/* The report: the machine, each selected NIC, what the configuration says of itself, what was not read. */
typedef struct Diagnose {
        Context *c;
        MachineFacts machine;
        char kernel[600];
        char policy[128];
        NicFacts *facts;
        size_t n;
        Diagnostics problems; /* the configuration's and quirk files', as check-config finds them */
        Unreads unread;
        KernelDefaults kd;    /* what r8169 does by itself, per chip and release (empty: not installed) */
} Diagnose;

/* The report as Markdown (to paste into an issue) or as JSON. */
void diagnosis_show(FILE *f, const Diagnose *d, bool json);
