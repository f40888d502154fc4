/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <malloc.h>
#include <net/if.h>
#include <signal.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>
#include <linux/ethtool_netlink.h>

#include "apply.h"
#include "linkpower.h"
#include "log.h"
#include "manager.h"
#include "nic-log.h"
#include "rtnl.h"

/* What the manager remembers about one NIC between events. */
/* linux/if.h's, which cannot be included beside glibc's net/if.h: the link has carrier. */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

typedef struct ManagedNic {
        Nic nic;
        bool dirty;                       /* re-apply at the next idle moment */
        unsigned drift_check;             /* backends (1 << id) a notification said something changed in */
        bool queued;                      /* in Manager.queue */
        /* Per interface (nic.ifnames[k]), as rtnetlink last said: 0 = not there, or not told of. */
        int ifindex[NIC_MAX_IFNAMES];
        /*
         * rtnetlink said it is not there (a dump that did not list it, RTM_DELLINK): ethtool is
         * not asked for it. An interface it has not told of (found by a rescan, renamed) is
         * not "absent": it goes by name, as the commands do.
         */
        bool absent[NIC_MAX_IFNAMES];
        bool up[NIC_MAX_IFNAMES];         /* IFF_UP */
        bool carrier[NIC_MAX_IFNAMES];    /* IFF_LOWER_UP */
        unsigned seen[NIC_MAX_IFNAMES];   /* the last link dump that listed the interface */
        KnobState knobs[_KNOB_MAX];
        unsigned failed, unsupported, waiting; /* of the last apply */
        /* Dynamic link power: sampled while the link is up and the plan puts it in charge. */
        LinkPower lp;
        bool lp_init;                     /* lp has this configuration's parameters */
        bool lp_in_charge;                /* the last plan put link power in charge of L1 */
        bool lp_active;                   /* in charge and the link has carrier: sampled by the timer */
        const char *lp_stopped;           /* why it stopped for this link until a reload, NULL: it did not */
        PlanLinkPower lp_plan;            /* the L1 substates as first found (what the plan gives back) */
        bool lp_found_read;
        bool lp_record;                   /* a record may exist: ours, or a daemon's before this one */
        uint64_t lp_expect;               /* link/l1_aspm as read back after our last apply */
        uint64_t lp_summary_usec;
} ManagedNic;

/*
 * Open addressing over Manager.nics, rebuilt with it (a rescan): an event finds its NIC in
 * one probe sequence, however many NICs there are. A reference is what the key function
 * turns back into a string; slots hold reference + 1, 0 is empty.
 */
typedef struct NicIndex {
        uint32_t *slots;
        size_t mask;
} NicIndex;

typedef struct Manager {
        const Options *opts;
        Context c;              /* root, backends and policy; c.nics is not used */
        sd_event *event;

        ManagedNic *nics;
        size_t n_nics;
        NicIndex by_ifname;     /* reference: NIC index * NIC_MAX_IFNAMES + interface */
        NicIndex by_slot;       /* reference: NIC index */
        size_t *queue;          /* NICs with work (dirty or drift_check), each once */
        size_t n_queue;
        unsigned n_tuned, n_waiting, n_unsupported; /* of the last applies, for STATUS= */
        char status[256];       /* the last STATUS= sent */
        unsigned dump;          /* generation of the last link dump */

        sd_device_monitor *monitor;
        NetlinkMonitor *rtnl;
        sd_event_source *rtnl_source;
        NetlinkMonitor *ethmon;
        sd_bus *bus;
        sd_bus_slot *sleep_slot;
        sd_event_source *work;  /* the deferred, coalescing worker */
        sd_event_source *retry; /* a NIC's lock was busy: try again shortly */
        sd_event_source *link_power_timer; /* one wakeup per sample period for every NIC under dynamic link power */
        struct nl_sock *stats;             /* rtnetlink, for the packet counters it samples */
        bool stats_warned;
        int service_lock;       /* <state_dir>/daemon.lock, held while the daemon runs */
        unsigned writes;        /* test seam: writes so far, across every apply and restore */
        bool rescan;            /* rediscover PCI devices before working */
        bool everything;        /* re-apply every NIC */
        size_t n_lp_active;     /* NICs with lp_active: whether the sample timer runs, without a look at every NIC */
        bool running;           /* the event loop runs: events are acted on at once */
        bool records_unsure;    /* the start-up sweep left link power records behind */
} Manager;

static void manager_schedule(Manager *m) {
        sd_event_source_set_enabled(m->work, SD_EVENT_ONESHOT);
}

static void manager_enqueue(Manager *m, ManagedNic *mn) {
        if (!mn->queued) {
                mn->queued = true;
                m->queue[m->n_queue++] = (size_t) (mn - m->nics);
        }
        manager_schedule(m);
}

/* Work for one NIC at the next idle moment: an apply. */
static void manager_mark_dirty(Manager *m, ManagedNic *mn) {
        mn->dirty = true;
        manager_enqueue(m, mn);
}

static uint32_t index_hash(const char *s) {
        uint32_t h = 2166136261u; /* FNV-1a */
        for (; *s; s++)
                h = (h ^ (uint8_t) *s) * 16777619u;
        return h;
}

typedef const char *(*index_key)(const Manager *m, uint32_t ref);

static const char *key_ifname(const Manager *m, uint32_t ref) {
        return m->nics[ref / NIC_MAX_IFNAMES].nic.ifnames[ref % NIC_MAX_IFNAMES];
}

static const char *key_slot(const Manager *m, uint32_t ref) { return m->nics[ref].nic.slot; }

static bool index_find(const Manager *m, const NicIndex *ix, index_key key, const char *s, uint32_t *ret) {
        if (!ix->slots)
                return false;
        for (size_t i = index_hash(s) & ix->mask;; i = (i + 1) & ix->mask) {
                uint32_t v = ix->slots[i];
                if (v == 0)
                        return false;
                if (streq(key(m, v - 1), s)) {
                        *ret = v - 1;
                        return true;
                }
        }
}

/* Room for n references at most half full; what is already there goes. */
static int index_reset(NicIndex *ix, size_t n) {
        size_t size = 16;

        while (size < 2 * n)
                size *= 2;
        free(ix->slots);
        ix->slots = calloc(size, sizeof(uint32_t));
        ix->mask = size - 1;
        return ix->slots ? 0 : -ENOMEM;
}

