/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "show/plan.h"
#include "show/quirks.h"
#include "show/report.h"

/* Where a value comes from, as the same members always: source, quirk, its grounds, reference, file, line. */
static void provenance_json(JsonWriter *w, const Provenance *p) {
        const Quirk *q = p->kind == PROVENANCE_QUIRK ? p->quirk : NULL;
        bool cfg = p->kind == PROVENANCE_CONFIG;

        json_kv_str(w, "source", provenance_kind_to_string(p->kind));
        json_kv_str(w, "quirk", q ? q->id : NULL);
        json_kv_str(w, "confidence", q ? confidence_to_string(q->confidence) : NULL);
        json_kv_str(w, "reported_because", q ? doubt_to_string(q->reported_because) : NULL);
        json_kv_str(w, "guard", q && q->guard_tx_timeout ? "tx-timeout" : NULL);
        json_kv_str(w, "reason", q ? q->reason : NULL);
        json_kv_str(w, "evidence", q ? q->evidence : NULL);
        json_kv_str(w, "counter_evidence", q ? q->counter_evidence : NULL);
        json_key(w, "reference");
        if (q)
                json_words(w, q->reference);
        else
                json_null(w);
        json_kv_str(w, "file", cfg ? p->origin.file : NULL);
        json_kv_u64_or_null(w, "line", cfg, p->origin.line);
}

static void plan_item_json(JsonWriter *w, const PlanItem *it, const char *because, const Nic *nic) {
        char line[512];

        if (!w)
                return;
        json_object_begin(w);
        json_kv_str(w, "knob", knob_get(it->knob)->name);
        json_kv_str(w, "action", plan_action_to_string(it->action));
        json_key(w, "current");
        report_knob_reading_json(w, it->knob, &it->current);
        json_kv_str(w, "because", because);
        json_kv_knob_or_null(w, "desired", it->action != PLAN_EXCLUDED, it->knob, it->desired);
        provenance_json(w, &it->why);
        /* The kernel already does what the quirk asks, since this version: null when not. */
        json_key(w, "kernel_default_since");
        if (it->kernel_default) {
                char since[24];
                json_str(w, kernel_version_to_string(&it->why.quirk->kernel_default_since, since, sizeof(since)));
        } else
                json_null(w);
        json_key(w, "overrides");
        if (it->overrides) {
                json_object_begin(w);
                provenance_json(w, &it->overridden);
                json_kv_knob_or_null(w, "value", it->overridden.quirk && it->overridden.quirk->set[it->knob], it->knob,
                                     it->overridden_value);
                json_object_end(w);
        } else
                json_null(w);
        json_kv_str(w, "experiment", it->action == PLAN_SUGGEST && it->why.quirk
                                             ? quirk_experiment_line(it->why.quirk, nic_ifname(nic) ?: nic->slot, line, sizeof(line))
                                             : NULL);
        json_object_end(w);
}

/* null, or what link-power = dynamic asked for this NIC and whether it runs here. */
void report_plan_link_power_json(JsonWriter *w, const NicPlan *p) {
        if (!p->link_power_asked) {
                json_null(w);
                return;
        }
        json_object_begin(w);
        json_kv_str(w, "mode", "dynamic");
        json_kv_str(w, "file", p->link_power_origin.file);
        json_kv_u64_or_null(w, "line", p->link_power_origin.file, p->link_power_origin.line);
        json_kv_u64(w, "busy_packets_per_second", p->link_power_busy_pps);
        json_kv_u64_or_null(w, "quiet_seconds", p->link_power_quiet_s, p->link_power_quiet_s);
        json_kv_bool(w, "runs", !p->link_power_blocked);
        json_kv_str(w, "blocked", p->link_power_blocked);
        json_kv_str(w, "quirk", p->link_power_quirk ? p->link_power_quirk->id : NULL);
        json_object_end(w);
}

