/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "decide/context.h"

/* One function a command, each in src/commands/cmd-NAME.c; each returns the process exit code. */
int cmd_status(const Options *o);
int cmd_plan(const Options *o);
int cmd_check_config(const Options *o);
int cmd_quirks(const Options *o);
int cmd_kernel_defaults(const Options *o);
int cmd_knobs(const Options *o);
int cmd_apply(const Options *o);
int cmd_restore(const Options *o);
int cmd_reload(const Options *o);
int cmd_verify(const Options *o);
int cmd_profile(const Options *o);
int cmd_diagnose(const Options *o);
int cmd_metrics(const Options *o);
int cmd_experiment(const Options *o);
