/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <linux/ethtool_netlink.h>
#include <time.h>

#include "base/quote.h"
#include "show/diagnosis.h"
#include "show/plan.h"
#include "show/report.h"

/* 2026-12-01 16:54:28.757868 UTC: the journal's time, readable. */
static const char *timestamp(uint64_t usec, char *buf, size_t size) {
        time_t t = (time_t) (usec / 1000000);
        struct tm tm;

        if (!gmtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0) {
                snprintf(buf, size, "@%" PRIu64, usec);
                return buf;
        }
        snprintf(buf + strlen(buf), size - strlen(buf), ".%06u UTC", (unsigned) (usec % 1000000));
        return buf;
}

static void l1ss_text(uint32_t bits, char *buf, size_t size) {
        static const struct {
                uint32_t bit;
                const char *name;
        } states[] = { { 0x8, "ASPM-L1.1" }, { 0x4, "ASPM-L1.2" }, { 0x2, "PCI-PM-L1.1" }, { 0x1, "PCI-PM-L1.2" } };
        size_t n = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(states); i++)
                if (bits & states[i].bit)
                        n += (size_t) snprintf(buf + n, size > n ? size - n : 0, "%s%s", n ? " " : "", states[i].name);
        if (n == 0)
                snprintf(buf, size, "none");
}

/* "1000 Mb/s", or NULL: SPEED_UNKNOWN is (u32) -1. */
static const char *link_speed(const NicFacts *f, char *buf, size_t size) {
        if (!f->linkmodes_known || !f->linkmodes.present[ETHTOOL_A_LINKMODES_SPEED] ||
            f->linkmodes.value[ETHTOOL_A_LINKMODES_SPEED] == UINT32_MAX)
                return NULL;
        snprintf(buf, size, "%" PRIu32 " Mb/s", f->linkmodes.value[ETHTOOL_A_LINKMODES_SPEED]);
        return buf;
}

static const char *link_duplex(const NicFacts *f) {
        if (!f->linkmodes_known || !f->linkmodes.present[ETHTOOL_A_LINKMODES_DUPLEX])
                return NULL;
        switch (f->linkmodes.value[ETHTOOL_A_LINKMODES_DUPLEX]) {
        case DUPLEX_HALF:
                return "half";
        case DUPLEX_FULL:
                return "full";
        default:
                return NULL;
        }
}

/* true/false/null for a u8 attribute. */
static const char *attr_bool(bool known, const EthtoolAttrs *a, int attr) {
        if (!known || !a->present[attr])
                return "null";
        return a->value[attr] ? "true" : "false";
}

/* The quirks behind a NIC's plan, each once, in the order of the knobs: planned, held back, static link power. */
static size_t plan_quirks(const NicPlan *p, const Quirk **ret, size_t max) {
        size_t n = 0;

        for (size_t j = 0; j <= p->n + p->n_held; j++) {
                const Quirk *q = j < p->n ? (p->items[j].why.kind == PROVENANCE_QUIRK ? p->items[j].why.quirk : NULL)
                                 : j < p->n + p->n_held ? (p->held[j - p->n].why.kind == PROVENANCE_QUIRK ? p->held[j - p->n].why.quirk : NULL)
                                                        : p->link_power_quirk;
                bool seen = false;

                for (size_t k = 0; k < n && !seen; k++)
                        seen = ret[k] == q;
                if (q && !seen && n < max)
                        ret[n++] = q;
        }
        return n;
}

static void link_row(Out *o, const char *what, const char *nic, const char *port) {
        out_text(o, "| %s | %s | %s |\n", what, nic, port);
}

static const char *mac_text(const Context *c, const Nic *nic) {
        if (!nic->perm_mac[0])
                return "unknown";
        return c->opts->show_mac ? nic->perm_mac : "redacted (--show-mac shows it)";
}

/* The rows of the kernel's own defaults for a NIC's chip on the running (or named) kernel. */
static size_t nic_kernel_defaults(const Diagnose *d, const NicFacts *f, const KernelDefault **ret, size_t size) {
        if (!f->nic->chip || f->nic->chip->extended)
                return 0;
        return kernel_defaults_for(&d->kd, f->nic->chip->mac_version, &d->c->machine.kernel, ret, size);
}

