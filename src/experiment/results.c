/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the experiment found, said four ways from the same trials: the table (and, on Ctrl-C,
 * the part measured), JSON (schema 1), the configuration drop-in of what helped
 * (--write-config) and the Markdown report with a quirk entry draft (--report). Files are
 * written whole or not at all.
 */
#include <ctype.h>
#include <math.h>
#include <time.h>

#include "base/json.h"
#include "base/log.h"
#include "experiment/results.h"
#include "show/out.h"
#include "show/quirks.h"
#include "show/report.h"

const char *results_trial_from(const Trial *t, char *buf, size_t size) {
        if (t->cand.quirk)
                snprintf(buf, size, "quirk %s", t->cand.quirk->id);
        else
                snprintf(buf, size, "%s", candidate_origin_to_string(t->cand.origin));
        return buf;
}

/* "+414 (+162 %) [+409, +419]" in Mb/s, or "+0.40 W (+20 %) [+0.38, +0.42]". */
static const char *change_text(const Comparison *c, bool watts, char *buf, size_t size) {
        int decimals = watts ? 2 : 0;
        char rel[32] = "";

        if (c->baseline > 0)
                snprintf(rel, sizeof(rel), " (%+.0f %%)", c->relative * 100);
        if (isinf(c->change.lo))
                snprintf(buf, size, "%+.*f%s%s", decimals, c->change.estimate, watts ? " W" : "", rel);
        else
                snprintf(buf, size, "%+.*f%s%s [%+.*f, %+.*f]", decimals, c->change.estimate, watts ? " W" : "", rel, decimals,
                         c->change.lo, decimals, c->change.hi);
        return buf;
}

/* A JSON row's candidate: "knob" and "value" as one string each ("gro_flush_timeout,napi_defer_hard_irqs",
 * "0,0"), each setting, and the baseline's side of each (null: partly on, as a feature set can be). */
static void json_candidate(Out *o, const Experiment *e, const Trial *t) {
        /* At most _KNOB_MAX names of under 32 and values of under KNOB_VALUE_MAX: it all fits. */
        char knobs[_KNOB_MAX * 32] = "", values[_KNOB_MAX * (KNOB_VALUE_MAX + 1)] = "";

        if (!o->json)
                return;
        for (size_t i = 0; i < t->cand.n; i++) {
                char v[KNOB_VALUE_MAX];
                if (i > 0) {
                        strcat(knobs, ",");
                        strcat(values, ",");
                }
                strncat(knobs, knob_get(t->cand.settings[i].knob)->name, 30);
                strncat(values, knob_format_value(t->cand.settings[i].knob, t->cand.settings[i].value, v, sizeof(v)),
                        KNOB_VALUE_MAX - 1);
        }
        out_json_str(o, "knob", knobs);
        out_json_str(o, "value", values);
        out_object_begin(o, "settings");
        for (size_t i = 0; i < t->cand.n; i++)
                out_json_knob(o, knob_get(t->cand.settings[i].knob)->name, t->cand.settings[i].knob, t->cand.settings[i].value);
        out_object_end(o);
        out_object_begin(o, "found");
        for (size_t i = 0; i < t->cand.n; i++) {
                const KnobReading *r = &e->found[t->cand.settings[i].knob];
                if (r->status == KNOB_STATUS_OK && !r->partial)
                        out_json_knob(o, knob_get(t->cand.settings[i].knob)->name, t->cand.settings[i].knob, r->value);
                else
                        out_json_str(o, knob_get(t->cand.settings[i].knob)->name, NULL);
        }
        out_object_end(o);
        out_json_str(o, "from", candidate_origin_to_string(t->cand.origin));
        out_json_str(o, "quirk", t->cand.quirk ? t->cand.quirk->id : NULL);
}

/* The change's 95 % interval (null without one) and its confidence: JSON's; the text has them in change_text(). */
static void json_interval(Out *o, const Comparison *c, int decimals) {
        JsonWriter *w = out_json(o);

        if (!w)
                return;
        json_key(w, "ci95");
        if (isinf(c->change.lo))
                json_null(w);
        else {
                json_array_begin(w);
                json_decimal(w, c->change.lo, decimals);
                json_decimal(w, c->change.hi, decimals);
                json_array_end(w);
        }
        out_json_decimal(o, "confidence", c->change.confidence, 4);
}

