/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

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
static void status_withheld_text(Out *o, const NicStatus *s) {
        const NicPlan *p = s->plan;
        char line[768], cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], exp[512];

        if (o->json)
                return;
        for (size_t j = 0; p && j < p->n_suggested; j++) {
                const PlanItem *it = &p->suggested[j];
                snprintf(line, sizeof(line), "%s %s -> %s, quirk %s (reported, not applied)", knob_get(it->knob)->name,
                         report_reading_text(it->knob, &it->current, cur, sizeof(cur)),
                         knob_format_value(it->knob, it->desired, des, sizeof(des)), it->why.quirk->id);
                out_text_wrapped(o, "  suggested:", "    ", line);
                /* One line, never wrapped: it is there to be copied. */
                out_text(o, "    measure it: %s\n",
                        quirk_experiment_line(it->why.quirk, nic_ifname(s->nic) ?: s->nic->slot, exp, sizeof(exp)));
        }
        for (size_t j = 0; p && j < p->n_guarded; j++) {
                const PlanItem *it = &p->guarded[j];
                if (it->why.kind != PROVENANCE_QUIRK || !it->why.quirk->guard_tx_timeout)
                        continue;
                snprintf(line, sizeof(line), "%s of quirk %s is not applied: a tx timeout on %s%s", knob_get(it->knob)->name,
                         it->why.quirk->id, p->entry_guard_remembered ? "this board, remembered from an earlier boot" : "this link",
                         p->entry_guard_remembered ? "; r8169-tuned restore forgets it" : "");
                out_text_wrapped(o, "  guarded:", "    ", line);
        }
}

/* What the plan says of a knob, beside its value (ux-findings M1): "  as planned, quirk X" or
 * "  planned 0, quirk X"; nothing for a knob the plan leaves alone. */
static void status_why_text(const NicPlan *p, KnobId k, char *buf, size_t size) {
        char des[KNOB_VALUE_MAX], why[300];

        for (size_t j = 0; p && !p->ignored && j < p->n; j++) {
                const PlanItem *it = &p->items[j];
                if (it->knob != k || (it->action != PLAN_CHANGE && it->action != PLAN_KEEP && it->action != PLAN_HELD))
                        continue;
                plan_provenance_string(&it->why, why, sizeof(why));
                if (it->action == PLAN_KEEP)
                        snprintf(buf, size, "  as planned: %s", why);
                else if (it->action == PLAN_HELD)
                        snprintf(buf, size, "  planned %s: %s; held off by the global ASPM policy %s",
                                 knob_format_value(k, it->desired, des, sizeof(des)), why, p->aspm_policy);
                else
                        snprintf(buf, size, "  planned %s: %s", knob_format_value(k, it->desired, des, sizeof(des)), why);
                return;
        }
}

/* How the running service holds the NIC, in words a user can act on (never wrapped: the
 * commands in it are there to be copied). */
static void status_service_text(Out *o, const NicStatus *s) {
        const char *name = nic_ifname(s->nic) ?: s->nic->slot;

        if (o->json)
                return;
        if (!s->service_state[0])
                return;
        if (streq(s->service_state, "released"))
                out_text(o, "  service: given back by restore; \"r8169-tuned apply %s\" takes it back\n", name);
        else if (streq(s->service_state, "failed"))
                out_text(o, "  service: a write failed at its last apply (\"journalctl -u r8169-tuned -b\" says which);\n"
                            "    \"r8169-tuned apply %s\" tries again\n", name);
        else if (streq(s->service_state, "waiting"))
                out_text(o, "  service: waiting for its interface to appear\n");
        else
                out_text(o, "  service: %s by r8169-tuned.service\n", s->service_state);
}

/* Whether what r8169-tuned set is what the NIC holds now. */
static bool ours_holds(const KnobReading *r, const KnobOurs *o) {
        return !o->set_mixed && !r->partial && r->value == o->set;
}

