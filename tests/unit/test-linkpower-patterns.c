/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dynamic link power rule on five traffic patterns, three seeds each, against the vendor
 * rule on the same packets (issue 50). The patterns and their seeding are those of
 * tests/bench/link-power.sh, which plays them over a real veth: splitmix64 in both, so a seed
 * gives the same bursts here and there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "decide/linkpower.h"
#include "linkpower-trace.h"

#define RATE 2000 /* packets per second in a burst */

typedef struct Rng {
        uint64_t x;
} Rng;

static uint64_t splitmix64(Rng *r) {
        uint64_t z = (r->x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

/* Uniform in [0, 1): the top 53 bits. */
static double unit(Rng *r) { return (double) (splitmix64(r) >> 11) / 9007199254740992.0; }

/* Uniform in [a, b) µs. */
static uint64_t uniform(Rng *r, uint64_t a, uint64_t b) { return a + (uint64_t) (unit(r) * (double) (b - a)); }

typedef enum Pattern {
        IDLE,
        WEB,
        ONOFF,
        STEADY,
        PULSES,
        _PATTERN_MAX,
} Pattern;

static const char *const pattern_names[_PATTERN_MAX] = {
        [IDLE] = "idle", [WEB] = "web", [ONOFF] = "onoff", [STEADY] = "steady", [PULSES] = "pulses",
};

/*
 * idle:   nothing.
 * web:    a page: 0.2-2 s of traffic, starting every 3-20 s.
 * onoff:  1 s on, 1 s off, from a phase of 0-2 s.
 * steady: a Poisson stream at 90 % of the busy rate.
 * pulses: 50-300 ms of traffic, then 1-3 s of quiet.
 */
static void pattern(Trace *t, Pattern p, uint64_t seed, uint64_t seconds) {
        Rng r = { seed };
        uint64_t end = seconds * SEC, at = 0;

        switch (p) {
        case IDLE:
                break;
        case WEB:
                for (;;) {
                        uint64_t len;
                        at += uniform(&r, 3 * SEC, 20 * SEC);
                        len = uniform(&r, 200 * MS, 2 * SEC);
                        if (at + len >= end)
                                break;
                        add(t, at, at + len, RATE);
                }
                break;
        case ONOFF:
                for (at = uniform(&r, 0, 2 * SEC); at + SEC < end; at += 2 * SEC)
                        add(t, at, at + SEC, RATE);
                break;
        case STEADY: {
                double mean = 1e6 / (0.9 * LINK_POWER_BUSY_PPS);
                for (double x = 0;;) {
                        x += -log(1.0 - unit(&r)) * mean;
                        if (x >= (double) end)
                                break;
                        trace_packet(t, (uint64_t) x);
                }
                break;
        }
        case PULSES:
                for (;;) {
                        uint64_t len = uniform(&r, 50 * MS, 300 * MS);
                        if (at + len >= end)
                                break;
                        add(t, at, at + len, RATE);
                        at += len + uniform(&r, SEC, 3 * SEC);
                }
                break;
        default:
                fail();
        }
}

static const LinkPowerParams params = { LINK_POWER_BUSY_PPS, 0 };

typedef struct Row {
        Outcome ours, theirs;
        uint64_t packets;
        double minutes;
} Row;

static Row run(Pattern p, uint64_t seed, uint64_t seconds) {
        Trace t = {};
        LinkPower lp;
        Row row = { .minutes = seconds / 60.0 };

        pattern(&t, p, seed, seconds);
        link_power_init(&lp, &params, 0);
        row.ours = simulate(&lp, &t, 0, seconds * SEC);
        row.theirs = vendor(&t, seconds * SEC);
        row.packets = t.n;
        trace_free(&t);
        return row;
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * a / b : 0; }

/*
 * What the rule promises on each pattern, against the vendor rule on the same packets (the
 * issue's goals where they can be met together; the comment in decide/linkpower.h gives the
 * arithmetic where they cannot):
 * - every pattern: never more changes in any 60 s than the flap budget allows;
 * - idle: no change (its wakeups, none, are the daemon's loop: tests/bench/link-power.sh and
 *   integration/test-link-power measure them);
 * - web, onoff, steady: L1 on at least the vendor's time less 5 points, at most half the
 *   packets it sends with L1 on, and about as many changes (web) or at most 4 a minute;
 * - pulses: at most half the packets with L1 on and fewer changes than the vendor; L1 on for
 *   less time than the vendor's, as the budget must (6 entries a minute into gaps of 1-3 s).
 */
static void check(Pattern p, const Row *r, uint64_t seconds) {
        double on = pct(r->ours.l1_on_usec, seconds * SEC), von = pct(r->theirs.l1_on_usec, seconds * SEC);

        assert_true(r->ours.changes_per_min_max <= 2 * LINK_POWER_ENTRIES_PER_MIN + 1);
        if (p == IDLE) {
                assert_int_equal(r->ours.changes, 0);
                assert_int_equal(r->ours.wakeups, 0);
                return;
        }
        assert_true(2 * r->ours.packets_l1_on <= r->theirs.packets_l1_on);
        if (p == PULSES) {
                assert_true(r->ours.changes < r->theirs.changes);
                assert_true(on >= 10.0);
                return;
        }
        assert_true(on >= von - 5.0);
        if (p == WEB)
                /* both rules change twice a page; the vendor's tick merges a page with the next a little more often */
                assert_true(20 * r->ours.changes <= 21 * r->theirs.changes);
        else
                assert_true(r->ours.changes_per_min_max <= 4);
}

static void test_patterns(void **state) {
        const uint64_t seconds = 600, seeds[] = { 1, 2, 3 };

        print_message("| pattern | seed | L1 on: ours / vendor | packets with L1 on: ours / vendor | changes a minute: ours (most in one) / vendor | wakeups a minute |\n");
        for (Pattern p = 0; p < _PATTERN_MAX; p++)
                for (size_t i = 0; i < ELEMENTSOF(seeds); i++) {
                        Row r = run(p, seeds[i], seconds);

                        print_message("| %s | %" PRIu64 " | %.1f %% / %.1f %% | %.1f %% / %.1f %% | %.1f (%u) / %.1f | %.1f |\n",
                                      pattern_names[p], seeds[i], pct(r.ours.l1_on_usec, seconds * SEC),
                                      pct(r.theirs.l1_on_usec, seconds * SEC), pct(r.ours.packets_l1_on, r.packets),
                                      pct(r.theirs.packets_l1_on, r.packets), r.ours.changes / r.minutes,
                                      r.ours.changes_per_min_max, r.theirs.changes / r.minutes, r.ours.wakeups / r.minutes);
                        check(p, &r, seconds);
                }
}

/* Whatever a host on the LAN sends: pulses of 20 ms to 1 s at 2000 or 150 packets a second,
 * 0.1 to 5 s apart, regular or drawn: never more changes in a minute than the budget allows. */
static void test_any_sender(void **state) {
        static const uint64_t lens[] = { 20 * MS, 60 * MS, 150 * MS, 300 * MS, SEC },
                              gaps[] = { 100 * MS, 400 * MS, 700 * MS, SEC, 1600 * MS, 2500 * MS, 5 * SEC };
        unsigned worst = 0;

        for (size_t i = 0; i < ELEMENTSOF(lens); i++)
                for (size_t j = 0; j < ELEMENTSOF(gaps); j++)
                        for (uint64_t pps = 150; pps <= 2000; pps += 1850)
                                for (unsigned drawn = 0; drawn < 2; drawn++) {
                                        Trace t = {};
                                        Rng r = { i * 100 + j };
                                        LinkPower lp;
                                        Outcome o;

                                        for (uint64_t at = 0; at < 300 * SEC;) {
                                                uint64_t len = drawn ? uniform(&r, lens[i] / 2, lens[i] * 3 / 2) : lens[i];
                                                add(&t, at, at + len, pps);
                                                at += len + (drawn ? uniform(&r, gaps[j] / 2, gaps[j] * 3 / 2) : gaps[j]);
                                        }
                                        link_power_init(&lp, &params, 0);
                                        o = simulate(&lp, &t, 0, 300 * SEC);
                                        worst = o.changes_per_min_max > worst ? o.changes_per_min_max : worst;
                                        trace_free(&t);
                                }
        print_message("the most changes in a minute, any sender: %u (budget %d entries)\n", worst,
                      LINK_POWER_ENTRIES_PER_MIN);
        assert_true(worst <= 2 * LINK_POWER_ENTRIES_PER_MIN + 1);
        assert_true(worst >= 2 * LINK_POWER_ENTRIES_PER_MIN); /* the grid reaches the bound: it tests it */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_patterns),
                cmocka_unit_test(test_any_sender),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