/* One arm of a row: its median (the text's column), then each round's samples (-1: null), JSON's. */
static void arm_show(Out *o, const char *key, const Samples *s, size_t n, double median) {
        static const char *const keys[] = { "mbps", "retransmits", "cpu_percent" };
        const double *v[] = { s->mbps, s->retransmits, s->cpu };
        JsonWriter *w = out_json(o);

        out_object_begin(o, key);
        out_decimal(o, "median_mbps", 1, "%9.0f ", median);
        for (size_t k = 0; w && k < ELEMENTSOF(keys); k++) {
                json_key(w, keys[k]);
                json_array_begin(w);
                for (size_t i = 0; i < n; i++)
                        if (v[k][i] < 0)
                                json_null(w);
                        else
                                json_decimal(w, v[k][i], k == 1 ? 0 : 1);
                json_array_end(w);
        }
        out_object_end(o);
}

/* A measured candidate: a row per direction (the table's line, JSON's object), then why it stopped early. */
static void trial_show(Out *o, const Experiment *e, const Trial *t) {
        char name[160], from[96], change[96], label[256];
        bool first = true;

        snprintf(label, sizeof(label), "%s (%s)", candidate_settings_string(&t->cand, name, sizeof(name)),
                 results_trial_from(t, from, sizeof(from)));
        if (strlen(label) > 44) { /* its own line, the figures below it */
                out_text(o, "%s\n", label);
                first = false;
        }
        for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                const Comparison *c = &t->cmp[d];

                if (!e->directions[d])
                        continue;
                out_object_begin(o, NULL);
                json_candidate(o, e, t);
                out_text(o, "%-44s ", first ? label : "");
                out_str(o, "direction", "%-9s ", experiment_direction_names[d]);
                out_json_u64(o, "rounds", t->rounds);
                arm_show(o, "baseline", &t->s[ARM_BASELINE][d], t->rounds, c->baseline);
                arm_show(o, "candidate", &t->s[ARM_CANDIDATE][d], t->rounds, c->candidate);
                out_text(o, " %-30s ", change_text(c, false, change, sizeof(change)));
                out_json_decimal(o, "change_mbps", c->change.estimate, 1);
                out_json_decimal(o, "relative", c->relative, 4);
                json_interval(o, c, 1);
                out_str(o, "verdict", "%s", verdict_to_string(c->verdict));
                out_str(o, "why", " (%s)", c->why);
                out_text(o, "\n");
                out_object_end(o);
                first = false;
        }
        if (t->failed[0])
                out_text(o, "%-44s stopped after %zu round%s: %s\n", "", t->rounds, t->rounds == 1 ? "" : "s", t->failed);
}

/* Idle power, for the candidates it was measured with (t->power: never where RAPL is not measurable), or why not. */
static void idle_power_show(Out *o, const Experiment *e, bool any_power) {
        char name[160], change[96];

        out_object_begin(o, "idle_power");
        out_str(o, "not_measurable", "\nIdle power: not measurable here: %s.\n", e->rapl.why);
        if (any_power)
                out_text(o, "\nIdle power (RAPL package counters, link idle, %u s per sample):\n", e->idle_seconds);
        out_array_begin(o, "results");
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];
                const Comparison *c = &t->power_cmp;

                if (!t->power || t->rounds == 0)
                        continue;
                out_object_begin(o, NULL);
                json_candidate(o, e, t);
                out_text(o, "  %-42s ", candidate_settings_string(&t->cand, name, sizeof(name)));
                out_decimal(o, "baseline_watts", 3, "%.2f W -> ", c->baseline);
                out_decimal(o, "candidate_watts", 3, "%.2f W, ", c->candidate);
                out_json_decimal(o, "change_watts", c->change.estimate, 3);
                json_interval(o, c, 3);
                out_text(o, "%s: %s\n", change_text(c, true, change, sizeof(change)),
                         c->change.lo > 0 ? "costs power" : c->change.hi < 0 ? "saves power" : "no measurable difference");
                out_object_end(o);
        }
        out_array_end(o);
        out_object_end(o);
}

