/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "decide/config.h"
#include "decide/linkpower.h"
#include "decide/quirks.h"
#include "kernel/knob.h"
#include "kernel/machine.h"
#include "kernel/nic.h"

typedef enum ProvenanceKind {
        PROVENANCE_NONE,
        PROVENANCE_QUIRK,
        PROVENANCE_CONFIG,
        PROVENANCE_GUARD, /* the tx-timeout guard: this link timed out */
        PROVENANCE_LINK_POWER, /* dynamic link power: the link's load */
        PROVENANCE_WITH_L1, /* an L1 substate L1 off masks: written off with it, so that restore gives it back */
        _PROVENANCE_KIND_MAX,
} ProvenanceKind;

/* "quirk", "config", "tx-timeout-guard", "link-power", "with-l1" as JSON's source says it; NULL for none. */
const char *provenance_kind_to_string(ProvenanceKind k);

/* Why a knob should have a value: a quirk (with its reason and reference) or a config line. */
typedef struct Provenance {
        ProvenanceKind kind;
        const Quirk *quirk;
        Origin origin;
} Provenance;

typedef enum PlanAction {
        PLAN_CHANGE,   /* current differs: write desired */
        PLAN_KEEP,     /* already as desired */
        PLAN_SKIP,     /* cannot be read here (unsupported, absent, no interface): nothing to do */
        PLAN_EXCLUDED, /* a quirk says the driver refuses it: not planned */
        PLAN_HELD_BACK, /* a fix of another profile (performance, on battery): not planned, said with how to get it */
        PLAN_SUGGEST,   /* a reported entry's value: not planned unless the configuration accepts suggestions */
        PLAN_HELD,      /* an ASPM state or clock PM turned on that the global ASPM policy keeps off: not written */
        _PLAN_ACTION_MAX,
} PlanAction;

const char *plan_action_to_string(PlanAction a);
/* Whether the global ASPM policy (pcie_aspm.policy) keeps knob k from holding v whatever is written. */
bool aspm_policy_holds_off(const char *policy, KnobId k, uint64_t v);

typedef struct PlanItem {
        KnobId knob;
        PlanAction action;
        uint64_t desired;
        KnobReading current;
        Provenance why;
        bool kernel_default;     /* keep, and the kernel does this itself since why.quirk->kernel_default_since */
        bool taken_over;         /* a back-port the kernel took over (plan_taken_over()): shown, never held or enforced */
        bool overrides;          /* a config value replaced a quirk's */
        Provenance overridden;
        uint64_t overridden_value;
} PlanItem;

typedef struct NicPlan {
        const Nic *nic;
        char aspm_policy[16];    /* pcie_aspm.policy when planned ("": not known): what PLAN_HELD items name */
        bool ignored;
        Origin ignored_by;
        PlanItem items[_KNOB_MAX];
        size_t n;
        PlanItem held[_KNOB_MAX];   /* PLAN_HELD_BACK: fixes of the performance profile not applied */
        size_t n_held;
        const Quirk *other_driver[16]; /* entries of the profile written for a driver that is not the one bound */
        size_t n_other_driver;
        bool tx_guard;              /* the link had a tx timeout: L1 stays off */
        uint64_t tx_timeouts;
        PlanItem guarded[_KNOB_MAX]; /* what would have turned an L1 state on, or a guarded entry's value: not planned */
        size_t n_guarded;
        PlanItem suggested[_KNOB_MAX]; /* PLAN_SUGGEST: reported entries' values that would change this NIC */
        size_t n_suggested;
        bool suggestions_apply;        /* the configuration accepts suggestions for this NIC (where it said so) */
        Origin suggestions_origin;
        bool entry_guard;              /* entries with guard = tx-timeout are withheld: this link (or board) timed out */
        bool entry_guard_remembered;   /* ... remembered for this board from an earlier boot */
        /* Dynamic link power: asked for (link-power = dynamic, where), and why it cannot run here. */
        bool link_power_asked;
        Origin link_power_origin;
        uint64_t link_power_busy_pps, link_power_quiet_s; /* quiet 0: auto (adaptive) */
        const char *link_power_blocked;  /* NULL: it runs (in the daemon) */
        const Quirk *link_power_quirk;   /* the entry that keeps this chip static, if that is why */
        int link_power;                  /* the state it planned (LinkPowerState), -1: none */
} NicPlan;

/* Dynamic link power as the daemon runs it: the state its samples decided. */
typedef struct PlanLinkPower {
        LinkPowerState state;
        /* The L1 substates as found before link power first turned L1 off (which masks them). */
        bool found_known[_KNOB_MAX];
        bool found[_KNOB_MAX];
} PlanLinkPower;

typedef struct PlanInput {
        const Nic *nic;
        const KnobReading *current; /* _KNOB_MAX readings */
        const QuirkDb *quirks;
        const Config *config;
        Profile profile;            /* resolved: performance or powersave */
        const Machine *machine;
        bool show_held_back;        /* also list what the performance profile would change */
        bool tx_guard;              /* the NIC's link had a tx timeout (counters, or a guard recorded this boot) */
        uint64_t tx_timeouts;
        const PlanLinkPower *link_power; /* NULL: not sampled here (the CLI), L1 planned statically */
        bool guard_remembered;      /* a tx timeout on this board, slot and chip is remembered from an earlier boot */
} PlanInput;

/*
 * Pure: desired values = quirks of the profile, then config overrides (a
 * config value always wins and says what it beat), compared with the current
 * readings, in the knob table's write order (knob.c says why it is safe).
 */
void plan_nic(const PlanInput *in, NicPlan *ret);
/* Where an item's value comes from, in a few words: "quirk ID", "FILE:LINE" or "r8169-tuned". */
const char *plan_item_source(const PlanItem *it, char *buf, size_t size);
/* Knob k's item in a list of a plan (items, held, suggested: each knob at most once), NULL if none. */
const PlanItem *plan_items_find(const PlanItem *items, size_t n, KnobId k);
/*
 * Pure: the knobs plan_nic can plan for this NIC (in->current is not looked at): what
 * quirks and configuration set or skip, the L1 family where dynamic link power is asked
 * for, and the states the tx-timeout guard turns off where it holds (in->tx_guard). A plan
 * from readings of only these has the same items; what else it shows (held back) needs
 * the rest.
 */
void plan_knobs_needed(const PlanInput *in, bool needed[_KNOB_MAX]);
/* A planned item's provenance as one line: "quirk rtl8168h-clkpm" or "/etc/…conf:12". */
const char *plan_provenance_string(const Provenance *p, char *buf, size_t size);