static void index_add(Manager *m, NicIndex *ix, index_key key, uint32_t ref) {
        const char *s = key(m, ref);
        size_t i = index_hash(s) & ix->mask;

        for (; ix->slots[i] != 0; i = (i + 1) & ix->mask)
                if (streq(key(m, ix->slots[i] - 1), s))
                        return; /* the first NIC with a name keeps it */
        ix->slots[i] = ref + 1;
}

static int manager_reindex(Manager *m) {
        size_t n_ifnames = 0;

        for (size_t i = 0; i < m->n_nics; i++)
                n_ifnames += m->nics[i].nic.n_ifnames;
        if (index_reset(&m->by_ifname, n_ifnames) < 0 || index_reset(&m->by_slot, m->n_nics) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_nics; i++) {
                index_add(m, &m->by_slot, key_slot, (uint32_t) i);
                for (size_t k = 0; k < m->nics[i].nic.n_ifnames; k++)
                        index_add(m, &m->by_ifname, key_ifname, (uint32_t) (i * NIC_MAX_IFNAMES + k));
        }
        return 0;
}

/* The NIC an interface name belongs to, and which of its interfaces it is. */
static ManagedNic *manager_find_ifname(Manager *m, const char *ifname, size_t *ret_k) {
        uint32_t ref;

        if (!index_find(m, &m->by_ifname, key_ifname, ifname, &ref))
                return NULL;
        if (ret_k)
                *ret_k = ref % NIC_MAX_IFNAMES;
        return &m->nics[ref / NIC_MAX_IFNAMES];
}

static ManagedNic *manager_find_slot(Manager *m, const char *slot) {
        uint32_t ref;

        return index_find(m, &m->by_slot, key_slot, slot, &ref) ? &m->nics[ref] : NULL;
}

static void manager_update_profile(Manager *m) {
        if (context_update_profile(&m->c)) {
                log_info("Profile %s (%s, power: %s).", profile_to_string(m->c.profile),
                         profile_to_string(context_configured_profile(&m->c)), power_source_to_string(m->c.machine.power));
                m->everything = true;
        }
}

static void manager_count(Manager *m, const ManagedNic *mn, int sign) {
        m->n_tuned += (unsigned) sign * (mn->failed == 0 && mn->waiting == 0);
        m->n_waiting += (unsigned) sign * (mn->waiting > 0);
        m->n_unsupported += (unsigned) sign * mn->unsupported;
}

/* Rediscovers the PCI bus; keeps what is known of NICs that stay, forgets the ones that left. */
static int manager_rescan(Manager *m) {
        _cleanup_(identify_context_done) IdentifyContext ic = { .root = m->c.root, .kernel_log = m->opts->kernel_log };
        NicList l = {};
        ManagedNic *nn, *old_nics;
        size_t *queue, n_old;
        int r;

        log_debug("Rescanning PCI devices.");
        r = nic_discover(m->c.root, &l);
        if (r < 0)
                return log_error_errno(r, "Cannot scan PCI devices: %m");
        nn = calloc(l.n + 1, sizeof(ManagedNic));
        queue = calloc(l.n + 1, sizeof(size_t));
        if (!nn || !queue) {
                free(nn);
                free(queue);
                nic_list_done(&l);
                return log_oom();
        }
        for (size_t i = 0; i < l.n; i++) {
                ManagedNic *old = manager_find_slot(m, l.nics[i].slot);
                bool same = old && streq(old->nic.perm_mac, l.nics[i].perm_mac) && old->nic.xid != CHIP_XID_INVALID;

                if (same) {
                        nn[i] = *old;
                        /* Interfaces get renamed; the identity (slot, MAC, XID) stays. */
                        memcpy(nn[i].nic.ifnames, l.nics[i].ifnames, sizeof(l.nics[i].ifnames));
                        nn[i].nic.n_ifnames = l.nics[i].n_ifnames;
                        memcpy(nn[i].nic.driver, l.nics[i].driver, sizeof(l.nics[i].driver));
                        /*
                         * What rtnetlink said of an interface follows its name; a renamed one
                         * is applied again (verified: the apply reads before it writes).
                         */
                        for (size_t k = 0; k < NIC_MAX_IFNAMES; k++) {
                                bool known = k >= nn[i].nic.n_ifnames;
                                nn[i].ifindex[k] = 0;
                                nn[i].absent[k] = false;
                                nn[i].up[k] = nn[i].carrier[k] = false;
                                for (size_t j = 0; !known && j < old->nic.n_ifnames; j++)
                                        if (streq(old->nic.ifnames[j], nn[i].nic.ifnames[k])) {
                                                nn[i].ifindex[k] = old->ifindex[j];
                                                nn[i].absent[k] = old->absent[j];
                                                nn[i].up[k] = old->up[j];
                                                nn[i].carrier[k] = old->carrier[j];
                                                known = true;
                                        }
                                if (!known) {
                                        log_debug("%s: renamed; applying.", nn[i].nic.ifnames[k]);
                                        nn[i].dirty = true;
                                }
                        }
                } else {
                        /* At start-up the leftovers' sweep removed every record: none is looked for. */
                        nn[i] = (ManagedNic) { .nic = l.nics[i], .dirty = true, .lp_record = m->running || m->records_unsure };
                        nic_identify(&nn[i].nic, &ic);
                        log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, &nn[i].nic, 0, "found");
                }
        }
        old_nics = m->nics;
        n_old = m->n_nics;
        m->nics = nn;
        m->n_nics = l.n;
        nic_list_done(&l);
        free(m->queue);
        m->queue = queue;
        m->n_queue = 0;
        m->n_tuned = m->n_waiting = m->n_unsupported = 0;
        m->n_lp_active = 0;
        for (size_t i = 0; i < m->n_nics; i++) {
                m->n_lp_active += m->nics[i].lp_active;
                m->nics[i].queued = false;
                if (m->nics[i].dirty || m->nics[i].drift_check)
                        manager_enqueue(m, &m->nics[i]);
                manager_count(m, &m->nics[i], +1);
        }
        r = manager_reindex(m);
        if (r < 0)
                log_oom();
        for (size_t i = 0; i < n_old; i++)
                if (r >= 0 && !manager_find_slot(m, old_nics[i].nic.slot))
                        log_nic(LOG_INFO, R8T_MESSAGE_NIC_GONE, &old_nics[i].nic, 0, "gone; forgotten");
        free(old_nics);
        return r;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        manager_schedule(userdata);
        return 0;
}