/*
 * What the report quotes from outside (DMI and sysfs strings, ethtool's, the kernel's and the
 * journal's lines): escaped as quote_text() does, kept until the section is printed.
 */
typedef struct Quoted {
        char *v[96];
        size_t n;
} Quoted;

static const char *qs(Quoted *q, const char *s, QuoteMode mode) {
        char *t;

        if (q->n >= ELEMENTSOF(q->v) || !(t = quote_text(s, mode)))
                return "(not shown: out of memory)";
        return q->v[q->n++] = t;
}
#define qi(q, s) qs((q), (s), QUOTE_MARKDOWN_INLINE)

static void quoted_done(Quoted *q) {
        for (size_t i = 0; i < q->n; i++)
                free(q->v[i]);
        q->n = 0;
}

static const char *phy_text(const NicFacts *f) {
        if (!f->phy)
                return "no attach line in the kernel log";
        if (strstr(f->phy, "Generic FE-GE Realtek PHY"))
                return "Generic FE-GE Realtek PHY: the realtek PHY driver is missing (CONFIG_REALTEK_PHY)";
        return "see the kernel line below";
}

/* JSON: an attribute that may be absent, as true, false or null. */
static void json_attr_bool(Out *o, const char *key, bool known, const EthtoolAttrs *a, int attr) {
        const char *v = attr_bool(known, a, attr);

        if (streq(v, "null"))
                out_json_str(o, key, NULL);
        else
                out_json_bool(o, key, streq(v, "true"));
}

static void diag_machine(Out *o, const Diagnose *d) {
        const Machine *m = &d->c->machine;
        const MachineFacts *mf = &d->machine;
        _cleanup_(quoted_done) Quoted q = {};

        out_text(o, "# r8169-tuned diagnose\n\n");
        out_json_str(o, "version", R8T_VERSION);
        out_json_str(o, "kernel", d->kernel);
        out_object_begin(o, "dmi");
        for (int i = 0; i < _DMI_FIELD_MAX; i++)
                out_json_str(o, dmi_field_to_string(i), m->dmi[i][0] ? m->dmi[i] : NULL);
        out_json_str(o, "bios_version", mf->bios_version[0] ? mf->bios_version : NULL);
        out_object_end(o);
        out_json_str(o, "power_source", power_source_to_string(m->power));
        out_json_str(o, "profile", profile_to_string(d->c->profile));
        out_json_str(o, "aspm_policy", d->policy);
        out_json_str(o, "cmdline", mf->cmdline_known ? mf->cmdline : NULL);
        out_array_begin(o, "modules");
        for (size_t i = 0; i < mf->n_modules; i++)
                out_json_str(o, NULL, mf->modules[i]);
        out_array_end(o);
        out_json_bool(o, "macs_shown", d->c->opts->show_mac);
        if (o->json)
                return;
        out_text(o, "- r8169-tuned: %s\n- kernel: %s\n", R8T_VERSION, qi(&q, d->kernel));
        if (m->dmi[DMI_SYS_VENDOR][0] || m->dmi[DMI_PRODUCT_NAME][0]) {
                bool vendor = m->dmi[DMI_BOARD_VENDOR][0], name = m->dmi[DMI_BOARD_NAME][0];
                /* No space before ")" where a part is unknown (ux-findings L7). */
                out_text(o, "- machine: %s %s (board: %s%s%s)\n", qi(&q, m->dmi[DMI_SYS_VENDOR]), qi(&q, m->dmi[DMI_PRODUCT_NAME]),
                         vendor ? qi(&q, m->dmi[DMI_BOARD_VENDOR]) : name ? "" : "unknown", vendor && name ? " " : "",
                         name ? qi(&q, m->dmi[DMI_BOARD_NAME]) : "");
        } else
                out_text(o, "- machine: unknown (no DMI data)\n");
        out_text(o, "- BIOS: %s\n", mf->bios_version[0] ? qi(&q, mf->bios_version) : "unknown");
        out_text(o, "- power: %s; profile: %s\n- ASPM policy: %s\n", power_source_to_string(m->power),
                 profile_to_string(d->c->profile), qi(&q, d->policy));
        out_text(o, "- kernel command line: %s\n", mf->cmdline_known ? qi(&q, mf->cmdline) : "unknown");
        out_text(o, "- modules loaded:");
        for (size_t i = 0; i < mf->n_modules; i++)
                out_text(o, " %s", qi(&q, mf->modules[i]));
        out_text(o, "%s", mf->n_modules ? "\n" : " none of r8169, r8168, r8125, realtek\n");
        out_text(o, "- MAC addresses: %s\n", d->c->opts->show_mac ? "shown (--show-mac)" : "redacted (--show-mac shows them)");
        if (d->n == 0)
                out_text(o, "\nNo Realtek NIC found on this machine (%s): nothing to diagnose.\n", qi(&q, d->c->opts->sysfs));
}