/* What was not measured: the text lists the skipped (the table has those stopped before them), JSON both. */
static void not_measured_show(Out *o, const Experiment *e) {
        char name[160], why[160];
        size_t k = 0;

        out_array_begin(o, "not_measured");
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];
                const char *reason = t->cand.skipped ? candidate_skip_reason(&t->cand, why, sizeof(why))
                                                     : t->failed[0] ? t->failed : "stopped before it";

                if (!t->cand.skipped && t->rounds > 0)
                        continue;
                out_object_begin(o, NULL);
                json_candidate(o, e, t);
                out_json_str(o, "why", reason);
                out_object_end(o);
                if (t->cand.skipped)
                        out_text(o, "%s %s (%s)", k++ ? "," : "\nNot measured:", candidate_settings_string(&t->cand, name, sizeof(name)),
                                 reason);
        }
        out_array_end(o);
        if (k > 0)
                out_text(o, "\n");
}

/* What "helps" means and what to do with what helped: the text's. */
static void footer_show(Out *o, const Experiment *e) {
        size_t helped = e->n_helped;

        if (o->json)
                return;
        out_text(o, "\n\"helps\": the 95 %% interval excludes 0 and the change is at least %.0f %% of the baseline.\n",
                 EXPERIMENT_PRACTICAL * 100);
        if (e->cut)
                out_text(o, "Interrupted: run it again to measure every candidate in full.\n");
        else if (helped > 0)
                out_text(o, "%zu candidate%s helped%s. --write-config FILE keeps %s; --report FILE writes the numbers and a quirk "
                         "entry draft for a bug report.\n", helped, helped == 1 ? "" : "s",
                         helped == 1 ? "" : " (each measured alone: check them together before keeping all)",
                         helped == 1 ? "it" : "them");
        else
                out_text(o, "Nothing helped measurably on this link.\n");
}

/* The whole output, one walk: the run, a table line (a JSON row) per measured candidate and direction, idle power,
 * what was not measured, the footer. */
static void results_show(const Experiment *e, FILE *f, bool json) {
        char chip[160], kernel[32], server[300];
        bool any_power = false;
        Out o;

        out_document_begin(&o, f, json);
        out_text(&o, "%s (%s), %s; ", e->ifname, e->nic->slot, report_chip_line(e->nic, chip, sizeof(chip)));
        if (json) {
                out_object_begin(&o, "nic");
                report_nic_json_members(out_json(&o), e->nic);
                out_object_end(&o);
        }
        out_json_str(&o, "kernel", kernel_version_to_string(&e->c.machine.kernel, kernel, sizeof(kernel)));
        snprintf(server, sizeof(server), "%s:%u", e->host, e->port);
        out_str(&o, "server", "iperf3 against %s, ", server);
        out_u64(&o, "rounds", "%" PRIu64 " round", e->rounds);
        out_text(&o, "%s", e->rounds == 1 ? "" : "s");
        out_u64(&o, "seconds", " of %" PRIu64 " s per arm and direction.\n", e->seconds);
        out_json_decimal(&o, "practical_size", EXPERIMENT_PRACTICAL, 2);
        if (e->line_mbps > 0)
                out_u64(&o, "line_rate_mbps", "The link runs at %" PRIu64 " Mb/s: ", (uint64_t) e->line_mbps);
        else
                out_json_str(&o, "line_rate_mbps", NULL);
        if (e->line_mbps > 0)
                out_text(&o, "a baseline at %.0f %% of that or more cannot get faster (cannot-tell).\n", EXPERIMENT_LINE_RATE * 100);
        out_text(&o, "\n%-44s %-9s %9s %9s  %-30s %s\n", "CANDIDATE (FROM)", "DIRECTION", "BASELINE", "WITH IT",
                 "CHANGE Mb/s [95 % CI]", "VERDICT");
        out_array_begin(&o, "results");
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];
                char name[160], from[96], label[256];

                if (t->cand.skipped)
                        continue;
                if (t->rounds == 0) {
                        snprintf(label, sizeof(label), "%s (%s)", candidate_settings_string(&t->cand, name, sizeof(name)),
                                 results_trial_from(t, from, sizeof(from)));
                        out_text(&o, "%-44s %s\n", label, t->failed[0] ? t->failed : "not measured (stopped before it)");
                        continue;
                }
                trial_show(&o, e, t);
                any_power = any_power || t->power;
        }
        out_array_end(&o);
        idle_power_show(&o, e, any_power);
        not_measured_show(&o, e);
        footer_show(&o, e);
        out_document_end(&o);
}

