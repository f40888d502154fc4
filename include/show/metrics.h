/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* metrics: the NICs' state as Prometheus text. */
#include "decide/plan.h"
#include "show/report.h"

/* One NIC's state for the Prometheus metrics: what is read, what the plan wants, what the service did. */
typedef struct NicMetrics {
        const Nic *nic;
        KnobReading current[_KNOB_MAX];
        NicPlan plan;
        bool tx_timeouts_known;
        uint64_t tx_timeouts;
        bool link_power_known; /* the running daemon keeps a link power record for it */
        LinkPowerRecord link_power;
        const char *state;     /* the service's word for it (tuned, waiting, failed, released); NULL: not known */
        bool failures_known;   /* the service counted its failed writes */
        unsigned failures[_KNOB_MAX];
} NicMetrics;

/* What the metrics say of the service and the machine. */
typedef struct MetricsService {
        Profile profile;
        const char *profile_source; /* configuration, runtime, command-line */
        PowerSource power;
        size_t config_problems;
        int running;                /* 1: the service runs; 0: it does not (or stopped: its last words) */
        uint64_t time_usec;         /* CLOCK_REALTIME when these values were read */
} MetricsService;

/* The words of the service's NIC states, in r8169_tuned_nic_state's order. */
extern const char *const metrics_nic_states[4];

/* The Prometheus text exposition format (for node_exporter's textfile collector). */
void report_metrics(FILE *f, const MetricsService *s, const NicMetrics *m, size_t n);
