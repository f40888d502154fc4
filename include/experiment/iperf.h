/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <net/if.h>
#include <signal.h>

#include "base/util.h"

/*
 * One TCP test against an iperf3 server, by the iperf3 binary (its --json report read with
 * json-c): what the experiment measures each round. The binary, not libiperf: it is what
 * users and the seed reports ran, its JSON is iperf3's stable interface, and a test that
 * hangs is a child to kill, not a library call to abandon.
 */
typedef struct IperfRequest {
        const char *binary;     /* NULL: IPERF_BINARY; else an absolute path, as named in messages */
        int binary_fd;          /* > 0: iperf_binary_open()'s descriptor, the file that runs; else binary by name */
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
#define IPERF_BINARY "/usr/bin/iperf3"
/*
 * Whether root may run path: an absolute path to a regular executable file, which, like every
 * directory on the way to it (symlinks resolved), belongs to root and no other user can change
 * (a sticky directory, as /tmp, may be on the way). 0, or -errno with why in err.
 */
int iperf_binary_trusted(const char *path, char *err, size_t size);
/* The same checks on a file opened once: its descriptor (O_PATH, above 2), to run through IperfRequest.binary_fd. */
int iperf_binary_open(const char *path, char *err, size_t size);
/* The user root's iperf3 runs as (systemd/r8169-tuned.sysusers), if it exists with a uid and group
 * of its own (not root's, not nobody's uid); else "nobody". */
#define IPERF_USER "_r8169-tuned-iperf"
/* Root's iperf3 runs as IPERF_USER (true), or as nobody; true when not root. */
bool iperf_user_exists(void);
/*
 * Runs one test. The child holds no privilege: run as root, it runs as IPERF_USER (no groups,
 * no new privileges), with only PATH and LC_ALL in its environment and no descriptor but its
 * standard three; it is killed with its process group if it outlives its length by
 * IPERF_GRACE_S (-ETIMEDOUT; iperf3 gives up connecting after 3 s by itself), and whatever it
 * left running is killed when it ends (the caller becomes a child subreaper). -EINTR when
 * *interrupted became true meanwhile (the child is stopped), other errors with err, which is
 * printable (iperf3's own error text included: it is a network peer's doing).
 */
#define IPERF_GRACE_S 8
int iperf_run(const IperfRequest *req, volatile sig_atomic_t *interrupted, IperfResult *ret, char *err, size_t size);
