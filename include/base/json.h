/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/util.h"

/*
 * A small JSON writer: the separators are its business, not the caller's. Every value goes
 * in through one of the calls below, inside an object (after json_key) or an array; the
 * writer puts the commas and colons where they belong, escapes strings, and writes NULL
 * strings as null. libsystemd 252 has no public JSON builder, hence this one.
 */
#define JSON_DEPTH_MAX 16

typedef struct JsonWriter {
        FILE *f;
        unsigned depth;
        bool any[JSON_DEPTH_MAX]; /* a value was written at this depth: the next needs a comma */
        bool keyed;               /* a key was written: its value follows without one */
} JsonWriter;

static inline JsonWriter json_writer(FILE *f) { return (JsonWriter) { .f = f }; }

void json_object_begin(JsonWriter *w);
void json_object_end(JsonWriter *w);
void json_array_begin(JsonWriter *w);
void json_array_end(JsonWriter *w);
void json_key(JsonWriter *w, const char *key);

void json_str(JsonWriter *w, const char *s); /* NULL: null */
void json_u64(JsonWriter *w, uint64_t v);
void json_i64(JsonWriter *w, int64_t v);
void json_bool(JsonWriter *w, bool b);
void json_null(JsonWriter *w);
/* A number rounded to at most `decimals` places, in its shortest form (2, 0.5, 1.25: never
 * 2.000, so every JSON reader shows the same text); NaN, infinities and a number too long to
 * print (over 63 characters) as null. */
void json_decimal(JsonWriter *w, double v, int decimals);
/* Space-separated words as an array of strings; NULL: []. */
void json_words(JsonWriter *w, const char *words);

/* key: value, the common case. */
static inline void json_kv_str(JsonWriter *w, const char *k, const char *v) { json_key(w, k); json_str(w, v); }
static inline void json_kv_u64(JsonWriter *w, const char *k, uint64_t v) { json_key(w, k); json_u64(w, v); }
static inline void json_kv_bool(JsonWriter *w, const char *k, bool v) { json_key(w, k); json_bool(w, v); }
/* v where it is known, null where not. */
void json_kv_u64_or_null(JsonWriter *w, const char *k, bool known, uint64_t v);
static inline void json_kv_null(JsonWriter *w, const char *k) { json_key(w, k); json_null(w); }
/* The end of a document: a newline after the outermost value. */
void json_end(JsonWriter *w);
/* Whether this process ended a JSON document on stdout (else a failed --json command prints an error object). */
bool json_document_written(void);
