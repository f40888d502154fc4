/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <sys/ioctl.h>

#include "report.h"

const char *report_aspm_states(uint8_t bits) {
        static const char *const names[] = { "none", "L0s", "L1", "L0s L1" };
        return names[bits & 3];
}

const char *report_chip_line(const Nic *n, char *buf, size_t size) {
        if (n->xid == CHIP_XID_INVALID)
                snprintf(buf, size, "chip not identified (%s)", n->xid_notes);
        else if (!n->chip)
                snprintf(buf, size, "unknown chip, XID %03x from %s", n->xid, xid_source_to_string(n->xid_source));
        else
                snprintf(buf, size, "%s (XID %03x from %s)", n->chip->name, n->xid, xid_source_to_string(n->xid_source));
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

/* Prints text wrapped at word boundaries: first then indent before each line. */
static void print_wrapped(FILE *f, const char *first, const char *indent, const char *text) {
        size_t width = text_columns(f), col = strlen(first);

        fputs(first, f);
        for (const char *p = text; *p;) {
                size_t n = strcspn(p, " ");
                if (col > strlen(indent) && col + 1 + n > width) {
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

void report_unknown_chip_advice(FILE *f, const Nic *n) {
        if (n->chip)
                return;
        print_wrapped(f, "  ", "  ",
                      n->xid == CHIP_XID_INVALID
                              ? "r8169-tuned could not identify this chip, so it changes nothing here. What to do next: run "
                                "\"r8169-tuned diagnose > report.md\" and see \"Reporting a new chip\" in the README."
                              : "r8169's chip table does not know this XID, so r8169-tuned changes nothing here. What to do "
                                "next: run \"r8169-tuned diagnose > report.md\" and see \"Reporting a new chip\" in the "
                                "README (the kernel asks for the same report).");
}

static const char *reading_cause(const KnobReading *r, char *buf, size_t size) {
        snprintf(buf, size, "%s", knob_status_to_string(r->status));
        if (r->message[0])
                snprintf(buf + strlen(buf), size - strlen(buf), ": %s", r->message);
        else if (r->error)
                snprintf(buf + strlen(buf), size - strlen(buf), ": %s", strerror(-r->error));
        return buf;
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
                fputs("  knobs:\n", f);
                for (int k = 0; k < _KNOB_MAX; k++) {
                        const KnobReading *r = &s[i].knobs[k];
                        char buf[KNOB_VALUE_MAX];

                        if (r->status != KNOB_STATUS_OK)
                                continue;
                        fprintf(f, "    %-22s %s%s\n", knob_get(k)->name,
                                r->partial ? "partly on" : knob_format_value(k, r->value, buf, sizeof(buf)),
                                r->fixed ? " [fixed]" : "");
                }
                /* What cannot be read: one line per cause, not one per knob. */
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
        }
}

static void json_kv_str(FILE *f, const char *key, const char *value, bool comma) {
        json_string(f, key);
        fputc(':', f);
        json_string(f, value);
        if (comma)
                fputc(',', f);
}

void report_nic_json_members(FILE *f, const Nic *n) {
        char buf[32];

        json_kv_str(f, "slot", n->slot, true);
        json_kv_str(f, "upstream", n->upstream[0] ? n->upstream : NULL, true);
        json_kv_str(f, "interface", nic_ifname(n), true);
        fputs("\"interfaces\":[", f);
        for (size_t i = 0; i < n->n_ifnames; i++) {
                if (i)
                        fputc(',', f);
                json_string(f, n->ifnames[i]);
        }
        fputs("],", f);
        json_kv_str(f, "driver", n->driver[0] ? n->driver : NULL, true);
        snprintf(buf, sizeof(buf), "%04x", n->vendor);
        json_kv_str(f, "vendor", buf, true);
        snprintf(buf, sizeof(buf), "%04x", n->device);
        json_kv_str(f, "device", buf, true);
        snprintf(buf, sizeof(buf), "%04x:%04x", n->subsys_vendor, n->subsys_device);
        json_kv_str(f, "subsystem", buf, true);
        snprintf(buf, sizeof(buf), "%02x", n->revision);
        json_kv_str(f, "revision", buf, true);
        json_kv_str(f, "permanent_mac", n->perm_mac[0] ? n->perm_mac : NULL, true);
        json_kv_str(f, "chip", n->chip ? n->chip->name : NULL, true);
        if (n->xid != CHIP_XID_INVALID)
                snprintf(buf, sizeof(buf), "%03x", n->xid);
        json_kv_str(f, "xid", n->xid != CHIP_XID_INVALID ? buf : NULL, true);
        json_kv_str(f, "xid_source", n->xid_source != XID_SOURCE_NONE ? xid_source_to_string(n->xid_source) : NULL, true);
        json_kv_str(f, "xid_notes", n->xid_notes[0] ? n->xid_notes : NULL, true);
        report_link_json(f, "link", &n->link);
}

void report_link_json(FILE *f, const char *key, const PciLink *l) {
        fprintf(f, "\"%s\":{\"config_space_truncated\":%s,\"pcie\":%s,\"aspm_support\":\"%s\",\"aspm_enabled\":\"%s\",\"clkpm_capable\":%s,"
                   "\"clkpm_enabled\":%s,\"l1ss\":%s,\"l1ss_cap\":\"0x%08x\",\"l1ss_ctl1\":\"0x%08x\"}",
                key, l->truncated ? "true" : "false", l->pcie ? "true" : "false", report_aspm_states(l->aspm_support), report_aspm_states(l->aspm_control),
                l->clkpm_capable ? "true" : "false", l->clkpm_enabled ? "true" : "false", l->l1ss ? "true" : "false",
                l->l1ss_cap, l->l1ss_ctl1);
}

void report_status_json(FILE *f, const NicStatus *s, size_t n) {
        fputs("{\"nics\":[", f);
        for (size_t i = 0; i < n; i++) {
                if (i)
                        fputc(',', f);
                fputc('{', f);
                report_nic_json_members(f, s[i].nic);
                if (s[i].tx_timeouts_known)
                        fprintf(f, ",\"tx_timeouts\":%" PRIu64, s[i].tx_timeouts);
                else
                        fputs(",\"tx_timeouts\":null", f);
                fprintf(f, ",\"tx_timeout_guard\":%s", s[i].tx_guard ? "true" : "false");
                fputs(",\"knobs\":{", f);
                for (int k = 0; k < _KNOB_MAX; k++) {
                        const KnobReading *r = &s[i].knobs[k];
                        char buf[KNOB_VALUE_MAX];

                        if (k)
                                fputc(',', f);
                        json_string(f, knob_get(k)->name);
                        fputs(":{", f);
                        json_kv_str(f, "status", knob_status_to_string(r->status), true);
                        if (r->status == KNOB_STATUS_OK) {
                                json_kv_str(f, "current", knob_format_value(k, r->value, buf, sizeof(buf)), false);
                                if (r->partial)
                                        fputs(",\"partial\":true", f);
                                if (r->fixed)
                                        fputs(",\"fixed\":true", f);
                        } else {
                                json_kv_str(f, "error", r->error ? strerror(-r->error) : NULL, true);
                                json_kv_str(f, "message", r->message[0] ? r->message : NULL, false);
                        }
                        fputc('}', f);
                }
                fputs("}}", f);
        }
        fputs("]}\n", f);
}

static void provenance_json(FILE *f, const Provenance *p) {
        if (p->kind == PROVENANCE_QUIRK) {
                fputs("\"source\":\"quirk\",", f);
                json_kv_str(f, "quirk", p->quirk->id, true);
                json_kv_str(f, "reason", p->quirk->reason, true);
                json_kv_str(f, "reference", p->quirk->reference, false);
        } else if (p->kind == PROVENANCE_GUARD) {
                fputs("\"source\":\"tx-timeout-guard\"", f);
        } else if (p->kind == PROVENANCE_CONFIG) {
                fputs("\"source\":\"config\",", f);
                json_kv_str(f, "file", p->origin.file, true);
                fprintf(f, "\"line\":%u", p->origin.line);
        } else
                fputs("\"source\":null", f);
}

static const char *reading_string(KnobId k, const KnobReading *r, char *buf, size_t size) {
        if (r->status != KNOB_STATUS_OK)
                return NULL;
        if (r->partial)
                return "partial";
        return knob_format_value(k, r->value, buf, size);
}

static void plan_item_json(FILE *f, const PlanItem *it, bool comma, const char *because) {
        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX];

        if (comma)
                fputc(',', f);
        fputc('{', f);
        json_kv_str(f, "knob", knob_get(it->knob)->name, true);
        json_kv_str(f, "action", plan_action_to_string(it->action), true);
        json_kv_str(f, "current", reading_string(it->knob, &it->current, cur, sizeof(cur)), true);
        if (it->current.status != KNOB_STATUS_OK)
                json_kv_str(f, "current_status", knob_status_to_string(it->current.status), true);
        if (because)
                json_kv_str(f, "because", because, true);
        json_kv_str(f, "desired", it->action == PLAN_EXCLUDED ? NULL : knob_format_value(it->knob, it->desired, des, sizeof(des)),
                    true);
        provenance_json(f, &it->why);
        if (it->kernel_default) {
                char since[24];
                fprintf(f, ",\"kernel_default_since\":\"%s\"",
                        kernel_version_to_string(&it->why.quirk->kernel_default_since, since, sizeof(since)));
        }
        if (it->overrides) {
                fputs(",\"overrides\":{", f);
                provenance_json(f, &it->overridden);
                if (it->overridden.quirk && it->overridden.quirk->set[it->knob])
                        fprintf(f, ",\"value\":\"%s\"", knob_format_value(it->knob, it->overridden_value, des, sizeof(des)));
                fputc('}', f);
        }
        fputc('}', f);
}

/* Why a fix of the performance profile is not applied: "performance profile only; on battery". */
static const char *held_back_because(const PlanReport *r, char *buf, size_t size) {
        if (r->configured == PROFILE_BALANCED)
                snprintf(buf, size, "performance profile only; on battery, balanced uses powersave");
        else
                snprintf(buf, size, "performance profile only; profile %s", profile_to_string(r->configured));
        return buf;
}

void report_plan_json(FILE *f, const PlanReport *r) {
        fputs("{", f);
        json_kv_str(f, "profile", profile_to_string(r->profile), true);
        json_kv_str(f, "configured_profile", profile_to_string(r->configured), true);
        json_kv_str(f, "power_source", power_source_to_string(r->power), true);
        fputs("\"nics\":[", f);
        for (size_t i = 0; i < r->n; i++) {
                const NicPlan *p = &r->plans[i];
                if (i)
                        fputc(',', f);
                fputc('{', f);
                report_nic_json_members(f, p->nic);
                fprintf(f, ",\"ignored\":%s,", p->ignored ? "true" : "false");
                if (p->ignored)
                        fprintf(f, "\"ignored_by\":\"%s:%u\",", p->ignored_by.file, p->ignored_by.line);
                fputs("\"items\":[", f);
                for (size_t j = 0; j < p->n; j++)
                        plan_item_json(f, &p->items[j], j > 0, NULL);
                /* What the profile holds back, with why: not in items, which is what apply does. */
                fputs("],\"held_back\":[", f);
                for (size_t j = 0; j < p->n_held; j++) {
                        char hb[128];
                        plan_item_json(f, &p->held[j], j > 0, held_back_because(r, hb, sizeof(hb)));
                }
                fprintf(f, "],\"tx_timeouts\":%" PRIu64 ",\"tx_timeout_guard\":%s,\"guarded\":[", p->tx_timeouts,
                        p->tx_guard ? "true" : "false");
                for (size_t j = 0; j < p->n_guarded; j++)
                        plan_item_json(f, &p->guarded[j], j > 0, "tx-timeout guard: this link timed out");
                /* Entries of the profile that would apply, but were written for another driver. */
                fputs("],\"other_driver\":[", f);
                for (size_t j = 0; j < p->n_other_driver; j++) {
                        const Quirk *q = p->other_driver[j];
                        fputs(j ? ",{" : "{", f);
                        json_kv_str(f, "quirk", q->id, true);
                        fputs("\"drivers\":[", f);
                        for (size_t k = 0; k < q->match.n_drivers; k++) {
                                if (k)
                                        fputc(',', f);
                                json_string(f, q->match.drivers[k]);
                        }
                        fputs("],", f);
                        json_kv_str(f, "reason", q->reason, false);
                        fputc('}', f);
                }
                fputs("]}", f);
        }
        fputs("]}\n", f);
}

void report_plan_text(FILE *f, const PlanReport *r) {
        char kernel[24];

        fprintf(f, "Profile: %s", profile_to_string(r->profile));
        if (r->configured != r->profile)
                fprintf(f, " (configured %s, power: %s)", profile_to_string(r->configured), power_source_to_string(r->power));
        if (r->kernel)
                fprintf(f, "; kernel %s", kernel_version_to_string(r->kernel, kernel, sizeof(kernel)));
        fputc('\n', f);
        if (r->n == 0)
                fputs("No Realtek NIC found.\n", f);
        for (size_t i = 0; i < r->n; i++) {
                const NicPlan *p = &r->plans[i];
                char chip[700], prov[512];
                size_t changes = 0;

                fprintf(f, "\n%s  %s  %s, driver %s\n", p->nic->slot, nic_ifname(p->nic) ?: "(no interface)",
                        report_chip_line(p->nic, chip, sizeof(chip)), p->nic->driver[0] ? p->nic->driver : "none");
                if (p->ignored) {
                        fprintf(f, "  ignored (%s:%u)\n", p->ignored_by.file, p->ignored_by.line);
                        continue;
                }
                for (size_t j = 0; j < p->n; j++) {
                        const PlanItem *it = &p->items[j];
                        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX];
                        const char *c = reading_string(it->knob, &it->current, cur, sizeof(cur));

                        changes += it->action == PLAN_CHANGE;
                        fprintf(f, "  %-8s %-21s ", plan_action_to_string(it->action), knob_get(it->knob)->name);
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
                for (size_t j = 0; j < p->n_held; j++) {
                        const PlanItem *it = &p->held[j];
                        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], both[64], hb[128];
                        snprintf(both, sizeof(both), "%s -> %s", reading_string(it->knob, &it->current, cur, sizeof(cur)),
                                 knob_format_value(it->knob, it->desired, des, sizeof(des)));
                        fprintf(f, "  %-8s %-21s %-16s %s (%s)\n", "held back", knob_get(it->knob)->name, both,
                                plan_provenance_string(&it->why, prov, sizeof(prov)), held_back_because(r, hb, sizeof(hb)));
                }
                /* Each quirk behind a change, or held back, once: its reason and where it comes from. */
                for (size_t j = 0; j < p->n + p->n_held; j++) {
                        const PlanItem *it = j < p->n ? &p->items[j] : &p->held[j - p->n];
                        bool said = false;
                        char first[160];

                        if (it->why.kind != PROVENANCE_QUIRK || (it->action != PLAN_CHANGE && it->action != PLAN_HELD_BACK))
                                continue;
                        for (size_t k = 0; k < j && !said; k++) {
                                const PlanItem *e = k < p->n ? &p->items[k] : &p->held[k - p->n];
                                said = e->why.kind == PROVENANCE_QUIRK && e->why.quirk == it->why.quirk &&
                                       (e->action == PLAN_CHANGE || e->action == PLAN_HELD_BACK);
                        }
                        if (said)
                                continue;
                        snprintf(first, sizeof(first), "  why %s:", it->why.quirk->id);
                        print_wrapped(f, first, "    ", it->why.quirk->reason);
                        print_wrapped(f, "    see:", "      ", it->why.quirk->reference);
                }
                if (p->tx_guard) {
                        char line[256];
                        snprintf(line, sizeof(line), "this link had %" PRIu64 " tx timeout%s (or one was recorded this boot): "
                                 "L1 stays off until reboot, whatever the profile asks", p->tx_timeouts, p->tx_timeouts == 1 ? "" : "s");
                        print_wrapped(f, "  tx-timeout guard:", "    ", line);
                }
                for (size_t j = 0; j < p->n_guarded; j++)
                        fprintf(f, "  %-8s %-21s %-16s %s (not turned on: tx-timeout guard)\n", "guarded",
                                knob_get(p->guarded[j].knob)->name, "stays off",
                                plan_provenance_string(&p->guarded[j].why, prov, sizeof(prov)));
                if (p->tx_guard) {
                        char line[256];
                        snprintf(line, sizeof(line), "this link had %" PRIu64 " tx timeout%s (or one was recorded this boot): "
                                 "L1 stays off until reboot, whatever the profile asks", p->tx_timeouts, p->tx_timeouts == 1 ? "" : "s");
                        print_wrapped(f, "  tx-timeout guard:", "    ", line);
                }
                for (size_t j = 0; j < p->n_guarded; j++)
                        fprintf(f, "  %-8s %-21s %-16s %s (not turned on: tx-timeout guard)\n", "guarded",
                                knob_get(p->guarded[j].knob)->name, "stays off",
                                plan_provenance_string(&p->guarded[j].why, prov, sizeof(prov)));
                for (size_t j = 0; j < p->n_other_driver; j++) {
                        char drivers[128], line[512];
                        snprintf(line, sizeof(line),
                                 "quirk %s is written for %s; with %s bound its fixes do not hold, so they are not applied",
                                 p->other_driver[j]->id, match_drivers_string(&p->other_driver[j]->match, drivers, sizeof(drivers)),
                                 p->nic->driver[0] ? p->nic->driver : "no driver");
                        print_wrapped(f, "  not applied:", "    ", line);
                }
                if (!p->nic->chip)
                        report_unknown_chip_advice(f, p->nic);
                else if (p->n == 0 && p->n_held == 0 && p->n_other_driver == 0)
                        fputs("  nothing known to tune for this chip\n", f);
                else if (changes == 0)
                        fputs("  nothing to change\n", f);
                if (p->n_held > 0)
                        fputs("  held back: what the performance profile would change here, at a cost in idle power;\n"
                              "    to have it: r8169-tuned --profile performance apply (once), or profile = performance\n"
                              "    in " CONFIG_DEFAULT_PATH " (for good)\n", f);
        }
}

static void quirk_match_text(const Quirk *q, char *buf, size_t size) {
        size_t n = 0;
        for (size_t i = 0; i < q->match.n_xids && n < size; i++)
                n += (size_t) snprintf(buf + n, size - n, "%s%03x/%03x", i ? " " : "", q->match.xids[i].value, q->match.xids[i].mask);
}

void report_quirk_text(FILE *f, const Quirk *q) {
        char xids[512] = "", v[KNOB_VALUE_MAX];

        quirk_match_text(q, xids, sizeof(xids));
        fprintf(f, "[%s]  %s:%u\n  xid: %s\n", q->id, q->file, q->line, xids);
        for (size_t i = 0; i < q->match.n_pci_ids; i++)
                fprintf(f, "  pci-id: %04x:%04x\n", q->match.pci_ids[i].vendor, q->match.pci_ids[i].device);
        for (int d = 0; d < _DMI_FIELD_MAX; d++)
                if (q->match.dmi[d])
                        fprintf(f, "  dmi %s: %s\n", dmi_field_to_string(d), q->match.dmi[d]);
        if (q->match.n_drivers > 0) {
                char drivers[128];
                fprintf(f, "  driver: %s\n", match_drivers_string(&q->match, drivers, sizeof(drivers)));
        }
        if (q->match.n_kernels > 0) {
                fputs("  kernel:", f);
                for (size_t i = 0; i < q->match.n_kernels; i++) {
                        char range[64];
                        fprintf(f, " %s", kernel_range_to_string(&q->match.kernels[i], range, sizeof(range)));
                }
                fputc('\n', f);
        }
        if (q->kernel_default_since.known) {
                char since[24];
                fprintf(f, "  r8169 does this itself since: %s\n", kernel_version_to_string(&q->kernel_default_since, since, sizeof(since)));
        }
        fputs("  profiles:", f);
        for (int p = 0; p < _PROFILE_MAX; p++)
                if (q->profiles[p])
                        fprintf(f, " %s", profile_to_string(p));
        fputc('\n', f);
        for (int k = 0; k < _KNOB_MAX; k++) {
                if (q->set[k])
                        fprintf(f, "  %s = %s\n", knob_get(k)->name, knob_format_value(k, q->value[k], v, sizeof(v)));
                if (q->skip[k])
                        fprintf(f, "  %s: not touched\n", knob_get(k)->name);
        }
        fprintf(f, "  reason: %s\n  reference: %s\n", q->reason, q->reference);
}

void report_quirk_json(FILE *f, const Quirk *q) {
        char xids[512] = "", v[KNOB_VALUE_MAX];
        bool first = true;

        quirk_match_text(q, xids, sizeof(xids));
        fputc('{', f);
        json_kv_str(f, "id", q->id, true);
        json_kv_str(f, "file", q->file, true);
        fprintf(f, "\"line\":%u,", q->line);
        json_kv_str(f, "xid", xids, true);
        fputs("\"profiles\":[", f);
        for (int p = 0; p < _PROFILE_MAX; p++)
                if (q->profiles[p]) {
                        fprintf(f, "%s\"%s\"", first ? "" : ",", profile_to_string(p));
                        first = false;
                }
        fputs("],\"knobs\":{", f);
        first = true;
        for (int k = 0; k < _KNOB_MAX; k++)
                if (q->set[k] || q->skip[k]) {
                        fprintf(f, "%s\"%s\":", first ? "" : ",", knob_get(k)->name);
                        json_string(f, q->skip[k] ? "skip" : knob_format_value(k, q->value[k], v, sizeof(v)));
                        first = false;
                }
        fputs("},\"drivers\":[", f);
        for (size_t i = 0; i < q->match.n_drivers; i++) {
                if (i)
                        fputc(',', f);
                json_string(f, q->match.drivers[i]);
        }
        fputs("],\"kernels\":[", f);
        for (size_t i = 0; i < q->match.n_kernels; i++) {
                char range[64];
                if (i)
                        fputc(',', f);
                json_string(f, kernel_range_to_string(&q->match.kernels[i], range, sizeof(range)));
        }
        fputs("],", f);
        if (q->kernel_default_since.known) {
                char since[24];
                json_kv_str(f, "kernel_default_since", kernel_version_to_string(&q->kernel_default_since, since, sizeof(since)), true);
        }
        json_kv_str(f, "reason", q->reason, true);
        json_kv_str(f, "reference", q->reference, false);
        fputc('}', f);
}
