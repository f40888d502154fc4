/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The service's D-Bus API on the system bus, interface version 1 (r8169-tuned(8), D-BUS
 * INTERFACE; the XML in /usr/share/dbus-1/interfaces): the profile, the power source, the
 * configuration's problems and every NIC as properties; Apply, Restore, Release, SetProfile,
 * Reload and Verify. Reading is for anyone; a method that changes something is for root (the bus policy
 * says so too, and the caller's uid is checked here as well).
 */
#include <malloc.h>
#include <systemd/sd-bus.h>

#include "base/log.h"
#include "base/messages.h"
#include "client/bus-api.h"
#include "daemon/manager-internal.h"
#include "decide/nic-log.h"
#include "show/verification.h"

static int nic_path(const Link *l, char **ret) { return sd_bus_path_encode(BUS_NIC_PREFIX, l->nic.slot, ret); }

static Link *link_from_path(Manager *m, const char *path) {
        _cleanup_free_ char *slot = NULL;

        if (sd_bus_path_decode(path, BUS_NIC_PREFIX, &slot) <= 0 || !slot)
                return NULL;
        return link_set_find_slot(&m->links, slot);
}

/* Changes are for root: the bus policy lets no one else call them, and this checks it again. */
/* The caller's (effective) uid. */
static int sender_uid(sd_bus_message *msg, uid_t *ret) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        int r;

        r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID | SD_BUS_CREDS_UID, &creds);
        if (r >= 0) {
                r = sd_bus_creds_get_euid(creds, ret);
                if (r < 0)
                        r = sd_bus_creds_get_uid(creds, ret);
        }
        return r;
}

static int check_root(sd_bus_message *msg, sd_bus_error *error) {
        uid_t uid;
        int r;

        r = sender_uid(msg, &uid);
        if (r < 0)
                return sd_bus_error_set_errnof(error, -r, "Cannot tell who is calling: %s", strerror(-r));
        if (uid != 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "Only root may change what r8169-tuned does.");
        return 0;
}

/* The links the names select (slots, lspci's short ones too, or interface names; none: every one), or an error naming the first unknown one. */
static int select_names(Manager *m, const char *const *names, size_t n, bool *selected, sd_bus_error *error) {
        for (size_t i = 0; i < m->links.n; i++)
                selected[i] = n == 0;
        for (size_t j = 0; j < n; j++) {
                char slot[PCI_SLOT_LEN];
                Link *l = pci_slot_normalize(names[j], slot) >= 0 ? link_set_find_slot(&m->links, slot) : NULL;
                size_t k;

                if (!l)
                        l = link_set_find_ifname(&m->links, names[j], &k);
                if (!l)
                        return sd_bus_error_setf(error, "io.github.r8169_tuned1.NoSuchNic", "No Realtek NIC \"%s\".", names[j]);
                selected[l - m->links.links] = true;
        }
        return 0;
}

/*
 * Memory a large message took (glibc keeps what was freed): given back once the call is over
 * (security review S12: 30 MB kept after a refused 10 MB name).
 */
static int on_trim(sd_event_source *s, void *userdata) {
        (void) malloc_trim(0);
        return 0;
}

static void trim_later(Manager *m) {
        if (!m->trim && sd_event_add_defer(m->event, &m->trim, on_trim, m) < 0)
                return;
        (void) sd_event_source_set_enabled(m->trim, SD_EVENT_ONESHOT);
}

/*
 * The same, from a method's "as" argument: read in place, each name no longer than a slot or an
 * interface name and at most MAX_NAMES of them, refused before anything is copied.
 */
#define MAX_NAMES 64
int manager_bus_select_links(Manager *m, sd_bus_message *msg, bool *selected, sd_bus_error *error) {
        const char *names[MAX_NAMES];
        size_t n = 0, bytes = 0;
        const char *name;
        int r;

        r = sd_bus_message_enter_container(msg, 'a', "s");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(msg, "s", &name)) > 0) {
                size_t len = strlen(name);

                bytes += len;
                if (len >= IFNAMSIZ && len >= PCI_SLOT_LEN) {
                        if (bytes > 65536)
                                trim_later(m);
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                                 "\"%.20s...\" (%zu bytes) is not a NIC: a PCI slot or an interface name.",
                                                 name, len);
                }
                if (n == MAX_NAMES) {
                        trim_later(m);
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "More than %d NICs named.", MAX_NAMES);
                }
                names[n++] = name;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(msg);
        if (r < 0)
                return r;
        return select_names(m, names, n, selected, error);
}

