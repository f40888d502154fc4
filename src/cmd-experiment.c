/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * experiment: the A/B test every seed report ran by hand, run properly. For each candidate
 * change, rounds of baseline and candidate in random order (the network drifts), both
 * directions, iperf3 against a server the user runs; the Hodges-Lehmann change with its 95 %
 * interval and a verdict. Every change goes through apply_nic() and its undo journal, and
 * restore_nic() takes the NIC back to the baseline between arms, at the end, on Ctrl-C and
 * on any error; a kill -9 leaves the journal that restore and the service put back.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <netdb.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "commands.h"
#include "experiment.h"
#include "iperf.h"
#include "json.h"
#include "log.h"
#include "messages.h"
#include "nic-log.h"
#include "report.h"

#define ROUNDS_DEFAULT 5
#define SECONDS_DEFAULT 5
#define IDLE_SECONDS_DEFAULT 5
#define LOCK_WAIT_MS (30 * 1000)
#define RAPL_ZONES_MAX 8
/* After a change, before the next test: a driver may reset its rings, a link (EEE) renegotiate. */
#define SETTLE_MS 300
#define CARRIER_WAIT_MS (10 * 1000)

typedef enum Direction {
        DIRECTION_SEND,    /* iperf3 -c: this NIC transmits */
        DIRECTION_RECEIVE, /* iperf3 -c -R: this NIC receives */
        _DIRECTION_MAX,
} Direction;

static const char *const direction_names[_DIRECTION_MAX] = { "send", "receive" };

enum { ARM_BASELINE, ARM_CANDIDATE, _ARM_MAX };

typedef struct Samples {
        double mbps[EXPERIMENT_ROUNDS_MAX];
        double retransmits[EXPERIMENT_ROUNDS_MAX]; /* -1: not reported */
        double cpu[EXPERIMENT_ROUNDS_MAX];         /* -1: not reported */
} Samples;

typedef struct Trial {
        Candidate cand;
        Samples s[_ARM_MAX][_DIRECTION_MAX];
        double watts[_ARM_MAX][EXPERIMENT_ROUNDS_MAX];
        size_t rounds;                  /* complete rounds */
        bool power;                     /* idle power measured with it */
        Comparison cmp[_DIRECTION_MAX];
        Comparison power_cmp;
        bool helped;                    /* what --write-config keeps (compare_trials) */
        char failed[256];               /* why it stopped early; "" if it did not */
} Trial;

typedef struct Rapl {
        char dirs[RAPL_ZONES_MAX][64];
        uint64_t range[RAPL_ZONES_MAX]; /* max_energy_range_uj: where the counter wraps */
        size_t n;
        const char *why;                /* not measurable: why */
} Rapl;

typedef struct Experiment {
        const Options *o;
        Context c;
        Nic *nic;
        const char *ifname;
        ApplyContext ac;
        IperfRequest req;
        char host[256];
        unsigned port;
        bool directions[_DIRECTION_MAX];
        unsigned rounds, seconds, idle_seconds;
        Trial *trials;
        size_t n_trials, n_helped;
        KnobReading found[_KNOB_MAX];   /* as found: what restore must leave */
        double line_mbps;               /* 0: not known */
        Rapl rapl;
        bool at_candidate;              /* the NIC holds a candidate's values now */
        bool not_as_found;              /* a way back to the baseline failed: the NIC is not as found */
        uint64_t rng;
        bool tty;
        bool cut;                       /* interrupted: what is printed is incomplete, and nothing is kept */
        size_t running;                 /* the trial being measured, 1-based; 0: none yet */
        unsigned tests_total, tests_done;
        uint64_t started_usec;
} Experiment;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) {
        interrupted = sig;
}

/* xorshift64*: the order of the arms only has to be unpredictable to the network, not to anyone else. */
static uint64_t rng_next(Experiment *e) {
        e->rng ^= e->rng >> 12;
        e->rng ^= e->rng << 25;
        e->rng ^= e->rng >> 27;
        return e->rng * 2685821657736338717ULL;
}

/* A DNS name (letters, digits, '-', '_' and dots, not starting with '-'), an IPv4 address, or an IPv6 one with an optional %zone. */
static bool host_valid(const char *h) {
        char addr[INET6_ADDRSTRLEN + 1];
        const char *zone = strchr(h, '%');
        unsigned char buf[sizeof(struct in6_addr)];

        if (strchr(h, ':')) {
                size_t n = zone ? (size_t) (zone - h) : strlen(h);
                if (n >= sizeof(addr))
                        return false;
                memcpy(addr, h, n);
                addr[n] = 0;
                return inet_pton(AF_INET6, addr, buf) == 1 && (!zone || ifname_valid(zone + 1));
        }
        if (h[0] == '-' || h[0] == '.' || strlen(h) > 253)
                return false;
        for (const char *p = h; *p; p++)
                if (!isalnum((unsigned char) *p) && !strchr("-_.", *p))
                        return false;
        return true;
}

static int parse_server(Experiment *e, const char *s) {
        const char *colon = strrchr(s, ':');
        uint64_t port = 5201;
        size_t len = strlen(s);

        /* HOST, HOST:PORT, [v6]:PORT, or a bare IPv6 address (more than one colon, no brackets). */
        if (s[0] == '[') {
                const char *close = strchr(s, ']');
                if (!close || (close[1] && (close[1] != ':' || parse_u64(close + 2, &port) < 0)))
                        return -EINVAL;
                len = (size_t) (close - s - 1);
                s++;
        } else if (colon && strchr(s, ':') == colon) {
                if (parse_u64(colon + 1, &port) < 0)
                        return -EINVAL;
                len = (size_t) (colon - s);
        }
        if (len == 0 || len >= sizeof(e->host) || port == 0 || port > 65535)
                return -EINVAL;
        memcpy(e->host, s, len);
        e->host[len] = 0;
        e->port = (unsigned) port;
        /* What reaches iperf3's command line and the drop-in's comment: a host name or an address, nothing else. */
        return host_valid(e->host) ? 0 : -EINVAL;
}

/* Package energy counters: powercap's intel-rapl zones (also on AMD), top level only. */
static void rapl_find(Experiment *e) {
        const Sysroot *root = e->c.root;
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        e->rapl.why = "no RAPL energy counter (/sys/class/powercap)";
        if (sysroot_opendir(root, "class/powercap", &d) < 0)
                return;
        while ((de = readdir(d)) && e->rapl.n < RAPL_ZONES_MAX) {
                char dir[64], name[64];
                uint64_t uj, range;
                unsigned zone;
                int end = 0;

                if (sscanf(de->d_name, "intel-rapl:%u%n", &zone, &end) != 1 || de->d_name[end])
                        continue; /* intel-rapl:0:1 is a part of package 0 */
                snprintf(dir, sizeof(dir), "class/powercap/%.40s", de->d_name); /* intel-rapl:N: short */
                if (sysroot_read(root, dir, "name", name, sizeof(name)) < 0 || strncmp(name, "package", 7) != 0)
                        continue;
                if (sysroot_read_u64(root, dir, "energy_uj", &uj) < 0) {
                        e->rapl.why = "the RAPL energy counters cannot be read (they are root's since 5.10)";
                        continue;
                }
                if (sysroot_read_u64(root, dir, "max_energy_range_uj", &range) < 0 || range == 0)
                        continue;
                snprintf(e->rapl.dirs[e->rapl.n], sizeof(e->rapl.dirs[0]), "%s", dir);
                e->rapl.range[e->rapl.n++] = range;
        }
        if (e->rapl.n > 0)
                e->rapl.why = NULL;
}

