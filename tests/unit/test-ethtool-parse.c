/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "kernel/backend.h"

typedef struct Bit {
        const char *name;
        bool value;
} Bit;

static void put_bitset(struct nl_msg *m, int attr, const Bit *bits, size_t n, bool list) {
        struct nlattr *set = nla_nest_start(m, attr), *b = NULL;

        if (list)
                nla_put_flag(m, ETHTOOL_A_BITSET_NOMASK);
        b = nla_nest_start(m, ETHTOOL_A_BITSET_BITS);
        for (size_t i = 0; i < n; i++) {
                struct nlattr *bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
                nla_put_u32(m, ETHTOOL_A_BITSET_BIT_INDEX, (uint32_t) i);
                nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, bits[i].name);
                if (bits[i].value)
                        nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE);
                nla_nest_end(m, bit);
        }
        nla_nest_end(m, b);
        nla_nest_end(m, set);
}

/* A FEATURES_GET reply as the kernel builds it without COMPACT_BITSETS. */
static struct nl_msg *features_reply(void) {
        static const Bit hw[] = { { "tx-scatter-gather", true }, { "tx-tcp-segmentation", true }, { "highdma", false } };
        static const Bit active[] = { { "tx-scatter-gather", true }, { "highdma", true } };
        struct nl_msg *m = nlmsg_alloc();

        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_FEATURES_GET_REPLY, 1);
        put_bitset(m, ETHTOOL_A_FEATURES_HW, hw, ELEMENTSOF(hw), false);
        put_bitset(m, ETHTOOL_A_FEATURES_ACTIVE, active, ELEMENTSOF(active), true);
        return m;
}

static void test_features(void **state) {
        struct nl_msg *m = features_reply();
        struct nlmsghdr *h = nlmsg_hdr(m);
        EthtoolFeatures f = {};
        const EthtoolFeature *e;

        assert_int_equal(ethtool_nl_parse_features(h, h->nlmsg_len, NULL, &f), 0);
        assert_int_equal(f.n, 3);
        e = ethtool_features_find(&f, "tx-scatter-gather");
        assert_true(e->changeable && e->active);
        e = ethtool_features_find(&f, "tx-tcp-segmentation");
        assert_true(e->changeable && !e->active);
        e = ethtool_features_find(&f, "highdma");
        assert_true(!e->changeable && e->active);
        assert_null(ethtool_features_find(&f, "rx-gro"));
        ethtool_features_done(&f);
        nlmsg_free(m);
}

static void test_truncated(void **state) {
        struct nl_msg *m = features_reply();
        struct nlmsghdr *h = nlmsg_hdr(m);
        EthtoolFeatures f = {};
        uint8_t buf[4096];
        size_t len = h->nlmsg_len;

        memcpy(buf, h, len);
        /* every truncation either parses a consistent prefix or fails, never reads past the end */
        for (size_t cut = 0; cut < len; cut++) {
                struct nlmsghdr *c = (struct nlmsghdr *) buf;
                c->nlmsg_len = (uint32_t) cut;
                if (ethtool_nl_parse_features(buf, cut, NULL, &f) == 0)
                        ethtool_features_done(&f);
        }
        assert_int_equal(ethtool_nl_parse_features(buf, 3, NULL, &f), -EBADMSG);
        nlmsg_free(m);
}

static void test_coalesce(void **state) {
        struct nl_msg *m = nlmsg_alloc();
        struct nlmsghdr *h;
        EthtoolAttrs c;

        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_COALESCE_GET_REPLY, 1);
        nla_put_u32(m, ETHTOOL_A_COALESCE_RX_USECS, 50);
        nla_put_u32(m, ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 0);
        nla_put_u8(m, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 1);
        h = nlmsg_hdr(m);
        assert_int_equal(backend_parse_group_reply(&knob_backends[KNOB_BACKEND_COALESCE], h, h->nlmsg_len, &c), 0);
        assert_true(c.present[ETHTOOL_A_COALESCE_RX_USECS]);
        assert_int_equal(c.value[ETHTOOL_A_COALESCE_RX_USECS], 50);
        assert_true(c.present[ETHTOOL_A_COALESCE_TX_MAX_FRAMES]);
        assert_false(c.present[ETHTOOL_A_COALESCE_RX_MAX_FRAMES]);
        assert_false(c.present[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX]); /* u8 flag, not a knob */
        nlmsg_free(m);
}