/*
 * Release holds: a NIC let go of for a caller (the experiment) is taken back when that caller
 * leaves the bus, however it ends (a kill -9 too), as an Apply would; an Apply or a Restore of
 * the NIC ends the hold (the NIC is then as they say).
 */
static void holder_drop(Manager *m, size_t i) {
        sd_bus_track_unref(m->holders[i].track);
        m->holders[i] = m->holders[--m->n_holders];
}

static void holders_drop_slot(Manager *m, const char *slot) {
        for (size_t i = m->n_holders; i-- > 0;)
                if (streq(m->holders[i].slot, slot))
                        holder_drop(m, i);
}

static int holder_gone(sd_bus_track *t, void *userdata) {
        Manager *m = userdata;

        for (size_t i = m->n_holders; i-- > 0;) {
                Link *l;

                if (m->holders[i].track != t)
                        continue;
                l = link_set_find_slot(&m->links, m->holders[i].slot);
                if (l && link_take_back(l)) {
                        log_nic(LOG_NOTICE, R8T_MESSAGE_NIC_TUNED, &l->nic, 0,
                                "taken back: the caller it was let go of for has left the bus; applying");
                        manager_mark_dirty(m, l);
                }
                holder_drop(m, i);
        }
        manager_schedule(m);
        manager_bus_changed(m, "Nics");
        return 0;
}

static int holder_add(Manager *m, const char *slot, sd_bus_message *msg) {
        Holder *v;
        int r;

        holders_drop_slot(m, slot);
        v = reallocarray(m->holders, m->n_holders + 1, sizeof(Holder));
        if (!v)
                return -ENOMEM;
        m->holders = v;
        v = &m->holders[m->n_holders];
        *v = (Holder) {};
        strscpy(v->slot, sizeof(v->slot), slot);
        r = sd_bus_track_new(m->bus, &v->track, holder_gone, m);
        if (r >= 0)
                r = sd_bus_track_add_sender(v->track, msg);
        if (r < 0) {
                sd_bus_track_unref(v->track);
                return r;
        }
        m->n_holders++;
        return 0;
}

static int method_apply(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_free_ bool *selected = calloc(m->links.n + 1, sizeof(bool));
        unsigned n = 0;
        int r;

        if (!selected)
                return -ENOMEM;
        r = check_root(msg, error);
        if (r >= 0)
                r = manager_bus_select_links(m, msg, selected, error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->links.n; i++)
                if (selected[i]) {
                        Link *l = &m->links.links[i];
                        holders_drop_slot(m, l->nic.slot);
                        if (link_take_back(l))
                                log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, &l->nic, 0, "taken back on request; applying");
                        /* Done before the answer: a caller (r8169-tuned apply) asks Verify next what did not hold. */
                        manager_apply_now(m, l);
                        n++;
                }
        manager_schedule(m);
        return sd_bus_reply_method_return(msg, "u", n);
}

/* Restore, and Release (hold: until the caller leaves the bus). */
static int release_links(sd_bus_message *msg, Manager *m, bool hold, sd_bus_error *error) {
        _cleanup_free_ bool *selected = calloc(m->links.n + 1, sizeof(bool));
        ApplyStats st = {};
        int r;

        if (!selected)
                return -ENOMEM;
        r = check_root(msg, error);
        if (r >= 0)
                r = manager_bus_select_links(m, msg, selected, error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->links.n; i++)
                if (selected[i]) {
                        holders_drop_slot(m, m->links.links[i].nic.slot);
                        if (hold) {
                                r = holder_add(m, m->links.links[i].nic.slot, msg);
                                if (r < 0)
                                        return sd_bus_error_set_errnof(error, -r, "Cannot follow the caller: %s", strerror(-r));
                        }
                }
        for (size_t i = 0; i < m->links.n; i++)
                if (selected[i]) {
                        Link *l = &m->links.links[i];
                        link_release(l, &m->env, 500, &st);
                        if (!hold)
                                context_forget_board_guard(&m->c, &l->nic);
                        manager_do(m, l, 0);
                        log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, &l->nic, 0, hold ?
                                "given back on request; left alone while the caller is on the bus, or until Apply" :
                                "given back on request; left alone until Apply (r8169-tuned apply) or a restart");
                }
        manager_bus_changed(m, "Nics");
        return sd_bus_reply_method_return(msg, "uuu", st.restored, st.left_alone, st.failed);
}