static int rapl_read(Experiment *e, uint64_t uj[RAPL_ZONES_MAX]) {
        for (size_t i = 0; i < e->rapl.n; i++) {
                int r = sysroot_read_u64(e->c.root, e->rapl.dirs[i], "energy_uj", &uj[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Sleeps, waking for a signal: -EINTR when one asked the experiment to stop. In slices of at most
 * 200 ms: a signal that lands between the check and the sleep is seen within one. */
static int pause_ms(unsigned ms) {
        uint64_t end = now_monotonic_usec() + (uint64_t) ms * 1000;

        while (!interrupted) {
                uint64_t now = now_monotonic_usec(), left;
                struct timespec ts;

                if (now >= end)
                        return 0;
                left = end - now < 200000 ? end - now : 200000;
                ts = (struct timespec) { .tv_nsec = (long) left * 1000 };
                (void) nanosleep(&ts, NULL);
        }
        return -EINTR;
}

/* Package power with the link idle: the counters over idle_seconds, wraps included. */
static int idle_watts(Experiment *e, double *ret) {
        uint64_t a[RAPL_ZONES_MAX], b[RAPL_ZONES_MAX], t0, t1;
        double uj = 0;
        int r;

        /* Let the last test's traffic and interrupts die down first. */
        r = pause_ms(1000);
        if (r >= 0)
                r = rapl_read(e, a);
        t0 = now_monotonic_usec();
        if (r >= 0)
                r = pause_ms(e->idle_seconds * 1000);
        if (r >= 0)
                r = rapl_read(e, b);
        t1 = now_monotonic_usec();
        if (r < 0)
                return r;
        for (size_t i = 0; i < e->rapl.n; i++)
                uj += (double) (b[i] >= a[i] ? b[i] - a[i] : e->rapl.range[i] - a[i] + b[i]);
        *ret = uj / (double) (t1 - t0); /* µJ per µs: watts */
        return 0;
}

static void progress(Experiment *e, const Trial *t, size_t index, size_t round) {
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

static void progress_clear(Experiment *e) {
        if (e->tty)
                fputs("\r\033[K", stderr);
}

/* After a change: the link up again (an EEE change renegotiates, about 3 s), then a moment more. */
static int settle(Experiment *e) {
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
                r = pause_ms(100);
                if (r < 0)
                        return r;
        }
        return pause_ms(SETTLE_MS);
}

/* One iperf3 test; a server still busy (with the last test, or someone else's) is asked again, a second apart. */
static int measure(Experiment *e, Direction d, IperfResult *ret) {
        char err[256] = "";
        int r = -EIO;

        e->req.reverse = d == DIRECTION_RECEIVE;
        /* iperf3 -s takes a moment to be ready for the next test ("the server is busy"). */
        for (unsigned attempt = 0; attempt < 5 && !interrupted; attempt++) {
                r = iperf_run(&e->req, &interrupted, ret, err, sizeof(err));
                /* A busy server is asked again; an iperf3 that hung, or cannot run, would only do it again. */
                if (r >= 0 || r == -EINTR || r == -ENOENT || r == -EPERM || r == -ETIMEDOUT)
                        break;
                log_debug("iperf3 %s to %s:%u: %s", direction_names[d], e->host, e->port, err);
                if (pause_ms(1000) < 0)
                        break;
        }
        if (interrupted)
                return -EINTR;
        if (r < 0)
                return log_error_errno(r, "iperf3 (%s) against %s:%u through %s: %s", direction_names[d], e->host, e->port,
                                       e->ifname, err[0] ? err : strerror(-r));
        e->tests_done++;
        return 0;
}

static bool holds_value(const KnobReading *r, uint64_t v) {
        return r->status == KNOB_STATUS_OK && !r->partial && r->value == v;
}

/* The baseline: everything the journal holds put back, and checked against what was found. */
static int to_baseline(Experiment *e) {
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

static int to_candidate(Experiment *e, Trial *t) {
        NicPlan plan = { .nic = e->nic, .link_power = -1 };
        KnobReading now[_KNOB_MAX];
        ApplyStats st = {};
        int r;

        backend_begin(&e->c.backend, e->nic, 0);
        backend_read_all(&e->c.backend, e->nic, now);
        for (size_t i = 0; i < t->cand.n; i++) {
                KnobId k = t->cand.settings[i].knob;
                plan.items[plan.n++] = (PlanItem) {
                        .knob = k,
                        .action = holds_value(&now[k], t->cand.settings[i].value) ? PLAN_KEEP : PLAN_CHANGE,
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
static int run_trial(Experiment *e, Trial *t, size_t index) {
        int r;

        for (size_t round = 0; round < e->rounds; round++) {
                bool candidate_first = rng_next(e) & 1;

                progress(e, t, index, round);
                for (int step = 0; step < 2; step++) {
                        int arm = (step == 0) == candidate_first ? ARM_CANDIDATE : ARM_BASELINE;
                        bool switched = arm == ARM_CANDIDATE ? !e->at_candidate : e->at_candidate;

                        if (arm == ARM_CANDIDATE && !e->at_candidate) {
                                r = to_candidate(e, t);
                                if (r == -EINTR)
                                        return r;
                                if (r < 0) /* this candidate cannot be measured here; the others can */
                                        return to_baseline(e);
                        } else if (arm == ARM_BASELINE && e->at_candidate) {
                                r = to_baseline(e);
                                if (r < 0)
                                        return r;
                        }
                        if (switched) {
                                r = settle(e);
                                if (r < 0)
                                        return r;
                        }
                        for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                                IperfResult res;

                                if (!e->directions[d])
                                        continue;
                                r = measure(e, d, &res);
                                if (r < 0)
                                        return r;
                                t->s[arm][d].mbps[round] = res.mbps;
                                t->s[arm][d].retransmits[round] = res.retransmits_known ? (double) res.retransmits : -1;
                                t->s[arm][d].cpu[round] = res.cpu;
                        }
                        if (t->power) {
                                r = idle_watts(e, &t->watts[arm][round]);
                                if (r < 0)
                                        return r == -EINTR ? r : log_error_errno(r, "Cannot read the RAPL energy counters: %m");
                        }
                }
                t->rounds++;
        }
        return e->at_candidate ? to_baseline(e) : 0;
}

/* Measured in full, helps in a direction and hurts in none: what --write-config keeps. */
static bool trial_helped(const Experiment *e, const Trial *t) {
        bool helps = false;

        if (t->rounds != e->rounds)
                return false;
        for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                if (!e->directions[d])
                        continue;
                if (t->cmp[d].verdict == VERDICT_HURTS)
                        return false;
                helps = helps || t->cmp[d].verdict == VERDICT_HELPS;
        }
        return helps;
}

static void compare_trial(const Experiment *e, Trial *t) {
        for (Direction d = 0; d < _DIRECTION_MAX; d++)
                if (e->directions[d])
                        experiment_compare(t->s[ARM_BASELINE][d].mbps, t->s[ARM_CANDIDATE][d].mbps, t->rounds, e->line_mbps,
                                           &t->cmp[d]);
        if (t->power)
                experiment_compare(t->watts[ARM_BASELINE], t->watts[ARM_CANDIDATE], t->rounds, 0, &t->power_cmp);
        t->helped = !t->cand.skipped && trial_helped(e, t);
}

static void compare_trials(Experiment *e) {
        e->n_helped = 0;
        for (size_t i = 0; i < e->n_trials; i++) {
                Trial *t = &e->trials[i];

                if (t->rounds == 0)
                        continue;
                compare_trial(e, t);
                e->n_helped += t->helped;
        }
}

static const char *trial_from(const Trial *t, char *buf, size_t size) {
        if (t->cand.quirk)
                snprintf(buf, size, "quirk %s", t->cand.quirk->id);
        else
                snprintf(buf, size, "%s", candidate_origin_to_string(t->cand.origin));
        return buf;
}

/* "+414 (+162 %) [+409, +419]" in Mb/s, or "+0.40 W (+20 %) [+0.38, +0.42]". */
static const char *change_text(const Comparison *c, bool watts, char *buf, size_t size) {
        int decimals = watts ? 2 : 0;
        char rel[32] = "";

        if (c->baseline > 0)
                snprintf(rel, sizeof(rel), " (%+.0f %%)", c->relative * 100);
        if (isinf(c->change.lo))
                snprintf(buf, size, "%+.*f%s%s", decimals, c->change.estimate, watts ? " W" : "", rel);
        else
                snprintf(buf, size, "%+.*f%s%s [%+.*f, %+.*f]", decimals, c->change.estimate, watts ? " W" : "", rel, decimals,
                         c->change.lo, decimals, c->change.hi);
        return buf;
}

static void print_text(const Experiment *e, FILE *f) {
        char chip[160], name[160], from[96], change[96], why[160];
        bool any_power = false, any_skipped = false;
        size_t helped = e->n_helped;

        fprintf(f, "%s (%s), %s; iperf3 against %s:%u, %u round%s of %u s per arm and direction.\n", e->ifname, e->nic->slot,
                report_chip_line(e->nic, chip, sizeof(chip)), e->host, e->port, e->rounds, e->rounds == 1 ? "" : "s", e->seconds);
        if (e->line_mbps > 0)
                fprintf(f, "The link runs at %.0f Mb/s: a baseline at %.0f %% of that or more cannot get faster (cannot-tell).\n",
                        e->line_mbps, EXPERIMENT_LINE_RATE * 100);
        fputc('\n', f);
        fprintf(f, "%-44s %-9s %9s %9s  %-30s %s\n", "CANDIDATE (FROM)", "DIRECTION", "BASELINE", "WITH IT", "CHANGE Mb/s [95 % CI]",
                "VERDICT");
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];
                bool first = true;
                char label[256];

                if (t->cand.skipped) {
                        any_skipped = true;
                        continue;
                }
                snprintf(label, sizeof(label), "%s (%s)", candidate_settings_string(&t->cand, name, sizeof(name)),
                         trial_from(t, from, sizeof(from)));
                if (strlen(label) > 44 && t->rounds > 0) { /* its own line, the figures below it */
                        fprintf(f, "%s\n", label);
                        first = false;
                }
                if (t->rounds == 0) {
                        fprintf(f, "%-44s %s\n", label, t->failed[0] ? t->failed : "not measured (stopped before it)");
                        continue;
                }
                for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                        const Comparison *c = &t->cmp[d];

                        if (!e->directions[d])
                                continue;
                        fprintf(f, "%-44s %-9s %9.0f %9.0f  %-30s %s%s%s%s\n", first ? label : "", direction_names[d], c->baseline,
                                c->candidate, change_text(c, false, change, sizeof(change)), verdict_to_string(c->verdict),
                                c->why ? " (" : "", c->why ?: "", c->why ? ")" : "");
                        first = false;
                }
                if (t->failed[0])
                        fprintf(f, "%-44s stopped after %zu round%s: %s\n", "", t->rounds, t->rounds == 1 ? "" : "s", t->failed);
                any_power = any_power || t->power;
        }
        if (any_power) {
                fprintf(f, "\nIdle power (RAPL package counters, link idle, %u s per sample):\n", e->idle_seconds);
                for (size_t i = 0; i < e->n_trials; i++) {
                        const Trial *t = &e->trials[i];
                        const Comparison *c = &t->power_cmp;

                        if (!t->power || t->rounds == 0)
                                continue;
                        fprintf(f, "  %-42s %.2f W -> %.2f W, %s: %s\n", candidate_settings_string(&t->cand, name, sizeof(name)),
                                c->baseline, c->candidate, change_text(c, true, change, sizeof(change)),
                                c->change.lo > 0 ? "costs power" : c->change.hi < 0 ? "saves power" : "no measurable difference");
                }
        } else if (e->rapl.why)
                fprintf(f, "\nIdle power: not measurable here: %s.\n", e->rapl.why);
        if (any_skipped) {
                fprintf(f, "\nNot measured:");
                for (size_t i = 0, k = 0; i < e->n_trials; i++)
                        if (e->trials[i].cand.skipped)
                                fprintf(f, "%s %s (%s)", k++ ? "," : "", candidate_settings_string(&e->trials[i].cand, name, sizeof(name)),
                                        candidate_skip_reason(&e->trials[i].cand, why, sizeof(why)));
                fputc('\n', f);
        }
        fprintf(f, "\n\"helps\": the 95 %% interval excludes 0 and the change is at least %.0f %% of the baseline.\n",
                EXPERIMENT_PRACTICAL * 100);
        if (e->cut)
                fprintf(f, "Interrupted: run it again to measure every candidate in full.\n");
        else if (helped > 0)
                fprintf(f, "%zu candidate%s helped%s. --write-config FILE keeps %s; --report FILE writes the numbers and a quirk "
                        "entry draft for a bug report.\n", helped, helped == 1 ? "" : "s",
                        helped == 1 ? "" : " (each measured alone: check them together before keeping all)",
                        helped == 1 ? "it" : "them");
        else
                fprintf(f, "Nothing helped measurably on this link.\n");
}

static void json_values(JsonWriter *w, const char *key, const double *v, size_t n, int decimals) {
        json_key(w, key);
        json_array_begin(w);
        for (size_t i = 0; i < n; i++)
                if (v[i] < 0)
                        json_null(w);
                else
                        json_fixed(w, v[i], decimals);
        json_array_end(w);
}

static void json_interval(JsonWriter *w, const Comparison *c, int decimals) {
        json_key(w, "ci95");
        if (isinf(c->change.lo))
                json_null(w);
        else {
                json_array_begin(w);
                json_fixed(w, c->change.lo, decimals);
                json_fixed(w, c->change.hi, decimals);
                json_array_end(w);
        }
        json_key(w, "confidence");
        json_fixed(w, c->change.confidence, 4);
}

/* "knob" and "value" as one string each ("gro_flush_timeout,napi_defer_hard_irqs", "0,0"), then each setting. */
static void json_candidate(JsonWriter *w, const Experiment *e, const Trial *t) {
        /* At most _KNOB_MAX names of under 32 and values of under KNOB_VALUE_MAX: it all fits. */
        char knobs[_KNOB_MAX * 32] = "", values[_KNOB_MAX * (KNOB_VALUE_MAX + 1)] = "";

        for (size_t i = 0; i < t->cand.n; i++) {
                char v[KNOB_VALUE_MAX];
                if (i > 0) {
                        strcat(knobs, ",");
                        strcat(values, ",");
                }
                strncat(knobs, knob_get(t->cand.settings[i].knob)->name, 30);
                strncat(values, knob_format_value(t->cand.settings[i].knob, t->cand.settings[i].value, v, sizeof(v)),
                        KNOB_VALUE_MAX - 1);
        }
        json_kv_str(w, "knob", knobs);
        json_kv_str(w, "value", values);
        json_key(w, "settings");
        json_object_begin(w);
        for (size_t i = 0; i < t->cand.n; i++) {
                json_key(w, knob_get(t->cand.settings[i].knob)->name);
                report_knob_value_json(w, t->cand.settings[i].knob, t->cand.settings[i].value);
        }
        json_object_end(w);
        /* The baseline's side of each setting: the NIC as found (null: partly on, as a feature set can be). */
        json_key(w, "found");
        json_object_begin(w);
        for (size_t i = 0; i < t->cand.n; i++) {
                const KnobReading *r = &e->found[t->cand.settings[i].knob];
                json_key(w, knob_get(t->cand.settings[i].knob)->name);
                if (r->status == KNOB_STATUS_OK && !r->partial)
                        report_knob_value_json(w, t->cand.settings[i].knob, r->value);
                else
                        json_null(w);
        }
        json_object_end(w);
        json_kv_str(w, "from", candidate_origin_to_string(t->cand.origin));
        json_kv_str(w, "quirk", t->cand.quirk ? t->cand.quirk->id : NULL);
}

static void json_arm(JsonWriter *w, const char *key, const Samples *s, size_t n, double median) {
        json_key(w, key);
        json_object_begin(w);
        json_key(w, "median_mbps");
        json_fixed(w, median, 1);
        json_values(w, "mbps", s->mbps, n, 1);
        json_values(w, "retransmits", s->retransmits, n, 0);
        json_values(w, "cpu_percent", s->cpu, n, 1);
        json_object_end(w);
}

static void print_json(const Experiment *e, FILE *f) {
        JsonWriter w = json_writer(f);
        char kernel[32], server[300], why[160];

        json_object_begin(&w);
        json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
        json_key(&w, "nic");
        json_object_begin(&w);
        report_nic_json_members(&w, e->nic);
        json_object_end(&w);
        json_kv_str(&w, "kernel", kernel_version_to_string(&e->c.machine.kernel, kernel, sizeof(kernel)));
        snprintf(server, sizeof(server), "%s:%u", e->host, e->port);
        json_kv_str(&w, "server", server);
        json_kv_u64(&w, "rounds", e->rounds);
        json_kv_u64(&w, "seconds", e->seconds);
        json_key(&w, "practical_size");
        json_fixed(&w, EXPERIMENT_PRACTICAL, 2);
        json_key(&w, "line_rate_mbps");
        if (e->line_mbps > 0)
                json_u64(&w, (uint64_t) e->line_mbps);
        else
                json_null(&w);
        json_key(&w, "results");
        json_array_begin(&w);
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];

                if (t->cand.skipped || t->rounds == 0)
                        continue;
                for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                        const Comparison *c = &t->cmp[d];

                        if (!e->directions[d])
                                continue;
                        json_object_begin(&w);
                        json_candidate(&w, e, t);
                        json_kv_str(&w, "direction", direction_names[d]);
                        json_kv_u64(&w, "rounds", t->rounds);
                        json_arm(&w, "baseline", &t->s[ARM_BASELINE][d], t->rounds, c->baseline);
                        json_arm(&w, "candidate", &t->s[ARM_CANDIDATE][d], t->rounds, c->candidate);
                        json_key(&w, "change_mbps");
                        json_fixed(&w, c->change.estimate, 1);
                        json_key(&w, "relative");
                        json_fixed(&w, c->relative, 4);
                        json_interval(&w, c, 1);
                        json_kv_str(&w, "verdict", verdict_to_string(c->verdict));
                        json_kv_str(&w, "why", c->why);
                        json_object_end(&w);
                }
        }
        json_array_end(&w);
        json_key(&w, "idle_power");
        json_object_begin(&w);
        json_kv_str(&w, "not_measurable", e->rapl.why);
        json_key(&w, "results");
        json_array_begin(&w);
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];

                if (!t->power || t->rounds == 0)
                        continue;
                json_object_begin(&w);
                json_candidate(&w, e, t);
                json_key(&w, "baseline_watts");
                json_fixed(&w, t->power_cmp.baseline, 3);
                json_key(&w, "candidate_watts");
                json_fixed(&w, t->power_cmp.candidate, 3);
                json_key(&w, "change_watts");
                json_fixed(&w, t->power_cmp.change.estimate, 3);
                json_interval(&w, &t->power_cmp, 3);
                json_object_end(&w);
        }
        json_array_end(&w);
        json_object_end(&w);
        json_key(&w, "not_measured");
        json_array_begin(&w);
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];

                if (!t->cand.skipped && t->rounds > 0)
                        continue;
                json_object_begin(&w);
                json_candidate(&w, e, t);
                json_kv_str(&w, "why", t->cand.skipped ? candidate_skip_reason(&t->cand, why, sizeof(why))
                                                       : t->failed[0] ? t->failed : "stopped before it");
                json_object_end(&w);
        }
        json_array_end(&w);
        json_object_end(&w);
        json_end(&w);
}

