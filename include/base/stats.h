/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/*
 * Rank statistics for comparing two sets of measurements: they assume nothing about the
 * distribution of the values (throughput and latency samples are skewed and have outliers),
 * only that both samples are independent draws.
 */

typedef struct Estimate {
        double estimate;   /* Hodges-Lehmann shift of y against x: median of all y_j - x_i */
        double lo, hi;     /* the distribution-free confidence interval; -INFINITY/INFINITY when the samples are too small for the level */
        double confidence; /* the level actually attained (>= the level asked for), e.g. 0.968 for m = n = 5 at 0.95; 0 when none */
} Estimate;

/* The median of n values (n >= 1); v is not changed. NAN for n == 0 or when out of memory. */
double stats_median(const double *v, size_t n);

/*
 * Two-sample Hodges-Lehmann estimate of the shift y - x with its confidence interval
 * from the Mann-Whitney (Wilcoxon rank-sum) distribution: the k-th smallest and k-th
 * largest of the m*n differences, k from the exact null distribution of U (counted by
 * dynamic programming) while m*n <= 2500, the normal approximation beyond.
 * 0 with the interval; -ERANGE when no interval of that level exists for so few values
 * (the estimate is still set, lo/hi infinite, confidence 0); -EINVAL for m or n == 0,
 * level outside (0, 1) or a value that is not finite; -ENOMEM.
 */
int stats_hodges_lehmann(const double *x, size_t m, const double *y, size_t n, double level, Estimate *ret);
