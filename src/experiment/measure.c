/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The experiment's measurement: rounds of baseline and candidate in random order (the network
 * drifts), both directions, iperf3 against the user's server; every change through apply_nic()
 * and its undo journal, and back to the NIC as found with restore_nic(), checked against what
 * was found. Between tests the link settles; a signal ends any wait within 200 ms.
 */
#include <netdb.h>
#include <time.h>

#include "base/log.h"
#include "decide/nic-log.h"
#include "experiment/measure.h"
#include "experiment/power.h"
#include "experiment/results.h"
#include "show/report.h"

/* After a change, before the next test: a driver may reset its rings, a link (EEE) renegotiate. */
#define SETTLE_MS 300
#define CARRIER_WAIT_MS (10 * 1000)

/* xorshift64*: the order of the arms only has to be unpredictable to the network, not to anyone else. */
static uint64_t rng_next(Experiment *e) {
        e->rng ^= e->rng >> 12;
        e->rng ^= e->rng << 25;
        e->rng ^= e->rng >> 27;
        return e->rng * 2685821657736338717ULL;
}

static void measure_progress(Experiment *e, const Trial *t, size_t index, size_t round) {
        uint64_t elapsed = now_monotonic_usec() - e->started_usec;
        double per_test = e->tests_done ? (double) elapsed / e->tests_done : (e->seconds + 0.5) * 1e6;
        unsigned left = (unsigned) (per_test * (e->tests_total - e->tests_done) / 1e6);
        char name[64];

        if (!e->tty)
                return;
        fprintf(stderr, "\r\033[K%s (%zu of %zu): round %zu of %u, about %u:%02u left", candidate_settings_string(&t->cand, name, sizeof(name)),
                index + 1, e->n_trials, round + 1, e->rounds, left / 60, left % 60);
        fflush(stderr);
}

void measure_progress_clear(Experiment *e) {
        if (e->tty)
                fputs("\r\033[K", stderr);
}

/* After a change: the link up again (an EEE change renegotiates, about 3 s), then a moment more. */
int measure_settle(Experiment *e) {
        uint64_t end = now_monotonic_usec() + (uint64_t) CARRIER_WAIT_MS * 1000;
        char dir[64];

        snprintf(dir, sizeof(dir), "class/net/%s", e->ifname);
        for (;;) {
                uint64_t carrier;
                int r;

                /* Unreadable (a fixture without it) counts as up; down is waited for, then said. */
                if (sysroot_read_u64(e->c.root, dir, "carrier", &carrier) < 0 || carrier == 1)
                        break;
                if (now_monotonic_usec() > end) {
                        log_warning("%s: no carrier %u s after the change; measuring anyway.", e->ifname, CARRIER_WAIT_MS / 1000);
                        break;
                }
                r = experiment_pause_ms(100);
                if (r < 0)
                        return r;
        }
        return experiment_pause_ms(SETTLE_MS);
}

/* One iperf3 test; a server still busy (with the last test, or someone else's) is asked again, a second apart. */
static int measure_iperf(Experiment *e, Direction d, IperfResult *ret) {
        char err[256] = "";
        int r = -EIO;

        e->req.reverse = d == DIRECTION_RECEIVE;
        /* iperf3 -s takes a moment to be ready for the next test ("the server is busy"). */
        for (unsigned attempt = 0; attempt < 5 && !experiment_interrupted; attempt++) {
                r = iperf_run(&e->req, &experiment_interrupted, ret, err, sizeof(err));
                /* A busy server is asked again; an iperf3 that hung, or cannot run, would only do it again. */
                if (r >= 0 || r == -EINTR || r == -ENOENT || r == -EPERM || r == -ETIMEDOUT)
                        break;
                log_debug("iperf3 %s to %s:%u: %s", experiment_direction_names[d], e->host, e->port, err);
                if (experiment_pause_ms(1000) < 0)
                        break;
        }
        if (experiment_interrupted)
                return -EINTR;
        if (r < 0)
                return log_error_errno(r, "iperf3 (%s) against %s:%u through %s: %s", experiment_direction_names[d], e->host, e->port,
                                       e->ifname, err[0] ? err : strerror(-r));
        e->tests_done++;
        return 0;
}

/* The baseline: everything the journal holds put back, and checked against what was found. */
int measure_to_baseline(Experiment *e) {
        KnobReading now[_KNOB_MAX];
        ApplyStats st = {};
        int r;

        r = restore_nic(&e->ac, e->nic, e->nic->slot, &st);
        e->at_candidate = false;
        e->not_as_found = true; /* until shown otherwise */
        if (r < 0 || st.failed > 0)
                return log_error_errno(r < 0 ? r : EIO, "%s: the values as found could not all be put back; "
                                       "\"r8169-tuned restore %s\" tries again from the undo journal.", e->ifname, e->ifname);
        backend_read_all(&e->c.backend, e->nic, now);
        for (KnobId k = 0; k < _KNOB_MAX; k++)
                if (e->found[k].status == KNOB_STATUS_OK &&
                    (now[k].status != KNOB_STATUS_OK || now[k].value != e->found[k].value || now[k].partial != e->found[k].partial)) {
                        char was[KNOB_VALUE_MAX + 16], is[KNOB_VALUE_MAX + 16];
                        return log_error_errno(EBUSY, "%s: %s was %s when the experiment began and is %s now: another tool "
                                               "changed it meanwhile, so the baseline is gone and the experiment stops.",
                                               e->ifname, knob_get(k)->name, report_reading_text(k, &e->found[k], was, sizeof(was)),
                                               report_reading_text(k, &now[k], is, sizeof(is)));
                }
        if (st.left_alone > 0)
                return log_error_errno(EBUSY, "%s: another tool changed a value the experiment had set; it stops, as its "
                                       "baseline is gone.", e->ifname);
        e->not_as_found = false;
        return 0;
}

