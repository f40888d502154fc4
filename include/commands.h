/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "context.h"

/* Each returns the process exit code. */
int cmd_status(const Options *o);
int cmd_plan(const Options *o);
int cmd_check_config(const Options *o);
int cmd_quirks(const Options *o);
int cmd_apply(const Options *o);
int cmd_restore(const Options *o);
int cmd_reload(const Options *o);
int cmd_verify(const Options *o);
int cmd_profile(const Options *o);

/* The running service's D-Bus API (cmd-service.c): -ESRCH when it does not run or has no API. */
typedef struct sd_bus sd_bus;
int service_bus_open(const Options *o, sd_bus **ret);
int service_apply(sd_bus *bus, const Options *o);
int service_restore(sd_bus *bus, const Options *o);
int service_reload(sd_bus *bus, const Options *o);
/* The running service's verdict in one line (for status); false when no service answers. */
bool verify_summary_service(const Options *o, char *buf, size_t size);
int cmd_diagnose(const Options *o);
int cmd_knobs(const Options *o);
int cmd_metrics(const Options *o);