/* Another writer (a command run by hand before the service started) holds a NIC: look again in 200 ms. */
static void manager_retry_later(Manager *m) {
        uint64_t now;

        if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        if (m->retry) {
                (void) sd_event_source_set_time(m->retry, now + 200 * 1000);
                (void) sd_event_source_set_enabled(m->retry, SD_EVENT_ONESHOT);
        } else
                (void) sd_event_add_time(m->event, &m->retry, CLOCK_MONOTONIC, now + 200 * 1000, 50 * 1000, on_retry, m);
}

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* A link to sample: up with carrier (a laptop's unplugged port stays up, and is not sampled). */
static int manager_link_ifindex(const ManagedNic *mn) {
        for (size_t k = 0; k < mn->nic.n_ifnames; k++)
                if (mn->up[k] && mn->carrier[k] && mn->ifindex[k] > 0)
                        return mn->ifindex[k];
        return 0;
}

static void manager_set_lp_active(Manager *m, ManagedNic *mn, bool active) {
        if (mn->lp_active != active)
                m->n_lp_active = active ? m->n_lp_active + 1 : m->n_lp_active - 1;
        mn->lp_active = active;
}

/* Where status, diagnose and metrics find it: the state, the time in each, the transitions. */
static void manager_link_power_save(Manager *m, ManagedNic *mn, uint64_t now) {
        LinkPowerRecord rec;
        int r;

        link_power_record_from(&rec, &mn->lp, now, mn->lp_stopped);
        r = link_power_record_save(m->opts->state_dir, mn->nic.slot, &rec);
        mn->lp_record = true;
        if (r < 0)
                log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, &mn->nic, r, "cannot save the link power record: %m");
}

/* For this link until a reload: said once, at notice, with why. */
static void manager_link_power_stop(Manager *m, ManagedNic *mn, const char *why) {
        if (mn->lp_stopped)
                return;
        mn->lp_stopped = why;
        manager_set_lp_active(m, mn, false);
        log_nic(LOG_NOTICE, R8T_MESSAGE_NIC_TUNED, &mn->nic, 0, "dynamic link power is off for this link: %s", why);
        manager_link_power_save(m, mn, now_usec());
}

static int on_link_power(sd_event_source *s, uint64_t usec, void *userdata);


/* One timer for every NIC: armed while any of them is under dynamic link power with its link up. */
static void manager_link_power_arm(Manager *m) {
        uint64_t now;

        if (m->n_lp_active == 0) {
                if (m->link_power_timer)
                        (void) sd_event_source_set_enabled(m->link_power_timer, SD_EVENT_OFF);
                return;
        }
        if (m->link_power_timer && sd_event_source_get_enabled(m->link_power_timer, NULL) > 0)
                return;
        if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        /* A fifth of the period as accuracy lets the kernel batch this wakeup with others. */
        if (!m->link_power_timer)
                (void) sd_event_add_time(m->event, &m->link_power_timer, CLOCK_MONOTONIC, now + LINK_POWER_PERIOD_USEC,
                                         LINK_POWER_PERIOD_USEC / 5, on_link_power, m);
        else {
                (void) sd_event_source_set_time(m->link_power_timer, now + LINK_POWER_PERIOD_USEC);
                (void) sd_event_source_set_enabled(m->link_power_timer, SD_EVENT_ONESHOT);
        }
}

/* One sample of one link: its tx timeouts, its L1 as we left it, its packets. */
static void manager_link_power_sample(Manager *m, ManagedNic *mn, uint64_t now) {
        uint64_t packets, v;
        int r;

        /*
         * A tx timeout first: it stops link power at once, and the apply that follows puts the
         * link under the guard (r8169 turns L1 off itself then, since 6.3: not a hand-written
         * value).
         */
        if (nic_read_tx_timeouts(m->c.root, &mn->nic, &v) >= 0 && v > 0) {
                manager_set_lp_active(m, mn, false);
                manager_mark_dirty(m, mn);
                return;
        }
        /* Written by hand since our last write: the other writer keeps L1, said once. */
        if (backend_read_knob(&m->c.backend, &mn->nic, KNOB_L1_ASPM, &v) >= 0 && v != mn->lp_expect) {
                for (int k = 0; k < _KNOB_MAX; k++)
                        if (knob_get(k)->l1)
                                mn->knobs[k].yielded = true;
                manager_link_power_stop(m, mn, v ? "link/l1_aspm was set to 1 outside r8169-tuned"
                                                 : "link/l1_aspm was set to 0 outside r8169-tuned");
                return;
        }
        if (!m->stats) {
                r = rtnl_stats_open(&m->stats);
                if (r < 0) {
                        if (!m->stats_warned)
                                log_nic(LOG_WARNING, R8T_MESSAGE_NIC_TUNED, &mn->nic, r, "cannot read packet counters: %m");
                        m->stats_warned = true;
                        return;
                }
        }
        r = rtnl_link_packets(m->stats, manager_link_ifindex(mn), &packets);
        if (r < 0) {
                /* Gone between the link's notification and now: the notification that follows decides. */
                log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, &mn->nic, r, "cannot read its packet counters: %m");
                return;
        }
        if (link_power_sample(&mn->lp, now, packets)) {
                log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, &mn->nic, 0, "link power: %s, L1 %s",
                        link_power_state_to_string(mn->lp.state), mn->lp.state == LINK_POWER_BUSY ? "off" : "on");
                manager_link_power_save(m, mn, now);
                manager_mark_dirty(m, mn);
        }
        if (now - mn->lp_summary_usec >= 3600ull * 1000000) {
                uint64_t idle = link_power_time(&mn->lp, LINK_POWER_IDLE, now), busy = link_power_time(&mn->lp, LINK_POWER_BUSY, now);

                log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, &mn->nic, 0, "link power: L1 on %.1f%% of %.1f h, %u transitions",
                        100.0 * (double) idle / (double) (idle + busy + 1), (double) (idle + busy) / 3600e6, mn->lp.transitions);
                mn->lp_summary_usec = now;
                manager_link_power_save(m, mn, now);
        }
}

static int on_link_power(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        uint64_t now = now_usec();

        for (size_t i = 0; i < m->n_nics; i++)
                if (m->nics[i].lp_active)
                        manager_link_power_sample(m, &m->nics[i], now);
        /* From the planned time, not from now: the period does not drift by the slack; after a
         * stall, one period from now (back-to-back samples would take one packet for load). */
        (void) sd_event_source_set_time(s, usec + LINK_POWER_PERIOD_USEC > now + LINK_POWER_PERIOD_USEC / 2
                                                   ? usec + LINK_POWER_PERIOD_USEC
                                                   : now + LINK_POWER_PERIOD_USEC);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        manager_link_power_arm(m); /* a NIC whose state changed is queued already (manager_mark_dirty) */
        return 0;
}

