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
#include "kernel/ethtool-nl.h"
#include "kernel/netlink-util.h"

#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif

struct EthtoolNl {
        struct nl_sock *sock;
        int family;
        /*
         * The kernel's feature names by bit (string set ETH_SS_FEATURES, the same for every
         * device), asked once: with them feature bitsets travel compact, a few words instead
         * of a name per feature, and notifications (always compact) can be read.
         */
        EthtoolStrings feature_names;
        bool feature_names_asked;
        /* Requests for index_name also carry its ifindex: the kernel then checks the two agree. */
        char index_name[IFNAMSIZ];
        int index;
};

typedef int (*reply_parser)(struct nlmsghdr *nlh, void *userdata);

typedef struct Request {
        bool done;
        int error;
        int parse_error;
        EthtoolError *err;
        reply_parser parse;
        void *userdata;
} Request;

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

/* What a features message is decoded into, and with which names compact bitsets are read. */
typedef struct FeaturesParse {
        EthtoolFeatures *f;
        const EthtoolStrings *names; /* NULL: verbose bitsets only */
        /*
         * Filled from names, f->features[i] is bit i; listed[i] says whether a bitset of the
         * message spoke of it (the others go at the end, as a verbose reply never names them).
         */
        bool indexed;
        uint8_t *listed;
} FeaturesParse;

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

