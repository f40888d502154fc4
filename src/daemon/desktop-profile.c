/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <systemd/sd-bus.h>

#include "base/log.h"
#include "daemon/desktop-profile.h"

/*
 * profile = auto: the desktop's power profile, from power-profiles-daemon under either of its
 * bus names (org.freedesktop.UPower.PowerProfiles since 0.20, net.hadess.PowerProfiles before
 * and still beside it): its ActiveProfile at start, every switch at once (PropertiesChanged),
 * and by power source again while no such daemon runs (NameOwnerChanged). Watched whatever
 * the profile is, so that a reload to auto needs nothing more.
 */
static const struct {
        const char *name, *path;
} ppd[] = {
        { "org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles" },
        { "net.hadess.PowerProfiles", "/net/hadess/PowerProfiles" },
};

static Profile profile_from_ppd(const char *s) {
        return streq(s, "power-saver") ? PROFILE_POWERSAVE : streq(s, "performance") ? PROFILE_PERFORMANCE
               : streq(s, "balanced")  ? PROFILE_BALANCED : _PROFILE_INVALID;
}

static void desktop_profile_set(DesktopProfile *d, Profile p, const char *said, const char *by) {
        if (p == d->profile)
                return;
        d->profile = p;
        if (p >= 0)
                log_info("Desktop power profile %s (%s).", said, by);
        else
                log_info("No power-profiles-daemon on the bus any more: profile auto follows the power source.");
        d->changed(p, d->userdata);
}

static int ppd_read_profile(PpdName *n, sd_bus_message *msg) {
        const char *s;
        int r;

        r = sd_bus_message_read(msg, "v", "s", &s);
        if (r < 0)
                return r;
        if (profile_from_ppd(s) < 0)
                log_debug("%s: unknown profile \"%s\", ignored.", ppd[n->i].name, s);
        else
                desktop_profile_set(n->d, profile_from_ppd(s), s, ppd[n->i].name);
        return 0;
}

/* The answer comes from the name's owner: from now on only its signals count. */
static int on_ppd_get(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        PpdName *n = userdata;
        const char *sender = sd_bus_message_get_sender(reply);

        if (sd_bus_message_is_method_error(reply, NULL) || !sender)
                return 0; /* that name has no owner: the other may */
        if (!n->owner || !streq(n->owner, sender)) {
                free(n->owner);
                n->owner = strdup(sender);
        }
        return ppd_read_profile(n, reply);
}

/* Asked without starting it: it has D-Bus activation files, and an admin may have stopped it.
 * At start with profile = auto the answer is waited for (a short while), so that the first apply
 * is already the desktop's profile: no performance-then-powersave flap at every boot. */
#define PPD_START_TIMEOUT_USEC (1000 * 1000)

static void ppd_ask(PpdName *n, bool wait) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL, *reply = NULL;
        int r;

        r = sd_bus_message_new_method_call(n->d->bus, &msg, ppd[n->i].name, ppd[n->i].path, "org.freedesktop.DBus.Properties", "Get");
        if (r >= 0)
                r = sd_bus_message_set_auto_start(msg, false);
        if (r >= 0)
                r = sd_bus_message_append(msg, "ss", ppd[n->i].name, "ActiveProfile");
        if (r >= 0 && !wait)
                r = sd_bus_call_async(n->d->bus, NULL, msg, on_ppd_get, n, 0);
        else if (r >= 0) {
                r = sd_bus_call(n->d->bus, msg, PPD_START_TIMEOUT_USEC, NULL, &reply);
                if (r >= 0)
                        (void) on_ppd_get(reply, n, NULL);
        }
        if (r < 0)
                log_debug_errno(r, "Cannot ask %s: %m", ppd[n->i].name);
}

static int on_ppd_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        PpdName *n = userdata;
        const char *iface, *key, *sender = sd_bus_message_get_sender(msg);
        int r;

        /* Anyone may send a signal: only the owner's count. */
        if (!n->owner || !sender || !streq(sender, n->owner))
                return 0;
        r = sd_bus_message_read(msg, "s", &iface);
        if (r >= 0)
                r = sd_bus_message_enter_container(msg, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
                r = sd_bus_message_read(msg, "s", &key);
                if (r >= 0 && streq(key, "ActiveProfile"))
                        r = ppd_read_profile(n, msg);
                else if (r >= 0)
                        r = sd_bus_message_skip(msg, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(msg);
        }
        return 0;
}

static int on_ppd_owner(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        PpdName *n = userdata;
        DesktopProfile *d = n->d;
        const char *name, *old_owner, *new_owner, *sender = sd_bus_message_get_sender(msg);

        if (!sender || !streq(sender, "org.freedesktop.DBus") ||
            sd_bus_message_read(msg, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, ppd[n->i].name))
                return 0;
        free(n->owner);
        n->owner = NULL;
        if (new_owner && *new_owner) {
                n->owner = strdup(new_owner);
                ppd_ask(n, false);
                return 0;
        }
        /* Gone: by power source, unless the other name is still owned (then it says). */
        desktop_profile_set(d, _PROFILE_INVALID, NULL, name);
        for (size_t j = 0; j < ELEMENTSOF(ppd); j++)
                if (j != n->i)
                        ppd_ask(&d->names[j], false);
        return 0;
}

int desktop_profile_watch(DesktopProfile *d, sd_bus *bus, bool wait, desktop_profile_handler changed, void *userdata) {
        int r = 0;

        *d = (DesktopProfile) { .bus = bus, .profile = _PROFILE_INVALID, .changed = changed, .userdata = userdata };
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(ppd); i++) {
                PpdName *n = &d->names[i];
                char match[256];

                *n = (PpdName) { .d = d, .i = i };
                r = sd_bus_match_signal(bus, NULL, ppd[i].name, ppd[i].path, "org.freedesktop.DBus.Properties",
                                        "PropertiesChanged", on_ppd_changed, n);
                snprintf(match, sizeof(match),
                         "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                         "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='%s'", ppd[i].name);
                if (r >= 0)
                        r = sd_bus_add_match(bus, NULL, match, on_ppd_owner, n);
                if (r >= 0)
                        ppd_ask(n, wait && d->profile < 0);
        }
        if (r < 0)
                log_warning_errno(r, "Cannot follow power-profiles-daemon (%m): profile auto follows the power source.");
        return r;
}

void desktop_profile_done(DesktopProfile *d) {
        for (size_t i = 0; i < ELEMENTSOF(d->names); i++) {
                free(d->names[i].owner);
                d->names[i].owner = NULL;
        }
}
