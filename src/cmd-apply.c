/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apply.h"
#include "commands.h"
#include "log.h"

static ApplyContext apply_context(Context *c, const Options *o) {
        return (ApplyContext) { .backend = &c->backend, .state_dir = o->state_dir,
                                .fault_after = o->fault_after_writes, .fault_signal = o->fault_signal };
}

int cmd_apply(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        ApplyStats st = {};
        ApplyContext ac;
        Context c;
        int ret = 1;

        if (context_check_privileges(o, "apply") < 0)
                return 1;
        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        ac = apply_context(&c, o);
        log_info("Profile %s%s.", profile_to_string(c.profile),
                 c.config.profile == PROFILE_BALANCED && !o->profile ?
                 (c.machine.power == POWER_BATTERY ? " (balanced, on battery)" : " (balanced, on AC or no battery)") : "");
        ret = 0;
        for (size_t i = 0; i < c.nics.n; i++) {
                KnobReading current[_KNOB_MAX];
                NicPlan plan;

                if (!selected[i])
                        continue;
                context_plan_nic(&c, &c.nics.nics[i], current, &plan);
                if (apply_nic(&ac, &c.nics.nics[i], &plan, &st) < 0)
                        ret = 1;
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

        if (context_check_privileges(o, "restore") < 0)
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
                if (o->n_args > 0 && (!nic || !selected[nic - c.nics.nics]))
                        continue;
                if (restore_nic(&ac, nic, slots[s], &st) < 0)
                        ret = 1;
        }
        if (n_slots == 0)
                log_info("Nothing to restore: no undo journal in %s.", o->state_dir);
out:
        strv_free(slots, n_slots);
        context_done(&c);
        return ret;
}
