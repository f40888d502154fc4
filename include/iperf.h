/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <net/if.h>
#include <signal.h>

#include "util.h"

/*
 * One TCP test against an iperf3 server, by the iperf3 binary (its --json report read with
 * json-c): what the experiment measures each round. The binary, not libiperf: it is what
 * users and the seed reports ran, its JSON is iperf3's stable interface, and a test that
 * hangs is a child to kill, not a library call to abandon.
 */
typedef struct IperfRequest {
        const char *binary;     /* NULL: "iperf3" from PATH */
        const char *host;
        unsigned port;          /* 0: iperf3's default, 5201 */
        unsigned seconds;
        bool reverse;           /* -R: the server sends, the NIC receives */
        const char *bind_dev;   /* --bind-dev: the traffic goes through this interface or not at all */
} IperfRequest;

typedef struct IperfResult {
        double mbps;            /* received, Mb/s (end.sum_received) */
        uint64_t retransmits;   /* of the sender (end.sum_sent) */
        bool retransmits_known;
        double cpu;             /* this host's CPU use, % (end.cpu_utilization_percent.host_total) */
} IperfResult;

/*
 * Pure: iperf3's --json report. -EPROTO with iperf3's own "error" text in err, -EBADMSG
 * when it is not such a report (err says what is missing).
 */
int iperf_parse_json(const char *text, size_t len, IperfResult *ret, char *err, size_t size);
/*
 * Runs one test; it is killed if it outlives its length by IPERF_GRACE_S. -EINTR when
 * *interrupted became true meanwhile (the child is stopped), other errors with err.
 */
#define IPERF_GRACE_S 15
int iperf_run(const IperfRequest *req, volatile sig_atomic_t *interrupted, IperfResult *ret, char *err, size_t size);
