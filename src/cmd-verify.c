/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <limits.h>
#include <net/if.h>
#include <systemd/sd-bus.h>

#include "bus-api.h"
#include "commands.h"
#include "json.h"
#include "log.h"
#include "report.h"

/*
 * verify: is the plan in force? Exit 0 when every knob of the selected NICs is as planned and
 * every configuration and quirk file was read; 1 with the knobs that differ and the problems
 * (as tuned-adm verify and tlp-stat answer, for a monitoring check or an Ansible task). While
 * the service runs, it answers (its run-time profile, the NICs it gave back); else this does.
 */

typedef struct Difference {
        char slot[PCI_SLOT_LEN], ifname[IFNAMSIZ], knob[32], planned[KNOB_VALUE_MAX], found[64], source[160];
} Difference;

/* A NIC verified: its slot, interface and, through the service, how the service holds it. */
typedef struct Checked {
        char slot[PCI_SLOT_LEN], ifname[IFNAMSIZ], state[16];
} Checked;

typedef struct Verdict {
        Difference *v;
        size_t n;
        Diagnostics problems;
        const char *profile;  /* NULL: not known (the service answered) */
        Checked *nics;
        size_t n_nics;
} Verdict;

static int verdict_add(Verdict *vd, const char *slot, const char *ifname, const char *knob, const char *planned, const char *found,
                       const char *source) {
        Difference *v = reallocarray(vd->v, vd->n + 1, sizeof(Difference)), *d;

        if (!v)
                return -ENOMEM;
        vd->v = v;
        d = &v[vd->n++];
        *d = (Difference) {};
        strscpy(d->slot, sizeof(d->slot), slot);
        strscpy(d->ifname, sizeof(d->ifname), ifname ?: "");
        strscpy(d->knob, sizeof(d->knob), knob);
        strscpy(d->planned, sizeof(d->planned), planned);
        strscpy(d->found, sizeof(d->found), found);
        strscpy(d->source, sizeof(d->source), source);
        return 0;
}

static int verdict_add_nic(Verdict *vd, const char *slot, const char *ifname, const char *state) {
        Checked *c = reallocarray(vd->nics, vd->n_nics + 1, sizeof(Checked));

        if (!c)
                return -ENOMEM;
        vd->nics = c;
        c = &c[vd->n_nics++];
        *c = (Checked) {};
        strscpy(c->slot, sizeof(c->slot), slot);
        strscpy(c->ifname, sizeof(c->ifname), ifname ?: "");
        strscpy(c->state, sizeof(c->state), state ?: "");
        return 0;
}

/* A NIC the service gave back (restore) and leaves alone until apply. */
static bool given_back(const Checked *c) { return streq(c->state, "released"); }

static size_t verdict_given_back(const Verdict *vd) {
        size_t n = 0;

        for (size_t i = 0; i < vd->n_nics; i++)
                n += given_back(&vd->nics[i]);
        return n;
}

/* Whether every knob of this NIC is as planned and the service has not given it back. */
static bool verdict_nic_ok(const Verdict *vd, const Checked *c) {
        for (size_t i = 0; i < vd->n; i++)
                if (streq(vd->v[i].slot, c->slot))
                        return false;
        return !given_back(c);
}

static void verdict_done(Verdict *vd) {
        free(vd->nics);
        free(vd->v);
        diag_done(&vd->problems);
}

/* A NIC given back is not as planned: nothing says so on it, and a check must not pass it (ux-findings H5). */
static bool verdict_ok(const Verdict *vd) { return vd->n == 0 && verdict_given_back(vd) == 0 && vd->problems.n == 0; }

/* A value typed as plan types it (on/off a boolean, else a number), whether this process read it
 * or the service said it as text; null when there is none (partial, not-present, ...). */
static void verify_value_json(JsonWriter *w, const char *key, const char *knob, const char *text) {
        KnobId k = knob_from_name(knob);
        uint64_t v;

        json_key(w, key);
        if (k >= 0 && knob_parse_value(k, text, &v) >= 0)
                report_knob_value_json(w, k, v);
        else
                json_null(w);
}

