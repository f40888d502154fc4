/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics: the Prometheus text exposition format, for node_exporter's textfile collector. A
 * metric is one row of metrics[]: its name, type and help, and the function that writes its
 * samples for one NIC; a sample's name is the row's, never typed again.
 */
#include <inttypes.h>
#include <stdarg.h>

#include "show/metrics.h"
#include "show/report.h"

/* A Prometheus label value: backslash, double quote and newline escaped. */
static void prom_label(FILE *f, const char *name, const char *value, bool comma) {
        fprintf(f, "%s%s=\"", comma ? "," : "", name);
        for (const char *p = value ?: ""; *p; p++) {
                if (*p == '\\' || *p == '"')
                        fprintf(f, "\\%c", *p);
                else if (*p == '\n')
                        fputs("\\n", f);
                else
                        fputc(*p, f);
        }
        fputc('"', f);
}

typedef struct Metric Metric;
struct Metric {
        const char *name, *type, *help;
        void (*nic)(FILE *f, const Metric *m, const NicMetrics *nm);
};

/* name{slot="…",interface="…"[,label="value"]} then the value as fmt says. */
static void _printf_(6, 7) sample(FILE *f, const Metric *m, const Nic *n, const char *label, const char *value,
                                  const char *fmt, ...) {
        va_list ap;

        fprintf(f, "%s{", m->name);
        prom_label(f, "slot", n->slot, false);
        prom_label(f, "interface", nic_ifname(n), true);
        if (label)
                prom_label(f, label, value, true);
        fputs("} ", f);
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fputc('\n', f);
}

/* Knob k's item of the plan, if the plan sets it (not left out). */
static const PlanItem *metrics_item(const NicPlan *p, KnobId k) {
        const PlanItem *it = plan_items_find(p->items, p->n, k);
        return it && it->action != PLAN_EXCLUDED ? it : NULL;
}

static void nic_info(FILE *f, const Metric *m, const NicMetrics *nm) {
        const Nic *nic = nm->nic;
        char buf[32];

        fprintf(f, "%s{", m->name);
        prom_label(f, "slot", nic->slot, false);
        prom_label(f, "interface", nic_ifname(nic), true);
        prom_label(f, "chip", nic->chip ? nic->chip->name : "", true);
        snprintf(buf, sizeof(buf), "%03x", nic->xid);
        prom_label(f, "xid", nic->xid != CHIP_XID_INVALID ? buf : "", true);
        snprintf(buf, sizeof(buf), "%x", nic->xid2);
        prom_label(f, "xid_extended", nic->xid2 != CHIP_XID2_INVALID ? buf : "", true);
        prom_label(f, "xid_source", nic->xid_source != XID_SOURCE_NONE ? xid_source_to_string(nic->xid_source) : "", true);
        prom_label(f, "driver", nic->driver, true);
        snprintf(buf, sizeof(buf), "%04x:%04x", nic->vendor, nic->device);
        prom_label(f, "pci_id", buf, true);
        snprintf(buf, sizeof(buf), "%04x:%04x", nic->subsys_vendor, nic->subsys_device);
        prom_label(f, "subsystem", buf, true);
        fputs("} 1\n", f);
}

static void knob_readable(FILE *f, const Metric *m, const NicMetrics *nm) {
        for (int k = 0; k < _KNOB_MAX; k++) {
                const KnobReading *r = &nm->current[k];
                fprintf(f, "%s{", m->name);
                prom_label(f, "slot", nm->nic->slot, false);
                prom_label(f, "interface", nic_ifname(nm->nic), true);
                prom_label(f, "knob", knob_get(k)->name, true);
                prom_label(f, "status", knob_status_to_string(r->status), true);
                fprintf(f, "} %d\n", r->status == KNOB_STATUS_OK && !r->partial);
        }
}

static void knob_current(FILE *f, const Metric *m, const NicMetrics *nm) {
        for (int k = 0; k < _KNOB_MAX; k++)
                if (nm->current[k].status == KNOB_STATUS_OK && !nm->current[k].partial)
                        sample(f, m, nm->nic, "knob", knob_get(k)->name, "%" PRIu64, nm->current[k].value);
}

static void knob_desired(FILE *f, const Metric *m, const NicMetrics *nm) {
        for (int k = 0; k < _KNOB_MAX; k++) {
                const PlanItem *it = metrics_item(&nm->plan, k);
                if (it)
                        sample(f, m, nm->nic, "knob", knob_get(k)->name, "%" PRIu64, it->desired);
        }
}

static void knob_drift(FILE *f, const Metric *m, const NicMetrics *nm) {
        for (int k = 0; k < _KNOB_MAX; k++) {
                const PlanItem *it = metrics_item(&nm->plan, k);
                if (it)
                        sample(f, m, nm->nic, "knob", knob_get(k)->name, "%d", it->action == PLAN_CHANGE);
        }
}

static void tx_timeouts(FILE *f, const Metric *m, const NicMetrics *nm) {
        if (nm->tx_timeouts_known)
                sample(f, m, nm->nic, NULL, NULL, "%" PRIu64, nm->tx_timeouts);
}

