/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* metrics: the NICs' state as Prometheus text. */
#include "decide/plan.h"
#include "show/report.h"

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