static int method_restore(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return release_links(msg, userdata, false, error);
}

static int method_release(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return release_links(msg, userdata, true, error);
}

static int method_set_profile(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *name;
        Profile p;
        int r;

        r = check_root(msg, error);
        if (r >= 0)
                r = sd_bus_message_read(msg, "s", &name);
        if (r < 0)
                return r;
        if (strlen(name) > 32) {
                trim_later(m);
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Unknown profile (%zu bytes): expected performance, balanced, powersave, auto, or \"\".",
                                         strlen(name));
        }
        if (m->opts->profile)
                return sd_bus_error_setf(error, SD_BUS_ERROR_NOT_SUPPORTED,
                                         "The service runs with --profile %s, which no run-time profile overrides.", m->opts->profile);
        p = streq(name, "") ? _PROFILE_INVALID : profile_from_string(name);
        if (!streq(name, "") && p < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Unknown profile \"%s\": expected performance, balanced, powersave, auto, or \"\" for the configured one.", name);
        m->c.runtime_profile = p;
        log_info("Profile set at run time: %s.", p >= 0 ? profile_to_string(p) : "back to the configured one");
        manager_update_profile(m);
        manager_bus_changed(m, "Profile");
        manager_bus_changed(m, "ProfileSource");
        manager_schedule(m);
        return sd_bus_reply_method_return(msg, NULL);
}

static int append_problems(sd_bus_message *reply, const Diagnostics *d) {
        int r = sd_bus_message_open_container(reply, 'a', "(sus)");

        for (size_t i = 0; r >= 0 && i < d->n; i++)
                r = sd_bus_message_append(reply, "(sus)", d->files[i], d->lines[i], d->msgs[i]);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Manager *m = userdata;
        int r;

        r = check_root(msg, error);
        if (r < 0)
                return r;
        manager_reload(m);
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = append_problems(reply, &m->c.problems);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

/* Every knob that differs from the plan, on the NICs that are not given back: (slot, interface, knob, planned, found, source). */
/*
 * Verify reads every knob of every NIC in the event loop, and anyone may call it: each caller
 * other than root (by uid) gets VERIFY_PER_SECOND calls a second, so that a loop of calls can
 * neither keep the service from hotplug, drift and resume nor refuse Verify to another user. The
 * table holds VERIFY_CALLERS uids; a new one takes the slot whose second is oldest.
 */
#define VERIFY_PER_SECOND 20

static int verify_limit(Manager *m, sd_bus_message *msg, sd_bus_error *error) {
        uint64_t now = now_monotonic_usec();
        VerifyBudget *b = NULL;
        uid_t uid;

        if (sender_uid(msg, &uid) < 0)
                uid = (uid_t) -1; /* cannot tell: one budget for all such callers */
        if (uid == 0)
                return 0;
        for (size_t i = 0; i < VERIFY_CALLERS; i++) {
                VerifyBudget *v = &m->verify[i];
                if (v->window_usec != 0 && v->uid == uid) {
                        b = v;
                        break;
                }
                if (!b || v->window_usec < b->window_usec)
                        b = v; /* the oldest so far, should this uid have none */
        }
        if (b->uid != uid || b->window_usec == 0 || now - b->window_usec >= 1000000)
                *b = (VerifyBudget) { .uid = uid, .window_usec = now ?: 1 };
        if (++b->calls > VERIFY_PER_SECOND)
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "Verify is limited to %u calls a second for each caller other than root; "
                                         "try again in a second.", VERIFY_PER_SECOND);
        return 0;
}

