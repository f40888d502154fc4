/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

static void test_parse_u64(void **state) {
        uint64_t v = 7;

        assert_int_equal(parse_u64("0", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(parse_u64("18446744073709551615", &v), 0);
        assert_true(v == UINT64_MAX);
        assert_int_equal(parse_u64("18446744073709551616", &v), -ERANGE);
        assert_int_equal(parse_u64("-1", &v), -EINVAL);
        assert_int_equal(parse_u64("+1", &v), -EINVAL);
        assert_int_equal(parse_u64("1x", &v), -EINVAL);
        assert_int_equal(parse_u64("", &v), -EINVAL);
        assert_int_equal(parse_u64_base("1f", 16, &v), 0);
        assert_int_equal(v, 0x1f);
}

static void test_bool(void **state) {
        bool b;

        assert_int_equal(parse_bool("On", &b), 0);
        assert_true(b);
        assert_int_equal(parse_bool("no", &b), 0);
        assert_false(b);
        assert_int_equal(parse_bool("2", &b), -EINVAL);
        assert_int_equal(parse_bool("", &b), -EINVAL);
}

static void test_names(void **state) {
        assert_true(ifname_valid("enp1s0"));
        assert_true(ifname_valid("eth0.100"));
        assert_false(ifname_valid(""));
        assert_false(ifname_valid(".."));
        assert_false(ifname_valid("a/b"));
        assert_false(ifname_valid("0123456789abcdef")); /* 16 chars: IFNAMSIZ-1 is 15 */
        assert_false(ifname_valid("a b"));
        assert_true(pci_slot_valid("0000:01:00.0"));
        assert_false(pci_slot_valid("0000:01:00.0/.."));
        assert_false(pci_slot_valid("0000:01:00"));
        assert_false(pci_slot_valid("0000:0G:00.0"));
        assert_false(pci_slot_valid("0000:0A:00.0")); /* sysfs spells hex in lower case */
}

static void test_json(void **state) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);

        json_string(f, "a\"b\\c\n\x01");
        fclose(f);
        assert_string_equal(buf, "\"a\\\"b\\\\c\\n\\u0001\"");
        free(buf);
}

static void test_log_levels(void **state) {
        for (int l = LOG_EMERG; l <= LOG_DEBUG; l++)
                assert_int_equal(log_level_from_string(log_level_to_string(l)), l);
        assert_int_equal(log_level_from_string("error"), LOG_ERR);
        assert_int_equal(log_level_from_string("loud"), -EINVAL);
        assert_null(log_level_to_string(42));
}

static void test_link_basename(void **state) {
        char dir[] = "/tmp/r8t-link.XXXXXX", p[64], buf[16];
        int dfd;

        assert_non_null(mkdtemp(dir));
        snprintf(p, sizeof(p), "%s/driver", dir);
        assert_int_equal(symlink("../../../bus/pci/drivers/r8169", p), 0);
        snprintf(p, sizeof(p), "%s/plain", dir);
        assert_int_equal(symlink("r8168", p), 0);
        snprintf(p, sizeof(p), "%s/long", dir);
        assert_int_equal(symlink("../a-name-longer-than-the-buffer", p), 0);
        dfd = open(dir, O_RDONLY | O_DIRECTORY);
        assert_true(dfd >= 0);
        assert_int_equal(readlinkat_basename(dfd, "driver", buf, sizeof(buf)), 0);
        assert_string_equal(buf, "r8169");
        assert_int_equal(readlinkat_basename(dfd, "plain", buf, sizeof(buf)), 0);
        assert_string_equal(buf, "r8168");
        assert_true(readlinkat_basename(dfd, "long", buf, sizeof(buf)) < 0);
        assert_int_equal(readlinkat_basename(dfd, "none", buf, sizeof(buf)), -ENOENT);
        assert_int_equal(readlinkat_basename(-1, "driver", buf, sizeof(buf)), -EBADF);
        close(dfd);
        for (size_t i = 0; i < 3; i++) {
                snprintf(p, sizeof(p), "%s/%s", dir, (const char *[]) { "driver", "plain", "long" }[i]);
                unlink(p);
        }
        rmdir(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_u64), cmocka_unit_test(test_bool),
                cmocka_unit_test(test_names),     cmocka_unit_test(test_json),
                cmocka_unit_test(test_log_levels), cmocka_unit_test(test_link_basename),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
