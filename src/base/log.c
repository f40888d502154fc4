/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/uio.h>
/* The location would always be log.c: callers give context in fields instead. */
#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <systemd/sd-journal.h>

#include "base/log.h"

static int max_level = LOG_INFO;
static LogTarget target = LOG_TARGET_AUTO;
static bool use_journal;
static bool results_to_stdout;
static char last_error[2048]; /* the first error: the cause, where later ones add hints */
static int last_errno;

static const char *const level_names[] = {
        [LOG_EMERG] = "emerg", [LOG_ALERT] = "alert",   [LOG_CRIT] = "crit",
        [LOG_ERR] = "err",     [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
        [LOG_INFO] = "info",   [LOG_DEBUG] = "debug",
};

void log_set_max_level(int level) { max_level = level; }
int log_get_max_level(void) { return max_level; }

int log_level_from_string(const char *s) {
        int level = string_table_lookup(level_names, ELEMENTSOF(level_names), s);
        return level >= 0 || !streq(s, "error") ? level : LOG_ERR;
}

const char *log_level_to_string(int level) {
        if (level < 0 || (size_t) level >= ELEMENTSOF(level_names))
                return NULL;
        return level_names[level];
}

static const char *const target_names[_LOG_TARGET_MAX] = {
        [LOG_TARGET_AUTO] = "auto",
        [LOG_TARGET_STDERR] = "stderr",
        [LOG_TARGET_JOURNAL] = "journal",
};

LogTarget log_target_from_string(const char *s) { return (LogTarget) string_table_lookup(target_names, _LOG_TARGET_MAX, s); }

void log_set_target(LogTarget t) {
        target = t;
        log_open();
}

/* systemd sets $JOURNAL_STREAM to "dev:ino" of the stream it connected stderr to. */
static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return st.st_dev == (dev_t) dev && st.st_ino == (ino_t) ino;
}

void log_results_to_stdout(bool b) { results_to_stdout = b; }

const char *log_first_error(int *error) {
        if (error)
                *error = last_errno;
        return last_error[0] ? last_error : NULL;
}

void log_open(void) {
        use_journal = target == LOG_TARGET_JOURNAL || (target == LOG_TARGET_AUTO && stderr_is_journal());
}

int log_internal(int level, int error, const char *const *fields, const char *fmt, ...) {
        char msg[2048];
        va_list ap;
        int saved = errno;

        error = error < 0 ? -error : error;
        if (level > max_level)
                goto out;

        /* %m refers to the error passed in, as in systemd. */
        errno = error;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (level <= LOG_ERR && !last_error[0]) {
                memcpy(last_error, msg, sizeof(last_error));
                last_errno = error;
        }

        if (use_journal) {
                struct iovec iov[40];
                char m[2100], p[16], e[32];
                size_t n = 0;

                snprintf(m, sizeof(m), "MESSAGE=%s", msg);
                snprintf(p, sizeof(p), "PRIORITY=%d", level);
                iov[n++] = (struct iovec) { m, strlen(m) };
                iov[n++] = (struct iovec) { p, strlen(p) };
                if (error != 0) {
                        snprintf(e, sizeof(e), "ERRNO=%d", error);
                        iov[n++] = (struct iovec) { e, strlen(e) };
                }
                for (size_t i = 0; fields && fields[i] && n < ELEMENTSOF(iov); i++)
                        iov[n++] = (struct iovec) { (void *) fields[i], strlen(fields[i]) };
                if (sd_journal_sendv(iov, (int) n) >= 0)
                        goto out;
        }
        if (results_to_stdout && (level == LOG_INFO || level == LOG_NOTICE)) {
                /* A result between diagnostics: each line whole, in the order said, whatever each stream buffers. */
                fflush(stderr);
                fprintf(stdout, "%s\n", msg);
                fflush(stdout);
        } else {
                fflush(stdout);
                fprintf(stderr, "%s\n", msg);
        }
out:
        errno = saved;
        return -error;
}
