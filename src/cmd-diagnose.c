/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diagnose: everything a bug report about a Realtek NIC needs, in one paste:
 * Markdown for people, --json for programs.
 */
#include <inttypes.h>
#include <sys/utsname.h>
#include <systemd/sd-journal.h>

#include "commands.h"
#include "ethtool-ioctl.h"
#include "log.h"
#include "report.h"

#define JOURNAL_LINES 20

typedef struct NicFacts {
        Nic *nic;
        KnobReading current[_KNOB_MAX];
        NicPlan plan;
        struct ethtool_drvinfo drv;
        int drv_error;
        EthtoolStats stats;
        int stats_error;
        char *journal[JOURNAL_LINES];
        size_t n_journal;
} NicFacts;

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

/* "[default] performance powersave powersupersave" -> "default" */
static void aspm_policy(const Sysroot *root, char *buf, size_t size) {
        char raw[128];
        char *a, *b;

        if (sysroot_read(root, "module/pcie_aspm/parameters", "policy", raw, sizeof(raw)) < 0 ||
            !(a = strchr(raw, '[')) || !(b = strchr(a, ']'))) {
                snprintf(buf, size, "unknown (no pcie_aspm policy: CONFIG_PCIEASPM=n?)");
                return;
        }
        *b = '\0';
        snprintf(buf, size, "%s", a + 1);
}

static void read_journal(NicFacts *f) {
        _cleanup_journal_ sd_journal *j = NULL;
        char match[64];
        size_t n = 0;

        if (sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY) < 0)
                return;
        snprintf(match, sizeof(match), "PCI_SLOT=%s", f->nic->slot);
        if (sd_journal_add_match(j, "SYSLOG_IDENTIFIER=r8169-tuned", 0) < 0 || sd_journal_add_match(j, match, 0) < 0 ||
            sd_journal_seek_tail(j) < 0) {
                return;
        }
        while (n < JOURNAL_LINES && sd_journal_previous(j) > 0) {
                const void *data;
                size_t len;
                uint64_t usec = 0;
                char *line;

                if (sd_journal_get_data(j, "MESSAGE", &data, &len) < 0 || len < 8)
                        continue;
                (void) sd_journal_get_realtime_usec(j, &usec);
                if (asprintf(&line, "%llu.%06llu %.*s", (unsigned long long) (usec / 1000000),
                             (unsigned long long) (usec % 1000000), (int) (len - 8), (const char *) data + 8) < 0)
                        break;
                f->journal[n++] = line;
        }
        /* Oldest first, as journalctl shows them. */
        for (size_t i = 0; i < n / 2; i++) {
                char *t = f->journal[i];
                f->journal[i] = f->journal[n - 1 - i];
                f->journal[n - 1 - i] = t;
        }
        f->n_journal = n;
}

static void gather(Context *c, NicFacts *f) {
        const char *ifname = nic_ifname(f->nic);

        context_plan_nic(c, f->nic, f->current, &f->plan);
        f->drv_error = ifname ? ethtool_ioctl_drvinfo(ifname, &f->drv) : -ENODEV;
        f->stats_error = ifname ? ethtool_ioctl_stats(ifname, &f->stats) : -ENODEV;
        read_journal(f);
}

static void facts_done(NicFacts *f) {
        ethtool_stats_done(&f->stats);
        for (size_t i = 0; i < f->n_journal; i++)
                free(f->journal[i]);
}

static const PlanItem *plan_item(const NicPlan *p, KnobId k) {
        for (size_t i = 0; i < p->n; i++)
                if (p->items[i].knob == k)
                        return &p->items[i];
        return NULL;
}

static const PlanItem *held_item(const NicPlan *p, KnobId k) {
        for (size_t i = 0; i < p->n_held; i++)
                if (p->held[i].knob == k)
                        return &p->held[i];
        return NULL;
}

static const char *current_text(KnobId k, const KnobReading *r, char *buf, size_t size) {
        if (r->status != KNOB_STATUS_OK)
                return knob_status_to_string(r->status);
        if (r->partial)
                return "partial";
        return knob_format_value(k, r->value, buf, size);
}

static void markdown_link_row(FILE *out, const char *what, const char *nic, const char *port) {
        fprintf(out, "| %s | %s | %s |\n", what, nic, port);
}

