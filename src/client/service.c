/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <systemd/sd-bus.h>

#include "base/log.h"
#include "client/bus-api.h"
#include "client/service.h"
#include "show/report.h"
#include "show/verification.h"
#include "state/lock.h"

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
        if (lock_service_running(state_dir) == 0)
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
void service_call_failed(const char *what, const char *method, const sd_bus_error *e, int r) {
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

static int service_verify_failures(sd_bus *bus, const Options *o);

int service_apply(sd_bus *bus, const Options *o) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint32_t n;
        int failed;

        if (service_call_nics(bus, o, "Apply", &reply) < 0 || sd_bus_message_read(reply, "u", &n) < 0)
                return 1;
        /* The service applied before it answered: what still differs is what did not hold (the exit says so, as without it). */
        failed = service_verify_failures(bus, o);
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

/* Whether an argument names this NIC (its interface or slot); each argument that does is marked in named
 * (may be NULL): a NIC named twice, by name and by slot, is one NIC, and both arguments are known. */
static bool nic_named(const Options *o, const char *slot, const char *ifname, bool *named) {
        char s[PCI_SLOT_LEN];
        bool any = false;

        for (int a = 0; a < o->n_args; a++)
                if (streq(o->args[a], ifname) || (pci_slot_normalize(o->args[a], s) >= 0 && streq(s, slot))) {
                        if (named)
                                named[a] = true;
                        any = true;
                }
        return any;
}

/* The service's NICs (object paths): those asked for (all without arguments) with how the service holds
 * them; an argument that names none of them is an error. */
static int verify_service_nics(sd_bus *bus, const Options *o, Verification *vd, char **paths) {
        _cleanup_free_ bool *named = calloc((size_t) o->n_args + 1, sizeof(bool));
        char here[512] = "";
        size_t n_here = 0, len = 0;
        int r = 0;

        if (!named)
                return log_oom();
        for (char **n = paths; n && *n; n++) {
                _cleanup_free_ char *slot = NULL, *ifname = NULL, *state = NULL;

                r = sd_bus_get_property_string(bus, BUS_NAME, *n, BUS_NIC, "Slot", NULL, &slot);
                if (r >= 0)
                        r = sd_bus_get_property_string(bus, BUS_NAME, *n, BUS_NIC, "Interface", NULL, &ifname);
                if (r >= 0)
                        r = sd_bus_get_property_string(bus, BUS_NAME, *n, BUS_NIC, "State", NULL, &state);
                if (r < 0)
                        continue; /* gone between the list and the reads */
                if (len < sizeof(here))
                        len += (size_t) snprintf(here + len, sizeof(here) - len, "%s%s%s%s%s", n_here ? ", " : "", ifname,
                                                 ifname[0] ? " (" : "", slot, ifname[0] ? ")" : "");
                n_here++;
                if (o->n_args > 0 && !nic_named(o, slot, ifname, named))
                        continue;
                if (verification_add_nic(vd, slot, ifname, state) < 0)
                        return log_oom();
        }
        r = 0;
        for (int a = 0; a < o->n_args; a++)
                if (!named[a]) {
                        log_error("No Realtek NIC \"%s\" (an interface name or a PCI slot).", o->args[a]);
                        r = -ENOENT;
                }
        /* What there is to name, as the same command says without the service (ux-findings L1). */
        if (r == -ENOENT && n_here > 0)
                log_error("Realtek NIC%s here: %s.", n_here == 1 ? "" : "s", here);
        else if (r == -ENOENT)
                log_error("There is no Realtek NIC here.");
        return r;
}

/* The service's answer (Verify), for the NICs asked for. */
int service_verify(sd_bus *bus, const Options *o, Verification *vd, char **profile) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *slot, *ifname, *knob, *planned, *found, *source, *file, *msg;
        char **nics = NULL;
        uint32_t line;
        int r;

        r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, BUS_MANAGER, "Verify", &error, &reply, "");
        if (r < 0) {
                log_error("Verify through r8169-tuned.service: %s", error.message ?: strerror(-r));
                sd_bus_error_free(&error);
                return r;
        }
        r = sd_bus_message_enter_container(reply, 'a', "(ssssss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ssssss)", &slot, &ifname, &knob, &planned, &found, &source)) > 0) {
                bool wanted = o->n_args == 0 || nic_named(o, slot, ifname, NULL);

                if (wanted && verification_add(vd, slot, ifname, knob, planned, found, source) < 0)
                        return log_oom();
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sus)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sus)", &file, &line, &msg)) > 0) {
                diag_add_message(&vd->problems, file, line, msg);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0)
                r = sd_bus_get_property_string(bus, BUS_NAME, BUS_PATH, BUS_MANAGER, "ActiveProfile", NULL, profile);
        if (r >= 0)
                r = sd_bus_get_property_strv(bus, BUS_NAME, BUS_PATH, BUS_MANAGER, "Nics", NULL, &nics);
        r = r < 0 ? r : verify_service_nics(bus, o, vd, nics);
        for (char **n = nics; n && *n; n++)
                free(*n);
        free(nics);
        if (r == -ENOENT)
                return r;
        if (r < 0)
                return log_error_errno(r, "Cannot read the service's answer: %m");
        vd->profile = *profile;
        return 0;
}

