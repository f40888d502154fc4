/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/log.h"
#include "commands/commands.h"
#include "decide/kernel-defaults.h"
#include "show/report.h"

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
