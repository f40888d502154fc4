/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ethtool netlink against the running kernel, on the loopback interface (no root needed for
 * the reads, nothing changed by the refused write). A request with one reply is answered by
 * it, without an ACK; one with no reply by its ACK or error: each answer must be taken as its
 * own request's, however the two kinds follow each other.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/ethtool_netlink.h>

#include "kernel/ethtool-nl.h"

static void test_answers_in_turn(void **state) {
        _cleanup_(ethtool_nl_freep) EthtoolNl *e = NULL;
        const uint16_t attrs[] = { ETHTOOL_A_COALESCE_RX_USECS };
        const uint8_t widths[] = { 4 };
        const uint32_t values[] = { 0 };
        EthtoolError err;
        int r;

        r = ethtool_nl_new(&e);
        if (r == -EOPNOTSUPP)
                skip(); /* a kernel before 5.6: nothing of this to test */
        assert_int_equal(r, 0);
        for (int round = 0; round < 3; round++) {
                EthtoolFeatures f = {};

                assert_int_equal(ethtool_nl_features_get(e, "lo", &f, &err), 0);
                assert_true(f.n > 0);
                ethtool_features_done(&f);
                /* lo has no coalescing: the kernel refuses (EOPNOTSUPP, or EPERM without
                 * CAP_NET_ADMIN), and that refusal is this request's answer, not a stray
                 * message's (which libnl would call a sequence mismatch: EIO). */
                r = ethtool_nl_attrs_set(e, ETHTOOL_MSG_COALESCE_SET, ETHTOOL_A_COALESCE_HEADER, "lo", attrs, widths,
                                         values, 1, &err);
                assert_true(r == -EOPNOTSUPP || r == -EPERM);
                assert_int_equal(err.error, r);
        }
        /* And a device that is not there: its error, in turn too. */
        {
                EthtoolFeatures f = {};
                assert_int_equal(ethtool_nl_features_get(e, "r8t-no-such0", &f, &err), -ENODEV);
                assert_int_equal(ethtool_nl_features_get(e, "lo", &f, &err), 0);
                ethtool_features_done(&f);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_answers_in_turn),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
