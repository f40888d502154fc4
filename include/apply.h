/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "backend.h"
#include "plan.h"
#include "undo.h"

typedef struct ApplyContext {
        Backend *backend;
        const char *state_dir;
        unsigned writes;       /* writes issued so far */
        unsigned fault_after;  /* test seam: raise fault_signal right after this many writes; 0: never */
        int fault_signal;
} ApplyContext;

typedef struct ApplyStats {
        unsigned changed;     /* now holds the planned value */
        unsigned unchanged;   /* already held it */
        unsigned failed;      /* asked for, does not hold */
        unsigned unsupported; /* asked for, the driver or kernel does not have it */
        unsigned restored;
        unsigned left_alone;  /* someone else changed it since: not restored */
} ApplyStats;

/* Makes the plan real: original recorded before each write, every write read back. */
int apply_nic(ApplyContext *ctx, const Nic *n, const NicPlan *plan, ApplyStats *st);
/*
 * Writes originals back where the value is still the one r8169-tuned set,
 * leaves (and reports) what someone else changed since, and clears those
 * entries. n is NULL when the NIC of that slot is gone: its journal is kept.
 */
int restore_nic(ApplyContext *ctx, const Nic *n, const char *slot, ApplyStats *st);
