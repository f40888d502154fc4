/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <systemd/sd-device.h>

#include "base/log.h"
#include "daemon/link-set.h"
#include "decide/nic-log.h"

static uint32_t name_hash(const char *s) {
        uint32_t h = 2166136261u; /* FNV-1a */
        for (; *s; s++)
                h = (h ^ (uint8_t) *s) * 16777619u;
        return h;
}

/* A reference turned back into the name it is indexed by. */
typedef const char *(*index_key)(const LinkSet *s, uint32_t ref);

static const char *key_ifname(const LinkSet *s, uint32_t ref) {
        return s->links[ref / NIC_MAX_IFNAMES].nic.ifnames[ref % NIC_MAX_IFNAMES];
}

static const char *key_slot(const LinkSet *s, uint32_t ref) { return s->links[ref].nic.slot; }

static bool index_find(const LinkSet *s, const NameIndex *ix, index_key key, const char *name, uint32_t *ret) {
        if (!ix->slots)
                return false;
        for (size_t i = name_hash(name) & ix->mask;; i = (i + 1) & ix->mask) {
                uint32_t v = ix->slots[i];
                if (v == 0)
                        return false;
                if (streq(key(s, v - 1), name)) {
                        *ret = v - 1;
                        return true;
                }
        }
}

/* Room for n references at most half full. */
static int index_new(NameIndex *ix, size_t n) {
        size_t size = 16;

        while (size < 2 * n)
                size *= 2;
        ix->slots = calloc(size, sizeof(uint32_t));
        ix->mask = size - 1;
        return ix->slots ? 0 : -ENOMEM;
}

static void index_add(const LinkSet *s, NameIndex *ix, index_key key, uint32_t ref) {
        const char *name = key(s, ref);
        size_t i = name_hash(name) & ix->mask;

        for (; ix->slots[i] != 0; i = (i + 1) & ix->mask)
                if (streq(key(s, ix->slots[i] - 1), name))
                        return; /* the first NIC with a name keeps it */
        ix->slots[i] = ref + 1;
}

int link_set_index(LinkSet *s) {
        size_t n_ifnames = 0;

        for (size_t i = 0; i < s->n; i++)
                n_ifnames += s->links[i].nic.n_ifnames;
        if (index_new(&s->by_ifname, n_ifnames) < 0 || index_new(&s->by_slot, s->n) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < s->n; i++) {
                index_add(s, &s->by_slot, key_slot, (uint32_t) i);
                for (size_t k = 0; k < s->links[i].nic.n_ifnames; k++)
                        index_add(s, &s->by_ifname, key_ifname, (uint32_t) (i * NIC_MAX_IFNAMES + k));
        }
        return 0;
}

void link_set_done(LinkSet *s) {
        /* links is NULL when its allocation failed (n is set before it). */
        for (size_t i = 0; s->links && i < s->n; i++)
                link_done(&s->links[i]);
        free(s->links);
        free(s->by_ifname.slots);
        free(s->by_slot.slots);
        free(s->queue);
        *s = (LinkSet) {};
}

Link *link_set_find_ifname(const LinkSet *s, const char *ifname, size_t *ret_k) {
        uint32_t ref;

        if (!index_find(s, &s->by_ifname, key_ifname, ifname, &ref))
                return NULL;
        if (ret_k)
                *ret_k = ref % NIC_MAX_IFNAMES;
        return &s->links[ref / NIC_MAX_IFNAMES];
}

Link *link_set_find_slot(const LinkSet *s, const char *slot) {
        uint32_t ref;

        return index_find(s, &s->by_slot, key_slot, slot, &ref) ? &s->links[ref] : NULL;
}

