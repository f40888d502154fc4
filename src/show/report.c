/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <sys/ioctl.h>

#include "show/report.h"

const char *report_aspm_states(uint8_t bits) {
        static const char *const names[] = { "none", "L0s", "L1", "L0s L1" };
        return names[bits & 3];
}

const char *report_chip_line(const Nic *n, char *buf, size_t size) {
        char xid[24];

        nic_xid_string(n, xid, sizeof(xid));
        if (n->xid == CHIP_XID_INVALID)
                snprintf(buf, size, "chip not identified (%s)", n->xid_notes);
        else if (!n->chip && chip_xid_is_extended(n->xid) && n->xid2 == CHIP_XID2_INVALID)
                snprintf(buf, size, "unknown chip, XID %03x from %s: an extended chip whose id was not read (%s)", n->xid,
                         xid_source_to_string(n->xid_source), n->xid_notes);
        else if (n->xid_source == XID_SOURCE_CONFIG)
                snprintf(buf, size, "%s (%s assumed by %s)", n->chip ? n->chip->name : "unknown chip", xid, n->claim.origin);
        else if (!n->chip)
                snprintf(buf, size, "unknown chip, %s from %s", xid, xid_source_to_string(n->xid_source));
        else
                snprintf(buf, size, "%s (%s from %s)", n->chip->name, xid, xid_source_to_string(n->xid_source));
        return buf;
}

/* The terminal's width, as systemd's columns() finds it: $COLUMNS, the tty, else 80. */
static size_t text_columns(FILE *f) {
        const char *e = getenv("COLUMNS");
        struct winsize ws = {};
        uint64_t c;

        if (e && parse_u64(e, &c) >= 0 && c >= 40 && c <= 500)
                return (size_t) c;
        if (ioctl(fileno(f), TIOCGWINSZ, &ws) >= 0 && ws.ws_col >= 40)
                return ws.ws_col;
        return 80;
}

/* Prints text wrapped at word boundaries: first then indent before each line (the first word stays beside first). */
static void print_wrapped(FILE *f, const char *first, const char *indent, const char *text) {
        size_t width = text_columns(f), col = strlen(first);

        fputs(first, f);
        for (const char *p = text; *p;) {
                size_t n = strcspn(p, " ");
                if (p != text && col > strlen(indent) && col + 1 + n > width) {
                        fprintf(f, "\n%s", indent);
                        col = strlen(indent);
                } else if (col > strlen(indent) || (p != text && col > 0 && col != strlen(first))) {
                        fputc(' ', f);
                        col++;
                }
                fwrite(p, 1, n, f);
                col += n;
                p += n;
                p += strspn(p, " ");
        }
        fputc('\n', f);
}

void report_print_wrapped(FILE *f, const char *first, const char *indent, const char *text) {
        print_wrapped(f, first, indent, text);
}

void report_unknown_chip_advice(FILE *f, const Nic *n) {
        if (n->chip)
                return;
        if (!n->driver[0])
                print_wrapped(f, "  ", "  ",
                              "No driver is bound: this NIC does not work at all. The kernel's r8169 may be too old for "
                              "this chip: a newer kernel (Debian: its backports) is the first thing to try.");
        print_wrapped(f, "  ", "  ",
                      n->xid == CHIP_XID_INVALID
                              ? "r8169-tuned could not identify this chip: no quirk applies to it, only the knob lines of a "
                                "[device] section that names it; with assume-xid (r8169-tuned.conf(5)) in a section naming "
                                "its slot, it is treated as that chip. To have it known: \"r8169-tuned diagnose > "
                                "report.md\", and file that at " R8T_ISSUES_URL " (README: " R8T_DOC_DIR "/README.md.gz, "
                                "\"Reporting a new chip\")."
                              : "r8169's chip table does not know this XID: no quirk applies to it, only the knob lines of a "
                                "[device] section that names it; with assume-xid (r8169-tuned.conf(5)) in a section naming "
                                "its slot, it is treated as a chip the table knows. To have it known: \"r8169-tuned diagnose > "
                                "report.md\", and file that at " R8T_ISSUES_URL " (README: " R8T_DOC_DIR "/README.md.gz, "
                                "\"Reporting a new chip\").");
}

static const char *reading_cause(const KnobReading *r, char *buf, size_t size) {
        snprintf(buf, size, "%s", knob_status_to_string(r->status));
        if (r->message[0])
                snprintf(buf + strlen(buf), size - strlen(buf), ": %s", r->message);
        else if (r->error)
                snprintf(buf + strlen(buf), size - strlen(buf), ": %s", strerror(-r->error));
        return buf;
}

void report_link_power_text(FILE *f, const LinkPowerRecord *rec) {
        if (streq(rec->state, "stopped")) {
                fprintf(f, "  link power: dynamic, off for this link: %s\n", rec->reason);
                return;
        }
        fprintf(f, "  link power: dynamic, %s (L1 %s); L1 on %.0f s, off %.0f s, %u transitions", rec->state,
                streq(rec->state, "busy") ? "off" : "on", (double) rec->idle_usec / 1e6, (double) rec->busy_usec / 1e6,
                rec->transitions);
        if (rec->quiet_usec)
                fprintf(f, "; quiet time %.1f s", (double) rec->quiet_usec / 1e6);
        fprintf(f, "; %u wakeups (%u stray), %u mispredicted\n", rec->wakeups, rec->strays, rec->mispredictions);
}

static void plan_items_json(JsonWriter *w, const char *key, const PlanItem *items, size_t n, const char *because, const Nic *nic);

/* What the quirk database knows but does not apply here: suggestions, and entries a guard withholds. */
static void status_withheld_text(FILE *f, const NicStatus *s) {
        const NicPlan *p = s->plan;
        char line[768], cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], exp[512];

        for (size_t j = 0; p && j < p->n_suggested; j++) {
                const PlanItem *it = &p->suggested[j];
                snprintf(line, sizeof(line), "%s %s -> %s, quirk %s (reported, not applied)", knob_get(it->knob)->name,
                         report_reading_text(it->knob, &it->current, cur, sizeof(cur)),
                         knob_format_value(it->knob, it->desired, des, sizeof(des)), it->why.quirk->id);
                print_wrapped(f, "  suggested:", "    ", line);
                /* One line, never wrapped: it is there to be copied. */
                fprintf(f, "    measure it: %s\n",
                        quirk_experiment_line(it->why.quirk, nic_ifname(s->nic) ?: s->nic->slot, exp, sizeof(exp)));
        }
        for (size_t j = 0; p && j < p->n_guarded; j++) {
                const PlanItem *it = &p->guarded[j];
                if (it->why.kind != PROVENANCE_QUIRK || !it->why.quirk->guard_tx_timeout)
                        continue;
                snprintf(line, sizeof(line), "%s of quirk %s is not applied: a tx timeout on %s%s", knob_get(it->knob)->name,
                         it->why.quirk->id, p->entry_guard_remembered ? "this board, remembered from an earlier boot" : "this link",
                         p->entry_guard_remembered ? "; r8169-tuned restore forgets it" : "");
                print_wrapped(f, "  guarded:", "    ", line);
        }
}