/* The same in words: where it runs, what it does; where it cannot, why (and the quirk's reason). */
static void plan_link_power_text(Out *o, const NicPlan *p) {
        char line[1024], where[300] = "";

        if (o->json)
                return;
        if (!p->link_power_asked)
                return;
        if (p->link_power_origin.file)
                snprintf(where, sizeof(where), " (%s:%u)", p->link_power_origin.file, p->link_power_origin.line);
        if (!p->link_power_blocked && p->link_power_quiet_s)
                snprintf(line, sizeof(line),
                         "dynamic%s: the daemon turns L1 and L1.1 off when the link carries more than %" PRIu64
                         " packets/s and on again after %" PRIu64 " s below that",
                         where, p->link_power_busy_pps, p->link_power_quiet_s);
        else if (!p->link_power_blocked)
                snprintf(line, sizeof(line),
                         "dynamic%s: the daemon turns L1 and L1.1 off when the link carries more than %" PRIu64
                         " packets/s and on again after a quiet time it learns from the traffic (from 0.5 s)",
                         where, p->link_power_busy_pps);
        else
                snprintf(line, sizeof(line), "dynamic asked%s, but not for this link: %s%s%s%s", where, p->link_power_blocked,
                         p->link_power_quirk ? " (quirk " : "", p->link_power_quirk ? p->link_power_quirk->id : "",
                         p->link_power_quirk ? ")" : "");
        out_text_wrapped(o, "  link power:", "    ", line);
        if (p->link_power_blocked && p->link_power_quirk) {
                out_text_wrapped(o, "    reason:", "      ", p->link_power_quirk->reason);
                out_text_wrapped(o, "    see:", "      ", p->link_power_quirk->reference);
                out_text(o, "    a [device] section naming this NIC with link-power = dynamic overrides the quirk\n");
        }
}

static const char *held_back_because(const PlanReport *r, char *buf, size_t size) {
        if (r->configured == PROFILE_BALANCED || r->configured == PROFILE_AUTO)
                snprintf(buf, size, "performance profile only; on battery, balanced uses powersave");
        else
                snprintf(buf, size, "performance profile only; profile %s", profile_to_string(r->configured));
        return buf;
}

static void ignored_by_json(JsonWriter *w, const NicPlan *p) {
        json_kv_bool(w, "ignored", p->ignored);
        json_key(w, "ignored_by");
        if (!p->ignored) {
                json_null(w);
                return;
        }
        json_object_begin(w);
        json_kv_str(w, "file", p->ignored_by.file);
        json_kv_u64(w, "line", p->ignored_by.line);
        json_object_end(w);
}

void report_plan_items_json(JsonWriter *w, const char *key, const PlanItem *items, size_t n, const char *because, const Nic *nic) {
        json_key(w, key);
        json_array_begin(w);
        for (size_t j = 0; j < n; j++)
                plan_item_json(w, &items[j], because, nic);
        json_array_end(w);
}

/* One planned knob: action, knob, values, where it comes from. */
static void plan_item_text(Out *o, const PlanItem *it, const char *aspm_policy) {
        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], prov[512];
        const char *c = report_reading_text(it->knob, &it->current, cur, sizeof(cur));

        if (o->json)
                return;
        out_text(o, "  %-9s %-21s ", plan_action_to_string(it->action), knob_get(it->knob)->name);
        if (it->action == PLAN_EXCLUDED)
                out_text(o, "%-16s", "not touched");
        else if (it->action == PLAN_SKIP)
                out_text(o, "%-16s", knob_status_to_string(it->current.status));
        else if (it->action == PLAN_CHANGE || it->action == PLAN_HELD) {
                char both[64];
                snprintf(both, sizeof(both), "%s -> %s", c, knob_format_value(it->knob, it->desired, des, sizeof(des)));
                out_text(o, "%-16s", both);
        } else
                out_text(o, "%-16s", c);
        out_text(o, " %s", plan_provenance_string(&it->why, prov, sizeof(prov)));
        if (it->overrides)
                out_text(o, " (overrides %s)", plan_provenance_string(&it->overridden, prov, sizeof(prov)));
        if (it->kernel_default) {
                char since[24];
                out_text(o, " (the kernel already does this since %s)",
                        kernel_version_to_string(&it->why.quirk->kernel_default_since, since, sizeof(since)));
        }
        if (it->action == PLAN_HELD)
                out_text(o, " (held off by the global ASPM policy %s: not written)", aspm_policy);
        out_text(o, "\n");
}

