/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* The daemon's state, shared by manager.c (events, the worker) and manager-bus.c (its D-Bus API).
 * Its other parts (link-power.c, desktop-profile.c) do not see it: they hand their events back. */

#include <systemd/sd-bus.h>
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>

#include "daemon/desktop-profile.h"
#include "daemon/link-power.h"
#include "daemon/link-set.h"
#include "daemon/manager.h"
#include "daemon/notify.h"
#include "kernel/rtnl.h"

/* linux/if.h's, which cannot be included beside glibc's net/if.h: the link has carrier. */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

/* A NIC let go of with Release: taken back when the caller leaves the bus (manager-bus.c). */
typedef struct Holder {
        char slot[PCI_SLOT_LEN];
        sd_bus_track *track;
} Holder;

/* A caller's Verify calls in the second that began at window_usec (0: the slot is free). */
#define VERIFY_CALLERS 32
typedef struct VerifyBudget {
        uid_t uid;
        uint64_t window_usec;
        unsigned calls;
} VerifyBudget;

/* metrics-textfile: what the service publishes for node_exporter (manager-metrics.c). */
typedef struct ManagerMetrics {
        char *path;               /* the file in force; NULL: none */
        sd_event_source *soon;    /* a change: published at the next idle moment, METRICS_MIN_GAP after the last */
        sd_event_source *heartbeat;
        uint64_t last_usec;       /* CLOCK_MONOTONIC of the last write */
        uint64_t gap_usec;        /* the least time between two writes for changes (read once, at configure) */
        bool failing;             /* the last write failed: said once */
} ManagerMetrics;

typedef struct Manager {
        const Options *opts;
        Context c;              /* root, backends and policy; c.nics is not used */
        LinkEnv env;            /* what every link shares: c, the options, the packet counters */
        sd_event *event;

        LinkSet links;          /* links.queue[0..n_queue): the links with work (dirty or drift_check), each once */
        size_t n_queue;
        unsigned n_tuned, n_waiting, n_unsupported; /* of the last applies, for STATUS= */
        Notifier notify;        /* $NOTIFY_SOCKET: READY=1, STATUS= and the rest */
        char status[256];       /* the last STATUS= made: sent, or (status_soon armed) to be sent */
        sd_event_source *status_soon; /* STATUS= within STATUS_MIN_GAP of the last: sent at the gap's end */
        uint64_t status_usec;   /* CLOCK_MONOTONIC of the last STATUS= sent */
        unsigned dump;          /* generation of the last link dump */

        sd_device_monitor *monitor;
        NetlinkMonitor *rtnl;
        sd_event_source *rtnl_source;
        NetlinkMonitor *ethmon;
        sd_bus *bus;
        sd_bus_slot *sleep_slot;
        sd_bus_slot *login1_owner_slot;
        char *login1_owner;     /* logind's unique name (NameOwnerChanged): only its PrepareForSleep counts */
        bool bus_api;           /* the D-Bus API is on the bus (manager-bus.c) */
        DesktopProfile desktop; /* power-profiles-daemon, followed for profile = auto */
        Holder *holders;        /* NICs let go of while their caller (an experiment) is on the bus */
        size_t n_holders;
        VerifyBudget verify[VERIFY_CALLERS]; /* Verify by callers other than root: a second's calls per uid */
        sd_event_source *work;  /* the deferred, coalescing worker */
        sd_event_source *retry; /* a NIC's lock was busy: try again shortly */
        sd_event_source *trim;  /* after a large message: malloc_trim (manager-bus.c) */
        int service_lock;       /* <state_dir>/daemon.lock, held while the daemon runs */
        bool rescan;            /* rediscover PCI devices before working */
        bool everything;        /* re-apply every NIC */
        LinkPowerSources power; /* dynamic link power's timer and wake sockets */
        bool running;           /* the event loop runs: events are acted on at once */
        bool echoes;            /* our ethtool SETs made notifications for our own monitors: read them */
        bool batching;          /* inside a receive or the worker's round, which reads them after */
        bool records_unsure;    /* the start-up sweep left link power records behind */
        ManagerMetrics metrics;
} Manager;

/* What a link operation asked for (LinkWork), done; then its link power's socket or sampling timer as it now wants. */
void manager_do(Manager *m, Link *l, LinkWork w);
/* Work for every NIC, or one, at the next idle moment. */
void manager_schedule(Manager *m);
void manager_mark_dirty(Manager *m, Link *l);
void manager_enqueue(Manager *m, Link *l);

/* manager-netlink.c: the rtnetlink and ethtool monitors, attached to the loop. */
int manager_netlink_watch(Manager *m);
/* Every link of the namespace, as if each had just been told (start-up). */
int manager_links_dump(Manager *m);
/* Reads the notifications our own ethtool SETs made (echoes), unless a receive or the worker's round will. */
void manager_read_echoes(Manager *m);
/* An apply of this NIC now, before the caller goes on (Apply over D-Bus answers after it); queued while a rescan is due. */
void manager_apply_now(Manager *m, Link *l);
/* Resolves the profile again (power source, runtime choice); says so and marks everything when it changed. */
void manager_update_profile(Manager *m);
/* Reads the configuration again, leaving out files with problems, and re-applies. */
void manager_reload(Manager *m);

/* metrics-textfile, as the configuration now says (at start and reload): the old file goes, the timers follow. */
int manager_metrics_configure(Manager *m);
/* Something the metrics show changed: published shortly. */
void manager_metrics_changed(Manager *m);
/* The service stops: its last words (r8169_tuned_running 0), after the restore. */
void manager_metrics_stopped(Manager *m);
void manager_metrics_done(Manager *m);
/*
 * STATUS=, when it says something new: at once with extra (READY=1), else at most one each
 * STATUS_MIN_GAP_USEC, the latest text (manager-metrics.c).
 */
void manager_notify_status(Manager *m, const char *extra);

/* The D-Bus API (io.github.r8169_tuned1) on m->bus; without a bus, none. */
int manager_bus_start(Manager *m);
void manager_bus_done(Manager *m);
/* After a rescan: NIC objects added and removed (ObjectManager), the Nics property, each NIC's properties. */
void manager_bus_nics_changed(Manager *m, const char (*before)[13], size_t n_before);
/* Tells bus clients what changed: the manager's properties, the NIC list. */
void manager_bus_changed(Manager *m, const char *property);

/*
 * The NICs an "as" argument of Apply, Restore or Release names, into selected[] (one per link;
 * none named: every one), or a D-Bus error: a name longer than a slot or an interface name,
 * more than 64 names, a NIC not known. Read in place: nothing is copied.
 */
int manager_bus_select_links(Manager *m, sd_bus_message *msg, bool *selected, sd_bus_error *error);