/* What the plan says of a knob, beside its value (ux-findings M1): "  as planned, quirk X" or
 * "  planned 0, quirk X"; nothing for a knob the plan leaves alone. */
static void status_why_text(const NicPlan *p, KnobId k, char *buf, size_t size) {
        char des[KNOB_VALUE_MAX], why[300];

        for (size_t j = 0; p && !p->ignored && j < p->n; j++) {
                const PlanItem *it = &p->items[j];
                if (it->knob != k || (it->action != PLAN_CHANGE && it->action != PLAN_KEEP))
                        continue;
                plan_provenance_string(&it->why, why, sizeof(why));
                if (it->action == PLAN_KEEP)
                        snprintf(buf, size, "  as planned: %s", why);
                else
                        snprintf(buf, size, "  planned %s: %s", knob_format_value(k, it->desired, des, sizeof(des)), why);
                return;
        }
}

/* How the running service holds the NIC, in words a user can act on (never wrapped: the
 * commands in it are there to be copied). */
static void status_service_text(FILE *f, const NicStatus *s) {
        const char *name = nic_ifname(s->nic) ?: s->nic->slot;

        if (!s->service_state[0])
                return;
        if (streq(s->service_state, "released"))
                fprintf(f, "  service: given back by restore; \"r8169-tuned apply %s\" takes it back\n", name);
        else if (streq(s->service_state, "failed"))
                fprintf(f, "  service: a write failed at its last apply (\"journalctl -u r8169-tuned -b\" says which);\n"
                           "    \"r8169-tuned apply %s\" tries again\n", name);
        else if (streq(s->service_state, "waiting"))
                fprintf(f, "  service: waiting for its interface to appear\n");
        else
                fprintf(f, "  service: %s by r8169-tuned.service\n", s->service_state);
}

void report_status_text(FILE *f, const NicStatus *s, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const Nic *nic = s[i].nic;
                const PciLink *l = &nic->link;
                char chip[700];
                bool shown[_KNOB_MAX] = {};

                if (i > 0)
                        fputc('\n', f);
                fprintf(f, "%s  %s  %s\n", nic->slot, nic_ifname(nic) ?: "(no interface)",
                        report_chip_line(nic, chip, sizeof(chip)));
                fprintf(f, "  PCI %04x:%04x subsystem %04x:%04x rev %02x, driver %s", nic->vendor, nic->device,
                        nic->subsys_vendor, nic->subsys_device, nic->revision, nic->driver[0] ? nic->driver : "none");
                if (nic->perm_mac[0])
                        fprintf(f, ", MAC %s", nic->perm_mac);
                fputc('\n', f);
                if (l->truncated)
                        fputs("  link: config space past 64 bytes is not readable here (needs CAP_SYS_ADMIN); the link/ knobs "
                              "below are the kernel's own view\n", f);
                else if (l->pcie)
                        fprintf(f, "  link: ASPM %s supported, %s enabled; CLKPM %s%s%s\n", report_aspm_states(l->aspm_support),
                                report_aspm_states(l->aspm_control),
                                l->clkpm_capable ? "capable" : "not capable",
                                l->clkpm_enabled ? ", enabled" : "",
                                l->l1ss ? "; L1 substates capable" : "");
                report_unknown_chip_advice(f, nic);
                if (s[i].tx_guard)
                        fprintf(f, "  tx timeouts: %" PRIu64 "; tx-timeout guard: L1 stays off for this link until reboot\n",
                                s[i].tx_timeouts);
                else if (s[i].tx_timeouts_known)
                        fprintf(f, "  tx timeouts: %" PRIu64 "\n", s[i].tx_timeouts);
                if (s[i].link_power_known)
                        report_link_power_text(f, &s[i].link_power);
                status_service_text(f, &s[i]);
                fputs("  knobs:\n", f);
                for (int k = 0; k < _KNOB_MAX; k++) {
                        const KnobReading *r = &s[i].knobs[k];
                        char buf[KNOB_VALUE_MAX], mark[128] = "", why[400] = "";

                        if (r->status != KNOB_STATUS_OK)
                                continue;
                        report_ours_text(k, r, &s[i].ours[k], mark, sizeof(mark));
                        status_why_text(s[i].plan, k, why, sizeof(why));
                        fprintf(f, "    %-22s %s%s%s%s\n", knob_get(k)->name,
                                r->partial ? "partly on" : knob_format_value(k, r->value, buf, sizeof(buf)),
                                r->fixed ? " [fixed]" : "", mark, why);
                }
                /* What cannot be read: one line per cause, not one per knob, with the knob list (ux-findings L4). */
                for (int k = 0; k < _KNOB_MAX; k++) {
                        char cause[256], other[256], names[512] = "", first[300];

                        if (s[i].knobs[k].status == KNOB_STATUS_OK || shown[k])
                                continue;
                        reading_cause(&s[i].knobs[k], cause, sizeof(cause));
                        for (int j = k; j < _KNOB_MAX; j++) {
                                if (s[i].knobs[j].status == KNOB_STATUS_OK || shown[j] ||
                                    !streq(reading_cause(&s[i].knobs[j], other, sizeof(other)), cause))
                                        continue;
                                shown[j] = true;
                                snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", names[0] ? ", " : "",
                                         knob_get(j)->name);
                        }
                        snprintf(first, sizeof(first), "    %s:", cause);
                        print_wrapped(f, first, "      ", names);
                }
                status_withheld_text(f, &s[i]);
        }
}

/* A knob's value in its JSON type: a boolean for on/off knobs, a number otherwise. */
void report_knob_value_json(JsonWriter *w, KnobId k, uint64_t v) {
        if (knob_get(k)->type == KNOB_TYPE_BOOL)
                json_bool(w, v);
        else
                json_u64(w, v);
}

/* "ENODEV" for -ENODEV; NULL for 0. */
const char *report_errno_name(int error) {
        const char *s;

        if (error == 0)
                return NULL;
        s = strerrorname_np(error < 0 ? -error : error);
        return s ?: "unknown";
}

