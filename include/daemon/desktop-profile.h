/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * profile = auto: the desktop's power profile, from power-profiles-daemon on the system bus
 * (daemon/desktop-profile.c). Each change is handed to the owner, which decides what follows.
 */
#include <systemd/sd-bus.h>

#include "kernel/machine.h"

typedef struct DesktopProfile DesktopProfile;

/* One of power-profiles-daemon's bus names, as the watch follows it. */
typedef struct PpdName {
        DesktopProfile *d;
        size_t i;
        char *owner; /* its unique name while owned: the only sender its signals are taken from */
} PpdName;

/* p: the desktop's profile, or _PROFILE_INVALID when no power-profiles-daemon runs any more. */
typedef void (*desktop_profile_handler)(Profile p, void *userdata);

struct DesktopProfile {
        sd_bus *bus;
        Profile profile;   /* as last said; _PROFILE_INVALID: none known */
        PpdName names[2];  /* its new and old names */
        desktop_profile_handler changed;
        void *userdata;
};

/* Watches both of its names on bus; with wait, its profile is asked at once and waited for (a
 * short while), so that a first apply can take it. 0, or -errno, said (auto then follows the
 * power source). */
int desktop_profile_watch(DesktopProfile *d, sd_bus *bus, bool wait, desktop_profile_handler changed, void *userdata);
void desktop_profile_done(DesktopProfile *d);
