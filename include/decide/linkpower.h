/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/util.h"
#include "state/link-power-record.h"

/*
 * Dynamic link power: L1 on while a link is quiet, off while it carries traffic.
 *
 * Realtek's vendor driver (r8168 8.055.00) and Kai-Heng Feng's RFC sample every second and
 * switch on a 10-packet threshold, both ways: a burst runs up to a second with L1 on, and
 * 1 s on / 1 s off traffic flaps sixty times a minute
 * (<6a5f26e7-48a2-49c8-035e-19e9497c12a7@gmail.com> for the objection). Here:
 *
 * - While L1 is on nothing is sampled: the daemon sleeps until the kernel hands it a packet
 *   (a packet socket, see packet-wake.h), then counts the link's packets for a short window
 *   (LINK_POWER_WINDOW_USEC) and turns L1 off only if they make the busy rate: a stray ARP or
 *   keepalive costs one wakeup, not a transition.
 * - While L1 is off the daemon samples the link's packet counters every period, a quarter of
 *   the quiet time, and turns L1 on when the link has been quiet for the quiet time. Quiet
 *   here is under half the busy rate: a stream between the two keeps the state it has.
 * - The quiet time is a ski-rental timeout, chosen in hindsight over the last 16 quiet gaps
 *   that ended in traffic (seen while L1 was off, or as L1 stretches): of 0.5, 1, 2, 4, 8,
 *   15 and 30 s, the one that would have cost least, where a gap under the quiet time costs
 *   its length with L1 off, and a longer one the quiet time plus an entry and a wake,
 *   LINK_POWER_SWITCH_USEC in the same units (seconds of idle power with L1 off). It starts
 *   at the break-even time, LINK_POWER_BREAK_EVEN_USEC: (1 - rho) r W + 2 c_sw over dP with
 *   dP 2.2 W (a report's 1.9 -> 4.1 W idle), rho 0.38 (255 of 670 Mb/s with L1.2), r 0.1 s
 *   (the wake and its window), W 10 W, c_sw 0.25 J. A switch pair counts twice that: writing
 *   link/l*_aspm under traffic is an open question upstream. Traffic back within
 *   LINK_POWER_MISS_USEC of L1 going on is counted as a misprediction. A configured quiet
 *   time is fixed.
 * - At most LINK_POWER_ENTRIES_PER_MIN entries into L1 in any minute: when they are spent,
 *   L1 stays off (the safe side) until the oldest is a minute old. Whatever a remote host
 *   sends, 13 changes in a minute at most. The price, on a pattern with n gaps a minute each
 *   worth an entry (a gap of g seconds earns dP (g - quiet - lag) less the entry and wake),
 *   is the n - 6 gaps given up: little on web-like traffic (about 5 pages a minute), L1 on
 *   12 % instead of the vendor's 47 % under 50-300 ms pulses 1-3 s apart (about 0.3-0.7 W
 *   there). Two entries a minute (4 changes) would cost web-like traffic most of its L1
 *   time (21-32 % instead of 84 % in test-linkpower-patterns' simulation), none would let
 *   pulses flap 55 times a minute.
 *
 * Pure: the daemon feeds it times and packet counts and writes what it decides.
 */
typedef enum LinkPowerState {
        LINK_POWER_IDLE, /* L1 (and L1.1) on */
        LINK_POWER_BUSY, /* L1 off */
        _LINK_POWER_STATE_MAX,
} LinkPowerState;

const char *link_power_state_to_string(LinkPowerState s);

typedef struct LinkPowerParams {
        /* Packets per second (rx + tx) above which an idle link is busy; a busy link is quiet
         * again under half of it. The band keeps a stream near the rate from flapping: a
         * Poisson stream at 90 % of it crosses the rate in one sample of three (125 ms), and
         * without the band went busy and idle again as often as the flap budget let it. */
        uint64_t busy_pps;
        uint64_t quiet_usec; /* without a busy sample before L1 goes back on; 0: adaptive */
} LinkPowerParams;

#define LINK_POWER_BUSY_PPS 100
#define LINK_POWER_WINDOW_USEC (50 * 1000)
#define LINK_POWER_CALM_USEC (2 * 1000 * 1000)
#define LINK_POWER_BREAK_EVEN_USEC (500 * 1000)
#define LINK_POWER_MISS_USEC (1000 * 1000)
#define LINK_POWER_SWITCH_USEC (1000 * 1000)
#define LINK_POWER_QUIET_MAX_USEC (30 * 1000 * 1000)
#define LINK_POWER_GAPS 16
#define LINK_POWER_PERIOD_MIN_USEC (125 * 1000)
#define LINK_POWER_PERIOD_MAX_USEC (1000 * 1000)
#define LINK_POWER_ENTRIES_PER_MIN 6

typedef struct LinkPower {
        LinkPowerParams params;
        LinkPowerState state;
        uint64_t quiet_usec; /* in force: the configured one, or the adaptive one */
        uint64_t gaps[LINK_POWER_GAPS]; /* the last quiet gaps that ended in traffic, a ring */
        unsigned n_gaps;
        /* Busy: the counter's last sample, and the last sample that saw the busy rate. */
        bool sampled, last_quiet;
        uint64_t last_usec, last_packets, last_busy_usec;
        uint64_t since_usec;                       /* the state's start */
        bool predicted;                            /* idle because the rule chose it (not a link loss, not the start) */
        uint64_t time_usec[_LINK_POWER_STATE_MAX]; /* before since_usec */
        uint64_t entries[LINK_POWER_ENTRIES_PER_MIN]; /* the last entries into L1, a ring */
        unsigned n_entries;
        uint64_t window_end_usec; /* the last wake window's end */
        unsigned stray_run;       /* stray windows in a row */
        unsigned transitions, wakeups, strays, mispredictions;
} LinkPower;

void link_power_init(LinkPower *lp, const LinkPowerParams *p, uint64_t now_usec);
/* New parameters (a reload): the state, its times and counts stay; the quiet time starts again. */
void link_power_set_params(LinkPower *lp, const LinkPowerParams *p);
/* Busy: the time between samples of the counters (a quarter of the quiet time, 125 ms to 1 s). */
uint64_t link_power_period(const LinkPower *lp);
/*
 * Idle: a frame woke the daemon at start_usec: how long to count before deciding. 50 ms,
 * twice after one stray window (a burst whose first frames trickle), then doubled for each
 * further stray window in a row up to 800 ms (light steady traffic, a VoIP call's
 * 50 frames a second, costs about one wakeup a second, not fourteen), 50 ms again once the
 * link has been calm for LINK_POWER_CALM_USEC.
 */
uint64_t link_power_window(LinkPower *lp, uint64_t start_usec);
/* Idle: a wake counted `packets` (rx + tx) from start_usec to now; whether L1 goes off. */
bool link_power_woken(LinkPower *lp, uint64_t start_usec, uint64_t now_usec, uint64_t packets);
/* Busy: one sample of the link's packet counter (rx + tx); whether L1 goes back on. */
bool link_power_sample(LinkPower *lp, uint64_t now_usec, uint64_t packets);
/* The link went away: idle at once (no traffic without a link); whether the state changed. */
bool link_power_idle(LinkPower *lp, uint64_t now_usec);
/* Time spent in a state up to now. */
uint64_t link_power_time(const LinkPower *lp, LinkPowerState s, uint64_t now_usec);

/* The record of a link under dynamic link power (state/link-power-record.h), as lp is now. */
void link_power_record_from(LinkPowerRecord *rec, const LinkPower *lp, uint64_t now_usec, const char *stopped);