/* The one knob object of schema 1: the same keys always, null when unknown. */
void report_knob_reading_json(JsonWriter *w, KnobId k, const KnobReading *r) {
        json_object_begin(w);
        json_key(w, "value");
        if (r->status == KNOB_STATUS_OK && !r->partial)
                report_knob_value_json(w, k, r->value);
        else
                json_null(w);
        json_kv_str(w, "status", knob_status_to_string(r->status));
        json_kv_str(w, "errno", r->status != KNOB_STATUS_OK ? report_errno_name(r->error) : NULL);
        json_kv_str(w, "message",
                    r->status == KNOB_STATUS_OK ? NULL : r->message[0] ? r->message : r->error ? strerror(-r->error) : NULL);
        json_kv_bool(w, "partial", r->status == KNOB_STATUS_OK && r->partial);
        json_kv_bool(w, "fixed", r->status == KNOB_STATUS_OK && r->fixed);
        json_object_end(w);
}

/* "L0s L1" as ["L0s","L1"]. */
static void aspm_states_json(JsonWriter *w, const char *key, uint8_t bits) {
        json_key(w, key);
        json_array_begin(w);
        if (bits & 1)
                json_str(w, "L0s");
        if (bits & 2)
                json_str(w, "L1");
        json_array_end(w);
}

static void _printf_(3, 4) hex_kv(JsonWriter *w, const char *key, const char *fmt, ...) {
        char buf[32];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        json_kv_str(w, key, buf);
}

void report_nic_json_members(JsonWriter *w, const Nic *n) {
        json_kv_str(w, "slot", n->slot);
        json_kv_str(w, "upstream", n->upstream[0] ? n->upstream : NULL);
        json_kv_str(w, "interface", nic_ifname(n));
        json_key(w, "interfaces");
        json_array_begin(w);
        for (size_t i = 0; i < n->n_ifnames; i++)
                json_str(w, n->ifnames[i]);
        json_array_end(w);
        json_kv_str(w, "driver", n->driver[0] ? n->driver : NULL);
        hex_kv(w, "vendor", "%04x", n->vendor);
        hex_kv(w, "device", "%04x", n->device);
        hex_kv(w, "subsystem", "%04x:%04x", n->subsys_vendor, n->subsys_device);
        hex_kv(w, "revision", "%02x", n->revision);
        json_kv_str(w, "permanent_mac", n->perm_mac[0] ? n->perm_mac : NULL);
        json_kv_str(w, "chip", n->chip ? n->chip->name : NULL);
        if (n->xid != CHIP_XID_INVALID)
                hex_kv(w, "xid", "%03x", n->xid);
        else
                json_kv_null(w, "xid");
        if (n->xid2 != CHIP_XID2_INVALID)
                hex_kv(w, "xid_extended", "%x", n->xid2);
        else
                json_kv_null(w, "xid_extended");
        json_kv_str(w, "xid_source", n->xid_source != XID_SOURCE_NONE ? xid_source_to_string(n->xid_source) : NULL);
        json_kv_str(w, "xid_notes", n->xid_notes[0] ? n->xid_notes : NULL);
        report_link_json(w, "link", &n->link);
}

void report_link_json(JsonWriter *w, const char *key, const PciLink *l) {
        json_key(w, key);
        json_object_begin(w);
        json_kv_bool(w, "config_space_truncated", l->truncated);
        json_kv_bool(w, "pcie", l->pcie);
        aspm_states_json(w, "aspm_support", l->aspm_support);
        aspm_states_json(w, "aspm_enabled", l->aspm_control);
        json_kv_bool(w, "clkpm_capable", l->clkpm_capable);
        json_kv_bool(w, "clkpm_enabled", l->clkpm_enabled);
        json_kv_bool(w, "l1ss", l->l1ss);
        hex_kv(w, "l1ss_cap", "0x%08x", l->l1ss_cap);
        hex_kv(w, "l1ss_ctl1", "0x%08x", l->l1ss_ctl1);
        json_object_end(w);
}

void report_link_power_json(JsonWriter *w, const LinkPowerRecord *rec) {
        if (!rec) {
                json_null(w);
                return;
        }
        json_object_begin(w);
        json_kv_str(w, "state", rec->state);
        json_kv_str(w, "reason", rec->reason[0] ? rec->reason : NULL);
        json_kv_u64(w, "transitions", rec->transitions);
        json_key(w, "l1_on_seconds");
        json_decimal(w, (double) rec->idle_usec / 1e6, 3);
        json_key(w, "l1_off_seconds");
        json_decimal(w, (double) rec->busy_usec / 1e6, 3);
        json_key(w, "quiet_seconds");
        if (rec->quiet_usec)
                json_decimal(w, (double) rec->quiet_usec / 1e6, 3);
        else
                json_null(w);
        json_kv_u64(w, "wakeups", rec->wakeups);
        json_kv_u64(w, "stray_wakeups", rec->strays);
        json_kv_u64(w, "mispredictions", rec->mispredictions);
        json_object_end(w);
}

void report_knobs_json(JsonWriter *w, const KnobReading knobs[_KNOB_MAX]) {
        json_key(w, "knobs");
        json_object_begin(w);
        for (int k = 0; k < _KNOB_MAX; k++) {
                json_key(w, knob_get(k)->name);
                report_knob_reading_json(w, k, &knobs[k]);
        }
        json_object_end(w);
}

void report_config_problems_json(JsonWriter *w, const Diagnostics *d) {
        json_key(w, "config_problems");
        json_array_begin(w);
        for (size_t i = 0; i < d->n; i++) {
                json_object_begin(w);
                json_kv_str(w, "file", d->files[i]);
                json_kv_u64(w, "line", d->lines[i]);
                json_kv_str(w, "message", diag_text(d, i));
                json_object_end(w);
        }
        json_array_end(w);
}

void report_config_problems_text(FILE *f, const Diagnostics *d) {
        if (d->n == 0)
                return;
        fprintf(f, "\nConfiguration: %zu problem%s; the files named are left out, everything else is in force:\n", d->n,
                d->n == 1 ? "" : "s");
        for (size_t i = 0; i < d->n; i++)
                fprintf(f, "  %s\n", d->msgs[i]);
}

/* Whether what r8169-tuned set is what the NIC holds now. */
static bool ours_holds(const KnobReading *r, const KnobOurs *o) {
        return !o->set_mixed && !r->partial && r->value == o->set;
}

void report_ours_text(KnobId k, const KnobReading *r, const KnobOurs *o, char *buf, size_t size) {
        char wasbuf[KNOB_VALUE_MAX], set[KNOB_VALUE_MAX];
        const char *was;

        buf[0] = 0;
        if (!o->ours)
                return;
        was = o->original_mixed ? "partly on" : knob_format_value(k, o->original, wasbuf, sizeof(wasbuf));
        if (ours_holds(r, o))
                snprintf(buf, size, "  (by r8169-tuned; was %s)", was);
        else if (o->set_mixed)
                snprintf(buf, size, "  (r8169-tuned changed it, was %s; changed since)", was);
        else
                snprintf(buf, size, "  (r8169-tuned set %s, was %s; changed since)", knob_format_value(k, o->set, set, sizeof(set)), was);
}

