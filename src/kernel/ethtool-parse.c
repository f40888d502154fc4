/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fnmatch.h>
#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "base/log.h"
#include "kernel/ethtool-parse.h"
#include "kernel/netlink-util.h"

void ethtool_features_done(EthtoolFeatures *f) {
        free(f->features);
        *f = (EthtoolFeatures) {};
}

const EthtoolFeature *ethtool_features_find(const EthtoolFeatures *f, const char *name) {
        for (size_t i = 0; i < f->n; i++)
                if (streq(f->features[i].name, name))
                        return &f->features[i];
        return NULL;
}

static EthtoolFeature *features_get_or_add(EthtoolFeatures *f, const char *name) {
        EthtoolFeature *n;

        for (size_t i = 0; i < f->n; i++)
                if (streq(f->features[i].name, name))
                        return &f->features[i];
        if (f->n >= 1024)
                return NULL;
        n = reallocarray(f->features, f->n + 1, sizeof(*n));
        if (!n)
                return NULL;
        f->features = n;
        n = &f->features[f->n];
        *n = (EthtoolFeature) {};
        if (strscpy(n->name, sizeof(n->name), name) < 0)
                return NULL;
        f->n++;
        return n;
}

/* The flags of a feature a bitset can speak for. */
enum { FEATURE_CHANGEABLE, FEATURE_ACTIVE };

static void feature_set_flag(EthtoolFeature *f, int which, bool v) {
        if (which == FEATURE_CHANGEABLE)
                f->changeable = v;
        else
                f->active = v;
}

void ethtool_strings_done(EthtoolStrings *s) {
        free(s->names);
        *s = (EthtoolStrings) {};
}

static bool word_bit(const uint8_t *words, size_t i) {
        uint32_t w;

        memcpy(&w, words + i / 32 * sizeof(uint32_t), sizeof(w)); /* attribute data: 4-byte aligned by luck only */
        return w & (UINT32_C(1) << (i % 32));
}

/*
 * A compact bitset: SIZE bits in VALUE and, unless NOMASK, MASK (32-bit words, host
 * order), named by their index in the string set. As in a verbose one, the bits of the
 * mask are known (VALUE says on or off); without a mask the bits set are listed, on.
 */
static int parse_compact_bitset(struct nlattr **tb, FeaturesParse *p, int which) {
        const EthtoolStrings *names = p->names;
        size_t n, words;
        uint32_t size;

        if (!names || names->n == 0)
                return -EPROTO; /* compact without names: not asked for */
        if (!tb[ETHTOOL_A_BITSET_SIZE] || !tb[ETHTOOL_A_BITSET_VALUE])
                return -EBADMSG;
        size = nla_get_u32(tb[ETHTOOL_A_BITSET_SIZE]);
        words = ((size_t) size + 31) / 32 * sizeof(uint32_t);
        if (size > 4096 || (size_t) nla_len(tb[ETHTOOL_A_BITSET_VALUE]) < words ||
            (tb[ETHTOOL_A_BITSET_MASK] && (size_t) nla_len(tb[ETHTOOL_A_BITSET_MASK]) < words))
                return -EBADMSG;
        if (p->f->n == 0 && !p->indexed) {
                p->listed = calloc(names->n, 1);
                if (!p->listed)
                        return -ENOMEM;
                p->indexed = true; /* finish frees listed, whatever happens next */
                p->f->features = calloc(names->n, sizeof(EthtoolFeature));
                if (!p->f->features)
                        return -ENOMEM;
                for (size_t i = 0; i < names->n; i++)
                        memcpy(p->f->features[i].name, names->names[i], ETH_GSTRING_LEN);
                p->f->n = names->n;
        }
        n = size < names->n ? size : names->n;
        for (size_t i = 0; i < n; i++) {
                const uint8_t *mask = tb[ETHTOOL_A_BITSET_MASK] ? nla_data(tb[ETHTOOL_A_BITSET_MASK])
                                                                 : nla_data(tb[ETHTOOL_A_BITSET_VALUE]);
                EthtoolFeature *feat;

                if (!names->names[i][0] || !word_bit(mask, i))
                        continue;
                feat = p->indexed ? &p->f->features[i] : features_get_or_add(p->f, names->names[i]);
                if (!feat)
                        return -ENOMEM;
                if (p->indexed)
                        p->listed[i] = 1;
                feature_set_flag(feat, which, word_bit(nla_data(tb[ETHTOOL_A_BITSET_VALUE]), i));
        }
        return 0;
}