/* Who the NIC is: its ids, drivers, PHY, MAC and tx timeouts; then (text) its PCIe link beside the port's. */
static void diag_identity(Out *o, const Diagnose *d, const NicFacts *f) {
        const Nic *nic = f->nic;
        JsonWriter *w = out_json(o);
        char chip[700], a[64], b[64];
        _cleanup_(quoted_done) Quoted q = {};

        if (w) {
                Nic copy = *nic;
                /* The permanent MAC is null unless --show-mac: the report is meant for public trackers. */
                if (!d->c->opts->show_mac)
                        copy.perm_mac[0] = '\0';
                report_nic_json_members(w, &copy);
                report_link_json(w, "upstream_link", &nic->upstream_link);
        }
        out_json_str(o, "upstream_id", f->port_id[0] ? f->port_id : NULL);
        if (f->drv_error < 0)
                out_json_str(o, "driver_info", NULL);
        else {
                out_object_begin(o, "driver_info");
                out_json_str(o, "driver", f->drv.driver);
                out_json_str(o, "version", f->drv.version);
                out_json_str(o, "firmware", f->drv.fw_version);
                out_json_str(o, "bus_info", f->drv.bus_info);
                out_object_end(o);
        }
        out_json_str(o, "phy", f->phy);
        out_json_bool(o, "phy_generic", f->phy && strstr(f->phy, "Generic FE-GE Realtek PHY"));
        out_json_u64_or_null(o, "tx_timeouts", f->tx_timeouts_known, f->tx_timeouts);
        out_json_bool(o, "tx_timeout_guard", f->tx_guard);
        report_link_explain(o, nic, &f->link, "- ");
        if (w)
                return;
        out_text(o, "\n## %s %s\n\n", nic->slot, nic_ifname(nic) ? qi(&q, nic_ifname(nic)) : "(no interface)");
        out_text(o, "| | |\n|---|---|\n");
        out_text(o, "| chip | %s |\n", qi(&q, report_chip_line(nic, chip, sizeof(chip))));
        if (nic->xid_notes[0])
                out_text(o, "| identification notes | %s |\n", qi(&q, nic->xid_notes));
        out_text(o, "| PCI | %04x:%04x rev %02x, subsystem %04x:%04x |\n", nic->vendor, nic->device, nic->revision,
                 nic->subsys_vendor, nic->subsys_device);
        out_text(o, "| driver (sysfs) | %s |\n", nic->driver[0] ? qi(&q, nic->driver) : "none");
        if (f->drv_error >= 0)
                out_text(o, "| driver (ethtool) | %s %s, firmware %s, bus %s |\n", qi(&q, f->drv.driver), qi(&q, f->drv.version),
                         f->drv.fw_version[0] ? qi(&q, f->drv.fw_version) : "none",
                         f->drv.bus_info[0] ? qi(&q, f->drv.bus_info) : "none");
        else
                out_text(o, "| driver (ethtool) | unavailable: %s |\n", strerror(-f->drv_error));
        out_text(o, "| PHY driver | %s |\n", phy_text(f));
        out_text(o, "| permanent MAC | %s |\n", mac_text(d->c, nic));
        if (!f->tx_timeouts_known)
                out_text(o, "| tx timeouts | unknown%s |\n", f->tx_guard ? "; L1 stays off until reboot (tx-timeout guard)" : "");
        else
                out_text(o, "| tx timeouts | %" PRIu64 "%s |\n", f->tx_timeouts,
                         f->tx_guard ? "; L1 stays off until reboot (tx-timeout guard)" : "");

        out_text(o, "| runtime PM | %s, %s |\n",
                 f->current[KNOB_RUNTIME_PM].status != KNOB_STATUS_OK ? "unknown" : knob_format_value(KNOB_RUNTIME_PM, f->current[KNOB_RUNTIME_PM].value, NULL, 0),
                 nic->runtime_status[0] ? qi(&q, nic->runtime_status) : "state unknown");
        out_text(o, "\n### PCIe link\n\n| | NIC %s | port %s |\n|---|---|---|\n", nic->slot,
                 nic->upstream[0] ? nic->upstream : "(none)");
        snprintf(a, sizeof(a), "%04x:%04x", nic->vendor, nic->device);
        link_row(o, "vendor:device", a, f->port_id[0] ? f->port_id : "unknown");
        link_row(o, "PCIe capability", yes_no(nic->link.pcie), yes_no(nic->upstream_link.pcie));
        link_row(o, "ASPM supported", report_aspm_states(nic->link.aspm_support), report_aspm_states(nic->upstream_link.aspm_support));
        link_row(o, "ASPM enabled", report_aspm_states(nic->link.aspm_control), report_aspm_states(nic->upstream_link.aspm_control));
        link_row(o, "clock PM capable", yes_no(nic->link.clkpm_capable), yes_no(nic->upstream_link.clkpm_capable));
        link_row(o, "clock PM enabled", yes_no(nic->link.clkpm_enabled), yes_no(nic->upstream_link.clkpm_enabled));
        l1ss_text(nic->link.l1ss ? nic->link.l1ss_cap : 0, a, sizeof(a));
        l1ss_text(nic->upstream_link.l1ss ? nic->upstream_link.l1ss_cap : 0, b, sizeof(b));
        link_row(o, "L1 substates supported", a, b);
        l1ss_text(nic->link.l1ss ? nic->link.l1ss_ctl1 : 0, a, sizeof(a));
        l1ss_text(nic->upstream_link.l1ss ? nic->upstream_link.l1ss_ctl1 : 0, b, sizeof(b));
        link_row(o, "L1 substates enabled", a, b);
        if (report_link_explain_says(nic, &f->link)) {
                out_text(o, "\n");
                report_link_explain(o, nic, &f->link, "- ");
        }
}

