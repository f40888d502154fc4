/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <dirent.h>

#include "base/util.h"

/*
 * Every sysfs access of r8169-tuned goes through here: paths are resolved
 * inside a root directory ("/sys", or a fixture tree given with --sysfs),
 * the last component is never a symlink, only allowlisted attribute names
 * are opened, and reads are bounded.
 */
typedef struct Sysroot Sysroot;

int sysroot_new(const char *path, Sysroot **ret);
Sysroot *sysroot_free(Sysroot *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(Sysroot *, sysroot_free);

const char *sysroot_path(const Sysroot *s);
/* Whether the root is the real /sys (not a fixture). */
bool sysroot_is_live(const Sysroot *s);

/* Reads an attribute into buf (NUL-terminated, trailing whitespace stripped). */
int sysroot_read(const Sysroot *s, const char *dir, const char *attr, char *buf, size_t size);
int sysroot_read_u64(const Sysroot *s, const char *dir, const char *attr, uint64_t *ret);
/* Opens a directory under the root, O_DIRECTORY, for listing. */
int sysroot_open_dir(const Sysroot *s, const char *dir);
/* The same, its names read by dir_names_next() (base/util.h): 0 or -errno. */
int sysroot_dir_names(const Sysroot *s, const char *dir, DirNames *ret);
/*
 * The same on a directory sysroot_open_dir() opened: several attributes of one directory,
 * one path walk. The attribute is one component and never a symlink.
 */
int sysroot_read_u64_at(int dfd, const char *attr, uint64_t *ret);
/* The text of an attribute of that directory, trailing whitespace stripped. */
int sysroot_read_text_at(int dfd, const char *attr, char *buf, size_t size);
/* Writes value (a newline is added) to an allowlisted writable attribute. */
int sysroot_write_at(int dfd, const char *attr, const char *value);
/*
 * The same, the attribute opened for reading too and left open: the fd, or -errno. Its read-back
 * is sysroot_reread_fd(): sysfs calls the attribute's show() again for a read at offset 0.
 */
int sysroot_write_keep_at(int dfd, const char *attr, const char *value);
/* What fd holds now, read from its start, as sysroot_read() gives it. */
int sysroot_reread_fd(int fd, char *buf, size_t size);
/*
 * A turn's attribute, read and then written through one fd (kernel/backend-sysfs.c): an
 * allowlisted writable attribute opened for both (the fd, or -errno), read with
 * sysroot_reread_fd(), and value written over it at offset 0, where sysfs takes it whole
 * (and refuses it with -ENODEV if the attribute was removed since it was opened). A fixture's
 * regular file (fixture) removed since is -ENOENT, as a write by path would find it, and one
 * holding a longer text is cut first.
 */
int sysroot_open_rw_at(int dfd, const char *attr);
int sysroot_rewrite_fd(int fd, const char *value, bool fixture);
/* Opens an allowlisted attribute read-only and returns the fd (for mmap of a BAR image). */
int sysroot_open_attr(const Sysroot *s, const char *dir, const char *attr);
bool sysroot_attr_allowed(const char *attr, bool write);