/* One line of numbers per direction, for the drop-in's comments and the quirk draft's evidence. */
static void numbers_line(const Experiment *e, const Trial *t, FILE *f, const char *prefix) {
        char change[96];

        for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                const Comparison *c = &t->cmp[d];

                if (!e->directions[d])
                        continue;
                fprintf(f, "%s%s %.0f -> %.0f Mb/s, %s, %s\n", prefix, direction_names[d], c->baseline, c->candidate,
                        change_text(c, false, change, sizeof(change)), verdict_to_string(c->verdict));
        }
        if (t->power)
                fprintf(f, "%sidle power %.2f -> %.2f W, %s\n", prefix, t->power_cmp.baseline, t->power_cmp.candidate,
                        change_text(&t->power_cmp, true, change, sizeof(change)));
}

/* Written whole or not at all, said either way. */
static int write_output(const char *path, void (*writer)(FILE *f, const void *userdata), const Experiment *e) {
        int r = write_file_atomic(path, 0644, writer, e);
        if (r < 0)
                return log_error_errno(r, "Cannot write %s: %s.", path, write_file_refusal(r));
        return 0;
}

static void today(char *buf, size_t size) {
        time_t now = time(NULL);
        struct tm tm;

        if (!localtime_r(&now, &tm) || strftime(buf, size, "%Y-%m-%d", &tm) == 0)
                snprintf(buf, size, "today");
}

