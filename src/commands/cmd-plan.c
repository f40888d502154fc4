/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "client/service.h"
#include "commands/commands.h"
#include "show/plan.h"
#include "show/report.h"

int cmd_plan(const Options *o) {
        _cleanup_free_ NicPlan *plans = NULL;
        _cleanup_free_ bool *selected = NULL;
        Context c;
        Out out;
        size_t n = 0;
        int ret = 1;

        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        (void) service_follow_profile(&c, NULL);
        plans = calloc(c.nics.n + 1, sizeof(NicPlan));
        if (!plans)
                goto out;
        for (size_t i = 0; i < c.nics.n; i++) {
                KnobReading current[_KNOB_MAX];
                if (!selected[i])
                        continue;
                context_plan_nic(&c, &c.nics.nics[i], current, &plans[n++]);
        }
        PlanReport r = { .configured = context_configured_profile(&c),
                         .from_config = c.config.profile, .override = o->profile,
                         .profile = c.profile, .power = c.machine.power, .kernel = &c.machine.kernel, .plans = plans, .n = n,
                         .no_quirks = c.quirks.n_files == 0, .verbose = o->verbose,
                         .quirk_files = c.quirks.n_files, .problems = &c.problems,
                         .quirks = &c.quirks, .machine = &c.machine };
        out_document_begin(&out, stdout, o->json);
        report_plan_show(&out, &r);
        out_document_end(&out);
        /* A plan without any quirk database is no answer (ux-findings L8): the problem is said, exit 1. */
        ret = r.no_quirks ? 1 : 0;
out:
        context_done(&c);
        return ret;
}