/* "changed_by_r8169_tuned": { knob: { original, set, holds } } from the undo journal. */
static void report_ours_json(JsonWriter *w, const NicStatus *s) {
        json_key(w, "changed_by_r8169_tuned");
        json_object_begin(w);
        for (int k = 0; k < _KNOB_MAX; k++) {
                const KnobOurs *o = &s->ours[k];

                if (!o->ours)
                        continue;
                json_key(w, knob_get(k)->name);
                json_object_begin(w);
                json_key(w, "original");
                if (o->original_mixed)
                        json_null(w);
                else
                        report_knob_value_json(w, k, o->original);
                json_key(w, "set");
                if (o->set_mixed)
                        json_null(w);
                else
                        report_knob_value_json(w, k, o->set);
                json_kv_bool(w, "holds", s->knobs[k].status == KNOB_STATUS_OK && ours_holds(&s->knobs[k], o));
                json_object_end(w);
        }
        json_object_end(w);
}

void report_status_json(FILE *f, const NicStatus *s, size_t n, const Diagnostics *problems, const char *profile, bool service) {
        JsonWriter w = json_writer(f);

        json_object_begin(&w);
        json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
        json_kv_str(&w, "profile", profile);
        json_kv_bool(&w, "service", service);
        json_key(&w, "nics");
        json_array_begin(&w);
        for (size_t i = 0; i < n; i++) {
                json_object_begin(&w);
                report_nic_json_members(&w, s[i].nic);
                json_key(&w, "tx_timeouts");
                if (s[i].tx_timeouts_known)
                        json_u64(&w, s[i].tx_timeouts);
                else
                        json_null(&w);
                json_kv_bool(&w, "tx_timeout_guard", s[i].tx_guard);
                json_key(&w, "link_power");
                report_link_power_json(&w, s[i].link_power_known ? &s[i].link_power : NULL);
                report_knobs_json(&w, s[i].knobs);
                report_ours_json(&w, &s[i]);
                json_kv_bool(&w, "guard_remembered", s[i].plan && s[i].plan->entry_guard_remembered);
                plan_items_json(&w, "suggested", s[i].plan ? s[i].plan->suggested : NULL, s[i].plan ? s[i].plan->n_suggested : 0,
                                "reported: a suggestion, applied only with suggestions = apply", s[i].nic);
                json_kv_str(&w, "service_state", s[i].service_state[0] ? s[i].service_state : NULL);
                json_object_end(&w);
        }
        json_array_end(&w);
        report_config_problems_json(&w, problems);
        json_object_end(&w);
        json_end(&w);
}

/* Where a value comes from, as the same members always: source, quirk, its grounds, reference, file, line. */
static void provenance_json(JsonWriter *w, const Provenance *p) {
        const Quirk *q = p->kind == PROVENANCE_QUIRK ? p->quirk : NULL;
        bool cfg = p->kind == PROVENANCE_CONFIG;

        json_kv_str(w, "source", provenance_kind_to_string(p->kind));
        json_kv_str(w, "quirk", q ? q->id : NULL);
        json_kv_str(w, "confidence", q ? confidence_to_string(q->confidence) : NULL);
        json_kv_str(w, "reported_because", q ? doubt_to_string(q->reported_because) : NULL);
        json_kv_str(w, "guard", q && q->guard_tx_timeout ? "tx-timeout" : NULL);
        json_kv_str(w, "reason", q ? q->reason : NULL);
        json_kv_str(w, "evidence", q ? q->evidence : NULL);
        json_kv_str(w, "counter_evidence", q ? q->counter_evidence : NULL);
        json_key(w, "reference");
        if (q)
                json_words(w, q->reference);
        else
                json_null(w);
        json_kv_str(w, "file", cfg ? p->origin.file : NULL);
        json_key(w, "line");
        if (cfg)
                json_u64(w, p->origin.line);
        else
                json_null(w);
}

const char *report_reading_text(KnobId k, const KnobReading *r, char *buf, size_t size) {
        if (r->status != KNOB_STATUS_OK)
                return knob_status_to_string(r->status);
        if (r->partial)
                return "partial";
        return knob_format_value(k, r->value, buf, size);
}

static void plan_item_json(JsonWriter *w, const PlanItem *it, const char *because, const Nic *nic) {
        char line[512];

        json_object_begin(w);
        json_kv_str(w, "knob", knob_get(it->knob)->name);
        json_kv_str(w, "action", plan_action_to_string(it->action));
        json_key(w, "current");
        report_knob_reading_json(w, it->knob, &it->current);
        json_kv_str(w, "because", because);
        json_key(w, "desired");
        if (it->action == PLAN_EXCLUDED)
                json_null(w);
        else
                report_knob_value_json(w, it->knob, it->desired);
        provenance_json(w, &it->why);
        /* The kernel already does what the quirk asks, since this version: null when not. */
        json_key(w, "kernel_default_since");
        if (it->kernel_default) {
                char since[24];
                json_str(w, kernel_version_to_string(&it->why.quirk->kernel_default_since, since, sizeof(since)));
        } else
                json_null(w);
        json_key(w, "overrides");
        if (it->overrides) {
                json_object_begin(w);
                provenance_json(w, &it->overridden);
                json_key(w, "value");
                if (it->overridden.quirk && it->overridden.quirk->set[it->knob])
                        report_knob_value_json(w, it->knob, it->overridden_value);
                else
                        json_null(w);
                json_object_end(w);
        } else
                json_null(w);
        json_kv_str(w, "experiment", it->action == PLAN_SUGGEST && it->why.quirk
                                             ? quirk_experiment_line(it->why.quirk, nic_ifname(nic) ?: nic->slot, line, sizeof(line))
                                             : NULL);
        json_object_end(w);
}

/* null, or what link-power = dynamic asked for this NIC and whether it runs here. */
void report_plan_link_power_json(JsonWriter *w, const NicPlan *p) {
        if (!p->link_power_asked) {
                json_null(w);
                return;
        }
        json_object_begin(w);
        json_kv_str(w, "mode", "dynamic");
        json_kv_str(w, "file", p->link_power_origin.file);
        json_key(w, "line");
        if (p->link_power_origin.file)
                json_u64(w, p->link_power_origin.line);
        else
                json_null(w);
        json_kv_u64(w, "busy_packets_per_second", p->link_power_busy_pps);
        json_key(w, "quiet_seconds");
        if (p->link_power_quiet_s)
                json_u64(w, p->link_power_quiet_s);
        else
                json_null(w);
        json_kv_bool(w, "runs", !p->link_power_blocked);
        json_kv_str(w, "blocked", p->link_power_blocked);
        json_kv_str(w, "quirk", p->link_power_quirk ? p->link_power_quirk->id : NULL);
        json_object_end(w);
}

