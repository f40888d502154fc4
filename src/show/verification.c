/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"
#include "show/report.h"
#include "show/verification.h"

int verification_add(Verification *vd, const char *slot, const char *ifname, const char *knob, const char *planned, const char *found,
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

int verification_add_nic(Verification *vd, const char *slot, const char *ifname, const char *state) {
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

int verification_add_plan(Verification *vd, const NicPlan *p, const bool *yielded) {
        if (verification_add_nic(vd, p->nic->slot, nic_ifname(p->nic), NULL) < 0)
                return -ENOMEM;
        for (size_t k = 0; k < p->n; k++) {
                const PlanItem *it = &p->items[k];
                char want[KNOB_VALUE_MAX], found[128], now[64], src[160];

                if ((it->action != PLAN_CHANGE && it->action != PLAN_HELD) || (yielded && yielded[it->knob]))
                        continue;
                snprintf(found, sizeof(found), "%s", report_reading_text(it->knob, &it->current, now, sizeof(now)));
                /* Not as planned, and why: no write would change it (plan.c, aspm_policy_holds_off()). */
                if (it->action == PLAN_HELD)
                        snprintf(found + strlen(found), sizeof(found) - strlen(found),
                                 " (held off by the global ASPM policy %s)", p->aspm_policy);
                if (verification_add(vd, p->nic->slot, nic_ifname(p->nic), knob_get(it->knob)->name,
                                     knob_format_value(it->knob, it->desired, want, sizeof(want)), found,
                                     plan_item_source(it, src, sizeof(src))) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* A NIC the service gave back (restore) and leaves alone until apply. */
static bool given_back(const Checked *c) { return streq(c->state, "released"); }

size_t verification_given_back(const Verification *vd) {
        size_t n = 0;

        for (size_t i = 0; i < vd->n_nics; i++)
                n += given_back(&vd->nics[i]);
        return n;
}

/* Whether every knob of this NIC is as planned and the service has not given it back. */
static bool verification_nic_ok(const Verification *vd, const Checked *c) {
        for (size_t i = 0; i < vd->n; i++)
                if (streq(vd->v[i].slot, c->slot))
                        return false;
        return !given_back(c);
}

void verification_done(Verification *vd) {
        free(vd->nics);
        free(vd->v);
        diag_done(&vd->problems);
}

/* A NIC given back is not as planned: nothing says so on it, and a check must not pass it (ux-findings H5). */
bool verification_ok(const Verification *vd) { return vd->n == 0 && verification_given_back(vd) == 0 && vd->problems.n == 0; }

/* A value typed as plan types it (on/off a boolean, else a number), whether this process read it
 * or the service said it as text; null when there is none (partial, not-present, ...). */
static void verify_value_json(JsonWriter *w, const char *key, const char *knob, const char *text) {
        KnobId k = knob_from_name(knob);
        uint64_t v = 0;
        bool known = k >= 0 && knob_parse_value(k, text, &v) >= 0;

        json_kv_knob_or_null(w, key, known, k, v);
}

/* The differences, NICs given back and problems, then the verdict: text and JSON in one walk. */
void verification_print(const Verification *vd, bool json) {
        size_t released = verification_given_back(vd);
        Out out, *o = &out;
        JsonWriter *w;

        out_document_begin(o, stdout, json);
        w = out_json(o);
        out_json_bool(o, "ok", verification_ok(vd));
        out_json_str(o, "profile", vd->profile);
        out_array_begin(o, "nics");
        for (size_t i = 0; i < vd->n_nics; i++) {
                out_object_begin(o, NULL);
                out_json_str(o, "slot", vd->nics[i].slot);
                out_json_str(o, "interface", vd->nics[i].ifname[0] ? vd->nics[i].ifname : NULL);
                out_json_str(o, "service_state", vd->nics[i].state[0] ? vd->nics[i].state : NULL);
                out_json_bool(o, "ok", verification_nic_ok(vd, &vd->nics[i]));
                out_object_end(o);
        }
        out_array_end(o);
        out_array_begin(o, "differences");
        for (size_t i = 0; i < vd->n; i++) {
                const Difference *d = &vd->v[i];

                out_object_begin(o, NULL);
                out_json_str(o, "slot", d->slot);
                out_json_str(o, "interface", d->ifname[0] ? d->ifname : NULL);
                out_json_str(o, "knob", d->knob);
                if (w) {
                        verify_value_json(w, "planned", d->knob, d->planned);
                        verify_value_json(w, "found", d->knob, d->found);
                }
                out_json_str(o, "found_text", d->found);
                out_json_str(o, "source", d->source);
                out_object_end(o);
                out_text(o, "%s (%s) %s: planned %s, found %s (%s)\n", d->ifname[0] ? d->ifname : "-", d->slot, d->knob,
                         d->planned, d->found, d->source);
        }
        out_array_end(o);
        out_array_begin(o, "given_back");
        for (size_t i = 0; i < vd->n_nics; i++) {
                if (!given_back(&vd->nics[i]))
                        continue;
                out_object_begin(o, NULL);
                out_json_str(o, "slot", vd->nics[i].slot);
                out_json_str(o, "interface", vd->nics[i].ifname[0] ? vd->nics[i].ifname : NULL);
                out_object_end(o);
                out_text(o, "%s (%s): given back by \"restore\"; the service leaves it alone until \"r8169-tuned apply\".\n",
                         vd->nics[i].ifname[0] ? vd->nics[i].ifname : "-", vd->nics[i].slot);
        }
        out_array_end(o);
        report_config_problems(o, &vd->problems);
        for (size_t i = 0; i < vd->problems.n; i++)
                out_text(o, "%s\n", vd->problems.msgs[i]);
        if (verification_ok(vd) && vd->n_nics == 0)
                out_text(o, "OK: no Realtek NIC here; nothing to verify.\n");
        else if (verification_ok(vd))
                out_text(o, "OK: every knob of %zu NIC%s is as planned (profile %s).\n", vd->n_nics, vd->n_nics == 1 ? "" : "s",
                         vd->profile);
        else if (released > 0)
                out_text(o, "%zu knob%s differ%s from the plan; %zu NIC%s given back; %zu problem%s in configuration or quirk files.\n",
                         vd->n, vd->n == 1 ? "" : "s", vd->n == 1 ? "s" : "", released, released == 1 ? "" : "s",
                         vd->problems.n, vd->problems.n == 1 ? "" : "s");
        else
                out_text(o, "%zu knob%s differ%s from the plan; %zu problem%s in configuration or quirk files.\n", vd->n,
                         vd->n == 1 ? "" : "s", vd->n == 1 ? "s" : "", vd->problems.n, vd->problems.n == 1 ? "" : "s");
        out_document_end(o);
}

void verification_parts(char *buf, size_t size, size_t differ, size_t given_back, size_t problems) {
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
