/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <linux/ethtool.h>

#include "netlink-util.h"
#include "util.h"

/*
 * ethtool generic netlink (kernel ≥ 5.7 for FEATURES and COALESCE) through
 * libnl-genl. libnl's -NLE_* codes stop here: callers see negative errno, and
 * the kernel's own errno and extack text when the kernel refused.
 */
typedef struct EthtoolNl EthtoolNl;

typedef struct EthtoolError {
        int error;        /* negative errno, 0 if none */
        char message[160]; /* extack text from the kernel, "" if none */
} EthtoolError;

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
const EthtoolFeature *ethtool_features_find(const EthtoolFeatures *f, const char *name);

int ethtool_nl_new(EthtoolNl **ret);
EthtoolNl *ethtool_nl_free(EthtoolNl *e);
DEFINE_TRIVIAL_CLEANUP_FUNC(EthtoolNl *, ethtool_nl_free);

int ethtool_nl_features_get(EthtoolNl *e, const char *ifname, EthtoolFeatures *ret, EthtoolError *err);
/*
 * Sets the named features. On success ret_refused lists the requested
 * features the kernel left different from what was asked (fixed features,
 * or TSO dropped without SG), with the state they have.
 */
int ethtool_nl_features_set(EthtoolNl *e, const char *ifname, const char *const *names, const bool *values,
                            size_t n, EthtoolFeatures *ret_refused, EthtoolError *err);

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

int ethtool_nl_attrs_get(EthtoolNl *e, uint8_t cmd, uint16_t header_attr, const char *ifname,
                         const uint8_t width[ETHTOOL_ATTRS_MAX], EthtoolAttrs *ret, EthtoolError *err);
int ethtool_nl_attrs_set(EthtoolNl *e, uint8_t cmd, uint16_t header_attr, const char *ifname, const uint16_t *attrs,
                         const uint8_t *widths, const uint32_t *values, size_t n, EthtoolError *err);

/* Reply parsers, exposed for unit tests and fuzzing: they take a whole generic netlink message. */
int ethtool_nl_parse_features(const void *nlmsg, size_t len, EthtoolFeatures *ret);
int ethtool_nl_parse_attrs(const void *nlmsg, size_t len, const uint8_t width[ETHTOOL_ATTRS_MAX], EthtoolAttrs *ret);

/*
 * The ethtool "monitor" multicast group: FEATURES_NTF and COALESCE_NTF when
 * anyone changes a feature or coalescing value. Notifications carry compact
 * (nameless) bitsets, so callers re-read by name rather than decode them.
 */
typedef void (*ethtool_monitor_handler)(uint8_t cmd, const char *ifname, void *userdata);

/* Read it with netlink_monitor_receive() when its fd is readable; h is called per notification. */
int ethtool_monitor_new(ethtool_monitor_handler h, void *userdata, NetlinkMonitor **ret);
/* Pure: the command and device name of a notification (fuzzed). */
int ethtool_nl_parse_notification(const void *nlmsg, size_t len, uint8_t *ret_cmd, char *ifname, size_t size);