/* A row of what is not applied: held back (with because), or a suggestion (because NULL). */
static void plan_other_text(Out *o, const char *label, const PlanItem *it, const char *because) {
        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], both[64], prov[512];

        if (o->json)
                return;
        snprintf(both, sizeof(both), "%s -> %s", report_reading_text(it->knob, &it->current, cur, sizeof(cur)),
                 knob_format_value(it->knob, it->desired, des, sizeof(des)));
        out_text(o, "  %-9s %-21s %-16s %s%s%s%s\n", label, knob_get(it->knob)->name, both,
                 plan_provenance_string(&it->why, prov, sizeof(prov)), because ? " (" : "", because ?: "", because ? ")" : "");
}

/* A quirk behind a planned, kept, held-back or suggested value: not one skipped or excluded. */
static const Quirk *plan_item_quirk(const NicPlan *p, size_t j) {
        const PlanItem *it = j < p->n            ? &p->items[j]
                             : j < p->n + p->n_held ? &p->held[j - p->n]
                                                    : &p->suggested[j - p->n - p->n_held];

        if (it->why.kind != PROVENANCE_QUIRK || it->action == PLAN_EXCLUDED || it->action == PLAN_SKIP)
                return NULL;
        return it->why.quirk;
}

/* How many of the plan's items come from a quirk. */
static size_t plan_item_quirks(const NicPlan *p) {
        size_t n = 0;

        for (size_t j = 0; j < p->n + p->n_held + p->n_suggested; j++)
                n += plan_item_quirk(p, j) != NULL;
        return n;
}

/* Each quirk behind a planned value, once: its reason, evidence, counter-evidence and sources. */
static void plan_grounds_text(Out *o, const NicPlan *p) {
        if (o->json)
                return;
        for (size_t j = 0; j < p->n + p->n_held + p->n_suggested; j++) {
                const Quirk *q = plan_item_quirk(p, j);
                bool said = false;
                char first[160];

                for (size_t k = 0; q && k < j && !said; k++)
                        said = plan_item_quirk(p, k) == q;
                if (!q || said)
                        continue;
                snprintf(first, sizeof(first), "  why %s:", q->id);
                report_quirk_grounds_text(o, q, first);
        }
}

