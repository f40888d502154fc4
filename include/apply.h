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
        bool *unsupported_said; /* per knob, _KNOB_MAX: say "not supported" once per NIC (daemon) */
        bool *held;             /* per knob, _KNOB_MAX, out: holds the planned value after apply */
        bool daemon;            /* an interface not there yet is normal, not an error */
} ApplyContext;

typedef struct ApplyStats {
        unsigned changed;     /* now holds the planned value */
        unsigned unchanged;   /* already held it */
        unsigned failed;      /* asked for, does not hold */
        unsigned unsupported; /* asked for, the driver or kernel does not have it */
        unsigned restored;
        unsigned left_alone;  /* someone else changed it since: not restored */
        unsigned waiting;     /* daemon: the interface is not there yet (hotplug will bring it) */
} ApplyStats;

/* Makes the plan real: original recorded before each write, every write read back. */
int apply_nic(ApplyContext *ctx, const Nic *n, const NicPlan *plan, ApplyStats *st);
/*
 * Writes originals back where the value is still the one r8169-tuned set,
 * leaves (and reports) what someone else changed since, and clears those
 * entries. n is NULL when the NIC of that slot is gone: its journal is kept.
 */
int restore_nic(ApplyContext *ctx, const Nic *n, const char *slot, ApplyStats *st);
/*
 * Restores the journal entries of knobs a new plan no longer asks for (the
 * profile switched to powersave, an override was removed), keeping the rest.
 */
int restore_unplanned(ApplyContext *ctx, const Nic *n, const NicPlan *plan, ApplyStats *st);
