/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "kernel/ethtool-ioctl.h"

#define MAX_STATS 4096

/*
 * SIOCETHTOOL works on any socket: a netlink one keeps AF_INET out of the sandbox. One for the
 * process, opened on first use: a start-up asks every NIC, and a socket a call would be two more
 * system calls each. It names interfaces in the network namespace it was opened in, which is the
 * process's: nothing here changes namespace.
 */
static int ioctl_socket(void) {
        static int fd = -1;

        if (fd < 0)
                fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
        return fd < 0 ? -errno : fd;
}

static int ethtool_ioctl(const char *ifname, void *cmd) {
        struct ifreq ifr = {};
        int fd;

        if (strscpy(ifr.ifr_name, sizeof(ifr.ifr_name), ifname) < 0)
                return -EINVAL;
        fd = ioctl_socket();
        if (fd < 0)
                return fd;
        ifr.ifr_data = cmd;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return -errno;
        return 0;
}

int ethtool_ioctl_drvinfo(const char *ifname, struct ethtool_drvinfo *ret) {
        struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
        int r = ethtool_ioctl(ifname, &info);

        if (r < 0)
                return r;
        /* The kernel NUL-terminates these; do not rely on it. */
        info.driver[sizeof(info.driver) - 1] = info.version[sizeof(info.version) - 1] = '\0';
        info.fw_version[sizeof(info.fw_version) - 1] = info.bus_info[sizeof(info.bus_info) - 1] = '\0';
        *ret = info;
        return 0;
}

int ethtool_ioctl_regs(const char *ifname, uint32_t len_hint, uint8_t **ret, size_t *ret_len) {
        _cleanup_free_ struct ethtool_regs *regs = NULL;
        uint8_t *data;
        uint32_t len = len_hint;
        int r;

        if (len < 256)
                len = 256; /* ask anyway: the kernel tells why not */
        if (len > 4096)
                len = 4096;
        regs = calloc(1, sizeof(*regs) + len);
        if (!regs)
                return -ENOMEM;
        regs->cmd = ETHTOOL_GREGS;
        regs->len = len;
        r = ethtool_ioctl(ifname, regs);
        if (r < 0)
                return r;
        if (regs->len > len)
                return -EBADMSG;
        data = malloc(regs->len ?: 1);
        if (!data)
                return -ENOMEM;
        memcpy(data, regs->data, regs->len);
        *ret = data;
        *ret_len = regs->len;
        return 0;
}

void ethtool_stats_done(EthtoolStats *s) {
        free(s->names);
        free(s->values);
        *s = (EthtoolStats) {};
}

int ethtool_ioctl_stats(const char *ifname, EthtoolStats *ret) {
        struct ethtool_drvinfo info;
        _cleanup_free_ struct ethtool_gstrings *strings = NULL;
        _cleanup_free_ struct ethtool_stats *stats = NULL;
        EthtoolStats s = {};
        size_t n;
        int r;

        r = ethtool_ioctl_drvinfo(ifname, &info);
        if (r < 0)
                return r;
        n = info.n_stats;
        if (n == 0) {
                *ret = s;
                return 0;
        }
        if (n > MAX_STATS)
                return -E2BIG;
        strings = calloc(1, sizeof(*strings) + n * ETH_GSTRING_LEN);
        stats = calloc(1, sizeof(*stats) + n * sizeof(uint64_t));
        if (!strings || !stats)
                return -ENOMEM;
        *strings = (struct ethtool_gstrings) { .cmd = ETHTOOL_GSTRINGS, .string_set = ETH_SS_STATS, .len = (uint32_t) n };
        *stats = (struct ethtool_stats) { .cmd = ETHTOOL_GSTATS, .n_stats = (uint32_t) n };
        r = ethtool_ioctl(ifname, strings);
        if (r >= 0)
                r = ethtool_ioctl(ifname, stats);
        if (r < 0)
                return r;
        /* The set may have changed between the calls: use what both agree on. */
        n = strings->len < stats->n_stats ? strings->len : stats->n_stats;
        if (n > info.n_stats)
                n = info.n_stats;
        s.names = calloc(n ?: 1, ETH_GSTRING_LEN);
        s.values = calloc(n ?: 1, sizeof(uint64_t));
        if (!s.names || !s.values) {
                ethtool_stats_done(&s);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                memcpy(s.names[i], strings->data + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
                s.names[i][ETH_GSTRING_LEN - 1] = '\0';
                s.values[i] = stats->data[i];
        }
        s.n = n;
        *ret = s;
        return 0;
}
