/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* profile = auto: the daemon follows the desktop's power profile (power-profiles-daemon) on the system bus. */
typedef struct Manager Manager;

/* Watches both of its bus names (its profile asked at once when the start's first apply needs it): 0 or -errno, said. */
int desktop_profile_watch(Manager *m);
void desktop_profile_done(Manager *m);
