/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report.h"

static const char *aspm_states(uint8_t bits) {
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

static void knob_text(FILE *f, KnobId id, const KnobReading *r) {
        char buf[KNOB_VALUE_MAX];

        fprintf(f, "    %-22s ", knob_get(id)->name);
        if (r->status == KNOB_STATUS_OK) {
                fputs(r->partial ? "partly on" : knob_format_value(id, r->value, buf, sizeof(buf)), f);
                if (r->fixed)
                        fputs(" [fixed]", f);
        } else {
                fputs(knob_status_to_string(r->status), f);
                if (r->message[0])
                        fprintf(f, " (%s)", r->message);
                else if (r->error)
                        fprintf(f, " (%s)", strerror(-r->error));
        }
        fputc('\n', f);
}

void report_status_text(FILE *f, const NicStatus *s, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const Nic *nic = s[i].nic;
                const PciLink *l = &nic->link;
                char chip[700];

                if (i > 0)
                        fputc('\n', f);
                fprintf(f, "%s  %s  %s\n", nic->slot, nic_ifname(nic) ?: "(no interface)",
                        report_chip_line(nic, chip, sizeof(chip)));
                fprintf(f, "  PCI %04x:%04x subsystem %04x:%04x rev %02x, driver %s", nic->vendor, nic->device,
                        nic->subsys_vendor, nic->subsys_device, nic->revision, nic->driver[0] ? nic->driver : "none");
                if (nic->perm_mac[0])
                        fprintf(f, ", MAC %s", nic->perm_mac);
                fputc('\n', f);
                if (l->pcie)
                        fprintf(f, "  link: ASPM %s supported, %s enabled; CLKPM %s%s%s\n", aspm_states(l->aspm_support),
                                aspm_states(l->aspm_control),
                                l->clkpm_capable ? "capable" : "not capable",
                                l->clkpm_enabled ? ", enabled" : "",
                                l->l1ss ? "; L1 substates capable" : "");
                fputs("  knobs:\n", f);
                for (int k = 0; k < _KNOB_MAX; k++)
                        knob_text(f, k, &s[i].knobs[k]);
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
        fprintf(f, "\"link\":{\"pcie\":%s,\"aspm_support\":\"%s\",\"aspm_enabled\":\"%s\",\"clkpm_capable\":%s,"
                   "\"clkpm_enabled\":%s,\"l1ss\":%s,\"l1ss_cap\":\"0x%08x\",\"l1ss_ctl1\":\"0x%08x\"}",
                n->link.pcie ? "true" : "false", aspm_states(n->link.aspm_support), aspm_states(n->link.aspm_control),
                n->link.clkpm_capable ? "true" : "false", n->link.clkpm_enabled ? "true" : "false",
                n->link.l1ss ? "true" : "false", n->link.l1ss_cap, n->link.l1ss_ctl1);
}

void report_status_json(FILE *f, const NicStatus *s, size_t n) {
        fputs("{\"nics\":[", f);
        for (size_t i = 0; i < n; i++) {
                if (i)
                        fputc(',', f);
                fputc('{', f);
                report_nic_json_members(f, s[i].nic);
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
