/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * One experiment's state, shared by its parts: commands/cmd-experiment.c (the command: arguments,
 * the NIC taken from the service, signals), measure.c (rounds of iperf3 against the NIC as found
 * and each candidate, through the undo journal), power.c (idle package power from the RAPL
 * counters) and results.c (the table, JSON, the drop-in and the Markdown report), each calling
 * only those after it; run.c holds what they share. experiment.c is the pure core they use.
 */
#include <signal.h>

#include "apply/apply.h"
#include "decide/context.h"
#include "experiment/experiment.h"
#include "experiment/iperf.h"

#define RAPL_ZONES_MAX 8

typedef enum Direction {
        DIRECTION_SEND,    /* iperf3 -c: this NIC transmits */
        DIRECTION_RECEIVE, /* iperf3 -c -R: this NIC receives */
        _DIRECTION_MAX,
} Direction;

extern const char *const experiment_direction_names[_DIRECTION_MAX];

enum { ARM_BASELINE, ARM_CANDIDATE, _ARM_MAX };

typedef struct Samples {
        double mbps[EXPERIMENT_ROUNDS_MAX];
        double retransmits[EXPERIMENT_ROUNDS_MAX]; /* -1: not reported */
        double cpu[EXPERIMENT_ROUNDS_MAX];         /* -1: not reported */
} Samples;

typedef struct Trial {
        Candidate cand;
        Samples s[_ARM_MAX][_DIRECTION_MAX];
        double watts[_ARM_MAX][EXPERIMENT_ROUNDS_MAX];
        size_t rounds;                  /* complete rounds */
        bool power;                     /* idle power measured with it */
        Comparison cmp[_DIRECTION_MAX];
        Comparison power_cmp;
        bool helped;                    /* what --write-config keeps (experiment_compare_trials) */
        char failed[256];               /* why it stopped early; "" if it did not */
} Trial;

typedef struct Rapl {
        char dirs[RAPL_ZONES_MAX][64];
        uint64_t range[RAPL_ZONES_MAX]; /* max_energy_range_uj: where the counter wraps */
        size_t n;
        const char *why;                /* not measurable: why */
} Rapl;

typedef struct Experiment {
        const Options *o;
        Context c;
        Nic *nic;
        const char *ifname;
        ApplyContext ac;
        IperfRequest req;
        int iperf3_fd;                 /* --iperf3: the file checked, the one that runs; -1: IPERF_BINARY */
        char host[256];
        unsigned port;
        bool directions[_DIRECTION_MAX];
        unsigned rounds, seconds, idle_seconds;
        Trial *trials;
        size_t n_trials, n_helped;
        KnobReading found[_KNOB_MAX];   /* as found: what restore must leave */
        double line_mbps;               /* 0: not known */
        Rapl rapl;
        bool at_candidate;              /* the NIC holds a candidate's values now */
        bool not_as_found;              /* a way back to the baseline failed: the NIC is not as found */
        uint64_t rng;
        bool tty;
        bool cut;                       /* interrupted: what is printed is incomplete, and nothing is kept */
        size_t running;                 /* the trial being measured, 1-based; 0: none yet */
        unsigned tests_total, tests_done;
        uint64_t started_usec;
} Experiment;

/* The signal that asked the experiment to stop; 0: none. Set by the command's signal handler. */
extern volatile sig_atomic_t experiment_interrupted;

/* Sleeps, waking for a signal: -EINTR when one asked the experiment to stop. */
int experiment_pause_ms(unsigned ms);
/* --write-config's directory is the configuration's CONFIG.d that only root can change: 0 (with make, made if missing). */
int experiment_dropin_dir(const Options *o, const char *path, bool make);
/* What the rounds of one trial, and of every trial, say: its comparisons and whether it helped. */
void experiment_compare_trial(const Experiment *e, Trial *t);
void experiment_compare_trials(Experiment *e);
