/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The dynamic link power rule: fast to react, slow to flap, compared with the vendor rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decide/linkpower.h"
#include "linkpower-trace.h"

static const LinkPowerParams params = { LINK_POWER_BUSY_PPS, 0 }; /* the defaults: quiet time auto */

static void test_stray_packets(void **state) {
        LinkPower lp;
        Trace t = {};
        Outcome o;

        /* An ARP reply, a keepalive pair, an NTP exchange: a packet or two every few seconds. */
        for (uint64_t s = 3; s < 120; s += 5)
                add(&t, s * SEC, s * SEC + 2 * MS, 1000);
        link_power_init(&lp, &params, 0);
        o = simulate(&lp, &t, 0, 120 * SEC);
        assert_int_equal(o.changes, 0);
        assert_int_equal(lp.state, LINK_POWER_IDLE);
        assert_int_equal(lp.wakeups, 24);
        assert_int_equal(lp.strays, 24);
        trace_free(&t);
}

static void test_light_traffic(void **state) {
        LinkPower lp;
        Trace t = {};
        Outcome o;

        /* One direction of a VoIP call, 50 frames a second for a minute: under the busy rate.
         * Each stray window doubles the next (to 800 ms): about one wakeup a second, not 14. */
        add(&t, 0, 60 * SEC, 50);
        /* Then calm, and a burst: the window is 50 ms again. */
        add(&t, 63 * SEC, 70 * SEC, 2000);
        link_power_init(&lp, &params, 0);
        o = simulate(&lp, &t, 0, 62 * SEC);
        assert_int_equal(o.changes, 0);
        assert_true(lp.wakeups <= 80);
        assert_true(lp.wakeups >= 60);
        o = simulate(&lp, &t, 62 * SEC, 64 * SEC);
        assert_int_equal(o.first_off, 63 * SEC + LINK_POWER_WINDOW_USEC);
        trace_free(&t);
}

static void test_remote_host(void **state) {
        LinkPower lp;
        Trace t = {};
        Outcome o;
        uint64_t at = 0;

        /* Security review R7: what a host on the LAN can make of it. 90 unicast frames a second,
         * just under the busy rate, for a minute: no change, and the stray windows grow, so about
         * one wakeup a second (each wakeup is one window; the review counted about 14 a second). */
        add(&t, 0, 60 * SEC, 90);
        link_power_init(&lp, &params, 0);
        o = simulate(&lp, &t, 0, 60 * SEC);
        assert_int_equal(o.changes, 0);
        assert_int_equal(lp.strays, lp.wakeups);
        assert_true(lp.wakeups <= 80);

        /* Pulses of 300 ms every 1.5 to 3 s (busy, then quiet long enough for L1): whatever it sends,
         * at most LINK_POWER_ENTRIES_PER_MIN entries into L1 a minute, so two changes each and the
         * one under way. */
        trace_clear(&t);
        for (unsigned i = 0; at < 5 * 60 * SEC; i++) {
                add(&t, at, at + 300 * MS, 2000);
                at += (1500 + (i * 7919 % 1500)) * MS;
        }
        link_power_init(&lp, &params, 0);
        for (uint64_t min = 0; min < 5; min++) {
                o = simulate(&lp, &t, min * 60 * SEC, (min + 1) * 60 * SEC);
                assert_true(o.changes <= 2 * LINK_POWER_ENTRIES_PER_MIN + 1);
        }
        trace_free(&t);
}

