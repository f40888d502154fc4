/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <linux/ethtool.h>

#include "base/util.h"

/*
 * The legacy SIOCETHTOOL calls that ethtool netlink has no equivalent for:
 * driver info, the register dump (ETHTOOL_GREGS needs CAP_NET_ADMIN) and
 * the driver's own statistics (ethtool -S).
 */
int ethtool_ioctl_drvinfo(const char *ifname, struct ethtool_drvinfo *ret);
/* The register dump; *ret is malloc'ed, its length in *ret_len. */
int ethtool_ioctl_regs(const char *ifname, uint32_t len_hint, uint8_t **ret, size_t *ret_len);

typedef struct EthtoolStats {
        char (*names)[ETH_GSTRING_LEN];
        uint64_t *values;
        size_t n;
} EthtoolStats;

int ethtool_ioctl_stats(const char *ifname, EthtoolStats *ret);
void ethtool_stats_done(EthtoolStats *s);