/* What keeps fixes off this link: the tx-timeout guard, and quirks written for another driver. */
static void plan_guards_show(Out *o, const NicPlan *p) {
        JsonWriter *w = out_json(o);
        char prov[512];

        out_json_u64(o, "tx_timeouts", p->tx_timeouts);
        out_json_bool(o, "tx_timeout_guard", p->tx_guard);
        out_json_bool(o, "guard_remembered", p->entry_guard_remembered);
        if (p->tx_guard) {
                char line[256];
                snprintf(line, sizeof(line), "this link had %" PRIu64 " tx timeout%s (or one was recorded this boot): "
                         "L1 stays off until reboot, whatever the profile asks", p->tx_timeouts, p->tx_timeouts == 1 ? "" : "s");
                out_text_wrapped(o, "  tx-timeout guard:", "    ", line);
        }
        if (p->entry_guard && !p->tx_guard)
                out_text_wrapped(o, "  tx-timeout guard:", "    ",
                                 "a tx timeout on this board, slot and chip is remembered from an earlier boot: entries with "
                                 "guard = tx-timeout stay withheld until r8169-tuned restore forgets it");
        out_array_begin(o, "guarded");
        for (size_t j = 0; j < p->n_guarded; j++) {
                const PlanItem *g = &p->guarded[j];
                bool entry = g->why.kind == PROVENANCE_QUIRK && g->why.quirk->guard_tx_timeout;
                plan_item_json(w, g, "tx-timeout guard: this link timed out", p->nic);
                out_text(o, "  %-9s %-21s %-16s %s (%s)\n", "guarded", knob_get(g->knob)->name, entry ? "not applied" : "stays off",
                         plan_provenance_string(&g->why, prov, sizeof(prov)),
                         entry ? "guard = tx-timeout: taken back after a tx timeout" : "not turned on: tx-timeout guard");
        }
        out_array_end(o);
        if (w) {
                json_key(w, "link_power");
                report_plan_link_power_json(w, p);
        }
        plan_link_power_text(o, p);
        /* Entries of the profile that would apply, but were written for another driver. */
        out_array_begin(o, "other_driver");
        for (size_t j = 0; j < p->n_other_driver; j++) {
                const Quirk *q = p->other_driver[j];
                char drivers[128], line[512];

                out_object_begin(o, NULL);
                out_json_str(o, "quirk", q->id);
                out_array_begin(o, "drivers");
                for (size_t k = 0; k < q->match.n_drivers; k++)
                        out_json_str(o, NULL, q->match.drivers[k]);
                out_array_end(o);
                out_json_str(o, "reason", q->reason);
                out_object_end(o);
                snprintf(line, sizeof(line), "quirk %s is written for %s; with %s bound it is not applied", q->id,
                         match_drivers_string(&q->match, drivers, sizeof(drivers)), p->nic->driver[0] ? p->nic->driver : "no driver");
                out_text_wrapped(o, "  not applied:", "    ", line);
        }
        out_array_end(o);
        /* Realtek's own drivers (r8168, r8125, r8126) have r8169 as the alternative; another vendor's NIC,
         * treated as a Realtek chip by assume-xid, has only its [device] section (ux-findings L1). */
        if (p->n_other_driver > 0 && p->nic->driver[0])
                out_text_wrapped(o, "    next:", "      ",
                              streq(p->nic->driver, "r8169") ? "see r8169-tuned.conf(5) for a [device] section that sets the knobs"
                              : strncmp(p->nic->driver, "r81", 3) == 0
                                      ? "with the kernel's r8169 driver bound instead (on Debian: apt remove r8168-dkms, then reboot) "
                                        "these fixes apply; to tune this driver, set knobs in a [device] section with match-driver "
                                        "naming it (r8169-tuned.conf(5))"
                                      : "the quirk entries are written for r8169, which does not drive this NIC: the knob lines of "
                                        "the [device] section naming it apply (r8169-tuned.conf(5))");
}

/* How to measure each suggested entry here, and how to accept them: once per entry. */
static void plan_suggestions_hint(Out *o, const NicPlan *p) {
        char line[512];

        for (size_t j = 0; j < p->n_suggested; j++) {
                const Quirk *q = p->suggested[j].why.quirk;
                bool said = false;
                for (size_t k = 0; k < j && !said; k++)
                        said = p->suggested[k].why.quirk == q;
                if (said)
                        continue;
                out_text(o, "  suggested by %s (%s): measure it on this machine with\n    %s\n", q->id,
                        doubt_label(q->reported_because),
                        quirk_experiment_line(q, nic_ifname(p->nic) ?: p->nic->slot, line, sizeof(line)));
        }
        if (p->n_suggested > 0)
                out_text(o, "    to apply them: suggestions = apply in [global] or in a [device] section\n"
                      "    naming this NIC, or the knob in a [device] section (r8169-tuned.conf(5))\n");
}

/*
 * Nothing planned for a chip the database knows (issue 45 M6): which entries are for it and why
 * each asks for nothing here, so that "nothing known" is said only where nothing is. Returns
 * how many were said.
 */