/* Each knob: what it is, what the plan wants and why, what is held back or suggested; the quirks behind it all. */
static void diag_knobs(Out *o, const NicFacts *f) {
        const Quirk *qs[_KNOB_MAX + 1];
        size_t nq = plan_quirks(&f->plan, qs, ELEMENTSOF(qs));
        JsonWriter *w = out_json(o);

        out_text(o, "\n### Knobs\n\n| knob | current | desired | why |\n|---|---|---|---|\n");
        out_object_begin(o, "knobs");
        for (int k = 0; k < _KNOB_MAX; k++) {
                const PlanItem *it = plan_items_find(f->plan.items, f->plan.n, k);
                const PlanItem *held = plan_items_find(f->plan.held, f->plan.n_held, k);
                const PlanItem *sug = plan_items_find(f->plan.suggested, f->plan.n_suggested, k), *other = held ?: sug;
                char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], why[600], hb[64] = "-";

                out_object_begin(o, knob_get(k)->name);
                if (w) {
                        json_key(w, "current");
                        report_knob_reading_json(w, k, &f->current[k]);
                }
                out_json_knob_or_null(o, "desired", it && it->action != PLAN_EXCLUDED, k, it ? it->desired : 0);
                out_json_str(o, "why", it ? plan_provenance_string(&it->why, why, sizeof(why)) : NULL);
                out_json_knob_or_null(o, "held_back", held, k, held ? held->desired : 0);
                out_object_end(o);
                if (w)
                        continue;
                if (other)
                        snprintf(hb, sizeof(hb), "%s: %s", held ? "held back" : "suggested",
                                 knob_format_value(k, other->desired, des, sizeof(des)));
                out_text(o, "| %s | %s | %s | %s |\n", knob_get(k)->name, report_reading_text(k, &f->current[k], cur, sizeof(cur)),
                         !it ? hb : it->action == PLAN_EXCLUDED ? "not touched" : knob_format_value(k, it->desired, des, sizeof(des)),
                         it ? plan_provenance_string(&it->why, why, sizeof(why)) :
                         other ? plan_provenance_string(&other->why, why, sizeof(why)) : "");
        }
        out_object_end(o);
        if (nq > 0)
                out_text(o, "\n### Quirks behind the plan\n");
        out_array_begin(o, "quirks");
        for (size_t j = 0; j < nq; j++) {
                out_object_begin(o, NULL);
                out_json_str(o, "id", qs[j]->id);
                out_json_str(o, "reason", qs[j]->reason);
                out_json_str(o, "evidence", qs[j]->evidence);
                out_json_str(o, "counter_evidence", qs[j]->counter_evidence);
                out_json_words(o, "reference", qs[j]->reference);
                out_object_end(o);
                out_text(o, "\n- **%s** (%s:%u): %s\n", qs[j]->id, qs[j]->file, qs[j]->line, qs[j]->reason);
                out_text(o, "  - evidence: %s\n", qs[j]->evidence ?: "none stated");
                out_text(o, "  - counter-evidence: %s\n", qs[j]->counter_evidence ?: "none known");
                out_text(o, "  - references: %s\n", qs[j]->reference);
        }
        out_array_end(o);
        out_array_begin(o, "suggested");
        for (size_t j = 0; j < f->plan.n_suggested; j++) {
                const PlanItem *it = &f->plan.suggested[j];
                const Quirk *q = it->why.quirk;
                char exp[512];
                bool said = false;

                quirk_experiment_line(q, nic_ifname(f->nic) ?: f->nic->slot, exp, sizeof(exp));
                out_object_begin(o, NULL);
                out_json_str(o, "knob", knob_get(it->knob)->name);
                out_json_knob(o, "desired", it->knob, it->desired);
                out_json_str(o, "quirk", q->id);
                out_json_str(o, "experiment", exp);
                out_object_end(o);
                /* The text says each entry once. */
                for (size_t k = 0; k < j && !said; k++)
                        said = f->plan.suggested[k].why.quirk == q;
                if (!said)
                        out_text(o, "%s- **%s** (suggested, reported: %s; not applied): %s\n  - measure it: `%s`\n",
                                 j == 0 ? "\n### Suggestions\n\n" : "", q->id, doubt_label(q->reported_because), q->reason, exp);
        }
        out_array_end(o);
        if (f->plan.ignored)
                out_text(o, "\nIgnored by %s:%u.\n", f->plan.ignored_by.file, f->plan.ignored_by.line);
}