static int features_parse_nlh(struct nlmsghdr *nlh, void *userdata) {
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

/*
 * A SET reply (kernel-facts §7): WANTED lists exactly the requested bits the kernel did not
 * apply (with the value asked for), ACTIVE every bit whose state changed (with its new one).
 */
typedef struct SetReply {
        FeaturesParse refused, changed;
} SetReply;

static int features_set_reply_parse_nlh(struct nlmsghdr *nlh, void *userdata) {
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

/* STRSET_GET's reply: the strings of set id, by index (an index it does not list stays ""). */
typedef struct StringsParse {
        uint32_t id;
        EthtoolStrings *s;
} StringsParse;

static int strings_parse_nlh(struct nlmsghdr *nlh, void *userdata) {
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

typedef struct AttrsParse {
        const uint8_t *width;
        EthtoolAttrs *attrs;
} AttrsParse;

/* The attributes the caller asked for, each of the width it expects (u8 or u32). */
static int attrs_parse_nlh(struct nlmsghdr *nlh, void *userdata) {
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
        r = features_parse_nlh(nlh, &(FeaturesParse) { .f = &f, .names = names });
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
        r = strings_parse_nlh(nlh, &(StringsParse) { id, &s });
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
        r = attrs_parse_nlh(nlh, &(AttrsParse) { width, &a });
        if (r < 0)
                return r;
        *ret = a;
        return 0;
}

static int on_valid(struct nl_msg *msg, void *arg) {
        Request *req = arg;
        int r;

        if (!req->parse || req->parse_error < 0)
                return NL_OK;
        r = req->parse(nlmsg_hdr(msg), req->userdata);
        if (r < 0)
                req->parse_error = r;
        return NL_OK;
}

/* The kernel's errno and, with NETLINK_EXT_ACK, its explanation. */
static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg) {
        Request *req = arg;
        struct nlmsghdr *nlh = (struct nlmsghdr *) ((uint8_t *) e - NLMSG_HDRLEN);
        size_t off, len;

        req->error = e->error < 0 ? e->error : -EIO;
        req->done = true;
        if (!req->err)
                return NL_STOP;
        req->err->error = req->error;
        if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
                return NL_STOP;
        off = sizeof(*e);
        if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
                off += e->msg.nlmsg_len - NLMSG_HDRLEN;
        if (nlh->nlmsg_len < NLMSG_HDRLEN + off)
                return NL_STOP;
        len = nlh->nlmsg_len - NLMSG_HDRLEN - off;
        for (struct nlattr *a = (struct nlattr *) ((uint8_t *) e + off); nla_ok(a, (int) len);
             a = nla_next(a, (int *) &len))
                if (nla_type(a) == NLMSGERR_ATTR_MSG && nla_len(a) > 0) {
                        size_t n = strnlen(nla_data(a), (size_t) nla_len(a));
                        if (n >= sizeof(req->err->message))
                                n = sizeof(req->err->message) - 1;
                        memcpy(req->err->message, nla_data(a), n);
                        req->err->message[n] = '\0';
                        break;
                }
        return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg) {
        ((Request *) arg)->done = true;
        return NL_STOP;
}

int ethtool_nl_new(EthtoolNl **ret) {
        _cleanup_(ethtool_nl_freep) EthtoolNl *e = NULL;
        int one = 1, r;

        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->sock = nl_socket_alloc();
        if (!e->sock)
                return -ENOMEM;
        r = genl_connect(e->sock);
        if (r < 0)
                return nle_to_errno(r);
        /* Best effort: without them we only lose the explanation, not the errno. */
        (void) setsockopt(nl_socket_get_fd(e->sock), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
        (void) setsockopt(nl_socket_get_fd(e->sock), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
        e->family = genl_ctrl_resolve(e->sock, ETHTOOL_GENL_NAME);
        if (e->family < 0)
                return -EOPNOTSUPP; /* kernel before 5.6, or CONFIG_ETHTOOL_NETLINK=n */
        /* One recvmsg() per answer: every ethtool reply we ask for fits, no peeking at its size first. */
        nl_socket_disable_msg_peek(e->sock);
        r = nl_socket_set_msg_buf_size(e->sock, 32768);
        if (r < 0)
                return nle_to_errno(r);
        *ret = TAKE_PTR(e);
        return 0;
}

EthtoolNl *ethtool_nl_free(EthtoolNl *e) {
        if (!e)
                return NULL;
        nl_socket_free(e->sock);
        ethtool_strings_done(&e->feature_names);
        free(e);
        return NULL;
}

/* A request with its header: the device (none for a global request) and the header flags. */
static struct nl_msg *request_new_flags(EthtoolNl *e, uint8_t cmd, uint16_t header_attr, const char *ifname,
                                        uint32_t flags) {
        _cleanup_nlmsg_ struct nl_msg *m = nlmsg_alloc();
        struct nlattr *h;

        if (!m)
                return NULL;
        if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, e->family, 0, NLM_F_REQUEST, cmd, ETHTOOL_GENL_VERSION))
                return NULL;
        /* The kernel wants a header even without a device, and libnl drops an empty nest: then FLAGS, 0 or not. */
        h = nla_nest_start(m, header_attr);
        if (!h || (ifname && nla_put_string(m, ETHTOOL_A_HEADER_DEV_NAME, ifname) < 0) ||
            (ifname && e->index > 0 && streq(ifname, e->index_name) &&
             nla_put_u32(m, ETHTOOL_A_HEADER_DEV_INDEX, (uint32_t) e->index) < 0) ||
            ((flags || !ifname) && nla_put_u32(m, ETHTOOL_A_HEADER_FLAGS, flags) < 0))
                return NULL;
        nla_nest_end(m, h);
        return TAKE_PTR(m);
}

static struct nl_msg *request_new(EthtoolNl *e, uint8_t cmd, uint16_t header_attr, const char *ifname) {
        return request_new_flags(e, cmd, header_attr, ifname, 0);
}

/* Sends m (taken over) and waits for the kernel's answer. */
static int transact(EthtoolNl *e, struct nl_msg *request, reply_parser parse, void *userdata, EthtoolError *err) {
        _cleanup_nlmsg_ struct nl_msg *m = request;
        Request req = { .err = err, .parse = parse, .userdata = userdata };
        struct nl_cb *cb;
        int r;

        if (err)
                *err = (EthtoolError) {};
        cb = nl_cb_alloc(NL_CB_CUSTOM);
        if (!cb)
                return -ENOMEM;
        nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);
        nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &req);
        nl_cb_err(cb, NL_CB_CUSTOM, on_error, &req);

        r = nl_send_auto(e->sock, m);
        m = (nlmsg_free(m), NULL);
        if (r < 0) {
                nl_cb_put(cb);
                return nle_to_errno(r);
        }
        while (!req.done) {
                r = nl_recvmsgs(e->sock, cb);
                if (r < 0 && !req.done) {
                        req.error = nle_to_errno(r);
                        break;
                }
        }
        nl_cb_put(cb);
        if (req.error < 0) {
                if (err && err->error == 0)
                        err->error = req.error;
                return req.error;
        }
        return req.parse_error;
}

void ethtool_nl_set_index(EthtoolNl *e, const char *ifname, int ifindex) {
        e->index = ifname && ifindex > 0 && strscpy(e->index_name, sizeof(e->index_name), ifname) >= 0 ? ifindex : 0;
}

