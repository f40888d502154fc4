/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "experiment/run.h"

/* The rounds: the NIC settled, back to the baseline, the line speed, the warm-up, every trial measured. */
int measure_settle(Experiment *e);
int measure_to_baseline(Experiment *e);
void measure_line_speed(Experiment *e);
int measure_warm_up(Experiment *e);
int measure_run_trials(Experiment *e);
void measure_progress_clear(Experiment *e);
