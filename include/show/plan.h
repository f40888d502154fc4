/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* plan: what apply would change on each NIC, and why. */
#include "decide/plan.h"
#include "show/report.h"

typedef struct PlanReport {
        Profile configured;       /* what the text calls "configured": the override if any */
        Profile from_config;      /* the configuration's own profile */
        const char *override;     /* --profile, or NULL */
        Profile profile;
        PowerSource power;
        const KernelVersion *kernel; /* what the quirks' kernel conditions were matched against */
        const NicPlan *plans;
        size_t n;
        bool verbose;             /* text: each quirk's grounds under the table (else a line that says how) */
        bool no_quirks;           /* no quirk file was read: nothing is known of any chip */
        size_t quirk_files;       /* quirk files read */
        const Diagnostics *problems; /* the configuration's and quirk files' problems; NULL: none known */
        const QuirkDb *quirks;    /* to say which entries are for a chip with nothing planned; NULL: not said */
        const Machine *machine;
} PlanReport;

/* The profile and what chose it, then per NIC its items, what is held back, suggested and guarded,
 * dynamic link power and entries for another driver; the text ends with what is not in the plan. */
void report_plan_show(Out *o, const PlanReport *r);
/* null, or what link-power = dynamic asked for the NIC and whether it runs there. */
void report_plan_link_power_json(JsonWriter *w, const NicPlan *p);
/* "key": [planned items], as plan and status write them; because: why they are not applied, or NULL. */
void report_plan_items_json(JsonWriter *w, const char *key, const PlanItem *items, size_t n, const char *because, const Nic *nic);