/* "knob = value" for each setting of what helped: the drop-in's and the quirk draft's. */
static void print_helped_settings(const Experiment *e, FILE *f) {
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];

                if (!t->helped)
                        continue;
                for (size_t k = 0; k < t->cand.n; k++) {
                        char v[KNOB_VALUE_MAX];
                        fprintf(f, "%s = %s\n", knob_get(t->cand.settings[k].knob)->name,
                                knob_format_value(t->cand.settings[k].knob, t->cand.settings[k].value, v, sizeof(v)));
                }
        }
}

/* Each candidate that helped, "HEAD<candidate>:", then its numbers, each line after PREFIX. */
static void print_helped_numbers(const Experiment *e, FILE *f, const char *head, const char *prefix) {
        char name[160];

        for (size_t i = 0; i < e->n_trials; i++)
                if (e->trials[i].helped) {
                        fprintf(f, "%s%s:\n", head, candidate_settings_string(&e->trials[i].cand, name, sizeof(name)));
                        numbers_line(e, &e->trials[i], f, prefix);
                }
}

static void write_config(FILE *f, const void *userdata) {
        const Experiment *e = userdata;
        char chip[160], kernel[32], date[32];

        today(date, sizeof(date));
        fprintf(f, "# Written by \"r8169-tuned experiment\" on %s: what helped %s (%s, %s) on kernel %s,\n"
                "# measured against %s:%u (%u rounds of %u s each). Only what helped: a 95 %% interval\n"
                "# above 0 and at least %.0f %% faster in one direction, and not as clearly slower in the other.\n",
                date, e->ifname, e->nic->slot, report_chip_line(e->nic, chip, sizeof(chip)),
                kernel_version_to_string(&e->c.machine.kernel, kernel, sizeof(kernel)), e->host, e->port, e->rounds, e->seconds,
                EXPERIMENT_PRACTICAL * 100);
        print_helped_numbers(e, f, "#\n# ", "#   ");
        fprintf(f, "\n[device experiment]\nmatch-slot = %s\n", e->nic->slot);
        print_helped_settings(e, f);
}

