/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "client/service.h"
#include "commands/commands.h"
#include "show/metrics.h"
#include "state/lock.h"

/*
 * metrics: the state of every Realtek NIC as Prometheus text. The service publishes the same
 * (metrics-textfile); what only it knows (a NIC's state, failed writes) is asked of it when it runs.
 */
int cmd_metrics(const Options *o) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ NicMetrics *m = NULL;
        _cleanup_free_ bool *selected = NULL;
        char (*states)[16] = NULL;
        MetricsService s;
        size_t n = 0;
        Context c;
        int ret = 1;

        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        if (service_bus_open(o, &bus) >= 0)
                (void) service_follow_profile(&c, bus);
        m = calloc(c.nics.n ?: 1, sizeof(NicMetrics));
        states = calloc(c.nics.n ?: 1, sizeof(*states));
        if (!m || !states)
                goto out;
        for (size_t i = 0; i < c.nics.n; i++) {
                if (!selected[i])
                        continue;
                m[n].nic = &c.nics.nics[i];
                context_plan_nic(&c, m[n].nic, m[n].current, &m[n].plan);
                m[n].tx_timeouts_known = nic_read_tx_timeouts(c.root, m[n].nic, &m[n].tx_timeouts) >= 0;
                m[n].link_power_known = link_power_record_load(o->state_dir, m[n].nic->slot, &m[n].link_power) >= 0;
                if (bus && service_nic_state(bus, m[n].nic->slot, states[n], sizeof(states[n])) >= 0)
                        m[n].state = states[n];
                n++;
        }
        s = (MetricsService) { .profile = c.profile, .profile_source = context_profile_source(&c), .power = c.machine.power,
                               .config_problems = c.problems.n, .running = lock_service_running(o->state_dir) > 0,
                               .time_usec = now_realtime_usec() };
        report_metrics(stdout, &s, m, n);
        ret = 0;
out:
        free(states);
        context_done(&c);
        return ret;
}
