/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "daemon/link.h"

/*
 * The daemon's NICs: an array of links, found again by interface name or PCI slot in one
 * probe sequence however many there are (open addressing, rebuilt with the array), and the
 * room for a queue of them, allocated with it so that a rescan never half-succeeds.
 */
typedef struct NameIndex {
        uint32_t *slots; /* reference + 1; 0 is empty */
        size_t mask;
} NameIndex;

typedef struct LinkSet {
        Link *links;
        size_t n;
        NameIndex by_ifname; /* reference: link * NIC_MAX_IFNAMES + interface */
        NameIndex by_slot;   /* reference: link */
        size_t *queue;       /* room for n entries: the manager's queue of links with work */
} LinkSet;

void link_set_done(LinkSet *s);
/* Indexes s->links by slot and interface name (link_set_rescan does it; a test or fuzzer that builds a set by hand). */
int link_set_index(LinkSet *s);
/* The link an interface name belongs to, and which of its interfaces it is (ret_k may be NULL). */
Link *link_set_find_ifname(const LinkSet *s, const char *ifname, size_t *ret_k);
Link *link_set_find_slot(const LinkSet *s, const char *slot);
/*
 * Rediscovers the PCI bus: a NIC found again (slot, MAC and a known XID) keeps what its link
 * knew (link_merge), a new one is identified and said ("found"), one that left is said
 * ("gone; forgotten"). records_possible: a new NIC may have a link power record to look for.
 * On failure the set is as it was.
 */
int link_set_rescan(LinkSet *s, const Sysroot *root, const SlotClaims *claims, const char *kernel_log, bool records_possible);

/* What a udev event of the net or pci subsystem asks of the set. */
typedef enum LinkSetEvent {
        LINK_SET_NOTHING,
        LINK_SET_RESCAN, /* the set of NICs or their names may have changed */
        LINK_SET_APPLY,  /* *ret_link got an interface rtnetlink has not told of yet */
        LINK_SET_BOUND,  /* a driver was bound to *ret_link's PCI function (a probe ran: r8169's turns L1 off) */
        LINK_SET_UNBOUND, /* its driver was unbound (a module reload, a switch of driver, PCI error recovery) */
} LinkSetEvent;

/*
 * Only what can change the set of NICs or their names costs a rescan: a PCI device coming or
 * going, a rename, an interface of a Realtek PCI function nobody knew. An interface that is
 * not ours and virtual (a container host makes hundreds) costs one lookup, no more.
 */
LinkSetEvent link_set_udev_event(const LinkSet *s, const SlotClaims *claims, sd_device *d, Link **ret_link);
