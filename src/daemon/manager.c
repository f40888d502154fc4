/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>

#include "base/log.h"
#include "daemon/link-set.h"
#include "daemon/link-power.h"
#include "daemon/manager-internal.h"
#include "decide/nic-log.h"
#include "kernel/packet-wake.h"
#include "state/link-power-record.h"
#include "state/lock.h"
#include "state/undo.h"

void manager_schedule(Manager *m) {
        sd_event_source_set_enabled(m->work, SD_EVENT_ONESHOT);
}

void manager_enqueue(Manager *m, Link *l) {
        if (!l->queued) {
                l->queued = true;
                m->links.queue[m->n_queue++] = (size_t) (l - m->links.links);
        }
        manager_schedule(m);
}

/* Work for one NIC at the next idle moment: an apply. */
void manager_mark_dirty(Manager *m, Link *l) {
        l->dirty = true;
        manager_enqueue(m, l);
}

void manager_update_profile(Manager *m) {
        manager_metrics_changed(m); /* the power source, at least */
        if (context_update_profile(&m->c)) {
                Profile asked = context_configured_profile(&m->c);
                log_info("Profile %s (%s%s%s, power: %s).", profile_to_string(m->c.profile), profile_to_string(asked),
                         asked == PROFILE_AUTO ? ": desktop " : "",
                         asked != PROFILE_AUTO ? "" : m->c.desktop_profile >= 0 ? profile_to_string(m->c.desktop_profile) : "unknown",
                         power_source_to_string(m->c.machine.power));
                m->everything = true;
                manager_bus_changed(m, "ActiveProfile");
        }
}

static void manager_count(Manager *m, const Link *l, int sign) {
        m->n_tuned += (unsigned) sign * (l->failed == 0 && l->waiting == 0);
        m->n_waiting += (unsigned) sign * (l->waiting > 0);
        m->n_unsupported += (unsigned) sign * l->unsupported;
}

static void manager_retry_later(Manager *m);
static void manager_work_link(Manager *m, Link *l);

/*
 * What a link's operation asked for, done: its link power's wake socket or samples (the one
 * timer runs while any link is busy), the queue, a retry, an apply at once.
 */
void manager_do(Manager *m, Link *l, LinkWork w) {
        if (w & LINK_WORK_QUEUE)
                manager_enqueue(m, l);
        if (w & LINK_WORK_RETRY)
                manager_retry_later(m);
        /*
         * At once, in a burst too: this NIC's work does not wait behind the rest of the event
         * queue (udevd's copies of the same events, other interfaces). Before the loop runs
         * (the start-up dump), the first apply of everything does it.
         */
        if ((w & LINK_WORK_NOW) && m->running && !m->rescan)
                manager_work_link(m, l);
        /* After the apply: closing a wake socket waits for the kernel (synchronize_net), L1 does not. */
        if (link_power_sources_sync(&m->power, l) & LINK_WORK_QUEUE)
                manager_enqueue(m, l);
        link_power_sources_arm(&m->power);
        manager_metrics_changed(m);
}

