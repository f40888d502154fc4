/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "commands.h"
#include "json.h"
#include "log.h"
#include "report.h"

/*
 * verify: is the plan in force? Exit 0 when every knob of the selected NICs is as planned and
 * every configuration and quirk file was read; 1 with the knobs that differ and the problems
 * (as tuned-adm verify and tlp-stat answer, for a monitoring check or an Ansible task).
 */

typedef struct Difference {
        const NicPlan *plan;
        const PlanItem *item;
} Difference;

static const char *item_source(const PlanItem *it, char *buf, size_t size) {
        if (it->why.quirk)
                snprintf(buf, size, "quirk %s", it->why.quirk->id);
        else if (it->why.origin.file)
                snprintf(buf, size, "%s:%u", it->why.origin.file, it->why.origin.line);
        else
                snprintf(buf, size, "%s", "r8169-tuned");
        return buf;
}

static void verify_json(const Context *c, const Difference *diff, size_t n_diff, size_t n_nics) {
        JsonWriter w = json_writer(stdout);

        json_object_begin(&w);
        json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
        json_kv_bool(&w, "ok", n_diff == 0 && c->problems.n == 0);
        json_kv_str(&w, "profile", profile_to_string(c->profile));
        json_kv_u64(&w, "nics", n_nics);
        json_key(&w, "differences");
        json_array_begin(&w);
        for (size_t i = 0; i < n_diff; i++) {
                const PlanItem *it = diff[i].item;
                char src[160];

                json_object_begin(&w);
                json_kv_str(&w, "slot", diff[i].plan->nic->slot);
                json_kv_str(&w, "interface", nic_ifname(diff[i].plan->nic));
                json_kv_str(&w, "knob", knob_get(it->knob)->name);
                json_key(&w, "planned");
                report_knob_value_json(&w, it->knob, it->desired);
                json_key(&w, "found");
                report_knob_reading_json(&w, it->knob, &it->current);
                json_kv_str(&w, "source", item_source(it, src, sizeof(src)));
                json_object_end(&w);
        }
        json_array_end(&w);
        report_config_problems_json(&w, &c->problems);
        json_object_end(&w);
        json_end(&w);
}

static void verify_text(const Context *c, const Difference *diff, size_t n_diff, size_t n_nics) {
        for (size_t i = 0; i < n_diff; i++) {
                const PlanItem *it = diff[i].item;
                char want[KNOB_VALUE_MAX], found[64], src[160];

                printf("%s (%s) %s: planned %s, found %s (%s)\n", nic_ifname(diff[i].plan->nic) ?: "-", diff[i].plan->nic->slot,
                       knob_get(it->knob)->name, knob_format_value(it->knob, it->desired, want, sizeof(want)),
                       report_reading_text(it->knob, &it->current, found, sizeof(found)), item_source(it, src, sizeof(src)));
        }
        for (size_t i = 0; i < c->problems.n; i++)
                printf("%s\n", c->problems.msgs[i]);
        if (n_diff == 0 && c->problems.n == 0)
                printf("OK: every knob of %zu NIC%s is as planned (profile %s).\n", n_nics, n_nics == 1 ? "" : "s",
                       profile_to_string(c->profile));
        else
                printf("%zu knob%s differ%s from the plan; %zu problem%s in configuration or quirk files.\n", n_diff,
                       n_diff == 1 ? "" : "s", n_diff == 1 ? "s" : "", c->problems.n, c->problems.n == 1 ? "" : "s");
}

int cmd_verify(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        _cleanup_free_ NicPlan *plans = NULL;
        _cleanup_free_ Difference *diff = NULL;
        size_t n_plans = 0, n_diff = 0;
        Context c;
        int ret = 1;

        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        plans = calloc(c.nics.n + 1, sizeof(NicPlan));
        diff = calloc(c.nics.n * _KNOB_MAX + 1, sizeof(Difference));
        if (!plans || !diff) {
                log_oom();
                goto out;
        }
        for (size_t i = 0; i < c.nics.n; i++) {
                KnobReading current[_KNOB_MAX];
                NicPlan *p = &plans[n_plans];

                if (!selected[i])
                        continue;
                context_plan_nic(&c, &c.nics.nics[i], current, p);
                n_plans++;
                if (p->ignored)
                        continue;
                for (size_t k = 0; k < p->n; k++)
                        if (p->items[k].action == PLAN_CHANGE)
                                diff[n_diff++] = (Difference) { p, &p->items[k] };
        }
        if (o->json)
                verify_json(&c, diff, n_diff, n_plans);
        else
                verify_text(&c, diff, n_diff, n_plans);
        ret = n_diff == 0 && c.problems.n == 0 ? 0 : 1;
out:
        context_done(&c);
        return ret;
}
