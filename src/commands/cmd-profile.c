/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <sys/stat.h>
#include <systemd/sd-bus.h>

#include "base/log.h"
#include "client/bus-api.h"
#include "client/service.h"
#include "commands/commands.h"
#include "show/report.h"

/* profile: what is in force (and why), or a switch at run time (--persist: also in a drop-in). */

/* The profile in force, where it comes from and the power source: a line, or {"schema", "profile",
 * "configured", "source", "desktop", "power_source", "service"}. desktop: NULL when unknown. */
static void profile_print(bool json, const char *active, const char *source, const char *configured,
                          const char *desktop, const char *power, bool service) {
        Out o;

        out_document_begin(&o, stdout, json);
        out_str(&o, "profile", "%s (", active);
        out_json_str(&o, "configured", configured);
        out_str(&o, "source", "%s: ", source);
        out_text(&o, "%s, ", configured);
        out_json_str(&o, "desktop", desktop);
        out_str(&o, "power_source", "power: %s", power);
        out_json_bool(&o, "service", service);
        out_text(&o, "%s)%s\n", service ? "" : "; the service is not running",
                 service && streq(source, "runtime") ? "; \"r8169-tuned profile --reset\" goes back to the configured one" : "");
        out_document_end(&o);
}

static int profile_show_bus(sd_bus *bus, bool json) {
        static const char *const props[] = { "Profile", "ProfileSource", "ActiveProfile", "PowerSource", "DesktopProfile" };
        char *v[ELEMENTSOF(props)] = {};
        int r = 0;

        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(props); i++)
                r = sd_bus_get_property_string(bus, BUS_NAME, BUS_PATH, BUS_MANAGER, props[i], NULL, &v[i]);
        if (r >= 0)
                profile_print(json, v[2], v[1], v[0], v[4][0] ? v[4] : NULL, v[3], true);
        for (size_t i = 0; i < ELEMENTSOF(props); i++)
                free(v[i]);
        return r < 0 ? log_error_errno(r, "Cannot read the service's profile: %m"), 1 : 0;
}

/* Without the service: the profile as this command works it out from the configuration. */
static int profile_show_here(const Options *o) {
        Options every = *o; /* the context keeps a pointer to it: as long as c lives */
        _cleanup_free_ bool *selected = NULL;
        Context c;
        int r;

        every.args = NULL;
        every.n_args = 0;
        r = context_open_selected(&c, &every, true, &selected);
        if (r >= 0)
                profile_print(o->json, profile_to_string(c.profile), o->profile ? "command-line" : "configuration",
                              profile_to_string(context_configured_profile(&c)), NULL,
                              power_source_to_string(c.machine.power), false);
        context_done(&c);
        return r < 0;
}

#define PROFILE_DROPIN "90-profile.conf"

static void profile_dropin(FILE *f, const void *userdata) {
        const char *name = userdata;
        fprintf(f, "# Written by \"r8169-tuned profile %s --persist\"; later drop-ins still win.\n[global]\nprofile = %s\n",
                name, name);
}

/* The drop-in --persist writes and --reset --persist removes: CONFIG.d/90-profile.conf, and its directory. */
static int profile_dropin_path(const Options *o, char **ret_dir, char **ret_path) {
        const char *conf = o->config ?: CONFIG_DEFAULT_PATH;

        if (asprintf(ret_dir, "%s.d", conf) < 0)
                return log_oom();
        if (asprintf(ret_path, "%s/" PROFILE_DROPIN, *ret_dir) < 0) {
                free(*ret_dir);
                *ret_dir = NULL;
                return log_oom();
        }
        return 0;
}

static const char *dropin_dir_refusal(int r) {
        switch (r) {
        case -ELOOP:
                return "it is a symbolic link, which is never followed";
        case -ENOTDIR:
                return "it is not a directory";
        case -EPERM:
                return "it or the directory it is in belongs to another user, or another user can write it";
        default:
                return strerror(-r);
        }
}

