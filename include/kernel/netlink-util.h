/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <netlink/attr.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "base/util.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free);
#define _cleanup_nlmsg_ _cleanup_(nlmsg_freep)

/* libnl's -NLE_* codes stop here: the rest of the program sees negative errno. */
int nle_to_errno(int nle);
/*
 * Copies a string attribute that must be NUL-terminated inside the attribute
 * and fit in size; libnl's NLA_NUL_STRING policy checks neither.
 */
int netlink_attr_string(const struct nlattr *a, char *buf, size_t size);

/*
 * A socket subscribed to a multicast group, read when its fd is readable. Each
 * protocol (ethtool-nl.c, rtnl.c) embeds it as the first member of its own
 * monitor, which carries the typed handler its parser calls.
 */
typedef void (*netlink_message_handler)(struct nlmsghdr *nlh, void *userdata);
typedef struct NetlinkMonitor {
        struct nl_sock *sock;
        netlink_message_handler handler;
        void *userdata;
        uint8_t *buf; /* NETLINK_MONITOR_BATCH datagrams of NETLINK_MONITOR_DATAGRAM bytes */
        uint64_t foreign; /* datagrams dropped because the kernel did not send them */
        /* Inside netlink_monitor_receive(), whose handler may ask again: a backstop, the daemon does not
         * receive from a handler (manager_read_echoes() waits for the receive to end). */
        bool receiving;
        bool again;
} NetlinkMonitor;

/*
 * One receive takes up to NETLINK_MONITOR_BATCH datagrams (recvmmsg()), each of up to
 * NETLINK_MONITOR_DATAGRAM bytes (libnl's size for them before: a link message is about
 * 1.5 KiB). The buffer is a mapping of its own: memory only where a message was written.
 */
#define NETLINK_MONITOR_BATCH 8
#define NETLINK_MONITOR_DATAGRAM 32768

/* Allocates size bytes (a protocol's monitor, NetlinkMonitor first) and a socket. */
int netlink_monitor_alloc(size_t size, NetlinkMonitor **ret);
NetlinkMonitor *netlink_monitor_free(NetlinkMonitor *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(NetlinkMonitor *, netlink_monitor_free);
int netlink_monitor_fd(NetlinkMonitor *m);
/*
 * Joins a multicast group on the monitor's connected socket, non-blocking. Each message the
 * kernel sends it goes to handler; what another process sends to the socket is dropped.
 */
int netlink_monitor_subscribe(NetlinkMonitor *m, int group, netlink_message_handler handler, void *userdata);
/*
 * Dispatches what is queued: -ENOBUFS when messages were lost (the kernel dropped them, or one
 * was larger than NETLINK_MONITOR_DATAGRAM) and the caller must resynchronise. Called from one
 * of its own handlers, it only asks the receive under way to read the queue once more.
 */
int netlink_monitor_receive(NetlinkMonitor *m);

/*
 * What a monitor's receive queue may hold, as udevd and networkd size theirs: a burst of
 * hundreds of interfaces is thousands of notifications of a few KiB each (skb truesize),
 * and the kernel drops what does not fit (ENOBUFS). Memory is charged only while queued.
 */
#define NETLINK_MONITOR_RCVBUF (128 * 1024 * 1024)
/* That, or the smaller size R8T_TEST_NETLINK_RCVBUF (bytes) says: small enough for a test to
 * overflow it with a burst, so that the resynchronisation it then takes is the real one. */
int netlink_monitor_rcvbuf(void);
/*
 * Sets the monitor socket's receive buffer: SO_RCVBUFFORCE (CAP_NET_ADMIN may exceed
 * net.core.rmem_max), else SO_RCVBUF (capped by it). The size the kernel granted in *ret
 * (it doubles the request for its own bookkeeping) when ret is not NULL.
 */
int netlink_monitor_set_rcvbuf(NetlinkMonitor *m, int bytes, int *ret);
