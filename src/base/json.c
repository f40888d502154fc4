/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/json.h"

/* Before a key, or a value that has none: a comma if something stands before it at this depth. */
static void json_next(JsonWriter *w) {
        if (w->keyed) {
                w->keyed = false;
                return;
        }
        if (w->any[w->depth])
                fputc(',', w->f);
        w->any[w->depth] = true;
}

static void json_open(JsonWriter *w, char c) {
        json_next(w);
        fputc(c, w->f);
        if (w->depth + 1 < JSON_DEPTH_MAX)
                w->depth++;
        w->any[w->depth] = false;
}

static void json_close(JsonWriter *w, char c) {
        fputc(c, w->f);
        if (w->depth > 0)
                w->depth--;
}

static bool document_written;

void json_end(JsonWriter *w) {
        fputc('\n', w->f);
        if (w->f == stdout)
                document_written = true;
}

bool json_document_written(void) { return document_written; }

void json_object_begin(JsonWriter *w) { json_open(w, '{'); }
void json_object_end(JsonWriter *w) { json_close(w, '}'); }
void json_array_begin(JsonWriter *w) { json_open(w, '['); }
void json_array_end(JsonWriter *w) { json_close(w, ']'); }

void json_key(JsonWriter *w, const char *key) {
        json_next(w);
        json_string(w->f, key);
        fputc(':', w->f);
        w->keyed = true;
}

void json_str(JsonWriter *w, const char *s) {
        json_next(w);
        json_string(w->f, s);
}

void json_u64(JsonWriter *w, uint64_t v) {
        json_next(w);
        fprintf(w->f, "%" PRIu64, v);
}

void json_i64(JsonWriter *w, int64_t v) {
        json_next(w);
        fprintf(w->f, "%" PRId64, v);
}

void json_bool(JsonWriter *w, bool b) {
        json_next(w);
        fputs(b ? "true" : "false", w->f);
}

void json_null(JsonWriter *w) {
        json_next(w);
        fputs("null", w->f);
}

void json_decimal(JsonWriter *w, double v, int decimals) {
        char buf[64];
        char *end;
        int n;

        json_next(w);
        /* JSON has no NaN or infinity: a value that is none is null. */
        n = isfinite(v) ? snprintf(buf, sizeof buf, "%.*f", decimals, v) : -1;
        if (n <= 0 || (size_t) n >= sizeof buf) {
                fputs("null", w->f);
                return;
        }
        /* Rounded, then in its shortest form: trailing zeros and a bare point go, and so does
         * the sign of a zero. A JSON number has no format; written this way it reads the same
         * to a reader that re-renders numbers (jq 1.6, Debian 12) and to one that keeps the
         * literal as written (jq 1.7, Debian 13): 2, not 2.000. */
        end = buf + n;
        if (strchr(buf, '.')) {
                while (end[-1] == '0')
                        end--;
                if (end[-1] == '.')
                        end--;
        }
        *end = 0;
        fputs(streq(buf, "-0") ? "0" : buf, w->f);
}

void json_words(JsonWriter *w, const char *words) {
        json_array_begin(w);
        for (const char *p = words ?: ""; *p;) {
                _cleanup_free_ char *word = NULL;
                size_t n;

                p += strspn(p, " \t");
                n = strcspn(p, " \t");
                if (n == 0)
                        break;
                word = strndup(p, n);
                json_str(w, word ?: "");
                p += n;
        }
        json_array_end(w);
}

void json_kv_u64_or_null(JsonWriter *w, const char *k, bool known, uint64_t v) {
        json_key(w, k);
        if (known)
                json_u64(w, v);
        else
                json_null(w);
}
