/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdarg.h>

#include "show/plan.h"
#include "show/report.h"
#include "show/status.h"


static const char *reading_cause(const KnobReading *r, char *buf, size_t size) {
        snprintf(buf, size, "%s", knob_status_to_string(r->status));
        if (r->message[0])
                snprintf(buf + strlen(buf), size - strlen(buf), ": %s", r->message);
        else if (r->error)
                snprintf(buf + strlen(buf), size - strlen(buf), ": %s", strerror(-r->error));
        return buf;
}

/* What the quirk database knows but does not apply here: suggestions, and entries a guard withholds. */
static void status_withheld_text(FILE *f, const NicStatus *s) {
        const NicPlan *p = s->plan;
        char line[768], cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], exp[512];

        for (size_t j = 0; p && j < p->n_suggested; j++) {
                const PlanItem *it = &p->suggested[j];
                snprintf(line, sizeof(line), "%s %s -> %s, quirk %s (reported, not applied)", knob_get(it->knob)->name,
                         report_reading_text(it->knob, &it->current, cur, sizeof(cur)),
                         knob_format_value(it->knob, it->desired, des, sizeof(des)), it->why.quirk->id);
                report_print_wrapped(f, "  suggested:", "    ", line);
                /* One line, never wrapped: it is there to be copied. */
                fprintf(f, "    measure it: %s\n",
                        quirk_experiment_line(it->why.quirk, nic_ifname(s->nic) ?: s->nic->slot, exp, sizeof(exp)));
        }
        for (size_t j = 0; p && j < p->n_guarded; j++) {
                const PlanItem *it = &p->guarded[j];
                if (it->why.kind != PROVENANCE_QUIRK || !it->why.quirk->guard_tx_timeout)
                        continue;
                snprintf(line, sizeof(line), "%s of quirk %s is not applied: a tx timeout on %s%s", knob_get(it->knob)->name,
                         it->why.quirk->id, p->entry_guard_remembered ? "this board, remembered from an earlier boot" : "this link",
                         p->entry_guard_remembered ? "; r8169-tuned restore forgets it" : "");
                report_print_wrapped(f, "  guarded:", "    ", line);
        }
}

/* What the plan says of a knob, beside its value (ux-findings M1): "  as planned, quirk X" or
 * "  planned 0, quirk X"; nothing for a knob the plan leaves alone. */
static void status_why_text(const NicPlan *p, KnobId k, char *buf, size_t size) {
        char des[KNOB_VALUE_MAX], why[300];

        for (size_t j = 0; p && !p->ignored && j < p->n; j++) {
                const PlanItem *it = &p->items[j];
                if (it->knob != k || (it->action != PLAN_CHANGE && it->action != PLAN_KEEP))
                        continue;
                plan_provenance_string(&it->why, why, sizeof(why));
                if (it->action == PLAN_KEEP)
                        snprintf(buf, size, "  as planned: %s", why);
                else
                        snprintf(buf, size, "  planned %s: %s", knob_format_value(k, it->desired, des, sizeof(des)), why);
                return;
        }
}

/* How the running service holds the NIC, in words a user can act on (never wrapped: the
 * commands in it are there to be copied). */
static void status_service_text(FILE *f, const NicStatus *s) {
        const char *name = nic_ifname(s->nic) ?: s->nic->slot;

        if (!s->service_state[0])
                return;
        if (streq(s->service_state, "released"))
                fprintf(f, "  service: given back by restore; \"r8169-tuned apply %s\" takes it back\n", name);
        else if (streq(s->service_state, "failed"))
                fprintf(f, "  service: a write failed at its last apply (\"journalctl -u r8169-tuned -b\" says which);\n"
                           "    \"r8169-tuned apply %s\" tries again\n", name);
        else if (streq(s->service_state, "waiting"))
                fprintf(f, "  service: waiting for its interface to appear\n");
        else
                fprintf(f, "  service: %s by r8169-tuned.service\n", s->service_state);
}

