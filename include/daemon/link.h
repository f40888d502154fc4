/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <systemd/sd-device.h>
#include <systemd/sd-event.h>

#include "apply/apply.h"
#include "decide/context.h"
#include "decide/linkpower.h"
#include "kernel/ethtool-nl.h"

/*
 * One NIC as the daemon keeps it between events: what discovery found, what rtnetlink said
 * of each of its interfaces, what the last apply left in each knob, and its dynamic link
 * power. Its operations act on it and say what work they need of the manager (queue an
 * apply, run it at once, try again shortly, look at the sampling timer) instead of calling
 * back into it: the manager keeps the loop, the event sources and the queue (as networkd
 * splits networkd-manager.c from networkd-link.c).
 */

/* One interface of the NIC (Nic.ifnames[k]), as rtnetlink last said. */
typedef struct LinkIface {
        int ifindex;    /* 0: not there, or not told of */
        /*
         * rtnetlink said it is not there (a dump that did not list it, RTM_DELLINK): ethtool is
         * not asked for it, nor its class/net directory read or written (a fixture tree may have
         * one). An interface it has not told of (found by a rescan, renamed) is
         * not "absent": it goes by name, as the commands do.
         */
        bool absent;
        bool up;        /* IFF_UP */
        bool carrier;   /* IFF_LOWER_UP */
        unsigned seen;  /* the last link dump that listed it */
} LinkIface;

/*
 * Dynamic link power of one NIC, while the link is up and the plan puts it in charge: idle
 * (L1 on), it waits for a packet on a wake socket, counts a window after one and decides;
 * busy (L1 off), the sampling timer samples its counters. The event sources are
 * daemon/link-power.c's (it creates and drops them as link_power_want() says, and finds the
 * link of one by comparing them); they are kept here, so that they move with the link in a rescan.
 */
typedef struct LinkPowerControl {
        LinkPower lp;
        bool init;             /* lp has this configuration's parameters */
        bool in_charge;        /* the last plan put link power in charge of L1 */
        bool active;           /* in charge and the link has carrier */
        sd_event_source *wake;   /* idle: the wake socket's I/O source (it owns the socket) */
        sd_event_source *window; /* idle, after a wake: the end of the window that decides */
        int wake_ifindex;        /* what the wake socket is bound to */
        uint64_t window_start;   /* when the wake came */
        const char *stopped;   /* why it stopped for this link until a reload, NULL: it did not */
        PlanLinkPower plan;    /* the L1 substates as first found (what the plan gives back) */
        bool found_read;
        bool record;           /* a record may exist: ours, or a daemon's before this one */
        uint64_t expect;       /* link/l1_aspm as read back after our last apply */
        uint64_t summary_usec; /* the last hourly summary */
} LinkPowerControl;

/*
 * What the daemon did with a NIC, as the bus's State says it (r8169-tuned(8)): the last apply's
 * outcome, or given back. A NIC found a moment ago is TUNED until its first apply, which is
 * queued at once. link_set_state() is the one place it changes, and says so at debug level.
 */
typedef enum LinkState {
        LINK_STATE_TUNED,    /* every write of the last apply held, or none was due */
        LINK_STATE_WAITING,  /* a knob waits for its interface */
        LINK_STATE_FAILED,   /* a write failed or did not hold */
        LINK_STATE_RELEASED, /* given back on request (Restore, Release): no apply, no drift handled, until Apply */
        _LINK_STATE_MAX,
} LinkState;

const char *link_state_to_string(LinkState s);

typedef struct Link {
        Nic nic;
        LinkIface ifaces[NIC_MAX_IFNAMES];
        KnobState knobs[_KNOB_MAX];
        LinkState state;
        unsigned failed, unsupported, waiting; /* of the last apply */
        LinkPowerControl power;
        /* Work the manager has queued for it. */
        bool dirty;           /* re-apply at the next idle moment */
        unsigned drift_check; /* backends (1 << id) a notification said something changed in */
        bool queued;          /* in the manager's queue */
} Link;

/* What an operation needs the manager to do; 0: nothing. */
typedef enum LinkWork {
        LINK_WORK_QUEUE = 1 << 0, /* dirty or drift_check was set: queue the link for the worker */
        LINK_WORK_NOW = 1 << 1,   /* and run it at once (an interface appeared or came up) */
        LINK_WORK_RETRY = 1 << 2, /* another writer holds the NIC: look again shortly */
} LinkWork;

