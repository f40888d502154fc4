/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/stats.h"

/* cmocka 1.1.5 (Debian 12) compares floats only: doubles by hand, showing both on failure. */
static void assert_close_(double a, double b, const char *file, int line) {
        if (!(a - b < 1e-9 && b - a < 1e-9)) {
                print_error("%.17g != %.17g\n", a, b);
                _fail(file, line);
        }
}
#define assert_close(a, b) assert_close_((a), (b), __FILE__, __LINE__)

/* Knuth's MMIX LCG: the same numbers on every machine and libc, unlike rand(). */
static double uniform(uint64_t *state) {
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (double) (*state >> 11) / (double) (UINT64_C(1) << 53);
}

/* Whether v is the r-th smallest (1-based) of the m*n differences y_j - x_i, ties allowed. */
static bool is_order_statistic(const double *x, size_t m, const double *y, size_t n, size_t r, double v) {
        size_t below = 0, at_most = 0;

        for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < n; j++) {
                        below += y[j] - x[i] < v;
                        at_most += y[j] - x[i] <= v;
                }
        return below < r && r <= at_most;
}

static void test_median(void **state) {
        double odd[] = { 3, -1, 7, 2, 5 }, even[] = { 4, 1, 3, 2 }, one[] = { 42 };
        double copy[5];

        memcpy(copy, odd, sizeof(odd));
        assert_close(stats_median(odd, 5), 3);
        assert_memory_equal(odd, copy, sizeof(odd)); /* not sorted in place */
        memcpy(copy, even, sizeof(even));
        assert_close(stats_median(even, 4), 2.5);
        assert_memory_equal(even, copy, sizeof(even));
        assert_close(stats_median(one, 1), 42);
        assert_true(isnan(stats_median(one, 0)));
}

static void test_hand_computed(void **state) {
        /*
         * y_j - x_i, a row per x:
         *   x = 1:  2  3  4  5  6
         *   x = 2:  1  2  3  4  5
         *   x = 3:  0  1  2  3  4
         *   x = 4: -1  0  1  2  3
         *   x = 5: -2 -1  0  1  2
         * Sorted: -2 -1 -1 0 0 0 1 1 1 1 2 2 2 2 2 3 3 3 3 4 4 4 5 5 6. The 13th is 2; m = n = 5
         * at 0.95 gives k = 3: from the 3rd smallest, -1, to the 3rd largest, 5.
         */
        const double x[] = { 1, 2, 3, 4, 5 }, y[] = { 3, 4, 5, 6, 7 };
        Estimate e;

        assert_int_equal(stats_hodges_lehmann(x, 5, y, 5, 0.95, &e), 0);
        assert_close(e.estimate, 2);
        assert_close(e.lo, -1);
        assert_close(e.hi, 5);
        assert_close(e.confidence, 1 - 8.0 / 252);
}

static void test_exact_levels(void **state) {
        /*
         * x = 0..4, y = 0.5, 5.5, ..., 20.5: y_j - x_i = 5j - i + 0.5 takes every value
         * -3.5, -2.5, ..., 20.5 once, so the r-th smallest difference is r - 4.5. For
         * m = n = 5, P(U <= 0, 1, 2) = 1, 2, 4 in C(10, 5) = 252.
         */
        const double x[] = { 0, 1, 2, 3, 4 }, y[] = { 0.5, 5.5, 10.5, 15.5, 20.5 };
        Estimate e;

        assert_int_equal(stats_hodges_lehmann(x, 5, y, 5, 0.95, &e), 0);
        assert_close(e.estimate, 8.5);
        assert_close(e.lo, 3 - 4.5); /* k = 3 */
        assert_close(e.hi, 23 - 4.5);
        assert_close(e.confidence, 1 - 8.0 / 252);

        /* Just below what k = 3 attains: still k = 3, not the wider k = 2. */
        assert_int_equal(stats_hodges_lehmann(x, 5, y, 5, 0.968, &e), 0);
        assert_close(e.lo, 3 - 4.5);
        assert_close(e.confidence, 1 - 8.0 / 252);

        assert_int_equal(stats_hodges_lehmann(x, 5, y, 5, 0.97, &e), 0);
        assert_close(e.lo, 2 - 4.5); /* k = 2 */
        assert_close(e.hi, 24 - 4.5);
        assert_close(e.confidence, 1 - 4.0 / 252);

        assert_int_equal(stats_hodges_lehmann(x, 5, y, 5, 0.99, &e), 0);
        assert_close(e.lo, 1 - 4.5); /* k = 1: the extremes */
        assert_close(e.hi, 25 - 4.5);
        assert_close(e.confidence, 1 - 2.0 / 252);

        /* 1 - 2/252 = 0.992 is the most five and five values can give. */
        assert_int_equal(stats_hodges_lehmann(x, 5, y, 5, 0.995, &e), -ERANGE);
        assert_close(e.estimate, 8.5);
        assert_true(isinf(e.lo) && e.lo < 0);
        assert_true(isinf(e.hi) && e.hi > 0);
        assert_true(e.confidence == 0);
}

