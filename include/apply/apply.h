/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "decide/plan.h"
#include "kernel/backend.h"
#include "state/undo.h"

/* What the daemon remembers about one knob of one NIC between applies. */
typedef struct KnobState {
        bool unsupported_said; /* "not supported" is a state, said once */
        bool held;             /* the planned value held after the last apply */
        bool desired_set;      /* the last plan asked for desired */
        uint64_t desired;
        bool drift_logged;     /* drift said once at notice level */
        bool yielded;          /* drift = leave: another tool owns it now */
        bool kept_other;       /* the last apply wrote it and the kernel kept another value */
        bool held_said;        /* "held off by the global ASPM policy" said, until it holds or the plan changes */
        unsigned failures;     /* writes that failed or did not hold, since the daemon found the NIC */
        /* Why the last write failed ("setting clkpm 1 -> 0 failed: …", at most KNOB_FAILURE_MAX - 1
         * bytes); NULL: it did not. Owned: knob_states_done() frees it. Out of line, as few knobs
         * ever fail: the text in place made every NIC's 21 knobs 3.1 KiB bigger (issue 50). */
        char *failure;
} KnobState;

#define KNOB_FAILURE_MAX 160

/* The failure's text (printf-like, cut at KNOB_FAILURE_MAX - 1 bytes), replacing the last one. */
void knob_state_set_failure(KnobState *s, const char *format, ...) _printf_(2, 3);
void knob_state_clear_failure(KnobState *s);
/* Frees what the knobs own (their failure texts): a NIC the daemon forgets, or stops with. */
void knob_states_done(KnobState knobs[_KNOB_MAX]);

typedef struct ApplyContext {
        Backend *backend;
        const char *state_dir;
        unsigned writes;       /* writes issued so far */
        unsigned fault_after;  /* test seam: raise fault_signal right after this many writes; 0: never */
        int fault_signal;
        KnobState *knobs;      /* per knob, _KNOB_MAX (daemon); NULL: a one-shot command */
        bool daemon;           /* an interface not there yet is normal, not an error */
        bool l1_guard;         /* restore: the link had a tx timeout, no L1 state goes back on */
        bool give_back;        /* apply: first restore what the plan no longer asks for */
} ApplyContext;

typedef struct ApplyStats {
        unsigned changed;     /* now holds the planned value */
        unsigned unchanged;   /* already held it */
        unsigned failed;      /* asked for, does not hold */
        unsigned held_off;    /* asked for, the global ASPM policy keeps it off: not written */
        unsigned unsupported; /* asked for, the driver or kernel does not have it */
        unsigned refused;     /* of those, refused only at the write: not as planned (plan wanted it) */
        unsigned restored;
        unsigned left_alone;  /* someone else changed it since: not restored */
        unsigned at_original; /* restore: back at its original already (by hand): nothing to write */
        unsigned waiting;     /* daemon: the interface is not there yet (hotplug will bring it) */
} ApplyStats;

/*
 * Makes the plan real: original recorded before each write, every write read
 * back. With give_back, journal entries of knobs the plan no longer asks for
 * (the profile switched to powersave, an override was removed) are restored
 * first, in the same pass over the journal.
 */
int apply_nic(ApplyContext *ctx, const Nic *n, const NicPlan *plan, ApplyStats *st);
/*
 * Writes originals back where the value is still the one r8169-tuned set,
 * leaves (and reports) what someone else changed since, and clears those
 * entries. n is NULL when the NIC of that slot is gone: its journal is kept.
 */
int restore_nic(ApplyContext *ctx, const Nic *n, const char *slot, ApplyStats *st);
