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

/* Under the table: idle power, for the candidates it was measured with, or why it could not be. */
static void text_power(const Experiment *e, FILE *f, bool any_power) {
        char name[160], change[96];

        if (any_power) {
                fprintf(f, "\nIdle power (RAPL package counters, link idle, %u s per sample):\n", e->idle_seconds);
                for (size_t i = 0; i < e->n_trials; i++) {
                        const Trial *t = &e->trials[i];
                        const Comparison *c = &t->power_cmp;

                        if (!t->power || t->rounds == 0)
                                continue;
                        fprintf(f, "  %-42s %.2f W -> %.2f W, %s: %s\n", candidate_settings_string(&t->cand, name, sizeof(name)),
                                c->baseline, c->candidate, change_text(c, true, change, sizeof(change)),
                                c->change.lo > 0 ? "costs power" : c->change.hi < 0 ? "saves power" : "no measurable difference");
                }
        } else if (e->rapl.why)
                fprintf(f, "\nIdle power: not measurable here: %s.\n", e->rapl.why);
}

/* What was not measured, what "helps" means and what to do with what helped. */
static void text_footer(const Experiment *e, FILE *f, bool any_skipped) {
        char name[160], why[160];
        size_t helped = e->n_helped;

        if (any_skipped) {
                fprintf(f, "\nNot measured:");
                for (size_t i = 0, k = 0; i < e->n_trials; i++)
                        if (e->trials[i].cand.skipped)
                                fprintf(f, "%s %s (%s)", k++ ? "," : "", candidate_settings_string(&e->trials[i].cand, name, sizeof(name)),
                                        candidate_skip_reason(&e->trials[i].cand, why, sizeof(why)));
                fputc('\n', f);
        }
        fprintf(f, "\n\"helps\": the 95 %% interval excludes 0 and the change is at least %.0f %% of the baseline.\n",
                EXPERIMENT_PRACTICAL * 100);
        if (e->cut)
                fprintf(f, "Interrupted: run it again to measure every candidate in full.\n");
        else if (helped > 0)
                fprintf(f, "%zu candidate%s helped%s. --write-config FILE keeps %s; --report FILE writes the numbers and a quirk "
                        "entry draft for a bug report.\n", helped, helped == 1 ? "" : "s",
                        helped == 1 ? "" : " (each measured alone: check them together before keeping all)",
                        helped == 1 ? "it" : "them");
        else
                fprintf(f, "Nothing helped measurably on this link.\n");
}

/* The table: a line per measured candidate and direction, then idle power and the footer. */
static void results_text(const Experiment *e, FILE *f) {
        char chip[160], name[160], from[96], change[96];
        bool any_power = false, any_skipped = false;

        fprintf(f, "%s (%s), %s; iperf3 against %s:%u, %u round%s of %u s per arm and direction.\n", e->ifname, e->nic->slot,
                report_chip_line(e->nic, chip, sizeof(chip)), e->host, e->port, e->rounds, e->rounds == 1 ? "" : "s", e->seconds);
        if (e->line_mbps > 0)
                fprintf(f, "The link runs at %.0f Mb/s: a baseline at %.0f %% of that or more cannot get faster (cannot-tell).\n",
                        e->line_mbps, EXPERIMENT_LINE_RATE * 100);
        fputc('\n', f);
        fprintf(f, "%-44s %-9s %9s %9s  %-30s %s\n", "CANDIDATE (FROM)", "DIRECTION", "BASELINE", "WITH IT", "CHANGE Mb/s [95 % CI]",
                "VERDICT");
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];
                bool first = true;
                char label[256];

                if (t->cand.skipped) {
                        any_skipped = true;
                        continue;
                }
                snprintf(label, sizeof(label), "%s (%s)", candidate_settings_string(&t->cand, name, sizeof(name)),
                         results_trial_from(t, from, sizeof(from)));
                if (strlen(label) > 44 && t->rounds > 0) { /* its own line, the figures below it */
                        fprintf(f, "%s\n", label);
                        first = false;
                }
                if (t->rounds == 0) {
                        fprintf(f, "%-44s %s\n", label, t->failed[0] ? t->failed : "not measured (stopped before it)");
                        continue;
                }
                for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                        const Comparison *c = &t->cmp[d];

                        if (!e->directions[d])
                                continue;
                        fprintf(f, "%-44s %-9s %9.0f %9.0f  %-30s %s%s%s%s\n", first ? label : "", experiment_direction_names[d], c->baseline,
                                c->candidate, change_text(c, false, change, sizeof(change)), verdict_to_string(c->verdict),
                                c->why ? " (" : "", c->why ?: "", c->why ? ")" : "");
                        first = false;
                }
                if (t->failed[0])
                        fprintf(f, "%-44s stopped after %zu round%s: %s\n", "", t->rounds, t->rounds == 1 ? "" : "s", t->failed);
                any_power = any_power || t->power;
        }
        text_power(e, f, any_power);
        text_footer(e, f, any_skipped);
}

