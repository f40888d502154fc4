/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "commands/commands.h"
#include "show/quirks.h"

int cmd_quirks(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        Out out;
        Context c;
        bool first = true;
        int ret = 1;

        if (context_open_selected(&c, o, true, &selected) < 0)
                goto out;
        out_document_begin(&out, stdout, o->json);
        out_array_begin(&out, "quirks");
        for (size_t i = 0; i < c.quirks.n; i++) {
                const Quirk *q = &c.quirks.quirks[i];
                bool show = o->n_args == 0;
                for (size_t k = 0; k < c.nics.n && !show; k++)
                        show = selected[k] && quirk_matches(q, &c.nics.nics[k], &c.machine);
                if (!show)
                        continue;
                if (!first)
                        out_text(&out, "\n");
                report_quirk_show(&out, q);
                first = false;
        }
        out_array_end(&out);
        if (first)
                out_text(&out, "%s\n", o->n_args ? "No quirk matches." : "The quirk database is empty.");
        out_document_end(&out);
        ret = 0;
out:
        context_done(&c);
        return ret;
}
