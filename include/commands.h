/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "context.h"

/* Each returns the process exit code. */
int cmd_status(const Options *o);
int cmd_plan(const Options *o);
int cmd_check_config(const Options *o);
int cmd_quirks(const Options *o);
int cmd_kernel_defaults(const Options *o);
int cmd_apply(const Options *o);
int cmd_restore(const Options *o);
int cmd_reload(const Options *o);
int cmd_verify(const Options *o);
int cmd_profile(const Options *o);
int cmd_experiment(const Options *o);

/* The running service's D-Bus API (cmd-service.c): -ESRCH when it does not run or has no API. */
typedef struct sd_bus sd_bus;
int service_bus_open(const Options *o, sd_bus **ret);
/* The service of that state directory, whatever the options: for the experiment, which must never race it. */
int service_bus_connect(const char *state_dir, sd_bus **ret);
int service_apply(sd_bus *bus, const Options *o);
/*
 * What the running service decides its profile from, into c: its run-time choice (SetProfile,
 * "r8169-tuned profile") and the desktop's profile (profile = auto); the profile is then resolved
 * as the service does. So plan, status, metrics and diagnose show the profile in force
 * (ux-findings H2). bus: a connection to the service already open, or NULL to open one. Nothing
 * without the service, or with --profile: false.
 */
bool service_follow_profile(Context *c, sd_bus *bus);
int service_restore(sd_bus *bus, const Options *o);
int service_reload(sd_bus *bus, const Options *o);
/* experiment: the service lets go of one NIC (Restore) and takes it back (Apply); 0 or -errno, said. */
int service_release_nic(sd_bus *bus, const char *name);
int service_take_back_nic(sd_bus *bus, const char *name);
/* Whether the service has let go of the NIC in this slot (State "released"): 1, 0 or -errno. */
int service_nic_released(sd_bus *bus, const char *slot);
/* The NIC's State as the service holds it (tuned, released, failed, waiting) into buf; <0: not known. */
int service_nic_state(sd_bus *bus, const char *slot, char *buf, size_t size);
/* The running service's verdict in one line (for status); false when no service answers. */
bool verify_summary_service(sd_bus *bus, const Options *o, char *buf, size_t size);
/* "N knobs differ from the plan, N NICs given back and N configuration problems": the parts that are not zero. */
void verdict_parts(char *buf, size_t size, size_t differ, size_t given_back, size_t problems);
/* After an Apply through the service: every knob of the NICs named that is not as planned, said
 * as an error each; how many, or -errno when the service did not answer. */
int verify_service_failures(sd_bus *bus, const Options *o);
int cmd_diagnose(const Options *o);
int cmd_knobs(const Options *o);
int cmd_metrics(const Options *o);
