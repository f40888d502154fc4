/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The JSON writer: commas and colons where they belong at every depth, strings escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "base/json.h"
#include "show/out.h"
#include "show/report.h"

static char *buf;
static size_t len;

static JsonWriter open_writer(void) {
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        return json_writer(f);
}

static void expect(JsonWriter *w, const char *want) {
        fclose(w->f);
        assert_string_equal(buf, want);
        free(buf);
        buf = NULL;
}

static void test_nesting(void **state) {
        JsonWriter w = open_writer();

        json_object_begin(&w);
        json_kv_u64(&w, "schema", 1);
        json_key(&w, "nics");
        json_array_begin(&w);
        for (int i = 0; i < 2; i++) {
                json_object_begin(&w);
                json_kv_str(&w, "slot", i ? "0000:02:00.0" : "0000:01:00.0");
                json_kv_str(&w, "chip", NULL);
                json_key(&w, "empty");
                json_object_begin(&w);
                json_object_end(&w);
                json_key(&w, "list");
                json_array_begin(&w);
                json_bool(&w, true);
                json_null(&w);
                json_i64(&w, -3);
                json_decimal(&w, 1.5, 3);
                json_array_end(&w);
                json_object_end(&w);
        }
        json_array_end(&w);
        json_kv_bool(&w, "last", false);
        json_object_end(&w);
        json_end(&w);
        expect(&w, "{\"schema\":1,\"nics\":[{\"slot\":\"0000:01:00.0\",\"chip\":null,\"empty\":{},\"list\":[true,null,-3,1.5]},"
                   "{\"slot\":\"0000:02:00.0\",\"chip\":null,\"empty\":{},\"list\":[true,null,-3,1.5]}],\"last\":false}\n");
}

/* Numbers in their shortest form after rounding: jq 1.6 re-renders a number, jq 1.7 keeps the
 * literal as written, and both must show the same text (issue 42: 2.000 on Debian 13). */
static void test_decimals(void **state) {
        JsonWriter w = open_writer();

        json_array_begin(&w);
        json_decimal(&w, 2.0, 3);      /* the configured quiet time */
        json_decimal(&w, 0.5, 3);
        json_decimal(&w, 1.25, 1);     /* rounded first: 1.2 (binary 1.25 is exact: even) */
        json_decimal(&w, 1.04, 1);     /* 1.0 -> 1 */
        json_decimal(&w, 100.0, 0);    /* no point: its zeros stay */
        json_decimal(&w, 250.0, 1);    /* 250.0 -> 250, not 25 */
        json_decimal(&w, -0.0001, 3);  /* -0.000: no signed zero */
        json_decimal(&w, -1.5, 2);
        json_decimal(&w, 0.1234, 4);
        json_decimal(&w, 1e300, 3);    /* does not fit: null, never cut */
        json_decimal(&w, NAN, 3);
        json_decimal(&w, -INFINITY, 3);
        json_array_end(&w);
        json_end(&w);
        expect(&w, "[2,0.5,1.2,1,100,250,0,-1.5,0.1234,null,null,null]\n");
}

static void test_strings(void **state) {
        JsonWriter w = open_writer();

        json_array_begin(&w);
        json_str(&w, "a \"quoted\" \\ word\n\ttab\x01");
        json_words(&w, "  https://a  https://b\t");
        json_words(&w, NULL);
        json_array_end(&w);
        expect(&w, "[\"a \\\"quoted\\\" \\\\ word\\n\\ttab\\u0001\",[\"https://a\",\"https://b\"],[]]");
}

/* One walk, two renderings: each fact once, the JSON's keys and the text's formats from the same calls. */
static void walk(Out *o, FILE *f, bool json) {
        out_document_begin(o, f, json);
        out_str(o, "name", "name %s\n", "enp1s0");
        out_json_str(o, "only_json", NULL);
        out_text(o, "text only\n");
        out_u64(o, "count", "count %" PRIu64 "\n", 42u);
        out_knob_value(o, "tso", "tso %s\n", KNOB_TSO, 1u);
        out_knob_value(o, "gro_flush_timeout", "gro_flush_timeout %s\n", KNOB_GRO_FLUSH_TIMEOUT, 20000u);
        out_str(o, "missing", "never %s\n", (const char *) NULL);
        out_array_begin(o, "list");
        out_str(o, NULL, " %s", "a");
        out_str(o, NULL, " %s", "b");
        out_array_end(o);
        out_text(o, "\n");
        out_document_end(o);
}

static void test_out_walk(void **state) {
        JsonWriter w = open_writer();
        Out o;

        walk(&o, w.f, false);
        expect(&w, "name enp1s0\ntext only\ncount 42\ntso on\ngro_flush_timeout 20000\n a b\n");
        w = open_writer();
        walk(&o, w.f, true);
        expect(&w, "{\"schema\":1,\"name\":\"enp1s0\",\"only_json\":null,\"count\":42,\"tso\":true,"
                   "\"gro_flush_timeout\":20000,\"missing\":null,\"list\":[\"a\",\"b\"]}\n");
}

/* The knob object of schema 1, every member: a fixed feature, a partial one, one that cannot be read. */
static void test_knob_object(void **state) {
        JsonWriter w = open_writer();
        KnobReading fixed = { .status = KNOB_STATUS_OK, .value = 1, .fixed = true };
        KnobReading partial = { .status = KNOB_STATUS_OK, .value = 0, .partial = true };
        KnobReading unread;

        knob_reading_fail(&unread, -EOPNOTSUPP, "");
        json_array_begin(&w);
        report_knob_reading_json(&w, KNOB_TSO, &fixed);
        report_knob_reading_json(&w, KNOB_TSO, &partial);
        report_knob_reading_json(&w, KNOB_GRO_FLUSH_TIMEOUT, &unread);
        json_array_end(&w);
        expect(&w, "[{\"value\":true,\"status\":\"ok\",\"errno\":null,\"message\":null,\"partial\":false,\"fixed\":true},"
                   "{\"value\":null,\"status\":\"ok\",\"errno\":null,\"message\":null,\"partial\":true,\"fixed\":false},"
                   "{\"value\":null,\"status\":\"not-supported\",\"errno\":\"EOPNOTSUPP\",\"message\":\"Operation not supported\","
                   "\"partial\":false,\"fixed\":false}]");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nesting),
                cmocka_unit_test(test_decimals),
                cmocka_unit_test(test_strings),
                cmocka_unit_test(test_out_walk),
                cmocka_unit_test(test_knob_object),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
