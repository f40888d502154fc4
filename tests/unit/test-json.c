/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The JSON writer: commas and colons where they belong at every depth, strings escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>

#include "json.h"

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
                json_fixed(&w, 1.5, 3);
                json_array_end(&w);
                json_object_end(&w);
        }
        json_array_end(&w);
        json_kv_bool(&w, "last", false);
        json_object_end(&w);
        json_end(&w);
        expect(&w, "{\"schema\":1,\"nics\":[{\"slot\":\"0000:01:00.0\",\"chip\":null,\"empty\":{},\"list\":[true,null,-3,1.500]},"
                   "{\"slot\":\"0000:02:00.0\",\"chip\":null,\"empty\":{},\"list\":[true,null,-3,1.500]}],\"last\":false}\n");
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
                cmocka_unit_test(test_strings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