/* "  (by r8169-tuned; was 1)" after a value r8169-tuned set; "" for one it did not. */
static void report_ours_text(KnobId k, const KnobReading *r, const KnobOurs *o, char *buf, size_t size) {
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
                json_kv_knob_or_null(w, "original", !o->original_mixed, k, o->original);
                json_kv_knob_or_null(w, "set", !o->set_mixed, k, o->set);
                json_kv_bool(w, "holds", s->knobs[k].status == KNOB_STATUS_OK && ours_holds(&s->knobs[k], o));
                json_object_end(w);
        }
        json_object_end(w);
}

/* The NIC's identity, its PCI ids and link, and what to do about a chip not known: the text's head. */
static void status_nic_text(Out *o, const Nic *nic) {
        const PciLink *l = &nic->link;
        char chip[700];

        if (o->json)
                return;
        out_text(o, "%s  %s  %s\n", nic->slot, nic_ifname(nic) ?: "(no interface)", report_chip_line(nic, chip, sizeof(chip)));
        out_text(o, "  PCI %04x:%04x subsystem %04x:%04x rev %02x, driver %s", nic->vendor, nic->device, nic->subsys_vendor,
                 nic->subsys_device, nic->revision, nic->driver[0] ? nic->driver : "none");
        if (nic->perm_mac[0])
                out_text(o, ", MAC %s", nic->perm_mac);
        out_text(o, "\n");
        /* r8169 turns L1 off in its probe, and the mask outlives an unbind (kernel-facts.md §14). */
        if (!nic->driver[0])
                out_text(o, "  driver: none bound (unbound: a module reload, a switch of driver?); the link keeps the ASPM "
                            "states the last driver left\n");
        else if (!streq(nic->driver, "r8169"))
                out_text(o, "  driver: %s took the function, not r8169: r8169's defaults and the entries written for r8169 "
                            "do not hold; where r8169 was bound before, L1 stays off as its probe left it\n", nic->driver);
        if (l->truncated)
                out_text(o, "  link: config space past 64 bytes is not readable here (needs CAP_SYS_ADMIN); the link/ knobs "
                            "below are the kernel's own view\n");
        else if (l->pcie)
                out_text(o, "  link: ASPM %s supported, %s enabled; CLKPM %s%s%s\n", report_aspm_states(l->aspm_support),
                         report_aspm_states(l->aspm_control), l->clkpm_capable ? "capable" : "not capable",
                         l->clkpm_enabled ? ", enabled" : "", l->l1ss ? "; L1 substates capable" : "");
        report_unknown_chip_advice(o, nic);
}

/* What cannot be read: one line per cause, not one per knob, with the knob list (ux-findings L4). */
static void status_unreadable_text(Out *o, const KnobReading knobs[_KNOB_MAX]) {
        bool shown[_KNOB_MAX] = {};

        if (o->json)
                return;
        for (int k = 0; k < _KNOB_MAX; k++) {
                char cause[256], other[256], names[512] = "", first[300];

                if (knobs[k].status == KNOB_STATUS_OK || shown[k])
                        continue;
                reading_cause(&knobs[k], cause, sizeof(cause));
                for (int j = k; j < _KNOB_MAX; j++) {
                        if (knobs[j].status == KNOB_STATUS_OK || shown[j] ||
                            !streq(reading_cause(&knobs[j], other, sizeof(other)), cause))
                                continue;
                        shown[j] = true;
                        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", names[0] ? ", " : "",
                                 knob_get(j)->name);
                }
                snprintf(first, sizeof(first), "    %s:", cause);
                out_text_wrapped(o, first, "      ", names);
        }
}

/* The knobs as read: in JSON every knob's reading; in the text those read, with what r8169-tuned
 * set of them and what the plan says, then what could not be read. */
