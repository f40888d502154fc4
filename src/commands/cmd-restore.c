/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <systemd/sd-bus.h>

#include "apply/direct.h"
#include "base/log.h"
#include "client/service.h"
#include "commands/commands.h"

int cmd_restore(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        char **slots = NULL;
        size_t n_slots = 0;
        ApplyStats st = {};
        ApplyContext ac;
        Context c;
        int ret = 1, r;

        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

        direct_results_to_stdout();
        if (service_bus_open(o, &bus) >= 0)
                return service_restore(bus, o);
        if (context_check_privileges(o, "restore") < 0 || direct_refuse_if_service_runs(o, "restore") < 0)
                return 1;
        if (context_open_selected(&c, o, false, &selected) < 0)
                goto out;
        ac = direct_apply_context(&c, o);
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
                lock = direct_lock_nic(o, slots[s]);
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