/* The end of a message: what no bitset spoke of goes; indices mean nothing any more. */
static void features_parse_finish(FeaturesParse *p) {
        size_t k = 0;

        if (!p->indexed)
                return;
        for (size_t i = 0; i < p->f->n; i++)
                if (i >= p->names->n || p->listed[i])
                        p->f->features[k++] = p->f->features[i];
        p->f->n = k;
        p->indexed = false;
        free(p->listed);
        p->listed = NULL;
}

/*
 * A verbose bitset: with a mask (no NOMASK), every listed bit is known and VALUE says
 * on/off; as a list (NOMASK), the listed bits are the ones on. A compact one (no BITS)
 * is read by index with the string set.
 */
static int parse_bitset(struct nlattr *attr, FeaturesParse *p, int which) {
        static struct nla_policy bitset_policy[ETHTOOL_A_BITSET_MAX + 1] = {
                [ETHTOOL_A_BITSET_NOMASK] = { .type = NLA_FLAG },
                [ETHTOOL_A_BITSET_SIZE] = { .type = NLA_U32 },
                [ETHTOOL_A_BITSET_BITS] = { .type = NLA_NESTED },
        };
        static struct nla_policy bit_policy[ETHTOOL_A_BITSET_BIT_MAX + 1] = {
                [ETHTOOL_A_BITSET_BIT_INDEX] = { .type = NLA_U32 },
                [ETHTOOL_A_BITSET_BIT_NAME] = { .type = NLA_NUL_STRING, .maxlen = ETH_GSTRING_LEN },
                [ETHTOOL_A_BITSET_BIT_VALUE] = { .type = NLA_FLAG },
        };
        struct nlattr *tb[ETHTOOL_A_BITSET_MAX + 1], *bit;
        bool list;
        int rem;

        if (nla_parse_nested(tb, ETHTOOL_A_BITSET_MAX, attr, bitset_policy) < 0)
                return -EBADMSG;
        if (!tb[ETHTOOL_A_BITSET_BITS])
                return tb[ETHTOOL_A_BITSET_VALUE] ? parse_compact_bitset(tb, p, which) : 0;
        list = tb[ETHTOOL_A_BITSET_NOMASK];

        nla_for_each_nested(bit, tb[ETHTOOL_A_BITSET_BITS], rem) {
                struct nlattr *bt[ETHTOOL_A_BITSET_BIT_MAX + 1];
                char name[ETH_GSTRING_LEN];
                EthtoolFeature *feat;

                if (nla_type(bit) != ETHTOOL_A_BITSET_BITS_BIT)
                        continue;
                if (nla_parse_nested(bt, ETHTOOL_A_BITSET_BIT_MAX, bit, bit_policy) < 0)
                        return -EBADMSG;
                if (!bt[ETHTOOL_A_BITSET_BIT_NAME] || netlink_attr_string(bt[ETHTOOL_A_BITSET_BIT_NAME], name, sizeof(name)) < 0)
                        return -EBADMSG;
                feat = features_get_or_add(p->f, name);
                if (!feat)
                        return -ENOMEM;
                if (p->indexed && (size_t) (feat - p->f->features) < p->names->n)
                        p->listed[feat - p->f->features] = 1;
                feature_set_flag(feat, which, list || bt[ETHTOOL_A_BITSET_BIT_VALUE]);
        }
        return 0;
}

static int genl_attrs(struct nlmsghdr *nlh, struct nlattr **tb, int max, struct nla_policy *policy) {
        if (!genlmsg_valid_hdr(nlh, 0))
                return -EBADMSG;
        if (genlmsg_parse(nlh, 0, tb, max, policy) < 0)
                return -EBADMSG;
        return 0;
}

int ethtool_features_parse_nlh(struct nlmsghdr *nlh, void *userdata) {
        static struct nla_policy policy[ETHTOOL_A_FEATURES_MAX + 1] = {
                [ETHTOOL_A_FEATURES_HEADER] = { .type = NLA_NESTED },
                [ETHTOOL_A_FEATURES_HW] = { .type = NLA_NESTED },
                [ETHTOOL_A_FEATURES_WANTED] = { .type = NLA_NESTED },
                [ETHTOOL_A_FEATURES_ACTIVE] = { .type = NLA_NESTED },
                [ETHTOOL_A_FEATURES_NOCHANGE] = { .type = NLA_NESTED },
        };
        static const struct {
                int attr, which;
        } sets[] = {
                { ETHTOOL_A_FEATURES_HW, FEATURE_CHANGEABLE },
                { ETHTOOL_A_FEATURES_ACTIVE, FEATURE_ACTIVE },
        };
        struct nlattr *tb[ETHTOOL_A_FEATURES_MAX + 1];
        FeaturesParse *p = userdata;
        int r;

        r = genl_attrs(nlh, tb, ETHTOOL_A_FEATURES_MAX, policy);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(sets) && r >= 0; i++)
                if (tb[sets[i].attr])
                        r = parse_bitset(tb[sets[i].attr], p, sets[i].which);
        features_parse_finish(p);
        return r;
}