/* One line of numbers per direction, for the drop-in's comments and the quirk draft's evidence. */
void results_numbers_line(const Experiment *e, const Trial *t, FILE *f, const char *prefix) {
        char change[96];

        for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                const Comparison *c = &t->cmp[d];

                if (!e->directions[d])
                        continue;
                fprintf(f, "%s%s %.0f -> %.0f Mb/s, %s, %s\n", prefix, experiment_direction_names[d], c->baseline, c->candidate,
                        change_text(c, false, change, sizeof(change)), verdict_to_string(c->verdict));
        }
        if (t->power)
                fprintf(f, "%sidle power %.2f -> %.2f W, %s\n", prefix, t->power_cmp.baseline, t->power_cmp.candidate,
                        change_text(&t->power_cmp, true, change, sizeof(change)));
}

/* Written whole or not at all, said either way. */
static int write_output(const char *path, void (*writer)(FILE *f, const void *userdata), const Experiment *e) {
        int r = write_file_atomic(path, 0644, writer, e);
        if (r < 0)
                return log_error_errno(r, "Cannot write %s: %s.", path, write_file_refusal(r));
        return 0;
}

static void today(char *buf, size_t size) {
        time_t now = time(NULL);
        struct tm tm;

        if (!localtime_r(&now, &tm) || strftime(buf, size, "%Y-%m-%d", &tm) == 0)
                snprintf(buf, size, "today");
}

/* "knob = value" for each setting of what helped: the drop-in's and the quirk draft's. */
static void print_helped_settings(const Experiment *e, FILE *f) {
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];

                if (!t->helped)
                        continue;
                for (size_t k = 0; k < t->cand.n; k++) {
                        char v[KNOB_VALUE_MAX];
                        fprintf(f, "%s = %s\n", knob_get(t->cand.settings[k].knob)->name,
                                knob_format_value(t->cand.settings[k].knob, t->cand.settings[k].value, v, sizeof(v)));
                }
        }
}

/* Each candidate that helped, "HEAD<candidate>:", then its numbers, each line after PREFIX. */
static void print_helped_numbers(const Experiment *e, FILE *f, const char *head, const char *prefix) {
        char name[160];

        for (size_t i = 0; i < e->n_trials; i++)
                if (e->trials[i].helped) {
                        fprintf(f, "%s%s:\n", head, candidate_settings_string(&e->trials[i].cand, name, sizeof(name)));
                        results_numbers_line(e, &e->trials[i], f, prefix);
                }
}

static void write_config(FILE *f, const void *userdata) {
        const Experiment *e = userdata;
        char chip[160], kernel[32], date[32];

        today(date, sizeof(date));
        fprintf(f, "# Written by \"r8169-tuned experiment\" on %s: what helped %s (%s, %s) on kernel %s,\n"
                "# measured against %s:%u (%u rounds of %u s each). Only what helped: a 95 %% interval\n"
                "# above 0 and at least %.0f %% faster in one direction, and not as clearly slower in the other.\n",
                date, e->ifname, e->nic->slot, report_chip_line(e->nic, chip, sizeof(chip)),
                kernel_version_to_string(&e->c.machine.kernel, kernel, sizeof(kernel)), e->host, e->port, e->rounds, e->seconds,
                EXPERIMENT_PRACTICAL * 100);
        print_helped_numbers(e, f, "#\n# ", "#   ");
        fprintf(f, "\n[device experiment]\nmatch-slot = %s\n", e->nic->slot);
        print_helped_settings(e, f);
}

