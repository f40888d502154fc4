/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <systemd/sd-bus.h>

#include "apply/direct.h"
#include "base/log.h"
#include "client/service.h"
#include "commands/commands.h"

int cmd_apply(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        ApplyStats st = {};
        ApplyContext ac;
        Context c;
        int ret = 1;

        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

        direct_results_to_stdout();
        if (service_bus_open(o, &bus) >= 0)
                return service_apply(bus, o);
        if (context_check_privileges(o, "apply") < 0 || direct_refuse_if_service_runs(o, "apply") < 0)
                return 1;
        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        ac = direct_apply_context(&c, o);
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
                lock = direct_lock_nic(o, c.nics.nics[i].slot);
                if (lock < 0) {
                        ret = 1;
                        continue;
                }
                /* One turn: one FEATURES_GET for the plan, the expand and the read-back. */
                backend_begin(&c.backend, &c.nics.nics[i], 0, true);
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