/* Rediscovers the PCI bus; keeps what is known of NICs that stay, forgets the ones that left. */
static int manager_rescan(Manager *m) {
        /* At start-up the leftovers' sweep removed every record: none is looked for. */
        SlotClaims claims = config_claims(&m->c.config);
        _cleanup_free_ char (*before)[PCI_SLOT_LEN] = calloc(m->links.n + 1, PCI_SLOT_LEN);
        size_t n_before = m->links.n;
        int r;

        for (size_t i = 0; before && i < n_before; i++)
                memcpy(before[i], m->links.links[i].nic.slot, PCI_SLOT_LEN);
        /* A NIC that leaves takes no socket with it: every wake socket is closed, and opened again after. */
        for (size_t i = 0; i < m->links.n; i++)
                link_power_sources_drop(&m->links.links[i]);
        r = link_set_rescan(&m->links, m->c.root, &claims, m->opts->kernel_log, m->running || m->records_unsure);
        if (r < 0) {
                /* The links stay as they were: so do their wake sockets. */
                for (size_t i = 0; i < m->links.n; i++)
                        if (link_power_sources_sync(&m->power, &m->links.links[i]) & LINK_WORK_QUEUE)
                                manager_enqueue(m, &m->links.links[i]);
                return r;
        }
        if (before)
                manager_bus_nics_changed(m, (const char (*)[PCI_SLOT_LEN]) before, n_before);
        m->n_queue = 0;
        m->n_tuned = m->n_waiting = m->n_unsupported = 0;
        for (size_t i = 0; i < m->links.n; i++) {
                (void) link_power_sources_sync(&m->power, &m->links.links[i]);
                if (m->links.links[i].dirty || m->links.links[i].drift_check)
                        manager_enqueue(m, &m->links.links[i]);
                manager_count(m, &m->links.links[i], +1);
        }
        link_power_sources_arm(&m->power);
        return 0;
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

/* What one NIC's turn in the worker does: a drift check, an apply. */
static void manager_work_link(Manager *m, Link *l) {
        uint64_t sets = ethtool_nl_sets(m->c.backend.nl);
        LinkWork w = 0;

        if (l->drift_check) {
                unsigned backends = l->drift_check;
                l->drift_check = 0;
                w |= link_check_drift(l, &m->env, backends);
        }
        if (l->dirty || m->everything) {
                l->dirty = false;
                log_debug("%s: applying.", nic_ifname(&l->nic) ?: l->nic.slot);
                manager_count(m, l, -1);
                w |= link_apply(l, &m->env);
                manager_count(m, l, +1);
        }
        manager_do(m, l, w & ~LINK_WORK_NOW); /* it is at work now */
        if (ethtool_nl_sets(m->c.backend.nl) != sets) {
                m->echoes = true;
                manager_read_echoes(m);
        }
}

void manager_apply_now(Manager *m, Link *l) {
        manager_mark_dirty(m, l);
        if (m->running && !m->rescan)
                manager_work_link(m, l);
}

/* The worker's turn: a rescan if one is due, then every NIC (everything) or those queued. */
static void manager_work(Manager *m) {
        if (m->rescan) {
                m->rescan = false;
                (void) manager_rescan(m);
                /* A rescan of many NICs churns the heap: give it back, the daemon idles small. */
                malloc_trim(0);
        }
        if (m->everything)
                for (size_t i = 0; i < m->links.n; i++)
                        manager_work_link(m, &m->links.links[i]);
        else
                /* Only the NICs events named: the cost of a burst is its own, not the machine's. */
                for (size_t q = 0; q < m->n_queue; q++)
                        manager_work_link(m, &m->links.links[m->links.queue[q]]);
        /* What is still to do (an apply that could not run now says so with dirty) stays queued. */
        if (m->everything) {
                for (size_t q = 0; q < m->n_queue; q++)
                        m->links.links[m->links.queue[q]].queued = false;
                m->n_queue = 0;
                for (size_t i = 0; i < m->links.n; i++)
                        if (m->links.links[i].dirty || m->links.links[i].drift_check) {
                                m->links.links[i].queued = true;
                                m->links.queue[m->n_queue++] = i;
                        }
        } else {
                size_t kept = 0;
                for (size_t q = 0; q < m->n_queue; q++) {
                        Link *l = &m->links.links[m->links.queue[q]];
                        if (l->dirty || l->drift_check)
                                m->links.queue[kept++] = m->links.queue[q];
                        else
                                l->queued = false;
                }
                m->n_queue = kept;
        }
        m->everything = false;
        manager_notify_status(m, NULL);
}

/* A round of the worker: the echoes of its SETs are read when it is done, all of its NICs' at once. */
static void manager_work_round(Manager *m) {
        bool was = m->batching;

        m->batching = true;
        manager_work(m);
        m->batching = was;
        manager_read_echoes(m);
}

static int on_work(sd_event_source *s, void *userdata) {
        manager_work_round(userdata);
        return 0;
}

static int on_device(sd_device_monitor *monitor, sd_device *d, void *userdata) {
        Manager *m = userdata;
        const char *subsystem = NULL;
        SlotClaims claims;
        Link *l = NULL;

        (void) sd_device_get_subsystem(d, &subsystem);
        if (subsystem && streq(subsystem, "power_supply")) {
                /* The power source is a property; under balanced and auto it also picks the profile. A
                 * battery's uevents (its charge, every minute or so) change neither: nothing is said. */
                PowerSource before = m->c.machine.power;

                manager_update_profile(m);
                if (m->c.machine.power != before) {
                        manager_bus_changed(m, "PowerSource");
                        manager_schedule(m);
                }
                return 0;
        }
        /* Bursts coalesce: each event only marks work; the worker runs when the queue is drained. */
        claims = config_claims(&m->c.config);
        switch (link_set_udev_event(&m->links, &claims, d, &l)) {
        case LINK_SET_RESCAN:
                m->rescan = true;
                manager_schedule(m);
                break;
        case LINK_SET_APPLY:
                manager_mark_dirty(m, l);
                break;
        case LINK_SET_BOUND:
        case LINK_SET_UNBOUND:
                link_rebound(l, d);
                m->rescan = true;
                manager_schedule(m);
                break;
        case LINK_SET_NOTHING:
                break;
        }
        return 0;
}

/*
 * Resume, as logind says it. A match rule alone lets anyone unicast the same signal to us (the
 * bus applies match rules to broadcasts only, and sd-bus cannot compare a well-known sender on
 * dbus-daemon): only the current owner of org.freedesktop.login1 is believed.
 */
static int on_prepare_for_sleep(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;
        const char *sender = sd_bus_message_get_sender(msg);
        int sleeping = 0;

        if (!sender || !m->login1_owner || !streq(sender, m->login1_owner)) {
                log_debug("PrepareForSleep from %s, not from logind (%s): ignored.", sender ?: "nobody",
                          m->login1_owner ?: "not on the bus");
                return 0;
        }
        if (sd_bus_message_read(msg, "b", &sleeping) < 0 || sleeping)
                return 0;
        log_info("Resumed from suspend; re-applying.");
        manager_update_profile(m);
        m->everything = true;
        manager_schedule(m);
        return 0;
}

static void login1_owner_set(Manager *m, const char *owner) {
        free(m->login1_owner);
        m->login1_owner = owner && *owner ? strdup(owner) : NULL;
}

/* logind's name changes hands (a restart): NameOwnerChanged, from the bus itself only. */
static int on_login1_owner(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        const char *sender = sd_bus_message_get_sender(msg), *name, *old_owner, *new_owner;
        Manager *m = userdata;

        if (!sender || !streq(sender, "org.freedesktop.DBus") ||
            sd_bus_message_read(msg, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, "org.freedesktop.login1"))
                return 0;
        login1_owner_set(m, new_owner);
        return 0;
}

/* Who owns logind's name now (none yet is fine: NameOwnerChanged says when it comes). */
static int login1_watch(Manager *m) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        const char *owner = NULL;
        int r;

        r = sd_bus_add_match(m->bus, &m->login1_owner_slot,
                             "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                             "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.freedesktop.login1'",
                             on_login1_owner, m);
        if (r < 0)
                return r;
        if (sd_bus_get_name_creds(m->bus, "org.freedesktop.login1", SD_BUS_CREDS_UNIQUE_NAME, &creds) >= 0 &&
            sd_bus_creds_get_unique_name(creds, &owner) >= 0)
                login1_owner_set(m, owner);
        return 0;
}