/* Before a plan: the rule's parameters, from the configuration in force (set up once per NIC). */
static void manager_link_power_prepare(Manager *m, ManagedNic *mn) {
        LinkPowerParams p = { LINK_POWER_PERIOD_USEC, m->c.config.link_power_busy_pps,
                              m->c.config.link_power_quiet_s * 1000000 };

        if (mn->lp_init) {
                mn->lp.params = p; /* a reload: new thresholds, the state and its times stay */
                return;
        }
        link_power_init(&mn->lp, &p, now_usec());
        mn->lp_summary_usec = now_usec();
        mn->lp_init = true;
}

/* Sampled now or not: in charge, and the link up with carrier. */
static void manager_link_power_update(Manager *m, ManagedNic *mn) {
        bool active = mn->lp_in_charge && !mn->lp_stopped && manager_link_ifindex(mn) > 0;

        if (active && !mn->lp_active)
                manager_link_power_save(m, mn, now_usec());
        /* No traffic without a link: L1 goes back on at once (an unplugged laptop would otherwise stay out of deep idle). */
        if (!active && mn->lp_active && link_power_idle(&mn->lp, now_usec())) {
                log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, &mn->nic, 0, "link power: no link, L1 on");
                manager_link_power_save(m, mn, now_usec());
                manager_mark_dirty(m, mn);
        }
        manager_set_lp_active(m, mn, active);
        manager_link_power_arm(m);
}

/* After the apply: in charge or not, what L1 holds now, and whether the timer runs. */
static void manager_link_power_applied(Manager *m, ManagedNic *mn, const NicPlan *plan, const KnobReading current[_KNOB_MAX]) {
        uint64_t v;

        if (plan->link_power_asked && plan->link_power_blocked)
                manager_link_power_stop(m, mn, plan->link_power_blocked);
        mn->lp_in_charge = plan->link_power >= 0;
        if (!mn->lp_in_charge) {
                /* Not under link power (any more): no record that would tell otherwise (one unlink, not one per apply). */
                if (!plan->link_power_asked && mn->lp_record && link_power_record_remove(m->opts->state_dir, mn->nic.slot) >= 0)
                        mn->lp_record = false;
                manager_link_power_update(m, mn);
                return;
        }
        /*
         * The substates as found, before link power ever turned L1 off (which masks them): the
         * journal's originals where it has them (a daemon before this one may have left L1 off),
         * else what the plan read.
         */
        if (mn->lp.transitions == 0 && !mn->lp_found_read) {
                _cleanup_(undo_done) UndoJournal j = {};
                _cleanup_(diag_done) Diagnostics d = {};
                bool have = undo_load(m->opts->state_dir, mn->nic.slot, &j, &d) >= 0;

                for (int k = 0; k < _KNOB_MAX; k++) {
                        const UndoEntry *e = have ? undo_find(&j, knob_get(k)->backend->id, knob_get(k)->name) : NULL;
                        if (!knob_get(k)->l1 || (!e && current[k].status != KNOB_STATUS_OK))
                                continue;
                        mn->lp_plan.found_known[k] = true;
                        mn->lp_plan.found[k] = (e ? e->original : current[k].value) != 0;
                }
                mn->lp_found_read = true;
        }
        /* What the kernel made of our write: under the default policy L1 comes on only where the BIOS enabled it. */
        mn->lp_expect = backend_read_knob(&m->c.backend, &mn->nic, KNOB_L1_ASPM, &v) >= 0 ? v
                                                                                         : plan->link_power == LINK_POWER_IDLE;
        if (plan->link_power == LINK_POWER_IDLE && mn->knobs[KNOB_L1_ASPM].kept_other)
                manager_link_power_stop(m, mn, "the kernel keeps L1 off on this link (the BIOS did not enable it, and the "
                                               "ASPM policy is default)");
        manager_link_power_update(m, mn);
}

static void manager_apply(Manager *m, ManagedNic *mn) {
        ApplyContext ac = { .backend = &m->c.backend, .state_dir = m->opts->state_dir, .knobs = mn->knobs,
                            .daemon = true, .give_back = true, .writes = m->writes,
                            .fault_after = m->opts->fault_after_writes, .fault_signal = m->opts->fault_signal };
        KnobReading current[_KNOB_MAX];
        _cleanup_close_ int lock = -1;
        ApplyStats st = {};
        NicPlan plan;
        size_t k = 0;

        /* Read, plan, write and record as the only writer of this NIC; never wait in the event loop. */
        lock = undo_lock_nic(m->opts->state_dir, mn->nic.slot, 0);
        if (lock < 0) {
                log_nic(lock == -EAGAIN ? LOG_DEBUG : LOG_ERR, R8T_MESSAGE_KNOB_FAILED, &mn->nic, lock,
                        lock == -EAGAIN ? "another writer holds it; trying again shortly" : "cannot take its lock: %m");
                mn->dirty = true;
                if (lock == -EAGAIN)
                        manager_retry_later(m);
                return;
        }
        manager_link_power_prepare(m, mn);
        mn->lp_plan.state = mn->lp.state;
        /* By ifindex, as rtnetlink told it (the kernel checks it against the name); none: ethtool is not asked. */
        backend_set_ifindex(&m->c.backend, nic_ifname(&mn->nic),
                            mn->ifindex[0] > 0 ? mn->ifindex[0] : mn->absent[0] ? -1 : 0);
        context_plan_nic_daemon(&m->c, &mn->nic, mn->lp_stopped ? NULL : &mn->lp_plan, current, &plan);
        context_record_tx_guard(&m->c, &mn->nic, &plan);
        /* drift = leave: what another tool took over stays with it until a reload. */
        for (size_t i = 0; i < plan.n; i++)
                if (!mn->knobs[plan.items[i].knob].yielded)
                        plan.items[k++] = plan.items[i];
        plan.n = k;

        ac.l1_guard = plan.tx_guard;
        (void) apply_nic(&ac, &mn->nic, &plan, &st);
        backend_set_ifindex(&m->c.backend, NULL, 0);
        m->writes = ac.writes;
        manager_link_power_applied(m, mn, &plan, current);

        for (int i = 0; i < _KNOB_MAX; i++)
                mn->knobs[i].desired_set = false;
        for (size_t i = 0; i < plan.n; i++)
                if (plan.items[i].action == PLAN_CHANGE || plan.items[i].action == PLAN_KEEP) {
                        mn->knobs[plan.items[i].knob].desired_set = true;
                        mn->knobs[plan.items[i].knob].desired = plan.items[i].desired;
                }
        mn->failed = st.failed;
        mn->waiting = st.waiting;
        mn->unsupported = st.unsupported;
}

