/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the service publishes: STATUS= for systemctl status (at the end), and the metrics file.
 *
 * metrics-textfile: the service publishes what "r8169-tuned metrics" prints, with what only it
 * knows (each NIC's state, its failed writes), for node_exporter's textfile collector. Written
 * after every change, at most every METRICS_MIN_GAP (a burst of events is one write), and at
 * every metrics-interval: the heartbeat, so that a stale file shows. As node_exporter's own
 * collector scripts do, into a temporary file of the same directory renamed over the old one
 * (write_file_atomic): a scrape never sees half a file, nothing is written through a symlink,
 * and neither a symlink nor another user's file where it goes is replaced. A write that fails
 * is said once, until one succeeds again; the tuning goes on.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "daemon/manager-internal.h"
#include "show/metrics.h"
#include "state/link-power-record.h"

/* A change is published within this much of the last write: changes show within a second. */
#define METRICS_MIN_GAP_USEC (250 * 1000)

/* That, or what R8T_TEST_METRICS_GAP_USEC says: a test of a thousand writes need not take minutes. */
static uint64_t metrics_min_gap(void) {
        const char *e = getenv("R8T_TEST_METRICS_GAP_USEC");
        uint64_t v;

        return e && parse_u64_base(e, 10, &v) >= 0 && v <= METRICS_MIN_GAP_USEC ? v : METRICS_MIN_GAP_USEC;
}

/* One NIC as the service sees it: read and planned as its applies plan it, with its state and failed writes. */
static void metrics_link(Manager *m, Link *l, NicMetrics *nm) {
        nm->nic = &l->nic;
        link_plan_now(l, &m->env, true, nm->current, &nm->plan);
        nm->tx_timeouts_known = nic_read_tx_timeouts(m->c.root, &l->nic, &nm->tx_timeouts) >= 0;
        nm->link_power_known = link_power_record_load(m->opts->state_dir, l->nic.slot, &nm->link_power) >= 0;
        nm->state = link_state_to_string(l->state);
        nm->failures_known = true;
        for (int k = 0; k < _KNOB_MAX; k++)
                nm->failures[k] = l->knobs[k].failures;
}

typedef struct MetricsText {
        const MetricsService *service;
        const NicMetrics *nics;
        size_t n;
} MetricsText;

static void metrics_text(FILE *f, const void *userdata) {
        const MetricsText *t = userdata;
        report_metrics(f, t->service, t->nics, t->n);
}

/* One write of the file, whole or not at all (write_file_atomic): 0 or -errno. */
static int metrics_write(Manager *m, const char *path, bool running) {
        _cleanup_free_ NicMetrics *nm = calloc(m->links.n ?: 1, sizeof(NicMetrics));
        MetricsService s;

        if (!nm)
                return -ENOMEM;
        for (size_t i = 0; i < m->links.n; i++)
                metrics_link(m, &m->links.links[i], &nm[i]);
        s = (MetricsService) { .profile = m->c.profile, .profile_source = context_profile_source(&m->c),
                               .power = m->c.machine.power, .config_problems = m->c.problems.n, .running = running,
                               .time_usec = now_realtime_usec() };
        return write_file_atomic(path, 0644, metrics_text, &(MetricsText) { &s, nm, m->links.n });
}

static void metrics_publish(Manager *m, bool running) {
        ManagerMetrics *mm = &m->metrics;
        int r;

        if (!mm->path)
                return;
        r = metrics_write(m, mm->path, running);
        mm->last_usec = now_monotonic_usec();
        if (r < 0 && !mm->failing)
                log_warning_errno(r, "Cannot publish the metrics to %s: %s%s. Tuning goes on; this is said again "
                                  "when publishing works again.", mm->path, write_file_refusal(r),
                                  r == -EROFS || r == -EACCES ? " (the unit may write only /var/lib/prometheus/node-exporter, "
                                                               "and only if it was there when the service started: restart it, "
                                                               "or give it ReadWritePaths= for another directory; r8169-tuned.conf(5))"
                                  : "");
        else if (r >= 0 && mm->failing)
                log_info("Metrics published to %s again.", mm->path);
        else if (r >= 0)
                log_debug("Metrics published to %s.", mm->path);
        mm->failing = r < 0;
}

static int on_metrics_soon(sd_event_source *s, uint64_t usec, void *userdata) {
        metrics_publish(userdata, true);
        return 0;
}

static int on_metrics_heartbeat(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        int r;

        metrics_publish(m, true);
        /* From now, not from when it was due: a stalled loop does not catch up with a burst of writes. */
        r = sd_event_source_set_time_relative(s, m->c.config.metrics_interval_s * 1000000);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (r < 0)
                log_warning_errno(r, "Cannot set the metrics' heartbeat again; the file is written only on changes: %m");
        return 0;
}

void manager_metrics_changed(Manager *m) {
        ManagerMetrics *mm = &m->metrics;
        uint64_t now = now_monotonic_usec(), gap = mm->gap_usec, at;

        if (!mm->path || !mm->soon)
                return;
        if (sd_event_source_get_enabled(mm->soon, NULL) > 0)
                return; /* one is due already: it reads what is then */
        at = mm->last_usec && now < mm->last_usec + gap ? mm->last_usec + gap : now;
        (void) sd_event_source_set_time(mm->soon, at);
        (void) sd_event_source_set_enabled(mm->soon, SD_EVENT_ONESHOT);
}

/* A file the service published and no longer does (metrics-textfile changed or turned off): it goes, if it is ours. */
static void metrics_remove(const char *path) {
        struct stat st;

        if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
                return;
        if (unlink(path) < 0)
                log_warning_errno(errno, "Cannot remove %s, which the metrics no longer go to: %m", path);
        else
                log_info("Removed %s: the metrics no longer go there.", path);
}

int manager_metrics_configure(Manager *m) {
        ManagerMetrics *mm = &m->metrics;
        const char *path = m->c.config.metrics_textfile;
        uint64_t now = now_monotonic_usec(), interval = m->c.config.metrics_interval_s * 1000000;
        int r = 0;

        /* A file left out for a problem must not silence the metrics: while there are problems, they go on where they went. */
        if (!path && mm->path && m->c.problems.n > 0) {
                log_warning("The configuration has problems and no longer names metrics-textfile: the metrics still go to %s.",
                            mm->path);
                path = mm->path;
        }
        if (mm->path && !streq_ptr(mm->path, path))
                metrics_remove(mm->path);
        if (!streq_ptr(mm->path, path)) {
                free(mm->path);
                mm->path = path ? strdup(path) : NULL;
                mm->failing = false;
                if (path && !mm->path)
                        return log_oom();
        }
        mm->gap_usec = metrics_min_gap();
        if (!mm->path) {
                mm->soon = sd_event_source_disable_unref(mm->soon);
                mm->heartbeat = sd_event_source_disable_unref(mm->heartbeat);
                return 0;
        }
        if (!mm->soon) {
                r = sd_event_add_time(m->event, &mm->soon, CLOCK_MONOTONIC, now, 0, on_metrics_soon, m);
                if (r >= 0)
                        r = sd_event_source_set_priority(mm->soon, SD_EVENT_PRIORITY_IDLE + 10);
        }
        if (r >= 0 && !mm->heartbeat)
                r = sd_event_add_time(m->event, &mm->heartbeat, CLOCK_MONOTONIC, now + interval, 1000000,
                                      on_metrics_heartbeat, m);
        else if (r >= 0)
                r = sd_event_source_set_time(mm->heartbeat, now + interval);
        if (r >= 0)
                r = sd_event_source_set_priority(mm->heartbeat, SD_EVENT_PRIORITY_IDLE + 10);
        if (r >= 0)
                r = sd_event_source_set_enabled(mm->heartbeat, SD_EVENT_ONESHOT);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the metrics' timers, none are published: %m");
        manager_metrics_changed(m);
        return 0;
}

void manager_metrics_stopped(Manager *m) {
        metrics_publish(m, false);
}

void manager_metrics_done(Manager *m) {
        m->metrics.soon = sd_event_source_disable_unref(m->metrics.soon);
        m->metrics.heartbeat = sd_event_source_disable_unref(m->metrics.heartbeat);
        free(m->metrics.path);
        m->metrics.path = NULL;
}

/* ---- STATUS=: what systemctl status shows ---- */

/* The least time between two STATUS= that only count NICs: a burst of hotplugs sends a few, not one each. */
#define STATUS_MIN_GAP_USEC (100 * 1000)

/* The gap runs from when a STATUS= goes, not from the loop's wake-up (sd_event_now()): a long round would shorten it. */
static void status_send(Manager *m, const char *extra) {
        char text[sizeof(m->status) + 64];

        snprintf(text, sizeof(text), "%s%s", extra ?: "", m->status);
        notifier_send(&m->notify, text);
        m->status_usec = now_monotonic_usec();
        if (m->status_soon)
                (void) sd_event_source_set_enabled(m->status_soon, SD_EVENT_OFF);
}

static int on_status_soon(sd_event_source *s, uint64_t usec, void *userdata) {
        status_send(userdata, NULL);
        return 0;
}

void manager_notify_status(Manager *m, const char *extra) {
        char status[256], w[64] = "";

        /* Nobody listens (started by hand): no text made, no timer armed. */
        if (!notifier_listening(&m->notify))
                return;
        if (m->n_waiting)
                snprintf(w, sizeof(w), ", %u waiting for an interface", m->n_waiting);
        snprintf(status, sizeof(status), "STATUS=%u NIC%s tuned%s, %u unsupported knob%s (profile %s)", m->n_tuned,
                 m->n_tuned == 1 ? "" : "s", w, m->n_unsupported, m->n_unsupported == 1 ? "" : "s",
                 profile_to_string(m->c.profile));
        /* Nothing new, nothing sent: a burst of events is not a burst of messages to PID 1. */
        if (!extra && streq(status, m->status))
                return;
        memcpy(m->status, status, sizeof(status));
        if (extra || m->status_usec == 0 || now_monotonic_usec() >= m->status_usec + STATUS_MIN_GAP_USEC) {
                status_send(m, extra);
                return;
        }
        /* Within the gap: the text waits for its end (one timer, armed only then: idle stays idle). */
        if (m->status_soon) {
                (void) sd_event_source_set_time(m->status_soon, m->status_usec + STATUS_MIN_GAP_USEC);
                (void) sd_event_source_set_enabled(m->status_soon, SD_EVENT_ONESHOT);
        } else if (sd_event_add_time(m->event, &m->status_soon, CLOCK_MONOTONIC, m->status_usec + STATUS_MIN_GAP_USEC,
                                     10 * 1000, on_status_soon, m) < 0)
                status_send(m, NULL);
}
