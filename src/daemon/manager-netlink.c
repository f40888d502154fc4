/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kernel's netlink tells the service: rtnetlink's link messages (interfaces that
 * appear, come up, go) and the ethtool monitor's notifications (another tool's changes), with
 * the resynchronisation when they were lost and the reading of our own writes' echoes.
 */
#include <linux/ethtool_netlink.h>
#include <net/if.h>

#include "base/log.h"
#include "daemon/manager-internal.h"
#include "kernel/rtnl.h"

/*
 * The one place where rtnetlink tells of an interface of a managed NIC (its messages and its
 * dumps): one that appeared (an ifindex not seen before) is applied at once, one that came
 * up is re-applied (r8169 rewrites IntrMitigate on every open).
 */
static void on_link(const char *ifname, int ifindex, unsigned flags, bool removed, void *userdata) {
        Manager *m = userdata;
        size_t k;
        Link *l = link_set_find_ifname(&m->links, ifname, &k);

        /* Not ours: one lookup, nothing else. */
        if (!l)
                return;
        l->ifaces[k].seen = m->dump;
        manager_do(m, l,
                   removed ? link_iface_removed(l, &m->env, k, ifindex)
                           : link_iface_changed(l, &m->env, k, ifindex, flags & IFF_UP, flags & IFF_LOWER_UP));
}

/*
 * The kernel dropped link notifications (the receive queue overflowed): what changed is
 * learnt again from a dump of the links, and only that is acted on. A managed interface the
 * dump does not list is gone.
 */
static void manager_resync_links(Manager *m) {
        size_t queued = m->n_queue, gone = 0;
        int r;

        m->dump++;
        r = rtnl_dump_links(on_link, m);
        if (r < 0) {
                log_warning_errno(r, "Cannot dump the links to resynchronise (%m); re-applying every NIC.");
                /* Lost notifications may have told of interfaces: none is taken for absent any more. */
                for (size_t i = 0; i < m->links.n; i++)
                        link_forget_absent(&m->links.links[i]);
                m->everything = true;
                manager_schedule(m);
                return;
        }
        for (size_t i = 0; i < m->links.n; i++) {
                Link *l = &m->links.links[i];
                for (size_t k = 0; k < l->nic.n_ifnames; k++)
                        if (l->ifaces[k].seen != m->dump && l->ifaces[k].ifindex != 0) {
                                manager_do(m, l, link_iface_removed(l, &m->env, k, l->ifaces[k].ifindex));
                                gone++;
                        }
        }
        log_info("Resynchronised from a dump of the links: %zu NIC%s applied, %zu interface%s gone.", m->n_queue - queued,
                 m->n_queue - queued == 1 ? "" : "s", gone, gone == 1 ? "" : "s");
}

static void manager_receive_links(Manager *m) {
        bool was = m->batching;

        if (!m->rtnl)
                return;
        m->batching = true;
        /* The resync's dump too: a NIC it applies at once must not read the monitor, whose messages
         * are newer than the dump's, in the middle of the dump. */
        if (netlink_monitor_receive(m->rtnl) == -ENOBUFS) {
                log_notice("Link notifications were lost (the receive queue overflowed); resynchronising from a dump of the links.");
                manager_resync_links(m);
        }
        m->batching = was;
}

static int on_rtnl_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        manager_receive_links(userdata);
        manager_read_echoes(userdata);
        return 0;
}

static void on_ethtool_ntf(uint8_t cmd, const char *ifname, const EthtoolNotification *ntf, void *userdata) {
        _cleanup_(ethtool_features_done) EthtoolFeatures features = {};
        Manager *m = userdata;
        unsigned backends = 0;
        Link *l;

        for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                if (knob_backends[b].drift_ntf && knob_backends[b].drift_ntf == cmd)
                        backends |= 1u << b;
        if (!backends)
                return;
        l = link_set_find_ifname(&m->links, ifname, NULL);
        if (!l)
                return;
        backends = link_ethtool_notified(l, backends, ethtool_notification_features(ntf, &features) >= 0 ? &features : NULL);
        if (!backends)
                return;
        l->drift_check |= backends;
        manager_enqueue(m, l);
}

static void manager_receive_ethtool(Manager *m) {
        if (m->ethmon && netlink_monitor_receive(m->ethmon) == -ENOBUFS) {
                /* No dump tells what another tool changed meanwhile: look at every NIC, change nothing unasked. */
                log_notice("Ethtool notifications were lost (the receive queue overflowed); checking every NIC for drift.");
                unsigned backends = 0;
                for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                        if (knob_backends[b].drift_ntf)
                                backends |= 1u << b;
                for (size_t i = 0; i < m->links.n; i++) {
                        m->links.links[i].drift_check |= backends;
                        manager_enqueue(m, &m->links.links[i]);
                }
        }
}

static int on_ethtool_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        manager_receive_ethtool(userdata);
        return 0;
}

/*
 * A SET notifies the monitors as the kernel applies it: the link message (features) and the
 * ethtool notification of our own writes are queued before the request returns. They are read
 * once the work that made them is done (a receive or the worker's round, all of its NICs at
 * once), in the same call: not at one more wake-up of the loop per socket.
 */
void manager_read_echoes(Manager *m) {
        while (m->echoes && !m->batching) {
                m->echoes = false;
                manager_receive_links(m);
                manager_receive_ethtool(m);
        }
}

int manager_links_dump(Manager *m) {
        return rtnl_dump_links(on_link, m);
}

int manager_netlink_watch(Manager *m) {
        int r, rcvbuf = netlink_monitor_rcvbuf(), got = 0;

        r = rtnl_monitor_new(on_link, m, &m->rtnl);
        if (r >= 0) {
                int q = netlink_monitor_set_rcvbuf(m->rtnl, rcvbuf, &got);
                if (q < 0)
                        log_warning_errno(q, "Cannot size the link monitor's receive buffer, a burst may overflow it: %m");
                else
                        log_debug("Link monitor: receive buffer %d bytes.", got);
        }
        if (r >= 0)
                r = sd_event_add_io(m->event, &m->rtnl_source, netlink_monitor_fd(m->rtnl), EPOLLIN, on_rtnl_io, m);
        /* The kernel's word first: udevd's copy of the same event comes later and is then a no-op. */
        if (r >= 0)
                r = sd_event_source_set_priority(m->rtnl_source, SD_EVENT_PRIORITY_NORMAL - 10);
        if (r < 0)
                return log_error_errno(r, "Cannot watch link changes: %m");

        r = ethtool_monitor_new(m->c.backend.nl, on_ethtool_ntf, m, &m->ethmon);
        if (r >= 0)
                (void) netlink_monitor_set_rcvbuf(m->ethmon, rcvbuf, NULL);
        if (r >= 0)
                r = sd_event_add_io(m->event, NULL, netlink_monitor_fd(m->ethmon), EPOLLIN, on_ethtool_io, m);
        if (r < 0)
                log_warning_errno(r, "Cannot watch ethtool notifications, changes by other tools go unnoticed: %m");
        return 0;
}
