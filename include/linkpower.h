/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "util.h"

/*
 * Dynamic link power: L1 on while a link is quiet, off while it carries traffic.
 * Realtek's vendor driver and Kai-Heng Feng's RFC switch every second on a
 * 10-packet threshold, both ways (r8168 8.055.00; <6a5f26e7-48a2-49c8-035e-19e9497c12a7@gmail.com>
 * for the objection: a burst runs up to a second with ASPM on, and busy/quiet
 * alternation flaps). Here the rule is asymmetric: the first busy sample turns L1
 * off (within one period), only a quiet time turns it back on (hysteresis), so
 * 1 s on / 1 s off traffic costs one transition, not sixty a minute. Pure: the
 * daemon feeds it packet counts and writes what it decides.
 */
typedef enum LinkPowerState {
        LINK_POWER_IDLE, /* L1 (and L1.1) on */
        LINK_POWER_BUSY, /* L1 off */
        _LINK_POWER_STATE_MAX,
} LinkPowerState;

const char *link_power_state_to_string(LinkPowerState s);

typedef struct LinkPowerParams {
        uint64_t period_usec;  /* between samples */
        uint64_t busy_pps;     /* packets per second (rx + tx) above which the link is busy */
        uint64_t quiet_usec;   /* without a busy sample before L1 goes back on */
} LinkPowerParams;

#define LINK_POWER_PERIOD_USEC (500 * 1000)
#define LINK_POWER_BUSY_PPS 100
#define LINK_POWER_QUIET_USEC (30 * 1000 * 1000)

typedef struct LinkPower {
        LinkPowerParams params;
        LinkPowerState state;
        bool sampled;
        uint64_t last_usec, last_packets, last_busy_usec, since_usec;
        uint64_t time_usec[_LINK_POWER_STATE_MAX]; /* before since_usec */
        unsigned transitions;
} LinkPower;

void link_power_init(LinkPower *lp, const LinkPowerParams *p, uint64_t now_usec);
/* One sample of the link's packet counter (rx + tx); whether the state changed. */
bool link_power_sample(LinkPower *lp, uint64_t now_usec, uint64_t packets);
/* The link went away: idle at once (no traffic without a link); whether the state changed. */
bool link_power_idle(LinkPower *lp, uint64_t now_usec);
/* Time spent in a state up to now. */
uint64_t link_power_time(const LinkPower *lp, LinkPowerState s, uint64_t now_usec);

/*
 * What the daemon last knew of a link under dynamic link power, kept in
 * <state_dir>/<slot>.linkpower for status, diagnose and metrics (the only I/O here).
 */
typedef struct LinkPowerRecord {
        char state[16];         /* "idle", "busy" or "stopped" */
        char reason[128];       /* why it stopped, "" otherwise */
        unsigned transitions;
        uint64_t idle_usec, busy_usec;
} LinkPowerRecord;

void link_power_record_from(LinkPowerRecord *rec, const LinkPower *lp, uint64_t now_usec, const char *stopped);
/* Written whole (a temporary file renamed over it), so that a reader never sees half of it. */
int link_power_record_save(const char *state_dir, const char *slot, const LinkPowerRecord *rec);
/* -ENOENT when the daemon keeps none for the NIC; -EBADMSG for a file it did not write. */
int link_power_record_load(const char *state_dir, const char *slot, LinkPowerRecord *ret);
int link_power_record_remove(const char *state_dir, const char *slot);
