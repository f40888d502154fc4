/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <syslog.h>
#include <systemd/sd-journal.h>

#include "base/util.h"

/* sd-journal.h defines sd_journal_closep(). */
#define _cleanup_journal_ _cleanup_(sd_journal_closep)

/* Where messages go: stderr for people, the journal (with structured fields) for the service. */
typedef enum LogTarget {
        LOG_TARGET_AUTO,    /* journal when stderr is connected to it, else stderr */
        LOG_TARGET_STDERR,
        LOG_TARGET_JOURNAL,
        _LOG_TARGET_MAX,
        _LOG_TARGET_INVALID = -EINVAL,
} LogTarget;

/* "auto", "stderr" or "journal"; -EINVAL for another word. */
LogTarget log_target_from_string(const char *s);

void log_set_max_level(int level);
int log_get_max_level(void);
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);
void log_set_target(LogTarget t);
void log_open(void);
/* For a command whose log is its result (apply, restore): info and notice go to stdout, warnings, errors and
 * debugging to stderr, so that "apply > log" keeps the report. The journal, when it is the target, gets all. */
void log_results_to_stdout(bool b);
/* The first message logged at LOG_ERR or worse (the cause; later ones tend to be hints) and its errno (0: none);
 * NULL if there was none. */
const char *log_first_error(int *error);

/* Structured extra fields, "KEY=value" strings, NULL-terminated; may be NULL. */
int log_internal(int level, int error, const char *const *fields, const char *fmt, ...) _printf_(4, 5);

#define log_full_errno(level, error, ...) log_internal((level), (error), NULL, __VA_ARGS__)
#define log_full(level, ...) (void) log_internal((level), 0, NULL, __VA_ARGS__)
#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)
/* These return -abs(error), so callers can "return log_error_errno(r, ...)". */
#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(e, ...) log_full_errno(LOG_INFO, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, (e), __VA_ARGS__)
#define log_oom() log_error_errno(ENOMEM, "Out of memory.")
