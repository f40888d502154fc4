/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "client/service.h"
#include "commands/commands.h"
#include "show/metrics.h"

/* metrics: the state of every Realtek NIC as Prometheus text, for node_exporter's textfile collector. */
int cmd_metrics(const Options *o) {
        _cleanup_free_ NicMetrics *m = NULL;
        _cleanup_free_ bool *selected = NULL;
        size_t n = 0;
        Context c;
        int ret = 1;

        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        (void) service_follow_profile(&c, NULL);
        m = calloc(c.nics.n ?: 1, sizeof(NicMetrics));
        if (!m)
                goto out;
        for (size_t i = 0; i < c.nics.n; i++) {
                if (!selected[i])
                        continue;
                m[n].nic = &c.nics.nics[i];
                context_plan_nic(&c, m[n].nic, m[n].current, &m[n].plan);
                m[n].tx_timeouts_known = nic_read_tx_timeouts(c.root, m[n].nic, &m[n].tx_timeouts) >= 0;
                m[n].link_power_known = link_power_record_load(o->state_dir, m[n].nic->slot, &m[n].link_power) >= 0;
                n++;
        }
        report_metrics(stdout, m, n, c.profile, c.machine.power, c.problems.n);
        ret = 0;
out:
        context_done(&c);
        return ret;
}
