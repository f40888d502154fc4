/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <linux/ethtool_netlink.h>
#include <time.h>

#include "base/json.h"
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

static const PlanItem *plan_item(const NicPlan *p, KnobId k) {
        for (size_t i = 0; i < p->n; i++)
                if (p->items[i].knob == k)
                        return &p->items[i];
        return NULL;
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

static const PlanItem *held_item(const NicPlan *p, KnobId k) {
        for (size_t i = 0; i < p->n_held; i++)
                if (p->held[i].knob == k)
                        return &p->held[i];
        return NULL;
}

static const PlanItem *suggested_item(const NicPlan *p, KnobId k) {
        for (size_t i = 0; i < p->n_suggested; i++)
                if (p->suggested[i].knob == k)
                        return &p->suggested[i];
        return NULL;
}


static void markdown_link_row(FILE *out, const char *what, const char *nic, const char *port) {
        fprintf(out, "| %s | %s | %s |\n", what, nic, port);
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

static void md_machine(FILE *out, const Diagnose *d) {
        const Machine *m = &d->c->machine;
        const MachineFacts *mf = &d->machine;
        _cleanup_(quoted_done) Quoted q = {};

        fprintf(out, "# r8169-tuned diagnose\n\n");
        fprintf(out, "- r8169-tuned: %s\n- kernel: %s\n", R8T_VERSION, qi(&q, d->kernel));
        if (m->dmi[DMI_SYS_VENDOR][0] || m->dmi[DMI_PRODUCT_NAME][0]) {
                bool vendor = m->dmi[DMI_BOARD_VENDOR][0], name = m->dmi[DMI_BOARD_NAME][0];
                /* No space before ")" where a part is unknown (ux-findings L7). */
                fprintf(out, "- machine: %s %s (board: %s%s%s)\n", qi(&q, m->dmi[DMI_SYS_VENDOR]), qi(&q, m->dmi[DMI_PRODUCT_NAME]),
                        vendor ? qi(&q, m->dmi[DMI_BOARD_VENDOR]) : name ? "" : "unknown", vendor && name ? " " : "",
                        name ? qi(&q, m->dmi[DMI_BOARD_NAME]) : "");
        }
        else
                fprintf(out, "- machine: unknown (no DMI data)\n");
        fprintf(out, "- BIOS: %s\n", mf->bios_version[0] ? qi(&q, mf->bios_version) : "unknown");
        fprintf(out, "- power: %s; profile: %s\n- ASPM policy: %s\n", power_source_to_string(m->power),
                profile_to_string(d->c->profile), qi(&q, d->policy));
        fprintf(out, "- kernel command line: %s\n", mf->cmdline_known ? qi(&q, mf->cmdline) : "unknown");
        fputs("- modules loaded:", out);
        for (size_t i = 0; i < mf->n_modules; i++)
                fprintf(out, " %s", qi(&q, mf->modules[i]));
        fputs(mf->n_modules ? "\n" : " none of r8169, r8168, r8125, realtek\n", out);
        fprintf(out, "- MAC addresses: %s\n", d->c->opts->show_mac ? "shown (--show-mac)" : "redacted (--show-mac shows them)");
        if (d->n == 0)
                fprintf(out, "\nNo Realtek NIC found on this machine (%s): nothing to diagnose.\n", qi(&q, d->c->opts->sysfs));
}

static void md_identity(FILE *out, const Diagnose *d, const NicFacts *f) {
        const Nic *nic = f->nic;
        char chip[700];
        _cleanup_(quoted_done) Quoted q = {};

        fprintf(out, "\n## %s %s\n\n", nic->slot, nic_ifname(nic) ? qi(&q, nic_ifname(nic)) : "(no interface)");
        fprintf(out, "| | |\n|---|---|\n");
        fprintf(out, "| chip | %s |\n", qi(&q, report_chip_line(nic, chip, sizeof(chip))));
        if (nic->xid_notes[0])
                fprintf(out, "| identification notes | %s |\n", qi(&q, nic->xid_notes));
        fprintf(out, "| PCI | %04x:%04x rev %02x, subsystem %04x:%04x |\n", nic->vendor, nic->device, nic->revision,
                nic->subsys_vendor, nic->subsys_device);
        fprintf(out, "| driver (sysfs) | %s |\n", nic->driver[0] ? qi(&q, nic->driver) : "none");
        if (f->drv_error >= 0)
                fprintf(out, "| driver (ethtool) | %s %s, firmware %s, bus %s |\n", qi(&q, f->drv.driver), qi(&q, f->drv.version),
                        f->drv.fw_version[0] ? qi(&q, f->drv.fw_version) : "none",
                        f->drv.bus_info[0] ? qi(&q, f->drv.bus_info) : "none");
        else
                fprintf(out, "| driver (ethtool) | unavailable: %s |\n", strerror(-f->drv_error));
        fprintf(out, "| PHY driver | %s |\n", phy_text(f));
        fprintf(out, "| permanent MAC | %s |\n", mac_text(d->c, nic));
        if (!f->tx_timeouts_known)
                fprintf(out, "| tx timeouts | unknown%s |\n", f->tx_guard ? "; L1 stays off until reboot (tx-timeout guard)" : "");
        else
                fprintf(out, "| tx timeouts | %" PRIu64 "%s |\n", f->tx_timeouts,
                        f->tx_guard ? "; L1 stays off until reboot (tx-timeout guard)" : "");
}

static void md_link(FILE *out, const NicFacts *f) {
        const Nic *nic = f->nic;
        char a[64], b[64];

        fprintf(out, "\n### PCIe link\n\n| | NIC %s | port %s |\n|---|---|---|\n", nic->slot,
                nic->upstream[0] ? nic->upstream : "(none)");
        snprintf(a, sizeof(a), "%04x:%04x", nic->vendor, nic->device);
        markdown_link_row(out, "vendor:device", a, f->port_id[0] ? f->port_id : "unknown");
        markdown_link_row(out, "PCIe capability", yes_no(nic->link.pcie), yes_no(nic->upstream_link.pcie));
        markdown_link_row(out, "ASPM supported", report_aspm_states(nic->link.aspm_support), report_aspm_states(nic->upstream_link.aspm_support));
        markdown_link_row(out, "ASPM enabled", report_aspm_states(nic->link.aspm_control), report_aspm_states(nic->upstream_link.aspm_control));
        markdown_link_row(out, "clock PM capable", yes_no(nic->link.clkpm_capable), yes_no(nic->upstream_link.clkpm_capable));
        markdown_link_row(out, "clock PM enabled", yes_no(nic->link.clkpm_enabled), yes_no(nic->upstream_link.clkpm_enabled));
        l1ss_text(nic->link.l1ss ? nic->link.l1ss_cap : 0, a, sizeof(a));
        l1ss_text(nic->upstream_link.l1ss ? nic->upstream_link.l1ss_cap : 0, b, sizeof(b));
        markdown_link_row(out, "L1 substates supported", a, b);
        l1ss_text(nic->link.l1ss ? nic->link.l1ss_ctl1 : 0, a, sizeof(a));
        l1ss_text(nic->upstream_link.l1ss ? nic->upstream_link.l1ss_ctl1 : 0, b, sizeof(b));
        markdown_link_row(out, "L1 substates enabled", a, b);
}

static void md_knobs(FILE *out, const NicFacts *f) {
        const Quirk *qs[_KNOB_MAX + 1];
        size_t nq = plan_quirks(&f->plan, qs, ELEMENTSOF(qs));

        fprintf(out, "\n### Knobs\n\n| knob | current | desired | why |\n|---|---|---|---|\n");
        for (int k = 0; k < _KNOB_MAX; k++) {
                const PlanItem *it = plan_item(&f->plan, k), *held = held_item(&f->plan, k);
                const PlanItem *sug = suggested_item(&f->plan, k), *other = held ?: sug;
                char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], why[600], hb[64] = "-";
                if (other)
                        snprintf(hb, sizeof(hb), "%s: %s", held ? "held back" : "suggested",
                                 knob_format_value(k, other->desired, des, sizeof(des)));
                fprintf(out, "| %s | %s | %s | %s |\n", knob_get(k)->name, report_reading_text(k, &f->current[k], cur, sizeof(cur)),
                        !it ? hb : it->action == PLAN_EXCLUDED ? "not touched" : knob_format_value(k, it->desired, des, sizeof(des)),
                        it ? plan_provenance_string(&it->why, why, sizeof(why)) :
                        other ? plan_provenance_string(&other->why, why, sizeof(why)) : "");
        }
        if (nq > 0)
                fputs("\n### Quirks behind the plan\n", out);
        for (size_t j = 0; j < nq; j++) {
                fprintf(out, "\n- **%s** (%s:%u): %s\n", qs[j]->id, qs[j]->file, qs[j]->line, qs[j]->reason);
                fprintf(out, "  - evidence: %s\n", qs[j]->evidence ?: "none stated");
                fprintf(out, "  - counter-evidence: %s\n", qs[j]->counter_evidence ?: "none known");
                fprintf(out, "  - references: %s\n", qs[j]->reference);
        }
        for (size_t j = 0; j < f->plan.n_suggested; j++) {
                char exp[512];
                const Quirk *q = f->plan.suggested[j].why.quirk;
                bool said = false;
                for (size_t k = 0; k < j && !said; k++)
                        said = f->plan.suggested[k].why.quirk == q;
                if (said)
                        continue;
                fprintf(out, "%s- **%s** (suggested, reported: %s; not applied): %s\n  - measure it: `%s`\n",
                        j == 0 ? "\n### Suggestions\n\n" : "", q->id, doubt_label(q->reported_because), q->reason,
                        quirk_experiment_line(q, nic_ifname(f->nic) ?: f->nic->slot, exp, sizeof(exp)));
        }
        if (f->plan.ignored)
                fprintf(out, "\nIgnored by %s:%u.\n", f->plan.ignored_by.file, f->plan.ignored_by.line);
}

static void md_kernel_defaults(FILE *out, const Diagnose *d, const NicFacts *f) {
        const KernelDefault *rows[64];
        size_t n = nic_kernel_defaults(d, f, rows, ELEMENTSOF(rows));
        char kernel[24];

        if (n == 0)
                return;
        fprintf(out, "\n### What r8169 does by itself (kernel %s, RTL_GIGA_MAC_VER_%u)\n\n| knob | value | unless | change |\n|---|---|---|---|\n",
                kernel_version_to_string(&d->c->machine.kernel, kernel, sizeof(kernel)), f->nic->chip->mac_version);
        for (size_t j = 0; j < n; j++)
                fprintf(out, "| %s | %s | %s | %s |\n", rows[j]->knob, rows[j]->value, rows[j]->unless ?: "-", rows[j]->commit ?: "-");
}

static void md_link_power(FILE *out, const NicFacts *f) {
        if (!f->plan.link_power_asked)
                return;
        fprintf(out, "\n### Link power\n\nDynamic (%s:%u): %s%s.\n", f->plan.link_power_origin.file ?: "-",
                f->plan.link_power_origin.line, f->plan.link_power_blocked ? "not on this link, " : "runs in the daemon",
                f->plan.link_power_blocked ?: "");
        if (f->link_power_known)
                fprintf(out,
                        "\n- state: %s%s%s\n- L1 on: %.0f s, off: %.0f s\n- transitions: %u\n- quiet time: %.1f s\n"
                        "- wakeups: %u (%u stray), mispredictions: %u\n",
                        f->link_power.state, f->link_power.reason[0] ? ": " : "", f->link_power.reason,
                        (double) f->link_power.idle_usec / 1e6, (double) f->link_power.busy_usec / 1e6, f->link_power.transitions,
                        (double) f->link_power.quiet_usec / 1e6, f->link_power.wakeups, f->link_power.strays,
                        f->link_power.mispredictions);
        else
                fprintf(out, "\nNo record from the daemon (not running, or the link is not up).\n");
}

static void md_ethtool(FILE *out, const NicFacts *f) {
        char sp[32];
        const char *ln, *an;

        fprintf(out, "\n### Driver statistics\n\n");
        if (f->stats_error < 0)
                fprintf(out, "Unavailable: %s.\n", strerror(-f->stats_error));
        else if (f->stats.n == 0)
                fprintf(out, "The driver reports none.\n");
        else {
                fprintf(out, "| counter | value |\n|---|---|\n");
                for (size_t s = 0; s < f->stats.n; s++) {
                        _cleanup_free_ char *name = quote_text(f->stats.names[s], QUOTE_MARKDOWN_INLINE);
                        fprintf(out, "| %s | %" PRIu64 " |\n", name ?: "?", f->stats.values[s]);
                }
        }
        fprintf(out, "\n### Link and features (ethtool)\n\n");
        if (!f->linkmodes_known && !f->linkstate_known && !f->features_known) {
                fprintf(out, "Unavailable (see Not read).\n");
                return;
        }
        ln = attr_bool(f->linkstate_known, &f->linkstate, ETHTOOL_A_LINKSTATE_LINK);
        an = attr_bool(f->linkmodes_known, &f->linkmodes, ETHTOOL_A_LINKMODES_AUTONEG);
        fprintf(out, "- link detected: %s\n- speed: %s, duplex: %s, autonegotiation: %s\n",
                streq(ln, "null") ? "unknown" : streq(ln, "true") ? "yes" : "no", link_speed(f, sp, sizeof(sp)) ?: "unknown",
                link_duplex(f) ?: "unknown", streq(an, "null") ? "unknown" : streq(an, "true") ? "on" : "off");
        if (!f->features_known)
                return;
        fprintf(out, "\n| feature | state |\n|---|---|\n");
        for (size_t s = 0; s < f->features.n; s++)
                if (f->features.features[s].name[0]) {
                        _cleanup_free_ char *name = quote_text(f->features.features[s].name, QUOTE_MARKDOWN_INLINE);
                        fprintf(out, "| %s | %s%s |\n", name ?: "?", f->features.features[s].active ? "on" : "off",
                                f->features.features[s].changeable ? "" : " [fixed]");
                }
}

/* Lines quoted in a fenced block: escaped, under a fence none of them can close. */
static void md_code_block(FILE *out, char **lines, size_t n) {
        size_t fence = quote_fence_length((const char *const *) lines, n);

        quote_fence(out, fence);
        for (size_t i = 0; i < n; i++)
                fprintf(out, "%s\n", lines[i] ?: "(not shown: out of memory)");
        quote_fence(out, fence);
}

static void md_messages(FILE *out, const NicFacts *f) {
        char *lines[KERNEL_LINES + JOURNAL_LINES + 1];
        size_t n = 0;

        fprintf(out, "\n### Kernel messages about this NIC\n\n");
        if (f->n_kernel == 0)
                fprintf(out, "None found.\n");
        else {
                for (size_t s = 0; s < f->n_kernel; s++) {
                        lines[n++] = quote_text(f->kernel[s], QUOTE_CONTROLS);
                        if (s + 1 == KERNEL_LINES / 2 && f->kernel_dropped) {
                                if (asprintf(&lines[n], "[… %zu lines left out …]", f->kernel_dropped) < 0)
                                        lines[n] = NULL;
                                n++;
                        }
                }
                md_code_block(out, lines, n);
                while (n > 0)
                        free(lines[--n]);
        }
        fprintf(out, "\n### Recent r8169-tuned messages\n\n");
        if (f->n_journal == 0) {
                fprintf(out, "None in the journal.\n");
                return;
        }
        for (size_t s = 0; s < f->n_journal; s++) {
                _cleanup_free_ char *m = quote_text(f->journal[s].message, QUOTE_CONTROLS);
                char ts[64];

                if (!m || asprintf(&lines[n], "%s %s", timestamp(f->journal[s].usec, ts, sizeof(ts)), m) < 0)
                        lines[n] = NULL;
                n++;
        }
        md_code_block(out, lines, n);
        while (n > 0)
                free(lines[--n]);
}

static void md_footer(FILE *out, const Diagnose *d) {
        fprintf(out, "\n## Configuration problems\n\n");
        if (d->problems.n == 0)
                fprintf(out, "None (check-config finds nothing).\n");
        else {
                /* A problem quotes what a file says (a key, a section name): escaped, fenced. */
                char **lines = calloc(d->problems.n, sizeof(char *));

                if (!lines) {
                        fprintf(out, "(not shown: out of memory)\n");
                } else {
                        for (size_t i = 0; i < d->problems.n; i++)
                                lines[i] = quote_text(d->problems.msgs[i], QUOTE_CONTROLS);
                        md_code_block(out, lines, d->problems.n);
                        strv_free(lines, d->problems.n);
                }
        }
        fprintf(out, "\n## Not read\n\n");
        if (d->unread.n == 0)
                fprintf(out, "Everything was read.\n");
        for (size_t i = 0; i < d->unread.n; i++) {
                const Unread *u = &d->unread.v[i];
                _cleanup_free_ char *what = quote_text(u->what, QUOTE_MARKDOWN_INLINE),
                                    *message = quote_text(u->message, QUOTE_MARKDOWN_INLINE);
                fprintf(out, "- %s: %s%s%s%s\n", what ?: "?", message ?: "?", u->error ? " (" : "",
                        u->error ? report_errno_name(u->error) : "", u->error ? ")" : "");
        }
}

void diagnosis_markdown(FILE *out, const Diagnose *d) {
        md_machine(out, d);
        for (size_t i = 0; i < d->n; i++) {
                md_identity(out, d, &d->facts[i]);
                md_link(out, &d->facts[i]);
                md_knobs(out, &d->facts[i]);
                md_kernel_defaults(out, d, &d->facts[i]);
                md_link_power(out, &d->facts[i]);
                md_ethtool(out, &d->facts[i]);
                md_messages(out, &d->facts[i]);
        }
        md_footer(out, d);
}

/* JSON: an attribute that may be absent, as true, false or null. */
static void json_attr_bool(JsonWriter *w, const char *key, bool known, const EthtoolAttrs *a, int attr) {
        const char *v = attr_bool(known, a, attr);

        json_key(w, key);
        if (streq(v, "null"))
                json_null(w);
        else
                json_bool(w, streq(v, "true"));
}

static void json_machine(JsonWriter *w, const Diagnose *d) {
        const Context *c = d->c;
        const MachineFacts *mf = &d->machine;

        json_kv_u64(w, "schema", REPORT_JSON_SCHEMA);
        json_kv_str(w, "version", R8T_VERSION);
        json_kv_str(w, "kernel", d->kernel);
        json_key(w, "dmi");
        json_object_begin(w);
        for (int i = 0; i < _DMI_FIELD_MAX; i++)
                json_kv_str(w, dmi_field_to_string(i), c->machine.dmi[i][0] ? c->machine.dmi[i] : NULL);
        json_kv_str(w, "bios_version", mf->bios_version[0] ? mf->bios_version : NULL);
        json_object_end(w);
        json_kv_str(w, "power_source", power_source_to_string(c->machine.power));
        json_kv_str(w, "profile", profile_to_string(c->profile));
        json_kv_str(w, "aspm_policy", d->policy);
        json_kv_str(w, "cmdline", mf->cmdline_known ? mf->cmdline : NULL);
        json_key(w, "modules");
        json_array_begin(w);
        for (size_t i = 0; i < mf->n_modules; i++)
                json_str(w, mf->modules[i]);
        json_array_end(w);
        json_kv_bool(w, "macs_shown", c->opts->show_mac);
}

static void json_identity(JsonWriter *w, const Diagnose *d, const NicFacts *f) {
        Nic copy = *f->nic;

        /* The permanent MAC is null unless --show-mac: the report is meant for public trackers. */
        if (!d->c->opts->show_mac)
                copy.perm_mac[0] = '\0';
        report_nic_json_members(w, &copy);
        report_link_json(w, "upstream_link", &f->nic->upstream_link);
        json_kv_str(w, "upstream_id", f->port_id[0] ? f->port_id : NULL);
        json_key(w, "driver_info");
        if (f->drv_error < 0)
                json_null(w);
        else {
                json_object_begin(w);
                json_kv_str(w, "driver", f->drv.driver);
                json_kv_str(w, "version", f->drv.version);
                json_kv_str(w, "firmware", f->drv.fw_version);
                json_kv_str(w, "bus_info", f->drv.bus_info);
                json_object_end(w);
        }
        json_kv_str(w, "phy", f->phy);
        json_kv_bool(w, "phy_generic", f->phy && strstr(f->phy, "Generic FE-GE Realtek PHY"));
        json_key(w, "tx_timeouts");
        if (f->tx_timeouts_known)
                json_u64(w, f->tx_timeouts);
        else
                json_null(w);
        json_kv_bool(w, "tx_timeout_guard", f->tx_guard);
}

static void json_knobs(JsonWriter *w, const NicFacts *f) {
        const Quirk *qs[_KNOB_MAX + 1];
        size_t nq = plan_quirks(&f->plan, qs, ELEMENTSOF(qs));

        json_key(w, "knobs");
        json_object_begin(w);
        for (int k = 0; k < _KNOB_MAX; k++) {
                const PlanItem *it = plan_item(&f->plan, k), *held = held_item(&f->plan, k);
                char why[600];
                json_key(w, knob_get(k)->name);
                json_object_begin(w);
                json_key(w, "current");
                report_knob_reading_json(w, k, &f->current[k]);
                json_key(w, "desired");
                if (it && it->action != PLAN_EXCLUDED)
                        out_knob_json(w, k, it->desired);
                else
                        json_null(w);
                json_kv_str(w, "why", it ? plan_provenance_string(&it->why, why, sizeof(why)) : NULL);
                json_key(w, "held_back");
                if (held)
                        out_knob_json(w, k, held->desired);
                else
                        json_null(w);
                json_object_end(w);
        }
        json_object_end(w);
        json_key(w, "quirks");
        json_array_begin(w);
        for (size_t j = 0; j < nq; j++) {
                json_object_begin(w);
                json_kv_str(w, "id", qs[j]->id);
                json_kv_str(w, "reason", qs[j]->reason);
                json_kv_str(w, "evidence", qs[j]->evidence);
                json_kv_str(w, "counter_evidence", qs[j]->counter_evidence);
                json_key(w, "reference");
                json_words(w, qs[j]->reference);
                json_object_end(w);
        }
        json_array_end(w);
        json_key(w, "suggested");
        json_array_begin(w);
        for (size_t j = 0; j < f->plan.n_suggested; j++) {
                const PlanItem *it = &f->plan.suggested[j];
                char exp[512];
                json_object_begin(w);
                json_kv_str(w, "knob", knob_get(it->knob)->name);
                json_key(w, "desired");
                out_knob_json(w, it->knob, it->desired);
                json_kv_str(w, "quirk", it->why.quirk->id);
                json_kv_str(w, "experiment", quirk_experiment_line(it->why.quirk, nic_ifname(f->nic) ?: f->nic->slot, exp, sizeof(exp)));
                json_object_end(w);
        }
        json_array_end(w);
}

static void json_kernel_defaults(JsonWriter *w, const Diagnose *d, const NicFacts *f) {
        const KernelDefault *rows[64];
        size_t n = nic_kernel_defaults(d, f, rows, ELEMENTSOF(rows));

        json_key(w, "kernel_defaults");
        json_array_begin(w);
        for (size_t j = 0; j < n; j++) {
                json_object_begin(w);
                json_kv_str(w, "knob", rows[j]->knob);
                json_kv_str(w, "value", rows[j]->value);
                json_kv_str(w, "unless", rows[j]->unless);
                json_kv_str(w, "row", rows[j]->id);
                json_kv_str(w, "commit", rows[j]->commit);
                json_kv_str(w, "source", rows[j]->source);
                json_object_end(w);
        }
        json_array_end(w);
}

static void json_ethtool(JsonWriter *w, const NicFacts *f) {
        char sp[32];

        json_key(w, "statistics");
        if (f->stats_error < 0)
                json_null(w);
        else {
                json_object_begin(w);
                for (size_t s = 0; s < f->stats.n; s++)
                        json_kv_u64(w, f->stats.names[s], f->stats.values[s]);
                json_object_end(w);
        }
        json_key(w, "ethtool");
        json_object_begin(w);
        json_attr_bool(w, "link_detected", f->linkstate_known, &f->linkstate, ETHTOOL_A_LINKSTATE_LINK);
        json_key(w, "speed_mbps");
        if (link_speed(f, sp, sizeof(sp)))
                json_u64(w, f->linkmodes.value[ETHTOOL_A_LINKMODES_SPEED]);
        else
                json_null(w);
        json_kv_str(w, "duplex", link_duplex(f));
        json_attr_bool(w, "autoneg", f->linkmodes_known, &f->linkmodes, ETHTOOL_A_LINKMODES_AUTONEG);
        json_key(w, "features");
        if (!f->features_known)
                json_null(w);
        else {
                json_array_begin(w);
                for (size_t s = 0; s < f->features.n; s++) {
                        if (!f->features.features[s].name[0])
                                continue; /* a bit the kernel has no name for */
                        json_object_begin(w);
                        json_kv_str(w, "name", f->features.features[s].name);
                        json_kv_bool(w, "active", f->features.features[s].active);
                        json_kv_bool(w, "changeable", f->features.features[s].changeable);
                        json_object_end(w);
                }
                json_array_end(w);
        }
        json_object_end(w);
}

static void json_messages(JsonWriter *w, const NicFacts *f) {
        json_key(w, "kernel_log");
        json_array_begin(w);
        for (size_t s = 0; s < f->n_kernel; s++)
                json_str(w, f->kernel[s]);
        json_array_end(w);
        json_kv_u64(w, "kernel_log_left_out", f->kernel_dropped);
        json_key(w, "journal");
        json_array_begin(w);
        for (size_t s = 0; s < f->n_journal; s++) {
                char ts[64];
                json_object_begin(w);
                json_kv_str(w, "time", timestamp(f->journal[s].usec, ts, sizeof(ts)));
                json_kv_u64(w, "usec", f->journal[s].usec);
                json_kv_str(w, "message", f->journal[s].message);
                json_object_end(w);
        }
        json_array_end(w);
}

static void json_footer(JsonWriter *w, const Diagnose *d) {
        report_config_problems_json(w, &d->problems);
        json_key(w, "not_read");
        json_array_begin(w);
        for (size_t i = 0; i < d->unread.n; i++) {
                json_object_begin(w);
                json_kv_str(w, "what", d->unread.v[i].what);
                json_kv_str(w, "errno", report_errno_name(d->unread.v[i].error));
                json_kv_str(w, "message", d->unread.v[i].message);
                json_object_end(w);
        }
        json_array_end(w);
}

void diagnosis_json(FILE *out, const Diagnose *d) {
        JsonWriter w = json_writer(out);

        json_object_begin(&w);
        json_machine(&w, d);
        json_key(&w, "nics");
        json_array_begin(&w);
        for (size_t i = 0; i < d->n; i++) {
                const NicFacts *f = &d->facts[i];
                json_object_begin(&w);
                json_identity(&w, d, f);
                json_knobs(&w, f);
                json_kernel_defaults(&w, d, f);
                report_link_power(&OUT_JSON_INTO(&w), "link_power", f->link_power_known ? &f->link_power : NULL);
                json_key(&w, "link_power_plan");
                report_plan_link_power_json(&w, &f->plan);
                json_ethtool(&w, f);
                json_messages(&w, f);
                json_object_end(&w);
        }
        json_array_end(&w);
        json_footer(&w, d);
        json_object_end(&w);
        json_end(&w);
}
