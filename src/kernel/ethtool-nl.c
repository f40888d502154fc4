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
#include "kernel/ethtool-parse.h"
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
        uint64_t sets; /* SET requests sent */
};

typedef int (*reply_parser)(struct nlmsghdr *nlh, void *userdata);

typedef struct Request {
        uint32_t seq;           /* the request's: what answers it carries */
        bool done;
        int error;
        int parse_error;
        EthtoolError *err;
        reply_parser parse;
        void *userdata;
} Request;

static int on_valid(struct nl_msg *msg, void *arg) {
        Request *req = arg;
        int r;

        if (!req->parse || req->parse_error < 0)
                return NL_OK;
        r = req->parse(nlmsg_hdr(msg), req->userdata);
        if (r < 0)
                req->parse_error = r;
        /* The one reply is the answer: no ACK was asked for (transact()). */
        req->done = true;
        return NL_STOP;
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

/*
 * Our own check, for every request alike: libnl's checks sequence numbers only while it asks
 * for ACKs, and counts a request answered only at its ACK, so one answered by its reply would
 * leave the next ACK looking out of turn. A message of another request (one given up on) is
 * skipped.
 */
static int on_seq_check(struct nl_msg *msg, void *arg) {
        return nlmsg_hdr(msg)->nlmsg_seq == ((Request *) arg)->seq ? NL_OK : NL_SKIP;
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

uint64_t ethtool_nl_sets(const EthtoolNl *e) {
        return e ? e->sets : 0;
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
        nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, on_seq_check, &req);

        /*
         * A request with a parser gets exactly one reply (a GET, or FEATURES_SET without
         * OMIT_REPLY): it is the answer, and an ACK after it would cost a second recvmsg().
         * A failure still comes as NLMSG_ERROR, ACK asked for or not. Requests with no reply
         * (the other SETs) ask for the ACK that says they were done.
         */
        if (parse)
                nl_socket_disable_auto_ack(e->sock);
        else
                nl_socket_enable_auto_ack(e->sock);
        r = nl_send_auto(e->sock, m);
        req.seq = nlmsg_hdr(m)->nlmsg_seq; /* given by nl_send_auto() */
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

/*
 * The kernel's feature names (ETH_SS_FEATURES), asked once per socket; NULL when the kernel
 * would not say (feature bitsets then travel by name). With them, feature requests ask for
 * compact bitsets.
 */
static const EthtoolStrings *ethtool_nl_feature_names(EthtoolNl *e) {
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
        r = transact(e, m, ethtool_strings_parse_nlh, &(StringsParse) { ETH_SS_FEATURES, &e->feature_names }, &err);
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
        r = transact(e, m, ethtool_features_parse_nlh, &(FeaturesParse) { .f = &f, .names = names }, err);
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

        e->sets++;
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

        r = transact(e, TAKE_PTR(m), ethtool_features_set_reply_parse_nlh,
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
        r = transact(e, m, ethtool_attrs_parse_nlh, &(AttrsParse) { width, &a }, err);
        if (r < 0)
                return r;
        *ret = a;
        return 0;
}

int ethtool_nl_attrs_set(EthtoolNl *e, uint8_t cmd, uint16_t header_attr, const char *ifname, const uint16_t *attrs,
                         const uint8_t *widths, const uint32_t *values, size_t n, EthtoolError *err) {
        _cleanup_nlmsg_ struct nl_msg *m = NULL;

        e->sets++;
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
        r = ethtool_features_parse_nlh(ntf->nlh, &(FeaturesParse) { .f = &f, .names = names });
        if (r >= 0 && f.n == 0)
                r = -ENODATA;
        if (r < 0) {
                ethtool_features_done(&f);
                return r;
        }
        *ret = f;
        return 0;
}

static void on_notification(struct nlmsghdr *nlh, void *arg) {
        EthtoolNotification ntf = { arg, nlh };
        EthtoolMonitor *m = arg;
        char ifname[IFNAMSIZ];
        uint8_t cmd;

        /* Only the header here: an interface that is not the caller's costs no decoding. */
        if (ethtool_header_parse_nlh(ntf.nlh, &cmd, ifname, sizeof(ifname)) >= 0)
                m->handler(cmd, ifname, &ntf, m->userdata);
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
        r = netlink_monitor_subscribe(nm, grp, on_notification, m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(nm);
        return 0;
}
