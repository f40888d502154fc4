/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <sys/ioctl.h>

#include "base/util.h"
#include "show/out.h"

/* The terminal's width, as systemd's columns() finds it: $COLUMNS, the tty, else 80. */
static size_t text_columns(FILE *f) {
        const char *e = getenv("COLUMNS");
        struct winsize ws = {};
        uint64_t c;

        if (e && parse_u64(e, &c) >= 0 && c >= 40 && c <= 500)
                return (size_t) c;
        if (ioctl(fileno(f), TIOCGWINSZ, &ws) >= 0 && ws.ws_col >= 40)
                return ws.ws_col;
        return 80;
}

/* text after first, wrapped to the terminal (80 columns when not one), further lines after indent. */
static void out_print_wrapped(FILE *f, const char *first, const char *indent, const char *text) {
        size_t width = text_columns(f), col = strlen(first);

        fputs(first, f);
        for (const char *p = text; *p;) {
                size_t n = strcspn(p, " ");
                if (p != text && col > strlen(indent) && col + 1 + n > width) {
                        fprintf(f, "\n%s", indent);
                        col = strlen(indent);
                } else if (col > strlen(indent) || (p != text && col > 0 && col != strlen(first))) {
                        fputc(' ', f);
                        col++;
                }
                fwrite(p, 1, n, f);
                col += n;
                p += n;
                p += strspn(p, " ");
        }
        fputc('\n', f);
}

void json_knob_value(JsonWriter *w, KnobId k, uint64_t v) {
        if (knob_get(k)->type == KNOB_TYPE_BOOL)
                json_bool(w, v);
        else
                json_u64(w, v);
}

void json_kv_knob_or_null(JsonWriter *w, const char *key, bool known, KnobId k, uint64_t v) {
        json_key(w, key);
        if (known)
                json_knob_value(w, k, v);
        else
                json_null(w);
}

void out_document_begin(Out *o, FILE *f, bool json) {
        *o = (Out) { .f = f, .json = json, .w = json_writer(f) };
        if (!o->json)
                return;
        json_object_begin(&o->w);
        json_kv_u64(&o->w, "schema", REPORT_JSON_SCHEMA);
}

void out_document_end(Out *o) {
        if (!o->json)
                return;
        json_object_end(&o->w);
        json_end(&o->w);
}

/* In JSON, the key (none in an array); whether this is JSON. */
static bool json_at(Out *o, const char *key) {
        if (o->json && key)
                json_key(&o->w, key);
        return o->json;
}

void out_object_begin(Out *o, const char *key) {
        if (json_at(o, key))
                json_object_begin(&o->w);
}

void out_object_end(Out *o) {
        if (o->json)
                json_object_end(&o->w);
}

void out_array_begin(Out *o, const char *key) {
        if (json_at(o, key))
                json_array_begin(&o->w);
}

void out_array_end(Out *o) {
        if (o->json)
                json_array_end(&o->w);
}

void out_text(Out *o, const char *fmt, ...) {
        va_list ap;

        if (o->json)
                return;
        va_start(ap, fmt);
        vfprintf(o->f, fmt, ap);
        va_end(ap);
}

void out_text_wrapped(Out *o, const char *first, const char *indent, const char *value) {
        if (!o->json && value)
                out_print_wrapped(o->f, first, indent, value);
}

/* The formats are the callers' literals, each checked against its value by the macros in out.h. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void out_str_(Out *o, const char *key, const char *fmt, const char *value) {
        if (json_at(o, key))
                json_str(&o->w, value);
        else if (value)
                fprintf(o->f, fmt, value);
}

void out_u64_(Out *o, const char *key, const char *fmt, uint64_t value) {
        if (json_at(o, key))
                json_u64(&o->w, value);
        else
                fprintf(o->f, fmt, value);
}

void out_decimal_(Out *o, const char *key, int decimals, const char *fmt, double value) {
        if (json_at(o, key))
                json_decimal(&o->w, value, decimals);
        else
                fprintf(o->f, fmt, value);
}

void out_knob_value_(Out *o, const char *key, const char *fmt, KnobId k, uint64_t value) {
        char v[KNOB_VALUE_MAX];

        if (json_at(o, key))
                json_knob_value(&o->w, k, value);
        else
                fprintf(o->f, fmt, knob_format_value(k, value, v, sizeof(v)));
}
#pragma GCC diagnostic pop

void out_wrapped(Out *o, const char *key, const char *first, const char *indent, const char *value) {
        if (json_at(o, key))
                json_str(&o->w, value);
        else
                out_text_wrapped(o, first, indent, value);
}

void out_words(Out *o, const char *key, const char *first, const char *indent, const char *value) {
        if (json_at(o, key))
                json_words(&o->w, value);
        else
                out_text_wrapped(o, first, indent, value);
}

void out_json_str(Out *o, const char *key, const char *value) {
        if (json_at(o, key))
                json_str(&o->w, value);
}

void out_json_u64(Out *o, const char *key, uint64_t value) {
        if (json_at(o, key))
                json_u64(&o->w, value);
}

void out_json_bool(Out *o, const char *key, bool value) {
        if (json_at(o, key))
                json_bool(&o->w, value);
}

void out_json_words(Out *o, const char *key, const char *value) {
        if (json_at(o, key))
                json_words(&o->w, value);
}

void out_json_decimal(Out *o, const char *key, double value, int decimals) {
        if (json_at(o, key))
                json_decimal(&o->w, value, decimals);
}

void out_json_knob(Out *o, const char *key, KnobId k, uint64_t value) {
        if (json_at(o, key))
                json_knob_value(&o->w, k, value);
}

void out_json_u64_or_null(Out *o, const char *key, bool known, uint64_t value) {
        if (o->json)
                json_kv_u64_or_null(&o->w, key, known, value);
}

void out_json_knob_or_null(Out *o, const char *key, bool known, KnobId k, uint64_t value) {
        if (o->json)
                json_kv_knob_or_null(&o->w, key, known, k, value);
}