/* The same in words: where it runs, what it does; where it cannot, why (and the quirk's reason). */
static void plan_link_power_text(FILE *f, const NicPlan *p) {
        char line[1024], where[300] = "";

        if (!p->link_power_asked)
                return;
        if (p->link_power_origin.file)
                snprintf(where, sizeof(where), " (%s:%u)", p->link_power_origin.file, p->link_power_origin.line);
        if (!p->link_power_blocked && p->link_power_quiet_s)
                snprintf(line, sizeof(line),
                         "dynamic%s: the daemon turns L1 and L1.1 off when the link carries more than %" PRIu64
                         " packets/s and on again after %" PRIu64 " s below that",
                         where, p->link_power_busy_pps, p->link_power_quiet_s);
        else if (!p->link_power_blocked)
                snprintf(line, sizeof(line),
                         "dynamic%s: the daemon turns L1 and L1.1 off when the link carries more than %" PRIu64
                         " packets/s and on again after a quiet time it learns from the traffic (from 0.5 s)",
                         where, p->link_power_busy_pps);
        else
                snprintf(line, sizeof(line), "dynamic asked%s, but not for this link: %s%s%s%s", where, p->link_power_blocked,
                         p->link_power_quirk ? " (quirk " : "", p->link_power_quirk ? p->link_power_quirk->id : "",
                         p->link_power_quirk ? ")" : "");
        print_wrapped(f, "  link power:", "    ", line);
        if (p->link_power_blocked && p->link_power_quirk) {
                print_wrapped(f, "    reason:", "      ", p->link_power_quirk->reason);
                print_wrapped(f, "    see:", "      ", p->link_power_quirk->reference);
                fputs("    a [device] section naming this NIC with link-power = dynamic overrides the quirk\n", f);
        }
}

static const char *held_back_because(const PlanReport *r, char *buf, size_t size) {
        if (r->configured == PROFILE_BALANCED || r->configured == PROFILE_AUTO)
                snprintf(buf, size, "performance profile only; on battery, balanced uses powersave");
        else
                snprintf(buf, size, "performance profile only; profile %s", profile_to_string(r->configured));
        return buf;
}

static void ignored_by_json(JsonWriter *w, const NicPlan *p) {
        json_kv_bool(w, "ignored", p->ignored);
        json_key(w, "ignored_by");
        if (!p->ignored) {
                json_null(w);
                return;
        }
        json_object_begin(w);
        json_kv_str(w, "file", p->ignored_by.file);
        json_kv_u64(w, "line", p->ignored_by.line);
        json_object_end(w);
}

static void plan_items_json(JsonWriter *w, const char *key, const PlanItem *items, size_t n, const char *because, const Nic *nic) {
        json_key(w, key);
        json_array_begin(w);
        for (size_t j = 0; j < n; j++)
                plan_item_json(w, &items[j], because, nic);
        json_array_end(w);
}

/* Entries of the profile that would apply, but were written for another driver. */
static void other_driver_json(JsonWriter *w, const NicPlan *p) {
        json_key(w, "other_driver");
        json_array_begin(w);
        for (size_t j = 0; j < p->n_other_driver; j++) {
                const Quirk *q = p->other_driver[j];
                json_object_begin(w);
                json_kv_str(w, "quirk", q->id);
                json_key(w, "drivers");
                json_array_begin(w);
                for (size_t k = 0; k < q->match.n_drivers; k++)
                        json_str(w, q->match.drivers[k]);
                json_array_end(w);
                json_kv_str(w, "reason", q->reason);
                json_object_end(w);
        }
        json_array_end(w);
}

void report_plan_json(FILE *f, const PlanReport *r) {
        JsonWriter w = json_writer(f);
        char hb[128];

        json_object_begin(&w);
        json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
        json_kv_str(&w, "profile", profile_to_string(r->profile));
        json_kv_str(&w, "configured_profile", profile_to_string(r->from_config));
        json_kv_str(&w, "profile_override", r->override);
        json_kv_str(&w, "power_source", power_source_to_string(r->power));
        json_kv_u64(&w, "quirk_files", r->quirk_files);
        report_config_problems_json(&w, r->problems ?: &(const Diagnostics) {});
        json_key(&w, "nics");
        json_array_begin(&w);
        for (size_t i = 0; i < r->n; i++) {
                const NicPlan *p = &r->plans[i];
                json_object_begin(&w);
                report_nic_json_members(&w, p->nic);
                ignored_by_json(&w, p);
                plan_items_json(&w, "items", p->items, p->n, NULL, p->nic);
                /* What the profile holds back, with why: not in items, which is what apply does. */
                plan_items_json(&w, "held_back", p->held, p->n_held, held_back_because(r, hb, sizeof(hb)), p->nic);
                plan_items_json(&w, "suggested", p->suggested, p->n_suggested,
                                "reported: a suggestion, applied only with suggestions = apply", p->nic);
                json_key(&w, "suggestions");
                json_object_begin(&w);
                json_kv_bool(&w, "apply", p->suggestions_apply);
                json_kv_str(&w, "file", p->suggestions_origin.file);
                json_key(&w, "line");
                if (p->suggestions_origin.file)
                        json_u64(&w, p->suggestions_origin.line);
                else
                        json_null(&w);
                json_object_end(&w);
                json_kv_u64(&w, "tx_timeouts", p->tx_timeouts);
                json_kv_bool(&w, "tx_timeout_guard", p->tx_guard);
                json_kv_bool(&w, "guard_remembered", p->entry_guard_remembered);
                plan_items_json(&w, "guarded", p->guarded, p->n_guarded, "tx-timeout guard: this link timed out", p->nic);
                json_key(&w, "link_power");
                report_plan_link_power_json(&w, p);
                other_driver_json(&w, p);
                json_object_end(&w);
        }
        json_array_end(&w);
        json_object_end(&w);
        json_end(&w);
}

/* One planned knob: action, knob, values, where it comes from. */
static void plan_item_text(FILE *f, const PlanItem *it) {
        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], prov[512];
        const char *c = report_reading_text(it->knob, &it->current, cur, sizeof(cur));

        fprintf(f, "  %-9s %-21s ", plan_action_to_string(it->action), knob_get(it->knob)->name);
        if (it->action == PLAN_EXCLUDED)
                fprintf(f, "%-16s", "not touched");
        else if (it->action == PLAN_SKIP)
                fprintf(f, "%-16s", knob_status_to_string(it->current.status));
        else if (it->action == PLAN_CHANGE) {
                char both[64];
                snprintf(both, sizeof(both), "%s -> %s", c, knob_format_value(it->knob, it->desired, des, sizeof(des)));
                fprintf(f, "%-16s", both);
        } else
                fprintf(f, "%-16s", c);
        fprintf(f, " %s", plan_provenance_string(&it->why, prov, sizeof(prov)));
        if (it->overrides)
                fprintf(f, " (overrides %s)", plan_provenance_string(&it->overridden, prov, sizeof(prov)));
        if (it->kernel_default) {
                char since[24];
                fprintf(f, " (the kernel already does this since %s)",
                        kernel_version_to_string(&it->why.quirk->kernel_default_since, since, sizeof(since)));
        }
        fputc('\n', f);
}

