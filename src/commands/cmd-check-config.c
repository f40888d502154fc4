/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/log.h"
#include "commands/commands.h"
#include "decide/quirk-lint.h"
#include "show/report.h"

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
