/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The running service, as the command line asks it over its D-Bus API (as networkctl and
 * tuned-adm do); each call says what went wrong itself. Without the service the commands act
 * directly.
 */
#include <systemd/sd-bus.h>

#include "decide/context.h"
#include "show/verification.h"

/* A call to the service (method) that failed, said: "WHAT needs root" when the bus refused a
 * caller that is not root, else the service's own message. */
void service_call_failed(const char *what, const char *method, const sd_bus_error *e, int r);
/* A connection to the service of these options' state directory: -ESRCH when it does not run or has no API. */
int service_bus_open(const Options *o, sd_bus **ret);
/* The service of that state directory, whatever the options: for the experiment, which must never race it. */
int service_bus_connect(const char *state_dir, sd_bus **ret);
/*
 * What the running service decides its profile from, into c: its run-time choice (SetProfile,
 * "r8169-tuned profile") and the desktop's profile (profile = auto); the profile is then resolved
 * as the service does. So plan, status, metrics and diagnose show the profile in force
 * (ux-findings H2). bus: a connection to the service already open, or NULL to open one. Nothing
 * without the service, or with --profile: false.
 */
bool service_follow_profile(Context *c, sd_bus *bus);
/* apply, restore and reload through the service: the process exit code. */
int service_apply(sd_bus *bus, const Options *o);
int service_restore(sd_bus *bus, const Options *o);
int service_reload(sd_bus *bus, const Options *o);
/* experiment: the service lets go of one NIC (Restore) and takes it back (Apply); 0 or -errno, said. */
int service_release_nic(sd_bus *bus, const char *name);
int service_take_back_nic(sd_bus *bus, const char *name);
/* Whether the service has let go of the NIC in this slot (State "released"): 1, 0 or -errno. */
int service_nic_released(sd_bus *bus, const char *slot);
/* The NIC's State as the service holds it (tuned, released, failed, waiting) into buf; <0: not known. */
int service_nic_state(sd_bus *bus, const char *slot, char *buf, size_t size);
/* The service's verdict (Verify) on the NICs the arguments name (every one without arguments),
 * into vd, its profile's name into *profile (the caller frees it): 0, -ENOENT when an argument
 * names none of its NICs, or -errno; said. */
int service_verify(sd_bus *bus, const Options *o, Verification *vd, char **profile);
/* The running service's verdict in one line (for status); false when no service answers. */
bool service_verify_summary(sd_bus *bus, const Options *o, char *buf, size_t size);