static void report_quirk_draft(const Experiment *e, FILE *f) {
        bool costs_power = false;
        char kernel[32], id[65];

        for (size_t i = 0; i < e->n_trials; i++)
                if (e->trials[i].helped)
                        /* Measured where RAPL counters exist; a link power change is assumed to cost where not. */
                        costs_power = costs_power || (e->trials[i].power ? e->trials[i].power_cmp.change.lo > 0
                                                                          : e->trials[i].cand.link_power);
        fprintf(f, "\n## Quirk entry draft\n\n");
        if (e->n_helped == 0) {
                fprintf(f, "Nothing helped measurably: no entry to propose.\n");
                return;
        }
        fprintf(f, "For conf/quirks.d/ (r8169-tuned-quirks(5)); `r8169-tuned check-config FILE` checks it. Say in the\n"
                "reason what is known of why, and replace the reference with this report's address. Numbers before\n"
                "and after on a named machine are what confidence = measured asks for.\n");
        for (size_t i = 0; i < e->n_trials; i++) {
                const Quirk *q = e->trials[i].cand.quirk;
                if (e->trials[i].helped && q && quirk_is_suggestion(q))
                        fprintf(f, "\nThis measures the suggestion %s (confidence reported): with these numbers as its\n"
                                "evidence it can become confidence measured, applied in its profiles without suggestions = apply.\n",
                                q->id);
        }
        fprintf(f, "\n```ini\n");
        /* A quirk id is letters, digits, '-', '_' and '.': "RTL8168h/8111h" becomes measured-rtl8168h-8111h. */
        snprintf(id, sizeof(id), "measured-%s", e->nic->chip ? e->nic->chip->name : "unknown-chip");
        for (char *p = id; *p; p++)
                *p = isalnum((unsigned char) *p) || *p == '.' || *p == '_' ? (char) tolower((unsigned char) *p) : '-';
        fprintf(f, "[%s]\n", id);
        fprintf(f, "confidence = measured\n");
        if (e->nic->xid2 != CHIP_XID2_INVALID)
                fprintf(f, "match-xid = ext:%x\n", e->nic->xid2);
        else if (e->nic->xid != CHIP_XID_INVALID)
                fprintf(f, "match-xid = %03x/%s\n", e->nic->xid, (e->nic->xid & ~0x7cfu) ? "fff" : "7cf");
        fprintf(f, "match-pci-id = %04x:%04x\n", e->nic->vendor, e->nic->device);
        /* What costs idle power is a throughput fix: performance only (balanced on AC). */
        fprintf(f, "profiles = %s\n", costs_power ? "performance" : "performance powersave");
        print_helped_settings(e, f);
        fprintf(f, "reason = Measured faster with the values above by r8169-tuned experiment (why: to be said).\n");
        fprintf(f, "evidence = %s %s, %s, kernel %s, iperf3, %u rounds of %u s,\n", e->c.machine.dmi[DMI_SYS_VENDOR],
                e->c.machine.dmi[DMI_PRODUCT_NAME], e->nic->chip ? e->nic->chip->name : "unknown chip",
                kernel_version_to_string(&e->c.machine.kernel, kernel, sizeof(kernel)), e->rounds, e->seconds);
        fprintf(f, "  median change with its 95 %% interval:\n");
        print_helped_numbers(e, f, "  ", "    ");
        fprintf(f, "reference = %s\n```\n", R8T_ISSUES_URL);
}

/* The median of the rounds that reported a value (-1: not reported), as text. */
static const char *known_median(const double *v, size_t n, char *buf, size_t size) {
        double known[EXPERIMENT_ROUNDS_MAX];
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (v[i] >= 0)
                        known[k++] = v[i];
        if (k == 0)
                snprintf(buf, size, "n/a");
        else
                snprintf(buf, size, "%.0f", stats_median(known, k));
        return buf;
}