static void diag_kernel_defaults(Out *o, const Diagnose *d, const NicFacts *f) {
        const KernelDefault *rows[64];
        size_t n = nic_kernel_defaults(d, f, rows, ELEMENTSOF(rows));
        char kernel[24];

        if (n > 0)
                out_text(o, "\n### What r8169 does by itself (kernel %s, RTL_GIGA_MAC_VER_%u)\n\n| knob | value | unless | change |\n|---|---|---|---|\n",
                         kernel_version_to_string(&d->c->machine.kernel, kernel, sizeof(kernel)), f->nic->chip->mac_version);
        out_array_begin(o, "kernel_defaults");
        for (size_t j = 0; j < n; j++) {
                out_object_begin(o, NULL);
                out_json_str(o, "knob", rows[j]->knob);
                out_json_str(o, "value", rows[j]->value);
                out_json_str(o, "unless", rows[j]->unless);
                out_json_str(o, "row", rows[j]->id);
                out_json_str(o, "commit", rows[j]->commit);
                out_json_str(o, "source", rows[j]->source);
                out_object_end(o);
                out_text(o, "| %s | %s | %s | %s |\n", rows[j]->knob, rows[j]->value, rows[j]->unless ?: "-", rows[j]->commit ?: "-");
        }
        out_array_end(o);
}