const EthtoolStrings *ethtool_nl_feature_names(EthtoolNl *e) {
        struct nlattr *sets, *set;
        EthtoolError err = {};
        struct nl_msg *m;
        int r;

        if (e->feature_names_asked)
                return e->feature_names.n > 0 ? &e->feature_names : NULL;
        e->feature_names_asked = true;
        m = request_new_flags(e, ETHTOOL_MSG_STRSET_GET, ETHTOOL_A_STRSET_HEADER, NULL, 0);
        if (!m)
                return NULL;
        /* The kernel parses these strictly: nests must say they are (NLA_F_NESTED), which libnl leaves to us. */
        sets = nla_nest_start(m, ETHTOOL_A_STRSET_STRINGSETS | NLA_F_NESTED);
        set = sets ? nla_nest_start(m, ETHTOOL_A_STRINGSETS_STRINGSET | NLA_F_NESTED) : NULL;
        if (!set || nla_put_u32(m, ETHTOOL_A_STRINGSET_ID, ETH_SS_FEATURES) < 0) {
                nlmsg_free(m);
                return NULL;
        }
        nla_nest_end(m, set);
        nla_nest_end(m, sets);
        /* Without them, bitsets come by name: slower, as correct. */
        r = transact(e, m, strings_parse_nlh, &(StringsParse) { ETH_SS_FEATURES, &e->feature_names }, &err);
        if (r < 0 || e->feature_names.n == 0) {
                log_debug_errno(r < 0 ? r : -ENODATA, "No feature names from the kernel (%m%s%s); feature bitsets by name.",
                                err.message[0] ? ": " : "", err.message);
                ethtool_strings_done(&e->feature_names);
                return NULL;
        }
        return &e->feature_names;
}

/* Header flags and names for a features request: compact bitsets when the names are known. */
static uint32_t features_flags(EthtoolNl *e, const EthtoolStrings **ret_names) {
        *ret_names = ethtool_nl_feature_names(e);
        return *ret_names ? ETHTOOL_FLAG_COMPACT_BITSETS : 0;
}

int ethtool_nl_features_get(EthtoolNl *e, const char *ifname, EthtoolFeatures *ret, EthtoolError *err) {
        EthtoolFeatures f = {};
        const EthtoolStrings *names;
        uint32_t flags = features_flags(e, &names);
        struct nl_msg *m;
        int r;

        m = request_new_flags(e, ETHTOOL_MSG_FEATURES_GET, ETHTOOL_A_FEATURES_HEADER, ifname, flags);
        if (!m)
                return -ENOMEM;
        r = transact(e, m, features_parse_nlh, &(FeaturesParse) { .f = &f, .names = names }, err);
        if (r < 0) {
                ethtool_features_done(&f);
                return r;
        }
        *ret = f;
        return 0;
}

int ethtool_nl_features_set(EthtoolNl *e, const char *ifname, const char *const *names, const bool *values,
                            size_t n, EthtoolFeatures *ret_refused, EthtoolFeatures *ret_changed, EthtoolError *err) {
        EthtoolFeatures refused = {}, changed = {};
        const EthtoolStrings *strings;
        uint32_t flags = features_flags(e, &strings);
        struct nlattr *wanted, *bits;
        _cleanup_nlmsg_ struct nl_msg *m = NULL;
        int r;

        m = request_new_flags(e, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_A_FEATURES_HEADER, ifname, flags);
        if (!m)
                return -ENOMEM;
        /* Verbose bitset by name, with a mask: only the listed bits change. */
        wanted = nla_nest_start(m, ETHTOOL_A_FEATURES_WANTED);
        bits = wanted ? nla_nest_start(m, ETHTOOL_A_BITSET_BITS) : NULL;
        if (!bits)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                struct nlattr *bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
                if (!bit || nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, names[i]) < 0)
                        return -ENOMEM;
                if (values[i] && nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE) < 0)
                        return -ENOMEM;
                nla_nest_end(m, bit);
        }
        nla_nest_end(m, bits);
        nla_nest_end(m, wanted);

        r = transact(e, TAKE_PTR(m), features_set_reply_parse_nlh,
                     &(SetReply) { { .f = &refused, .names = strings }, { .f = &changed, .names = strings } }, err);
        if (r < 0) {
                ethtool_features_done(&refused);
                ethtool_features_done(&changed);
                return r;
        }
        if (ret_refused)
                *ret_refused = refused;
        else
                ethtool_features_done(&refused);
        if (ret_changed)
                *ret_changed = changed;
        else
                ethtool_features_done(&changed);
        return 0;
}