static void report_quirk_draft(const Experiment *e, FILE *f) {
        bool costs_power = false;
        char kernel[32], id[65];

        for (size_t i = 0; i < e->n_trials; i++)
                if (e->trials[i].helped)
                        /* Measured where RAPL counters exist; a link power change is assumed to cost where not. */
                        costs_power = costs_power || (e->trials[i].power ? e->trials[i].power_cmp.change.lo > 0
                                                                          : e->trials[i].cand.link_power);
        fprintf(f, "\n## Quirk entry draft\n\n");
        if (e->n_helped == 0) {
                fprintf(f, "Nothing helped measurably: no entry to propose.\n");
                return;
        }
        fprintf(f, "For conf/quirks.d/ (r8169-tuned-quirks(5)); `r8169-tuned check-config FILE` checks it. Say in the\n"
                "reason what is known of why, and replace the reference with this report's address. Numbers before\n"
                "and after on a named machine are what confidence = measured asks for.\n");
        for (size_t i = 0; i < e->n_trials; i++) {
                const Quirk *q = e->trials[i].cand.quirk;
                if (e->trials[i].helped && q && quirk_is_suggestion(q))
                        fprintf(f, "\nThis measures the suggestion %s (confidence reported): with these numbers as its\n"
                                "evidence it can become confidence measured, applied in its profiles without suggestions = apply.\n",
                                q->id);
        }
        fprintf(f, "\n```ini\n");
        /* A quirk id is letters, digits, '-', '_' and '.': "RTL8168h/8111h" becomes measured-rtl8168h-8111h. */
        snprintf(id, sizeof(id), "measured-%s", e->nic->chip ? e->nic->chip->name : "unknown-chip");
        for (char *p = id; *p; p++)
                *p = isalnum((unsigned char) *p) || *p == '.' || *p == '_' ? (char) tolower((unsigned char) *p) : '-';
        fprintf(f, "[%s]\n", id);
        fprintf(f, "confidence = measured\n");
        if (e->nic->xid2 != CHIP_XID2_INVALID)
                fprintf(f, "match-xid = ext:%x\n", e->nic->xid2);
        else if (e->nic->xid != CHIP_XID_INVALID)
                fprintf(f, "match-xid = %03x/%s\n", e->nic->xid, (e->nic->xid & ~0x7cfu) ? "fff" : "7cf");
        fprintf(f, "match-pci-id = %04x:%04x\n", e->nic->vendor, e->nic->device);
        /* What costs idle power is a throughput fix: performance only (balanced on AC). */
        fprintf(f, "profiles = %s\n", costs_power ? "performance" : "performance powersave");
        print_helped_settings(e, f);
        fprintf(f, "reason = Measured faster with the values above by r8169-tuned experiment (why: to be said).\n");
        fprintf(f, "evidence = %s %s, %s, kernel %s, iperf3, %u rounds of %u s,\n", e->c.machine.dmi[DMI_SYS_VENDOR],
                e->c.machine.dmi[DMI_PRODUCT_NAME], e->nic->chip ? e->nic->chip->name : "unknown chip",
                kernel_version_to_string(&e->c.machine.kernel, kernel, sizeof(kernel)), e->rounds, e->seconds);
        fprintf(f, "  median change with its 95 %% interval:\n");
        print_helped_numbers(e, f, "  ", "    ");
        fprintf(f, "reference = %s\n```\n", R8T_ISSUES_URL);
}

