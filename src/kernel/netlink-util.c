/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <sys/socket.h>

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

/*
 * Dispatches everything queued on a non-blocking socket to its callbacks;
 * -ENOBUFS when the kernel dropped messages (the caller must resynchronise).
 */
static int netlink_drain(struct nl_sock *s) {
        for (;;) {
                int r = nl_recvmsgs_default(s);
                if (r == -NLE_AGAIN)
                        return 0;
                if (r == -NLE_NOMEM || r == -NLE_MSG_OVERFLOW)
                        return -ENOBUFS;
                if (r < 0)
                        return nle_to_errno(r);
        }
}

int netlink_subscribe(struct nl_sock *s, int group, nl_recvmsg_msg_cb_t cb, void *arg) {
        int r;

        /* Notifications are not answers to our requests: no sequence numbers to check. */
        nl_socket_disable_seq_check(s);
        /*
         * One recvmsg() per notification: a buffer that holds any of them (a link message is
         * about 1.5 KiB) instead of peeking at each one's size first.
         */
        nl_socket_disable_msg_peek(s);
        r = nl_socket_set_msg_buf_size(s, 32768);
        if (r >= 0)
                r = nl_socket_add_membership(s, group);
        if (r >= 0)
                r = nl_socket_set_nonblocking(s);
        if (r >= 0)
                r = nl_socket_modify_cb(s, NL_CB_VALID, NL_CB_CUSTOM, cb, arg);
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
        if (!m->sock) {
                free(m);
                return -ENOMEM;
        }
        *ret = m;
        return 0;
}

NetlinkMonitor *netlink_monitor_free(NetlinkMonitor *m) {
        if (!m)
                return NULL;
        nl_socket_free(m->sock);
        free(m);
        return NULL;
}

int netlink_monitor_fd(NetlinkMonitor *m) { return nl_socket_get_fd(m->sock); }

int netlink_monitor_receive(NetlinkMonitor *m) { return netlink_drain(m->sock); }

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
