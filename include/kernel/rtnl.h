/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/util.h"
#include "kernel/netlink-util.h"

/*
 * Link changes from rtnetlink (RTNLGRP_LINK), through libnl's core: r8169
 * rewrites its coalescing register on every up, reset and resume without a
 * notification of its own, so an interface coming up is the cue to re-apply.
 */
typedef void (*rtnl_link_handler)(const char *ifname, int ifindex, unsigned flags, bool removed, void *userdata);

/* Read it with netlink_monitor_receive() when its fd is readable; h is called per link message. */
int rtnl_monitor_new(rtnl_link_handler h, void *userdata, NetlinkMonitor **ret);

/*
 * Every link of the network namespace, from an RTM_GETLINK dump on a socket of its own: h
 * is called per link with removed = false, in the kernel's order. What the start-up and a
 * monitor that lost notifications (ENOBUFS) resynchronise from. A dump the kernel
 * interrupted (the links changed meanwhile) is retried; h may then see a link twice.
 */
int rtnl_dump_links(rtnl_link_handler h, void *userdata);

/*
 * The packets (received + sent) of one interface by ifindex: RTM_GETSTATS asking for
 * IFLA_STATS_LINK_64 alone (Linux 4.7), a reply of ~200 bytes where RTM_GETLINK sends every
 * attribute of the link. On a socket of rtnl_stats_open() kept for it (nl_socket_free): a
 * connected rtnetlink socket without automatic ACKs, so no reply is left behind.
 */
int rtnl_stats_open(struct nl_sock **ret);
int rtnl_link_packets(struct nl_sock *s, int ifindex, uint64_t *ret);