static void json_values(JsonWriter *w, const char *key, const double *v, size_t n, int decimals) {
        json_key(w, key);
        json_array_begin(w);
        for (size_t i = 0; i < n; i++)
                if (v[i] < 0)
                        json_null(w);
                else
                        json_decimal(w, v[i], decimals);
        json_array_end(w);
}

static void json_interval(JsonWriter *w, const Comparison *c, int decimals) {
        json_key(w, "ci95");
        if (isinf(c->change.lo))
                json_null(w);
        else {
                json_array_begin(w);
                json_decimal(w, c->change.lo, decimals);
                json_decimal(w, c->change.hi, decimals);
                json_array_end(w);
        }
        json_key(w, "confidence");
        json_decimal(w, c->change.confidence, 4);
}

/* "knob" and "value" as one string each ("gro_flush_timeout,napi_defer_hard_irqs", "0,0"), then each setting. */
static void json_candidate(JsonWriter *w, const Experiment *e, const Trial *t) {
        /* At most _KNOB_MAX names of under 32 and values of under KNOB_VALUE_MAX: it all fits. */
        char knobs[_KNOB_MAX * 32] = "", values[_KNOB_MAX * (KNOB_VALUE_MAX + 1)] = "";

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
        json_kv_str(w, "knob", knobs);
        json_kv_str(w, "value", values);
        json_key(w, "settings");
        json_object_begin(w);
        for (size_t i = 0; i < t->cand.n; i++) {
                json_key(w, knob_get(t->cand.settings[i].knob)->name);
                json_knob_value(w, t->cand.settings[i].knob, t->cand.settings[i].value);
        }
        json_object_end(w);
        /* The baseline's side of each setting: the NIC as found (null: partly on, as a feature set can be). */
        json_key(w, "found");
        json_object_begin(w);
        for (size_t i = 0; i < t->cand.n; i++) {
                const KnobReading *r = &e->found[t->cand.settings[i].knob];
                json_key(w, knob_get(t->cand.settings[i].knob)->name);
                if (r->status == KNOB_STATUS_OK && !r->partial)
                        json_knob_value(w, t->cand.settings[i].knob, r->value);
                else
                        json_null(w);
        }
        json_object_end(w);
        json_kv_str(w, "from", candidate_origin_to_string(t->cand.origin));
        json_kv_str(w, "quirk", t->cand.quirk ? t->cand.quirk->id : NULL);
}

static void json_arm(JsonWriter *w, const char *key, const Samples *s, size_t n, double median) {
        json_key(w, key);
        json_object_begin(w);
        json_key(w, "median_mbps");
        json_decimal(w, median, 1);
        json_values(w, "mbps", s->mbps, n, 1);
        json_values(w, "retransmits", s->retransmits, n, 0);
        json_values(w, "cpu_percent", s->cpu, n, 1);
        json_object_end(w);
}