static void test_reaction(void **state) {
        LinkPower lp;
        Trace t = {};
        Outcome o;

        add(&t, 10 * SEC + 123 * MS, 20 * SEC, 2000);
        link_power_init(&lp, &params, 0);
        o = simulate(&lp, &t, 0, 30 * SEC);
        /* Off one window after the first packet; on again a quiet time (plus a period) after the last. */
        assert_int_equal(o.first_off, 10 * SEC + 123 * MS + LINK_POWER_WINDOW_USEC);
        assert_int_equal(o.changes, 2);
        assert_int_equal(lp.state, LINK_POWER_IDLE);
        assert_true(lp.since_usec >= 20 * SEC + LINK_POWER_BREAK_EVEN_USEC);
        assert_true(lp.since_usec <= 20 * SEC + LINK_POWER_BREAK_EVEN_USEC + 2 * link_power_period(&lp));
        assert_int_equal(link_power_time(&lp, LINK_POWER_IDLE, 30 * SEC) + link_power_time(&lp, LINK_POWER_BUSY, 30 * SEC),
                         30 * SEC);
        trace_free(&t);
}

static void test_on_off_1s(void **state) {
        LinkPower lp;
        Trace t = {};
        Outcome ours, theirs;

        for (uint64_t s = 0; s < 60; s += 2)
                add(&t, s * SEC, (s + 1) * SEC, 2000);
        link_power_init(&lp, &params, 0);
        ours = simulate(&lp, &t, 0, 60 * SEC);
        theirs = vendor(&t, 60 * SEC);
        /* One misprediction, then the gaps it sees with L1 off: at most 4 changes, where the vendor rule makes about 60. */
        assert_true(ours.changes <= 4);
        assert_int_equal(lp.mispredictions, 1);
        assert_true(lp.quiet_usec >= SEC);
        assert_true(theirs.changes >= 55);
        trace_free(&t);
}

/* Web-like: a page of 0.2-2 s every 3-20 s (a fixed sequence, the same for both rules). */
static void web(Trace *t, uint64_t seconds) {
        uint32_t x = 17;
        uint64_t at = 0;
        for (;;) {
                uint64_t len, gap;
                x = x * 1103515245u + 12345u;
                len = 200 * MS + (x >> 8) % (1800 * MS);
                x = x * 1103515245u + 12345u;
                gap = 3 * SEC + (x >> 8) % (17 * SEC);
                at += gap;
                if (at + len >= seconds * SEC)
                        return;
                add(t, at, at + len, 2000);
        }
}

static void test_web(void **state) {
        LinkPower lp;
        Trace t = {};
        Outcome ours, theirs;
        double share_ours, share_theirs;

        web(&t, 600);
        link_power_init(&lp, &params, 0);
        ours = simulate(&lp, &t, 0, 600 * SEC);
        theirs = vendor(&t, 600 * SEC);
        share_ours = (double) ours.l1_on_usec / (600.0 * SEC);
        share_theirs = (double) theirs.l1_on_usec / (600.0 * SEC);
        print_message("web: L1 on %.1f%% (vendor %.1f%%), packets with L1 on %" PRIu64 " (vendor %" PRIu64
                      "), changes %u (vendor %u), quiet time %.2f s\n",
                      100 * share_ours, 100 * share_theirs, ours.packets_l1_on, theirs.packets_l1_on, ours.changes,
                      theirs.changes, (double) lp.quiet_usec / 1e6);
        assert_true(share_ours >= share_theirs - 0.05);
        assert_true(2 * ours.packets_l1_on <= theirs.packets_l1_on);
        assert_true(ours.changes <= theirs.changes);
        trace_free(&t);
}

