/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <sys/mman.h>
#include <sys/socket.h>

#include "base/log.h"
#include "kernel/netlink-util.h"

int nle_to_errno(int nle) {
        switch (nle < 0 ? -nle : nle) {
        case 0: return 0;
        case NLE_NOMEM: return -ENOMEM;
        case NLE_PERM: return -EPERM;
        case NLE_NODEV: return -ENODEV;
        case NLE_OBJ_NOTFOUND: return -ENOENT;
        case NLE_OPNOTSUPP: return -EOPNOTSUPP;
        case NLE_INVAL: return -EINVAL;
        case NLE_RANGE: return -ERANGE;
        case NLE_AGAIN: return -EAGAIN;
        case NLE_INTR: return -EINTR;
        case NLE_BUSY: return -EBUSY;
        case NLE_MSGSIZE: return -EMSGSIZE;
        default: return -EIO;
        }
}

int netlink_monitor_subscribe(NetlinkMonitor *m, int group, netlink_message_handler handler, void *userdata) {
        int r;

        m->handler = handler;
        m->userdata = userdata;
        r = nl_socket_add_membership(m->sock, group);
        if (r >= 0)
                r = nl_socket_set_nonblocking(m->sock);
        return nle_to_errno(r);
}

int netlink_attr_string(const struct nlattr *a, char *buf, size_t size) {
        const char *data = nla_data(a);
        int len = nla_len(a);
        const char *nul;

        if (len <= 0)
                return -EBADMSG;
        nul = memchr(data, '\0', (size_t) len);
        if (!nul || (size_t) (nul - data) >= size)
                return -EBADMSG;
        memcpy(buf, data, (size_t) (nul - data) + 1);
        return 0;
}

int netlink_monitor_alloc(size_t size, NetlinkMonitor **ret) {
        NetlinkMonitor *m;

        if (size < sizeof(NetlinkMonitor))
                return -EINVAL;
        m = calloc(1, size);
        if (!m)
                return -ENOMEM;
        m->sock = nl_socket_alloc();
        /* A mapping of its own, never written by anything else: a monitor costs the pages its messages fill. */
        m->buf = mmap(NULL, NETLINK_MONITOR_BATCH * NETLINK_MONITOR_DATAGRAM, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m->buf == MAP_FAILED)
                m->buf = NULL;
        if (!m->sock || !m->buf) {
                netlink_monitor_free(m);
                return -ENOMEM;
        }
        *ret = m;
        return 0;
}

NetlinkMonitor *netlink_monitor_free(NetlinkMonitor *m) {
        if (!m)
                return NULL;
        nl_socket_free(m->sock);
        if (m->buf)
                (void) munmap(m->buf, NETLINK_MONITOR_BATCH * NETLINK_MONITOR_DATAGRAM);
        free(m);
        return NULL;
}

int netlink_monitor_fd(NetlinkMonitor *m) { return nl_socket_get_fd(m->sock); }

/* The messages of one datagram (the kernel may put several in one), control messages aside. */
static void dispatch_datagram(NetlinkMonitor *m, uint8_t *data, size_t len) {
        int left = (int) len;

        for (struct nlmsghdr *nlh = (struct nlmsghdr *) data; nlmsg_ok(nlh, left); nlh = nlmsg_next(nlh, &left))
                if (nlh->nlmsg_type >= NLMSG_MIN_TYPE)
                        m->handler(nlh, m->userdata);
}

/*
 * recvmmsg() rather than libnl's receive: one call takes every datagram queued (up to the
 * batch), and a call that got fewer than it asked for found the queue empty, so no call is
 * spent on EAGAIN. Nothing is allocated per message. Only the kernel's datagrams (port id 0)
 * are read, as sd-netlink does: a process with CAP_NET_ADMIN may send to our port id too.
 */
static int receive(NetlinkMonitor *m) {
        int fd = netlink_monitor_fd(m), ret = 0;

        for (;;) {
                struct sockaddr_nl from[NETLINK_MONITOR_BATCH];
                struct iovec iov[NETLINK_MONITOR_BATCH];
                struct mmsghdr msgs[NETLINK_MONITOR_BATCH];
                int n;

                for (int i = 0; i < NETLINK_MONITOR_BATCH; i++) {
                        iov[i] = (struct iovec) { m->buf + (size_t) i * NETLINK_MONITOR_DATAGRAM, NETLINK_MONITOR_DATAGRAM };
                        msgs[i] = (struct mmsghdr) { .msg_hdr = { .msg_name = &from[i], .msg_namelen = sizeof(from[i]),
                                                                  .msg_iov = &iov[i], .msg_iovlen = 1 } };
                }
                n = recvmmsg(fd, msgs, NETLINK_MONITOR_BATCH, MSG_DONTWAIT, NULL);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN || errno == EWOULDBLOCK)
                                return ret;
                        /* A datagram cut short earlier in this receive is a loss too. */
                        return ret < 0 ? ret : -errno;
                }
                for (int i = 0; i < n; i++) {
                        if (msgs[i].msg_hdr.msg_namelen < sizeof(struct sockaddr_nl) || from[i].nl_pid != 0) {
                                log_debug("Dropped a netlink datagram from port id %u: not the kernel's.", from[i].nl_pid);
                                m->foreign++;
                                continue;
                        }
                        if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
                                log_warning("A netlink notification larger than %d bytes was cut short: taken as lost.",
                                            NETLINK_MONITOR_DATAGRAM);
                                ret = -ENOBUFS;
                                continue;
                        }
                        dispatch_datagram(m, iov[i].iov_base, msgs[i].msg_len);
                }
                /* Fewer than asked for: the queue was empty (an error after some is told by the next call,
                 * when epoll says the socket is readable again), unless a handler asked for another look. */
                if (n < NETLINK_MONITOR_BATCH && !m->again)
                        return ret;
                m->again = false;
        }
}

int netlink_monitor_receive(NetlinkMonitor *m) {
        int r;

        /* A handler's work made more messages: read by the loop below once this batch is done,
         * not into the buffer it is reading. */
        if (m->receiving) {
                m->again = true;
                return 0;
        }
        m->receiving = true;
        m->again = false;
        r = receive(m);
        m->receiving = false;
        return r;
}

static int netlink_set_rcvbuf(int fd, int bytes, int *ret) {
        socklen_t l = sizeof(int);
        int got = 0;

        if (bytes <= 0)
                return -EINVAL;
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) < 0 &&
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)) < 0)
                return -errno;
        if (ret) {
                if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &l) < 0)
                        return -errno;
                *ret = got;
        }
        return 0;
}

int netlink_monitor_rcvbuf(void) {
        const char *e = getenv("R8T_TEST_NETLINK_RCVBUF");
        uint64_t v;

        if (e && parse_u64_base(e, 10, &v) >= 0 && v > 0 && v <= NETLINK_MONITOR_RCVBUF)
                return (int) v;
        return NETLINK_MONITOR_RCVBUF;
}

int netlink_monitor_set_rcvbuf(NetlinkMonitor *m, int bytes, int *ret) {
        return netlink_set_rcvbuf(netlink_monitor_fd(m), bytes, ret);
}