/* Dynamic link power: the daemon's record, and what the configuration asked. */
static void diag_link_power(Out *o, const NicFacts *f) {
        const LinkPowerRecord *lp = &f->link_power;
        JsonWriter *w = out_json(o);

        if (w) {
                report_link_power(o, "link_power", f->link_power_known ? lp : NULL);
                json_key(w, "link_power_plan");
                report_plan_link_power_json(w, &f->plan);
                return;
        }
        if (!f->plan.link_power_asked)
                return;
        out_text(o, "\n### Link power\n\nDynamic (%s:%u): %s%s.\n", f->plan.link_power_origin.file ?: "-",
                 f->plan.link_power_origin.line, f->plan.link_power_blocked ? "not on this link, " : "runs in the daemon",
                 f->plan.link_power_blocked ?: "");
        if (f->link_power_known)
                out_text(o,
                         "\n- state: %s%s%s\n- L1 on: %.0f s, off: %.0f s\n- transitions: %u\n- quiet time: %.1f s\n"
                         "- wakeups: %u (%u stray), mispredictions: %u\n",
                         lp->state, lp->reason[0] ? ": " : "", lp->reason, (double) lp->idle_usec / 1e6,
                         (double) lp->busy_usec / 1e6, lp->transitions, (double) lp->quiet_usec / 1e6, lp->wakeups, lp->strays,
                         lp->mispredictions);
        else
                out_text(o, "\nNo record from the daemon (not running, or the link is not up).\n");
}

/*
 * Packets the chip dropped for want of a free rx descriptor: bursts faster than the NAPI poll
 * empties the ring. r8169 has fixed rings (256 RX, 256 TX: get_ringparam and no set_ringparam,
 * read in 7.1.5), so "ethtool -G" is no fix there; what is, is said instead.
 */
static void rx_missed_text(Out *o, const NicFacts *f) {
        for (size_t s = 0; s < f->stats.n; s++)
                if (streq(f->stats.names[s], "rx_missed") && f->stats.values[s] > 0 && streq(f->nic->driver, "r8169"))
                        out_text(o, "\nrx_missed %" PRIu64 ": the chip dropped packets for want of a free receive descriptor "
                                    "(bursts faster than the driver empties the ring). r8169's rings are fixed at 256 "
                                    "descriptors (ethtool -G answers \"Operation not supported\"), so ring sizes are no "
                                    "fix here; what the driver does between interrupts is: gro_flush_timeout and "
                                    "napi_defer_hard_irqs (software coalescing), and on chips before the RTL8125, rx-usecs "
                                    "and rx-frames.\n",
                                 f->stats.values[s]);
}

