/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include "backend.h"
#include "commands.h"
#include "report.h"

/* The knob table as users need it: what can be set, where it lives, which values it takes. */
int cmd_knobs(const Options *o) {
        char syntax[80];

        if (o->json)
                printf("{\"schema\":%d,\"knobs\":[", REPORT_JSON_SCHEMA);
        else
                printf("%-21s %-17s %-14s %s\n", "KNOB", "BACKEND", "VALUES", "WHAT");
        for (int k = 0; k < _KNOB_MAX; k++) {
                const Knob *knob = knob_get(k);

                if (!o->json) {
                        if (knob->type == KNOB_TYPE_BOOL)
                                snprintf(syntax, sizeof(syntax), "%s/%s", knob->backend->words[1], knob->backend->words[0]);
                        else
                                snprintf(syntax, sizeof(syntax), "0..%" PRIu64, knob->max);
                        printf("%-21s %-17s %-14s %s\n", knob->name, knob_backend_to_string(knob->backend), syntax,
                               knob->summary);
                        continue;
                }
                fputs(k ? ",{" : "{", stdout);
                fputs("\"name\":", stdout);
                json_string(stdout, knob->name);
                fputs(",\"backend\":", stdout);
                json_string(stdout, knob_backend_to_string(knob->backend));
                printf(",\"type\":\"%s\",", knob->type == KNOB_TYPE_BOOL ? "bool" : "uint");
                if (knob->type == KNOB_TYPE_UINT)
                        printf("\"max\":%" PRIu64 ",", knob->max);
                else
                        fputs("\"max\":null,", stdout);
                fputs("\"summary\":", stdout);
                json_string(stdout, knob->summary);
                fputc('}', stdout);
        }
        if (o->json)
                fputs("]}\n", stdout);
        return 0;
}
