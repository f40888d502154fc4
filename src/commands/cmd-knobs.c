/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include "commands/commands.h"
#include "show/report.h"

static void knob_json(JsonWriter *w, const Knob *knob) {
        json_object_begin(w);
        json_kv_str(w, "name", knob->name);
        json_kv_str(w, "backend", knob_backend_to_string(knob->backend));
        json_kv_str(w, "type", knob->type == KNOB_TYPE_BOOL ? "bool" : "uint");
        json_key(w, "max");
        if (knob->type == KNOB_TYPE_UINT)
                json_u64(w, knob->max);
        else
                json_null(w);
        json_kv_str(w, "summary", knob->summary);
        json_object_end(w);
}

static void knob_text(const Knob *knob) {
        char syntax[80];

        if (knob->type == KNOB_TYPE_BOOL)
                snprintf(syntax, sizeof(syntax), "%s/%s", knob->backend->words[1], knob->backend->words[0]);
        else
                snprintf(syntax, sizeof(syntax), "0..%" PRIu64, knob->max);
        printf("%-21s %-17s %-14s %s\n", knob->name, knob_backend_to_string(knob->backend), syntax, knob->summary);
}

/* The knob table as users need it: what can be set, where it lives, which values it takes. */
int cmd_knobs(const Options *o) {
        JsonWriter w = json_writer(stdout);

        if (!o->json) {
                printf("%-21s %-17s %-14s %s\n", "KNOB", "BACKEND", "VALUES", "WHAT");
                for (int k = 0; k < _KNOB_MAX; k++)
                        knob_text(knob_get(k));
                return 0;
        }
        json_object_begin(&w);
        json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
        json_key(&w, "knobs");
        json_array_begin(&w);
        for (int k = 0; k < _KNOB_MAX; k++)
                knob_json(&w, knob_get(k));
        json_array_end(&w);
        json_object_end(&w);
        json_end(&w);
        return 0;
}