static void test_small_samples(void **state) {
        const double x[] = { 0, 1, 2, 3 }, y[] = { 0.5, 4.5, 8.5, 12.5 };
        Estimate e;

        /* m = n = 3: P(U <= 0) = 1/20, at best 1 - 2/20 = 0.9. */
        assert_int_equal(stats_hodges_lehmann(x, 3, y, 3, 0.95, &e), -ERANGE);
        assert_true(isinf(e.lo) && isinf(e.hi) && e.confidence == 0);
        assert_int_equal(stats_hodges_lehmann(x, 3, y, 3, 0.89, &e), 0);
        assert_close(e.confidence, 0.9);

        /* m = n = 4: P(U <= 0) = 1/70, so k = 1 from the smallest difference, -2.5, to the largest, 12.5. */
        assert_int_equal(stats_hodges_lehmann(x, 4, y, 4, 0.95, &e), 0);
        assert_close(e.lo, -2.5);
        assert_close(e.hi, 12.5);
        assert_close(e.confidence, 1 - 2.0 / 70);
}

static void test_unequal_sizes(void **state) {
        /* m = 1: U is uniform on 0..n, P(U <= k - 1) = k / 40 and the coverage 1 - k / 20. */
        double x[] = { 0 }, y[39];
        Estimate e;

        for (size_t j = 0; j < 39; j++)
                y[j] = (double) j;
        assert_int_equal(stats_hodges_lehmann(x, 1, y, 39, 0.79, &e), 0);
        assert_close(e.lo, 3); /* k = 4 */
        assert_close(e.hi, 35);
        assert_close(e.estimate, 19);
        assert_close(e.confidence, 0.8);
        /* The other way round counts the same distribution with 39 parts of 0..1. */
        assert_int_equal(stats_hodges_lehmann(y, 39, x, 1, 0.79, &e), 0);
        assert_close(e.lo, -35);
        assert_close(e.hi, -3);
        assert_close(e.confidence, 0.8);
}

static void test_shift_and_swap(void **state) {
        double x[7], y[9], y_shifted[9];
        Estimate e, shifted, swapped;
        uint64_t seed = 1;

        for (size_t i = 0; i < 7; i++)
                x[i] = uniform(&seed) * 10;
        for (size_t j = 0; j < 9; j++) {
                y[j] = uniform(&seed) * 10 + 2;
                y_shifted[j] = y[j] + 3.25;
        }
        assert_int_equal(stats_hodges_lehmann(x, 7, y, 9, 0.9, &e), 0);
        assert_true(e.lo < e.estimate && e.estimate < e.hi);

        assert_int_equal(stats_hodges_lehmann(x, 7, y_shifted, 9, 0.9, &shifted), 0);
        assert_close(shifted.estimate, e.estimate + 3.25);
        assert_close(shifted.lo, e.lo + 3.25);
        assert_close(shifted.hi, e.hi + 3.25);
        assert_close(shifted.confidence, e.confidence);

        assert_int_equal(stats_hodges_lehmann(y, 9, x, 7, 0.9, &swapped), 0);
        assert_close(swapped.estimate, -e.estimate);
        assert_close(swapped.lo, -e.hi);
        assert_close(swapped.hi, -e.lo);
        assert_close(swapped.confidence, e.confidence);
}

