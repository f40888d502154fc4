/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "decide/context.h"

/* The long-running service: one sd-event loop, no threads, no polling. Returns the exit code. */
int manager_run(const Options *o);
