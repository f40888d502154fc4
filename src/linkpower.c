/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

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

bool link_power_idle(LinkPower *lp, uint64_t now_usec) {
        lp->sampled = false; /* the next sample is a baseline again */
        if (lp->state != LINK_POWER_BUSY)
                return false;
        enter(lp, LINK_POWER_IDLE, now_usec);
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
        };
        (void) strscpy(rec->state, sizeof(rec->state), stopped ? "stopped" : link_power_state_to_string(lp->state));
        (void) strscpy(rec->reason, sizeof(rec->reason), stopped ?: "");
}

static int record_path(const char *state_dir, const char *slot, const char *suffix, char *buf, size_t size) {
        int n = snprintf(buf, size, "%s/%s.linkpower%s", state_dir, slot, suffix);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

static void record_write(FILE *f, const void *userdata) {
        const LinkPowerRecord *rec = userdata;

        fprintf(f, "state %s\ntransitions %u\nidle_usec %" PRIu64 "\nbusy_usec %" PRIu64 "\n", rec->state, rec->transitions,
                rec->idle_usec, rec->busy_usec);
        if (rec->reason[0])
                fprintf(f, "reason %s\n", rec->reason);
}

int link_power_record_save(const char *state_dir, const char *slot, const LinkPowerRecord *rec) {
        char path[4096];
        int r;

        r = record_path(state_dir, slot, "", path, sizeof(path));
        if (r < 0)
                return r;
        return write_file_atomic(path, 0644, record_write, rec);
}

int link_power_record_load(const char *state_dir, const char *slot, LinkPowerRecord *ret) {
        LinkPowerRecord rec = {};
        _cleanup_fclose_ FILE *f = NULL;
        char path[4096], line[256];
        bool state = false;
        int r;

        if ((r = record_path(state_dir, slot, "", path, sizeof(path))) < 0)
                return r;
        f = fopen(path, "re");
        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = '\0';
                if (sscanf(line, "state %15s", rec.state) == 1)
                        state = streq(rec.state, "idle") || streq(rec.state, "busy") || streq(rec.state, "stopped");
                else if (strncmp(line, "reason ", 7) == 0)
                        (void) strscpy(rec.reason, sizeof(rec.reason), line + strlen("reason "));
                else if (sscanf(line, "transitions %u", &rec.transitions) != 1 &&
                         sscanf(line, "idle_usec %" SCNu64, &rec.idle_usec) != 1 &&
                         sscanf(line, "busy_usec %" SCNu64, &rec.busy_usec) != 1)
                        return -EBADMSG;
        }
        if (!state)
                return -EBADMSG;
        *ret = rec;
        return 0;
}

int link_power_record_remove(const char *state_dir, const char *slot) {
        char path[4096];
        int r = record_path(state_dir, slot, "", path, sizeof(path));

        if (r < 0)
                return r;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}