/* Found by fuzz-ethtool-reply: a feature name without its NUL made the parser read past the
 * attribute (libnl's NLA_NUL_STRING policy does not check termination). */
static void test_unterminated_name(void **state) {
        struct nl_msg *m = nlmsg_alloc();
        struct nlattr *set, *bits, *bit;
        struct nlmsghdr *h;
        EthtoolFeatures f = {};
        char ifname[16];
        uint8_t cmd;

        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_FEATURES_GET_REPLY, 1);
        set = nla_nest_start(m, ETHTOOL_A_FEATURES_ACTIVE);
        nla_put_flag(m, ETHTOOL_A_BITSET_NOMASK);
        bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS);
        bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
        nla_put(m, ETHTOOL_A_BITSET_BIT_NAME, 3, "abc"); /* no NUL */
        nla_nest_end(m, bit);
        nla_nest_end(m, bits);
        nla_nest_end(m, set);
        h = nlmsg_hdr(m);
        assert_int_equal(ethtool_nl_parse_features(h, h->nlmsg_len, NULL, &f), -EBADMSG);
        nlmsg_free(m);

        /* The same for a notification's device name. */
        m = nlmsg_alloc();
        genlmsg_put(m, 0, 0, 20, 0, 0, ETHTOOL_MSG_FEATURES_NTF, 1);
        set = nla_nest_start(m, ETHTOOL_A_FEATURES_HEADER);
        nla_put(m, ETHTOOL_A_HEADER_DEV_NAME, 4, "eth0");
        nla_nest_end(m, set);
        h = nlmsg_hdr(m);
        assert_int_equal(ethtool_nl_parse_notification(h, h->nlmsg_len, &cmd, ifname, sizeof(ifname)), -EBADMSG);
        nlmsg_free(m);
        m = nlmsg_alloc();
        genlmsg_put(m, 0, 0, 20, 0, 0, ETHTOOL_MSG_FEATURES_NTF, 1);
        set = nla_nest_start(m, ETHTOOL_A_FEATURES_HEADER);
        nla_put_string(m, ETHTOOL_A_HEADER_DEV_NAME, "enp1s0");
        nla_nest_end(m, set);
        h = nlmsg_hdr(m);
        assert_int_equal(ethtool_nl_parse_notification(h, h->nlmsg_len, &cmd, ifname, sizeof(ifname)), 0);
        assert_string_equal(ifname, "enp1s0");
        assert_int_equal(cmd, ETHTOOL_MSG_FEATURES_NTF);
        nlmsg_free(m);
}

static void put_compact(struct nl_msg *m, int attr, uint32_t size, uint32_t value, const uint32_t *mask) {
        struct nlattr *set = nla_nest_start(m, attr);

        if (!mask)
                nla_put_flag(m, ETHTOOL_A_BITSET_NOMASK);
        nla_put_u32(m, ETHTOOL_A_BITSET_SIZE, size);
        nla_put(m, ETHTOOL_A_BITSET_VALUE, sizeof(value), &value);
        if (mask)
                nla_put(m, ETHTOOL_A_BITSET_MASK, sizeof(*mask), mask);
        nla_nest_end(m, set);
}