static void tx_guard(FILE *f, const Metric *m, const NicMetrics *nm) {
        sample(f, m, nm->nic, NULL, NULL, "%d", nm->plan.tx_guard);
}

static void l1_on(FILE *f, const Metric *m, const NicMetrics *nm) {
        if (nm->link_power_known && !streq(nm->link_power.state, "stopped"))
                sample(f, m, nm->nic, NULL, NULL, "%d", streq(nm->link_power.state, "idle"));
}

static void lp_transitions(FILE *f, const Metric *m, const NicMetrics *nm) {
        if (nm->link_power_known)
                sample(f, m, nm->nic, NULL, NULL, "%u", nm->link_power.transitions);
}

static void lp_seconds(FILE *f, const Metric *m, const NicMetrics *nm) {
        if (!nm->link_power_known)
                return;
        sample(f, m, nm->nic, "state", "l1_on", "%.3f", (double) nm->link_power.idle_usec / 1e6);
        sample(f, m, nm->nic, "state", "l1_off", "%.3f", (double) nm->link_power.busy_usec / 1e6);
}

static void lp_wakeups(FILE *f, const Metric *m, const NicMetrics *nm) {
        if (!nm->link_power_known)
                return;
        sample(f, m, nm->nic, "outcome", "busy", "%u", nm->link_power.wakeups - nm->link_power.strays);
        sample(f, m, nm->nic, "outcome", "stray", "%u", nm->link_power.strays);
}

static void lp_quiet(FILE *f, const Metric *m, const NicMetrics *nm) {
        if (nm->link_power_known && nm->link_power.quiet_usec)
                sample(f, m, nm->nic, NULL, NULL, "%.3f", (double) nm->link_power.quiet_usec / 1e6);
}

static const Metric metrics[] = {
        { "r8169_tuned_nic_info", "gauge", "A Realtek NIC: its chip, XID and driver (always 1).", nic_info },
        { "r8169_tuned_knob_readable", "gauge", "1 if the knob's current value could be read, else 0.", knob_readable },
        { "r8169_tuned_knob_current", "gauge", "The knob's current value (on/off knobs: 1/0), where it could be read.",
          knob_current },
        { "r8169_tuned_knob_desired", "gauge", "The value the plan wants for the knob (on/off knobs: 1/0), where it wants one.",
          knob_desired },
        { "r8169_tuned_knob_drift", "gauge",
          "1 if the knob's current value is not the one the plan wants (apply would change it), else 0.", knob_drift },
        { "r8169_tuned_tx_timeouts_total", "counter", "The tx watchdog's timeouts of the NIC, summed over its queues.",
          tx_timeouts },
        { "r8169_tuned_tx_timeout_guard", "gauge", "1 if L1 stays off for the NIC's link until reboot after a tx timeout.",
          tx_guard },
        { "r8169_tuned_link_power_l1_on", "gauge",
          "Dynamic link power: 1 while it keeps L1 on (the link is quiet), 0 while L1 is off for load.", l1_on },
        { "r8169_tuned_link_power_transitions_total", "counter",
          "Dynamic link power: L1 turned off or on since the daemon started.", lp_transitions },
        { "r8169_tuned_link_power_seconds_total", "counter",
          "Dynamic link power: time with L1 on (state=\"l1_on\") and off for load (state=\"l1_off\").", lp_seconds },
        { "r8169_tuned_link_power_wakeups_total", "counter",
          "Dynamic link power: frames that woke it on the quiet link, by what their window decided (L1 off: busy; nothing: stray).",
          lp_wakeups },
        { "r8169_tuned_link_power_quiet_seconds", "gauge",
          "Dynamic link power: the quiet time in force (configured, or learnt from the traffic).", lp_quiet },
};

static void prom_header(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void report_metrics(FILE *f, const NicMetrics *m, size_t n, Profile profile, PowerSource power, size_t config_problems) {
        prom_header(f, "r8169_tuned_info", "gauge", "r8169-tuned's version, the profile in effect and the power source (always 1).");
        fputs("r8169_tuned_info{", f);
        prom_label(f, "version", R8T_VERSION, false);
        prom_label(f, "profile", profile_to_string(profile), true);
        prom_label(f, "power_source", power_source_to_string(power), true);
        fputs("} 1\n", f);
        prom_header(f, "r8169_tuned_nics", "gauge", "Realtek NICs found.");
        fprintf(f, "r8169_tuned_nics %zu\n", n);
        prom_header(f, "r8169_tuned_config_problems", "gauge",
                    "Problems in configuration and quirk files (each such file is left out; check-config lists them).");
        fprintf(f, "r8169_tuned_config_problems %zu\n", config_problems);
        for (size_t i = 0; i < ELEMENTSOF(metrics); i++) {
                prom_header(f, metrics[i].name, metrics[i].type, metrics[i].help);
                for (size_t k = 0; k < n; k++)
                        metrics[i].nic(f, &metrics[i], &m[k]);
        }
}