/* What every link shares: the policy and backends, the state directory, the packet counters. */
typedef struct LinkEnv {
        Context *c;
        const Options *opts;
        unsigned writes; /* test seam: writes so far, across every apply and restore */
        /* The monotonic clock in µs; NULL: CLOCK_MONOTONIC (a seam for tests, as packets is). */
        uint64_t (*clock)(void);
        /* rx + tx packets of an interface by ifindex; NULL: rtnetlink's IFLA_STATS64. */
        int (*packets)(struct LinkEnv *e, int ifindex, uint64_t *ret);
        struct nl_sock *stats; /* rtnetlink, opened at the first sample */
        bool stats_warned;
        /* What a packet socket probe gave at start (packet_wake_probe): a link that asks for dynamic
         * link power is told at once, at every start and reload, when it cannot have it. */
        int packet_wake_error;
} LinkEnv;

void link_env_done(LinkEnv *e);

/* A NIC discovery found for the first time: to be applied, its chip identified. */
void link_init(Link *l, const Nic *n, bool record_possible);
/*
 * A NIC a rescan found again (same slot, MAC and XID): what was known of old carries over,
 * what rtnetlink said of an interface follows its name (a renamed one is applied again).
 */
LinkWork link_merge(Link *l, Link *old, const Nic *found);
/* Frees what a link owns; a link merged into another owns nothing any more. */
void link_done(Link *l);
/* A reload: what other tools took over comes back to the configuration; link power may run again. */
void link_reload(Link *l);
/* A driver bound to (or unbound from) its PCI function, as udev tells: said; after a bind, marked to apply. */
void link_rebound(Link *l, sd_device *d);

/*
 * The NIC's plan as its applies make it, from what the knobs hold now (read_all: every knob, as
 * the metrics show them; else those the plan can have items for), without writing: for Verify
 * and the published metrics. What another tool took over (drift = leave) is not in it.
 */
void link_plan_now(Link *l, LinkEnv *e, bool read_all, KnobReading current[_KNOB_MAX], NicPlan *plan);
/* Read, plan, write and record as the only writer of this NIC (never waits for the lock). */
LinkWork link_apply(Link *l, LinkEnv *e);
/* Drift: what the backends that notified hold now, against what the last apply held. */
LinkWork link_check_drift(Link *l, LinkEnv *e, unsigned backends);
/* An ethtool notification of these backends with its features (NULL: not decoded): backends still to read. */
unsigned link_ethtool_notified(const Link *l, unsigned backends, const EthtoolFeatures *features);

/* rtnetlink: interface k is there (ifindex, flags), or is gone. */
LinkWork link_iface_changed(Link *l, LinkEnv *e, size_t k, int ifindex, bool up, bool carrier);
LinkWork link_iface_removed(Link *l, LinkEnv *e, size_t k, int ifindex);
/* An interface a dump did not list, or every one (notifications were lost and no dump could be had). */
void link_forget_absent(Link *l);

/* What the manager keeps for a link's dynamic link power. */
typedef enum LinkPowerWant {
        LINK_POWER_WANT_NOTHING, /* not in charge, stopped, no link: no socket, no sample */
        LINK_POWER_WANT_WAKE,    /* idle: a wake socket (and, after a wake, the window) */
        LINK_POWER_WANT_SAMPLE,  /* busy: the sampling timer, no socket */
} LinkPowerWant;

LinkPowerWant link_power_want(const Link *l);
/* No packet socket for the link's wake (r: why), said with what grants one, and link power stopped. */
void link_power_no_socket(Link *l, LinkEnv *e, int r);
/* Busy: one sample of dynamic link power (tx timeouts, L1 as we left it, the packet counters). */
LinkWork link_sample_power(Link *l, LinkEnv *e, uint64_t now_usec);
/* Idle: the window after a wake is over, with the packets the wake socket counted in it. */
LinkWork link_power_window_done(Link *l, LinkEnv *e, uint64_t now_usec, uint64_t packets);

/* Stopping: originals back, waiting up to wait_ms for another writer. */
void link_restore(Link *l, LinkEnv *e, unsigned wait_ms, ApplyStats *st);
/* The daemon stops: its link power record goes (nobody samples any more). */
void link_stopped(Link *l, LinkEnv *e);
/* Restore, then leave the NIC alone (no apply, no drift, no link power) until link_take_back(). */
void link_release(Link *l, LinkEnv *e, unsigned wait_ms, ApplyStats *st);
/* A released NIC is the daemon's again, in the state its last apply left (to be applied): whether it was released. */
bool link_take_back(Link *l);

/* Up with carrier: the ifindex to sample, 0 if none. */
int link_sample_ifindex(const Link *l);