static void plan_held_text(FILE *f, const PlanReport *r, const PlanItem *it) {
        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], both[64], hb[128], prov[512];

        snprintf(both, sizeof(both), "%s -> %s", report_reading_text(it->knob, &it->current, cur, sizeof(cur)),
                 knob_format_value(it->knob, it->desired, des, sizeof(des)));
        fprintf(f, "  %-9s %-21s %-16s %s (%s)\n", "held back", knob_get(it->knob)->name, both,
                plan_provenance_string(&it->why, prov, sizeof(prov)), held_back_because(r, hb, sizeof(hb)));
}

/* A suggestion, with the line that measures it here. */
static void plan_suggested_text(FILE *f, const NicPlan *p, const PlanItem *it) {
        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], both[64], prov[512];

        snprintf(both, sizeof(both), "%s -> %s", report_reading_text(it->knob, &it->current, cur, sizeof(cur)),
                 knob_format_value(it->knob, it->desired, des, sizeof(des)));
        fprintf(f, "  %-9s %-21s %-16s %s\n", "suggest", knob_get(it->knob)->name, both,
                plan_provenance_string(&it->why, prov, sizeof(prov)));
}

/* A quirk behind a planned, kept, held-back or suggested value: not one skipped or excluded. */
static const Quirk *plan_item_quirk(const NicPlan *p, size_t j) {
        const PlanItem *it = j < p->n            ? &p->items[j]
                             : j < p->n + p->n_held ? &p->held[j - p->n]
                                                    : &p->suggested[j - p->n - p->n_held];

        if (it->why.kind != PROVENANCE_QUIRK || it->action == PLAN_EXCLUDED || it->action == PLAN_SKIP)
                return NULL;
        return it->why.quirk;
}

/* How many of the plan's items come from a quirk. */
static size_t plan_item_quirks(const NicPlan *p) {
        size_t n = 0;

        for (size_t j = 0; j < p->n + p->n_held + p->n_suggested; j++)
                n += plan_item_quirk(p, j) != NULL;
        return n;
}

/* Each quirk behind a planned value, once: its reason, evidence, counter-evidence and sources. */
static void plan_grounds_text(FILE *f, const NicPlan *p) {
        for (size_t j = 0; j < p->n + p->n_held + p->n_suggested; j++) {
                const Quirk *q = plan_item_quirk(p, j);
                bool said = false;
                char first[160];

                for (size_t k = 0; q && k < j && !said; k++)
                        said = plan_item_quirk(p, k) == q;
                if (!q || said)
                        continue;
                snprintf(first, sizeof(first), "  why %s:", q->id);
                report_quirk_grounds_text(f, q, first);
        }
}

/* What keeps fixes off this link: the tx-timeout guard, and quirks written for another driver. */
static void plan_guards_text(FILE *f, const NicPlan *p) {
        char prov[512];

        if (p->tx_guard) {
                char line[256];
                snprintf(line, sizeof(line), "this link had %" PRIu64 " tx timeout%s (or one was recorded this boot): "
                         "L1 stays off until reboot, whatever the profile asks", p->tx_timeouts, p->tx_timeouts == 1 ? "" : "s");
                print_wrapped(f, "  tx-timeout guard:", "    ", line);
        }
        if (p->entry_guard && !p->tx_guard)
                print_wrapped(f, "  tx-timeout guard:", "    ",
                              "a tx timeout on this board, slot and chip is remembered from an earlier boot: entries with "
                              "guard = tx-timeout stay withheld until r8169-tuned restore forgets it");
        for (size_t j = 0; j < p->n_guarded; j++) {
                const PlanItem *g = &p->guarded[j];
                bool entry = g->why.kind == PROVENANCE_QUIRK && g->why.quirk->guard_tx_timeout;
                fprintf(f, "  %-9s %-21s %-16s %s (%s)\n", "guarded", knob_get(g->knob)->name, entry ? "not applied" : "stays off",
                        plan_provenance_string(&g->why, prov, sizeof(prov)),
                        entry ? "guard = tx-timeout: taken back after a tx timeout" : "not turned on: tx-timeout guard");
        }
        plan_link_power_text(f, p);
        for (size_t j = 0; j < p->n_other_driver; j++) {
                char drivers[128], line[512];
                snprintf(line, sizeof(line), "quirk %s is written for %s; with %s bound it is not applied", p->other_driver[j]->id,
                         match_drivers_string(&p->other_driver[j]->match, drivers, sizeof(drivers)),
                         p->nic->driver[0] ? p->nic->driver : "no driver");
                print_wrapped(f, "  not applied:", "    ", line);
        }
        /* Realtek's own drivers (r8168, r8125, r8126) have r8169 as the alternative; another vendor's NIC,
         * treated as a Realtek chip by assume-xid, has only its [device] section (ux-findings L1). */
        if (p->n_other_driver > 0 && p->nic->driver[0])
                print_wrapped(f, "    next:", "      ",
                              streq(p->nic->driver, "r8169") ? "see r8169-tuned.conf(5) for a [device] section that sets the knobs"
                              : strncmp(p->nic->driver, "r81", 3) == 0
                                      ? "with the kernel's r8169 driver bound instead (on Debian: apt remove r8168-dkms, then reboot) "
                                        "these fixes apply; to tune this driver, set knobs in a [device] section with match-driver "
                                        "naming it (r8169-tuned.conf(5))"
                                      : "the quirk entries are written for r8169, which does not drive this NIC: the knob lines of "
                                        "the [device] section naming it apply (r8169-tuned.conf(5))");
}

/* How to measure each suggested entry here, and how to accept them: once per entry. */
static void plan_suggestions_hint(FILE *f, const NicPlan *p) {
        char line[512];

        for (size_t j = 0; j < p->n_suggested; j++) {
                const Quirk *q = p->suggested[j].why.quirk;
                bool said = false;
                for (size_t k = 0; k < j && !said; k++)
                        said = p->suggested[k].why.quirk == q;
                if (said)
                        continue;
                fprintf(f, "  suggested by %s (%s): measure it on this machine with\n    %s\n", q->id,
                        doubt_label(q->reported_because),
                        quirk_experiment_line(q, nic_ifname(p->nic) ?: p->nic->slot, line, sizeof(line)));
        }
        if (p->n_suggested > 0)
                fputs("    to apply them: suggestions = apply in [global] or in a [device] section\n"
                      "    naming this NIC, or the knob in a [device] section (r8169-tuned.conf(5))\n", f);
}

