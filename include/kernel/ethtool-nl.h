/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <linux/ethtool.h>

#include "base/util.h"
#include "kernel/netlink-util.h"

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

/* A string set by index; "" where the kernel listed no string. */
typedef struct EthtoolStrings {
        char (*names)[ETH_GSTRING_LEN];
        size_t n;
} EthtoolStrings;

void ethtool_strings_done(EthtoolStrings *s);
const EthtoolFeature *ethtool_features_find(const EthtoolFeatures *f, const char *name);

int ethtool_nl_new(EthtoolNl **ret);
EthtoolNl *ethtool_nl_free(EthtoolNl *e);
DEFINE_TRIVIAL_CLEANUP_FUNC(EthtoolNl *, ethtool_nl_free);

/*
 * From now on, requests for ifname name the device by its ifindex as well (0: by name
 * only): the kernel refuses one where the two no longer agree (-ENODEV, "ifindex and name
 * do not match"), so a write after a rename cannot reach another device.
 */
void ethtool_nl_set_index(EthtoolNl *e, const char *ifname, int ifindex);
/*
 * The kernel's feature names (ETH_SS_FEATURES), asked once per socket; NULL when the kernel
 * would not say (feature bitsets then travel by name). With them, feature requests ask for
 * compact bitsets.
 */
const EthtoolStrings *ethtool_nl_feature_names(EthtoolNl *e);
int ethtool_nl_features_get(EthtoolNl *e, const char *ifname, EthtoolFeatures *ret, EthtoolError *err);
/*
 * Sets the named features. On success ret_refused lists the requested
 * features the kernel left different from what was asked (fixed features,
 * or TSO dropped without SG), with the state asked for (so not the one they
 * have), and ret_changed every feature whose state the write changed, with
 * its new state: the kernel's own account, under the lock it wrote with.
 * Either may be NULL.
 */
int ethtool_nl_features_set(EthtoolNl *e, const char *ifname, const char *const *names, const bool *values,
                            size_t n, EthtoolFeatures *ret_refused, EthtoolFeatures *ret_changed, EthtoolError *err);

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
/* names decodes compact bitsets (NULL: verbose ones only, a compact one is -EPROTO). */
int ethtool_nl_parse_features(const void *nlmsg, size_t len, const EthtoolStrings *names, EthtoolFeatures *ret);
/* A STRSET_GET reply: the strings of set id. */
int ethtool_nl_parse_strings(const void *nlmsg, size_t len, uint32_t id, EthtoolStrings *ret);
int ethtool_nl_parse_attrs(const void *nlmsg, size_t len, const uint8_t width[ETHTOOL_ATTRS_MAX], EthtoolAttrs *ret);

/*
 * The ethtool "monitor" multicast group: FEATURES_NTF and COALESCE_NTF when
 * anyone changes a feature or coalescing value. The handler gets the command and
 * the device; a FEATURES_NTF carries the whole feature state in compact bitsets,
 * which ethtool_notification_features() decodes with names_from's feature names
 * when the handler wants them (-EOPNOTSUPP: another command, or no names: re-read).
 */
typedef struct EthtoolNotification EthtoolNotification;
typedef void (*ethtool_monitor_handler)(uint8_t cmd, const char *ifname, const EthtoolNotification *ntf, void *userdata);
int ethtool_notification_features(const EthtoolNotification *ntf, EthtoolFeatures *ret);

/* Read it with netlink_monitor_receive() when its fd is readable; h is called per notification. */
int ethtool_monitor_new(EthtoolNl *names_from, ethtool_monitor_handler h, void *userdata, NetlinkMonitor **ret);
/* Pure: the command and device name of a notification (fuzzed). */
int ethtool_nl_parse_notification(const void *nlmsg, size_t len, uint8_t *ret_cmd, char *ifname, size_t size);
