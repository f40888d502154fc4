/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The JSON writer: commas and colons where they belong at every depth, strings escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "base/json.h"

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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nesting),
                cmocka_unit_test(test_decimals),
                cmocka_unit_test(test_strings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