/* Whether knob k, of one of these backends, is held at a value the kernel no longer has. */
static bool knob_drifted(const ManagedNic *mn, unsigned backends, KnobId k, const KnobReading now[_KNOB_MAX]) {
        const KnobState *ks = &mn->knobs[k];

        if (!(backends & (1u << knob_get(k)->backend->id)) || !ks->desired_set || !ks->held)
                return false;
        return now[k].status == KNOB_STATUS_OK && (now[k].value != ks->desired || now[k].partial);
}

/*
 * Another tool changed a knob whose backend tells us (an ethtool notification): only the
 * backends that notified are read, one request each (our own writes notify too).
 */
static void manager_check_drift(Manager *m, ManagedNic *mn, unsigned backends) {
        KnobReading now[_KNOB_MAX] = {};

        for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                if (backends & (1u << b))
                        knob_backends[b].read(&m->c.backend, &knob_backends[b], &mn->nic, now);
        for (int k = 0; k < _KNOB_MAX; k++) {
                KnobState *ks = &mn->knobs[k];
                char was[KNOB_VALUE_MAX], is[KNOB_VALUE_MAX];
                const char *was_s, *is_s;

                if (!knob_drifted(mn, backends, k, now))
                        continue;
                was_s = knob_format_value(k, ks->desired, was, sizeof(was));
                is_s = now[k].partial ? "partial" : knob_format_value(k, now[k].value, is, sizeof(is));
                ks->held = false;
                if (m->c.config.drift == DRIFT_LEAVE) {
                        ks->yielded = true;
                        log_nic_knob(LOG_NOTICE, R8T_MESSAGE_DRIFT, &mn->nic, k, was_s, is_s, NULL, 0,
                                     "%s changed from %s to %s outside r8169-tuned; leaving it (drift = leave)",
                                     knob_get(k)->name, was_s, is_s);
                        continue;
                }
                log_nic_knob(ks->drift_logged ? LOG_DEBUG : LOG_NOTICE, R8T_MESSAGE_DRIFT, &mn->nic, k, was_s, is_s,
                             NULL, 0, "%s changed from %s to %s outside r8169-tuned; putting %s back",
                             knob_get(k)->name, was_s, is_s, was_s);
                ks->drift_logged = true;
                mn->dirty = true;
        }
}

/* STATUS=, when it says something new (a burst of events is not a burst of messages to PID 1). */
static void manager_notify_status(Manager *m, const char *extra) {
        char status[256], w[64] = "";

        if (m->n_waiting)
                snprintf(w, sizeof(w), ", %u waiting for an interface", m->n_waiting);
        snprintf(status, sizeof(status), "STATUS=%u NIC%s tuned%s, %u unsupported knob%s (profile %s)", m->n_tuned,
                 m->n_tuned == 1 ? "" : "s", w, m->n_unsupported, m->n_unsupported == 1 ? "" : "s",
                 profile_to_string(m->c.profile));
        if (!extra && streq(status, m->status))
                return;
        memcpy(m->status, status, sizeof(status));
        (void) sd_notifyf(false, "%s%s", extra ?: "", status);
}

/* What one NIC's turn in the worker does: a drift check, an apply. */
static void manager_work_nic(Manager *m, ManagedNic *mn) {
        if (mn->drift_check) {
                unsigned backends = mn->drift_check;
                mn->drift_check = 0;
                manager_check_drift(m, mn, backends);
        }
        if (mn->dirty || m->everything) {
                mn->dirty = false;
                log_debug("%s: applying.", nic_ifname(&mn->nic) ?: mn->nic.slot);
                manager_count(m, mn, -1);
                manager_apply(m, mn);
                manager_count(m, mn, +1);
        }
}

static int on_work(sd_event_source *s, void *userdata) {
        Manager *m = userdata;

        if (m->rescan) {
                m->rescan = false;
                (void) manager_rescan(m);
                /* A rescan of many NICs churns the heap: give it back, the daemon idles small. */
                malloc_trim(0);
        }
        if (m->everything)
                for (size_t i = 0; i < m->n_nics; i++)
                        manager_work_nic(m, &m->nics[i]);
        else
                /* Only the NICs events named: the cost of a burst is its own, not the machine's. */
                for (size_t q = 0; q < m->n_queue; q++)
                        manager_work_nic(m, &m->nics[m->queue[q]]);
        /* What is still to do (an apply that could not run now says so with dirty) stays queued. */
        if (m->everything) {
                for (size_t q = 0; q < m->n_queue; q++)
                        m->nics[m->queue[q]].queued = false;
                m->n_queue = 0;
                for (size_t i = 0; i < m->n_nics; i++)
                        if (m->nics[i].dirty || m->nics[i].drift_check) {
                                m->nics[i].queued = true;
                                m->queue[m->n_queue++] = i;
                        }
        } else {
                size_t kept = 0;
                for (size_t q = 0; q < m->n_queue; q++) {
                        ManagedNic *mn = &m->nics[m->queue[q]];
                        if (mn->dirty || mn->drift_check)
                                m->queue[kept++] = m->queue[q];
                        else
                                mn->queued = false;
                }
                m->n_queue = kept;
        }
        m->everything = false;
        manager_notify_status(m, NULL);
        return 0;
}

/*
 * Whether an interface nobody knows may belong to a Realtek NIC: its parent is a PCI
 * function in r8169's ID table. veths, bridges, Wi-Fi and other vendors' NICs do not
 * cost a rescan.
 */
static bool net_device_may_be_ours(sd_device *d) {
        const char *subsystem, *v, *dv, *sv, *sd;
        uint64_t vendor, device, subsys_vendor = 0, subsys_device = 0;
        sd_device *parent;

        if (sd_device_get_parent(d, &parent) < 0 || sd_device_get_subsystem(parent, &subsystem) < 0 ||
            !streq(subsystem, "pci"))
                return false;
        if (sd_device_get_sysattr_value(parent, "vendor", &v) < 0 || sd_device_get_sysattr_value(parent, "device", &dv) < 0 ||
            parse_sysfs_number(v, &vendor) < 0 || parse_sysfs_number(dv, &device) < 0)
                return true; /* cannot tell: look */
        if (sd_device_get_sysattr_value(parent, "subsystem_vendor", &sv) >= 0)
                (void) parse_sysfs_number(sv, &subsys_vendor);
        if (sd_device_get_sysattr_value(parent, "subsystem_device", &sd) >= 0)
                (void) parse_sysfs_number(sd, &subsys_device);
        return chip_pci_id_known((uint16_t) vendor, (uint16_t) device, (uint16_t) subsys_vendor, (uint16_t) subsys_device);
}