static int method_verify(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Manager *m = userdata;
        Verification vd = {};
        int r;

        r = verify_limit(m, msg, error);
        if (r < 0)
                return r;
        for (size_t i = 0; r >= 0 && i < m->links.n; i++) {
                Link *l = &m->links.links[i];
                KnobReading current[_KNOB_MAX];
                bool yielded[_KNOB_MAX];
                NicPlan plan;

                if (l->state == LINK_STATE_RELEASED)
                        continue;
                link_plan_now(l, &m->env, false, current, &plan);
                for (KnobId k = 0; k < _KNOB_MAX; k++)
                        yielded[k] = l->knobs[k].yielded;
                r = verification_add_plan(&vd, &plan, yielded);
        }
        if (r >= 0)
                r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ssssss)");
        for (size_t i = 0; r >= 0 && i < vd.n; i++)
                r = sd_bus_message_append(reply, "(ssssss)", vd.v[i].slot, vd.v[i].ifname, vd.v[i].knob, vd.v[i].planned,
                                          vd.v[i].found, vd.v[i].source);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = append_problems(reply, &m->c.problems);
        if (r >= 0)
                r = sd_bus_message_append(reply, "b", vd.n == 0 && m->c.problems.n == 0);
        verification_done(&vd);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

static int property_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        Profile configured = context_configured_profile(&m->c);

        if (streq(property, "Version"))
                return sd_bus_message_append(reply, "s", R8T_VERSION);
        if (streq(property, "Profile"))
                return sd_bus_message_append(reply, "s", profile_to_string(configured));
        if (streq(property, "ProfileSource"))
                return sd_bus_message_append(reply, "s", context_profile_source(&m->c));
        if (streq(property, "DesktopProfile"))
                return sd_bus_message_append(reply, "s", m->c.desktop_profile >= 0 ? profile_to_string(m->c.desktop_profile) : "");
        if (streq(property, "ActiveProfile"))
                return sd_bus_message_append(reply, "s", profile_to_string(m->c.profile));
        return sd_bus_message_append(reply, "s", power_source_to_string(m->c.machine.power));
}

static int property_problems(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return append_problems(reply, &((Manager *) userdata)->c.problems);
}

static int property_nics(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "o");

        for (size_t i = 0; r >= 0 && i < m->links.n; i++) {
                _cleanup_free_ char *p = NULL;
                r = nic_path(&m->links.links[i], &p);
                if (r >= 0)
                        r = sd_bus_message_append(reply, "o", p);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Profile", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ProfileSource", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ActiveProfile", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DesktopProfile", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("PowerSource", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ConfigProblems", "a(sus)", property_problems, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Nics", "ao", property_nics, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_NAMES("Apply", "as", SD_BUS_PARAM(nics), "u", SD_BUS_PARAM(applying), method_apply,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Restore", "as", SD_BUS_PARAM(nics), "uuu", SD_BUS_PARAM(restored) SD_BUS_PARAM(left_alone)
                                 SD_BUS_PARAM(failed), method_restore, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Release", "as", SD_BUS_PARAM(nics), "uuu", SD_BUS_PARAM(restored) SD_BUS_PARAM(left_alone)
                                 SD_BUS_PARAM(failed), method_release, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("SetProfile", "s", SD_BUS_PARAM(profile), "", , method_set_profile, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Reload", "", , "a(sus)", SD_BUS_PARAM(problems), method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Verify", "", , "a(ssssss)a(sus)b", SD_BUS_PARAM(differences) SD_BUS_PARAM(problems) SD_BUS_PARAM(ok),
                                 method_verify, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static int nic_property(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
                        void *userdata, sd_bus_error *error) {
        Link *l = userdata;
        char buf[64];

        if (streq(property, "Slot"))
                return sd_bus_message_append(reply, "s", l->nic.slot);
        if (streq(property, "Interface"))
                return sd_bus_message_append(reply, "s", nic_ifname(&l->nic) ?: "");
        if (streq(property, "Chip"))
                return sd_bus_message_append(reply, "s", l->nic.chip ? l->nic.chip->name : "");
        if (streq(property, "Xid")) {
                nic_xid_string(&l->nic, buf, sizeof(buf));
                return sd_bus_message_append(reply, "s", l->nic.xid == CHIP_XID_INVALID ? "" : buf);
        }
        if (streq(property, "Driver"))
                return sd_bus_message_append(reply, "s", l->nic.driver);
        if (streq(property, "State"))
                return sd_bus_message_append(reply, "s", link_state_to_string(l->state));
        /* Failures: why each write of the last apply that failed did (name, text), as the journal says it. */
        if (streq(property, "Failures")) {
                int r = sd_bus_message_open_container(reply, 'a', "(ss)");
                for (int k = 0; r >= 0 && k < _KNOB_MAX; k++)
                        if (l->knobs[k].failure)
                                r = sd_bus_message_append(reply, "(ss)", knob_get(k)->name, l->knobs[k].failure);
                return r < 0 ? r : sd_bus_message_close_container(reply);
        }
        /* Knobs: what the last plan asked of each (name, value), as drift is measured against it. */
        {
                int r = sd_bus_message_open_container(reply, 'a', "(ss)");
                for (int k = 0; r >= 0 && k < _KNOB_MAX; k++)
                        if (l->knobs[k].desired_set)
                                r = sd_bus_message_append(reply, "(ss)", knob_get(k)->name,
                                                          knob_format_value(k, l->knobs[k].desired, buf, sizeof(buf)));
                return r < 0 ? r : sd_bus_message_close_container(reply);
        }
}

static const sd_bus_vtable nic_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Slot", "s", nic_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Interface", "s", nic_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Chip", "s", nic_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Xid", "s", nic_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Driver", "s", nic_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("State", "s", nic_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Knobs", "a(ss)", nic_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        /* Read when asked (apply and verify do, after the service answered): a worker's apply changes it without a signal. */
        SD_BUS_PROPERTY("Failures", "a(ss)", nic_property, 0, 0),
        SD_BUS_VTABLE_END,
};

static int nic_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found, sd_bus_error *error) {
        Link *l = link_from_path(userdata, path);

        if (!l)
                return 0;
        *found = l;
        return 1;
}

static int nic_enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***nodes, sd_bus_error *error) {
        Manager *m = userdata;
        char **v = calloc(m->links.n + 1, sizeof(char *));

        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < m->links.n; i++)
                if (nic_path(&m->links.links[i], &v[i]) < 0) {
                        strv_free(v, i); /* frees v too */
                        return -ENOMEM;
                }
        *nodes = v;
        return 0;
}