/* The median of the rounds that reported a value (-1: not reported), as text. */
static const char *known_median(const double *v, size_t n, char *buf, size_t size) {
        double known[EXPERIMENT_ROUNDS_MAX];
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (v[i] >= 0)
                        known[k++] = v[i];
        if (k == 0)
                snprintf(buf, size, "n/a");
        else
                snprintf(buf, size, "%.0f", stats_median(known, k));
        return buf;
}

static void write_report(FILE *f, const void *userdata) {
        const Experiment *e = userdata;
        char chip[160], kernel[32], name[160], from[96], change[96], date[32];

        today(date, sizeof(date));
        fprintf(f, "# r8169-tuned experiment: %s, %s\n\n", e->ifname, report_chip_line(e->nic, chip, sizeof(chip)));
        fprintf(f, "## Machine\n\n| | |\n|---|---|\n");
        fprintf(f, "| Machine | %s %s (%s) |\n", e->c.machine.dmi[DMI_SYS_VENDOR], e->c.machine.dmi[DMI_PRODUCT_NAME],
                e->c.machine.dmi[DMI_PRODUCT_FAMILY][0] ? e->c.machine.dmi[DMI_PRODUCT_FAMILY] : "no family");
        fprintf(f, "| Board | %s %s |\n", e->c.machine.dmi[DMI_BOARD_VENDOR], e->c.machine.dmi[DMI_BOARD_NAME]);
        fprintf(f, "| Kernel | %s (%s) |\n", kernel_version_to_string(&e->c.machine.kernel, kernel, sizeof(kernel)),
                e->c.machine.kernel_source);
        fprintf(f, "| NIC | %s, %s, PCI %04x:%04x rev %02x, subsystem %04x:%04x, driver %s |\n", e->ifname, e->nic->slot,
                e->nic->vendor, e->nic->device, e->nic->revision, e->nic->subsys_vendor, e->nic->subsys_device,
                e->nic->driver[0] ? e->nic->driver : "none");
        fprintf(f, "| Chip | %s |\n", chip);
        if (e->line_mbps > 0)
                fprintf(f, "| Link | %.0f Mb/s |\n", e->line_mbps);
        fprintf(f, "| Date | %s, r8169-tuned %s |\n", date, R8T_VERSION);
        fprintf(f, "\n## Method\n\niperf3 (TCP) against a server on the other end of the link, through %s, %u round%s per\ncandidate; in each round the\n"
                "baseline (the NIC as found) and the candidate in random order, %u s per test and direction. The change is\n"
                "the Hodges-Lehmann median difference (candidate - baseline) with its 95 %% interval (Mann-Whitney);\n"
                "\"helps\" needs the interval above 0 and at least %.0f %% of the baseline.\n",
                e->ifname, e->rounds, e->rounds == 1 ? "" : "s", e->seconds, EXPERIMENT_PRACTICAL * 100);
        fprintf(f, "\n## Results\n\n| Candidate | From | Direction | Baseline Mb/s | With it Mb/s | Change [95 %% CI] | "
                "Retransmits | CPU %% | Verdict |\n|---|---|---|---:|---:|---|---:|---:|---|\n");
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];

                if (t->cand.skipped || t->rounds == 0)
                        continue;
                for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                        const Comparison *c = &t->cmp[d];

                        if (!e->directions[d])
                                continue;
                        char rb[16], rc[16], cb[16], cc[16];

                        fprintf(f, "| `%s` | %s | %s | %.0f | %.0f | %s | %s -> %s | %s -> %s | %s |\n",
                                candidate_settings_string(&t->cand, name, sizeof(name)), trial_from(t, from, sizeof(from)),
                                direction_names[d], c->baseline, c->candidate, change_text(c, false, change, sizeof(change)),
                                known_median(t->s[ARM_BASELINE][d].retransmits, t->rounds, rb, sizeof(rb)),
                                known_median(t->s[ARM_CANDIDATE][d].retransmits, t->rounds, rc, sizeof(rc)),
                                known_median(t->s[ARM_BASELINE][d].cpu, t->rounds, cb, sizeof(cb)),
                                known_median(t->s[ARM_CANDIDATE][d].cpu, t->rounds, cc, sizeof(cc)), verdict_to_string(c->verdict));
                }
        }
        fprintf(f, "\n## Idle power\n\n");
        if (e->rapl.why)
                fprintf(f, "Not measurable here: %s.\n", e->rapl.why);
        for (size_t i = 0; i < e->n_trials; i++) {
                const Trial *t = &e->trials[i];
                if (t->power && t->rounds > 0)
                        fprintf(f, "- `%s`: %.2f W -> %.2f W, %s\n", candidate_settings_string(&t->cand, name, sizeof(name)),
                                t->power_cmp.baseline, t->power_cmp.candidate, change_text(&t->power_cmp, true, change, sizeof(change)));
        }
        report_quirk_draft(e, f);
}


/* The NIC to measure: the one named, or the only one there is. */
static Nic *pick_nic(Experiment *e, const bool *selected) {
        Nic *nic = NULL;
        size_t n = 0;

        for (size_t i = 0; i < e->c.nics.n; i++)
                if (selected[i]) {
                        nic = &e->c.nics.nics[i];
                        n++;
                }
        if (n == 0)
                log_error("No Realtek NIC found: nothing to measure.");
        else if (n > 1)
                log_error("%zu Realtek NICs here: name the one to measure (r8169-tuned experiment enp2s0 --server ...).", n);
        return n == 1 ? nic : NULL;
}

static int candidates(Experiment *e) {
        CandidateList l = {};
        char err[200];
        int r;

        if (e->o->n_knobs == 0) {
                r = experiment_candidates(&e->c.quirks, e->nic, &e->c.machine, e->found, &l);
                if (r < 0)
                        return log_error_errno(r, "Cannot list the candidates: %m");
        } else {
                l.v = calloc((size_t) e->o->n_knobs, sizeof(Candidate));
                if (!l.v)
                        return log_oom();
                for (int i = 0; i < e->o->n_knobs; i++) {
                        r = candidate_parse(e->o->knobs[i], &l.v[l.n], err, sizeof(err));
                        if (r < 0) {
                                candidate_list_done(&l);
                                return log_error_errno(r, "--knob %s: %s", e->o->knobs[i], err);
                        }
                        candidate_check(&l.v[l.n++], e->found);
                }
        }
        e->trials = calloc(l.n + 1, sizeof(Trial));
        if (!e->trials) {
                candidate_list_done(&l);
                return log_oom();
        }
        for (size_t i = 0; i < l.n; i++) {
                e->trials[i].cand = l.v[i];
                e->trials[i].power = l.v[i].link_power && !e->rapl.why;
        }
        e->n_trials = l.n;
        candidate_list_done(&l);
        return 0;
}