void manager_reload(Manager *m) {
        notifier_send(&m->notify, "RELOADING=1\nSTATUS=Reloading configuration");
        context_load_policy(&m->c);
        log_set_max_level(m->opts->log_level >= 0 ? m->opts->log_level : m->c.config.log_level);
        (void) manager_metrics_configure(m);
        for (size_t i = 0; i < m->links.n; i++)
                link_reload(&m->links.links[i]);
        if (m->c.problems.n > 0)
                log_warning("Configuration reloaded, without the files that have problems.");
        else
                log_info("Configuration reloaded.");
        m->c.profile = _PROFILE_INVALID; /* said again, with the power source, by manager_update_profile() */
        manager_update_profile(m);
        m->everything = true;
        m->rescan = true;
        manager_work_round(m);
        manager_notify_status(m, "READY=1\n");
        manager_bus_changed(m, "ConfigProblems");
        manager_bus_changed(m, "Profile");
        manager_bus_changed(m, "ProfileSource");
        manager_bus_changed(m, "Nics");
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        manager_reload(userdata);
        return 0;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        /* A count still waiting for its gap would follow "Stopping": it is not sent. */
        if (m->status_soon)
                (void) sd_event_source_set_enabled(m->status_soon, SD_EVENT_OFF);
        notifier_send(&m->notify, "STOPPING=1\nSTATUS=Stopping");
        if (m->c.config.restore_on_exit) {
                ApplyStats st = {};
                uint64_t start = now_monotonic_usec();

                for (size_t i = 0; i < m->links.n; i++) {
                        /* Stopping may wait a little for another writer: 10 s for all NICs together, well
                         * inside systemd's stop timeout, since originals must go back. */
                        uint64_t spent_ms = (now_monotonic_usec() - start) / 1000;
                        link_restore(&m->links.links[i], &m->env, spent_ms < 10 * 1000 ? (unsigned) (10 * 1000 - spent_ms) : 0, &st);
                }
                log_info("Stopped: %u value%s restored, %u left alone, %u failed.", st.restored,
                         st.restored == 1 ? "" : "s", st.left_alone, st.failed);
        } else
                log_info("Stopped; tuned values stay (restore-on-exit = no).");
        for (size_t i = 0; i < m->links.n; i++)
                link_stopped(&m->links.links[i], &m->env);
        manager_metrics_stopped(m);
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

static void manager_free(Manager *m) {
        manager_metrics_done(m);
        link_power_sources_done(&m->power);
        link_env_done(&m->env);
        sd_event_source_unref(m->retry);
        sd_event_source_unref(m->status_soon);
        notifier_done(&m->notify);
        sd_event_source_unref(m->trim);
        closep(&m->service_lock);
        sd_event_source_unref(m->work);
        sd_event_source_unref(m->rtnl_source);
        sd_device_monitor_unref(m->monitor);
        sd_bus_slot_unref(m->sleep_slot);
        sd_bus_slot_unref(m->login1_owner_slot);
        free(m->login1_owner);
        sd_bus_flush_close_unref(m->bus);
        manager_bus_done(m);
        desktop_profile_done(&m->desktop);
        netlink_monitor_free(m->rtnl);
        netlink_monitor_free(m->ethmon);
        context_done(&m->c);
        link_set_done(&m->links);
        sd_event_unref(m->event);
}

/* The desktop's power profile changed (profile = auto follows it): after the start, in force at once. */
static void on_desktop_profile(Profile p, void *userdata) {
        Manager *m = userdata;

        m->c.desktop_profile = p;
        manager_bus_changed(m, "DesktopProfile");
        if (!m->running || context_configured_profile(&m->c) != PROFILE_AUTO)
                return; /* before the start, its first apply takes it */
        manager_update_profile(m);
        manager_schedule(m);
}

static int manager_watch(Manager *m) {
        int r;

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

        r = manager_netlink_watch(m);
        if (r < 0)
                return r;

        /* Resume from suspend, through logind. No system bus (containers, tests) is not an error. */
        r = sd_bus_open_system(&m->bus);
        if (r >= 0)
                r = sd_bus_match_signal(m->bus, &m->sleep_slot, "org.freedesktop.login1", "/org/freedesktop/login1",
                                        "org.freedesktop.login1.Manager", "PrepareForSleep", on_prepare_for_sleep, m);
        if (r >= 0)
                r = login1_watch(m);
        if (r >= 0)
                r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0) {
                log_info_errno(r, "No system bus (%m): resume from suspend is noticed on link up only, no D-Bus API.");
                m->sleep_slot = sd_bus_slot_unref(m->sleep_slot);
                m->login1_owner_slot = sd_bus_slot_unref(m->login1_owner_slot);
                m->bus = sd_bus_flush_close_unref(m->bus);
        } else {
                (void) manager_bus_start(m);
                (void) desktop_profile_watch(&m->desktop, m->bus,
                                             !m->running && context_configured_profile(&m->c) == PROFILE_AUTO,
                                             on_desktop_profile, m);
        }
        return 0;
}

