/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <signal.h>
#include <systemd/sd-bus.h>

#include "apply/apply.h"
#include "base/log.h"
#include "client/service.h"
#include "commands/commands.h"
#include "state/lock.h"

/* How long a command waits for another writer of the same NIC. */
#define LOCK_WAIT_MS (30 * 1000)

/* While the service runs without its D-Bus API (no system bus), a change by hand would be undone as drift, a
 * restore re-applied: say what to do instead. */
static int refuse_if_service_runs(const Options *o, const char *command) {
        int r = lock_service_running(o->state_dir);
        if (r <= 0)
                return 0;
        return log_error_errno(EBUSY, "r8169-tuned.service is running and keeps these NICs as configured: %s by hand "
                               "(with options naming another sysfs, configuration, quirks or profile, or with a service that "
                               "has no D-Bus API) would be undone. Without those options, %s goes through the service; "
                               "\"systemctl stop r8169-tuned\" restores the original values.", command, command);
}

static int nic_lock_said(const Options *o, const char *slot) {
        int fd = lock_nic(o->state_dir, slot, LOCK_WAIT_MS);
        if (fd < 0)
                log_error_errno(fd, "%s: %s", slot,
                                fd == -EAGAIN ? "another r8169-tuned has been changing this NIC for 30 s; not touching it"
                                              : "cannot take its lock in the state directory: %m");
        return fd;
}

/* The results go to stdout (ux-findings L14): a reader that goes away (apply | head -1) must not end the
 * command between a write and its record; a failed write to stdout is only a lost line. */
static void results_to_stdout(void) {
        log_results_to_stdout(true);
        (void) signal(SIGPIPE, SIG_IGN);
}

/*
 * As the service applies (issue 45 M3): what an earlier apply set and the plan no longer asks
 * for (a profile switched to powersave, a line removed) goes back to its original first, so
 * that a knob only performance wanted does not stay behind while verify says as planned.
 */
static ApplyContext apply_context(Context *c, const Options *o) {
        return (ApplyContext) { .backend = &c->backend, .state_dir = o->state_dir, .give_back = true,
                                .fault_after = o->fault_after_writes, .fault_signal = o->fault_signal };
}

int cmd_apply(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        ApplyStats st = {};
        ApplyContext ac;
        Context c;
        int ret = 1;

        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

        results_to_stdout();
        if (service_bus_open(o, &bus) >= 0)
                return service_apply(bus, o);
        if (context_check_privileges(o, "apply") < 0 || refuse_if_service_runs(o, "apply") < 0)
                return 1;
        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        ac = apply_context(&c, o);
        log_info("Profile %s%s.", profile_to_string(c.profile),
                 (c.config.profile == PROFILE_BALANCED || c.config.profile == PROFILE_AUTO) && !o->profile ?
                 (c.machine.power == POWER_BATTERY ? " (balanced, on battery)" : " (balanced, on AC or no battery)") : "");
        ret = 0;
        for (size_t i = 0; i < c.nics.n; i++) {
                KnobReading current[_KNOB_MAX];
                _cleanup_close_ int lock = -1;
                NicPlan plan;

                if (!selected[i])
                        continue;
                /* Read, plan, write and record as the only writer of this NIC. */
                lock = nic_lock_said(o, c.nics.nics[i].slot);
                if (lock < 0) {
                        ret = 1;
                        continue;
                }
                /* One turn: one FEATURES_GET for the plan, the expand and the read-back. */
                backend_begin(&c.backend, &c.nics.nics[i], 0);
                context_plan_nic(&c, &c.nics.nics[i], current, &plan);
                context_record_tx_guard(&c, &c.nics.nics[i], &plan);
                if (apply_nic(&ac, &c.nics.nics[i], &plan, &st) < 0)
                        ret = 1;
                backend_end(&c.backend);
        }
        if (c.nics.n == 0)
                log_info("No Realtek NIC found: nothing to do.");
out:
        context_done(&c);
        return ret;
}

int cmd_restore(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        char **slots = NULL;
        size_t n_slots = 0;
        ApplyStats st = {};
        ApplyContext ac;
        Context c;
        int ret = 1, r;

        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

        results_to_stdout();
        if (service_bus_open(o, &bus) >= 0)
                return service_restore(bus, o);
        if (context_check_privileges(o, "restore") < 0 || refuse_if_service_runs(o, "restore") < 0)
                return 1;
        if (context_open_selected(&c, o, false, &selected) < 0)
                goto out;
        ac = apply_context(&c, o);
        r = undo_list(o->state_dir, &slots, &n_slots);
        if (r < 0) {
                log_error_errno(r, "Cannot list %s: %m", o->state_dir);
                goto out;
        }
        ret = 0;
        for (size_t s = 0; s < n_slots; s++) {
                Nic *nic = NULL;
                for (size_t i = 0; i < c.nics.n; i++)
                        if (streq(c.nics.nics[i].slot, slots[s]))
                                nic = &c.nics.nics[i];
                _cleanup_close_ int lock = -1;

                if (o->n_args > 0 && (!nic || !selected[nic - c.nics.nics]))
                        continue;
                lock = nic_lock_said(o, slots[s]);
                if (lock >= 0) {
                        uint64_t timeouts;
                        ac.l1_guard = nic && context_tx_guard(&c, nic, &timeouts);
                }
                if (lock < 0 || restore_nic(&ac, nic, slots[s], &st) < 0)
                        ret = 1;
        }
        /* restore is how a user says "try again": a remembered tx timeout is forgotten, journal or not. */
        for (size_t i = 0; i < c.nics.n; i++)
                if (o->n_args == 0 || selected[i])
                        context_forget_board_guard(&c, &c.nics.nics[i]);
        if (n_slots == 0)
                log_info("Nothing to restore: no undo journal in %s.", o->state_dir);
out:
        strv_free(slots, n_slots);
        context_done(&c);
        return ret;
}
