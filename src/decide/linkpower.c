/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "base/log.h"
#include "decide/linkpower.h"

static const char *const state_names[_LINK_POWER_STATE_MAX] = {
        [LINK_POWER_IDLE] = "idle",
        [LINK_POWER_BUSY] = "busy",
};

const char *link_power_state_to_string(LinkPowerState s) {
        return s >= 0 && s < _LINK_POWER_STATE_MAX ? state_names[s] : NULL;
}

static void choose_quiet(LinkPower *lp);

static uint64_t quiet_start(const LinkPowerParams *p) { return p->quiet_usec ?: LINK_POWER_BREAK_EVEN_USEC; }

void link_power_init(LinkPower *lp, const LinkPowerParams *p, uint64_t now_usec) {
        *lp = (LinkPower) { .params = *p, .state = LINK_POWER_IDLE, .since_usec = now_usec, .quiet_usec = quiet_start(p) };
}

void link_power_set_params(LinkPower *lp, const LinkPowerParams *p) {
        lp->params = *p;
        lp->quiet_usec = quiet_start(p);
        choose_quiet(lp);
}

uint64_t link_power_period(const LinkPower *lp) {
        uint64_t p = lp->quiet_usec / 4;
        return p < LINK_POWER_PERIOD_MIN_USEC ? LINK_POWER_PERIOD_MIN_USEC : p > LINK_POWER_PERIOD_MAX_USEC ? LINK_POWER_PERIOD_MAX_USEC : p;
}

static void enter(LinkPower *lp, LinkPowerState s, uint64_t now_usec) {
        lp->time_usec[lp->state] += now_usec - lp->since_usec;
        lp->since_usec = now_usec;
        lp->state = s;
        lp->transitions++;
}

/*
 * packets over elapsed µs above `per_sec` times the busy rate, without dividing:
 * packets * 1e6 * per_sec > pps * elapsed. A product that does not fit (a counter that
 * jumped) is busy: the safe side.
 */
static bool over_rate(const LinkPower *lp, uint64_t packets, uint64_t elapsed_usec, uint64_t per_sec) {
        uint64_t have, limit;

        if (__builtin_mul_overflow(packets, per_sec, &have) ||
            __builtin_mul_overflow(lp->params.busy_pps, elapsed_usec, &limit))
                return true;
        return have > limit;
}

static bool busy_rate(const LinkPower *lp, uint64_t packets, uint64_t elapsed_usec) {
        return over_rate(lp, packets, elapsed_usec, 1000000);
}

/* While busy, a sample is quiet only under half the busy rate (see LinkPowerParams). */
static bool still_busy(const LinkPower *lp, uint64_t packets, uint64_t elapsed_usec) {
        return over_rate(lp, packets, elapsed_usec, 2000000);
}

/*
 * The quiet time that would have cost least over the recent quiet gaps, in hindsight: a gap
 * shorter than the quiet time costs its length with L1 off; a longer one costs the quiet
 * time, then an entry into L1 and a wake (LINK_POWER_SWITCH_USEC). A gap counts as under a
 * quiet time only with a quarter to spare (samples see a gap's start late, and traffic
 * jitters); ties go to the shorter. Gaps are seen whether or not L1 went on in them, so a
 * long quiet time learns from the gaps under it too.
 */
static void choose_quiet(LinkPower *lp) {
        static const uint64_t candidates[] = { LINK_POWER_BREAK_EVEN_USEC, 1000000, 2000000, 4000000, 8000000, 15000000,
                                               LINK_POWER_QUIET_MAX_USEC };
        uint64_t best = UINT64_MAX;
        size_t n = lp->n_gaps < LINK_POWER_GAPS ? lp->n_gaps : LINK_POWER_GAPS;

        if (lp->params.quiet_usec || n == 0)
                return;
        for (size_t c = 0; c < ELEMENTSOF(candidates); c++) {
                uint64_t cost = 0;
                for (size_t i = 0; i < n; i++)
                        cost += lp->gaps[i] + lp->gaps[i] / 4 <= candidates[c] ? lp->gaps[i]
                                                                               : candidates[c] + LINK_POWER_SWITCH_USEC;
                if (cost < best) {
                        best = cost;
                        lp->quiet_usec = candidates[c];
                }
        }
}

static void gap_seen(LinkPower *lp, uint64_t gap_usec) {
        /* Under the shortest quiet time a gap costs the same whatever is chosen: it tells nothing. */
        if (gap_usec < LINK_POWER_BREAK_EVEN_USEC)
                return;
        lp->gaps[lp->n_gaps++ % LINK_POWER_GAPS] = gap_usec;
        choose_quiet(lp);
}

