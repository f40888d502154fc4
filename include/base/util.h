/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

/* Hand a pointer over to someone else: the cleanup of the old owner sees NULL. */
#define TAKE_PTR(p) ({ typeof(p) _p = (p); (p) = NULL; _p; })
#define TAKE_FD(fd) ({ int _fd = (fd); (fd) = -1; _fd; })

static inline void freep(void *p) { free(*(void **) p); }
static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Declares a cleanup helper "name##p" for a type whose destructor accepts NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                 \
        static inline void func##p(type *p) {                   \
                if (*p)                                         \
                        func(*p);                               \
        }

/* One cleanup helper per owned type; the others are next to their types (config.h, quirks.h, undo.h, ...). */
DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);
#define _cleanup_closedir_ _cleanup_(closedirp)

/*
 * A directory's names, read with getdents64(2) from an fd the caller opened (O_DIRECTORY):
 * readdir() without fdopendir()'s fstat and two fcntl calls, which a start-up pays for each
 * NIC's directories. "." and ".." are skipped. dir_names_next() returns NULL at the end, with
 * error set if the read failed; the fd is the reader's, closed by dir_names_done().
 */
typedef struct DirNames {
        int fd;
        int error;
        size_t pos, len;
        _Alignas(8) char buf[4096];
} DirNames;
void dir_names_init(DirNames *d, int fd);
const char *dir_names_next(DirNames *d);
void dir_names_done(DirNames *d);
#define _cleanup_dir_names_ _cleanup_(dir_names_done)

static inline bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }
/* Both NULL, or both the same string. */
static inline bool streq_ptr(const char *a, const char *b) { return a && b ? streq(a, b) : a == b; }
static inline const char *yes_no(bool b) { return b ? "yes" : "no"; }

/* Strict decimal parsers: no sign, no trailing garbage, no overflow. */
int parse_u64(const char *s, uint64_t *ret);
int parse_u64_base(const char *s, int base, uint64_t *ret);
int parse_bool(const char *s, bool *ret);
/* A number as sysfs writes it: "0x10ec" in hex, else decimal. */
int parse_sysfs_number(const char *s, uint64_t *ret);
/* Removes trailing newline/whitespace in place. */
char *strip_trailing(char *s);
/* A bounded, validated copy: fails on over-long input. */
int strscpy(char *dst, size_t size, const char *src);
/* Valid network interface name as the kernel accepts it (dev_valid_name). */
bool ifname_valid(const char *s);
/* Valid PCI address "DDDD:BB:DD.F". */
bool pci_slot_valid(const char *s);
/* "0000:01:00.0", or lspci's "01:00.0" (domain 0000), in sysfs's lower case into buf[13]. */
int pci_slot_normalize(const char *s, char buf[13]);
/* The last component of the symlink name in dfd ("../../bus/pci/drivers/r8169" -> "r8169"). */
int readlinkat_basename(int dfd, const char *name, char *buf, size_t size);
/* Reads a whole regular file from fd: -EBADF if it is not one, -EFBIG above max bytes. */
int read_fd_bounded(int fd, size_t max, char **ret, size_t *ret_len);
/* A directory of our own to write into: not a link, nobody else's (see util.c); 0 when missing. */
int directory_check_own(const char *dir);
/*
 * The candidate closest to word by edit distance, '-' and '_' counting as the
 * same; NULL when none is close enough to be a typo of it. For "did you mean".
 */
const char *closest_word(const char *word, const char *const *candidates, size_t n);
/* CLOCK_MONOTONIC in microseconds. */
uint64_t now_monotonic_usec(void);
uint64_t now_realtime_usec(void);
/*
 * Whether write_file_atomic(path) would be let write: its directory exists, is writable and no
 * other user may write it (unless sticky, as /tmp), and what stands at path is not a symlink
 * (-ELOOP), a directory (-EISDIR) or another user's file (-EPERM). For a command to refuse an
 * output path before it does anything. 0 or -errno.
 */
int write_file_check(const char *path);
/*
 * Writes path whole or not at all, with this mode whatever the umask: writer fills a new
 * temporary PATH.XXXXXX (created O_EXCL, so a link planted there is never followed), which is
 * synced and renamed over path, and the directory synced (neither on tmpfs, where the rename is
 * all there is). Refused as write_file_check() says. 0 or -errno; the temporary file is gone either way.
 */
int write_file_atomic(const char *path, mode_t mode, void (*writer)(FILE *f, const void *userdata), const void *userdata);
/* Why write_file_check() or write_file_atomic() refused (their -errno), in words. */
const char *write_file_refusal(int r);
/* s with control characters escaped (\n, \t, \xNN), cut to fit buf: text from elsewhere, safe for a terminal or the journal. */
const char *printable(const char *s, char *buf, size_t size);
/* *s, then a space and word (s NULL: word alone), reallocated: 0 or -ENOMEM. */
int str_append_word(char **s, const char *word);
/* The index of s in a string table (NULL entries skipped), -EINVAL if it is none of them. */
int string_table_lookup(const char *const *table, size_t n, const char *s);
/* Escapes a string for a JSON document into a FILE. */
void json_string(FILE *f, const char *s);
