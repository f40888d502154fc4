/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The commands that go through the running service's D-Bus API (as tuned-adm and networkctl
 * do): apply, restore, reload, verify and profile. Without the service they act directly.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>

#include "bus-api.h"
#include "commands.h"
#include "log.h"
#include "report.h"
#include "undo.h"


int service_bus_open(const Options *o, sd_bus **ret) {
        /* Options that point at another machine or policy than the service's: act directly. */
        if (o->config || o->quirks || o->profile || o->kernel_release || o->kernel_log || !streq(o->sysfs, "/sys"))
                return -ESRCH;
        return service_bus_connect(o->state_dir, ret);
}

int service_bus_connect(const char *state_dir, sd_bus **ret) {
        sd_bus *bus = NULL;
        int r;

        /* Not there by its lock: no service. A lock that cannot be read (a user other than root: it is
         * 0600 in a 0700 directory) says nothing: the service's bus name does (ux-findings H1). */
        if (undo_service_running(state_dir) == 0)
                return -ESRCH;
        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_get_name_creds(bus, BUS_NAME, 0, NULL);
        if (r < 0) {
                sd_bus_flush_close_unref(bus);
                return -ESRCH; /* the service runs without its API (no system bus): act directly */
        }
        *ret = bus;
        return 0;
}

bool service_follow_profile(Context *c, sd_bus *bus) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *own = NULL;
        _cleanup_free_ char *profile = NULL, *source = NULL, *desktop = NULL;

        if (c->opts->profile)
                return false;
        if (!bus && service_bus_open(c->opts, &own) < 0)
                return false;
        bus = bus ?: own;
        if (sd_bus_get_property_string(bus, BUS_NAME, BUS_PATH, BUS_MANAGER, "Profile", NULL, &profile) < 0 ||
            sd_bus_get_property_string(bus, BUS_NAME, BUS_PATH, BUS_MANAGER, "ProfileSource", NULL, &source) < 0 ||
            sd_bus_get_property_string(bus, BUS_NAME, BUS_PATH, BUS_MANAGER, "DesktopProfile", NULL, &desktop) < 0)
                return false;
        /* The configuration is read here as the service read it; what only the service knows is taken from it. */
        if (!streq(source, "configuration"))
                c->runtime_profile = profile_from_string(profile);
        c->desktop_profile = desktop[0] ? profile_from_string(desktop) : _PROFILE_INVALID;
        (void) context_update_profile(c);
        return true;
}

/*
 * A call the service (or dbus-daemon's policy, before it) refused or could not answer. A refusal
 * for want of root is said as such: dbus-daemon's own text (its rules, PIDs and command lines)
 * means nothing to a user, and is kept for the debug level.
 */
static void service_call_failed(const char *what, const char *method, const sd_bus_error *e, int r) {
        if (geteuid() != 0 && (sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED) || r == -EACCES || r == -EPERM)) {
                log_debug("%s through r8169-tuned.service: %s", method, e->message ?: strerror(-r));
                log_error("%s needs root: only root may change what r8169-tuned.service does (reading is for "
                          "anyone; r8169-tuned(8), SECURITY).", what);
        } else {
                char text[512];
                log_error("%s through r8169-tuned.service: %s", method, e->message ? printable(e->message, text, sizeof(text))
                                                                                   : strerror(-r));
        }
}

static int append_args(sd_bus_message *m, const Options *o) {
        int r = sd_bus_message_open_container(m, 'a', "s");
        for (int i = 0; r >= 0 && i < o->n_args; i++)
                r = sd_bus_message_append(m, "s", o->args[i]);
        return r < 0 ? r : sd_bus_message_close_container(m);
}

/* Calls a method with the command's NIC arguments; the error as the service said it. */
static int service_call_nics(sd_bus *bus, const Options *o, const char *method, sd_bus_message **reply) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, BUS_NAME, BUS_PATH, BUS_MANAGER, method);
        if (r >= 0)
                r = append_args(m, o);
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, &error, reply);
        if (r < 0)
                service_call_failed(streq(method, "Apply") ? "apply" : streq(method, "Restore") ? "restore" : "experiment", method,
                                    &error, r);
        sd_bus_error_free(&error);
        return r;
}

int service_apply(sd_bus *bus, const Options *o) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint32_t n;

        int failed;

        if (service_call_nics(bus, o, "Apply", &reply) < 0 || sd_bus_message_read(reply, "u", &n) < 0)
                return 1;
        /* The service applied before it answered: what still differs is what did not hold (the exit says so, as without it). */
        failed = verify_service_failures(bus, o);
        if (failed < 0)
                return 1;
        if (failed > 0) {
                log_error("r8169-tuned.service applied the plan to %u NIC%s; %d knob%s not in force.", n, n == 1 ? "" : "s",
                          failed, failed == 1 ? " is" : "s are");
                return 1;
        }
        log_info("r8169-tuned.service applied the plan to %u NIC%s (its journal says what changed).", n, n == 1 ? "" : "s");
        return 0;
}