/*
 * Nothing planned for a chip the database knows (issue 45 M6): which entries are for it and why
 * each asks for nothing here, so that "nothing known" is said only where nothing is. Returns
 * how many were said.
 */
static size_t plan_entries_idle_text(FILE *f, const PlanReport *r, const NicPlan *p) {
        size_t said = 0;

        if (!r->quirks || !r->machine)
                return 0;
        for (size_t i = 0; i < r->quirks->n; i++) {
                const Quirk *q = &r->quirks->quirks[i];
                NicMatch any_kernel = q->match;
                char since[24], range[64];

                any_kernel.n_kernels = 0;
                if (p->nic->xid == CHIP_XID_INVALID || !match_test(&any_kernel, p->nic, r->machine))
                        continue;
                fprintf(f, "%s    %s: ", said++ == 0 ? "  nothing to change; the entries for this chip ask for nothing here:\n" : "",
                        q->id);
                if (!quirk_matches(q, p->nic, r->machine)) {
                        /* A kernel-tier entry's ranges end where r8169 took it over (quirks(5)). */
                        const KernelVersion *took_over = q->kernel_default_since.known ? &q->kernel_default_since
                                                         : q->confidence == CONFIDENCE_KERNEL && q->match.n_kernels == 1 &&
                                                                           q->match.kernels[0].to.known
                                                                   ? &q->match.kernels[0].to : NULL;
                        if (took_over && r->kernel && kernel_version_compare(r->kernel, took_over) >= 0)
                                fprintf(f, "the kernel does it itself since %s\n",
                                        kernel_version_to_string(took_over, since, sizeof(since)));
                        else if (q->match.n_kernels > 0) {
                                fprintf(f, "only for kernel%s", q->match.n_kernels > 1 ? "s" : "");
                                for (size_t k = 0; k < q->match.n_kernels; k++)
                                        fprintf(f, "%s %s", k ? "," : "", kernel_range_to_string(&q->match.kernels[k], range, sizeof(range)));
                                fputc('\n', f);
                        } else
                                fputs("not for this kernel\n", f);
                } else if (!q->profiles[r->profile == PROFILE_POWERSAVE ? PROFILE_POWERSAVE : PROFILE_PERFORMANCE])
                        fprintf(f, "for another profile than %s\n", profile_to_string(r->profile));
                else
                        fputs("already so\n", f);
        }
        return said;
}

static void plan_nic_text(FILE *f, const PlanReport *r, const NicPlan *p) {
        char chip[700];
        size_t changes = 0;

        fprintf(f, "\n%s  %s  %s, driver %s\n", p->nic->slot, nic_ifname(p->nic) ?: "(no interface)",
                report_chip_line(p->nic, chip, sizeof(chip)), p->nic->driver[0] ? p->nic->driver : "none");
        if (p->ignored) {
                fprintf(f, "  ignored (%s:%u)\n", p->ignored_by.file, p->ignored_by.line);
                return;
        }
        for (size_t j = 0; j < p->n; j++) {
                changes += p->items[j].action == PLAN_CHANGE;
                plan_item_text(f, &p->items[j]);
        }
        for (size_t j = 0; j < p->n_held; j++)
                plan_held_text(f, r, &p->held[j]);
        for (size_t j = 0; j < p->n_suggested; j++)
                plan_suggested_text(f, p, &p->suggested[j]);
        if (r->verbose)
                plan_grounds_text(f, p);
        plan_guards_text(f, p);
        if (!p->nic->chip)
                report_unknown_chip_advice(f, p->nic);
        else if (p->n == 0 && p->n_held == 0 && p->n_suggested == 0 && p->n_guarded == 0 && p->n_other_driver == 0) {
                if (r->no_quirks)
                        fputs("  nothing to plan from: no quirk database was read (stderr says where it was looked for)\n", f);
                else if (plan_entries_idle_text(f, r, p) == 0)
                        fputs("  nothing known to tune for this chip\n", f);
        } else if (changes == 0)
                fputs("  nothing to change\n", f);
        if (p->n_held > 0)
                fputs("  held back: what the performance profile would change here, at a cost in idle power;\n"
                      "    to have it: r8169-tuned profile performance (the running service, until it stops;\n"
                      "    with --persist for good), or r8169-tuned --profile performance apply (once, without the service)\n", f);
        plan_suggestions_hint(f, p);
        if (!r->verbose && plan_item_quirks(p) > 0)
                fprintf(f, "  why: r8169-tuned plan --verbose %s (each quirk's reason, evidence and sources)\n",
                        nic_ifname(p->nic) ?: p->nic->slot);
}

void report_plan_text(FILE *f, const PlanReport *r) {
        char kernel[24];

        fprintf(f, "Profile: %s", profile_to_string(r->profile));
        /* What chose it: --profile, or the configuration (ux-findings L3). */
        if (r->configured != r->profile)
                fprintf(f, " (%s %s, power: %s)", r->override ? "--profile" : "configured", profile_to_string(r->configured),
                        power_source_to_string(r->power));
        if (r->kernel)
                fprintf(f, "; kernel %s", kernel_version_to_string(r->kernel, kernel, sizeof(kernel)));
        fputc('\n', f);
        if (r->n == 0)
                fputs("No Realtek NIC found.\n", f);
        for (size_t i = 0; i < r->n; i++)
                plan_nic_text(f, r, &r->plans[i]);
        /*
         * What is not in this plan for a problem, said here too, not only on stderr (ux-findings
         * L13): a configuration file with a problem as a whole, a quirk entry with one alone.
         */
        bool said = false;
        for (size_t i = 0, count = 0; r->problems && i < r->problems->n; i++) {
                const char *file = r->problems->files[i];
                count++;
                if (i + 1 < r->problems->n && file && r->problems->files[i + 1] && streq(file, r->problems->files[i + 1]))
                        continue;
                if (file && r->problems->lines[i] > 0 && !(r->quirks && strv_contains(r->quirks->files, r->quirks->n_files, file))) {
                        fprintf(f, "%sNot in this plan: what %s says (%zu problem%s: r8169-tuned check-config lists them)\n",
                                said ? "" : "\n", file, count, count == 1 ? "" : "s");
                        said = true;
                }
                count = 0;
        }
        for (size_t i = 0; r->quirks && i < r->quirks->n_left_out; i++) {
                fprintf(f, "%sNot in this plan: quirk entry %s (r8169-tuned check-config says why)\n", said ? "" : "\n",
                        r->quirks->left_out[i]);
                said = true;
        }
}

