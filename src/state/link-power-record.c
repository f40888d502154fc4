/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "state/link-power-record.h"
#include "state/record.h"

static int link_power_record_path(const char *state_dir, const char *slot, const char *suffix, char *buf, size_t size) {
        int n = snprintf(buf, size, "%s/%s.linkpower%s", state_dir, slot, suffix);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

static void link_power_record_write(FILE *f, const void *userdata) {
        const LinkPowerRecord *rec = userdata;

        fprintf(f, "state %s\ntransitions %u\nidle_usec %" PRIu64 "\nbusy_usec %" PRIu64 "\nquiet_usec %" PRIu64
                "\nwakeups %u\nstrays %u\nmispredictions %u\nsaved_usec %" PRIu64 "\n",
                rec->state, rec->transitions, rec->idle_usec, rec->busy_usec, rec->quiet_usec, rec->wakeups, rec->strays,
                rec->mispredictions, rec->saved_usec);
        if (rec->reason[0])
                fprintf(f, "reason %s\n", rec->reason);
}

int link_power_record_save(const char *state_dir, const char *slot, const LinkPowerRecord *rec) {
        char path[4096];
        int r;

        r = link_power_record_path(state_dir, slot, "", path, sizeof(path));
        if (r < 0)
                return r;
        return write_file_atomic(path, 0644, link_power_record_write, rec);
}

int link_power_record_load(const char *state_dir, const char *slot, LinkPowerRecord *ret) {
        LinkPowerRecord rec = {};
        _cleanup_fclose_ FILE *f = NULL;
        char path[4096], line[256];
        bool state = false;
        int r;

        if ((r = link_power_record_path(state_dir, slot, "", path, sizeof(path))) < 0)
                return r;
        f = record_fopen(path);
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
                         sscanf(line, "busy_usec %" SCNu64, &rec.busy_usec) != 1 &&
                         sscanf(line, "quiet_usec %" SCNu64, &rec.quiet_usec) != 1 &&
                         sscanf(line, "wakeups %u", &rec.wakeups) != 1 && sscanf(line, "strays %u", &rec.strays) != 1 &&
                         sscanf(line, "mispredictions %u", &rec.mispredictions) != 1 &&
                         sscanf(line, "saved_usec %" SCNu64, &rec.saved_usec) != 1)
                        continue; /* a key of a later version: what this one knows still reads */
        }
        if (!state)
                return -EBADMSG;
        /* The daemon saves on changes only (a quiet link is never woken): the time since counts for the state it left. */
        if (rec.saved_usec > 0 && !streq(rec.state, "stopped")) {
                uint64_t now = now_monotonic_usec();
                if (now > rec.saved_usec)
                        *(streq(rec.state, "idle") ? &rec.idle_usec : &rec.busy_usec) += now - rec.saved_usec;
        }
        if (rec.strays > rec.wakeups)
                rec.strays = rec.wakeups;
        *ret = rec;
        return 0;
}

bool link_power_record_is_leftover(const char *suffix) {
        return streq(suffix, ".linkpower") || streq(suffix, ".linkpower.tmp") ||
               (strncmp(suffix, ".linkpower.", 11) == 0 && strlen(suffix) == strlen(".linkpower.XXXXXX"));
}

int link_power_record_remove(const char *state_dir, const char *slot) {
        char path[4096];
        int r = link_power_record_path(state_dir, slot, "", path, sizeof(path));

        if (r < 0)
                return r;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}
