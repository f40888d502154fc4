/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <endian.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/util.h"
#include "kernel/packet-wake.h"

int packet_wake_open(int ifindex) {
        /*
         * Frames for another host (a port in promiscuous mode, a bridge member) are dropped; so
         * are multicast and broadcast ones, by the destination's group bit; a unicast frame to
         * or from this host passes one byte.
         */
        static const struct sock_filter unicast[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t) (SKF_AD_OFF + SKF_AD_PKTTYPE)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OTHERHOST, 3, 0),
                BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
                BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 1, 1, 0),
                BPF_STMT(BPF_RET | BPF_K, 1),
                BPF_STMT(BPF_RET | BPF_K, 0),
        };
        const struct sock_fprog prog = { .len = ELEMENTSOF(unicast), .filter = (struct sock_filter *) unicast };
        struct sockaddr_ll sa = { .sll_family = AF_PACKET, .sll_protocol = htobe16(ETH_P_ALL), .sll_ifindex = ifindex };
        /* The least the kernel allows: a wake needs one frame queued; the rest are counted as drops. */
        int rcvbuf = 1, fd;

        if (ifindex <= 0)
                return -EINVAL;
        /* Protocol 0: not hooked into the stack until bind, so the filter is in place before the first frame. */
        fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0 ||
            bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

int packet_wake_probe(void) {
        /* Protocol 0: never hooked into the stack, no frame reaches it before it is closed. */
        int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return -errno;
        close(fd);
        return 0;
}

int packet_wake_take(int fd, uint64_t *ret_packets) {
        struct tpacket_stats st = {};
        socklen_t len = sizeof(st);
        char byte;

        /* Read and reset; tp_packets counts the frames dropped for a full queue too. */
        if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0)
                return -errno;
        /* Bounded: the queue holds what one receive buffer does. */
        for (unsigned i = 0; i < 1024; i++)
                if (recv(fd, &byte, sizeof(byte), MSG_DONTWAIT | MSG_TRUNC) < 0) {
                        if (errno == EAGAIN || errno == EWOULDBLOCK)
                                break;
                        if (errno != EINTR)
                                return -errno;
                }
        *ret_packets = st.tp_packets;
        return 0;
}