static void verify_json(const Verdict *vd) {
        JsonWriter w = json_writer(stdout);

        json_object_begin(&w);
        json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
        json_kv_bool(&w, "ok", verdict_ok(vd));
        json_kv_str(&w, "profile", vd->profile);
        json_key(&w, "nics");
        json_array_begin(&w);
        for (size_t i = 0; i < vd->n_nics; i++) {
                json_object_begin(&w);
                json_kv_str(&w, "slot", vd->nics[i].slot);
                json_kv_str(&w, "interface", vd->nics[i].ifname[0] ? vd->nics[i].ifname : NULL);
                json_kv_str(&w, "service_state", vd->nics[i].state[0] ? vd->nics[i].state : NULL);
                json_kv_bool(&w, "ok", verdict_nic_ok(vd, &vd->nics[i]));
                json_object_end(&w);
        }
        json_array_end(&w);
        json_key(&w, "differences");
        json_array_begin(&w);
        for (size_t i = 0; i < vd->n; i++) {
                json_object_begin(&w);
                json_kv_str(&w, "slot", vd->v[i].slot);
                json_kv_str(&w, "interface", vd->v[i].ifname[0] ? vd->v[i].ifname : NULL);
                json_kv_str(&w, "knob", vd->v[i].knob);
                verify_value_json(&w, "planned", vd->v[i].knob, vd->v[i].planned);
                verify_value_json(&w, "found", vd->v[i].knob, vd->v[i].found);
                json_kv_str(&w, "found_text", vd->v[i].found);
                json_kv_str(&w, "source", vd->v[i].source);
                json_object_end(&w);
        }
        json_array_end(&w);
        json_key(&w, "given_back");
        json_array_begin(&w);
        for (size_t i = 0; i < vd->n_nics; i++) {
                if (!given_back(&vd->nics[i]))
                        continue;
                json_object_begin(&w);
                json_kv_str(&w, "slot", vd->nics[i].slot);
                json_kv_str(&w, "interface", vd->nics[i].ifname[0] ? vd->nics[i].ifname : NULL);
                json_object_end(&w);
        }
        json_array_end(&w);
        report_config_problems_json(&w, &vd->problems);
        json_object_end(&w);
        json_end(&w);
}

static void verify_text(const Verdict *vd) {
        size_t released = verdict_given_back(vd);

        for (size_t i = 0; i < vd->n; i++)
                printf("%s (%s) %s: planned %s, found %s (%s)\n", vd->v[i].ifname[0] ? vd->v[i].ifname : "-", vd->v[i].slot,
                       vd->v[i].knob, vd->v[i].planned, vd->v[i].found, vd->v[i].source);
        for (size_t i = 0; i < vd->n_nics; i++)
                if (given_back(&vd->nics[i]))
                        printf("%s (%s): given back by \"restore\"; the service leaves it alone until \"r8169-tuned apply\".\n",
                               vd->nics[i].ifname[0] ? vd->nics[i].ifname : "-", vd->nics[i].slot);
        for (size_t i = 0; i < vd->problems.n; i++)
                printf("%s\n", vd->problems.msgs[i]);
        if (verdict_ok(vd) && vd->n_nics == 0)
                printf("OK: no Realtek NIC here; nothing to verify.\n");
        else if (verdict_ok(vd))
                printf("OK: every knob of %zu NIC%s is as planned (profile %s).\n", vd->n_nics, vd->n_nics == 1 ? "" : "s",
                       vd->profile);
        else if (released > 0)
                printf("%zu knob%s differ%s from the plan; %zu NIC%s given back; %zu problem%s in configuration or quirk files.\n",
                       vd->n, vd->n == 1 ? "" : "s", vd->n == 1 ? "s" : "", released, released == 1 ? "" : "s",
                       vd->problems.n, vd->problems.n == 1 ? "" : "s");
        else
                printf("%zu knob%s differ%s from the plan; %zu problem%s in configuration or quirk files.\n", vd->n,
                       vd->n == 1 ? "" : "s", vd->n == 1 ? "s" : "", vd->problems.n, vd->problems.n == 1 ? "" : "s");
}

