/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "backend.h"
#include "knob.h"
#include "sysroot.h"

static void test_names_round_trip(void **state) {
        static const char *const expected[] = {
                "clkpm", "l0s_aspm", "l1_aspm", "l1_1_aspm", "l1_2_aspm", "l1_1_pcipm", "l1_2_pcipm",
                "tso", "sg", "gso", "gro", "tx", "rx", "rx-usecs", "rx-frames", "tx-usecs", "tx-frames",
                "gro_flush_timeout", "napi_defer_hard_irqs",
        };
        assert_int_equal(ELEMENTSOF(expected), _KNOB_MAX);
        for (int i = 0; i < _KNOB_MAX; i++) {
                assert_string_equal(knob_get(i)->name, expected[i]);
                assert_int_equal(knob_from_name(expected[i]), i);
                assert_non_null(knob_backend_to_string(knob_get(i)->backend));
        }
        assert_int_equal(knob_from_name("TSO"), _KNOB_INVALID);
        assert_int_equal(knob_from_name(""), _KNOB_INVALID);
        assert_null(knob_get(_KNOB_MAX));
}

static void test_values(void **state) {
        char buf[KNOB_VALUE_MAX];
        uint64_t v;

        for (int i = 0; i < _KNOB_MAX; i++) {
                const Knob *k = knob_get(i);
                const char *text;
                uint64_t probe = k->type == KNOB_TYPE_BOOL ? 1 : 20000 % (k->max + 1);

                /* format → parse is the identity for every knob */
                text = knob_format_value(i, probe, buf, sizeof(buf));
                assert_int_equal(knob_parse_value(i, text, &v), 0);
                assert_int_equal(v, probe);
        }
        assert_int_equal(knob_parse_value(KNOB_CLKPM, "off", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(knob_parse_value(KNOB_TSO, "yes", &v), 0);
        assert_int_equal(v, 1);
        assert_string_equal(knob_format_value(KNOB_TSO, 0, buf, sizeof(buf)), "off");
        assert_string_equal(knob_format_value(KNOB_L1_2_ASPM, 0, buf, sizeof(buf)), "0");
        assert_int_equal(knob_parse_value(KNOB_CLKPM, "2", &v), -EINVAL);
        assert_int_equal(knob_parse_value(KNOB_RX_USECS, "-1", &v), -EINVAL);
        assert_int_equal(knob_parse_value(KNOB_RX_USECS, "4294967296", &v), -ERANGE);
        assert_int_equal(knob_parse_value(KNOB_NAPI_DEFER_HARD_IRQS, "2147483648", &v), -ERANGE);
        assert_int_equal(knob_parse_value(KNOB_GRO_FLUSH_TIMEOUT, "99999999999999999999999", &v), -ERANGE);
        assert_int_equal(knob_parse_value(KNOB_GRO_FLUSH_TIMEOUT, "20000ns", &v), -EINVAL);
        assert_int_equal(knob_parse_value(KNOB_GRO_FLUSH_TIMEOUT, " 1", &v), -EINVAL);
}

static void test_status(void **state) {
        assert_int_equal(knob_status_from_errno(-EOPNOTSUPP), KNOB_STATUS_UNSUPPORTED);
        assert_int_equal(knob_status_from_errno(-ENOENT), KNOB_STATUS_ABSENT);
        assert_int_equal(knob_status_from_errno(-EACCES), KNOB_STATUS_NO_PERMISSION);
        assert_int_equal(knob_status_from_errno(-ENODEV), KNOB_STATUS_NO_INTERFACE);
        assert_int_equal(knob_status_from_errno(-EIO), KNOB_STATUS_ERROR);
        for (int s = 0; s < _KNOB_STATUS_MAX; s++)
                assert_non_null(knob_status_to_string(s));
}

/* The tso pattern must catch every TCP segmentation flavour the running kernel names. */
static void test_feature_patterns(void **state) {
        EthtoolFeature f[] = {
                { "tx-tcp-segmentation", true, true },
                { "tx-tcp-ecn-segmentation", true, false },
                { "tx-tcp-mangleid-segmentation", true, true },
                { "tx-tcp6-segmentation", true, true },
                { "tx-tcp-accecn-segmentation", true, true },
                { "tx-scatter-gather", true, true },
                { "tx-scatter-gather-fraglist", false, false },
                { "rx-gro", true, false },
                { "rx-gro-hw", false, true },
                { "tx-udp-segmentation", true, true },
        };
        EthtoolFeatures fs = { f, ELEMENTSOF(f) };
        KnobReading r;

        backend_feature_reading(&fs, KNOB_TSO, &r);
        assert_int_equal(r.status, KNOB_STATUS_OK);
        assert_true(r.partial); /* ecn off, the rest on */
        f[1].active = true;
        backend_feature_reading(&fs, KNOB_TSO, &r);
        assert_false(r.partial);
        assert_int_equal(r.value, 1);
        /* A fixed feature does not count against a changeable one. */
        backend_feature_reading(&fs, KNOB_SG, &r);
        assert_int_equal(r.value, 1);
        assert_false(r.partial);
        /* "gro" is rx-gro only, not rx-gro-hw. */
        backend_feature_reading(&fs, KNOB_GRO, &r);
        assert_int_equal(r.value, 0);
        backend_feature_reading(&fs, KNOB_RX, &r);
        assert_int_equal(r.status, KNOB_STATUS_ABSENT);

        /* And back: which knob a kernel feature belongs to (undo journal entries). */
        assert_int_equal(knob_from_feature("tx-tcp-accecn-segmentation"), KNOB_TSO);
        assert_int_equal(knob_from_feature("tx-scatter-gather-fraglist"), KNOB_SG);
        assert_int_equal(knob_from_feature("rx-gro"), KNOB_GRO);
        assert_int_equal(knob_from_feature("rx-gro-hw"), _KNOB_INVALID);
        assert_int_equal(knob_from_feature("tx-udp-segmentation"), _KNOB_INVALID);
}

static void test_sysroot_allowlist(void **state) {
        assert_true(sysroot_attr_allowed("clkpm", true));
        assert_true(sysroot_attr_allowed("gro_flush_timeout", true));
        assert_false(sysroot_attr_allowed("vendor", true));
        assert_false(sysroot_attr_allowed("remove", true));
        assert_false(sysroot_attr_allowed("config", false)); /* libpci reads config space, not us */
        assert_true(sysroot_attr_allowed("resource2", false));
        assert_false(sysroot_attr_allowed("resource2", true));
        assert_false(sysroot_attr_allowed("../vendor", false));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names_round_trip), cmocka_unit_test(test_values),
                cmocka_unit_test(test_status),           cmocka_unit_test(test_feature_patterns),
                cmocka_unit_test(test_sysroot_allowlist),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
