/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every part of an experiment shares: the stop flag its signal handler sets and the pause
 * that heeds it, the directions' names, the drop-in directory --write-config writes into, and
 * the comparison of a trial's rounds.
 */
#include <sys/stat.h>
#include <time.h>

#include "experiment/run.h"

volatile sig_atomic_t experiment_interrupted;

const char *const experiment_direction_names[_DIRECTION_MAX] = { "send", "receive" };

/* Sleeps, waking for a signal: -EINTR when one asked the experiment to stop. In slices of at most
 * 200 ms: a signal that lands between the check and the sleep is seen within one. */
int experiment_pause_ms(unsigned ms) {
        uint64_t end = now_monotonic_usec() + (uint64_t) ms * 1000;

        while (!experiment_interrupted) {
                uint64_t now = now_monotonic_usec(), left;
                struct timespec ts;

                if (now >= end)
                        return 0;
                left = end - now < 200000 ? end - now : 200000;
                ts = (struct timespec) { .tv_nsec = (long) left * 1000 };
                (void) nanosleep(&ts, NULL);
        }
        return -EINTR;
}

/*
 * --write-config into the configuration's drop-in directory (CONFIG.d, where the README and the
 * man page write), which the package does not ship: accepted while it does not exist, and made
 * when the drop-in is written (never for a measurement that wrote nothing), as profile --persist
 * makes it: only there, and only where root alone can change its parent. Any other missing
 * directory is a mistake, said before anything is measured.
 */
int experiment_dropin_dir(const Options *o, const char *path, bool make) {
        _cleanup_free_ char *dropin = NULL;
        const char *slash = strrchr(path, '/');
        int r;

        if (asprintf(&dropin, "%s.d", o->config ?: CONFIG_DEFAULT_PATH) < 0)
                return -ENOMEM;
        if (!slash || (size_t) (slash - path) != strlen(dropin) || strncmp(path, dropin, strlen(dropin)) != 0)
                return -ENOENT;
        r = directory_check_own(dropin);
        if (r < 0 || !make)
                return r;
        if (mkdir(dropin, 0755) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

static bool trial_helped(const Experiment *e, const Trial *t) {
        bool helps = false;

        if (t->rounds != e->rounds)
                return false;
        for (Direction d = 0; d < _DIRECTION_MAX; d++) {
                if (!e->directions[d])
                        continue;
                if (t->cmp[d].verdict == VERDICT_HURTS)
                        return false;
                helps = helps || t->cmp[d].verdict == VERDICT_HELPS;
        }
        return helps;
}

void experiment_compare_trial(const Experiment *e, Trial *t) {
        for (Direction d = 0; d < _DIRECTION_MAX; d++)
                if (e->directions[d])
                        experiment_compare(t->s[ARM_BASELINE][d].mbps, t->s[ARM_CANDIDATE][d].mbps, t->rounds, e->line_mbps,
                                           &t->cmp[d]);
        if (t->power)
                experiment_compare(t->watts[ARM_BASELINE], t->watts[ARM_CANDIDATE], t->rounds, 0, &t->power_cmp);
        t->helped = !t->cand.skipped && trial_helped(e, t);
}

void experiment_compare_trials(Experiment *e) {
        e->n_helped = 0;
        for (size_t i = 0; i < e->n_trials; i++) {
                Trial *t = &e->trials[i];

                if (t->rounds == 0)
                        continue;
                experiment_compare_trial(e, t);
                e->n_helped += t->helped;
        }
}
