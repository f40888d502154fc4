/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "decide/context.h"

/* The long-running service: one sd-event loop, no threads, no polling. Returns the exit code. */
int manager_run(const Options *o);
/* What the start-up sweep removes from the state directory: "<slot><suffix>" files that writers
 * which are gone left, as each owner says (undo_is_leftover, link_power_record_is_leftover). */
bool manager_state_leftover(const char *suffix);
