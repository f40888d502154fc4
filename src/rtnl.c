/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "netlink-util.h"
#include "rtnl.h"

struct RtnlMonitor {
        struct nl_sock *sock;
        rtnl_link_handler handler;
        void *userdata;
};

static int on_link(struct nl_msg *msg, void *arg) {
        RtnlMonitor *m = arg;
        struct nlmsghdr *nlh = nlmsg_hdr(msg);
        struct nlattr *tb[IFLA_MAX + 1];
        struct ifinfomsg *ifi;
        char ifname[IFNAMSIZ];

        if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
                return NL_OK;
        if (nlmsg_parse(nlh, sizeof(*ifi), tb, IFLA_MAX, NULL) < 0 || !tb[IFLA_IFNAME])
                return NL_OK;
        ifi = nlmsg_data(nlh);
        if (netlink_attr_string(tb[IFLA_IFNAME], ifname, sizeof(ifname)) < 0)
                return NL_OK;
        if (m->handler)
                m->handler(ifname, ifi->ifi_index, ifi->ifi_flags, nlh->nlmsg_type == RTM_DELLINK, m->userdata);
        return NL_OK;
}

int rtnl_monitor_new(RtnlMonitor **ret) {
        _cleanup_(rtnl_monitor_freep) RtnlMonitor *m = NULL;
        int r;

        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->sock = nl_socket_alloc();
        if (!m->sock)
                return -ENOMEM;
        r = nl_connect(m->sock, NETLINK_ROUTE);
        if (r < 0)
                return nle_to_errno(r);
        r = netlink_subscribe(m->sock, RTNLGRP_LINK, on_link, m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

RtnlMonitor *rtnl_monitor_free(RtnlMonitor *m) {
        if (!m)
                return NULL;
        nl_socket_free(m->sock);
        free(m);
        return NULL;
}

int rtnl_monitor_fd(RtnlMonitor *m) { return nl_socket_get_fd(m->sock); }

int rtnl_monitor_receive(RtnlMonitor *m, rtnl_link_handler h, void *userdata) {
        m->handler = h;
        m->userdata = userdata;
        return netlink_drain(m->sock);
}
