/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * experiment: the A/B test every seed report ran by hand, run properly. For each candidate
 * change, rounds of baseline and candidate in random order (the network drifts), both
 * directions, iperf3 against a server the user runs; the Hodges-Lehmann change with its 95 %
 * interval and a verdict. Every change goes through apply_nic() and its undo journal, and
 * restore_nic() takes the NIC back to the baseline between arms, at the end, on Ctrl-C and
 * on any error; a kill -9 leaves the journal that restore and the service put back.
 *
 * This file is the command: its arguments, checked before anything is measured, the NIC taken
 * from the service and given back, the signals that end it. src/experiment/: measure.c runs the
 * rounds, power.c samples idle power, results.c says what was found.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "base/log.h"
#include "client/service.h"
#include "commands/commands.h"
#include "experiment/measure.h"
#include "experiment/power.h"
#include "experiment/results.h"
#include "state/lock.h"

#define ROUNDS_DEFAULT 5
#define SECONDS_DEFAULT 5
#define IDLE_SECONDS_DEFAULT 5
#define LOCK_WAIT_MS (30 * 1000)

static void on_signal(int sig) {
        experiment_interrupted = sig;
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
        } else if (lock_service_running(e->o->state_dir) > 0)
                return log_error_errno(EBUSY, "r8169-tuned.service is running without its D-Bus API and keeps %s as configured: "
                                       "the experiment cannot ask it to let go. \"systemctl stop r8169-tuned\" first.", e->ifname);
        r = lock_nic(e->o->state_dir, e->nic->slot, LOCK_WAIT_MS);
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

/* Every argument and path checked before anything is measured or changed (issue 33: a typo found after
 * 14 minutes of rounds): 0, or 2, a usage error, said. */
static int check_arguments(const Options *o, Experiment *e) {
        char err[200];
        int r;

        if (!o->server)
                return log_error("experiment needs --server HOST[:PORT]: a machine on the other end of the link running "
                                 "\"iperf3 -s\". See r8169-tuned --help."), 2;
        if (parse_server(e, o->server) < 0)
                return log_error("--server takes a host name or address: HOST, HOST:PORT or [IPv6]:PORT, not \"%s\". "
                                 "See r8169-tuned --help.", printable(o->server, err, sizeof(err))), 2;
        if (o->n_args > 1)
                return log_error("experiment measures one NIC at a time (\"%s\" and more given). See r8169-tuned --help.",
                                 o->args[0]), 2;
        for (int i = 0; i < o->n_knobs; i++) {
                Candidate c;
                if (candidate_parse(o->knobs[i], &c, err, sizeof(err)) < 0)
                        return log_error("--knob %s: %s. See r8169-tuned --help.", o->knobs[i], err), 2;
        }
        if (o->iperf3 && (e->iperf3_fd = iperf_binary_open(o->iperf3, err, sizeof(err))) < 0)
                return log_error("--iperf3 %s: %s: root runs only an iperf3 that only root can change. See r8169-tuned --help.",
                                 o->iperf3, err), 2;
        for (size_t i = 0; i < 2; i++) {
                const char *path = i == 0 ? o->write_config : o->report;
                if (path && (r = write_file_check(path)) == -ENOENT && i == 0 && experiment_dropin_dir(o, path, false) == 0)
                        r = 0;
                if (path && r < 0)
                        return log_error("%s %s: cannot be written there: %s. See r8169-tuned --help.",
                                         i == 0 ? "--write-config" : "--report", path, write_file_refusal(r)), 2;
        }
        if (geteuid() == 0 && !iperf_user_exists())
                log_warning("iperf3 runs as nobody, shared with other services (any process of theirs may trace it): the "
                            "user " IPERF_USER " is missing, or has root's uid or group or nobody's uid; systemd-sysusers "
                            "creates it (the package does at install).");
        return 0;
}

/* Every signal whose default would end us with the NIC changed (PIPE is ignored: a closed pipe is said as an error). */
static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ,
                               SIGVTALRM, SIGPROF };

/* From here on a signal only asks: whatever was changed goes back first, and the service gets its NIC back. */
static void signals_catch(struct sigaction old[ELEMENTSOF(signals) + 1]) {
        struct sigaction sa = { .sa_handler = on_signal }, ign = { .sa_handler = SIG_IGN };

        for (size_t i = 0; i < ELEMENTSOF(signals); i++)
                (void) sigaction(signals[i], &sa, &old[i]);
        (void) sigaction(SIGPIPE, &ign, &old[ELEMENTSOF(signals)]);
}

static void signals_restore(const struct sigaction old[ELEMENTSOF(signals) + 1]) {
        for (size_t i = 0; i < ELEMENTSOF(signals); i++)
                (void) sigaction(signals[i], &old[i], NULL);
        (void) sigaction(SIGPIPE, &old[ELEMENTSOF(signals)], NULL);
}