int ethtool_features_set_reply_parse_nlh(struct nlmsghdr *nlh, void *userdata) {
        struct nlattr *tb[ETHTOOL_A_FEATURES_MAX + 1];
        SetReply *p = userdata;
        int r;

        r = genl_attrs(nlh, tb, ETHTOOL_A_FEATURES_MAX, NULL);
        if (r < 0)
                return r;
        if (tb[ETHTOOL_A_FEATURES_WANTED]) {
                r = parse_bitset(tb[ETHTOOL_A_FEATURES_WANTED], &p->refused, FEATURE_ACTIVE);
                features_parse_finish(&p->refused);
        }
        if (r >= 0 && tb[ETHTOOL_A_FEATURES_ACTIVE]) {
                r = parse_bitset(tb[ETHTOOL_A_FEATURES_ACTIVE], &p->changed, FEATURE_ACTIVE);
                features_parse_finish(&p->changed);
        }
        return r;
}

int ethtool_strings_parse_nlh(struct nlmsghdr *nlh, void *userdata) {
        static struct nla_policy set_policy[ETHTOOL_A_STRINGSET_MAX + 1] = {
                [ETHTOOL_A_STRINGSET_ID] = { .type = NLA_U32 },
                [ETHTOOL_A_STRINGSET_COUNT] = { .type = NLA_U32 },
                [ETHTOOL_A_STRINGSET_STRINGS] = { .type = NLA_NESTED },
        };
        static struct nla_policy str_policy[ETHTOOL_A_STRING_MAX + 1] = {
                [ETHTOOL_A_STRING_INDEX] = { .type = NLA_U32 },
                [ETHTOOL_A_STRING_VALUE] = { .type = NLA_NUL_STRING, .maxlen = ETH_GSTRING_LEN },
        };
        struct nlattr *tb[ETHTOOL_A_STRSET_MAX + 1], *set, *str;
        StringsParse *p = userdata;
        int rem, r;

        r = genl_attrs(nlh, tb, ETHTOOL_A_STRSET_MAX, NULL);
        if (r < 0)
                return r;
        if (!tb[ETHTOOL_A_STRSET_STRINGSETS])
                return 0;
        nla_for_each_nested(set, tb[ETHTOOL_A_STRSET_STRINGSETS], rem) {
                struct nlattr *st[ETHTOOL_A_STRINGSET_MAX + 1];
                uint32_t count;
                int rem2;

                if (nla_type(set) != ETHTOOL_A_STRINGSETS_STRINGSET)
                        continue;
                if (nla_parse_nested(st, ETHTOOL_A_STRINGSET_MAX, set, set_policy) < 0)
                        return -EBADMSG;
                if (!st[ETHTOOL_A_STRINGSET_ID] || nla_get_u32(st[ETHTOOL_A_STRINGSET_ID]) != p->id)
                        continue;
                if (!st[ETHTOOL_A_STRINGSET_COUNT] || p->s->names)
                        return -EBADMSG;
                count = nla_get_u32(st[ETHTOOL_A_STRINGSET_COUNT]);
                if (count == 0 || count > 4096)
                        return -EBADMSG;
                p->s->names = calloc(count, ETH_GSTRING_LEN);
                if (!p->s->names)
                        return -ENOMEM;
                p->s->n = count;
                if (!st[ETHTOOL_A_STRINGSET_STRINGS])
                        continue;
                nla_for_each_nested(str, st[ETHTOOL_A_STRINGSET_STRINGS], rem2) {
                        struct nlattr *a[ETHTOOL_A_STRING_MAX + 1];
                        uint32_t i;

                        if (nla_type(str) != ETHTOOL_A_STRINGS_STRING)
                                continue;
                        if (nla_parse_nested(a, ETHTOOL_A_STRING_MAX, str, str_policy) < 0 || !a[ETHTOOL_A_STRING_INDEX] ||
                            !a[ETHTOOL_A_STRING_VALUE])
                                return -EBADMSG;
                        i = nla_get_u32(a[ETHTOOL_A_STRING_INDEX]);
                        if (i >= count || netlink_attr_string(a[ETHTOOL_A_STRING_VALUE], p->s->names[i], ETH_GSTRING_LEN) < 0)
                                return -EBADMSG;
                }
        }
        return 0;
}