static void test_adaptive_quiet(void **state) {
        LinkPower lp;
        Trace t = {};

        /* Bursts 1.4 s apart: a gap of 1.2 s costs less with L1 off through it than with an
         * entry and a wake; it learns that from one L1 stretch cut short (a misprediction) and
         * from the gaps it then sees with L1 off. */
        for (uint64_t i = 0; i < 40; i++)
                add(&t, i * 1400 * MS, i * 1400 * MS + 200 * MS, 2000);
        link_power_init(&lp, &params, 0);
        assert_int_equal(lp.quiet_usec, LINK_POWER_BREAK_EVEN_USEC);
        (void) simulate(&lp, &t, 0, 56 * SEC);
        assert_true(lp.mispredictions >= 1 && lp.mispredictions <= 2);
        assert_int_equal(lp.quiet_usec, 2 * SEC);
        assert_true(lp.transitions <= 3);
        /* Then gaps of 29 s: as they replace the short ones, L1 pays again, and the quiet time
         * comes down to the break-even time. */
        trace_clear(&t);
        for (uint64_t i = 0; i < 16; i++)
                add(&t, 60 * SEC + i * 30 * SEC, 60 * SEC + i * 30 * SEC + SEC, 2000);
        (void) simulate(&lp, &t, 56 * SEC, 61 * SEC);
        assert_int_equal(lp.quiet_usec, 2 * SEC); /* one long gap among fifteen short ones: not yet */
        (void) simulate(&lp, &t, 61 * SEC, 300 * SEC);
        assert_true(lp.quiet_usec < 2 * SEC);
        (void) simulate(&lp, &t, 300 * SEC, 540 * SEC);
        assert_int_equal(lp.quiet_usec, LINK_POWER_BREAK_EVEN_USEC);

        /* Configured, it stays what it is told. */
        link_power_init(&lp, &(LinkPowerParams) { LINK_POWER_BUSY_PPS, 3 * SEC }, 0);
        trace_clear(&t);
        for (uint64_t i = 0; i < 20; i++)
                add(&t, i * 5 * SEC, i * 5 * SEC + 200 * MS, 2000);
        (void) simulate(&lp, &t, 0, 100 * SEC);
        assert_int_equal(lp.quiet_usec, 3 * SEC);
        assert_true(lp.mispredictions >= 5);
        trace_free(&t);
}

static void test_flap_budget(void **state) {
        LinkPower lp;
        Trace t = {};
        Outcome o;

        /* A short burst every 2.1 s: each L1 stretch is long enough to be no misprediction, so
         * only the budget stops sixty changes a minute. */
        for (uint64_t i = 0; i < 60; i++)
                add(&t, i * 2100 * MS, i * 2100 * MS + 100 * MS, 2000);
        link_power_init(&lp, &params, 0);
        o = simulate(&lp, &t, 0, 120 * SEC);
        assert_true(o.changes <= 2 * 2 * LINK_POWER_ENTRIES_PER_MIN + 1);
        assert_true(o.changes >= 2 * LINK_POWER_ENTRIES_PER_MIN);
        trace_free(&t);
}

static void test_counter_reset(void **state) {
        LinkPower lp;

        link_power_init(&lp, &params, 0);
        /* Idle, a sample decides nothing (nothing samples an idle link). */
        assert_false(link_power_sample(&lp, 1 * SEC, 1000000));
        assert_true(link_power_woken(&lp, 2 * SEC, 2 * SEC + LINK_POWER_WINDOW_USEC, 100));
        assert_int_equal(lp.state, LINK_POWER_BUSY);
        /* The first sample is a baseline; the driver reloaded (the counter went back): a baseline again. */
        assert_false(link_power_sample(&lp, 3 * SEC, 1000000));
        assert_false(link_power_sample(&lp, 4 * SEC, 10));
        assert_false(link_power_sample(&lp, 5 * SEC, 1000));
        assert_int_equal(lp.state, LINK_POWER_BUSY);
        /* Quiet since 5 s for the quiet time: idle. */
        assert_false(link_power_sample(&lp, 5 * SEC + 250 * MS, 1001));
        assert_true(link_power_sample(&lp, 5 * SEC + 500 * MS, 1002));
        /* A link loss is no prediction: traffic right after it teaches nothing. */
        assert_true(link_power_woken(&lp, 6 * SEC, 6 * SEC + LINK_POWER_WINDOW_USEC, 100));
        assert_int_equal(lp.mispredictions, 1);
        assert_true(link_power_idle(&lp, 7 * SEC));
        assert_true(link_power_woken(&lp, 7 * SEC + MS, 7 * SEC + LINK_POWER_WINDOW_USEC, 100));
        assert_int_equal(lp.mispredictions, 1);
        assert_string_equal(link_power_state_to_string(lp.state), "busy");
}

