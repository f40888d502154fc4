/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <linux/ethtool.h>

#include "base/util.h"
#include "kernel/ethtool-parse.h"
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

int ethtool_nl_new(EthtoolNl **ret);
EthtoolNl *ethtool_nl_free(EthtoolNl *e);
/* SET requests sent so far (0 for NULL): each may have the kernel notify its monitors, ours too. */
uint64_t ethtool_nl_sets(const EthtoolNl *e);
DEFINE_TRIVIAL_CLEANUP_FUNC(EthtoolNl *, ethtool_nl_free);

/*
 * From now on, requests for ifname name the device by its ifindex as well (0: by name
 * only): the kernel refuses one where the two no longer agree (-ENODEV, "ifindex and name
 * do not match"), so a write after a rename cannot reach another device.
 */
void ethtool_nl_set_index(EthtoolNl *e, const char *ifname, int ifindex);
/* Every feature of the interface, by name, with its active, wanted and changeable bits. */
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

int ethtool_nl_attrs_get(EthtoolNl *e, uint8_t cmd, uint16_t header_attr, const char *ifname,
                         const uint8_t width[ETHTOOL_ATTRS_MAX], EthtoolAttrs *ret, EthtoolError *err);
int ethtool_nl_attrs_set(EthtoolNl *e, uint8_t cmd, uint16_t header_attr, const char *ifname, const uint16_t *attrs,
                         const uint8_t *widths, const uint32_t *values, size_t n, EthtoolError *err);

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