static void markdown(FILE *out, Context *c, const char *kernel, const char *policy, NicFacts *facts, size_t n) {
        const Machine *m = &c->machine;

        fprintf(out, "# r8169-tuned diagnose\n\n");
        fprintf(out, "- r8169-tuned: %s\n- kernel: %s\n", R8T_VERSION, kernel);
        if (m->dmi[DMI_SYS_VENDOR][0] || m->dmi[DMI_PRODUCT_NAME][0])
                fprintf(out, "- machine: %s %s (board: %s %s)\n", m->dmi[DMI_SYS_VENDOR], m->dmi[DMI_PRODUCT_NAME],
                        m->dmi[DMI_BOARD_VENDOR][0] ? m->dmi[DMI_BOARD_VENDOR] : "unknown", m->dmi[DMI_BOARD_NAME]);
        else
                fprintf(out, "- machine: unknown (no DMI data)\n");
        fprintf(out, "- power: %s; profile: %s\n- ASPM policy: %s\n", power_source_to_string(m->power),
                profile_to_string(c->profile), policy);
        if (n == 0)
                fprintf(out, "\nNo Realtek NIC found on this machine (%s): nothing to diagnose.\n", c->opts->sysfs);

        for (size_t i = 0; i < n; i++) {
                NicFacts *f = &facts[i];
                const Nic *nic = f->nic;
                char chip[700], a[64], b[64];

                fprintf(out, "\n## %s %s\n\n", nic->slot, nic_ifname(nic) ?: "(no interface)");
                fprintf(out, "| | |\n|---|---|\n");
                fprintf(out, "| chip | %s |\n", report_chip_line(nic, chip, sizeof(chip)));
                if (nic->xid_notes[0])
                        fprintf(out, "| identification notes | %s |\n", nic->xid_notes);
                fprintf(out, "| PCI | %04x:%04x rev %02x, subsystem %04x:%04x |\n", nic->vendor, nic->device, nic->revision,
                        nic->subsys_vendor, nic->subsys_device);
                fprintf(out, "| driver (sysfs) | %s |\n", nic->driver[0] ? nic->driver : "none");
                if (f->drv_error >= 0)
                        fprintf(out, "| driver (ethtool) | %s %s, firmware %s, bus %s |\n", f->drv.driver, f->drv.version,
                                f->drv.fw_version[0] ? f->drv.fw_version : "none", f->drv.bus_info[0] ? f->drv.bus_info : "none");
                else
                        fprintf(out, "| driver (ethtool) | unavailable: %s |\n", strerror(-f->drv_error));
                fprintf(out, "| permanent MAC | %s |\n", nic->perm_mac[0] ? nic->perm_mac : "unknown");

                fprintf(out, "\n### PCIe link\n\n| | NIC %s | port %s |\n|---|---|---|\n", nic->slot,
                        nic->upstream[0] ? nic->upstream : "(none)");
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

                fprintf(out, "\n### Knobs\n\n| knob | current | desired | why |\n|---|---|---|---|\n");
                for (int k = 0; k < _KNOB_MAX; k++) {
                        const PlanItem *it = plan_item(&f->plan, k), *held = held_item(&f->plan, k);
                        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], why[600], hb[64] = "-";
                        if (held)
                                snprintf(hb, sizeof(hb), "held back: %s", knob_format_value(k, held->desired, des, sizeof(des)));
                        fprintf(out, "| %s | %s | %s | %s |\n", knob_get(k)->name, current_text(k, &f->current[k], cur, sizeof(cur)),
                                !it ? hb : it->action == PLAN_EXCLUDED ? "not touched" : knob_format_value(k, it->desired, des, sizeof(des)),
                                it ? plan_provenance_string(&it->why, why, sizeof(why)) :
                                held ? plan_provenance_string(&held->why, why, sizeof(why)) : "");
                }
                if (f->plan.ignored)
                        fprintf(out, "\nIgnored by %s:%u.\n", f->plan.ignored_by.file, f->plan.ignored_by.line);

                fprintf(out, "\n### Driver statistics\n\n");
                if (f->stats_error < 0)
                        fprintf(out, "Unavailable: %s.\n", strerror(-f->stats_error));
                else if (f->stats.n == 0)
                        fprintf(out, "The driver reports none.\n");
                else {
                        fprintf(out, "| counter | value |\n|---|---|\n");
                        for (size_t s = 0; s < f->stats.n; s++)
                                fprintf(out, "| %s | %" PRIu64 " |\n", f->stats.names[s], f->stats.values[s]);
                }

                fprintf(out, "\n### Recent r8169-tuned messages\n\n");
                if (f->n_journal == 0)
                        fprintf(out, "None in the journal.\n");
                else {
                        fprintf(out, "```\n");
                        for (size_t s = 0; s < f->n_journal; s++)
                                fprintf(out, "%s\n", f->journal[s]);
                        fprintf(out, "```\n");
                }
        }
}

