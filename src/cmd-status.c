/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "commands.h"
#include "log.h"
#include "report.h"

int cmd_status(const Options *o) {
        _cleanup_(diag_done) Diagnostics problems = {};
        _cleanup_free_ NicStatus *s = NULL;
        _cleanup_free_ bool *selected = NULL;
        size_t n = 0;
        Config config;
        QuirkDb quirks;
        Context c;

        if (context_open_selected(&c, o, false, &selected) < 0) {
                context_done(&c);
                return 1;
        }
        s = calloc(c.nics.n ?: 1, sizeof(NicStatus));
        if (!s) {
                context_done(&c);
                return 1;
        }
        for (size_t i = 0; i < c.nics.n; i++) {
                if (!selected[i])
                        continue;
                s[n].nic = &c.nics.nics[i];
                backend_read_all(&c.backend, s[n].nic, s[n].knobs);
                s[n].tx_timeouts_known = nic_read_tx_timeouts(c.root, s[n].nic, &s[n].tx_timeouts) >= 0;
                s[n].tx_guard = context_tx_guard(&c, s[n].nic, &s[n].tx_timeouts);
                s[n].link_power_known = link_power_record_load(o->state_dir, s[n].nic->slot, &s[n].link_power) >= 0;
                n++;
        }
        /* What the files say is not this command's business, but a problem in them is. */
        context_check_policy(o, &config, &quirks, &problems);
        config_done(&config);
        quirk_db_done(&quirks);
        if (o->json)
                report_status_json(stdout, s, n, &problems);
        else if (c.nics.n == 0)
                printf("No Realtek NIC found under %s.\n"
                       "To see what r8169-tuned reports on a real Realtek machine, try a fixture:\n"
                       "  tests/fixtures/mkfixture tests/fixtures/lenovo-8168h.fixture /tmp/fx\n"
                       "  r8169-tuned --sysfs /tmp/fx/sys --kernel-log /tmp/fx/kernel.log status\n",
                       o->sysfs);
        else
                report_status_text(stdout, s, n);
        if (!o->json && c.nics.n > 0) {
                char verdict[256];
                int level = log_get_max_level();

                verify_summary(o, verdict, sizeof(verdict));
                log_set_max_level(level);
                printf("\nVerdict: %s.\n", verdict);
        }
        if (!o->json)
                report_config_problems_text(stdout, &problems);
        context_done(&c);
        return 0;
}

/* metrics: the state of every Realtek NIC as Prometheus text, for node_exporter's textfile collector. */
int cmd_metrics(const Options *o) {
        _cleanup_free_ NicMetrics *m = NULL;
        _cleanup_free_ bool *selected = NULL;
        size_t n = 0;
        Context c;
        int ret = 1;

        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
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