uint64_t link_power_window(LinkPower *lp, uint64_t start_usec) {
        /* Calm again since the last stray window: the next one is short again. */
        if (start_usec >= lp->window_end_usec + LINK_POWER_CALM_USEC)
                lp->stray_run = 0;
        /* One stray in a row keeps 50 ms (a burst whose first frames trickle gets a second look
         * at once); from the second on, each window doubles. */
        return LINK_POWER_WINDOW_USEC << (lp->stray_run < 2 ? 0 : lp->stray_run - 1 < 4 ? lp->stray_run - 1 : 4);
}

bool link_power_woken(LinkPower *lp, uint64_t start_usec, uint64_t now_usec, uint64_t packets) {
        if (lp->state != LINK_POWER_IDLE)
                return false;
        lp->wakeups++;
        lp->window_end_usec = now_usec;
        /* A window too short to judge (a clock that did not move) is judged as one window long. */
        if (!busy_rate(lp, packets, now_usec > start_usec ? now_usec - start_usec : LINK_POWER_WINDOW_USEC)) {
                lp->strays++;
                lp->stray_run++;
                return false;
        }
        lp->stray_run = 0;
        /* Only an L1 stretch the rule chose teaches it (not the first one, nor one after a link loss). */
        if (lp->predicted) {
                if (start_usec < lp->since_usec + LINK_POWER_MISS_USEC)
                        lp->mispredictions++;
                gap_seen(lp, start_usec > lp->last_busy_usec ? start_usec - lp->last_busy_usec : 0);
        }
        lp->predicted = false;
        enter(lp, LINK_POWER_BUSY, now_usec);
        lp->sampled = false; /* the next sample is a baseline: the window's packets were busy */
        lp->last_busy_usec = now_usec;
        return true;
}

/* The flap budget: whether an entry into L1 is allowed now (fewer than the limit in the last minute). */
static bool entry_allowed(const LinkPower *lp, uint64_t now_usec) {
        if (lp->n_entries < LINK_POWER_ENTRIES_PER_MIN)
                return true;
        /* The oldest of the last entries: the ring's next slot. */
        return now_usec >= lp->entries[lp->n_entries % LINK_POWER_ENTRIES_PER_MIN] + 60ull * 1000000;
}

bool link_power_sample(LinkPower *lp, uint64_t now_usec, uint64_t packets) {
        uint64_t delta, elapsed;

        if (lp->state != LINK_POWER_BUSY)
                return false;
        if (!lp->sampled || packets < lp->last_packets || now_usec <= lp->last_usec) {
                /* the first sample, or the counters started again (driver reload): a baseline only,
                 * and what came before it unknown (taken for busy: no gap is made of it) */
                lp->sampled = true;
                lp->last_usec = lp->last_busy_usec = now_usec;
                lp->last_packets = packets;
                lp->last_quiet = false;
                return false;
        }
        delta = packets - lp->last_packets;
        elapsed = now_usec - lp->last_usec;
        if (still_busy(lp, delta, elapsed)) {
                /* A gap under the quiet time ended: as long as the samples saw it quiet (at least). */
                if (lp->last_quiet)
                        gap_seen(lp, lp->last_usec - lp->last_busy_usec);
                lp->last_busy_usec = now_usec;
                lp->last_usec = now_usec;
                lp->last_packets = packets;
                lp->last_quiet = false;
                return false;
        }
        lp->last_usec = now_usec;
        lp->last_packets = packets;
        lp->last_quiet = true;
        if (now_usec - lp->last_busy_usec < lp->quiet_usec || !entry_allowed(lp, now_usec))
                return false;
        lp->entries[lp->n_entries++ % LINK_POWER_ENTRIES_PER_MIN] = now_usec;
        enter(lp, LINK_POWER_IDLE, now_usec);
        lp->predicted = true;
        return true;
}

bool link_power_idle(LinkPower *lp, uint64_t now_usec) {
        if (lp->state != LINK_POWER_BUSY)
                return false;
        enter(lp, LINK_POWER_IDLE, now_usec);
        lp->predicted = false;
        return true;
}

uint64_t link_power_time(const LinkPower *lp, LinkPowerState s, uint64_t now_usec) {
        return lp->time_usec[s] + (lp->state == s ? now_usec - lp->since_usec : 0);
}

void link_power_record_from(LinkPowerRecord *rec, const LinkPower *lp, uint64_t now_usec, const char *stopped) {
        *rec = (LinkPowerRecord) {
                .transitions = lp->transitions,
                .idle_usec = link_power_time(lp, LINK_POWER_IDLE, now_usec),
                .busy_usec = link_power_time(lp, LINK_POWER_BUSY, now_usec),
                .quiet_usec = lp->quiet_usec,
                .wakeups = lp->wakeups,
                .strays = lp->strays,
                .mispredictions = lp->mispredictions,
                .saved_usec = now_usec,
        };
        (void) strscpy(rec->state, sizeof(rec->state), stopped ? "stopped" : link_power_state_to_string(lp->state));
        (void) strscpy(rec->reason, sizeof(rec->reason), stopped ?: "");
}

