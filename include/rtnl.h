/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "util.h"

/*
 * Link changes from rtnetlink (RTNLGRP_LINK), through libnl's core: r8169
 * rewrites its coalescing register on every up, reset and resume without a
 * notification of its own, so an interface coming up is the cue to re-apply.
 */
typedef struct RtnlMonitor RtnlMonitor;
typedef void (*rtnl_link_handler)(const char *ifname, int ifindex, unsigned flags, bool removed, void *userdata);

int rtnl_monitor_new(RtnlMonitor **ret);
RtnlMonitor *rtnl_monitor_free(RtnlMonitor *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(RtnlMonitor *, rtnl_monitor_free);
int rtnl_monitor_fd(RtnlMonitor *m);
/* Reads what is queued without blocking; -ENOBUFS when the kernel dropped messages. */
int rtnl_monitor_receive(RtnlMonitor *m, rtnl_link_handler h, void *userdata);
