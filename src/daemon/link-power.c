/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dynamic link power's event sources (daemon/link-power.h): the sampling timer, and per idle
 * link its wake socket and the window after a wake. What they find goes back to the manager as
 * the link's work; the rule itself is decide/linkpower.c, a link's use of it daemon/link.c.
 */
#include <sys/epoll.h>
#include <unistd.h>

#include "base/log.h"
#include "base/messages.h"
#include "daemon/link-power.h"
#include "decide/nic-log.h"
#include "kernel/packet-wake.h"

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);
static int on_wake(sd_event_source *s, int fd, uint32_t revents, void *userdata);
static int on_window(sd_event_source *s, uint64_t usec, void *userdata);

/* A link's wake socket and window, closed (a rescan, a link that is no longer idle, the end). */
void link_power_sources_drop(Link *l) {
        l->power.window = sd_event_source_disable_unref(l->power.window);
        l->power.wake = sd_event_source_disable_unref(l->power.wake);
        l->power.wake_ifindex = 0;
}

/* Idle: a wake socket, listened to unless a window is open; otherwise none (no cost per packet while busy). */
LinkWork link_power_sources_sync(LinkPowerSources *s, Link *l) {
        int ifindex = link_sample_ifindex(l), fd, r;

        if (link_power_want(l) != LINK_POWER_WANT_WAKE || l->power.wake_ifindex != ifindex)
                link_power_sources_drop(l);
        if (link_power_want(l) != LINK_POWER_WANT_WAKE)
                return 0;
        if (l->power.wake) {
                if (!l->power.window || sd_event_source_get_enabled(l->power.window, NULL) == 0)
                        (void) sd_event_source_set_enabled(l->power.wake, SD_EVENT_ON);
                return 0;
        }
        fd = r = packet_wake_open(ifindex);
        if (r >= 0) {
                r = sd_event_add_io(s->event, &l->power.wake, fd, EPOLLIN, on_wake, s);
                if (r < 0)
                        close(fd);
        }
        if (r < 0) {
                link_power_no_socket(l, s->env, r);
                /* L1 goes back to what the plan without link power says. */
                l->dirty = true;
                return LINK_WORK_QUEUE;
        }
        (void) sd_event_source_set_io_fd_own(l->power.wake, true);
        (void) sd_event_source_set_description(l->power.wake, "link-power-wake");
        l->power.wake_ifindex = ifindex;
        return 0;
}

/* One timer for every NIC: armed while any of them is busy under dynamic link power, at the shortest period asked. */
void link_power_sources_arm(LinkPowerSources *s) {
        uint64_t now, period = 0;

        for (size_t i = 0; i < s->links->n; i++)
                if (link_power_want(&s->links->links[i]) == LINK_POWER_WANT_SAMPLE) {
                        uint64_t p = link_power_period(&s->links->links[i].power.lp);
                        period = period && period < p ? period : p;
                }
        if (period == 0) {
                s->period = 0;
                if (s->timer)
                        (void) sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
                return;
        }
        /* Running at the period asked, or a shorter one: left as it is. */
        if (s->timer && sd_event_source_get_enabled(s->timer, NULL) > 0 && s->period <= period)
                return;
        s->period = period;
        if (sd_event_now(s->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        /* A fifth of the period as accuracy lets the kernel batch this wakeup with others. */
        if (!s->timer)
                (void) sd_event_add_time(s->event, &s->timer, CLOCK_MONOTONIC, now + period, period / 5,
                                         on_timer, s);
        else {
                (void) sd_event_source_set_time(s->timer, now + period);
                (void) sd_event_source_set_time_accuracy(s->timer, period / 5);
                (void) sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
        }
}

static int on_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        LinkPowerSources *s = userdata;
        uint64_t now = now_monotonic_usec();

        for (size_t i = 0; i < s->links->n; i++)
                if (link_power_want(&s->links->links[i]) == LINK_POWER_WANT_SAMPLE)
                        s->handed(&s->links->links[i], link_sample_power(&s->links->links[i], s->env, now), s->userdata);
        /* One period from now (samples measure rates over the time between them), or off if none is busy any more. */
        link_power_sources_arm(s);
        return 0;
}

static Link *link_of_source(LinkPowerSources *s, sd_event_source *source) {
        for (size_t i = 0; i < s->links->n; i++)
                if (s->links->links[i].power.wake == source || s->links->links[i].power.window == source)
                        return &s->links->links[i];
        return NULL;
}

/* The window after a wake is over: what the socket counted decides. */
static void window_done(LinkPowerSources *s, Link *l) {
        uint64_t packets = 0;
        int r = packet_wake_take(sd_event_source_get_io_fd(l->power.wake), &packets);

        if (r < 0)
                log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, &l->nic, r, "cannot read the wake socket's count: %m");
        s->handed(l, link_power_window_done(l, s->env, now_monotonic_usec(), packets), s->userdata);
}

/* A frame on an idle link: count what follows for a window before anything is decided. */
static int on_wake(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        LinkPowerSources *s = userdata;
        Link *l = link_of_source(s, source);
        uint64_t now = now_monotonic_usec(), window;

        (void) sd_event_source_set_enabled(source, SD_EVENT_OFF);
        if (!l)
                return 0;
        l->power.window_start = now;
        window = link_power_window(&l->power.lp, now);
        if (!l->power.window) {
                if (sd_event_add_time(s->event, &l->power.window, CLOCK_MONOTONIC, now + window, 1000, on_window, s) < 0) {
                        /* No window: decided on what is there (the socket emptied, so no loop on a readable one). */
                        window_done(s, l);
                        return 0;
                }
                (void) sd_event_source_set_description(l->power.window, "link-power-window");
        } else {
                (void) sd_event_source_set_time(l->power.window, now + window);
                (void) sd_event_source_set_enabled(l->power.window, SD_EVENT_ONESHOT);
        }
        return 0;
}

static int on_window(sd_event_source *source, uint64_t usec, void *userdata) {
        LinkPowerSources *s = userdata;
        Link *l = link_of_source(s, source);

        if (l && l->power.wake)
                window_done(s, l);
        return 0;
}

void link_power_sources_done(LinkPowerSources *s) {
        for (size_t i = 0; s->links && i < s->links->n; i++)
                link_power_sources_drop(&s->links->links[i]);
        s->timer = sd_event_source_disable_unref(s->timer);
}