/*
 * The NIC as found, with nobody else writing it: the service lets go (as "restore" asks it),
 * the lock is ours, no journal is open. *released says the service was asked, whatever it
 * answered (a timeout may still have released it); *was_released that it had let go already.
 */
static int take_nic(Experiment *e, sd_bus *bus, bool *released, bool *was_released, int *lock) {
        _cleanup_(undo_done) UndoJournal j = {};
        _cleanup_(diag_done) Diagnostics d = {};
        int r;

        if (bus) {
                /* Let go of already (a user's restore): asked again, it would hold the NIC for this caller
                 * and take it back when the experiment leaves the bus, which the user did not want. */
                *was_released = service_nic_released(bus, e->nic->slot) > 0;
                if (!*was_released) {
                        *released = true;
                        r = service_release_nic(bus, e->ifname);
                        if (r < 0)
                                return r;
                }
        } else if (undo_service_running(e->o->state_dir) > 0)
                return log_error_errno(EBUSY, "r8169-tuned.service is running without its D-Bus API and keeps %s as configured: "
                                       "the experiment cannot ask it to let go. \"systemctl stop r8169-tuned\" first.", e->ifname);
        r = undo_lock_nic(e->o->state_dir, e->nic->slot, LOCK_WAIT_MS);
        if (r < 0)
                return log_error_errno(r, "%s: %s", e->nic->slot,
                                       r == -EAGAIN ? "another r8169-tuned has been changing this NIC for 30 s"
                                                    : "cannot take its lock in the state directory: %m");
        *lock = r;
        r = undo_load(e->o->state_dir, e->nic->slot, &j, &d);
        if (r < 0)
                return log_error_errno(r, "Cannot read the undo journal of %s: %m", e->nic->slot);
        if (j.n + j.n_raw > 0)
                return log_error_errno(EBUSY, "r8169-tuned has changed %s (%zu value%s in %s): the experiment measures against "
                                       "the NIC as the kernel set it. \"r8169-tuned restore %s\" first.", e->ifname, j.n + j.n_raw,
                                       j.n + j.n_raw == 1 ? "" : "s", j.path, e->ifname);
        return 0;
}

/* What the experiment cannot measure on a link that had a tx timeout: the guard keeps its L1 states. */
static void apply_tx_guard(Experiment *e) {
        uint64_t timeouts;

        if (!context_tx_guard(&e->c, e->nic, &timeouts))
                return;
        for (size_t i = 0; i < e->n_trials; i++)
                for (size_t k = 0; k < e->trials[i].cand.n && !e->trials[i].cand.skipped; k++)
                        if (knob_get(e->trials[i].cand.settings[k].knob)->l1)
                                e->trials[i].cand.skipped = "the link had a tx timeout: its L1 states stay as the guard keeps them";
}

static void output(Experiment *e) {
        if (e->o->json)
                print_json(e, stdout);
        else
                print_text(e, stdout);
        if (e->o->write_config) {
                if (e->n_helped == 0)
                        log_notice("Nothing helped: %s not written.", e->o->write_config);
                else if (write_output(e->o->write_config, write_config, e) >= 0)
                        log_notice("Written %s: copy it to /etc/r8169-tuned/r8169-tuned.conf.d/ to keep what helped.",
                                   e->o->write_config);
        }
        if (e->o->report && write_output(e->o->report, write_report, e) >= 0)
                log_notice("Written %s.", e->o->report);
}

static void line_speed(Experiment *e) {
        char dir[64];
        uint64_t speed;

        snprintf(dir, sizeof(dir), "class/net/%s", e->ifname);
        if (sysroot_read_u64(e->c.root, dir, "speed", &speed) >= 0 && speed > 0 && speed < 1000000)
                e->line_mbps = (double) speed;
}

