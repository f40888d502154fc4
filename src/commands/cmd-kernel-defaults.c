/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "base/log.h"
#include "commands/commands.h"
#include "decide/kernel-defaults.h"
#include "show/out.h"

/*
 * One row: the knob, what r8169 leaves there, since when, why, and where it says so; with the
 * releases (and, in the text, the chips as a heading) when the rows are shown for any machine.
 */
static void kernel_default_show(Out *o, const KernelDefault *row, bool releases) {
        char macs[400], kernels[400], change[1024];

        kernel_default_macs(row, macs, sizeof(macs));
        kernel_default_releases(row, kernels, sizeof(kernels));
        snprintf(change, sizeof(change), "%s%s%s%s", row->commit ?: "-", row->landed ? " (" : "", row->landed ?: "",
                 row->landed ? ")" : "");
        out_object_begin(o, NULL);
        if (releases)
                out_text(o, "\nRTL_GIGA_MAC_VER %s:\n", macs);
        out_json_str(o, "id", row->id);
        out_str(o, "knob", "  %-21s ", row->knob);
        out_str(o, "value", "%-6s ", row->value);
        out_text(o, "[%s]", row->id);
        out_str(o, "unless", " unless %s", row->unless);
        out_text(o, "\n");
        out_json_str(o, "mac_versions", macs);
        if (releases)
                out_wrapped(o, "kernels", "    releases:", "      ", kernels);
        else
                out_json_str(o, "kernels", kernels);
        out_json_str(o, "commit", row->commit);
        out_json_str(o, "landed", row->landed);
        out_text_wrapped(o, "    change:", "      ", change);
        out_text_wrapped(o, "    what:", "      ", row->note);
        out_wrapped(o, "source", "    see:", "      ", row->source);
        out_words(o, "backport", "    back-ported by:", "      ", row->backport);
        out_wrapped(o, "not_backported", "    not back-ported, see r8169-tuned-problems(7):", "      ", row->not_backported);
        out_json_str(o, "note", row->note);
        out_json_str(o, "file", row->file);
        out_json_u64(o, "line", row->line);
        out_object_end(o);
}

/*
 * kernel-defaults [NIC...]: what r8169 does by itself on the kernel in force, for each NIC's chip;
 * with no Realtek NIC (or none named), every row of the data, for any machine.
 */
int cmd_kernel_defaults(const Options *o) {
        _cleanup_(kernel_defaults_done) KernelDefaults kd = {};
        _cleanup_(diag_done) Diagnostics d = {};
        _cleanup_free_ bool *selected = NULL;
        Out out;
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
        out_document_begin(&out, stdout, o->json);
        out_json_str(&out, "file", kd.file);
        out_json_str(&out, "kernel", c.machine.kernel.known ? kernel : NULL);
        out_text(&out, "What r8169 does by itself on kernel %s (%s):\n", kernel, kd.file);
        out_array_begin(&out, "nics");
        for (size_t i = 0; i < c.nics.n; i++) {
                const Nic *n = &c.nics.nics[i];
                const KernelDefault *rows[64];
                size_t nr;

                if (!selected[i] || !n->chip || n->chip->extended)
                        continue;
                nr = kernel_defaults_for(&kd, n->chip->mac_version, &c.machine.kernel, rows, ELEMENTSOF(rows));
                shown++;
                out_object_begin(&out, NULL);
                out_str(&out, "slot", "\n%s  ", n->slot);
                out_json_str(&out, "interface", nic_ifname(n));
                out_text(&out, "%s  ", nic_ifname(n) ?: "(no interface)");
                out_str(&out, "chip", "%s ", n->chip->name);
                out_u64(&out, "mac_version", "(RTL_GIGA_MAC_VER_%" PRIu64 ")\n", n->chip->mac_version);
                out_array_begin(&out, "defaults");
                for (size_t j = 0; j < nr; j++)
                        kernel_default_show(&out, rows[j], false);
                out_array_end(&out);
                if (nr == 0)
                        out_text(&out, "  nothing known for this chip on this kernel\n");
                out_object_end(&out);
        }
        out_array_end(&out);
        out_array_begin(&out, "rows");
        if (shown == 0) {
                out_text(&out, "No Realtek NIC here: every row, for any chip (RTL_GIGA_MAC_VER numbers as 7.1 has them).\n");
                for (size_t j = 0; j < kd.n; j++)
                        kernel_default_show(&out, &kd.rows[j], true);
        }
        out_array_end(&out);
        out_document_end(&out);
        ret = 0;
out:
        context_done(&c);
        return ret;
}
