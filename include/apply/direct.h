/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* apply and restore acting directly, without the service (r8169-tuned apply and restore run by hand). */
#include "apply/apply.h"
#include "decide/context.h"

/* While the service runs without its D-Bus API (no system bus), a change by hand would be undone
 * as drift, a restore re-applied: -EBUSY, said with what to do instead; 0 when it does not run. */
int direct_refuse_if_service_runs(const Options *o, const char *command);
/* The NIC's writer lock, waiting 30 s for another writer: the fd, or -errno, said. */
int direct_lock_nic(const Options *o, const char *slot);
/* The results go to stdout, and a reader that goes away does not end the command. */
void direct_results_to_stdout(void);
/* The apply context of a command: every change journalled in the options' state directory, and
 * what the plan no longer asks for given back, as the service does. */
ApplyContext direct_apply_context(Context *c, const Options *o);