int ethtool_nl_attrs_get(EthtoolNl *e, uint8_t cmd, uint16_t header_attr, const char *ifname,
                         const uint8_t width[ETHTOOL_ATTRS_MAX], EthtoolAttrs *ret, EthtoolError *err) {
        EthtoolAttrs a = {};
        struct nl_msg *m;
        int r;

        m = request_new(e, cmd, header_attr, ifname);
        if (!m)
                return -ENOMEM;
        r = transact(e, m, attrs_parse_nlh, &(AttrsParse) { width, &a }, err);
        if (r < 0)
                return r;
        *ret = a;
        return 0;
}

int ethtool_nl_attrs_set(EthtoolNl *e, uint8_t cmd, uint16_t header_attr, const char *ifname, const uint16_t *attrs,
                         const uint8_t *widths, const uint32_t *values, size_t n, EthtoolError *err) {
        _cleanup_nlmsg_ struct nl_msg *m = NULL;

        m = request_new(e, cmd, header_attr, ifname);
        if (!m)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int r = widths[i] == 1 ? nla_put_u8(m, attrs[i], (uint8_t) values[i]) : nla_put_u32(m, attrs[i], values[i]);
                if (r < 0)
                        return -ENOMEM;
        }
        return transact(e, TAKE_PTR(m), NULL, NULL, err);
}

typedef struct EthtoolMonitor {
        NetlinkMonitor nl; /* first: freed as a NetlinkMonitor */
        EthtoolNl *names_from; /* whose feature names decode FEATURES_NTF; NULL: not decoded */
        ethtool_monitor_handler handler;
        void *userdata;
} EthtoolMonitor;

static int ntf_parse_nlh(struct nlmsghdr *nlh, uint8_t *ret_cmd, char *ifname, size_t size) {
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
        return ntf_parse_nlh(nlh, ret_cmd, ifname, size);
}

struct EthtoolNotification {
        EthtoolMonitor *monitor;
        struct nlmsghdr *nlh;
};

int ethtool_notification_features(const EthtoolNotification *ntf, EthtoolFeatures *ret) {
        const EthtoolStrings *names;
        EthtoolFeatures f = {};
        struct genlmsghdr *g = nlmsg_data(ntf->nlh);
        int r;

        /* A FEATURES_NTF is a whole FEATURES_GET reply, always compact: the names read it. */
        if (g->cmd != ETHTOOL_MSG_FEATURES_NTF || !ntf->monitor->names_from ||
            !(names = ethtool_nl_feature_names(ntf->monitor->names_from)))
                return -EOPNOTSUPP;
        r = features_parse_nlh(ntf->nlh, &(FeaturesParse) { .f = &f, .names = names });
        if (r >= 0 && f.n == 0)
                r = -ENODATA;
        if (r < 0) {
                ethtool_features_done(&f);
                return r;
        }
        *ret = f;
        return 0;
}

static int on_notification(struct nl_msg *msg, void *arg) {
        EthtoolNotification ntf = { arg, nlmsg_hdr(msg) };
        EthtoolMonitor *m = arg;
        char ifname[IFNAMSIZ];
        uint8_t cmd;

        /* Only the header here: an interface that is not the caller's costs no decoding. */
        if (ntf_parse_nlh(ntf.nlh, &cmd, ifname, sizeof(ifname)) >= 0)
                m->handler(cmd, ifname, &ntf, m->userdata);
        return NL_OK;
}

int ethtool_monitor_new(EthtoolNl *names_from, ethtool_monitor_handler h, void *userdata, NetlinkMonitor **ret) {
        _cleanup_(netlink_monitor_freep) NetlinkMonitor *nm = NULL;
        EthtoolMonitor *m;
        int grp, r;

        r = netlink_monitor_alloc(sizeof(EthtoolMonitor), &nm);
        if (r < 0)
                return r;
        m = (EthtoolMonitor *) nm;
        m->names_from = names_from;
        m->handler = h;
        m->userdata = userdata;
        r = genl_connect(nm->sock);
        if (r < 0)
                return nle_to_errno(r);
        grp = genl_ctrl_resolve_grp(nm->sock, ETHTOOL_GENL_NAME, ETHTOOL_MCGRP_MONITOR_NAME);
        if (grp < 0)
                return -EOPNOTSUPP;
        r = netlink_subscribe(nm->sock, grp, on_notification, m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(nm);
        return 0;
}
