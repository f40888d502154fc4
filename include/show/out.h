/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/json.h"
#include "kernel/knob.h"

/*
 * One walk, every rendering. An output is written once, as a sequence of calls in the order a
 * reader meets the facts. A fact both renderings show is one call with its JSON key and its
 * text's printf format (out_str, out_u64, out_decimal, out_knob_value, out_wrapped); a fact
 * only JSON has is an out_json_* call; the text's own words are out_text. The JSON takes the keys and typed
 * values, the text the formats, so text and JSON cannot say two things of one fact.
 * ethtool's print_*(PRINT_ANY, key, fmt, value) is the model.
 *
 * A NULL string value is null in JSON, and in the text the whole format is left out (its
 * literal words too); a NULL key is an element of the array being written. Every format, and
 * every value's type as written, is checked at compile time against what the call takes (a
 * string, an unsigned integer, a floating-point number, the knob's words), so a "%s" for a
 * number, or an int for out_u64, does not build; a bare NULL string is written (const char *) NULL.
 */

/* The version of every --json output's shape ("schema" at the top); see r8169-tuned(8). */
#define REPORT_JSON_SCHEMA 1

typedef struct Out {
        FILE *f;
        bool json;
        JsonWriter w;
} Out;

/* The JSON writer, for a part only JSON shows; NULL in the text. */
static inline JsonWriter *out_json(Out *o) { return o->json ? &o->w : NULL; }

/* An output to f, text or JSON: {"schema": N, … } with its newline in JSON; nothing in the text. */
void out_document_begin(Out *o, FILE *f, bool json);
void out_document_end(Out *o);
/* JSON's containers, under key (NULL in an array); nothing in the text. */
void out_object_begin(Out *o, const char *key);
void out_object_end(Out *o);
void out_array_begin(Out *o, const char *key);
void out_array_end(Out *o);

/* Text only, as printf. */
void out_text(Out *o, const char *fmt, ...) _printf_(2, 3);
/* Prose in the text only: wrapped to the terminal after first, further lines after indent (nothing when NULL). */
void out_text_wrapped(Out *o, const char *first, const char *indent, const char *value);

/* Both: JSON key: value; the text printf(fmt, value). The value must be of the type the call
 * takes as written (a string; an unsigned integer; a floating-point number), not converted to
 * it: a negative int given to out_u64 does not build. */
#define OUT_FMT_CHECK(fmt, v) ((void) sizeof(printf(fmt, v)))
#define OUT_TYPE_CHECK(v, ok, what) ((void) sizeof(struct { _Static_assert(ok, "the value is not " what); int x; }))
#define OUT_IS_STRING(v) _Generic((v), char *: 1, const char *: 1, default: 0)
#define OUT_IS_UNSIGNED(v) \
        _Generic((v), bool: 1, unsigned char: 1, unsigned short: 1, unsigned: 1, unsigned long: 1, unsigned long long: 1, default: 0)
#define OUT_IS_FLOATING(v) _Generic((v), float: 1, double: 1, default: 0)
#define out_str(o, key, fmt, v) \
        (OUT_TYPE_CHECK(v, OUT_IS_STRING(v), "a string"), OUT_FMT_CHECK(fmt, (const char *) (v)), out_str_(o, key, fmt, v))
#define out_u64(o, key, fmt, v) \
        (OUT_TYPE_CHECK(v, OUT_IS_UNSIGNED(v), "unsigned"), OUT_FMT_CHECK(fmt, (uint64_t) (v)), out_u64_(o, key, fmt, v))
/* A measurement: JSON's number with decimals places, the text's as its format rounds it. */
#define out_decimal(o, key, decimals, fmt, v) \
        (OUT_TYPE_CHECK(v, OUT_IS_FLOATING(v), "a floating-point number"), OUT_FMT_CHECK(fmt, (double) (v)), \
         out_decimal_(o, key, decimals, fmt, v))
/* A knob's value: true/false or a number in JSON, the knob's own words in the text ("on", "1"). */
#define out_knob_value(o, key, fmt, k, v) \
        (OUT_TYPE_CHECK(v, OUT_IS_UNSIGNED(v), "unsigned"), OUT_FMT_CHECK(fmt, ""), out_knob_value_(o, key, fmt, k, v))
void out_str_(Out *o, const char *key, const char *fmt, const char *value);
void out_u64_(Out *o, const char *key, const char *fmt, uint64_t value);
void out_decimal_(Out *o, const char *key, int decimals, const char *fmt, double value);
void out_knob_value_(Out *o, const char *key, const char *fmt, KnobId k, uint64_t value);
/* Prose: JSON key: value; the text as out_text_wrapped. */
void out_wrapped(Out *o, const char *key, const char *first, const char *indent, const char *value);
/* Space-separated words: a JSON array of strings (NULL: []); the text as out_text_wrapped. */
void out_words(Out *o, const char *key, const char *first, const char *indent, const char *value);

/* JSON only. */
void out_json_str(Out *o, const char *key, const char *value);
void out_json_u64(Out *o, const char *key, uint64_t value);
void out_json_bool(Out *o, const char *key, bool value);
void out_json_words(Out *o, const char *key, const char *value);
void out_json_decimal(Out *o, const char *key, double value, int decimals);
void out_json_knob(Out *o, const char *key, KnobId k, uint64_t value);
/* The value where it is known, null where not. */
void out_json_u64_or_null(Out *o, const char *key, bool known, uint64_t value);
void out_json_knob_or_null(Out *o, const char *key, bool known, KnobId k, uint64_t value);

/* A knob's value as JSON: true/false for on/off knobs, a number otherwise; null where not known. */
void json_knob_value(JsonWriter *w, KnobId k, uint64_t v);
void json_kv_knob_or_null(JsonWriter *w, const char *key, bool known, KnobId k, uint64_t v);