/* Why the service's last write of a knob failed (its Nic.Failures), into buf; false if it did not say. */
static bool service_failure(sd_bus *bus, const char *slot, const char *knob, char *buf, size_t size) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL;
        const char *name, *text;
        bool found = false;
        int r;

        if (sd_bus_path_encode(BUS_NIC_PREFIX, slot, &path) < 0 ||
            sd_bus_get_property(bus, BUS_NAME, path, BUS_NIC, "Failures", NULL, &reply, "a(ss)") < 0)
                return false;
        r = sd_bus_message_enter_container(reply, 'a', "(ss)");
        while (r >= 0 && !found && (r = sd_bus_message_read(reply, "(ss)", &name, &text)) > 0)
                if (streq(name, knob)) {
                        printable(text, buf, size);
                        found = true;
                }
        return found;
}

/* After an Apply through the service: every knob of the NICs named that is not as planned, said
 * as an error each; how many, or -errno when the service did not answer. */
static int service_verify_failures(sd_bus *bus, const Options *o) {
        _cleanup_free_ char *profile = NULL;
        Verification vd = {};
        int r;

        r = service_verify(bus, o, &vd, &profile);
        for (size_t i = 0; r >= 0 && i < vd.n; i++) {
                char why[200];
                /* The service's own reason, as direct mode prints it (issue 45 M8); else where to find it. */
                bool said = service_failure(bus, vd.v[i].slot, vd.v[i].knob, why, sizeof(why));
                log_error("%s (%s) %s: planned %s, found %s (%s): not in force: %s.", vd.v[i].ifname[0] ? vd.v[i].ifname : "-",
                          vd.v[i].slot, vd.v[i].knob, vd.v[i].planned, vd.v[i].found, vd.v[i].source,
                          said ? why : "journalctl -u r8169-tuned says why");
        }
        if (r >= 0)
                r = (int) (vd.n > INT_MAX ? INT_MAX : vd.n);
        verification_done(&vd);
        return r;
}

/* The running service's verdict in one line, for status; false when no service answers. */
bool service_verify_summary(sd_bus *bus, const Options *o, char *buf, size_t size) {
        _cleanup_free_ char *profile = NULL;
        Options every = *o;
        Verification vd = {};
        size_t released;
        int r;

        if (!bus)
                return false;
        every.n_args = 0;
        r = service_verify(bus, &every, &vd, &profile);
        released = verification_given_back(&vd);
        if (r < 0)
                snprintf(buf, size, "the service did not answer (r8169-tuned verify says more)");
        else if (verification_ok(&vd))
                snprintf(buf, size, "every knob is as planned (profile %s, by the running service)", vd.profile);
        else if (released > 0 && vd.n == 0 && vd.problems.n == 0)
                snprintf(buf, size, "%zu NIC%s given back by \"restore\" and left alone (profile %s, by the running service): "
                         "\"r8169-tuned apply\" takes %s back", released, released == 1 ? "" : "s", vd.profile,
                         released == 1 ? "it" : "them");
        else {
                size_t len;
                verification_parts(buf, size, vd.n, released, vd.problems.n);
                len = strlen(buf);
                if (len < size)
                        snprintf(buf + len, size - len, " (profile %s, by the running service); \"r8169-tuned verify\" lists them",
                                 vd.profile);
        }
        verification_done(&vd);
        return true;
}
