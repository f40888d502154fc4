/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Dynamic link power's event sources for the daemon's links, as link_power_want() asks for each:
 * one sampling timer while any link is busy (at the shortest period one asks), and for each idle
 * link a wake socket and, after a frame, a window that counts what follows. What a source finds
 * (a sample, a window's count) is handed to the owner as the link's work; the owner hands each
 * link back after its work (link_power_sources_sync, then _arm).
 */
#include <systemd/sd-event.h>

#include "daemon/link-set.h"
#include "daemon/link.h"

typedef void (*link_work_handler)(Link *l, LinkWork w, void *userdata);

typedef struct LinkPowerSources {
        sd_event *event;
        LinkSet *links;
        LinkEnv *env;
        link_work_handler handed;
        void *userdata;
        sd_event_source *timer; /* one wakeup per sample period while any link is busy */
        uint64_t period;        /* the timer's period: the shortest a busy link asks; 0: none is busy */
} LinkPowerSources;

/* After a link's work: its wake socket opened or closed as it now wants. LINK_WORK_QUEUE (the
 * link marked dirty) when it wants one and none can be had: link power stops, and L1 goes back
 * to what the plan without it says. */
LinkWork link_power_sources_sync(LinkPowerSources *s, Link *l);
/* After the links' work: the timer armed at the shortest period a busy link asks, or stopped. */
void link_power_sources_arm(LinkPowerSources *s);
/* A link's wake socket and window, closed (a rescan, a link that is no longer idle, the end). */
void link_power_sources_drop(Link *l);
void link_power_sources_done(LinkPowerSources *s);