int manager_bus_start(Manager *m) {
        int r;

        r = sd_bus_add_object_vtable(m->bus, NULL, BUS_PATH, BUS_MANAGER, manager_vtable, m);
        if (r >= 0)
                r = sd_bus_add_fallback_vtable(m->bus, NULL, BUS_NIC_PREFIX, BUS_NIC, nic_vtable, nic_find, m);
        if (r >= 0)
                r = sd_bus_add_node_enumerator(m->bus, NULL, BUS_NIC_PREFIX, nic_enumerate, m);
        if (r >= 0)
                r = sd_bus_add_object_manager(m->bus, NULL, BUS_PATH);
        if (r >= 0)
                r = sd_bus_request_name(m->bus, BUS_NAME, 0);
        if (r < 0)
                return log_warning_errno(r, "No D-Bus API (%s): %m; the commands act directly.", BUS_NAME);
        m->bus_api = true;
        return 0;
}

void manager_bus_changed(Manager *m, const char *property) {
        if (!m->bus_api)
                return;
        (void) sd_bus_emit_properties_changed(m->bus, BUS_PATH, BUS_MANAGER, property, NULL);
        if (streq(property, "Nics"))
                for (size_t i = 0; i < m->links.n; i++) {
                        _cleanup_free_ char *p = NULL;
                        if (nic_path(&m->links.links[i], &p) >= 0)
                                (void) sd_bus_emit_properties_changed(m->bus, p, BUS_NIC, "Interface", "Driver", "State", "Knobs", NULL);
                }
}

void manager_bus_nics_changed(Manager *m, const char (*before)[PCI_SLOT_LEN], size_t n_before) {
        if (!m->bus_api)
                return;
        for (size_t i = 0; i < m->links.n; i++) {
                _cleanup_free_ char *p = NULL;
                bool known = false;

                for (size_t j = 0; j < n_before && !known; j++)
                        known = streq(before[j], m->links.links[i].nic.slot);
                if (!known && nic_path(&m->links.links[i], &p) >= 0)
                        (void) sd_bus_emit_object_added(m->bus, p);
        }
        for (size_t j = 0; j < n_before; j++) {
                _cleanup_free_ char *p = NULL;

                if (!link_set_find_slot(&m->links, before[j]) && sd_bus_path_encode(BUS_NIC_PREFIX, before[j], &p) >= 0)
                        (void) sd_bus_emit_object_removed(m->bus, p);
        }
        manager_bus_changed(m, "Nics");
}

void manager_bus_done(Manager *m) {
        while (m->n_holders > 0)
                holder_drop(m, m->n_holders - 1);
        free(m->holders);
        m->holders = NULL;
}