static void diag_ethtool(Out *o, const NicFacts *f) {
        char sp[32];
        const char *ln, *an;

        out_text(o, "\n### Driver statistics\n\n");
        if (f->stats_error < 0) {
                out_json_str(o, "statistics", NULL);
                out_text(o, "Unavailable: %s.\n", strerror(-f->stats_error));
        } else {
                out_object_begin(o, "statistics");
                out_text(o, "%s", f->stats.n == 0 ? "The driver reports none.\n" : "| counter | value |\n|---|---|\n");
                for (size_t s = 0; s < f->stats.n; s++) {
                        _cleanup_free_ char *name = o->json ? NULL : quote_text(f->stats.names[s], QUOTE_MARKDOWN_INLINE);
                        out_json_u64(o, f->stats.names[s], f->stats.values[s]);
                        out_text(o, "| %s | %" PRIu64 " |\n", name ?: "?", f->stats.values[s]);
                }
                out_object_end(o);
                rx_missed_text(o, f);
        }
        out_object_begin(o, "ethtool");
        json_attr_bool(o, "link_detected", f->linkstate_known, &f->linkstate, ETHTOOL_A_LINKSTATE_LINK);
        out_json_u64_or_null(o, "speed_mbps", link_speed(f, sp, sizeof(sp)), f->linkmodes.value[ETHTOOL_A_LINKMODES_SPEED]);
        out_json_str(o, "duplex", link_duplex(f));
        json_attr_bool(o, "autoneg", f->linkmodes_known, &f->linkmodes, ETHTOOL_A_LINKMODES_AUTONEG);
        out_text(o, "\n### Link and features (ethtool)\n\n");
        if (!o->json && !f->linkmodes_known && !f->linkstate_known && !f->features_known) {
                out_text(o, "Unavailable (see Not read).\n");
                out_object_end(o);
                return;
        }
        ln = attr_bool(f->linkstate_known, &f->linkstate, ETHTOOL_A_LINKSTATE_LINK);
        an = attr_bool(f->linkmodes_known, &f->linkmodes, ETHTOOL_A_LINKMODES_AUTONEG);
        out_text(o, "- link detected: %s\n- speed: %s, duplex: %s, autonegotiation: %s\n",
                 streq(ln, "null") ? "unknown" : streq(ln, "true") ? "yes" : "no", link_speed(f, sp, sizeof(sp)) ?: "unknown",
                 link_duplex(f) ?: "unknown", streq(an, "null") ? "unknown" : streq(an, "true") ? "on" : "off");
        if (!f->features_known) {
                out_json_str(o, "features", NULL);
                out_object_end(o);
                return;
        }
        out_text(o, "\n| feature | state |\n|---|---|\n");
        out_array_begin(o, "features");
        for (size_t s = 0; s < f->features.n; s++) {
                const EthtoolFeature *e = &f->features.features[s];
                _cleanup_free_ char *name = NULL;

                if (!e->name[0])
                        continue; /* a bit the kernel has no name for */
                out_object_begin(o, NULL);
                out_json_str(o, "name", e->name);
                out_json_bool(o, "active", e->active);
                out_json_bool(o, "changeable", e->changeable);
                out_object_end(o);
                if (!o->json)
                        name = quote_text(e->name, QUOTE_MARKDOWN_INLINE);
                out_text(o, "| %s | %s%s |\n", name ?: "?", e->active ? "on" : "off", e->changeable ? "" : " [fixed]");
        }
        out_array_end(o);
        out_object_end(o);
}
/* Lines quoted in a fenced block: escaped, under a fence none of them can close. */
static void md_code_block(FILE *out, char **lines, size_t n) {
        size_t fence = quote_fence_length((const char *const *) lines, n);

        quote_fence(out, fence);
        for (size_t i = 0; i < n; i++)
                fprintf(out, "%s\n", lines[i] ?: "(not shown: out of memory)");
        quote_fence(out, fence);
}