static size_t plan_entries_idle_text(Out *o, const PlanReport *r, const NicPlan *p) {
        size_t said = 0;

        if (!r->quirks || !r->machine)
                return 0;
        for (size_t i = 0; i < r->quirks->n; i++) {
                const Quirk *q = &r->quirks->quirks[i];
                NicMatch any_kernel = q->match;
                char since[24], range[64];

                any_kernel.n_kernels = 0;
                if (p->nic->xid == CHIP_XID_INVALID || !match_test(&any_kernel, p->nic, r->machine))
                        continue;
                out_text(o, "%s    %s: ", said++ == 0 ? "  nothing to change; the entries for this chip ask for nothing here:\n" : "",
                        q->id);
                if (!quirk_matches(q, p->nic, r->machine)) {
                        /* A kernel-tier entry's ranges end where r8169 took it over (quirks(5)). */
                        const KernelVersion *took_over = q->kernel_default_since.known ? &q->kernel_default_since
                                                         : q->confidence == CONFIDENCE_KERNEL && q->match.n_kernels == 1 &&
                                                                           q->match.kernels[0].to.known
                                                                   ? &q->match.kernels[0].to : NULL;
                        if (took_over && r->kernel && kernel_version_compare(r->kernel, took_over) >= 0)
                                out_text(o, "the kernel does it itself since %s\n",
                                        kernel_version_to_string(took_over, since, sizeof(since)));
                        else if (q->match.n_kernels > 0) {
                                out_text(o, "only for kernel%s", q->match.n_kernels > 1 ? "s" : "");
                                for (size_t k = 0; k < q->match.n_kernels; k++)
                                        out_text(o, "%s %s", k ? "," : "", kernel_range_to_string(&q->match.kernels[k], range, sizeof(range)));
                                out_text(o, "\n");
                        } else
                                out_text(o, "not for this kernel\n");
                } else if (!q->profiles[r->profile == PROFILE_POWERSAVE ? PROFILE_POWERSAVE : PROFILE_PERFORMANCE])
                        out_text(o, "for another profile than %s\n", profile_to_string(r->profile));
                else
                        out_text(o, "already so\n");
        }
        return said;
}

static void plan_nic_show(Out *o, const PlanReport *r, const NicPlan *p) {
        JsonWriter *w = out_json(o);
        char chip[700], hb[128];
        size_t changes = 0;

        held_back_because(r, hb, sizeof(hb));
        out_object_begin(o, NULL);
        if (w) {
                report_nic_json_members(w, p->nic);
                ignored_by_json(w, p);
        }
        out_text(o, "\n%s  %s  %s, driver %s\n", p->nic->slot, nic_ifname(p->nic) ?: "(no interface)",
                 report_chip_line(p->nic, chip, sizeof(chip)), p->nic->driver[0] ? p->nic->driver : "none");
        if (p->ignored && !w) {
                /* The text says no more of an ignored NIC; the JSON has all its members. */
                out_text(o, "  ignored (%s:%u)\n", p->ignored_by.file, p->ignored_by.line);
                out_object_end(o);
                return;
        }
        out_array_begin(o, "items");
        for (size_t j = 0; j < p->n; j++) {
                changes += p->items[j].action == PLAN_CHANGE;
                plan_item_json(w, &p->items[j], NULL, p->nic);
                plan_item_text(o, &p->items[j], p->aspm_policy);
        }
        out_array_end(o);
        /* What the profile holds back, with why: not in items, which is what apply does. */
        out_array_begin(o, "held_back");
        for (size_t j = 0; j < p->n_held; j++) {
                plan_item_json(w, &p->held[j], hb, p->nic);
                plan_other_text(o, "held back", &p->held[j], hb);
        }
        out_array_end(o);
        out_array_begin(o, "suggested");
        for (size_t j = 0; j < p->n_suggested; j++) {
                plan_item_json(w, &p->suggested[j], "reported: a suggestion, applied only with suggestions = apply", p->nic);
                plan_other_text(o, "suggest", &p->suggested[j], NULL);
        }
        out_array_end(o);
        out_object_begin(o, "suggestions");
        out_json_bool(o, "apply", p->suggestions_apply);
        out_json_str(o, "file", p->suggestions_origin.file);
        out_json_u64_or_null(o, "line", p->suggestions_origin.file, p->suggestions_origin.line);
        out_object_end(o);
        if (r->verbose)
                plan_grounds_text(o, p);
        plan_guards_show(o, p);
        out_object_end(o);
        if (w)
                return;
        if (!p->nic->chip)
                report_unknown_chip_advice(o, p->nic);
        else if (p->n == 0 && p->n_held == 0 && p->n_suggested == 0 && p->n_guarded == 0 && p->n_other_driver == 0) {
                if (r->no_quirks)
                        out_text(o, "  nothing to plan from: no quirk database was read (stderr says where it was looked for)\n");
                else if (plan_entries_idle_text(o, r, p) == 0)
                        out_text(o, "  nothing known to tune for this chip\n");
        } else if (changes == 0)
                out_text(o, "  nothing to change\n");
        if (p->n_held > 0)
                out_text(o, "  held back: what the performance profile would change here, at a cost in idle power;\n"
                      "    to have it: r8169-tuned profile performance (the running service, until it stops;\n"
                      "    with --persist for good), or r8169-tuned --profile performance apply (once, without the service)\n");
        plan_suggestions_hint(o, p);
        if (!r->verbose && plan_item_quirks(p) > 0)
                out_text(o, "  why: r8169-tuned plan --verbose %s (each quirk's reason, evidence and sources)\n",
                        nic_ifname(p->nic) ?: p->nic->slot);
}