/*
 * The one place where rtnetlink tells of an interface of a managed NIC (its messages and
 * its dumps): one that appeared (an ifindex not seen before) is applied at once, one that
 * came up is re-applied.
 */
static void manager_link_changed(Manager *m, ManagedNic *mn, size_t k, const char *ifname, int ifindex, bool up,
                                 bool carrier) {
        bool appeared = mn->ifindex[k] != ifindex, came_up = up && !mn->up[k];

        mn->ifindex[k] = ifindex;
        mn->absent[k] = false;
        mn->up[k] = up;
        mn->carrier[k] = carrier;
        /* No samples, and no wakeups, while the link is down or has no carrier. */
        manager_link_power_update(m, mn);
        /* r8169 rewrites IntrMitigate on every open: re-apply when the interface comes up. */
        if (!appeared && !came_up)
                return;
        if (appeared)
                log_debug("%s: appeared (ifindex %d); applying.", ifname, ifindex);
        else
                log_debug("%s: up; re-applying.", ifname);
        manager_mark_dirty(m, mn);
        /*
         * At once, in a burst too: this NIC's work does not wait behind the rest of the event
         * queue (udevd's copies of the same events, other interfaces). Before the loop runs
         * (the start-up dump), the first apply of everything does it.
         */
        if (m->running && !m->rescan)
                manager_work_nic(m, mn);
}

static void manager_link_removed(Manager *m, ManagedNic *mn, size_t k, int ifindex) {
        if (mn->ifindex[k] == ifindex) {
                mn->ifindex[k] = 0;
                mn->absent[k] = true;
                mn->up[k] = mn->carrier[k] = false;
                manager_link_power_update(m, mn);
        }
}

static int on_device(sd_device_monitor *monitor, sd_device *d, void *userdata) {
        Manager *m = userdata;
        const char *subsystem = NULL, *sysname = NULL, *devpath = NULL;
        sd_device_action_t action = _SD_DEVICE_ACTION_INVALID;
        ManagedNic *mn;
        size_t k = 0;

        (void) sd_device_get_subsystem(d, &subsystem);
        (void) sd_device_get_sysname(d, &sysname);
        (void) sd_device_get_action(d, &action);
        if (!subsystem || !sysname)
                return 0;
        if (streq(subsystem, "power_supply")) {
                if (m->c.config.profile == PROFILE_BALANCED && !m->opts->profile) {
                        manager_update_profile(m);
                        manager_schedule(m);
                }
                return 0;
        }
        if (action != SD_DEVICE_ADD && action != SD_DEVICE_MOVE && action != SD_DEVICE_REMOVE)
                return 0;
        /*
         * Bursts coalesce: each event only marks work; the worker runs when the queue is
         * drained. Only what can change the set of NICs or their names costs a rescan: a PCI
         * device coming or going, a rename, an interface of a Realtek PCI function nobody knew.
         */
        if (streq(subsystem, "pci")) {
                log_debug("udev: pci %s %s", sysname, action == SD_DEVICE_ADD ? "added" : action == SD_DEVICE_MOVE ? "moved" : "removed");
                m->rescan = true;
                manager_schedule(m);
                return 0;
        }
        mn = manager_find_ifname(m, sysname, &k);
        if (!mn) {
                /* Not ours, and virtual (veth, bridge, tun: a container host makes hundreds): one lookup, no more. */
                if (action == SD_DEVICE_REMOVE ||
                    (sd_device_get_devpath(d, &devpath) >= 0 && strncmp(devpath, "/devices/virtual/", 17) == 0))
                        return 0;
                if (!net_device_may_be_ours(d))
                        return 0;
                log_debug("udev: %s %s, perhaps of a Realtek NIC nobody knew.", sysname, action == SD_DEVICE_ADD ? "added" : "renamed");
                m->rescan = true;
                manager_schedule(m);
                return 0;
        }
        log_debug("udev: %s %s", sysname, action == SD_DEVICE_ADD ? "added" : action == SD_DEVICE_MOVE ? "renamed" : "removed");
        if (action == SD_DEVICE_MOVE) {
                m->rescan = true;
                manager_schedule(m);
        } else if (action == SD_DEVICE_ADD && mn->ifindex[k] == 0)
                /*
                 * An interface rtnetlink has not told of (yet). udevd's copy of the uevent can
                 * come before ethtool finds the interface by name (seen in a burst of veths:
                 * "no device matches name"), RTM_NEWLINK comes after. So this only queues an
                 * apply for the worker; the ifindex stays rtnetlink's to tell, and its word is
                 * acted on at once.
                 */
                manager_mark_dirty(m, mn);
        return 0;
}

static void on_link(const char *ifname, int ifindex, unsigned flags, bool removed, void *userdata) {
        Manager *m = userdata;
        size_t k;
        ManagedNic *mn = manager_find_ifname(m, ifname, &k);

        /* Not ours: one lookup, nothing else. */
        if (!mn)
                return;
        mn->seen[k] = m->dump;
        if (removed)
                manager_link_removed(m, mn, k, ifindex);
        else
                manager_link_changed(m, mn, k, ifname, ifindex, flags & IFF_UP, flags & IFF_LOWER_UP);
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
                for (size_t i = 0; i < m->n_nics; i++)
                        memset(m->nics[i].absent, 0, sizeof(m->nics[i].absent));
                m->everything = true;
                manager_schedule(m);
                return;
        }
        for (size_t i = 0; i < m->n_nics; i++) {
                ManagedNic *mn = &m->nics[i];
                for (size_t k = 0; k < mn->nic.n_ifnames; k++)
                        if (mn->seen[k] != m->dump && mn->ifindex[k] != 0) {
                                manager_link_removed(m, mn, k, mn->ifindex[k]);
                                gone++;
                        }
        }
        log_info("Resynchronised from a dump of the links: %zu NIC%s applied, %zu interface%s gone.", m->n_queue - queued,
                 m->n_queue - queued == 1 ? "" : "s", gone, gone == 1 ? "" : "s");
}

