/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "commands/commands.h"
#include "show/quirks.h"
#include "show/report.h"

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
