/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <limits.h>

#include "base/log.h"
#include "client/service.h"
#include "commands/commands.h"
#include "decide/kernel-defaults.h"
#include "show/report.h"

int cmd_plan(const Options *o) {
        _cleanup_free_ NicPlan *plans = NULL;
        _cleanup_free_ bool *selected = NULL;
        Context c;
        size_t n = 0;
        int ret = 1;

        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        (void) service_follow_profile(&c, NULL);
        plans = calloc(c.nics.n + 1, sizeof(NicPlan));
        if (!plans)
                goto out;
        for (size_t i = 0; i < c.nics.n; i++) {
                KnobReading current[_KNOB_MAX];
                if (!selected[i])
                        continue;
                context_plan_nic(&c, &c.nics.nics[i], current, &plans[n++]);
        }
        PlanReport r = { .configured = context_configured_profile(&c),
                         .from_config = c.config.profile, .override = o->profile,
                         .profile = c.profile, .power = c.machine.power, .kernel = &c.machine.kernel, .plans = plans, .n = n,
                         .no_quirks = c.quirks.n_files == 0, .verbose = o->verbose,
                         .quirk_files = c.quirks.n_files, .problems = &c.problems,
                         .quirks = &c.quirks, .machine = &c.machine };
        if (o->json)
                report_plan_json(stdout, &r);
        else
                report_plan_text(stdout, &r);
        /* A plan without any quirk database is no answer (ux-findings L8): the problem is said, exit 1. */
        ret = r.no_quirks ? 1 : 0;
out:
        context_done(&c);
        return ret;
}

/* A [device] section that matches no NIC here: a warning line, or {"file", "line", "section"}. */
static void unmatched_section(const Context *c, const Machine *machine, const ConfigDevice *dev, JsonWriter *w) {
        for (size_t k = 0; k < c->nics.n; k++)
                if (config_device_matches(dev, &c->nics.nics[k], machine))
                        return;
        if (w) {
                json_object_begin(w);
                json_kv_str(w, "file", dev->origin.file);
                json_kv_u64(w, "line", dev->origin.line);
                json_kv_str(w, "section", dev->name);
                json_object_end(w);
                return;
        }
        printf("%s:%u: warning: [device %s] matches no NIC here", dev->origin.file, dev->origin.line, dev->name);
        for (size_t k = 0; k < c->nics.n; k++) {
                char chip[700];
                printf("%s %s %s (%s)", k == 0 ? "; the NICs are" : ",", c->nics.nics[k].slot,
                       nic_ifname(&c->nics.nics[k]) ?: "-", report_chip_line(&c->nics.nics[k], chip, sizeof(chip)));
        }
        printf("%s\n", c->nics.n == 0 ? "; there is no Realtek NIC" : "");
}

/* What check-config says beside the problems: the files it read, and [device] sections that match
 * no NIC of this machine (a typo in a glob passes every check otherwise). As text, or as the members
 * "files" and "unmatched_sections" of w's object. */
static void check_config_here(const Options *o, const Config *config, const QuirkDb *quirks, JsonWriter *w) {
        Context c;
        Machine machine;

        if (w) {
                json_key(w, "files");
                json_array_begin(w);
                for (size_t i = 0; i < config->n_files; i++)
                        json_str(w, config->files[i]);
                for (size_t i = 0; i < quirks->n_files; i++)
                        json_str(w, quirks->files[i]);
                json_array_end(w);
                json_key(w, "unmatched_sections");
                json_array_begin(w);
        } else {
                if (config->n_files == 0)
                        printf("No configuration file at %s (nor drop-ins in %s.d): the defaults apply\n",
                               o->config ?: CONFIG_DEFAULT_PATH, o->config ?: CONFIG_DEFAULT_PATH);
                for (size_t i = 0; i < config->n_files; i++)
                        printf("Read %s\n", config->files[i]);
                for (size_t i = 0; i < quirks->n_files; i++)
                        printf("Read %s\n", quirks->files[i]);
        }
        if (context_open(&c, o, false) >= 0) {
                machine_read(c.root, o->kernel_release, &machine);
                for (size_t i = 0; i < config->n_devices; i++)
                        unmatched_section(&c, &machine, &config->devices[i], w);
        }
        context_done(&c);
        if (w)
                json_array_end(w);
}

