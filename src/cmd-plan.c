/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "commands.h"
#include "log.h"
#include "report.h"

int cmd_plan(const Options *o) {
        _cleanup_free_ NicPlan *plans = NULL;
        _cleanup_free_ bool *selected = NULL;
        Context c;
        size_t n = 0;
        int ret = 1;

        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        plans = calloc(c.nics.n + 1, sizeof(NicPlan));
        if (!plans)
                goto out;
        for (size_t i = 0; i < c.nics.n; i++) {
                KnobReading current[_KNOB_MAX];
                if (!selected[i])
                        continue;
                context_plan_nic(&c, &c.nics.nics[i], current, &plans[n++]);
        }
        PlanReport r = { .configured = o->profile ? profile_from_string(o->profile) : c.config.profile,
                         .from_config = c.config.profile, .override = o->profile,
                         .profile = c.profile, .power = c.machine.power, .kernel = &c.machine.kernel, .plans = plans, .n = n };
        if (o->json)
                report_plan_json(stdout, &r);
        else
                report_plan_text(stdout, &r);
        ret = 0;
out:
        context_done(&c);
        return ret;
}

/* What check-config says beside the problems: the files it read, and [device] sections that match
 * no NIC of this machine (a typo in a glob passes every check otherwise). */
static void check_config_here(const Options *o, const Config *config, const QuirkDb *quirks) {
        Context c;
        Machine machine;

        if (config->n_files == 0)
                printf("No configuration file at %s (nor drop-ins in %s.d): the defaults apply\n", o->config ?: CONFIG_DEFAULT_PATH,
                       o->config ?: CONFIG_DEFAULT_PATH);
        for (size_t i = 0; i < config->n_files; i++)
                printf("Read %s\n", config->files[i]);
        for (size_t i = 0; i < quirks->n_files; i++)
                printf("Read %s\n", quirks->files[i]);
        if (context_open(&c, o, false) < 0) {
                context_done(&c);
                return;
        }
        machine_read(c.root, o->kernel_release, &machine);
        for (size_t i = 0; i < config->n_devices; i++) {
                const ConfigDevice *dev = &config->devices[i];
                bool any = false;

                for (size_t k = 0; k < c.nics.n && !any; k++)
                        any = config_device_matches(dev, &c.nics.nics[k], &machine);
                if (any)
                        continue;
                printf("%s:%u: warning: [device %s] matches no NIC here", dev->origin.file, dev->origin.line, dev->name);
                for (size_t k = 0; k < c.nics.n; k++) {
                        char chip[700];
                        printf("%s %s %s (%s)", k == 0 ? "; the NICs are" : ",", c.nics.nics[k].slot,
                               nic_ifname(&c.nics.nics[k]) ?: "-", report_chip_line(&c.nics.nics[k], chip, sizeof(chip)));
                }
                printf("%s\n", c.nics.n == 0 ? "; there is no Realtek NIC" : "");
        }
        context_done(&c);
}

int cmd_check_config(const Options *o) {
        Diagnostics d = {};
        Config config;
        QuirkDb quirks;
        int ret;

        size_t n_conf = 0;

        config_defaults(&config);
        quirks = (QuirkDb) {};
        if (o->n_args > 0) {
                /* Exactly the files named: a file in a quirks.d directory is a quirk file, any other configuration. */
                _cleanup_free_ const char **qfiles = calloc((size_t) o->n_args, sizeof(char *));
                size_t nq = 0;

                if (!qfiles)
                        return 1;
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
                                (void) config_load_file(&one, o->args[i], &d);
                                n_conf += one.n_files;
                                config_done(&one);
                        }
                }
                if (nq > 0) {
                        (void) quirk_db_load_files(&quirks, qfiles, nq, &d);
                        quirk_db_lint(&quirks, &d);
                }
                diag_sort(&d);
        } else {
                context_check_policy(o, &config, &quirks, &d);
                n_conf = config.n_files;
                check_config_here(o, &config, &quirks);
        }
        if (d.n > 0) {
                diag_print(&d, stderr);
                fprintf(stderr, "%zu problem%s found.\n", d.n, d.n == 1 ? "" : "s");
                ret = 1;
        } else {
                printf("OK: %zu configuration file%s, %zu quirk entr%s in %zu file%s.\n", n_conf,
                       n_conf == 1 ? "" : "s", quirks.n, quirks.n == 1 ? "y" : "ies", quirks.n_files,
                       quirks.n_files == 1 ? "" : "s");
                ret = 0;
        }
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