static void status_knobs(Out *o, const NicStatus *s) {
        out_text(o, "  knobs:\n");
        out_object_begin(o, "knobs");
        for (int k = 0; k < _KNOB_MAX; k++) {
                const KnobReading *r = &s->knobs[k];
                char buf[KNOB_VALUE_MAX], mark[128] = "", why[400] = "";

                if (out_json(o)) {
                        json_key(out_json(o), knob_get(k)->name);
                        report_knob_reading_json(out_json(o), k, r);
                        continue;
                }
                if (r->status != KNOB_STATUS_OK)
                        continue;
                report_ours_text(k, r, &s->ours[k], mark, sizeof(mark));
                status_why_text(s->plan, k, why, sizeof(why));
                out_text(o, "    %-22s %s%s%s%s\n", knob_get(k)->name,
                         r->partial ? "partly on" : knob_format_value(k, r->value, buf, sizeof(buf)), r->fixed ? " [fixed]" : "",
                         mark, why);
        }
        out_object_end(o);
        status_unreadable_text(o, s->knobs);
}

/*
 * Runtime PM as TLP and powertop leave it: with auto, r8169 suspends the function 10 s after its
 * interface goes down or loses its carrier, and some boards then miss a cable plugged in
 * (TLP issue 636, r8168 issue 30): what keeps it powered is said with it.
 */
static void status_runtime_pm_text(Out *o, const NicStatus *s) {
        const KnobReading *r = &s->knobs[KNOB_RUNTIME_PM];
        const char *st = s->nic->runtime_status[0] ? s->nic->runtime_status : "state unknown";

        if (o->json || r->status != KNOB_STATUS_OK)
                return;
        if (r->value)
                out_text(o, "  runtime PM: on (kept powered), %s\n", st);
        else
                out_text(o, "  runtime PM: auto (may suspend), %s; where a cable plugged in is missed while it is down, "
                            "runtime-pm = on in a [device] section keeps it powered\n", st);
}

static void status_nic_show(Out *o, const NicStatus *s) {
        const NicPlan *p = s->plan;
        JsonWriter *w = out_json(o);

        out_object_begin(o, NULL);
        if (w)
                report_nic_json_members(w, s->nic);
        status_nic_text(o, s->nic);
        report_link_explain(o, s->nic, &s->link, "  ");
        out_json_u64_or_null(o, "tx_timeouts", s->tx_timeouts_known, s->tx_timeouts);
        out_json_bool(o, "tx_timeout_guard", s->tx_guard);
        if (s->tx_guard)
                out_text(o, "  tx timeouts: %" PRIu64 "; tx-timeout guard: L1 stays off for this link until reboot\n", s->tx_timeouts);
        else if (s->tx_timeouts_known)
                out_text(o, "  tx timeouts: %" PRIu64 "\n", s->tx_timeouts);
        report_link_power(o, "link_power", s->link_power_known ? &s->link_power : NULL);
        status_runtime_pm_text(o, s);
        status_service_text(o, s);
        status_knobs(o, s);
        if (w) {
                report_ours_json(w, s);
                json_kv_bool(w, "guard_remembered", p && p->entry_guard_remembered);
                report_plan_items_json(w, "suggested", p ? p->suggested : NULL, p ? p->n_suggested : 0,
                                       "reported: a suggestion, applied only with suggestions = apply", s->nic);
        }
        status_withheld_text(o, s);
        out_json_str(o, "service_state", s->service_state[0] ? s->service_state : NULL);
        out_object_end(o);
}

void report_status_show(Out *o, const NicStatus *s, size_t n, const Diagnostics *problems, const char *profile, bool service) {
        out_json_str(o, "profile", profile);
        out_json_bool(o, "service", service);
        out_array_begin(o, "nics");
        for (size_t i = 0; i < n; i++) {
                if (i > 0)
                        out_text(o, "\n");
                status_nic_show(o, &s[i]);
        }
        out_array_end(o);
        report_config_problems(o, problems);
        if (problems->n > 0)
                out_text(o, "\nConfiguration: %zu problem%s; the files named are left out, everything else is in force:\n",
                         problems->n, problems->n == 1 ? "" : "s");
        for (size_t i = 0; i < problems->n; i++)
                out_text(o, "  %s\n", problems->msgs[i]);
}