void report_plan_show(Out *o, const PlanReport *r) {
        char kernel[24];

        out_str(o, "profile", "Profile: %s", profile_to_string(r->profile));
        out_json_str(o, "configured_profile", profile_to_string(r->from_config));
        out_json_str(o, "profile_override", r->override);
        out_json_str(o, "power_source", power_source_to_string(r->power));
        out_json_u64(o, "quirk_files", r->quirk_files);
        report_config_problems(o, r->problems ?: &(const Diagnostics) {});
        /* What chose it: --profile, or the configuration (ux-findings L3). */
        if (r->configured != r->profile)
                out_text(o, " (%s %s, power: %s)", r->override ? "--profile" : "configured", profile_to_string(r->configured),
                        power_source_to_string(r->power));
        if (r->kernel)
                out_text(o, "; kernel %s", kernel_version_to_string(r->kernel, kernel, sizeof(kernel)));
        out_text(o, "\n");
        if (r->n == 0)
                out_text(o, "No Realtek NIC found.\n");
        out_array_begin(o, "nics");
        for (size_t i = 0; i < r->n; i++)
                plan_nic_show(o, r, &r->plans[i]);
        out_array_end(o);
        /*
         * What is not in this plan for a problem, said here too, not only on stderr (ux-findings
         * L13): a configuration file with a problem as a whole, a quirk entry with one alone.
         */
        bool said = false;
        for (size_t i = 0, count = 0; r->problems && i < r->problems->n; i++) {
                const char *file = r->problems->files[i];
                count++;
                if (i + 1 < r->problems->n && file && r->problems->files[i + 1] && streq(file, r->problems->files[i + 1]))
                        continue;
                if (file && r->problems->lines[i] > 0 && !(r->quirks && strv_contains(r->quirks->files, r->quirks->n_files, file))) {
                        out_text(o, "%sNot in this plan: what %s says (%zu problem%s: r8169-tuned check-config lists them)\n",
                                said ? "" : "\n", file, count, count == 1 ? "" : "s");
                        said = true;
                }
                count = 0;
        }
        for (size_t i = 0; r->quirks && i < r->quirks->n_left_out; i++) {
                out_text(o, "%sNot in this plan: quirk entry %s (r8169-tuned check-config says why)\n", said ? "" : "\n",
                        r->quirks->left_out[i]);
                said = true;
        }
}
