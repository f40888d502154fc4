/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/stats.h"
#include "decide/quirks.h"
#include "kernel/knob.h"
#include "kernel/machine.h"
#include "kernel/nic.h"

/*
 * The experiment's pure core: which candidates to try on a NIC, and what the measurements
 * say. A candidate is one change (one or a few knobs that belong together, as a quirk entry
 * or the NAPI pair) measured against the NIC as found.
 */

/* "helps" needs the interval to exclude 0 and the median change to be at least this large. */
#define EXPERIMENT_PRACTICAL 0.05
/* A baseline this close to the link speed has no room to get faster: TCP over Ethernet tops out near 94 %. */
#define EXPERIMENT_LINE_RATE 0.90
/* What one --knob may name; a candidate holds every knob once at most (the L1 substates it adds, a quirk's). */
#define EXPERIMENT_SETTINGS_MAX 8
/* Mann-Whitney's smallest two-sided p with 4 and 4 values is 2/70: below that no 95 % interval exists. */
#define EXPERIMENT_ROUNDS_MIN 4
#define EXPERIMENT_ROUNDS_MAX 50

typedef struct Setting {
        KnobId knob;
        uint64_t value;
} Setting;

typedef enum CandidateOrigin {
        CANDIDATE_QUIRK,   /* an entry of the database for this chip, whatever the kernel and profile */
        CANDIDATE_GENERIC, /* the documented list every chip gets */
        CANDIDATE_ASKED,   /* --knob */
        _CANDIDATE_ORIGIN_MAX,
} CandidateOrigin;

const char *candidate_origin_to_string(CandidateOrigin o);

typedef struct Candidate {
        Setting settings[_KNOB_MAX];        /* distinct knobs */
        size_t n;
        CandidateOrigin origin;
        const Quirk *quirk;                 /* CANDIDATE_QUIRK */
        bool link_power;                    /* changes a link power state: idle power is measured */
        const char *skipped;                /* why it is not measured here; NULL: it is */
        const Quirk *blocked_by;            /* a generic candidate against this correctness fix, or a skip = of it */
} Candidate;

typedef struct CandidateList {
        Candidate *v;
        size_t n;
} CandidateList;

void candidate_list_done(CandidateList *l);
/* Why a candidate is not measured, in words ("already so", "against quirk rtl8168c-ver22-tso"). */
const char *candidate_skip_reason(const Candidate *c, char *buf, size_t size);
/* "K=V" or "K=V,K=V" as --knob takes it; -EINVAL with the complaint in err. */
int candidate_parse(const char *word, Candidate *ret, char *err, size_t size);
/* Its knobs and values, "l1_2_aspm=0,clkpm=0", in the knobs' own words. */
const char *candidate_settings_string(const Candidate *c, char *buf, size_t size);
/*
 * The default candidates for a NIC, from what it reads now: every quirk entry for its chip
 * (also those of another profile or outside this kernel's range), then the generic list
 * (clkpm, the L1 family, eee, tso/sg, the NAPI pair against 0/0, rx-usecs). Knobs already
 * at the candidate's value are left out of it; one that is left with nothing, or whose knob
 * cannot be read here, says why in skipped; a generic candidate that a quirk's already
 * covers is dropped, and one that would turn on what a correctness fix in force here turns off
 * (a quirk of the powersave profile too) or touches a knob a quirk says the driver refuses is
 * skipped.
 */
int experiment_candidates(const QuirkDb *db, const Nic *n, const Machine *m, const KnobReading current[_KNOB_MAX],
                          CandidateList *ret);
/*
 * The same check for asked-for candidates: skipped where a knob cannot be read or all hold
 * already. L1 off masks its substates (aspm.c) and turning L1 on does not bring them back:
 * a candidate that turns L1 off also turns off each substate that is on, so that each is
 * recorded and put back.
 */
void candidate_check(Candidate *c, const KnobReading current[_KNOB_MAX]);

typedef enum Verdict {
        VERDICT_HELPS,
        VERDICT_HURTS,
        VERDICT_NO_EFFECT,   /* the interval includes 0, or the change is smaller than the practical size */
        VERDICT_CANNOT_TELL, /* at line rate already (it cannot get faster), or too few rounds */
        _VERDICT_MAX,
} Verdict;

/* "helps", "hurts", "no-effect", "cannot-tell" */
const char *verdict_to_string(Verdict v);

typedef struct Comparison {
        double baseline, candidate;   /* medians */
        Estimate change;              /* candidate - baseline: Hodges-Lehmann with its 95 % interval */
        double relative;              /* change.estimate / baseline; 0 when the baseline is 0 */
        Verdict verdict;
        const char *why;              /* for cannot-tell, and no-effect below the practical size */
} Comparison;

/*
 * Pure: baseline and candidate samples of one direction (n each), the link speed in Mb/s (0:
 * not known). A change counts when its 95 % interval excludes 0 and it is at least
 * EXPERIMENT_PRACTICAL of the baseline.
 */
void experiment_compare(const double *baseline, const double *candidate, size_t n, double line_mbps, Comparison *ret);