static void test_normal_approximation(void **state) {
        /*
         * m*n = 3600: mean 1800, sd sqrt(3600 * 121 / 12) = 190.53. The largest k with
         * 1 - 2 Phi((k - 1/2 - 1800) / 190.53) >= 0.95 is k = 1427, coverage 0.9500470 (0.9503527
         * without the continuity correction): the interval runs from the 1427th to the 2174th
         * smallest difference.
         */
        double x[60], y[60];
        uint64_t seed = 2;
        Estimate e;

        for (size_t i = 0; i < 60; i++) {
                x[i] = uniform(&seed) * 2 - 1;
                y[i] = 10 + uniform(&seed) * 2 - 1;
        }
        assert_int_equal(stats_hodges_lehmann(x, 60, y, 60, 0.95, &e), 0);
        assert_true(e.lo < 10 && 10 < e.hi);
        assert_true(e.lo < e.estimate && e.estimate < e.hi);
        assert_true(e.estimate > 9.7 && e.estimate < 10.3);
        assert_true(e.confidence >= 0.95);
        assert_true(e.confidence > 0.9500465 && e.confidence < 0.9500475);
        assert_true(is_order_statistic(x, 60, y, 60, 1427, e.lo));
        assert_true(is_order_statistic(x, 60, y, 60, 2174, e.hi));
}

static void test_coverage_simulated(void **state) {
        /*
         * Both samples from one distribution: the true shift is 0, and an interval that
         * attains 1 - 8/252 = 96.8 % misses it 3.17 % of the time, 63.5 of 2000 runs (sd
         * 7.8). Fewer than 40 would mean intervals wider than claimed, more than 90 (4.5 %)
         * narrower. The seed is fixed, so the count is too.
         */
        uint64_t seed = 3;
        unsigned missed = 0;

        for (unsigned run = 0; run < 2000; run++) {
                double x[5], y[5];
                Estimate e;

                for (size_t i = 0; i < 5; i++) {
                        x[i] = uniform(&seed);
                        y[i] = uniform(&seed);
                }
                assert_int_equal(stats_hodges_lehmann(x, 5, y, 5, 0.95, &e), 0);
                missed += e.lo > 0 || e.hi < 0;
        }
        assert_in_range(missed, 40, 90);
}

static void test_invalid(void **state) {
        const double x[] = { 1, 2, 3 }, y[] = { 4, 5, 6 }, bad[] = { 1, NAN, 3 }, inf[] = { 1, INFINITY, 3 };
        Estimate e = { .estimate = 7 };

        assert_int_equal(stats_hodges_lehmann(x, 0, y, 3, 0.9, &e), -EINVAL);
        assert_int_equal(stats_hodges_lehmann(x, 3, y, 0, 0.9, &e), -EINVAL);
        assert_int_equal(stats_hodges_lehmann(x, 3, y, 3, 0, &e), -EINVAL);
        assert_int_equal(stats_hodges_lehmann(x, 3, y, 3, 1, &e), -EINVAL);
        assert_int_equal(stats_hodges_lehmann(x, 3, y, 3, -0.5, &e), -EINVAL);
        assert_int_equal(stats_hodges_lehmann(x, 3, y, 3, NAN, &e), -EINVAL);
        assert_int_equal(stats_hodges_lehmann(bad, 3, y, 3, 0.9, &e), -EINVAL);
        assert_int_equal(stats_hodges_lehmann(x, 3, inf, 3, 0.9, &e), -EINVAL);
        /* m*n*sizeof(double) would wrap: refused before anything is read. */
        assert_int_equal(stats_hodges_lehmann(x, SIZE_MAX / 4, y, 4, 0.9, &e), -ENOMEM);
        assert_true(e.estimate == 7); /* not written on failure */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_median),           cmocka_unit_test(test_hand_computed),
                cmocka_unit_test(test_exact_levels),     cmocka_unit_test(test_small_samples),
                cmocka_unit_test(test_unequal_sizes),    cmocka_unit_test(test_shift_and_swap),
                cmocka_unit_test(test_normal_approximation), cmocka_unit_test(test_coverage_simulated),
                cmocka_unit_test(test_invalid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