/* An entry as its file says it: the same keys, one per line, the lists on one line. */
void report_quirk_text(FILE *f, const Quirk *q) {
        char v[KNOB_VALUE_MAX];

        fprintf(f, "[%s]  %s:%u\n", q->id, q->file, q->line);
        match_print(&q->match, f, "  ");
        fputs("  profiles =", f);
        for (int p = 0; p < _PROFILE_MAX; p++)
                if (q->profiles[p])
                        fprintf(f, " %s", profile_to_string(p));
        fputc('\n', f);
        for (int k = 0; k < _KNOB_MAX; k++)
                if (q->set[k])
                        fprintf(f, "  %s = %s\n", knob_get(k)->name, knob_format_value(k, q->value[k], v, sizeof(v)));
        {
                bool any = false;
                for (int k = 0; k < _KNOB_MAX; k++)
                        if (q->skip[k]) {
                                fprintf(f, "%s %s", any ? "" : "  skip =", knob_get(k)->name);
                                any = true;
                        }
                if (any)
                        fputs(" (the driver refuses them: not touched)\n", f);
        }
        if (q->link_power_static)
                fputs("  link-power = static (dynamic link power does not switch L1 on this chip)\n", f);
        fprintf(f, "  confidence = %s (%s)\n", confidence_to_string(q->confidence),
                q->confidence == CONFIDENCE_KERNEL     ? "a later kernel does this by default"
                : q->confidence == CONFIDENCE_MEASURED ? "numbers before and after on a named machine"
                                                       : "a suggestion, applied only where accepted");
        if (doubt_to_string(q->reported_because))
                fprintf(f, "  reported-because = %s (%s)\n", doubt_to_string(q->reported_because),
                        doubt_label(q->reported_because));
        if (q->guard_tx_timeout)
                fputs("  guard = tx-timeout (taken back at a tx timeout on the NIC, and not applied again on that board)\n", f);
        if (q->kernel_default_since.known) {
                char since[24];
                fprintf(f, "  kernel-default-since = %s (r8169 does this itself from that release)\n",
                        kernel_version_to_string(&q->kernel_default_since, since, sizeof(since)));
        }
        /* Wrapped as plan wraps them, continued as the file continues a value (an indented line). */
        print_wrapped(f, "  reason =", "    ", q->reason);
        if (q->evidence)
                print_wrapped(f, "  evidence =", "    ", q->evidence);
        if (q->counter_evidence)
                print_wrapped(f, "  counter-evidence =", "    ", q->counter_evidence);
        print_wrapped(f, "  reference =", "    ", q->reference);
}

void report_quirk_grounds_text(FILE *f, const Quirk *q, const char *first) {
        print_wrapped(f, first, "    ", q->reason);
        if (q->evidence)
                print_wrapped(f, "    evidence:", "      ", q->evidence);
        if (q->counter_evidence)
                print_wrapped(f, "    counter-evidence:", "      ", q->counter_evidence);
        print_wrapped(f, "    see:", "      ", q->reference);
}

static void _printf_(2, 3) json_strf(JsonWriter *w, const char *fmt, ...) {
        char buf[64];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        json_str(w, buf);
}

static void quirk_ids_json(JsonWriter *w, const char *key, const IdMatch *ids, size_t n) {
        json_key(w, key);
        json_array_begin(w);
        for (size_t i = 0; i < n; i++)
                if (ids[i].any_device)
                        json_strf(w, "%04x:*", ids[i].vendor);
                else
                        json_strf(w, "%04x:%04x", ids[i].vendor, ids[i].device);
        json_array_end(w);
}

/* What an entry matches on: its XIDs, ids, drivers, DMI globs and kernel ranges, as schema 1 has them. */
static void quirk_match_json(JsonWriter *w, const NicMatch *m) {
        json_key(w, "xid");
        json_array_begin(w);
        for (size_t i = 0; i < m->n_xids; i++) {
                json_object_begin(w);
                if (m->xids[i].extended) {
                        json_key(w, "value");
                        json_strf(w, "%x", m->xids[i].value);
                        json_key(w, "mask");
                        json_strf(w, "%x", m->xids[i].mask);
                        json_kv_bool(w, "extended", true);
                } else {
                        json_key(w, "value");
                        json_strf(w, "%03x", m->xids[i].value);
                        json_key(w, "mask");
                        json_strf(w, "%03x", m->xids[i].mask);
                }
                json_object_end(w);
        }
        json_array_end(w);
        quirk_ids_json(w, "pci_ids", m->pci_ids, m->n_pci_ids);
        json_key(w, "drivers");
        json_array_begin(w);
        for (size_t i = 0; i < m->n_drivers; i++)
                json_str(w, m->drivers[i]);
        json_array_end(w);
        quirk_ids_json(w, "subsystems", m->subsystems, m->n_subsystems);
        json_key(w, "dmi");
        json_object_begin(w);
        for (int d = 0; d < _DMI_FIELD_MAX; d++)
                json_kv_str(w, dmi_field_to_string(d), m->dmi[d]);
        json_object_end(w);
}

void report_quirk_json(JsonWriter *w, const Quirk *q) {
        json_object_begin(w);
        json_kv_str(w, "id", q->id);
        json_kv_str(w, "file", q->file);
        json_kv_u64(w, "line", q->line);
        quirk_match_json(w, &q->match);
        json_key(w, "match");
        match_json(&q->match, w);
        json_key(w, "profiles");
        json_array_begin(w);
        for (int p = 0; p < _PROFILE_MAX; p++)
                if (q->profiles[p])
                        json_str(w, profile_to_string(p));
        json_array_end(w);
        json_key(w, "knobs");
        json_object_begin(w);
        for (int k = 0; k < _KNOB_MAX; k++)
                if (q->set[k]) {
                        json_key(w, knob_get(k)->name);
                        report_knob_value_json(w, k, q->value[k]);
                }
        json_object_end(w);
        json_key(w, "skip");
        json_array_begin(w);
        for (int k = 0; k < _KNOB_MAX; k++)
                if (q->skip[k])
                        json_str(w, knob_get(k)->name);
        json_array_end(w);
        json_key(w, "kernels");
        json_array_begin(w);
        for (size_t i = 0; i < q->match.n_kernels; i++) {
                char range[64];
                json_str(w, kernel_range_to_string(&q->match.kernels[i], range, sizeof(range)));
        }
        json_array_end(w);
        json_key(w, "kernel_default_since");
        if (q->kernel_default_since.known) {
                char since[24];
                json_str(w, kernel_version_to_string(&q->kernel_default_since, since, sizeof(since)));
        } else
                json_null(w);
        json_kv_str(w, "link_power", q->link_power_static ? "static" : NULL);
        json_kv_str(w, "confidence", confidence_to_string(q->confidence));
        json_kv_str(w, "reported_because", doubt_to_string(q->reported_because));
        json_kv_str(w, "guard", q->guard_tx_timeout ? "tx-timeout" : NULL);
        json_kv_str(w, "reason", q->reason);
        json_kv_str(w, "evidence", q->evidence);
        json_kv_str(w, "counter_evidence", q->counter_evidence);
        json_key(w, "reference");
        json_words(w, q->reference);
        json_object_end(w);
}