/* Exactly the files named: a file in a quirks.d directory is a quirk file, any other configuration. */
static int check_files_named(const Options *o, QuirkDb *quirks, Diagnostics *d, size_t *n_conf) {
        _cleanup_free_ const char **qfiles = calloc((size_t) o->n_args, sizeof(char *));
        size_t nq = 0;

        if (!qfiles)
                return log_oom();
        for (int i = 0; i < o->n_args; i++) {
                _cleanup_free_ char *copy = strdup(o->args[i]);
                const char *slash = copy ? strrchr(copy, '/') : NULL;
                bool quirk = false;

                if (slash) {
                        *(char *) slash = '\0';
                        const char *parent = strrchr(copy, '/');
                        quirk = streq(parent ? parent + 1 : copy, "quirks.d");
                }
                if (quirk)
                        qfiles[nq++] = o->args[i];
                else {
                        Config one;
                        (void) config_load_file(&one, o->args[i], d);
                        *n_conf += one.n_files;
                        config_done(&one);
                }
        }
        if (nq > 0) {
                (void) quirk_db_load_files(quirks, qfiles, nq, d);
                quirk_db_lint(quirks, d);
        }
        diag_sort(d);
        return 0;
}

int cmd_check_config(const Options *o) {
        JsonWriter json = json_writer(stdout), *w = o->json ? &json : NULL;
        Diagnostics d = {};
        Config config;
        QuirkDb quirks = {};
        size_t n_conf = 0;
        int ret = 1;

        config_defaults(&config);
        /* Read before the JSON begins: a failure here is said by the error object, not inside a half document. */
        if (o->n_args > 0 && check_files_named(o, &quirks, &d, &n_conf) < 0)
                goto out;
        if (w) {
                json_object_begin(w);
                json_kv_u64(w, "schema", REPORT_JSON_SCHEMA);
        }
        if (o->n_args > 0) {
                if (w) {
                        json_key(w, "files");
                        json_array_begin(w);
                        for (int i = 0; i < o->n_args; i++)
                                json_str(w, o->args[i]);
                        json_array_end(w);
                        json_key(w, "unmatched_sections"); /* not looked for in files named alone */
                        json_array_begin(w);
                        json_array_end(w);
                }
        } else {
                context_check_policy(o, &config, &quirks, &d);
                n_conf = config.n_files;
                check_config_here(o, &config, &quirks, w);
        }
        ret = d.n > 0;
        if (w) {
                json_kv_bool(w, "ok", d.n == 0);
                json_kv_u64(w, "configuration_files", n_conf);
                json_kv_u64(w, "quirk_entries", quirks.n);
                json_kv_u64(w, "quirk_files", quirks.n_files);
                report_config_problems_json(w, &d);
                json_object_end(w);
                json_end(w);
        } else if (d.n > 0) {
                diag_print(&d, stderr);
                fprintf(stderr, "%zu problem%s found.\n", d.n, d.n == 1 ? "" : "s");
        } else
                printf("OK: %zu configuration file%s, %zu quirk entr%s in %zu file%s.\n", n_conf,
                       n_conf == 1 ? "" : "s", quirks.n, quirks.n == 1 ? "y" : "ies", quirks.n_files,
                       quirks.n_files == 1 ? "" : "s");
out:
        diag_done(&d);
        config_done(&config);
        quirk_db_done(&quirks);
        return ret;
}

int cmd_quirks(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        JsonWriter w = json_writer(stdout);
        Context c;
        bool first = true;
        int ret = 1;

        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        if (o->json) {
                json_object_begin(&w);
                json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
                json_key(&w, "quirks");
                json_array_begin(&w);
        }
        for (size_t i = 0; i < c.quirks.n; i++) {
                const Quirk *q = &c.quirks.quirks[i];
                bool show = o->n_args == 0;
                for (size_t k = 0; k < c.nics.n && !show; k++)
                        show = selected[k] && quirk_matches(q, &c.nics.nics[k], &c.machine);
                if (!show)
                        continue;
                if (o->json)
                        report_quirk_json(&w, q);
                else {
                        if (!first)
                                fputc('\n', stdout);
                        report_quirk_text(stdout, q);
                }
                first = false;
        }
        if (o->json) {
                json_array_end(&w);
                json_object_end(&w);
                json_end(&w);
        } else if (first)
                puts(o->n_args ? "No quirk matches." : "The quirk database is empty.");
        ret = 0;
out:
        context_done(&c);
        return ret;
}

/* One row as text: the knob, what r8169 leaves there, since when, why, and where it says so. */
static void kernel_default_text(FILE *f, const KernelDefault *row, bool releases) {
        char line[1024];

        fprintf(f, "  %-21s %-6s [%s]%s%s\n", row->knob, row->value, row->id, row->unless ? " unless " : "", row->unless ?: "");
        if (releases)
                report_print_wrapped(f, "    releases:", "      ", kernel_default_releases(row, line, sizeof(line)));
        snprintf(line, sizeof(line), "%s%s%s%s", row->commit ?: "-", row->landed ? " (" : "", row->landed ?: "",
                 row->landed ? ")" : "");
        report_print_wrapped(f, "    change:", "      ", line);
        if (row->note)
                report_print_wrapped(f, "    what:", "      ", row->note);
        report_print_wrapped(f, "    see:", "      ", row->source);
}

