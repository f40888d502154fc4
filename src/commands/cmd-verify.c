/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <systemd/sd-bus.h>

#include "base/log.h"
#include "client/service.h"
#include "commands/commands.h"
#include "show/verification.h"

/*
 * verify: is the plan in force? Exit 0 when every knob of the selected NICs is as planned and
 * every configuration and quirk file was read; 1 with the knobs that differ and the problems
 * (as tuned-adm verify and tlp-stat answer, for a monitoring check or an Ansible task). While
 * the service runs, it answers (its run-time profile, the NICs it gave back); else this does.
 */

/* Without the service: plan every selected NIC and compare. */
static int verify_here(const Options *o, Verification *vd, Context *c) {
        _cleanup_free_ bool *selected = NULL;

        if (context_open_selected(c, o, false, &selected) < 0)
                return -EINVAL;
        /* Quiet: verify lists the problems itself, once (ux-findings L17: the loader said them too). */
        context_load_policy_quiet(c);
        for (size_t i = 0; i < c->nics.n; i++) {
                KnobReading current[_KNOB_MAX];
                NicPlan p;

                if (!selected[i])
                        continue;
                context_plan_nic(c, &c->nics.nics[i], current, &p);
                if (verification_add_plan(vd, &p, NULL) < 0)
                        return log_oom();
        }
        for (size_t i = 0; i < c->problems.n; i++)
                diag_copy(&vd->problems, &c->problems, i);
        vd->profile = profile_to_string(c->profile);
        return 0;
}

int cmd_verify(const Options *o) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *profile = NULL;
        bool here = service_bus_open(o, &bus) < 0;
        Verification vd = {};
        Context c;
        int r, ret;

        r = here ? verify_here(o, &vd, &c) : service_verify(bus, o, &vd, &profile);
        if (r >= 0)
                verification_print(&vd, o->json);
        ret = r >= 0 && verification_ok(&vd) ? 0 : 1;
        if (here)
                context_done(&c);
        verification_done(&vd);
        return ret;
}