bool manager_state_leftover(const char *suffix) {
        return undo_is_leftover(suffix) || link_power_record_is_leftover(suffix);
}

/* Before any event: the service lock, the policy, the backends. */
static int manager_prepare(Manager *m) {
        const Options *o = m->opts;
        int r;

        r = context_check_privileges(o, "The daemon");
        if (r < 0)
                return r;
        /* One daemon per state directory; the commands see it and leave the NICs to it. */
        m->service_lock = r = lock_service(o->state_dir);
        if (r < 0)
                return log_error_errno(r, r == -EBUSY ? "Another r8169-tuned daemon runs with the state directory %s; not starting."
                                                      : "Cannot take the service lock in %s: %m", o->state_dir);
        /* A record the sweep had to leave (its slot was busy) is looked for at that NIC's first apply. */
        m->records_unsure = lock_remove_leftovers(o->state_dir, manager_state_leftover) > 0;
        r = sysroot_new(o->sysfs, &m->c.root);
        if (r < 0)
                return log_error_errno(r, "Cannot open sysfs root %s: %m", o->sysfs);
        context_load_policy(&m->c);
        log_set_max_level(o->log_level >= 0 ? o->log_level : m->c.config.log_level);
        backend_init(&m->c.backend, m->c.root);
        return 0;
}