int service_restore(sd_bus *bus, const Options *o) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint32_t restored, left, failed;

        if (service_call_nics(bus, o, "Restore", &reply) < 0 || sd_bus_message_read(reply, "uuu", &restored, &left, &failed) < 0)
                return 1;
        log_info("r8169-tuned.service restored %u value%s (%u left alone, %u failed); it leaves %s alone until "
                 "\"r8169-tuned apply\" or a restart.", restored, restored == 1 ? "" : "s", left, failed,
                 o->n_args > 0 ? "these NICs" : "every NIC");
        return failed > 0 ? 1 : 0;
}

/* One NIC's Restore or Apply, for the experiment. */
static int service_call_nic(sd_bus *bus, const char *method, const char *name, sd_bus_message **reply) {
        Options one = { .args = (char *[]) { (char *) name }, .n_args = 1 };
        return service_call_nics(bus, &one, method, reply);
}

int service_release_nic(sd_bus *bus, const char *name) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint32_t restored, left, failed;
        int r;

        /* Release: Restore, until this process leaves the bus (a kill -9 too), when the service takes the NIC back. */
        r = service_call_nic(bus, "Release", name, &reply);
        if (r >= 0)
                r = sd_bus_message_read(reply, "uuu", &restored, &left, &failed);
        if (r < 0)
                return r;
        if (failed > 0)
                return log_error_errno(EIO, "r8169-tuned.service could not put back %u value%s of %s.", failed,
                                       failed == 1 ? "" : "s", name);
        log_info("r8169-tuned.service let go of %s (%u value%s put back) for the experiment.", name, restored,
                 restored == 1 ? "" : "s");
        return 0;
}

int service_nic_state(sd_bus *bus, const char *slot, char *buf, size_t size) {
        _cleanup_free_ char *path = NULL, *state = NULL;
        int r;

        r = sd_bus_path_encode(BUS_NIC_PREFIX, slot, &path);
        if (r < 0)
                return r;
        r = sd_bus_get_property_string(bus, BUS_NAME, path, BUS_NIC, "State", NULL, &state);
        if (r < 0)
                return r;
        return strscpy(buf, size, state) < 0 ? -E2BIG : 0;
}

int service_nic_released(sd_bus *bus, const char *slot) {
        char state[16];
        int r = service_nic_state(bus, slot, state, sizeof(state));

        return r < 0 ? r : streq(state, "released");
}

int service_take_back_nic(sd_bus *bus, const char *name) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = service_call_nic(bus, "Apply", name, &reply);
        if (r >= 0)
                log_info("r8169-tuned.service takes %s back.", name);
        return r;
}

static int read_problems(sd_bus_message *reply, size_t *ret_n) {
        const char *file, *msg;
        uint32_t line;
        size_t n = 0;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(sus)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sus)", &file, &line, &msg)) > 0) {
                fprintf(stderr, "%s\n", msg);
                n++;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        *ret_n = n;
        return r;
}

int service_reload(sd_bus *bus, const Options *o) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        size_t n;
        int r;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, BUS_MANAGER, "Reload", &error, &reply, "");
        if (r < 0) {
                service_call_failed("reload", "Reload", &error, r);
                sd_bus_error_free(&error);
                return 1;
        }
        if (read_problems(reply, &n) < 0)
                return 1;
        if (n == 0)
                return 0;
        log_error("%zu problem%s: the files named are left out until they are fixed; everything else is in force.", n,
                  n == 1 ? "" : "s");
        return 1;
}

/* profile: what is in force (and why), or a switch at run time (--persist: also in a drop-in). */
/* The profile in force, where it comes from and the power source: a line, or {"schema", "profile",
 * "configured", "source", "desktop", "power_source", "service"}. desktop: NULL when unknown. */
static void profile_print(bool json, const char *active, const char *source, const char *configured,
                          const char *desktop, const char *power, bool service) {
        JsonWriter w = json_writer(stdout);

        if (!json) {
                printf("%s (%s: %s, power: %s%s)%s\n", active, source, configured, power,
                       service ? "" : "; the service is not running",
                       service && streq(source, "runtime") ? "; \"r8169-tuned profile --reset\" goes back to the configured one" : "");
                return;
        }
        json_object_begin(&w);
        json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
        json_kv_str(&w, "profile", active);
        json_kv_str(&w, "configured", configured);
        json_kv_str(&w, "source", source);
        json_kv_str(&w, "desktop", desktop);
        json_kv_str(&w, "power_source", power);
        json_kv_bool(&w, "service", service);
        json_object_end(&w);
        json_end(&w);
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
