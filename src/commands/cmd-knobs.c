/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "commands/commands.h"
#include "show/out.h"

static void knob_show(Out *o, const Knob *knob) {
        char syntax[80];

        if (knob->type == KNOB_TYPE_BOOL)
                snprintf(syntax, sizeof(syntax), "%s/%s", knob->backend->words[1], knob->backend->words[0]);
        else
                snprintf(syntax, sizeof(syntax), "0..%" PRIu64, knob->max);
        out_object_begin(o, NULL);
        out_str(o, "name", "%-21s ", knob->name);
        out_str(o, "backend", "%-17s ", knob_backend_to_string(knob->backend));
        out_json_str(o, "type", knob->type == KNOB_TYPE_BOOL ? "bool" : "uint");
        out_json_u64_or_null(o, "max", knob->type == KNOB_TYPE_UINT, knob->max);
        out_text(o, "%-14s ", syntax);
        out_str(o, "summary", "%s\n", knob->summary);
        out_object_end(o);
}

/* The knob table as users need it: what can be set, where it lives, which values it takes. */
int cmd_knobs(const Options *o) {
        Out out;

        out_document_begin(&out, stdout, o->json);
        out_text(&out, "%-21s %-17s %-14s %s\n", "KNOB", "BACKEND", "VALUES", "WHAT");
        out_array_begin(&out, "knobs");
        for (int k = 0; k < _KNOB_MAX; k++)
                knob_show(&out, knob_get(k));
        out_array_end(&out);
        out_document_end(&out);
        return 0;
}