/* What dynamic link power's sources find: the link's work, as any other event's. */
static void on_link_power_work(Link *l, LinkWork w, void *userdata) {
        manager_do(userdata, l, w);
}

/* The loop, its signals and the worker: a deferred source at idle priority, so bursts coalesce. */
static int manager_loop_new(Manager *m) {
        int r = sd_event_default(&m->event);

        m->power = (LinkPowerSources) { .event = m->event, .links = &m->links, .env = &m->env,
                                        .handed = on_link_power_work, .userdata = m };
        if (r >= 0) {
                (void) sd_event_set_watchdog(m->event, true);
                r = sd_event_add_signal(m->event, NULL, SIGTERM, on_sigterm, m);
        }
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGINT, on_sigterm, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m);
        if (r >= 0)
                r = sd_event_add_defer(m->event, &m->work, on_work, m);
        if (r >= 0)
                r = sd_event_source_set_priority(m->work, SD_EVENT_PRIORITY_IDLE);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->work, SD_EVENT_OFF);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the event loop: %m");
        return 0;
}

/* The first scan, what rtnetlink says of each interface, the first apply of every NIC. */
static int manager_start(Manager *m) {
        int r;

        manager_update_profile(m);
        r = manager_rescan(m);
        if (r < 0)
                return r;
        /* Which interfaces of the NICs exist and are up: what later notifications are compared with. */
        if (manager_links_dump(m) < 0)
                log_warning("Cannot list the links; an interface is re-applied at its first notification.");
        else
                /* What the dump did not list is not there: its first apply asks ethtool nothing. */
                for (size_t i = 0; i < m->links.n; i++)
                        for (size_t k = 0; k < m->links.links[i].nic.n_ifnames; k++)
                                m->links.links[i].ifaces[k].absent = m->links.links[i].ifaces[k].ifindex == 0;
        m->everything = true;
        manager_work_round(m);
        (void) manager_metrics_configure(m);
        /* Discovery and the first apply of every NIC churned the heap: the daemon idles small. */
        malloc_trim(0);
        manager_notify_status(m, "READY=1\n");
        log_info("Started: %zu Realtek NIC%s, profile %s.", m->links.n, m->links.n == 1 ? "" : "s",
                 profile_to_string(m->c.profile));
        return 0;
}

int manager_run(const Options *o) {
        Manager m = { .opts = o, .c = { .opts = o, .profile = _PROFILE_INVALID, .runtime_profile = _PROFILE_INVALID,
                                                    .desktop_profile = _PROFILE_INVALID }, .service_lock = -1 };
        sigset_t mask;
        int r;

        m.env = (LinkEnv) { .c = &m.c, .opts = o, .packet_wake_error = packet_wake_probe() };
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        notifier_init(&m.notify);

        r = manager_prepare(&m);
        if (r >= 0)
                r = manager_loop_new(&m);
        /* Subscribe before the first scan, so nothing that appears meanwhile is missed. */
        if (r >= 0)
                r = manager_watch(&m);
        if (r >= 0)
                r = manager_start(&m);
        if (r >= 0) {
                m.running = true;
                r = sd_event_loop(m.event);
        }
        manager_free(&m);
        return r < 0 ? 1 : 0;
}