static void kernel_default_json(JsonWriter *w, const KernelDefault *row) {
        char macs[400], kernels[400];

        json_object_begin(w);
        json_kv_str(w, "id", row->id);
        json_kv_str(w, "knob", row->knob);
        json_kv_str(w, "value", row->value);
        json_kv_str(w, "unless", row->unless);
        json_kv_str(w, "mac_versions", kernel_default_macs(row, macs, sizeof(macs)));
        json_kv_str(w, "kernels", kernel_default_releases(row, kernels, sizeof(kernels)));
        json_kv_str(w, "commit", row->commit);
        json_kv_str(w, "landed", row->landed);
        json_kv_str(w, "source", row->source);
        json_kv_str(w, "note", row->note);
        json_kv_str(w, "file", row->file);
        json_kv_u64(w, "line", row->line);
        json_object_end(w);
}

/*
 * kernel-defaults [NIC...]: what r8169 does by itself on the kernel in force, for each NIC's chip;
 * with no Realtek NIC (or none named), every row of the data, for any machine.
 */
int cmd_kernel_defaults(const Options *o) {
        _cleanup_(kernel_defaults_done) KernelDefaults kd = {};
        _cleanup_(diag_done) Diagnostics d = {};
        _cleanup_free_ bool *selected = NULL;
        JsonWriter w = json_writer(stdout);
        char buf[PATH_MAX], kernel[24];
        const char *path = kernel_defaults_path(o->quirks, buf, sizeof(buf));
        size_t shown = 0;
        Context c;
        int r, ret = 1;

        r = kernel_defaults_load(&kd, path, &d);
        if (r < 0)
                return log_error_errno(r, "Cannot read %s: %m", path), 1;
        if (d.n > 0) {
                diag_print(&d, stderr);
                return 1;
        }
        if (context_open_selected(&c, o, false, &selected) < 0)
                goto out;
        machine_read(c.root, o->kernel_release, &c.machine);
        kernel_version_to_string(&c.machine.kernel, kernel, sizeof(kernel));
        if (o->json) {
                json_object_begin(&w);
                json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
                json_kv_str(&w, "file", kd.file);
                json_kv_str(&w, "kernel", c.machine.kernel.known ? kernel : NULL);
                json_key(&w, "nics");
                json_array_begin(&w);
        } else
                printf("What r8169 does by itself on kernel %s (%s):\n", kernel, kd.file);
        for (size_t i = 0; i < c.nics.n; i++) {
                const Nic *n = &c.nics.nics[i];
                const KernelDefault *rows[64];
                size_t nr;

                if (!selected[i] || !n->chip || n->chip->extended)
                        continue;
                nr = kernel_defaults_for(&kd, n->chip->mac_version, &c.machine.kernel, rows, ELEMENTSOF(rows));
                shown++;
                if (o->json) {
                        json_object_begin(&w);
                        json_kv_str(&w, "slot", n->slot);
                        json_kv_str(&w, "interface", nic_ifname(n));
                        json_kv_str(&w, "chip", n->chip->name);
                        json_kv_u64(&w, "mac_version", n->chip->mac_version);
                        json_key(&w, "defaults");
                        json_array_begin(&w);
                        for (size_t j = 0; j < nr; j++)
                                kernel_default_json(&w, rows[j]);
                        json_array_end(&w);
                        json_object_end(&w);
                        continue;
                }
                printf("\n%s  %s  %s (RTL_GIGA_MAC_VER_%u)\n", n->slot, nic_ifname(n) ?: "(no interface)", n->chip->name,
                       n->chip->mac_version);
                for (size_t j = 0; j < nr; j++)
                        kernel_default_text(stdout, rows[j], false);
                if (nr == 0)
                        puts("  nothing known for this chip on this kernel");
        }
        if (o->json) {
                json_array_end(&w);
                json_key(&w, "rows");
                json_array_begin(&w);
                for (size_t j = 0; shown == 0 && j < kd.n; j++)
                        kernel_default_json(&w, &kd.rows[j]);
                json_array_end(&w);
                json_object_end(&w);
                json_end(&w);
        } else if (shown == 0) {
                puts("No Realtek NIC here: every row, for any chip (RTL_GIGA_MAC_VER numbers as 7.1 has them).");
                for (size_t j = 0; j < kd.n; j++) {
                        char macs[400];
                        printf("\nRTL_GIGA_MAC_VER %s:\n", kernel_default_macs(&kd.rows[j], macs, sizeof(macs)));
                        kernel_default_text(stdout, &kd.rows[j], true);
                }
        }
        ret = 0;
out:
        context_done(&c);
        return ret;
}