static int profile_persist(const Options *o, const char *name) {
        _cleanup_free_ char *dir = NULL, *path = NULL;
        int r;

        if (profile_dropin_path(o, &dir, &path) < 0)
                return -ENOMEM;
        r = directory_check_own(dir);
        if (r < 0)
                return log_error_errno(r, "%sannot write into %s: %s.", geteuid() != 0 ? "profile --persist needs root: c" : "C",
                                       dir, dropin_dir_refusal(r));
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return errno == EACCES && geteuid() != 0
                               ? log_error_errno(errno, "profile --persist needs root: it writes into %s, which only root may.", dir)
                               : log_error_errno(errno, "Cannot make %s: %m", dir);
        r = write_file_atomic(path, 0644, profile_dropin, name);
        if (r == -EACCES && geteuid() != 0)
                return log_error_errno(r, "profile --persist needs root: it writes %s, which only root may.", path);
        if (r < 0)
                return log_error_errno(r, "Cannot write %s: %s.", path, write_file_refusal(r));
        log_info("Written to %s.", path);
        return 0;
}

/* --reset --persist: the drop-in --persist wrote goes; a profile set elsewhere stays in force. */
static int profile_unpersist(const Options *o) {
        _cleanup_free_ char *dir = NULL, *path = NULL;
        int r;

        if (profile_dropin_path(o, &dir, &path) < 0)
                return -ENOMEM;
        r = directory_check_own(dir);
        if (r < 0)
                return log_error_errno(r, "Cannot remove anything from %s: %s.", dir, dropin_dir_refusal(r));
        if (unlink(path) >= 0)
                log_info("Removed %s.", path);
        else if (errno == ENOENT)
                log_info("No %s: \"r8169-tuned profile NAME --persist\" had not written one.", path);
        else
                return log_error_errno(errno, "Cannot remove %s: %m", path);
        return 0;
}

/* profile --reset: the run-time choice goes and the configured profile is in force again (with
 * --persist, the service first reads the files without the drop-in). */
static int profile_reset(const Options *o, sd_bus *bus) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        bool reloaded;
        int r;

        if (o->persist && profile_unpersist(o) < 0)
                return 1;
        if (!bus) {
                if (!o->persist)
                        log_info("No run-time profile to drop here: r8169-tuned.service is not running, or an option "
                                 "names another configuration, sysfs or profile than the service's.");
                return o->json ? profile_show_here(o) : 0;
        }
        /* A problem in some file is said by the reload and makes the exit 1, but the run-time choice still goes. */
        reloaded = !o->persist || service_reload(bus, o) == 0;
        r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, BUS_MANAGER, "SetProfile", &error, NULL, "s", "");
        if (r < 0) {
                service_call_failed("profile --reset", "SetProfile", &error, r);
                sd_bus_error_free(&error);
                return 1;
        }
        return profile_show_bus(bus, o->json) != 0 || !reloaded;
}

int cmd_profile(const Options *o) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *name = o->n_args > 0 ? o->args[0] : NULL;
        bool service = service_bus_open(o, &bus) >= 0;
        int r;

        if (o->n_args > 1)
                return log_error("profile takes one profile name. See r8169-tuned --help."), 2;
        if (o->reset)
                return profile_reset(o, service ? bus : NULL);
        if (name && profile_from_string(name) < 0)
                return log_error("Unknown profile \"%s\": expected performance, balanced, powersave or auto.", name), 2;
        if (!name)
                return service ? profile_show_bus(bus, o->json) : profile_show_here(o);
        if (o->persist && profile_persist(o, name) < 0)
                return 1;
        if (!service) {
                if (o->persist && !o->json)
                        log_info("Without the service, \"r8169-tuned apply\" puts it in force (and gives back what "
                                 "only the profile before asked for).");
                if (o->persist)
                        return o->json ? profile_show_here(o) : 0;
                log_error("r8169-tuned.service is not running: there is no run-time profile to switch. "
                          "\"r8169-tuned profile %s --persist\" writes it to the configuration.", name);
                return 1;
        }
        r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, BUS_MANAGER, "SetProfile", &error, NULL, "s", name);
        if (r < 0) {
                service_call_failed("profile NAME", "SetProfile", &error, r);
                sd_bus_error_free(&error);
                return 1;
        }
        /* The result, on stdout as apply's and restore's are (ux-findings L2). */
        if (!o->json)
                printf("Profile %s%s.\n", name, o->persist ? "" : " until the service stops (--persist keeps it)");
        return o->json ? profile_show_bus(bus, true) : 0;
}
