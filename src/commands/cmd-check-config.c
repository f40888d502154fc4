/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "base/log.h"
#include "commands/commands.h"
#include "decide/quirk-lint.h"
#include "show/report.h"

/* A [device] section that matches no NIC here: a warning line, or {"file", "line", "section"}. */
static void unmatched_section(Out *o, const Context *c, const Machine *machine, const ConfigDevice *dev) {
        for (size_t k = 0; k < c->nics.n; k++)
                if (config_device_matches(dev, &c->nics.nics[k], machine))
                        return;
        out_object_begin(o, NULL);
        out_str(o, "file", "%s:", dev->origin.file);
        out_u64(o, "line", "%" PRIu64 ": warning: ", dev->origin.line);
        out_str(o, "section", "[device %s] matches no NIC here", dev->name);
        for (size_t k = 0; k < c->nics.n; k++) {
                char chip[700];
                out_text(o, "%s %s %s (%s)", k == 0 ? "; the NICs are" : ",", c->nics.nics[k].slot,
                         nic_ifname(&c->nics.nics[k]) ?: "-", report_chip_line(&c->nics.nics[k], chip, sizeof(chip)));
        }
        out_text(o, "%s\n", c->nics.n == 0 ? "; there is no Realtek NIC" : "");
        out_object_end(o);
}

/* What check-config says beside the problems: the files it read, and [device] sections that match
 * no NIC of this machine (a typo in a glob passes every check otherwise). */
static void check_config_here(Out *o, const Options *opts, const Config *config, const QuirkDb *quirks) {
        const char *path = opts->config ?: CONFIG_DEFAULT_PATH;
        Context c;
        Machine machine;

        if (config->n_files == 0)
                out_text(o, "No configuration file at %s (nor drop-ins in %s.d): the defaults apply\n", path, path);
        out_array_begin(o, "files");
        for (size_t i = 0; i < config->n_files; i++)
                out_str(o, NULL, "Read %s\n", config->files[i]);
        for (size_t i = 0; i < quirks->n_files; i++)
                out_str(o, NULL, "Read %s\n", quirks->files[i]);
        out_array_end(o);
        out_array_begin(o, "unmatched_sections");
        if (context_open(&c, opts, false) >= 0) {
                machine_read(c.root, opts->kernel_release, &machine);
                for (size_t i = 0; i < config->n_devices; i++)
                        unmatched_section(o, &c, &machine, &config->devices[i]);
        }
        context_done(&c);
        out_array_end(o);
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
        Out out;
        Diagnostics d = {};
        Config config;
        QuirkDb quirks = {};
        size_t n_conf = 0;
        int ret = 1;

        config_defaults(&config);
        /* Read before the JSON begins: a failure here is said by the error object, not inside a half document. */
        if (o->n_args > 0 && check_files_named(o, &quirks, &d, &n_conf) < 0)
                goto out;
        out_document_begin(&out, stdout, o->json);
        if (o->n_args > 0) {
                out_array_begin(&out, "files");
                for (int i = 0; i < o->n_args; i++)
                        out_json_str(&out, NULL, o->args[i]);
                out_array_end(&out);
                out_array_begin(&out, "unmatched_sections"); /* not looked for in files named alone */
                out_array_end(&out);
        } else {
                context_check_policy(o, &config, &quirks, &d);
                n_conf = config.n_files;
                check_config_here(&out, o, &config, &quirks);
        }
        ret = d.n > 0;
        out_json_bool(&out, "ok", d.n == 0);
        out_json_u64(&out, "configuration_files", n_conf);
        out_json_u64(&out, "quirk_entries", quirks.n);
        out_json_u64(&out, "quirk_files", quirks.n_files);
        report_config_problems(&out, &d); /* the text says them on stderr, below */
        out_document_end(&out);
        if (d.n > 0 && !o->json) {
                /* Problems go to stderr, as a compiler says them: file:line: message. */
                diag_print(&d, stderr);
                fprintf(stderr, "%zu problem%s found.\n", d.n, d.n == 1 ? "" : "s");
        } else
                out_text(&out, "OK: %zu configuration file%s, %zu quirk entr%s in %zu file%s.\n", n_conf,
                         n_conf == 1 ? "" : "s", quirks.n, quirks.n == 1 ? "y" : "ies", quirks.n_files,
                         quirks.n_files == 1 ? "" : "s");
out:
        diag_done(&d);
        config_done(&config);
        quirk_db_done(&quirks);
        return ret;
}