/* The warm-up, discarded: iperf3 runs, the server answers through this NIC, the path has seen traffic. */
static int warm_up(Experiment *e) {
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
        int g;

        /* A name that does not resolve, said so (iperf3 says "Resource temporarily unavailable": ux-findings L2). */
        g = getaddrinfo(e->host, NULL, &hints, &ai);
        if (g != 0)
                return log_error_errno(EHOSTUNREACH, "Cannot resolve %s: %s.", e->host, gai_strerror(g));
        freeaddrinfo(ai);
        for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                IperfResult res;
                int r = e->directions[d] ? measure(e, d, &res) : 0;
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Ctrl-C: what was measured so far, a candidate cut short marked so (as iperf3 prints its
 * totals on Ctrl-C; ux-findings L12). Nothing is written: a cut run keeps nothing. */
static void interrupted_output(Experiment *e) {
        e->cut = true;
        for (size_t i = 0; i < e->n_trials; i++) {
                Trial *t = &e->trials[i];
                if (t->rounds > 0 && t->rounds < e->rounds && !t->failed[0])
                        snprintf(t->failed, sizeof(t->failed), "interrupted");
                else if (t->rounds == 0 && i + 1 == e->running)
                        snprintf(t->failed, sizeof(t->failed), "interrupted in its first round");
        }
        compare_trials(e);
        printf("Interrupted: what was measured before it, incomplete (nothing was written).\n");
        print_text(e, stdout);
}

static int run_trials(Experiment *e) {
        for (size_t i = 0; i < e->n_trials; i++) {
                Trial *t = &e->trials[i];
                char name[160], from[96];
                int r;

                if (t->cand.skipped)
                        continue;
                progress_clear(e);
                /* Each change is in the journal; apply's own lines are below the notice level the table keeps. */
                log_nic(LOG_NOTICE, R8T_MESSAGE_EXPERIMENT, e->nic, 0,
                        "experiment: %s (%s) against the NIC as found, %u round%s; each change through the undo journal %s/%s",
                        candidate_settings_string(&t->cand, name, sizeof(name)), candidate_origin_to_string(t->cand.origin),
                        e->rounds, e->rounds == 1 ? "" : "s", e->o->state_dir, e->nic->slot);
                e->running = i + 1;
                r = run_trial(e, t, i);
                if (r < 0)
                        return r;
                /* Each candidate's numbers as soon as they are known, on a terminal (ux-findings M4). */
                if (e->tty && !e->o->json && t->rounds > 0) {
                        progress_clear(e);
                        compare_trial(e, t);
                        fprintf(stderr, "[%zu/%zu] %s (%s):\n", i + 1, e->n_trials, name, trial_from(t, from, sizeof(from)));
                        numbers_line(e, t, stderr, "  ");
                }
        }
        return 0;
}

int cmd_experiment(const Options *o) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ bool *selected = NULL;
        _cleanup_close_ int lock = -1;
        /* Every signal whose default would end us with the NIC changed (PIPE is ignored: a closed pipe is said as an error). */
        static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ,
                                       SIGVTALRM, SIGPROF };
        struct sigaction sa = { .sa_handler = on_signal }, ign = { .sa_handler = SIG_IGN }, old[ELEMENTSOF(signals) + 1];
        Experiment e = {
                .o = o,
                .rounds = o->rounds ?: ROUNDS_DEFAULT,
                .seconds = o->seconds ?: SECONDS_DEFAULT,
                .idle_seconds = o->idle_seconds ?: IDLE_SECONDS_DEFAULT,
                .directions = { !o->direction || !streq(o->direction, "receive"), !o->direction || !streq(o->direction, "send") },
        };
        bool released = false, was_released = false, opened = false, failed = false;
        char err[200];
        int ret = 1, r = 0;

        if (!o->server)
                return log_error("experiment needs --server HOST[:PORT]: a machine on the other end of the link running "
                                 "\"iperf3 -s\". See r8169-tuned --help."), 2;
        if (parse_server(&e, o->server) < 0)
                return log_error("--server takes a host name or address: HOST, HOST:PORT or [IPv6]:PORT, not \"%s\". "
                                 "See r8169-tuned --help.", printable(o->server, err, sizeof(err))), 2;
        if (o->n_args > 1)
                return log_error("experiment measures one NIC at a time (\"%s\" and more given). See r8169-tuned --help.",
                                 o->args[0]), 2;
        for (int i = 0; i < o->n_knobs; i++) {
                Candidate c;
                if (candidate_parse(o->knobs[i], &c, err, sizeof(err)) < 0) {
                        log_error("--knob %s: %s. See r8169-tuned --help.", o->knobs[i], err);
                        return 2;
                }
        }
        if (o->iperf3 && (r = iperf_binary_trusted(o->iperf3, err, sizeof(err))) < 0)
                return log_error("--iperf3 %s: %s: root runs only an iperf3 that only root can change. See r8169-tuned --help.",
                                 o->iperf3, err), 2;
        /* Where the results go is checked before anything is measured: minutes of rounds are not lost to a typo. */
        for (size_t i = 0; i < 2; i++) {
                const char *path = i == 0 ? o->write_config : o->report;
                if (path && (r = write_file_check(path)) < 0)
                        return log_error("%s %s: cannot be written there: %s. See r8169-tuned --help.",
                                         i == 0 ? "--write-config" : "--report", path, write_file_refusal(r)), 2;
        }
        if (context_check_privileges(o, "experiment") < 0)
                return 1;
        if (o->log_level < 0 && log_get_max_level() > LOG_NOTICE)
                log_set_max_level(LOG_NOTICE);
        /* From here on a signal only asks: whatever was changed goes back first, and the service gets its NIC back. */
        for (size_t i = 0; i < ELEMENTSOF(signals); i++)
                (void) sigaction(signals[i], &sa, &old[i]);
        (void) sigaction(SIGPIPE, &ign, &old[ELEMENTSOF(signals)]);
        opened = true;
        r = context_open_selected(&e.c, o, true, &selected);
        if (r < 0)
                goto out;
        e.nic = pick_nic(&e, selected);
        if (!e.nic) {
                r = -ENODEV;
                goto out;
        }
        if (e.nic->n_ifnames == 0) {
                r = log_error_errno(ENODEV, "%s has no network interface (driver: %s): nothing to measure through.",
                                    e.nic->slot, e.nic->driver[0] ? e.nic->driver : "none");
                goto out;
        }
        e.ifname = e.nic->ifnames[0];
        e.req = (IperfRequest) { .binary = o->iperf3, .host = e.host, .port = e.port, .seconds = e.seconds, .bind_dev = e.ifname };
        if (getrandom(&e.rng, sizeof(e.rng), GRND_NONBLOCK) != sizeof(e.rng) || e.rng == 0)
                e.rng = now_monotonic_usec() | 1;
        e.tty = isatty(STDERR_FILENO);
        e.started_usec = now_monotonic_usec();
        /* Before anything changes: no iperf3, no server, no route through this NIC are said with nothing to undo. */
        r = warm_up(&e);
        if (r < 0)
                goto out;
        /* The service of this state directory, whatever else the options name: it must not fight the experiment. */
        if (service_bus_connect(o->state_dir, &bus) < 0)
                bus = NULL;
        r = take_nic(&e, bus, &released, &was_released, &lock);
        if (r < 0 || interrupted)
                goto out;
        /* The service's values went back (ASPM or EEE may renegotiate the link): the first round waits as every switch does. */
        if (released) {
                r = settle(&e);
                if (r < 0)
                        goto out;
        }
        e.ac = (ApplyContext) { .backend = &e.c.backend, .state_dir = o->state_dir, .fault_after = o->fault_after_writes,
                                .fault_signal = o->fault_signal };
        backend_read_all(&e.c.backend, e.nic, e.found);
        line_speed(&e);
        rapl_find(&e);
        r = candidates(&e);
        if (r < 0)
                goto out;
        apply_tx_guard(&e);
        for (size_t i = 0; i < e.n_trials; i++)
                if (!e.trials[i].cand.skipped)
                        e.tests_total += 2 * e.rounds * (e.directions[0] + e.directions[1]);
        e.tests_total += e.tests_done; /* the warm-up */
        if (e.tty)
                fprintf(stderr, "%zu candidate%s, %u rounds of %u s per arm and direction: about %u min.\n", e.n_trials,
                        e.n_trials == 1 ? "" : "s", e.rounds, e.seconds,
                        (unsigned) ((e.tests_total - e.tests_done) * (e.seconds + 1.0) / 60 + 1));
        r = run_trials(&e);
        progress_clear(&e);
        if (e.at_candidate)
                (void) to_baseline(&e);
out:
        lock = lock >= 0 ? (close(lock), -1) : -1;
        ret = r < 0 || e.not_as_found ? 1 : 0;
        /* The service takes back what it let go of for the experiment (never a NIC a user's restore let go of). */
        if (released && service_take_back_nic(bus, e.ifname) < 0)
                failed = true;
        if (interrupted) {
                if (!e.not_as_found)
                        log_notice("Interrupted: %s is as it was found.", e.ifname ?: "the NIC");
                /* A NIC not as found, or not taken back, says 1 whatever stopped the run. */
                ret = e.not_as_found || failed ? 1 : 128 + interrupted;
        } else if (failed)
                ret = 1;
        if (!interrupted && r >= 0 && !e.not_as_found && e.nic) {
                compare_trials(&e);
                output(&e);
        } else if (interrupted && !e.not_as_found && !o->json && e.n_trials > 0)
                interrupted_output(&e);
        for (size_t i = 0; i < ELEMENTSOF(signals); i++)
                (void) sigaction(signals[i], &old[i], NULL);
        (void) sigaction(SIGPIPE, &old[ELEMENTSOF(signals)], NULL);
        free(e.trials);
        if (opened)
                context_done(&e.c);
        return ret;
}