static void write_report(FILE *f, const void *userdata) {
        const Experiment *e = userdata;
        char chip[160], kernel[32], name[160], from[96], change[96], date[32];

        today(date, sizeof(date));
        fprintf(f, "# r8169-tuned experiment: %s, %s\n\n", e->ifname, report_chip_line(e->nic, chip, sizeof(chip)));
        fprintf(f, "## Machine\n\n| | |\n|---|---|\n");
        fprintf(f, "| Machine | %s %s (%s) |\n", e->c.machine.dmi[DMI_SYS_VENDOR], e->c.machine.dmi[DMI_PRODUCT_NAME],
                e->c.machine.dmi[DMI_PRODUCT_FAMILY][0] ? e->c.machine.dmi[DMI_PRODUCT_FAMILY] : "no family");
        fprintf(f, "| Board | %s %s |\n", e->c.machine.dmi[DMI_BOARD_VENDOR], e->c.machine.dmi[DMI_BOARD_NAME]);
        fprintf(f, "| Kernel | %s (%s) |\n", kernel_version_to_string(&e->c.machine.kernel, kernel, sizeof(kernel)),
                e->c.machine.kernel_source);
        fprintf(f, "| NIC | %s, %s, PCI %04x:%04x rev %02x, subsystem %04x:%04x, driver %s |\n", e->ifname, e->nic->slot,
                e->nic->vendor, e->nic->device, e->nic->revision, e->nic->subsys_vendor, e->nic->subsys_device,
                e->nic->driver[0] ? e->nic->driver : "none");
        fprintf(f, "| Chip | %s |\n", chip);
        if (e->line_mbps > 0)
                fprintf(f, "| Link | %.0f Mb/s |\n", e->line_mbps);
        fprintf(f, "| Date | %s, r8169-tuned %s |\n", date, R8T_VERSION);
        fprintf(f, "\n## Method\n\niperf3 (TCP) against a server on the other end of the link, through %s, %u round%s per\ncandidate; in each round the\n"
                "baseline (the NIC as found) and the candidate in random order, %u s per test and direction. The change is\n"
                "the Hodges-Lehmann median difference (candidate - baseline) with its 95 %% interval (Mann-Whitney);\n"
                "\"helps\" needs the interval above 0 and at least %.0f %% of the baseline.\n",
                e->ifname, e->rounds, e->rounds == 1 ? "" : "s", e->seconds, EXPERIMENT_PRACTICAL * 100);
        fprintf(f, "\n## Results\n\n| Candidate | From | Direction | Baseline Mb/s | With it Mb/s | Change [95 %% CI] | "
                "Retransmits | CPU %% | Verdict |\n|---|---|---|---:|---:|---|---:|---:|---|\n");
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];

                if (t->cand.skipped || t->rounds == 0)
                        continue;
                for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                        const Comparison *c = &t->cmp[d];

                        if (!e->directions[d])
                                continue;
                        char rb[16], rc[16], cb[16], cc[16];

                        fprintf(f, "| `%s` | %s | %s | %.0f | %.0f | %s | %s -> %s | %s -> %s | %s |\n",
                                candidate_settings_string(&t->cand, name, sizeof(name)), results_trial_from(t, from, sizeof(from)),
                                experiment_direction_names[d], c->baseline, c->candidate, change_text(c, false, change, sizeof(change)),
                                known_median(t->s[ARM_BASELINE][d].retransmits, t->rounds, rb, sizeof(rb)),
                                known_median(t->s[ARM_CANDIDATE][d].retransmits, t->rounds, rc, sizeof(rc)),
                                known_median(t->s[ARM_BASELINE][d].cpu, t->rounds, cb, sizeof(cb)),
                                known_median(t->s[ARM_CANDIDATE][d].cpu, t->rounds, cc, sizeof(cc)), verdict_to_string(c->verdict));
                }
        }
        fprintf(f, "\n## Idle power\n\n");
        if (e->rapl.why)
                fprintf(f, "Not measurable here: %s.\n", e->rapl.why);
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];
                if (t->power && t->rounds > 0)
                        fprintf(f, "- `%s`: %.2f W -> %.2f W, %s\n", candidate_settings_string(&t->cand, name, sizeof(name)),
                                t->power_cmp.baseline, t->power_cmp.candidate, change_text(&t->power_cmp, true, change, sizeof(change)));
        }
        report_quirk_draft(e, f);
}

void results_output(Experiment *e) {
        results_show(e, stdout, e->o->json);
        if (e->o->write_config) {
                /* The configuration's own drop-in directory, made now if it is missing; elsewhere, to be copied there. */
                bool dropin = experiment_dropin_dir(e->o, e->o->write_config, e->n_helped > 0) == 0;
                if (e->n_helped == 0)
                        log_notice("Nothing helped: %s not written.", e->o->write_config);
                else if (write_output(e->o->write_config, write_config, e) < 0)
                        ;
                else if (dropin)
                        log_notice("Written %s: \"systemctl reload r8169-tuned\" (or apply, without the service) puts it in force.",
                                   e->o->write_config);
                else
                        log_notice("Written %s: copy it to %s.d/ to keep what helped.", e->o->write_config,
                                   e->o->config ?: CONFIG_DEFAULT_PATH);
        }
        if (e->o->report && write_output(e->o->report, write_report, e) >= 0)
                log_notice("Written %s.", e->o->report);
}

/* Ctrl-C: what was measured so far, a candidate cut short marked so (as iperf3 prints its
 * totals on Ctrl-C; ux-findings L12). Nothing is written: a cut run keeps nothing. */
void results_interrupted(Experiment *e) {
        e->cut = true;
        for (size_t i = 0; i < e->n_trials; i++) {
                Trial *t = &e->trials[i];
                if (t->rounds > 0 && t->rounds < e->rounds && !t->failed[0])
                        snprintf(t->failed, sizeof(t->failed), "interrupted");
                else if (t->rounds == 0 && i + 1 == e->running)
                        snprintf(t->failed, sizeof(t->failed), "interrupted in its first round");
        }
        experiment_compare_trials(e);
        printf("Interrupted: what was measured before it, incomplete (nothing was written).\n");
        results_show(e, stdout, false);
}
