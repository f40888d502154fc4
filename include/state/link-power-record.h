/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * What the daemon last knew of a link under dynamic link power, kept in
 * <state_dir>/<slot>.linkpower for status, diagnose and metrics.
 */
typedef struct LinkPowerRecord {
        char state[16];         /* "idle", "busy" or "stopped" */
        char reason[128];       /* why it stopped, "" otherwise */
        unsigned transitions;
        uint64_t idle_usec, busy_usec;
        uint64_t quiet_usec;    /* the quiet time in force; 0: not known (a record of an older daemon) */
        unsigned wakeups, strays, mispredictions;
        uint64_t saved_usec;    /* CLOCK_MONOTONIC when it was saved; 0: not known */
} LinkPowerRecord;

/* Written whole (a temporary file renamed over it), so that a reader never sees half of it. */
int link_power_record_save(const char *state_dir, const char *slot, const LinkPowerRecord *rec);
/*
 * The times up to now (the time since the save counts for the state saved: the daemon saves
 * on changes only); keys it does not know are skipped. -ENOENT when the daemon keeps none
 * for the NIC; -EBADMSG for a file without a state.
 */
int link_power_record_load(const char *state_dir, const char *slot, LinkPowerRecord *ret);
int link_power_record_remove(const char *state_dir, const char *slot);
/* Whether "<slot><suffix>" is a record, or its temporary file, of a daemon that is gone. */
bool link_power_record_is_leftover(const char *suffix);