void report_status_text(FILE *f, const NicStatus *s, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const Nic *nic = s[i].nic;
                const PciLink *l = &nic->link;
                char chip[700];
                bool shown[_KNOB_MAX] = {};

                if (i > 0)
                        fputc('\n', f);
                fprintf(f, "%s  %s  %s\n", nic->slot, nic_ifname(nic) ?: "(no interface)",
                        report_chip_line(nic, chip, sizeof(chip)));
                fprintf(f, "  PCI %04x:%04x subsystem %04x:%04x rev %02x, driver %s", nic->vendor, nic->device,
                        nic->subsys_vendor, nic->subsys_device, nic->revision, nic->driver[0] ? nic->driver : "none");
                if (nic->perm_mac[0])
                        fprintf(f, ", MAC %s", nic->perm_mac);
                fputc('\n', f);
                if (l->truncated)
                        fputs("  link: config space past 64 bytes is not readable here (needs CAP_SYS_ADMIN); the link/ knobs "
                              "below are the kernel's own view\n", f);
                else if (l->pcie)
                        fprintf(f, "  link: ASPM %s supported, %s enabled; CLKPM %s%s%s\n", report_aspm_states(l->aspm_support),
                                report_aspm_states(l->aspm_control),
                                l->clkpm_capable ? "capable" : "not capable",
                                l->clkpm_enabled ? ", enabled" : "",
                                l->l1ss ? "; L1 substates capable" : "");
                report_unknown_chip_advice(f, nic);
                if (s[i].tx_guard)
                        fprintf(f, "  tx timeouts: %" PRIu64 "; tx-timeout guard: L1 stays off for this link until reboot\n",
                                s[i].tx_timeouts);
                else if (s[i].tx_timeouts_known)
                        fprintf(f, "  tx timeouts: %" PRIu64 "\n", s[i].tx_timeouts);
                if (s[i].link_power_known)
                        report_link_power_text(f, &s[i].link_power);
                status_service_text(f, &s[i]);
                fputs("  knobs:\n", f);
                for (int k = 0; k < _KNOB_MAX; k++) {
                        const KnobReading *r = &s[i].knobs[k];
                        char buf[KNOB_VALUE_MAX], mark[128] = "", why[400] = "";

                        if (r->status != KNOB_STATUS_OK)
                                continue;
                        report_ours_text(k, r, &s[i].ours[k], mark, sizeof(mark));
                        status_why_text(s[i].plan, k, why, sizeof(why));
                        fprintf(f, "    %-22s %s%s%s%s\n", knob_get(k)->name,
                                r->partial ? "partly on" : knob_format_value(k, r->value, buf, sizeof(buf)),
                                r->fixed ? " [fixed]" : "", mark, why);
                }
                /* What cannot be read: one line per cause, not one per knob, with the knob list (ux-findings L4). */
                for (int k = 0; k < _KNOB_MAX; k++) {
                        char cause[256], other[256], names[512] = "", first[300];

                        if (s[i].knobs[k].status == KNOB_STATUS_OK || shown[k])
                                continue;
                        reading_cause(&s[i].knobs[k], cause, sizeof(cause));
                        for (int j = k; j < _KNOB_MAX; j++) {
                                if (s[i].knobs[j].status == KNOB_STATUS_OK || shown[j] ||
                                    !streq(reading_cause(&s[i].knobs[j], other, sizeof(other)), cause))
                                        continue;
                                shown[j] = true;
                                snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", names[0] ? ", " : "",
                                         knob_get(j)->name);
                        }
                        snprintf(first, sizeof(first), "    %s:", cause);
                        report_print_wrapped(f, first, "      ", names);
                }
                status_withheld_text(f, &s[i]);
        }
}

/* Whether what r8169-tuned set is what the NIC holds now. */
static bool ours_holds(const KnobReading *r, const KnobOurs *o) {
        return !o->set_mixed && !r->partial && r->value == o->set;
}

void report_ours_text(KnobId k, const KnobReading *r, const KnobOurs *o, char *buf, size_t size) {
        char wasbuf[KNOB_VALUE_MAX], set[KNOB_VALUE_MAX];
        const char *was;

        buf[0] = 0;
        if (!o->ours)
                return;
        was = o->original_mixed ? "partly on" : knob_format_value(k, o->original, wasbuf, sizeof(wasbuf));
        if (ours_holds(r, o))
                snprintf(buf, size, "  (by r8169-tuned; was %s)", was);
        else if (o->set_mixed)
                snprintf(buf, size, "  (r8169-tuned changed it, was %s; changed since)", was);
        else
                snprintf(buf, size, "  (r8169-tuned set %s, was %s; changed since)", knob_format_value(k, o->set, set, sizeof(set)), was);
}

/* "changed_by_r8169_tuned": { knob: { original, set, holds } } from the undo journal. */
static void report_ours_json(JsonWriter *w, const NicStatus *s) {
        json_key(w, "changed_by_r8169_tuned");
        json_object_begin(w);
        for (int k = 0; k < _KNOB_MAX; k++) {
                const KnobOurs *o = &s->ours[k];

                if (!o->ours)
                        continue;
                json_key(w, knob_get(k)->name);
                json_object_begin(w);
                json_key(w, "original");
                if (o->original_mixed)
                        json_null(w);
                else
                        report_knob_value_json(w, k, o->original);
                json_key(w, "set");
                if (o->set_mixed)
                        json_null(w);
                else
                        report_knob_value_json(w, k, o->set);
                json_kv_bool(w, "holds", s->knobs[k].status == KNOB_STATUS_OK && ours_holds(&s->knobs[k], o));
                json_object_end(w);
        }
        json_object_end(w);
}

void report_status_json(FILE *f, const NicStatus *s, size_t n, const Diagnostics *problems, const char *profile, bool service) {
        JsonWriter w = json_writer(f);

        json_object_begin(&w);
        json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
        json_kv_str(&w, "profile", profile);
        json_kv_bool(&w, "service", service);
        json_key(&w, "nics");
        json_array_begin(&w);
        for (size_t i = 0; i < n; i++) {
                json_object_begin(&w);
                report_nic_json_members(&w, s[i].nic);
                json_key(&w, "tx_timeouts");
                if (s[i].tx_timeouts_known)
                        json_u64(&w, s[i].tx_timeouts);
                else
                        json_null(&w);
                json_kv_bool(&w, "tx_timeout_guard", s[i].tx_guard);
                json_key(&w, "link_power");
                report_link_power_json(&w, s[i].link_power_known ? &s[i].link_power : NULL);
                report_knobs_json(&w, s[i].knobs);
                report_ours_json(&w, &s[i]);
                json_kv_bool(&w, "guard_remembered", s[i].plan && s[i].plan->entry_guard_remembered);
                report_plan_items_json(&w, "suggested", s[i].plan ? s[i].plan->suggested : NULL, s[i].plan ? s[i].plan->n_suggested : 0,
                                "reported: a suggestion, applied only with suggestions = apply", s[i].nic);
                json_kv_str(&w, "service_state", s[i].service_state[0] ? s[i].service_state : NULL);
                json_object_end(&w);
        }
        json_array_end(&w);
        report_config_problems_json(&w, problems);
        json_object_end(&w);
        json_end(&w);
}