/* The band: an idle link goes busy over the busy rate; a busy one is quiet only at half of it or under. */
static void test_band(void **state) {
        LinkPower lp;

        link_power_init(&lp, &params, 0);
        /* 100/s over 1 s is the rate, not over it: stray. 101: busy. */
        assert_false(link_power_woken(&lp, 1 * SEC, 2 * SEC, 100));
        assert_true(link_power_woken(&lp, 3 * SEC, 4 * SEC, 101));
        assert_false(link_power_sample(&lp, 5 * SEC, 1000)); /* the baseline */
        /* 51 frames a second for 2 s: still busy (over half), however long. */
        for (uint64_t t = 6; t <= 7; t++)
                assert_false(link_power_sample(&lp, t * SEC, 1000 + (t - 5) * 51));
        assert_int_equal(lp.last_busy_usec, 7 * SEC);
        /* 50 a second is half: quiet; after the quiet time (0.5 s, a sample a second here), idle. */
        assert_true(link_power_sample(&lp, 8 * SEC, 1000 + 2 * 51 + 50));
        assert_int_equal(lp.state, LINK_POWER_IDLE);
        /* A counter that jumped so far that the product does not fit is busy, not quiet. */
        assert_true(link_power_woken(&lp, 20 * SEC, 20 * SEC + LINK_POWER_WINDOW_USEC, UINT64_MAX / 1000));
        assert_false(link_power_sample(&lp, 21 * SEC, 5));
        assert_false(link_power_sample(&lp, 22 * SEC, 5 + UINT64_MAX / 1000000));
        assert_int_equal(lp.last_busy_usec, 22 * SEC);
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

/* Records of other versions: an older one (no quiet time), a later one (a key unknown here), a
 * quiet link's (saved at its last change: the time since counts), a file without a state. */
static void test_record_versions(void **state) {
        char dir[] = "/tmp/r8t-lpv.XXXXXX", path[96];
        LinkPowerRecord rec = {};
        FILE *f;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/0000:02:00.0.linkpower", dir);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs("state busy\ntransitions 3\nidle_usec 5\nbusy_usec 7\n", f);
        fclose(f);
        assert_int_equal(link_power_record_load(dir, "0000:02:00.0", &rec), 0);
        assert_int_equal(rec.transitions, 3);
        assert_int_equal(rec.busy_usec, 7);
        assert_int_equal(rec.quiet_usec, 0);
        f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "state idle\ntransitions 4\nidle_usec 1000000\nbusy_usec 7\nfuture_key 12\nsaved_usec %" PRIu64 "\n",
                (uint64_t) (now_monotonic_usec() - 10 * SEC));
        fclose(f);
        assert_int_equal(link_power_record_load(dir, "0000:02:00.0", &rec), 0);
        assert_int_equal(rec.transitions, 4);
        assert_true(rec.idle_usec >= 11 * SEC && rec.idle_usec < 12 * SEC);
        assert_int_equal(rec.busy_usec, 7);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs("transitions 4\n", f);
        fclose(f);
        assert_int_equal(link_power_record_load(dir, "0000:02:00.0", &rec), -EBADMSG);
        unlink(path);
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stray_packets),
                cmocka_unit_test(test_remote_host),
                cmocka_unit_test(test_light_traffic),
                cmocka_unit_test(test_reaction),
                cmocka_unit_test(test_on_off_1s),
                cmocka_unit_test(test_web),
                cmocka_unit_test(test_adaptive_quiet),
                cmocka_unit_test(test_flap_budget),
                cmocka_unit_test(test_counter_reset),
                cmocka_unit_test(test_band),
                cmocka_unit_test(test_record_writer),
                cmocka_unit_test(test_record_versions),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
