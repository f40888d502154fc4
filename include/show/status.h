/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* status: each NIC's knobs as read, what r8169-tuned set of them, its guards and link power. */
#include "show/report.h"

/* A value r8169-tuned set, from the NIC's undo journal: what it was before, what was written. */
typedef struct KnobOurs {
        bool ours;
        bool original_mixed;      /* a multi-feature knob (tso) whose features were not all alike */
        bool set_mixed;
        uint64_t original, set;
} KnobOurs;

typedef struct NicStatus {
        Nic *nic;
        KnobReading knobs[_KNOB_MAX];
        KnobOurs ours[_KNOB_MAX];
        bool tx_timeouts_known;
        uint64_t tx_timeouts;     /* the tx watchdog's timeouts, summed over the queues */
        bool tx_guard;            /* L1 stays off for this link until reboot */
        bool link_power_known;    /* the running daemon keeps a link power record for it */
        LinkPowerRecord link_power;
        struct NicPlan *plan;     /* for its suggestions and what a guard withholds; NULL: none made */
        char service_state[16];   /* as the running service holds it (tuned, released, failed, waiting); "": no service */
        LinkExplain link;         /* speed, downshift, why the ASPM knobs are missing */
} NicStatus;

/* status of n NICs: each its identity, link, tx timeouts, link power, service, knobs and what is
 * withheld; then the configuration's problems. */
void report_status_show(Out *o, const NicStatus *s, size_t n, const Diagnostics *problems, const char *profile, bool service);
