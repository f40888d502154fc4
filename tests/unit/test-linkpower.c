/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The dynamic link power rule: fast to react, slow to flap, compared with the vendor rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linkpower.h"

static const LinkPowerParams params = { LINK_POWER_PERIOD_USEC, LINK_POWER_BUSY_PPS, LINK_POWER_QUIET_USEC };
#define SEC 1000000ull

/* Feed a traffic pattern (packets per second at each instant) sampled every period. */
static unsigned run(LinkPower *lp, uint64_t from, uint64_t to, uint64_t (*pps)(uint64_t t), uint64_t *packets,
                    uint64_t *first_change) {
        unsigned changes = 0;
        for (uint64_t t = from; t <= to; t += params.period_usec) {
                *packets += pps(t) * params.period_usec / SEC;
                if (link_power_sample(lp, t, *packets)) {
                        changes++;
                        if (first_change && !*first_change)
                                *first_change = t;
                }
        }
        return changes;
}

static uint64_t quiet(uint64_t t) { return 2; }
static uint64_t busy(uint64_t t) { return 5000; }
static uint64_t on_off_1s(uint64_t t) { return (t / SEC) % 2 ? 5000 : 0; }

/* The vendor rule on the same counters: every second, more than 10 packets -> off, else on. */
static unsigned vendor_transitions(uint64_t seconds, uint64_t (*pps)(uint64_t t)) {
        bool off = false;
        unsigned changes = 0;
        for (uint64_t s = 0; s < seconds; s++) {
                bool want = pps(s * SEC) > 10;
                changes += want != off;
                off = want;
        }
        return changes;
}

static void test_reaction_and_hysteresis(void **state) {
        LinkPower lp;
        uint64_t packets = 0, first = 0;

        link_power_init(&lp, &params, 0);
        assert_int_equal(run(&lp, 0, 10 * SEC, quiet, &packets, NULL), 0);
        assert_int_equal(lp.state, LINK_POWER_IDLE);
        /* Traffic starts at 10 s: L1 off at the first sample after it, within one period. */
        assert_int_equal(run(&lp, 10 * SEC + params.period_usec, 20 * SEC, busy, &packets, &first), 1);
        assert_true(first - 10 * SEC <= params.period_usec);
        assert_int_equal(lp.state, LINK_POWER_BUSY);
        /* Quiet again at 20 s: on only after the quiet time, not at the first quiet sample. */
        first = 0;
        assert_int_equal(run(&lp, 20 * SEC + params.period_usec, 20 * SEC + LINK_POWER_QUIET_USEC - params.period_usec,
                             quiet, &packets, NULL), 0);
        assert_int_equal(lp.state, LINK_POWER_BUSY);
        assert_int_equal(run(&lp, 20 * SEC + LINK_POWER_QUIET_USEC, 80 * SEC, quiet, &packets, &first), 1);
        assert_int_equal(lp.state, LINK_POWER_IDLE);
        assert_true(first - 20 * SEC <= LINK_POWER_QUIET_USEC + params.period_usec);
        assert_int_equal(lp.transitions, 2);
        /* Time in each state adds up to the time observed. */
        assert_int_equal(link_power_time(&lp, LINK_POWER_IDLE, 80 * SEC) + link_power_time(&lp, LINK_POWER_BUSY, 80 * SEC),
                         80 * SEC);
}

static void test_flapping(void **state) {
        LinkPower lp;
        uint64_t packets = 0;
        unsigned ours;

        /* 1 s on / 1 s off for a minute: one transition (off), where the vendor rule makes about 60. */
        link_power_init(&lp, &params, 0);
        ours = run(&lp, 0, 60 * SEC, on_off_1s, &packets, NULL);
        assert_true(ours <= 2);
        assert_true(vendor_transitions(60, on_off_1s) >= 55);
}

static void test_counter_reset(void **state) {
        LinkPower lp;

        link_power_init(&lp, &params, 0);
        assert_false(link_power_sample(&lp, 1 * SEC, 1000000));
        /* The driver was reloaded: its counters start again; no spurious "busy". */
        assert_false(link_power_sample(&lp, 2 * SEC, 10));
        assert_int_equal(lp.state, LINK_POWER_IDLE);
        assert_false(link_power_sample(&lp, 3 * SEC, 12));
        assert_true(link_power_sample(&lp, 4 * SEC, 100000));
        assert_string_equal(link_power_state_to_string(lp.state), "busy");
}

/* Security review S8: the record is written through the one writer: a hard link planted at the old
 * temporary name or at the record's is not written through, and the mode is 0644 under umask 000. */
static void test_record_writer(void **state) {
        char dir[] = "/tmp/r8t-lp.XXXXXX", victim[64], path[96], tmp[96], line[64];
        LinkPowerRecord rec = { .state = "idle", .transitions = 3 }, back = {};
        struct stat st;
        mode_t old;
        FILE *f;

        assert_non_null(mkdtemp(dir));
        snprintf(victim, sizeof(victim), "%s/victim", dir);
        snprintf(path, sizeof(path), "%s/0000:02:00.0.linkpower", dir);
        snprintf(tmp, sizeof(tmp), "%s/0000:02:00.0.linkpower.tmp", dir);
        f = fopen(victim, "w");
        assert_non_null(f);
        fputs("untouched\n", f);
        fclose(f);
        assert_int_equal(link(victim, tmp), 0);
        assert_int_equal(link(victim, path), 0);
        old = umask(0);
        assert_int_equal(link_power_record_save(dir, "0000:02:00.0", &rec), 0);
        umask(old);
        f = fopen(victim, "r");
        assert_non_null(f);
        assert_non_null(fgets(line, sizeof(line), f));
        fclose(f);
        assert_string_equal(line, "untouched\n");
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_nlink, 1);
        assert_int_equal(st.st_mode & 07777, 0644);
        assert_int_equal(link_power_record_load(dir, "0000:02:00.0", &back), 0);
        assert_string_equal(back.state, "idle");
        assert_int_equal(back.transitions, 3);
        unlink(path);
        unlink(tmp);
        unlink(victim);
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_reaction_and_hysteresis),
                cmocka_unit_test(test_flapping),
                cmocka_unit_test(test_counter_reset),
                cmocka_unit_test(test_record_writer),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
