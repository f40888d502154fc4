/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "experiment/run.h"

/* Idle power: the package energy counters found (e->rapl), and one sample of the idle watts. */
void idle_power_find(Experiment *e);
int idle_power_sample(Experiment *e, double *ret);
