/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Built by tests/CMakeLists.txt once per CASE: include/show/out.h takes a value of the type
 * each call takes as written, so a wrong one does not build (CASE 1-4), whatever the format
 * says; CASE 0, the same calls with the right types, builds.
 */
#include <inttypes.h>

#include "show/out.h"

void walk(Out *o, int n, long long s, const char *str, unsigned u);
void walk(Out *o, int n, long long s, const char *str, unsigned u) {
#if CASE == 1
        out_u64(o, "k", "%" PRIu64, n); /* a negative int would print as 18446744073709551615 */
#elif CASE == 2
        out_str(o, "k", "%s", u);
#elif CASE == 3
        out_decimal(o, "k", 1, "%.0f", s);
#elif CASE == 4
        out_knob_value(o, "k", "%s", KNOB_TSO, n);
#else
        (void) n, (void) s;
        out_u64(o, "k", "%" PRIu64, u);
        out_str(o, "k", "%s", str);
        out_decimal(o, "k", 1, "%.0f", 1.0);
        out_knob_value(o, "k", "%s", KNOB_TSO, u);
#endif
}