/* The NIC to measure, with an interface, and what the measurement needs: 0 or a negative errno, said. */
static int open_nic(Experiment *e) {
        _cleanup_free_ bool *selected = NULL;
        int r;

        r = context_open_selected(&e->c, e->o, true, &selected);
        if (r < 0)
                return r;
        e->nic = pick_nic(e, selected);
        if (!e->nic)
                return -ENODEV;
        if (e->nic->n_ifnames == 0)
                return log_error_errno(ENODEV, "%s has no network interface (driver: %s): nothing to measure through.",
                                       e->nic->slot, e->nic->driver[0] ? e->nic->driver : "none");
        e->ifname = e->nic->ifnames[0];
        e->req = (IperfRequest) { .binary = e->o->iperf3, .binary_fd = e->iperf3_fd, .host = e->host, .port = e->port, .seconds = e->seconds,
                                  .bind_dev = e->ifname };
        if (getrandom(&e->rng, sizeof(e->rng), GRND_NONBLOCK) != sizeof(e->rng) || e->rng == 0)
                e->rng = now_monotonic_usec() | 1;
        e->tty = isatty(STDERR_FILENO);
        e->started_usec = now_monotonic_usec();
        return 0;
}

/* With the NIC ours and as found: what it holds, the candidates and their count of tests, then the rounds. */
static int measure_all(Experiment *e, bool released) {
        int r;

        /* The service's values went back (ASPM or EEE may renegotiate the link): the first round waits as every switch does. */
        if (released) {
                r = measure_settle(e);
                if (r < 0)
                        return r;
        }
        e->ac = (ApplyContext) { .backend = &e->c.backend, .state_dir = e->o->state_dir, .fault_after = e->o->fault_after_writes,
                                 .fault_signal = e->o->fault_signal };
        backend_read_all(&e->c.backend, e->nic, e->found);
        measure_line_speed(e);
        idle_power_find(e);
        r = candidates(e);
        if (r < 0)
                return r;
        apply_tx_guard(e);
        for (size_t i = 0; i < e->n_trials; i++)
                if (!e->trials[i].cand.skipped)
                        e->tests_total += 2 * e->rounds * (e->directions[0] + e->directions[1]);
        e->tests_total += e->tests_done; /* the warm-up */
        if (e->tty)
                fprintf(stderr, "%zu candidate%s, %u rounds of %u s per arm and direction: about %u min.\n", e->n_trials,
                        e->n_trials == 1 ? "" : "s", e->rounds, e->seconds,
                        (unsigned) ((e->tests_total - e->tests_done) * (e->seconds + 1.0) / 60 + 1));
        r = measure_run_trials(e);
        measure_progress_clear(e);
        if (e->at_candidate)
                (void) measure_to_baseline(e);
        return r;
}

/* The exit status, from how the run ended; the results when it ran to its end, what was measured on Ctrl-C. */
static int finish(Experiment *e, int r, bool take_back_failed) {
        int ret = r < 0 || e->not_as_found || take_back_failed ? 1 : 0;

        if (experiment_interrupted) {
                if (!e->not_as_found)
                        log_notice("Interrupted: %s is as it was found.", e->ifname ?: "the NIC");
                /* A NIC not as found, or not taken back, says 1 whatever stopped the run. */
                ret = e->not_as_found || take_back_failed ? 1 : 128 + experiment_interrupted;
        }
        if (!experiment_interrupted && r >= 0 && !e->not_as_found && e->nic) {
                experiment_compare_trials(e);
                results_output(e);
        } else if (experiment_interrupted && !e->not_as_found && !e->o->json && e->n_trials > 0)
                results_interrupted(e);
        return ret;
}

int cmd_experiment(const Options *o) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_close_ int lock = -1, iperf3_fd = -1;
        struct sigaction old[ELEMENTSOF(signals) + 1];
        Experiment e = {
                .o = o,
                .iperf3_fd = -1,
                .rounds = o->rounds ?: ROUNDS_DEFAULT,
                .seconds = o->seconds ?: SECONDS_DEFAULT,
                .idle_seconds = o->idle_seconds ?: IDLE_SECONDS_DEFAULT,
                .directions = { !o->direction || !streq(o->direction, "receive"), !o->direction || !streq(o->direction, "send") },
        };
        bool released = false, was_released = false, take_back_failed = false;
        int ret, r;

        r = check_arguments(o, &e);
        iperf3_fd = e.iperf3_fd;
        if (r != 0)
                return r;
        if (context_check_privileges(o, "experiment") < 0)
                return 1;
        if (o->log_level < 0 && log_get_max_level() > LOG_NOTICE)
                log_set_max_level(LOG_NOTICE);
        signals_catch(old);
        r = open_nic(&e);
        /* Before anything changes: no iperf3, no server, no route through this NIC are said with nothing to undo. */
        if (r >= 0)
                r = measure_warm_up(&e);
        /* The service of this state directory, whatever else the options name: it must not fight the experiment. */
        if (r >= 0 && service_bus_connect(o->state_dir, &bus) < 0)
                bus = NULL;
        if (r >= 0)
                r = take_nic(&e, bus, &released, &was_released, &lock);
        if (r >= 0 && !experiment_interrupted)
                r = measure_all(&e, released);
        lock = lock >= 0 ? (close(lock), -1) : -1;
        /* The service takes back what it let go of for the experiment (never a NIC a user's restore let go of). */
        if (released && service_take_back_nic(bus, e.ifname) < 0)
                take_back_failed = true;
        ret = finish(&e, r, take_back_failed);
        signals_restore(old);
        free(e.trials);
        context_done(&e.c);
        return ret;
}
