/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iperf3's --json report, as the experiment reads it from the binary's output. */
#include <math.h>

#include "experiment/iperf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        IperfResult r;
        char err[256];

        if (iperf_parse_json((const char *) data, size, &r, err, sizeof(err)) >= 0 && (!isfinite(r.mbps) || r.mbps < 0))
                __builtin_trap(); /* what it gives back is a rate */
        return 0;
}
