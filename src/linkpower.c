/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "linkpower.h"

static const char *const state_names[_LINK_POWER_STATE_MAX] = {
        [LINK_POWER_IDLE] = "idle",
        [LINK_POWER_BUSY] = "busy",
};

const char *link_power_state_to_string(LinkPowerState s) {
        return s >= 0 && s < _LINK_POWER_STATE_MAX ? state_names[s] : NULL;
}

void link_power_init(LinkPower *lp, const LinkPowerParams *p, uint64_t now_usec) {
        *lp = (LinkPower) { .params = *p, .state = LINK_POWER_IDLE, .since_usec = now_usec };
}

static void enter(LinkPower *lp, LinkPowerState s, uint64_t now_usec) {
        lp->time_usec[lp->state] += now_usec - lp->since_usec;
        lp->since_usec = now_usec;
        lp->state = s;
        lp->transitions++;
}

bool link_power_sample(LinkPower *lp, uint64_t now_usec, uint64_t packets) {
        uint64_t delta, elapsed;
        bool busy;

        if (!lp->sampled || packets < lp->last_packets || now_usec <= lp->last_usec) {
                /* the first sample, or the counters started again (driver reload): a baseline only */
                lp->sampled = true;
                lp->last_usec = now_usec;
                lp->last_packets = packets;
                return false;
        }
        delta = packets - lp->last_packets;
        elapsed = now_usec - lp->last_usec;
        lp->last_usec = now_usec;
        lp->last_packets = packets;
        /* packets per second above the threshold, without dividing: delta * 1e6 > pps * elapsed */
        busy = delta * 1000000 > lp->params.busy_pps * elapsed;
        if (busy)
                lp->last_busy_usec = now_usec;
        if (busy && lp->state == LINK_POWER_IDLE) {
                enter(lp, LINK_POWER_BUSY, now_usec);
                return true;
        }
        if (!busy && lp->state == LINK_POWER_BUSY && now_usec - lp->last_busy_usec >= lp->params.quiet_usec) {
                enter(lp, LINK_POWER_IDLE, now_usec);
                return true;
        }
        return false;
}

uint64_t link_power_time(const LinkPower *lp, LinkPowerState s, uint64_t now_usec) {
        return lp->time_usec[s] + (lp->state == s ? now_usec - lp->since_usec : 0);
}