/* Compact bitsets (what COMPACT_BITSETS and every notification bring) read with the string set. */
static void test_compact(void **state) {
        static char names[4][ETH_GSTRING_LEN] = { "tx-scatter-gather", "", "tx-tcp-segmentation", "highdma" };
        const EthtoolStrings set = { names, 4 };
        const uint32_t all = 0xf, some = 0x5; /* bits 0 and 2 */
        struct nl_msg *m = nlmsg_alloc();
        struct nlmsghdr *h;
        EthtoolFeatures f = {};
        const EthtoolFeature *e;

        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_FEATURES_GET_REPLY, 1);
        put_compact(m, ETHTOOL_A_FEATURES_HW, 4, 0x1, &all);   /* SG changeable, TSO and highdma fixed */
        put_compact(m, ETHTOOL_A_FEATURES_ACTIVE, 4, 0x9, NULL); /* SG and highdma on */
        h = nlmsg_hdr(m);
        assert_int_equal(ethtool_nl_parse_features(h, h->nlmsg_len, &set, &f), 0);
        assert_int_equal(f.n, 3); /* the unnamed bit is nobody's */
        e = ethtool_features_find(&f, "tx-scatter-gather");
        assert_true(e->changeable && e->active);
        e = ethtool_features_find(&f, "tx-tcp-segmentation");
        assert_true(!e->changeable && !e->active);
        e = ethtool_features_find(&f, "highdma");
        assert_true(!e->changeable && e->active);
        ethtool_features_done(&f);
        /* Without the names a compact bitset cannot be read: said, not guessed. */
        assert_int_equal(ethtool_nl_parse_features(h, h->nlmsg_len, NULL, &f), -EPROTO);
        nlmsg_free(m);

        /* With a mask only the masked bits are known (a SET reply's diff): nothing else is listed. */
        m = nlmsg_alloc();
        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_FEATURES_GET_REPLY, 1);
        put_compact(m, ETHTOOL_A_FEATURES_HW, 4, 0x4, &some);
        h = nlmsg_hdr(m);
        assert_int_equal(ethtool_nl_parse_features(h, h->nlmsg_len, &set, &f), 0);
        assert_int_equal(f.n, 2);
        assert_false(ethtool_features_find(&f, "tx-scatter-gather")->changeable);
        assert_true(ethtool_features_find(&f, "tx-tcp-segmentation")->changeable);
        assert_null(ethtool_features_find(&f, "highdma"));
        ethtool_features_done(&f);
        nlmsg_free(m);

        /* A bitset shorter than its SIZE says: refused. */
        m = nlmsg_alloc();
        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_FEATURES_GET_REPLY, 1);
        put_compact(m, ETHTOOL_A_FEATURES_ACTIVE, 64, 0x1, NULL);
        h = nlmsg_hdr(m);
        assert_int_equal(ethtool_nl_parse_features(h, h->nlmsg_len, &set, &f), -EBADMSG);
        nlmsg_free(m);
}

/* STRSET_GET's reply: the features' names by index, other sets ignored. */
static void test_strings(void **state) {
        static const char *const want[] = { "tx-scatter-gather", "tx-checksum-ipv4" };
        struct nl_msg *m = nlmsg_alloc();
        struct nlattr *sets, *set, *strs, *str;
        struct nlmsghdr *h;
        EthtoolStrings s = {};

        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_STRSET_GET_REPLY, 1);
        sets = nla_nest_start(m, ETHTOOL_A_STRSET_STRINGSETS);
        for (uint32_t id = ETH_SS_STATS; id <= ETH_SS_FEATURES; id += ETH_SS_FEATURES - ETH_SS_STATS) {
                set = nla_nest_start(m, ETHTOOL_A_STRINGSETS_STRINGSET);
                nla_put_u32(m, ETHTOOL_A_STRINGSET_ID, id);
                nla_put_u32(m, ETHTOOL_A_STRINGSET_COUNT, 3);
                strs = nla_nest_start(m, ETHTOOL_A_STRINGSET_STRINGS);
                for (uint32_t i = 0; i < 2; i++) {
                        str = nla_nest_start(m, ETHTOOL_A_STRINGS_STRING);
                        nla_put_u32(m, ETHTOOL_A_STRING_INDEX, i == 0 ? 0 : 2);
                        nla_put_string(m, ETHTOOL_A_STRING_VALUE, id == ETH_SS_FEATURES ? want[i] : "rx_packets");
                        nla_nest_end(m, str);
                }
                nla_nest_end(m, strs);
                nla_nest_end(m, set);
        }
        nla_nest_end(m, sets);
        h = nlmsg_hdr(m);
        assert_int_equal(ethtool_nl_parse_strings(h, h->nlmsg_len, ETH_SS_FEATURES, &s), 0);
        assert_int_equal(s.n, 3);
        assert_string_equal(s.names[0], "tx-scatter-gather");
        assert_string_equal(s.names[1], "");
        assert_string_equal(s.names[2], "tx-checksum-ipv4");
        ethtool_strings_done(&s);
        nlmsg_free(m);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_features), cmocka_unit_test(test_truncated), cmocka_unit_test(test_coalesce),
                cmocka_unit_test(test_unterminated_name), cmocka_unit_test(test_compact), cmocka_unit_test(test_strings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
