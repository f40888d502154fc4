/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "experiment/run.h"

/* What was found, said: a trial's origin, one line of its numbers, the whole output, an interrupted one's. */
const char *results_trial_from(const Trial *t, char *buf, size_t size);
void results_numbers_line(const Experiment *e, const Trial *t, FILE *f, const char *prefix);
void results_output(Experiment *e);
void results_interrupted(Experiment *e);