static int measure_to_candidate(Experiment *e, Trial *t) {
        NicPlan plan = { .nic = e->nic, .link_power = -1 };
        KnobReading now[_KNOB_MAX];
        ApplyStats st = {};
        int r;

        backend_begin(&e->c.backend, e->nic, 0, true);
        backend_read_all(&e->c.backend, e->nic, now);
        for (size_t i = 0; i < t->cand.n; i++) {
                KnobId k = t->cand.settings[i].knob;
                plan.items[plan.n++] = (PlanItem) {
                        .knob = k,
                        .action = knob_reading_holds(&now[k], t->cand.settings[i].value) ? PLAN_KEEP : PLAN_CHANGE,
                        .desired = t->cand.settings[i].value,
                        .current = now[k],
                };
        }
        e->at_candidate = true; /* from the first write on, whatever comes back */
        r = apply_nic(&e->ac, e->nic, &plan, &st);
        backend_end(&e->c.backend);
        if (r < 0 || st.failed + st.unsupported > 0)
                snprintf(t->failed, sizeof(t->failed), "could not be set here (the journal says why)");
        return r < 0 ? r : st.failed + st.unsupported > 0 ? -EIO : 0;
}

/* One candidate: its rounds, each the two arms in random order. 0, or why the experiment stops. */
static int measure_run_trial(Experiment *e, Trial *t, size_t index) {
        int r;

        for (size_t round = 0; round < e->rounds; round++) {
                bool candidate_first = rng_next(e) & 1;

                measure_progress(e, t, index, round);
                for (int step = 0; step < 2; step++) {
                        int arm = (step == 0) == candidate_first ? ARM_CANDIDATE : ARM_BASELINE;
                        bool switched = arm == ARM_CANDIDATE ? !e->at_candidate : e->at_candidate;

                        if (arm == ARM_CANDIDATE && !e->at_candidate) {
                                r = measure_to_candidate(e, t);
                                if (r == -EINTR)
                                        return r;
                                if (r < 0) /* this candidate cannot be measured here; the others can */
                                        return measure_to_baseline(e);
                        } else if (arm == ARM_BASELINE && e->at_candidate) {
                                r = measure_to_baseline(e);
                                if (r < 0)
                                        return r;
                        }
                        if (switched) {
                                r = measure_settle(e);
                                if (r < 0)
                                        return r;
                        }
                        for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                                IperfResult res;

                                if (!e->directions[d])
                                        continue;
                                r = measure_iperf(e, d, &res);
                                if (r < 0)
                                        return r;
                                t->s[arm][d].mbps[round] = res.mbps;
                                t->s[arm][d].retransmits[round] = res.retransmits_known ? (double) res.retransmits : -1;
                                t->s[arm][d].cpu[round] = res.cpu;
                        }
                        if (t->power) {
                                r = idle_power_sample(e, &t->watts[arm][round]);
                                if (r < 0)
                                        return r == -EINTR ? r : log_error_errno(r, "Cannot read the RAPL energy counters: %m");
                        }
                }
                t->rounds++;
        }
        return e->at_candidate ? measure_to_baseline(e) : 0;
}

/* Measured in full, helps in a direction and hurts in none: what --write-config keeps. */
void measure_line_speed(Experiment *e) {
        char dir[64];
        uint64_t speed;

        snprintf(dir, sizeof(dir), "class/net/%s", e->ifname);
        if (sysroot_read_u64(e->c.root, dir, "speed", &speed) >= 0 && speed > 0 && speed < 1000000)
                e->line_mbps = (double) speed;
}

/* The warm-up, discarded: iperf3 runs, the server answers through this NIC, the path has seen traffic. */
int measure_warm_up(Experiment *e) {
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
        int g;

        /* A name that does not resolve, said so (iperf3 says "Resource temporarily unavailable": ux-findings L2). */
        g = getaddrinfo(e->host, NULL, &hints, &ai);
        if (g != 0)
                return log_error_errno(EHOSTUNREACH, "Cannot resolve %s: %s.", e->host, gai_strerror(g));
        freeaddrinfo(ai);
        for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                IperfResult res;
                int r = e->directions[d] ? measure_iperf(e, d, &res) : 0;
                if (r < 0)
                        return r;
        }
        return 0;
}

int measure_run_trials(Experiment *e) {
        for (size_t i = 0; i < e->n_trials; i++) {
                Trial *t = &e->trials[i];
                char name[160], from[96];
                int r;

                if (t->cand.skipped)
                        continue;
                measure_progress_clear(e);
                /* Each change is in the journal; apply's own lines are below the notice level the table keeps. */
                log_nic(LOG_NOTICE, R8T_MESSAGE_EXPERIMENT, e->nic, 0,
                        "experiment: %s (%s) against the NIC as found, %u round%s; each change through the undo journal %s/%s",
                        candidate_settings_string(&t->cand, name, sizeof(name)), candidate_origin_to_string(t->cand.origin),
                        e->rounds, e->rounds == 1 ? "" : "s", e->o->state_dir, e->nic->slot);
                e->running = i + 1;
                r = measure_run_trial(e, t, i);
                if (r < 0)
                        return r;
                /* Each candidate's numbers as soon as they are known, on a terminal (ux-findings M4). */
                if (e->tty && !e->o->json && t->rounds > 0) {
                        measure_progress_clear(e);
                        experiment_compare_trial(e, t);
                        fprintf(stderr, "[%zu/%zu] %s (%s):\n", i + 1, e->n_trials, name, results_trial_from(t, from, sizeof(from)));
                        results_numbers_line(e, t, stderr, "  ");
                }
        }
        return 0;
}
