/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

/*
 * The first packet on a quiet link, from the kernel: a packet socket bound to the interface,
 * both directions, with a classic BPF filter that passes unicast frames to or from this host
 * only (multicast and broadcast chatter, mDNS, ARP requests, and frames a promiscuous port
 * sees for others never wake the daemon) and a byte of each. The kernel counts a GRO or TSO
 * batch as one frame here, and a link busy with multicast alone (IPTV) is not seen. Armed
 * only while a link is quiet: while it is open every frame of the interface goes through the
 * filter, and every outgoing one is cloned for it (dev_queue_xmit_nit), so it is closed the
 * moment the link is busy. Its counts come from the socket (PACKET_STATISTICS), never from
 * the NIC: a read of the NIC's statistics reaches r8169's tally counters and the link.
 * Needs CAP_NET_RAW.
 */

/* Whether this process may open one at all (the unit's sandbox may not grant it): 0 or -errno. */
int packet_wake_probe(void);
/* A non-blocking socket for ifindex, filter attached before it is bound (no frame slips past it); -errno. */
int packet_wake_open(int ifindex);
/* Frames the filter passed since the socket was opened or last taken (queued or dropped), and an empty queue. */
int packet_wake_take(int fd, uint64_t *ret_packets);
