/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * ethtool netlink messages decoded, apart from the socket that carries them (kernel/ethtool-nl.c):
 * features, string sets, attributes and a notification's header. Pure, and fuzzed through the
 * ethtool_nl_parse_*() entry points below. Each *_parse_nlh() takes the reply parser's userdata
 * named beside it and returns 0 or -errno.
 */
#include <linux/ethtool.h>
#include <linux/netlink.h>

#include "base/util.h"

typedef struct EthtoolFeature {
        char name[ETH_GSTRING_LEN];
        bool changeable; /* in hw_features */
        bool active;
} EthtoolFeature;

typedef struct EthtoolFeatures {
        EthtoolFeature *features;
        size_t n;
} EthtoolFeatures;

void ethtool_features_done(EthtoolFeatures *f);

/* A string set by index; "" where the kernel listed no string. */
typedef struct EthtoolStrings {
        char (*names)[ETH_GSTRING_LEN];
        size_t n;
} EthtoolStrings;

void ethtool_strings_done(EthtoolStrings *s);
const EthtoolFeature *ethtool_features_find(const EthtoolFeatures *f, const char *name);

/*
 * Attribute groups (COALESCE, EEE, ...): a GET returns a flat list of u8/u32
 * attributes, a SET takes any subset. width[attr] says which ones to read and
 * how wide each is (1 or 4 bytes); 0 leaves an attribute out.
 */
#define ETHTOOL_ATTRS_MAX 64
typedef struct EthtoolAttrs {
        uint32_t value[ETHTOOL_ATTRS_MAX];
        bool present[ETHTOOL_ATTRS_MAX];
} EthtoolAttrs;

/* Reply parsers, exposed for unit tests and fuzzing: they take a whole generic netlink message. */
/* names decodes compact bitsets (NULL: verbose ones only, a compact one is -EPROTO). */
int ethtool_nl_parse_features(const void *nlmsg, size_t len, const EthtoolStrings *names, EthtoolFeatures *ret);
/* A STRSET_GET reply: the strings of set id. */
int ethtool_nl_parse_strings(const void *nlmsg, size_t len, uint32_t id, EthtoolStrings *ret);
int ethtool_nl_parse_attrs(const void *nlmsg, size_t len, const uint8_t width[ETHTOOL_ATTRS_MAX], EthtoolAttrs *ret);
/* Pure: the command and device name of a notification (fuzzed). */
int ethtool_nl_parse_notification(const void *nlmsg, size_t len, uint8_t *ret_cmd, char *ifname, size_t size);

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

/* STRSET_GET's reply: the strings of set id, by index (an index it does not list stays ""). */
typedef struct StringsParse {
        uint32_t id;
        EthtoolStrings *s;
} StringsParse;

typedef struct AttrsParse {
        const uint8_t *width;
        EthtoolAttrs *attrs;
} AttrsParse;

/*
 * A SET reply (kernel-facts §7): WANTED lists exactly the requested bits the kernel did not
 * apply (with the value asked for), ACTIVE every bit whose state changed (with its new one).
 */
typedef struct SetReply {
        FeaturesParse refused, changed;
} SetReply;

int ethtool_features_parse_nlh(struct nlmsghdr *nlh, void *userdata);        /* FeaturesParse */
int ethtool_features_set_reply_parse_nlh(struct nlmsghdr *nlh, void *userdata); /* SetReply */
int ethtool_strings_parse_nlh(struct nlmsghdr *nlh, void *userdata);         /* StringsParse */
int ethtool_attrs_parse_nlh(struct nlmsghdr *nlh, void *userdata);           /* AttrsParse */
/* The command and interface name of any ethtool message (a notification's header). */
int ethtool_header_parse_nlh(struct nlmsghdr *nlh, uint8_t *ret_cmd, char *ifname, size_t size);