static int on_rtnl_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;
        if (netlink_monitor_receive(m->rtnl) == -ENOBUFS) {
                log_notice("Link notifications were lost (the receive queue overflowed); resynchronising from a dump of the links.");
                manager_resync_links(m);
        }
        return 0;
}

static void on_ethtool_ntf(uint8_t cmd, const char *ifname, const EthtoolNotification *ntf, void *userdata) {
        _cleanup_(ethtool_features_done) EthtoolFeatures features = {};
        Manager *m = userdata;
        unsigned backends = 0, decoded = 0;
        ManagedNic *mn;

        for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                if (knob_backends[b].drift_ntf && knob_backends[b].drift_ntf == cmd)
                        backends |= 1u << b;
        if (!backends)
                return;
        mn = manager_find_ifname(m, ifname, NULL);
        if (!mn)
                return;
        /*
         * The notification says what the kernel holds (our own writes notify too): where that is
         * what we hold, nothing is read. A difference may be a notification older than our
         * latest write, so only then is the kernel asked, by the worker.
         */
        if (ethtool_notification_features(ntf, &features) >= 0) {
                KnobReading now[_KNOB_MAX] = {};
                bool drifted = false;

                for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                        if ((backends & (1u << b)) && knob_backends[b].by_feature)
                                decoded |= 1u << b;
                for (int k = 0; k < _KNOB_MAX && decoded; k++)
                        if (decoded & (1u << knob_get(k)->backend->id)) {
                                backend_feature_reading(&features, k, &now[k]);
                                drifted = drifted || knob_drifted(mn, decoded, k, now);
                        }
                if (!drifted)
                        backends &= ~decoded;
        }
        if (!backends)
                return;
        mn->drift_check |= backends;
        manager_enqueue(m, mn);
}

static int on_ethtool_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;
        if (netlink_monitor_receive(m->ethmon) == -ENOBUFS) {
                /* No dump tells what another tool changed meanwhile: look at every NIC, change nothing unasked. */
                log_notice("Ethtool notifications were lost (the receive queue overflowed); checking every NIC for drift.");
                unsigned backends = 0;
                for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                        if (knob_backends[b].drift_ntf)
                                backends |= 1u << b;
                for (size_t i = 0; i < m->n_nics; i++) {
                        m->nics[i].drift_check |= backends;
                        manager_enqueue(m, &m->nics[i]);
                }
        }
        return 0;
}

static int on_prepare_for_sleep(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;
        int sleeping = 0;

        if (sd_bus_message_read(msg, "b", &sleeping) < 0 || sleeping)
                return 0;
        log_info("Resumed from suspend; re-applying.");
        manager_update_profile(m);
        m->everything = true;
        manager_schedule(m);
        return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;
        Config config;
        QuirkDb quirks;

        (void) sd_notify(false, "RELOADING=1\nSTATUS=Reloading configuration");
        if (context_read_policy(m->opts, &config, &quirks) < 0) {
                log_internal(LOG_ERR, 0, (const char *[]) { "MESSAGE_ID=" R8T_MESSAGE_CONFIG_REJECTED, NULL },
                             "New configuration rejected; the previous one stays in force.");
                manager_notify_status(m, "READY=1\n");
                return 0;
        }
        config_done(&m->c.config);
        quirk_db_done(&m->c.quirks);
        m->c.config = config;
        m->c.quirks = quirks;
        log_set_max_level(m->opts->log_level >= 0 ? m->opts->log_level : m->c.config.log_level);
        for (size_t i = 0; i < m->n_nics; i++) {
                for (int k = 0; k < _KNOB_MAX; k++)
                        m->nics[i].knobs[k].yielded = m->nics[i].knobs[k].drift_logged = false;
                m->nics[i].lp_stopped = NULL; /* the state, its times and what was found stay */
        }
        log_info("Configuration reloaded.");
        m->c.profile = _PROFILE_INVALID;
        manager_update_profile(m);
        m->everything = true;
        m->rescan = true;
        on_work(m->work, m);
        manager_notify_status(m, "READY=1\n");
        return 0;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        (void) sd_notify(false, "STOPPING=1\nSTATUS=Stopping");
        if (m->c.config.restore_on_exit) {
                ApplyContext ac = { .backend = &m->c.backend, .state_dir = m->opts->state_dir, .daemon = true,
                                    .writes = m->writes, .fault_after = m->opts->fault_after_writes,
                                    .fault_signal = m->opts->fault_signal };
                ApplyStats st = {};
                uint64_t start = 0, now = 0;
                (void) sd_event_now(m->event, CLOCK_MONOTONIC, &start);
                for (size_t i = 0; i < m->n_nics; i++) {
                        /* Stopping may wait a little for another writer: 10 s for all NICs together, well
                         * inside systemd's stop timeout, since originals must go back. */
                        uint64_t spent_ms, timeouts;
                        _cleanup_close_ int lock = -1;

                        now = now_usec();
                        spent_ms = start && now > start ? (now - start) / 1000 : 0;
                        lock = undo_lock_nic(m->opts->state_dir, m->nics[i].nic.slot,
                                             spent_ms < 10 * 1000 ? (unsigned) (10 * 1000 - spent_ms) : 0);
                        ac.l1_guard = context_tx_guard(&m->c, &m->nics[i].nic, &timeouts);
                        if (lock < 0) {
                                st.failed++;
                                log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, &m->nics[i].nic, lock,
                                        "cannot take its lock (%m); its originals stay in %s", m->opts->state_dir);
                                continue;
                        }
                        (void) restore_nic(&ac, &m->nics[i].nic, m->nics[i].nic.slot, &st);
                }
                log_info("Stopped: %u value%s restored, %u left alone, %u failed.", st.restored,
                         st.restored == 1 ? "" : "s", st.left_alone, st.failed);
        } else
                log_info("Stopped; tuned values stay (restore-on-exit = no).");
        /* Nobody samples any more: a record left behind would tell status of a daemon that is gone. */
        for (size_t i = 0; i < m->n_nics; i++)
                (void) link_power_record_remove(m->opts->state_dir, m->nics[i].nic.slot);
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

