/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "kernel/netlink-util.h"
#include "kernel/rtnl.h"

typedef struct RtnlMonitor {
        NetlinkMonitor nl; /* first: freed as a NetlinkMonitor */
        rtnl_link_handler handler;
        void *userdata;
} RtnlMonitor;

static int link_message(struct nlmsghdr *nlh, RtnlMonitor *m) {
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
        m->handler(ifname, ifi->ifi_index, ifi->ifi_flags, nlh->nlmsg_type == RTM_DELLINK, m->userdata);
        return NL_OK;
}

/* The monitor's notifications and the dump's replies go through one parser. */
static void on_link_notification(struct nlmsghdr *nlh, void *arg) {
        (void) link_message(nlh, arg);
}

static int on_link(struct nl_msg *msg, void *arg) {
        return link_message(nlmsg_hdr(msg), arg);
}

int rtnl_monitor_new(rtnl_link_handler h, void *userdata, NetlinkMonitor **ret) {
        _cleanup_(netlink_monitor_freep) NetlinkMonitor *nm = NULL;
        RtnlMonitor *m;
        int r;

        r = netlink_monitor_alloc(sizeof(RtnlMonitor), &nm);
        if (r < 0)
                return r;
        m = (RtnlMonitor *) nm;
        m->handler = h;
        m->userdata = userdata;
        r = nl_connect(nm->sock, NETLINK_ROUTE);
        if (r < 0)
                return nle_to_errno(r);
        r = netlink_monitor_subscribe(nm, RTNLGRP_LINK, on_link_notification, m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(nm);
        return 0;
}

int rtnl_stats_open(struct nl_sock **ret) {
        _cleanup_(nl_socket_freep) struct nl_sock *s = nl_socket_alloc();
        int r;

        if (!s)
                return -ENOMEM;
        r = nl_connect(s, NETLINK_ROUTE);
        if (r < 0)
                return nle_to_errno(r);
        /* One reply per request and no ACK after it: nothing is left behind for the next request. */
        nl_socket_disable_auto_ack(s);
        *ret = TAKE_PTR(s);
        return 0;
}

int rtnl_dump_links(rtnl_link_handler h, void *userdata) {
        RtnlMonitor m = { .handler = h, .userdata = userdata };
        struct rtgenmsg g = { .rtgen_family = AF_UNSPEC };
        int r = -NLE_DUMP_INTR;

        for (int attempt = 0; attempt < 5 && r == -NLE_DUMP_INTR; attempt++) {
                _cleanup_(nl_socket_freep) struct nl_sock *s = NULL;

                /* A dump ends with NLMSG_DONE; an ACK on top would be one more message to wait for. */
                r = rtnl_stats_open(&s);
                if (r < 0)
                        return r;
                /* Link messages with all their attributes exceed a page: size each read by peeking. */
                nl_socket_enable_msg_peek(s);
                r = nl_socket_modify_cb(s, NL_CB_VALID, NL_CB_CUSTOM, on_link, &m);
                if (r >= 0)
                        r = nl_send_simple(s, RTM_GETLINK, NLM_F_DUMP, &g, sizeof(g));
                if (r >= 0)
                        r = nl_recvmsgs_default(s);
        }
        return r < 0 ? nle_to_errno(r) : 0;
}

typedef struct PacketsReply {
        bool found;
        uint64_t packets;
} PacketsReply;

static int on_stats(struct nl_msg *msg, void *arg) {
        struct nlmsghdr *nlh = nlmsg_hdr(msg);
        struct nlattr *tb[IFLA_STATS_MAX + 1];
        PacketsReply *p = arg;
        struct rtnl_link_stats64 st;

        if (nlh->nlmsg_type != RTM_NEWSTATS || nlmsg_parse(nlh, sizeof(struct if_stats_msg), tb, IFLA_STATS_MAX, NULL) < 0 ||
            !tb[IFLA_STATS_LINK_64] || nla_len(tb[IFLA_STATS_LINK_64]) < (int) sizeof(st))
                return NL_OK;
        memcpy(&st, nla_data(tb[IFLA_STATS_LINK_64]), sizeof(st));
        /* Multicast received is left out, as the wake socket leaves it out: chatter that cannot
         * turn L1 off should not keep it off either. r8169 counts PACKET_MULTICAST frames there;
         * broadcast has no counter of its own and stays in. */
        p->packets = st.rx_packets - (st.multicast < st.rx_packets ? st.multicast : st.rx_packets) + st.tx_packets;
        p->found = true;
        return NL_OK;
}

int rtnl_link_packets(struct nl_sock *s, int ifindex, uint64_t *ret) {
        _cleanup_nlmsg_ struct nl_msg *m = NULL;
        struct if_stats_msg ifsm = { .family = AF_UNSPEC, .ifindex = ifindex,
                                     .filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64) };
        PacketsReply p = {};
        int r;

        m = nlmsg_alloc_simple(RTM_GETSTATS, NLM_F_REQUEST);
        if (!m || nlmsg_append(m, &ifsm, sizeof(ifsm), NLMSG_ALIGNTO) < 0)
                return -ENOMEM;
        r = nl_socket_modify_cb(s, NL_CB_VALID, NL_CB_CUSTOM, on_stats, &p);
        if (r >= 0)
                r = nl_send_auto(s, m);
        if (r >= 0)
                r = nl_recvmsgs_default(s);
        if (r < 0)
                return nle_to_errno(r);
        if (!p.found)
                return -ENODATA;
        *ret = p.packets;
        return 0;
}
