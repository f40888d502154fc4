/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/confparse.h"
#include "base/json.h"
#include "decide/linkpower.h"
#include "kernel/backend.h"
#include "kernel/nic.h"

/* The version of every --json output's shape ("schema" at the top); see r8169-tuned(8). */
#define REPORT_JSON_SCHEMA 1

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
} NicStatus;

void report_status_text(FILE *f, const NicStatus *s, size_t n);
/* "  (by r8169-tuned; was 1)" after a value r8169-tuned set; "" for one it did not. */
void report_ours_text(KnobId k, const KnobReading *r, const KnobOurs *o, char *buf, size_t size);
/* Dynamic link power as the daemon keeps it: one line of text, or a JSON object (null: none). */
void report_link_power_text(FILE *f, const LinkPowerRecord *rec);
void report_link_power_json(JsonWriter *w, const LinkPowerRecord *rec);
/* What to do about a chip r8169-tuned cannot identify or does not know (text, wrapped). */
void report_unknown_chip_advice(FILE *f, const Nic *n);
void report_status_json(FILE *f, const NicStatus *s, size_t n, const Diagnostics *problems, const char *profile, bool service);
/* "config_problems": [{file, line, message}], and the same as text (nothing when there are none). */
void report_config_problems_json(JsonWriter *w, const Diagnostics *d);
void report_config_problems_text(FILE *f, const Diagnostics *d);
/* A NIC's identity as JSON members of the object being written, shared by every JSON report. */
void report_nic_json_members(JsonWriter *w, const Nic *n);
/* "none", "L0s", "L1", "L0s L1" for LnkCap/LnkCtl ASPM bits. */
const char *report_aspm_states(uint8_t bits);
/* A knob's value as JSON: true/false for on/off knobs, a number otherwise. */
void report_knob_value_json(JsonWriter *w, KnobId k, uint64_t v);
/* The knob object of schema 1: {"value","status","errno","message","partial","fixed"}. */
void report_knob_reading_json(JsonWriter *w, KnobId k, const KnobReading *r);
/* "knobs": every knob by name, each a knob object. */
void report_knobs_json(JsonWriter *w, const KnobReading knobs[_KNOB_MAX]);
/* A knob's reading in words: its value ("1", "on", "20000"), "partial", or its status ("not-present"). */
const char *report_reading_text(KnobId k, const KnobReading *r, char *buf, size_t size);
/* "ENODEV" for -ENODEV or ENODEV; NULL for 0. */
const char *report_errno_name(int error);
/* "key":{…} for one end of a PCIe link. */
void report_link_json(JsonWriter *w, const char *key, const PciLink *l);
/* "RTL8168h/8111h (XID 541, from kernel-log)" or why there is no chip. */
const char *report_chip_line(const Nic *n, char *buf, size_t size);

#include "decide/plan.h"

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

void report_plan_text(FILE *f, const PlanReport *r);
void report_plan_json(FILE *f, const PlanReport *r);
/* null, or what link-power = dynamic asked for the NIC and whether it runs there. */
void report_plan_link_power_json(JsonWriter *w, const NicPlan *p);
void report_quirk_text(FILE *f, const Quirk *q);
void report_quirk_json(JsonWriter *w, const Quirk *q);
/* A quirk's grounds, wrapped: its reason after first, then its evidence, counter-evidence and references. */
void report_quirk_grounds_text(FILE *f, const Quirk *q, const char *first);

/* One NIC's state for the Prometheus metrics: what is read, and what the plan wants. */
typedef struct NicMetrics {
        const Nic *nic;
        KnobReading current[_KNOB_MAX];
        NicPlan plan;
        bool tx_timeouts_known;
        uint64_t tx_timeouts;
        bool link_power_known; /* the running daemon keeps a link power record for it */
        LinkPowerRecord link_power;
} NicMetrics;

/* The Prometheus text exposition format (for node_exporter's textfile collector). */
void report_metrics(FILE *f, const NicMetrics *m, size_t n, Profile profile, PowerSource power, size_t config_problems);
/* text after first, wrapped to the terminal (80 columns when not one), further lines after indent. */
void report_print_wrapped(FILE *f, const char *first, const char *indent, const char *text);
