/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>

#include "show/quirks.h"
#include "show/report.h"

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
        report_print_wrapped(f, "  reason =", "    ", q->reason);
        if (q->evidence)
                report_print_wrapped(f, "  evidence =", "    ", q->evidence);
        if (q->counter_evidence)
                report_print_wrapped(f, "  counter-evidence =", "    ", q->counter_evidence);
        report_print_wrapped(f, "  reference =", "    ", q->reference);
}

void report_quirk_grounds_text(FILE *f, const Quirk *q, const char *first) {
        report_print_wrapped(f, first, "    ", q->reason);
        if (q->evidence)
                report_print_wrapped(f, "    evidence:", "      ", q->evidence);
        if (q->counter_evidence)
                report_print_wrapped(f, "    counter-evidence:", "      ", q->counter_evidence);
        report_print_wrapped(f, "    see:", "      ", q->reference);
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
