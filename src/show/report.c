/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>

#include "kernel/chip.h"
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

void report_unknown_chip_advice(Out *o, const Nic *n) {
        if (n->chip)
                return;
        if (!n->driver[0])
                out_text_wrapped(o, "  ", "  ",
                                 "No driver is bound: this NIC does not work at all. The kernel's r8169 may be too old for "
                                 "this chip: a newer kernel (Debian: its backports) is the first thing to try.");
        out_text_wrapped(o, "  ", "  ",
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

void report_link_power(Out *o, const char *key, const LinkPowerRecord *rec) {
        if (!rec) {
                out_json_str(o, key, NULL);
                return;
        }
        out_object_begin(o, key);
        out_json_str(o, "state", rec->state);
        out_json_str(o, "reason", rec->reason[0] ? rec->reason : NULL);
        out_json_u64(o, "transitions", rec->transitions);
        out_json_decimal(o, "l1_on_seconds", (double) rec->idle_usec / 1e6, 3);
        out_json_decimal(o, "l1_off_seconds", (double) rec->busy_usec / 1e6, 3);
        if (rec->quiet_usec)
                out_json_decimal(o, "quiet_seconds", (double) rec->quiet_usec / 1e6, 3);
        else
                out_json_str(o, "quiet_seconds", NULL);
        out_json_u64(o, "wakeups", rec->wakeups);
        out_json_u64(o, "stray_wakeups", rec->strays);
        out_json_u64(o, "mispredictions", rec->mispredictions);
        out_object_end(o);
        if (streq(rec->state, "stopped")) {
                out_text(o, "  link power: dynamic, off for this link: %s\n", rec->reason);
                return;
        }
        out_text(o, "  link power: dynamic, %s (L1 %s); L1 on %.0f s, off %.0f s, %u transitions", rec->state,
                 streq(rec->state, "busy") ? "off" : "on", (double) rec->idle_usec / 1e6, (double) rec->busy_usec / 1e6,
                 rec->transitions);
        if (rec->quiet_usec)
                out_text(o, "; quiet time %.1f s", (double) rec->quiet_usec / 1e6);
        out_text(o, "; %u wakeups (%u stray), %u mispredicted\n", rec->wakeups, rec->strays, rec->mispredictions);
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
        json_kv_knob_or_null(w, "value", r->status == KNOB_STATUS_OK && !r->partial, k, r->value);
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
        json_kv_str(w, "runtime_status", n->runtime_status[0] ? n->runtime_status : NULL);
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

void report_config_problems(Out *o, const Diagnostics *d) {
        out_array_begin(o, "config_problems");
        for (size_t i = 0; i < d->n; i++) {
                out_object_begin(o, NULL);
                out_json_str(o, "file", d->files[i]);
                out_json_u64(o, "line", d->lines[i]);
                out_json_str(o, "message", diag_text(d, i));
                out_object_end(o);
        }
        out_array_end(o);
}

const char *report_reading_text(KnobId k, const KnobReading *r, char *buf, size_t size) {
        if (r->status != KNOB_STATUS_OK)
                return knob_status_to_string(r->status);
        if (r->partial)
                return "partial";
        return knob_format_value(k, r->value, buf, size);
}

void link_explain_init(LinkExplain *e, const Sysroot *root, const Nic *n, const LinkLog *log, const AspmControlLog *aspm,
                       unsigned ethtool_mbps) {
        const char *line;

        *e = (LinkExplain) { .log = log ? *log : (LinkLog) {} };
        if (ethtool_mbps > 0)
                e->mbps = ethtool_mbps, e->mbps_source = "ethtool";
        else if (e->log.up_mbps > 0)
                e->mbps = e->log.up_mbps, e->mbps_source = "kernel-log";
        e->attrs_missing = nic_link_attrs_missing(root, n, aspm, &line);
        snprintf(e->attrs_line, sizeof(e->attrs_line), "%s", line ?: "");
}

bool report_link_explain_says(const Nic *n, const LinkExplain *e) {
        unsigned chip = chip_max_mbps(n->chip);
        return e->log.negotiated_mbps > 0 || (e->mbps > 0 && chip > 0 && e->mbps < chip) || e->attrs_missing;
}

void report_link_explain(Out *o, const Nic *n, const LinkExplain *e, const char *prefix) {
        JsonWriter *w = out_json(o);
        unsigned chip = chip_max_mbps(n->chip);
        bool downshift = e->log.negotiated_mbps > 0;

        if (w) {
                json_key(w, "link_speed");
                json_object_begin(w);
                json_kv_u64_or_null(w, "mbps", e->mbps > 0, e->mbps);
                json_key(w, "source");
                if (e->mbps_source)
                        json_str(w, e->mbps_source);
                else
                        json_null(w);
                json_kv_u64_or_null(w, "chip_mbps", chip > 0, chip);
                json_key(w, "downshift");
                if (downshift) {
                        json_object_begin(w);
                        json_kv_u64_or_null(w, "negotiated_mbps", true, e->log.negotiated_mbps);
                        json_kv_u64_or_null(w, "actual_mbps", true, e->log.actual_mbps);
                        json_object_end(w);
                } else
                        json_null(w);
                json_object_end(w);
                json_key(w, "link_attrs_missing");
                if (e->attrs_missing)
                        json_str(w, e->attrs_missing);
                else
                        json_null(w);
                json_key(w, "link_attrs_kernel_line");
                if (e->attrs_line[0])
                        json_str(w, e->attrs_line);
                else
                        json_null(w);
                return;
        }
        if (downshift)
                out_text(o, "%sspeed: the PHY downshifted from the negotiated %u Mb/s to %u Mb/s (kernel log): check the cable "
                            "and the port%s\n", prefix, e->log.negotiated_mbps, e->log.actual_mbps,
                         e->mbps > 0 && e->mbps != e->log.actual_mbps ? "; the link has come up at another speed since" : "");
        else if (e->mbps > 0 && chip > 0 && e->mbps < chip)
                out_text(o, "%sspeed: %u Mb/s (%s), below the %u Mb/s this chip does: the link partner, the cable or an "
                            "advertisement limits it\n", prefix, e->mbps, e->mbps_source, chip);
        if (e->attrs_missing) {
                char first[64];
                snprintf(first, sizeof(first), "%sASPM knobs (link/): not there:", prefix);
                out_text_wrapped(o, first, "    ", e->attrs_missing);
                if (e->attrs_line[0])
                        out_text(o, "    kernel: %s\n", e->attrs_line);
        }
}