/* Each measured candidate in each direction: both arms' samples, the change with its interval, the verdict. */
static void json_results(JsonWriter *w, const Experiment *e) {
        json_key(w, "results");
        json_array_begin(w);
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];

                if (t->cand.skipped || t->rounds == 0)
                        continue;
                for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                        const Comparison *c = &t->cmp[d];

                        if (!e->directions[d])
                                continue;
                        json_object_begin(w);
                        json_candidate(w, e, t);
                        json_kv_str(w, "direction", experiment_direction_names[d]);
                        json_kv_u64(w, "rounds", t->rounds);
                        json_arm(w, "baseline", &t->s[ARM_BASELINE][d], t->rounds, c->baseline);
                        json_arm(w, "candidate", &t->s[ARM_CANDIDATE][d], t->rounds, c->candidate);
                        json_key(w, "change_mbps");
                        json_decimal(w, c->change.estimate, 1);
                        json_key(w, "relative");
                        json_decimal(w, c->relative, 4);
                        json_interval(w, c, 1);
                        json_kv_str(w, "verdict", verdict_to_string(c->verdict));
                        json_kv_str(w, "why", c->why);
                        json_object_end(w);
                }
        }
        json_array_end(w);
}

static void json_idle_power(JsonWriter *w, const Experiment *e) {
        json_key(w, "idle_power");
        json_object_begin(w);
        json_kv_str(w, "not_measurable", e->rapl.why);
        json_key(w, "results");
        json_array_begin(w);
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];

                if (!t->power || t->rounds == 0)
                        continue;
                json_object_begin(w);
                json_candidate(w, e, t);
                json_key(w, "baseline_watts");
                json_decimal(w, t->power_cmp.baseline, 3);
                json_key(w, "candidate_watts");
                json_decimal(w, t->power_cmp.candidate, 3);
                json_key(w, "change_watts");
                json_decimal(w, t->power_cmp.change.estimate, 3);
                json_interval(w, &t->power_cmp, 3);
                json_object_end(w);
        }
        json_array_end(w);
        json_object_end(w);
}

static void json_not_measured(JsonWriter *w, const Experiment *e) {
        char why[160];

        json_key(w, "not_measured");
        json_array_begin(w);
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];

                if (!t->cand.skipped && t->rounds > 0)
                        continue;
                json_object_begin(w);
                json_candidate(w, e, t);
                json_kv_str(w, "why", t->cand.skipped ? candidate_skip_reason(&t->cand, why, sizeof(why))
                                                      : t->failed[0] ? t->failed : "stopped before it");
                json_object_end(w);
        }
        json_array_end(w);
}

static void results_json(const Experiment *e, FILE *f) {
        JsonWriter w = json_writer(f);
        char kernel[32], server[300];

        json_object_begin(&w);
        json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
        json_key(&w, "nic");
        json_object_begin(&w);
        report_nic_json_members(&w, e->nic);
        json_object_end(&w);
        json_kv_str(&w, "kernel", kernel_version_to_string(&e->c.machine.kernel, kernel, sizeof(kernel)));
        snprintf(server, sizeof(server), "%s:%u", e->host, e->port);
        json_kv_str(&w, "server", server);
        json_kv_u64(&w, "rounds", e->rounds);
        json_kv_u64(&w, "seconds", e->seconds);
        json_key(&w, "practical_size");
        json_decimal(&w, EXPERIMENT_PRACTICAL, 2);
        json_key(&w, "line_rate_mbps");
        if (e->line_mbps > 0)
                json_u64(&w, (uint64_t) e->line_mbps);
        else
                json_null(&w);
        json_results(&w, e);
        json_idle_power(&w, e);
        json_not_measured(&w, e);
        json_object_end(&w);
        json_end(&w);
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
        if (e->o->json)
                results_json(e, stdout);
        else
                results_text(e, stdout);
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
        results_text(e, stdout);
}