static void manager_free(Manager *m) {
        sd_event_source_unref(m->link_power_timer);
        if (m->stats)
                nl_socket_free(m->stats);
        sd_event_source_unref(m->retry);
        closep(&m->service_lock);
        sd_event_source_unref(m->work);
        sd_event_source_unref(m->rtnl_source);
        sd_device_monitor_unref(m->monitor);
        sd_bus_slot_unref(m->sleep_slot);
        sd_bus_flush_close_unref(m->bus);
        netlink_monitor_free(m->rtnl);
        netlink_monitor_free(m->ethmon);
        context_done(&m->c);
        free(m->nics);
        free(m->queue);
        free(m->by_ifname.slots);
        free(m->by_slot.slots);
        sd_event_unref(m->event);
}

/*
 * The receive buffer of the netlink monitors. R8T_TEST_NETLINK_RCVBUF (bytes) makes it small
 * enough for a test to overflow it with a burst, so that the resynchronisation it then takes
 * is the real one.
 */
static int manager_rcvbuf(void) {
        const char *e = getenv("R8T_TEST_NETLINK_RCVBUF");
        uint64_t v;

        if (e && parse_u64_base(e, 10, &v) >= 0 && v > 0 && v <= NETLINK_MONITOR_RCVBUF)
                return (int) v;
        return NETLINK_MONITOR_RCVBUF;
}

static int manager_watch(Manager *m) {
        int r, rcvbuf = manager_rcvbuf(), got = 0;

        r = sd_device_monitor_new(&m->monitor);
        /* udevd broadcasts a burst as fast as it works through it: room for all of it, as networkd has. */
        if (r >= 0)
                (void) sd_device_monitor_set_receive_buffer_size(m->monitor, NETLINK_MONITOR_RCVBUF);
        if (r >= 0)
                r = sd_device_monitor_filter_add_match_subsystem_devtype(m->monitor, "net", NULL);
        if (r >= 0)
                r = sd_device_monitor_filter_add_match_subsystem_devtype(m->monitor, "power_supply", NULL);
        if (r >= 0)
                r = sd_device_monitor_filter_add_match_subsystem_devtype(m->monitor, "pci", NULL);
        if (r >= 0)
                r = sd_device_monitor_attach_event(m->monitor, m->event);
        if (r >= 0)
                r = sd_device_monitor_start(m->monitor, on_device, m);
        if (r < 0)
                return log_error_errno(r, "Cannot watch udev events: %m");

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

        /* Resume from suspend, through logind. No system bus (containers, tests) is not an error. */
        r = sd_bus_open_system(&m->bus);
        if (r >= 0)
                r = sd_bus_match_signal(m->bus, &m->sleep_slot, "org.freedesktop.login1", "/org/freedesktop/login1",
                                        "org.freedesktop.login1.Manager", "PrepareForSleep", on_prepare_for_sleep, m);
        if (r >= 0)
                r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0) {
                log_info_errno(r, "No system bus (%m): resume from suspend is noticed on link up only.");
                m->sleep_slot = sd_bus_slot_unref(m->sleep_slot);
                m->bus = sd_bus_flush_close_unref(m->bus);
        }
        return 0;
}

int manager_run(const Options *o) {
        Manager m = { .opts = o, .c = { .opts = o, .profile = _PROFILE_INVALID }, .service_lock = -1 };
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        r = context_check_privileges(o, "The daemon");
        if (r < 0)
                goto out;
        /* One daemon per state directory; the commands see it and leave the NICs to it. */
        m.service_lock = r = undo_lock_service(o->state_dir);
        if (r < 0) {
                log_error_errno(r, r == -EBUSY ? "Another r8169-tuned daemon runs with the state directory %s; not starting."
                                               : "Cannot take the service lock in %s: %m", o->state_dir);
                goto out;
        }
        /* A record the sweep had to leave (its slot was busy) is looked for at that NIC's first apply. */
        m.records_unsure = undo_remove_leftovers(o->state_dir) > 0;
        r = sysroot_new(o->sysfs, &m.c.root);
        if (r < 0) {
                log_error_errno(r, "Cannot open sysfs root %s: %m", o->sysfs);
                goto out;
        }
        r = context_load_policy(&m.c);
        if (r < 0) {
                log_error("Configuration or quirk files are broken; not starting.");
                goto out;
        }
        log_set_max_level(o->log_level >= 0 ? o->log_level : m.c.config.log_level);
        backend_init(&m.c.backend, m.c.root);
        r = sd_event_default(&m.event);
        if (r < 0)
                goto out;
        (void) sd_event_set_watchdog(m.event, true);
        r = sd_event_add_signal(m.event, NULL, SIGTERM, on_sigterm, &m);
        if (r >= 0)
                r = sd_event_add_signal(m.event, NULL, SIGINT, on_sigterm, &m);
        if (r >= 0)
                r = sd_event_add_signal(m.event, NULL, SIGHUP, on_sighup, &m);
        /* Idle priority: it runs once the event queue is drained, so bursts are coalesced. */
        if (r >= 0)
                r = sd_event_add_defer(m.event, &m.work, on_work, &m);
        if (r >= 0)
                r = sd_event_source_set_priority(m.work, SD_EVENT_PRIORITY_IDLE);
        if (r >= 0)
                r = sd_event_source_set_enabled(m.work, SD_EVENT_OFF);
        if (r < 0) {
                log_error_errno(r, "Cannot set up the event loop: %m");
                goto out;
        }
        /* Subscribe before the first scan, so nothing that appears meanwhile is missed. */
        r = manager_watch(&m);
        if (r < 0)
                goto out;

        manager_update_profile(&m);
        r = manager_rescan(&m);
        if (r < 0)
                goto out;
        /* Which interfaces of the NICs exist and are up: what later notifications are compared with. */
        if (rtnl_dump_links(on_link, &m) < 0)
                log_warning("Cannot list the links; an interface is re-applied at its first notification.");
        else
                /* What the dump did not list is not there: its first apply asks ethtool nothing. */
                for (size_t i = 0; i < m.n_nics; i++)
                        for (size_t k = 0; k < m.nics[i].nic.n_ifnames; k++)
                                m.nics[i].absent[k] = m.nics[i].ifindex[k] == 0;
        m.everything = true;
        on_work(m.work, &m);
        /* Discovery and the first apply of every NIC churned the heap: the daemon idles small. */
        malloc_trim(0);
        manager_notify_status(&m, "READY=1\n");
        log_info("Started: %zu Realtek NIC%s, profile %s.", m.n_nics, m.n_nics == 1 ? "" : "s",
                 profile_to_string(m.c.profile));

        m.running = true;
        r = sd_event_loop(m.event);
out:
        manager_free(&m);
        return r < 0 ? 1 : 0;
}
