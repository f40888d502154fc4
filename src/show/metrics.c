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

/* The labels every sample of a NIC has: device (the interface, as node_exporter's own), slot, chip and XID. */
static void nic_labels(FILE *f, const Nic *n) {
        char xid[8];

        snprintf(xid, sizeof(xid), "%03x", n->xid);
        prom_label(f, "device", nic_ifname(n), false);
        prom_label(f, "slot", n->slot, true);
        prom_label(f, "chip", n->chip ? n->chip->name : "", true);
        prom_label(f, "xid", n->xid != CHIP_XID_INVALID ? xid : "", true);
}

/* name{device="…",slot="…",chip="…",xid="…"[,label="value"]} then the value as fmt says. */
static void _printf_(6, 7) sample(FILE *f, const Metric *m, const Nic *n, const char *label, const char *value,
                                  const char *fmt, ...) {
        va_list ap;

        fprintf(f, "%s{", m->name);
        nic_labels(f, n);
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
        nic_labels(f, nic);
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
                nic_labels(f, nm->nic);
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

const char *const metrics_nic_states[4] = { "tuned", "waiting", "failed", "released" };

/* The service's state of the NIC: 1 for the one it is in, 0 for the others (as node_exporter's systemd unit states). */
static void nic_state(FILE *f, const Metric *m, const NicMetrics *nm) {
        if (nm->state)
                for (size_t i = 0; i < ELEMENTSOF(metrics_nic_states); i++)
                        sample(f, m, nm->nic, "state", metrics_nic_states[i], "%d", streq(nm->state, metrics_nic_states[i]));
}

/* Every knob the plan sets, or that ever failed: a counter is there at 0 before its first increase. */
static void write_failures(FILE *f, const Metric *m, const NicMetrics *nm) {
        if (nm->failures_known)
                for (int k = 0; k < _KNOB_MAX; k++)
                        if (metrics_item(&nm->plan, k) || nm->failures[k])
                                sample(f, m, nm->nic, "knob", knob_get(k)->name, "%u", nm->failures[k]);
}

static void suggestions(FILE *f, const Metric *m, const NicMetrics *nm) {
        sample(f, m, nm->nic, NULL, NULL, "%zu", nm->plan.n_suggested);
}

static void tx_timeouts(FILE *f, const Metric *m, const NicMetrics *nm) {
        if (nm->tx_timeouts_known)
                sample(f, m, nm->nic, NULL, NULL, "%" PRIu64, nm->tx_timeouts);
}

static void tx_guard(FILE *f, const Metric *m, const NicMetrics *nm) {
        sample(f, m, nm->nic, "guard", "l1", "%d", nm->plan.tx_guard);
        sample(f, m, nm->nic, "guard", "entries", "%d", nm->plan.entry_guard);
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
        { "r8169_tuned_nic_state", "gauge",
          "The service's state of the NIC: 1 for the one it is in (tuned, waiting for its interface, failed: a write failed or "
          "did not hold, released: given back), else 0.", nic_state },
        { "r8169_tuned_knob_readable", "gauge", "1 if the knob's current value could be read, else 0.", knob_readable },
        { "r8169_tuned_knob_current", "gauge", "The knob's current value (on/off knobs: 1/0), where it could be read.",
          knob_current },
        { "r8169_tuned_knob_desired", "gauge", "The value the plan wants for the knob (on/off knobs: 1/0), where it wants one.",
          knob_desired },
        { "r8169_tuned_knob_drift", "gauge",
          "1 if the knob's current value is not the one the plan wants (apply would change it), else 0.", knob_drift },
        { "r8169_tuned_knob_write_failures_total", "counter",
          "Writes of the knob that failed or did not hold, since the service found the NIC.", write_failures },
        { "r8169_tuned_suggestions_not_applied", "gauge",
          "Values that reported entries suggest for the NIC and that are not applied (suggestions = show).", suggestions },
        { "r8169_tuned_tx_timeouts_total", "counter", "The tx watchdog's timeouts of the NIC, summed over its queues.",
          tx_timeouts },
        { "r8169_tuned_tx_timeout_guard", "gauge", "1 if a tx timeout of the link tripped the guard: L1 stays off until reboot (guard=\"l1\"), the entries with "
          "guard = tx-timeout are withheld (guard=\"entries\").",
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

void report_metrics(FILE *f, const MetricsService *s, const NicMetrics *m, size_t n) {
        prom_header(f, "r8169_tuned_info", "gauge",
                    "r8169-tuned's version, the profile in effect, what chose it and the power source (always 1).");
        fputs("r8169_tuned_info{", f);
        prom_label(f, "version", R8T_VERSION, false);
        prom_label(f, "profile", profile_to_string(s->profile), true);
        prom_label(f, "profile_source", s->profile_source, true);
        prom_label(f, "power_source", power_source_to_string(s->power), true);
        fputs("} 1\n", f);
        prom_header(f, "r8169_tuned_running", "gauge", "1 while the service runs; 0 when it does not (its last words when it stopped).");
        fprintf(f, "r8169_tuned_running %d\n", s->running);
        prom_header(f, "r8169_tuned_last_update_timestamp_seconds", "gauge", "When these values were read (Unix time).");
        fprintf(f, "r8169_tuned_last_update_timestamp_seconds %" PRIu64 ".%03" PRIu64 "\n", s->time_usec / 1000000,
                s->time_usec / 1000 % 1000);
        prom_header(f, "r8169_tuned_nics", "gauge", "Realtek NICs found.");
        fprintf(f, "r8169_tuned_nics %zu\n", n);
        prom_header(f, "r8169_tuned_config_problems", "gauge",
                    "Problems in configuration and quirk files (each such file is left out; check-config lists them).");
        fprintf(f, "r8169_tuned_config_problems %zu\n", s->config_problems);
        for (size_t i = 0; i < ELEMENTSOF(metrics); i++) {
                prom_header(f, metrics[i].name, metrics[i].type, metrics[i].help);
                for (size_t k = 0; k < n; k++)
                        metrics[i].nic(f, &metrics[i], &m[k]);
        }
}