static void diag_messages(Out *o, const NicFacts *f) {
        char *lines[KERNEL_LINES + JOURNAL_LINES + 1];
        size_t n = 0;

        out_array_begin(o, "kernel_log");
        for (size_t s = 0; s < f->n_kernel; s++)
                out_json_str(o, NULL, f->kernel[s]);
        out_array_end(o);
        out_json_u64(o, "kernel_log_left_out", f->kernel_dropped);
        out_array_begin(o, "journal");
        for (size_t s = 0; s < f->n_journal; s++) {
                char ts[64];
                out_object_begin(o, NULL);
                out_json_str(o, "time", timestamp(f->journal[s].usec, ts, sizeof(ts)));
                out_json_u64(o, "usec", f->journal[s].usec);
                out_json_str(o, "message", f->journal[s].message);
                out_object_end(o);
        }
        out_array_end(o);
        if (o->json)
                return;
        /* The text quotes them in fenced blocks. */
        out_text(o, "\n### Kernel messages about this NIC\n\n");
        if (f->n_kernel == 0)
                out_text(o, "None found.\n");
        else {
                for (size_t s = 0; s < f->n_kernel; s++) {
                        lines[n++] = quote_text(f->kernel[s], QUOTE_CONTROLS);
                        if (s + 1 == KERNEL_LINES / 2 && f->kernel_dropped) {
                                if (asprintf(&lines[n], "[… %zu lines left out …]", f->kernel_dropped) < 0)
                                        lines[n] = NULL;
                                n++;
                        }
                }
                md_code_block(o->f, lines, n);
                while (n > 0)
                        free(lines[--n]);
        }
        out_text(o, "\n### Recent r8169-tuned messages\n\n");
        if (f->n_journal == 0) {
                out_text(o, "None in the journal.\n");
                return;
        }
        for (size_t s = 0; s < f->n_journal; s++) {
                _cleanup_free_ char *m = quote_text(f->journal[s].message, QUOTE_CONTROLS);
                char ts[64];

                if (!m || asprintf(&lines[n], "%s %s", timestamp(f->journal[s].usec, ts, sizeof(ts)), m) < 0)
                        lines[n] = NULL;
                n++;
        }
        md_code_block(o->f, lines, n);
        while (n > 0)
                free(lines[--n]);
}

/* The configuration's problems and what could not be read. */
static void diag_footer(Out *o, const Diagnose *d) {
        out_text(o, "\n## Configuration problems\n\n");
        report_config_problems(o, &d->problems);
        if (d->problems.n == 0)
                out_text(o, "None (check-config finds nothing).\n");
        else if (!o->json) {
                /* A problem quotes what a file says (a key, a section name): escaped, fenced. */
                char **lines = calloc(d->problems.n, sizeof(char *));

                if (!lines) {
                        out_text(o, "(not shown: out of memory)\n");
                } else {
                        for (size_t i = 0; i < d->problems.n; i++)
                                lines[i] = quote_text(d->problems.msgs[i], QUOTE_CONTROLS);
                        md_code_block(o->f, lines, d->problems.n);
                        strv_free(lines, d->problems.n);
                }
        }
        out_text(o, "\n## Not read\n\n");
        if (d->unread.n == 0)
                out_text(o, "Everything was read.\n");
        out_array_begin(o, "not_read");
        for (size_t i = 0; i < d->unread.n; i++) {
                const Unread *u = &d->unread.v[i];
                _cleanup_free_ char *what = o->json ? NULL : quote_text(u->what, QUOTE_MARKDOWN_INLINE),
                                    *message = o->json ? NULL : quote_text(u->message, QUOTE_MARKDOWN_INLINE);

                out_object_begin(o, NULL);
                out_json_str(o, "what", u->what);
                out_json_str(o, "errno", report_errno_name(u->error));
                out_json_str(o, "message", u->message);
                out_object_end(o);
                out_text(o, "- %s: %s%s%s%s\n", what ?: "?", message ?: "?", u->error ? " (" : "",
                         u->error ? report_errno_name(u->error) : "", u->error ? ")" : "");
        }
        out_array_end(o);
}

/* diagnose: the machine, then per NIC its identity and link, knobs, the kernel's own defaults,
 * link power, ethtool's view and the messages about it; the problems and what was not read. As
 * Markdown (the text, for an issue tracker) or JSON. */
void diagnosis_show(FILE *f, const Diagnose *d, bool json) {
        Out o;

        out_document_begin(&o, f, json);
        diag_machine(&o, d);
        out_array_begin(&o, "nics");
        for (size_t i = 0; i < d->n; i++) {
                out_object_begin(&o, NULL);
                diag_identity(&o, d, &d->facts[i]);
                diag_knobs(&o, &d->facts[i]);
                diag_kernel_defaults(&o, d, &d->facts[i]);
                diag_link_power(&o, &d->facts[i]);
                diag_ethtool(&o, &d->facts[i]);
                diag_messages(&o, &d->facts[i]);
                out_object_end(&o);
        }
        out_array_end(&o);
        diag_footer(&o, d);
        out_document_end(&o);
}