/* The attributes the caller asked for, each of the width it expects (u8 or u32). */
int ethtool_attrs_parse_nlh(struct nlmsghdr *nlh, void *userdata) {
        struct nlattr *tb[ETHTOOL_ATTRS_MAX];
        AttrsParse *p = userdata;
        int max = ETHTOOL_ATTRS_MAX - 1;
        int r;

        r = genl_attrs(nlh, tb, max, NULL);
        if (r < 0)
                return r;
        for (int i = 1; i <= max; i++) {
                if (!tb[i] || p->width[i] == 0 || nla_len(tb[i]) != p->width[i])
                        continue; /* the header, nests, and what no knob reads */
                p->attrs->value[i] = p->width[i] == 1 ? nla_get_u8(tb[i]) : nla_get_u32(tb[i]);
                p->attrs->present[i] = true;
        }
        return 0;
}

/* Validates a raw buffer as one netlink message before the parsers see it. */
static struct nlmsghdr *raw_message(const void *buf, size_t len) {
        const struct nlmsghdr *nlh = buf;

        if (len < NLMSG_HDRLEN || len > INT32_MAX || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
                return NULL;
        return (struct nlmsghdr *) nlh;
}

int ethtool_nl_parse_features(const void *buf, size_t len, const EthtoolStrings *names, EthtoolFeatures *ret) {
        EthtoolFeatures f = {};
        struct nlmsghdr *nlh = raw_message(buf, len);
        int r;

        if (!nlh)
                return -EBADMSG;
        r = ethtool_features_parse_nlh(nlh, &(FeaturesParse) { .f = &f, .names = names });
        if (r < 0) {
                ethtool_features_done(&f);
                return r;
        }
        *ret = f;
        return 0;
}

int ethtool_nl_parse_strings(const void *buf, size_t len, uint32_t id, EthtoolStrings *ret) {
        EthtoolStrings s = {};
        struct nlmsghdr *nlh = raw_message(buf, len);
        int r;

        if (!nlh)
                return -EBADMSG;
        r = ethtool_strings_parse_nlh(nlh, &(StringsParse) { id, &s });
        if (r < 0) {
                ethtool_strings_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

int ethtool_nl_parse_attrs(const void *buf, size_t len, const uint8_t width[ETHTOOL_ATTRS_MAX], EthtoolAttrs *ret) {
        EthtoolAttrs a = {};
        struct nlmsghdr *nlh = raw_message(buf, len);
        int r;

        if (!nlh)
                return -EBADMSG;
        r = ethtool_attrs_parse_nlh(nlh, &(AttrsParse) { width, &a });
        if (r < 0)
                return r;
        *ret = a;
        return 0;
}

int ethtool_header_parse_nlh(struct nlmsghdr *nlh, uint8_t *ret_cmd, char *ifname, size_t size) {
        static struct nla_policy hdr_policy[ETHTOOL_A_HEADER_MAX + 1] = {
                [ETHTOOL_A_HEADER_DEV_INDEX] = { .type = NLA_U32 },
                [ETHTOOL_A_HEADER_DEV_NAME] = { .type = NLA_NUL_STRING, .maxlen = IFNAMSIZ },
        };
        struct nlattr *tb[2], *hdr[ETHTOOL_A_HEADER_MAX + 1];
        struct genlmsghdr *g;

        if (!genlmsg_valid_hdr(nlh, 0))
                return -EBADMSG;
        g = nlmsg_data(nlh);
        /* Every ethtool message has its request header as attribute 1. */
        if (genlmsg_parse(nlh, 0, tb, 1, NULL) < 0 || !tb[1])
                return -EBADMSG;
        if (nla_parse_nested(hdr, ETHTOOL_A_HEADER_MAX, tb[1], hdr_policy) < 0 || !hdr[ETHTOOL_A_HEADER_DEV_NAME])
                return -EBADMSG;
        if (netlink_attr_string(hdr[ETHTOOL_A_HEADER_DEV_NAME], ifname, size) < 0)
                return -EBADMSG;
        *ret_cmd = g->cmd;
        return 0;
}

int ethtool_nl_parse_notification(const void *buf, size_t len, uint8_t *ret_cmd, char *ifname, size_t size) {
        struct nlmsghdr *nlh = raw_message(buf, len);
        if (!nlh)
                return -EBADMSG;
        return ethtool_header_parse_nlh(nlh, ret_cmd, ifname, size);
}
