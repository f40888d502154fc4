/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What apply and restore share when they act directly, without the service. */
#include <signal.h>

#include "apply/direct.h"
#include "base/log.h"
#include "state/lock.h"

/* How long a command waits for another writer of the same NIC. */
#define LOCK_WAIT_MS (30 * 1000)

/* While the service runs without its D-Bus API (no system bus), a change by hand would be undone as drift, a
 * restore re-applied: say what to do instead. */
int direct_refuse_if_service_runs(const Options *o, const char *command) {
        int r = lock_service_running(o->state_dir);
        if (r <= 0)
                return 0;
        return log_error_errno(EBUSY, "r8169-tuned.service is running and keeps these NICs as configured: %s by hand "
                               "(with options naming another sysfs, configuration, quirks or profile, or with a service that "
                               "has no D-Bus API) would be undone. Without those options, %s goes through the service; "
                               "\"systemctl stop r8169-tuned\" restores the original values.", command, command);
}

int direct_lock_nic(const Options *o, const char *slot) {
        int fd = lock_nic(o->state_dir, slot, LOCK_WAIT_MS);
        if (fd < 0)
                log_error_errno(fd, "%s: %s", slot,
                                fd == -EAGAIN ? "another r8169-tuned has been changing this NIC for 30 s; not touching it"
                                              : "cannot take its lock in the state directory: %m");
        return fd;
}

/* The results go to stdout (ux-findings L14): a reader that goes away (apply | head -1) must not end the
 * command between a write and its record; a failed write to stdout is only a lost line. */
void direct_results_to_stdout(void) {
        log_results_to_stdout(true);
        (void) signal(SIGPIPE, SIG_IGN);
}

/*
 * As the service applies (issue 45 M3): what an earlier apply set and the plan no longer asks
 * for (a profile switched to powersave, a line removed) goes back to its original first, so
 * that a knob only performance wanted does not stay behind while verify says as planned.
 */
ApplyContext direct_apply_context(Context *c, const Options *o) {
        return (ApplyContext) { .backend = &c->backend, .state_dir = o->state_dir, .give_back = true,
                                .fault_after = o->fault_after_writes, .fault_signal = o->fault_signal };
}