/* Without the service: plan every selected NIC and compare. */
static int verify_here(const Options *o, Verdict *vd, Context *c) {
        _cleanup_free_ bool *selected = NULL;

        if (context_open_selected(c, o, false, &selected) < 0)
                return -EINVAL;
        /* Quiet: verify lists the problems itself, once (ux-findings L17: the loader said them too). */
        context_load_policy_quiet(c);
        for (size_t i = 0; i < c->nics.n; i++) {
                KnobReading current[_KNOB_MAX];
                NicPlan p;

                if (!selected[i])
                        continue;
                context_plan_nic(c, &c->nics.nics[i], current, &p);
                if (verdict_add_nic(vd, p.nic->slot, nic_ifname(p.nic), NULL) < 0)
                        return log_oom();
                for (size_t k = 0; !p.ignored && k < p.n; k++) {
                        const PlanItem *it = &p.items[k];
                        char want[KNOB_VALUE_MAX], found[64], src[160];

                        if (it->action == PLAN_CHANGE &&
                            verdict_add(vd, p.nic->slot, nic_ifname(p.nic), knob_get(it->knob)->name,
                                        knob_format_value(it->knob, it->desired, want, sizeof(want)),
                                        report_reading_text(it->knob, &it->current, found, sizeof(found)),
                                        plan_item_source(it, src, sizeof(src))) < 0)
                                return log_oom();
                }
        }
        for (size_t i = 0; i < c->problems.n; i++)
                diag_copy(&vd->problems, &c->problems, i);
        vd->profile = profile_to_string(c->profile);
        return 0;
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
static int verify_service_nics(sd_bus *bus, const Options *o, Verdict *vd, char **paths) {
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
                if (verdict_add_nic(vd, slot, ifname, state) < 0)
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
static int verify_service(sd_bus *bus, const Options *o, Verdict *vd, char **profile) {
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

                if (wanted && verdict_add(vd, slot, ifname, knob, planned, found, source) < 0)
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

int verify_service_failures(sd_bus *bus, const Options *o) {
        _cleanup_free_ char *profile = NULL;
        Verdict vd = {};
        int r;

        r = verify_service(bus, o, &vd, &profile);
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
        verdict_done(&vd);
        return r;
}

void verdict_parts(char *buf, size_t size, size_t differ, size_t given_back, size_t problems) {
        /* Only the parts that are not zero (ux-findings L5). */
        char parts[3][64];
        size_t n = 0, len = 0;

        if (differ > 0)
                snprintf(parts[n++], sizeof(parts[0]), "%zu knob%s differ%s from the plan", differ, differ == 1 ? "" : "s",
                         differ == 1 ? "s" : "");
        if (given_back > 0)
                snprintf(parts[n++], sizeof(parts[0]), "%zu NIC%s given back", given_back, given_back == 1 ? "" : "s");
        if (problems > 0)
                snprintf(parts[n++], sizeof(parts[0]), "%zu configuration problem%s", problems, problems == 1 ? "" : "s");
        buf[0] = '\0';
        for (size_t i = 0; i < n && len < size; i++)
                len += (size_t) snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", parts[i]);
}

/* The running service's verdict in one line, for status; false when no service answers. */
bool verify_summary_service(sd_bus *bus, const Options *o, char *buf, size_t size) {
        _cleanup_free_ char *profile = NULL;
        Options every = *o;
        Verdict vd = {};
        size_t released;
        int r;

        if (!bus)
                return false;
        every.n_args = 0;
        r = verify_service(bus, &every, &vd, &profile);
        released = verdict_given_back(&vd);
        if (r < 0)
                snprintf(buf, size, "the service did not answer (r8169-tuned verify says more)");
        else if (verdict_ok(&vd))
                snprintf(buf, size, "every knob is as planned (profile %s, by the running service)", vd.profile);
        else if (released > 0 && vd.n == 0 && vd.problems.n == 0)
                snprintf(buf, size, "%zu NIC%s given back by \"restore\" and left alone (profile %s, by the running service): "
                         "\"r8169-tuned apply\" takes %s back", released, released == 1 ? "" : "s", vd.profile,
                         released == 1 ? "it" : "them");
        else {
                size_t len;
                verdict_parts(buf, size, vd.n, released, vd.problems.n);
                len = strlen(buf);
                if (len < size)
                        snprintf(buf + len, size - len, " (profile %s, by the running service); \"r8169-tuned verify\" lists them",
                                 vd.profile);
        }
        verdict_done(&vd);
        return true;
}

int cmd_verify(const Options *o) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *profile = NULL;
        bool here = service_bus_open(o, &bus) < 0;
        Verdict vd = {};
        Context c;
        int r, ret;

        r = here ? verify_here(o, &vd, &c) : verify_service(bus, o, &vd, &profile);
        if (r >= 0) {
                if (o->json)
                        verify_json(&vd);
                else
                        verify_text(&vd);
        }
        ret = r >= 0 && verdict_ok(&vd) ? 0 : 1;
        if (here)
                context_done(&c);
        verdict_done(&vd);
        return ret;
}
