/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Traces for the dynamic link power rule (decide/linkpower.h): packets at known times, the
 * daemon's loop run over them without the daemon, and the vendor rule on the same packets.
 * Shared by test-linkpower (hand-made cases) and test-linkpower-patterns (the traffic patterns
 * of tests/bench/link-power.sh, seeded the same way: splitmix64 here and there).
 */
#pragma once

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "decide/linkpower.h"

#define SEC 1000000ull
#define MS 1000ull

/* Packet times in µs, sorted before use. */
typedef struct Trace {
        uint64_t *at;
        size_t n, cap;
        bool sorted;
} Trace;

static inline void trace_packet(Trace *t, uint64_t at) {
        if (t->n == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 4096;
                t->at = realloc(t->at, t->cap * sizeof(*t->at));
                assert_non_null(t->at);
        }
        if (t->n > 0 && at < t->at[t->n - 1])
                t->sorted = false;
        else if (t->n == 0)
                t->sorted = true;
        t->at[t->n++] = at;
}

/* Steady traffic: packets at start + k / pps, k = 0, 1, ... while before end. */
static inline void add(Trace *t, uint64_t start, uint64_t end, uint64_t pps) {
        for (uint64_t k = 0; start + k * SEC / pps < end; k++)
                trace_packet(t, start + k * SEC / pps);
}

static inline void trace_clear(Trace *t) { t->n = 0; }

static inline void trace_free(Trace *t) {
        free(t->at);
        *t = (Trace) {};
}

static inline int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* Packets before `at`: what a counter read at `at` says. */
static inline uint64_t cum(Trace *t, uint64_t at) {
        size_t lo = 0, hi = t->n;

        if (!t->sorted) {
                if (t->n > 1) /* an empty trace has no array to sort */
                        qsort(t->at, t->n, sizeof(*t->at), cmp_u64);
                t->sorted = true;
        }
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (t->at[mid] < at)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* The first packet at or after `at`; UINT64_MAX: none. */
static inline uint64_t next_packet(Trace *t, uint64_t at) {
        uint64_t i = cum(t, at);
        return i < t->n ? t->at[i] : UINT64_MAX;
}

#define RECENT 64

typedef struct Outcome {
        unsigned changes;
        uint64_t l1_on_usec, packets_l1_on, first_off;
        unsigned changes_per_min_max; /* the most in any 60 s, a sliding window */
        unsigned wakeups;             /* timer and socket wakeups of the daemon */
        uint64_t recent[RECENT];      /* the changes of the last 60 s, a ring */
        unsigned n_recent, first_recent;
} Outcome;

static inline void changed(Outcome *o, uint64_t at) {
        while (o->n_recent > 0 && o->recent[o->first_recent] + 60 * SEC <= at) {
                o->first_recent = (o->first_recent + 1) % RECENT;
                o->n_recent--;
        }
        assert_true(o->n_recent < RECENT);
        o->recent[(o->first_recent + o->n_recent++) % RECENT] = at;
        o->changes++;
        if (o->n_recent > o->changes_per_min_max)
                o->changes_per_min_max = o->n_recent;
}

/* The daemon's loop, without the daemon: woken by a packet while idle, sampling while busy. */
static inline Outcome simulate(LinkPower *lp, Trace *t, uint64_t from, uint64_t to) {
        Outcome o = {};
        uint64_t now = from;

        while (now < to) {
                if (lp->state == LINK_POWER_IDLE) {
                        uint64_t p = next_packet(t, now), end;
                        if (p >= to) {
                                o.l1_on_usec += to - now;
                                break;
                        }
                        end = p + link_power_window(lp, p);
                        o.l1_on_usec += end - now;
                        o.packets_l1_on += cum(t, end) - cum(t, now);
                        o.wakeups += 2; /* the frame, the window's end */
                        if (link_power_woken(lp, p, end, cum(t, end) - cum(t, p))) {
                                changed(&o, end);
                                if (!o.first_off)
                                        o.first_off = end;
                        }
                        now = end;
                } else {
                        /* The daemon's timer has a fifth of the period as accuracy: the latest it may fire. */
                        now += link_power_period(lp) + link_power_period(lp) / 5;
                        o.wakeups++;
                        if (link_power_sample(lp, now, cum(t, now)))
                                changed(&o, now);
                }
        }
        return o;
}

/* The vendor rule on the same packets: every second, more than 10 packets since the last -> off, else on. */
static inline Outcome vendor(Trace *t, uint64_t to) {
        Outcome o = {};
        bool off = false;

        for (uint64_t s = 0; s + SEC <= to; s += SEC) {
                bool want = cum(t, s + SEC) - cum(t, s) > 10;
                if (!off) {
                        o.l1_on_usec += SEC;
                        o.packets_l1_on += cum(t, s + SEC) - cum(t, s);
                }
                if (want != off)
                        changed(&o, s + SEC);
                off = want;
        }
        return o;
}