int link_set_rescan(LinkSet *s, const Sysroot *root, const SlotClaims *claims, const char *kernel_log, bool records_possible) {
        _cleanup_(identify_context_done) IdentifyContext ic = { .root = root, .kernel_log = kernel_log };
        LinkSet new = {};
        NicList l = {};
        int r;

        log_debug("Rescanning PCI devices.");
        r = nic_discover(root, claims, &l);
        if (r < 0)
                return log_error_errno(r, "Cannot scan PCI devices: %m");
        new.n = l.n;
        new.links = calloc(l.n + 1, sizeof(Link));
        new.queue = calloc(l.n + 1, sizeof(size_t));
        if (!new.links || !new.queue) {
                link_set_done(&new);
                nic_list_done(&l);
                return log_oom();
        }
        for (size_t i = 0; i < l.n; i++) {
                Link *old = link_set_find_slot(s, l.nics[i].slot);

                /* Known again by slot, MAC and a whole identity (an extended chip also by its id). */
                if (old && streq(old->nic.perm_mac, l.nics[i].perm_mac) && old->nic.xid != CHIP_XID_INVALID &&
                    streq(old->nic.claim.slot, l.nics[i].claim.slot) && old->nic.claim.xid == l.nics[i].claim.xid &&
                    !(chip_xid_is_extended(old->nic.xid) && old->nic.xid2 == CHIP_XID2_INVALID))
                        (void) link_merge(&new.links[i], old, &l.nics[i]);
                else {
                        link_init(&new.links[i], &l.nics[i], records_possible);
                        nic_identify(&new.links[i].nic, &ic);
                        log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, &new.links[i].nic, 0, "found");
                }
        }
        nic_list_done(&l);
        if (link_set_index(&new) < 0) {
                /* The set stays as it was: what a merge moved goes back (a new link has none of its own yet). */
                for (size_t i = 0; i < new.n; i++) {
                        Link *old = link_set_find_slot(s, new.links[i].nic.slot);
                        for (int k = 0; old && k < _KNOB_MAX; k++)
                                if (new.links[i].knobs[k].failure)
                                        old->knobs[k].failure = TAKE_PTR(new.links[i].knobs[k].failure);
                }
                link_set_done(&new);
                return log_oom();
        }
        for (size_t i = 0; i < s->n; i++)
                if (!link_set_find_slot(&new, s->links[i].nic.slot))
                        log_nic(LOG_INFO, R8T_MESSAGE_NIC_GONE, &s->links[i].nic, 0, "gone; forgotten");
        link_set_done(s);
        *s = new;
        return 0;
}

static const char *action_word(sd_device_action_t a, bool net) {
        return a == SD_DEVICE_ADD ? "added" : a == SD_DEVICE_MOVE ? (net ? "renamed" : "moved") : "removed";
}

LinkSetEvent link_set_udev_event(const LinkSet *s, const SlotClaims *claims, sd_device *d, Link **ret_link) {
        const char *subsystem = NULL, *sysname = NULL, *devpath = NULL;
        sd_device_action_t action = _SD_DEVICE_ACTION_INVALID;
        size_t k = 0;
        Link *l;

        (void) sd_device_get_subsystem(d, &subsystem);
        (void) sd_device_get_sysname(d, &sysname);
        (void) sd_device_get_action(d, &action);
        if (!subsystem || !sysname)
                return LINK_SET_NOTHING;
        /* The driver's bind and unbind: the function stays, its driver (and r8169's probe) does not. */
        if (streq(subsystem, "pci") && (action == SD_DEVICE_BIND || action == SD_DEVICE_UNBIND)) {
                l = link_set_find_slot(s, sysname);
                log_debug("udev: pci %s %s", sysname, action == SD_DEVICE_BIND ? "bound" : "unbound");
                if (!l)
                        return action == SD_DEVICE_BIND ? LINK_SET_RESCAN : LINK_SET_NOTHING;
                *ret_link = l;
                return action == SD_DEVICE_BIND ? LINK_SET_BOUND : LINK_SET_UNBOUND;
        }
        if (action != SD_DEVICE_ADD && action != SD_DEVICE_MOVE && action != SD_DEVICE_REMOVE)
                return LINK_SET_NOTHING;
        if (streq(subsystem, "pci")) {
                log_debug("udev: pci %s %s", sysname, action_word(action, false));
                return LINK_SET_RESCAN;
        }
        l = link_set_find_ifname(s, sysname, &k);
        if (!l) {
                if (action == SD_DEVICE_REMOVE ||
                    (sd_device_get_devpath(d, &devpath) >= 0 && strncmp(devpath, "/devices/virtual/", 17) == 0) ||
                    !nic_net_device_may_be_ours(d, claims))
                        return LINK_SET_NOTHING;
                log_debug("udev: %s %s, perhaps of a Realtek NIC nobody knew.", sysname, action_word(action, true));
                return LINK_SET_RESCAN;
        }
        log_debug("udev: %s %s", sysname, action_word(action, true));
        if (action == SD_DEVICE_MOVE)
                return LINK_SET_RESCAN;
        /*
         * An interface rtnetlink has not told of (yet). udevd's copy of the uevent can come
         * before ethtool finds the interface by name (seen in a burst of veths: "no device
         * matches name"), RTM_NEWLINK comes after. So this only queues an apply for the worker;
         * the ifindex stays rtnetlink's to tell, and its word is acted on at once.
         */
        if (action == SD_DEVICE_ADD && l->ifaces[k].ifindex == 0) {
                *ret_link = l;
                return LINK_SET_APPLY;
        }
        return LINK_SET_NOTHING;
}
