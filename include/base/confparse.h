/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/util.h"

/* Complaints about input files, each "file:line: message"; all are kept, not just the first. */
typedef struct Diagnostics {
        char **msgs;
        size_t n, allocated;
        char **files;    /* per message, for diag_sort() */
        unsigned *lines;
        void *per_file;  /* tsearch(3) tree: each file's count of problems (DIAG_MAX_PER_FILE) */
} Diagnostics;

/* Problems kept per file; beyond them one message says how many more there are. */
#define DIAG_MAX_PER_FILE 100

void diag_add(Diagnostics *d, const char *file, unsigned line, const char *fmt, ...) _printf_(4, 5);
void diag_done(Diagnostics *d);
/* Whether any message is about this file (or directory). */
bool diag_names_file(const Diagnostics *d, const char *file);
/* Whether any message is about a line of this file from..to (both included). */
bool diag_names_lines(const Diagnostics *d, const char *file, unsigned from, unsigned to);
/* Appends a message as diag_add() formats them (one that starts with its "file:line: " keeps it once). */
void diag_add_message(Diagnostics *d, const char *file, unsigned line, const char *msg);
/* Problem i's message without the "file:line: " its text starts with (file and line are apart). */
const char *diag_text(const Diagnostics *d, size_t i);
/* Appends message i of from to to. */
void diag_copy(Diagnostics *to, const Diagnostics *from, size_t i);
/* Line order within each file, files in the order they were first complained about. */
void diag_sort(Diagnostics *d);
void diag_print(const Diagnostics *d, FILE *f);

/*
 * Called for every section header (key == NULL) and every key = value line,
 * with the line it stands on. inih as Debian ships it gives handlers no line
 * numbers, so the reader below counts them.
 */
typedef void (*conf_handler)(void *userdata, const char *file, unsigned line, const char *section,
                             const char *key, const char *value, bool continuation, Diagnostics *d);

#define CONF_MAX_LINE 190       /* inih's stack buffer is 200 bytes with \r\n\0 */
#define CONF_MAX_FILE (1 << 20)
/* What one configuration or quirk database reads at most (security review S11: 20000 drop-ins of
 * 333 sections each held 5.3 GB): files per directory, and [device] sections or quirk entries. */
#define CONF_MAX_FILES 256
#define CONF_MAX_SECTIONS 1024

/* Parses one INI file; -errno only when it cannot be read at all (also a diagnostic). */
int conf_parse_file(const char *path, conf_handler h, void *userdata, Diagnostics *d);
/* The same, from memory: the text of the file called name (for diagnostics; not read). */
void conf_parse_buffer(const char *name, const char *buf, size_t len, conf_handler h, void *userdata, Diagnostics *d);
/*
 * The *.conf files of a directory, sorted; a missing directory is an empty list. At most
 * CONF_MAX_FILES of them, the first in that order: returns how many more there were (for the
 * caller to say), or -errno.
 */
int conf_list_dir(const char *dir, char ***ret, size_t *n);
void strv_free(char **v, size_t n);
bool strv_contains(char *const *v, size_t n, const char *s);
/* Appends s (taken over; freed on failure). */
int strv_push(char ***v, size_t *n, char *s);