static void json(FILE *out, Context *c, const char *kernel, const char *policy, NicFacts *facts, size_t n) {
        fprintf(out, "{\"version\":\"%s\",\"kernel\":", R8T_VERSION);
        json_string(out, kernel);
        fputs(",\"dmi\":{", out);
        for (int d = 0; d < _DMI_FIELD_MAX; d++) {
                fprintf(out, "%s\"%s\":", d ? "," : "", dmi_field_to_string(d));
                json_string(out, c->machine.dmi[d][0] ? c->machine.dmi[d] : NULL);
        }
        fprintf(out, "},\"power_source\":\"%s\",\"profile\":\"%s\",\"aspm_policy\":", power_source_to_string(c->machine.power),
                profile_to_string(c->profile));
        json_string(out, policy);
        fputs(",\"nics\":[", out);
        for (size_t i = 0; i < n; i++) {
                NicFacts *f = &facts[i];
                if (i)
                        fputc(',', out);
                fputc('{', out);
                report_nic_json_members(out, f->nic);
                fputc(',', out);
                report_link_json(out, "upstream_link", &f->nic->upstream_link);
                fputs(",\"driver_info\":", out);
                if (f->drv_error < 0)
                        fputs("null", out);
                else {
                        fputs("{\"driver\":", out);
                        json_string(out, f->drv.driver);
                        fputs(",\"version\":", out);
                        json_string(out, f->drv.version);
                        fputs(",\"firmware\":", out);
                        json_string(out, f->drv.fw_version);
                        fputs(",\"bus_info\":", out);
                        json_string(out, f->drv.bus_info);
                        fputc('}', out);
                }
                fputs(",\"knobs\":{", out);
                for (int k = 0; k < _KNOB_MAX; k++) {
                        const PlanItem *it = plan_item(&f->plan, k);
                        char cur[KNOB_VALUE_MAX], des[KNOB_VALUE_MAX], why[600];
                        fprintf(out, "%s\"%s\":{\"current\":", k ? "," : "", knob_get(k)->name);
                        json_string(out, current_text(k, &f->current[k], cur, sizeof(cur)));
                        fputs(",\"desired\":", out);
                        json_string(out, it && it->action != PLAN_EXCLUDED ? knob_format_value(k, it->desired, des, sizeof(des)) : NULL);
                        fputs(",\"why\":", out);
                        json_string(out, it ? plan_provenance_string(&it->why, why, sizeof(why)) : NULL);
                        fputs(",\"held_back\":", out);
                        {
                                const PlanItem *held = held_item(&f->plan, k);
                                json_string(out, held ? knob_format_value(k, held->desired, des, sizeof(des)) : NULL);
                        }
                        fputc('}', out);
                }
                fputs("},\"statistics\":", out);
                if (f->stats_error < 0)
                        fputs("null", out);
                else {
                        fputc('{', out);
                        for (size_t s = 0; s < f->stats.n; s++) {
                                if (s)
                                        fputc(',', out);
                                json_string(out, f->stats.names[s]);
                                fprintf(out, ":%" PRIu64, f->stats.values[s]);
                        }
                        fputc('}', out);
                }
                fputs(",\"journal\":[", out);
                for (size_t s = 0; s < f->n_journal; s++) {
                        if (s)
                                fputc(',', out);
                        json_string(out, f->journal[s]);
                }
                fputs("]}", out);
        }
        fputs("]}\n", out);
}

int cmd_diagnose(const Options *o) {
        _cleanup_free_ bool *selected = NULL;
        _cleanup_free_ NicFacts *facts = NULL;
        char kernel[600], policy[128];
        struct utsname u;
        size_t n = 0;
        Context c;
        int ret = 1;

        /* A broken configuration is itself worth reporting: diagnose goes on without it. */
        if (context_open_selected(&c, o, false, &selected) < 0)
                goto out;
        if (context_load_policy(&c) < 0) {
                log_warning("Planned values below assume no configuration and no quirks.");
                machine_read(c.root, o->kernel_release, &c.machine);
                c.profile = profile_resolve(c.config.profile, c.machine.power);
        }
        if (uname(&u) >= 0)
                snprintf(kernel, sizeof(kernel), "%s %s %s", u.release, u.version, u.machine);
        else
                snprintf(kernel, sizeof(kernel), "unknown");
        aspm_policy(c.root, policy, sizeof(policy));
        facts = calloc(c.nics.n + 1, sizeof(NicFacts));
        if (!facts)
                goto out;
        for (size_t i = 0; i < c.nics.n; i++)
                if (selected[i]) {
                        facts[n].nic = &c.nics.nics[i];
                        gather(&c, &facts[n++]);
                }
        if (o->json)
                json(stdout, &c, kernel, policy, facts, n);
        else
                markdown(stdout, &c, kernel, policy, facts, n);
        for (size_t i = 0; i < n; i++)
                facts_done(&facts[i]);
        ret = 0;
out:
        context_done(&c);
        return ret;
}
