/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "kernel/backend.h"
#include "kernel/machine.h"
#include "kernel/sysroot.h"

struct Sysroot {
        char *path;
        int fd;
        bool live;
};

/* Attributes read anywhere under the root. */
static const char *const readable[] = {
        "vendor", "device", "subsystem_vendor", "subsystem_device", "revision", "class",
        "resource", "resource[0-9]", "address", "addr_assign_type", "ifindex", "carrier",
        "operstate", "flags", "type", "online", "scope", "status", "uevent",
        "product_version", "bios_version", "policy", "tx_timeout",
        "runtime_status",                           /* the PCI function's runtime PM: active or suspended */
        "speed",                                    /* experiment: the link's rate, to say "at line rate" */
        "name", "energy_uj", "max_energy_range_uj", /* experiment: RAPL package energy (powercap) */
#define DMI_ATTR(id, attr, key, old) attr,
        DMI_FIELDS(DMI_ATTR) /* what the match conditions read */
#undef DMI_ATTR
};
/* The only attributes r8169-tuned ever writes: the knobs whose backend is a sysfs attribute. */
static bool attr_writable(const char *attr) {
        for (int k = 0; k < _KNOB_MAX; k++)
                if (knob_get(k)->backend->sysfs_dir && streq(knob_sysfs_attr(k), attr))
                        return true;
        return false;
}

bool sysroot_attr_allowed(const char *attr, bool write) {
        if (attr_writable(attr))
                return true;
        if (write)
                return false;
        /* fnmatch() only for patterns: every read that is no knob's comes here (the ASPM policy
         * of each plan, discovery's ids, tx_timeout), past attr_writable()'s loop. */
        for (size_t i = 0; i < ELEMENTSOF(readable); i++)
                if (strpbrk(readable[i], "*?[") ? fnmatch(readable[i], attr, 0) == 0 : streq(readable[i], attr))
                        return true;
        return false;
}

int sysroot_new(const char *path, Sysroot **ret) {
        _cleanup_(sysroot_freep) Sysroot *s = NULL;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->fd = -1;
        s->path = strdup(path);
        if (!s->path)
                return -ENOMEM;
        s->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (s->fd < 0)
                return -errno;
        s->live = streq(path, "/sys") || streq(path, "/sys/");
        *ret = TAKE_PTR(s);
        return 0;
}

Sysroot *sysroot_free(Sysroot *s) {
        if (!s)
                return NULL;
        closep(&s->fd);
        free(s->path);
        free(s);
        return NULL;
}

const char *sysroot_path(const Sysroot *s) { return s->path; }
bool sysroot_is_live(const Sysroot *s) { return s->live; }

/* A relative path of plain components: no "..", no empty or absolute parts. */
static bool relpath_valid(const char *p) {
        const char *c = p;

        if (!p || *p == '/' || strlen(p) >= 4096)
                return false;
        while (*c) {
                const char *e = strchrnul(c, '/');
                size_t n = (size_t) (e - c);
                if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c = *e ? e + 1 : e;
        }
        return true;
}

/*
 * Resolves dir inside the root as if the root were "/" (symlinks in sysfs are
 * relative, fixtures may use absolute ones), so nothing escapes the root.
 */
static int open_in_root(const Sysroot *s, const char *path, int flags) {
        struct open_how how = {
                .flags = (uint64_t) (flags | O_CLOEXEC),
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        int fd;

        /*
         * RESOLVE_IN_ROOT answers EAGAIN when a rename anywhere on the system raced with a ".."
         * in the path (sysfs links are relative): openat2(2) says to try again.
         */
        for (int attempt = 0;; attempt++) {
                fd = (int) syscall(SYS_openat2, s->fd, path, &how, sizeof(how));
                if (fd >= 0)
                        return fd;
                if (errno != EAGAIN || attempt >= 16)
                        break;
        }
        if (errno != ENOSYS)
                return -errno;
        fd = openat(s->fd, path, flags | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

int sysroot_open_dir(const Sysroot *s, const char *dir) {
        if (!relpath_valid(dir))
                return -EINVAL;
        return open_in_root(s, dir, O_RDONLY | O_DIRECTORY);
}

int sysroot_dir_names(const Sysroot *s, const char *dir, DirNames *ret) {
        int fd = sysroot_open_dir(s, dir);

        if (fd < 0)
                return fd;
        dir_names_init(ret, fd);
        return 0;
}

/* An allowlisted attribute, read-only (writes go through sysroot_write_at()). */
static int open_attr(const Sysroot *s, const char *dir, const char *attr) {
        _cleanup_close_ int dfd = -1;
        char path[4096 + 256];
        int flags = O_RDONLY, fd;

        if (!relpath_valid(dir) || !attr || strchr(attr, '/') || !sysroot_attr_allowed(attr, false))
                return -EPERM;
        /*
         * O_NONBLOCK: a FIFO where an attribute should be must not hang the daemon. One openat2()
         * resolves the directory inside the root and refuses a symlink as the attribute itself
         * (O_NOFOLLOW): a knob read per syscall, not three (the daemon reads every knob per event).
         */
        flags |= O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;
        if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, attr) < sizeof(path))
                return open_in_root(s, path, flags);
        dfd = open_in_root(s, dir, O_PATH | O_DIRECTORY);
        if (dfd < 0)
                return dfd;
        fd = openat(dfd, attr, flags | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

int sysroot_open_attr(const Sysroot *s, const char *dir, const char *attr) {
        return open_attr(s, dir, attr);
}

/* Reads what fd holds into buf (from its start if positional): bounded, NUL-terminated, trailing whitespace stripped. */
static int read_attr_fd(int fd, bool positional, char *buf, size_t size) {
        size_t n = 0;

        if (fd < 0)
                return fd;
        if (size < 2)
                return -EINVAL;
        /*
         * One more byte than fits tells us the attribute is longer than expected. A read that
         * fills less than asked is the whole of it: sysfs hands an attribute over in one
         * read, and a regular file (a fixture) reads short only at its end.
         */
        for (;;) {
                size_t want = size - n;
                ssize_t k = positional ? pread(fd, buf + n, want, (off_t) n) : read(fd, buf + n, want);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n >= size)
                        return -EFBIG;
                if ((size_t) k < want)
                        break;
        }
        buf[n] = '\0';
        if (strlen(buf) != n)
                return -EBADMSG; /* embedded NUL */
        strip_trailing(buf);
        return 0;
}

/*
 * An attribute in a directory sysroot_open_dir() resolved: one plain component, never a
 * symlink, so nothing is reached that the root does not hold; no path walk either.
 */
static int open_attr_at(int dfd, const char *attr, int flags, bool write) {
        int fd;

        if (dfd < 0)
                return -EBADF;
        if (!attr || !*attr || strchr(attr, '/') || !sysroot_attr_allowed(attr, write))
                return -EPERM;
        fd = openat(dfd, attr, flags | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

int sysroot_read(const Sysroot *s, const char *dir, const char *attr, char *buf, size_t size) {
        _cleanup_close_ int fd = open_attr(s, dir, attr);
        return read_attr_fd(fd, false, buf, size);
}

int sysroot_read_text_at(int dfd, const char *attr, char *buf, size_t size) {
        _cleanup_close_ int fd = open_attr_at(dfd, attr, O_RDONLY, false);
        return read_attr_fd(fd, false, buf, size);
}

int sysroot_read_u64(const Sysroot *s, const char *dir, const char *attr, uint64_t *ret) {
        char buf[64];
        int r;

        r = sysroot_read(s, dir, attr, buf, sizeof(buf));
        if (r < 0)
                return r;
        return parse_sysfs_number(buf, ret);
}

int sysroot_read_u64_at(int dfd, const char *attr, uint64_t *ret) {
        char buf[64];
        int r;

        r = sysroot_read_text_at(dfd, attr, buf, sizeof(buf));
        if (r < 0)
                return r;
        return parse_sysfs_number(buf, ret);
}

/* value and a newline, in one write() (or, positional, at offset 0). */
static int write_attr_fd(int fd, bool positional, const char *value) {
        char buf[64];
        int n;

        if (fd < 0)
                return fd;
        n = snprintf(buf, sizeof(buf), "%s\n", value);
        if (n < 0 || (size_t) n >= sizeof(buf))
                return -E2BIG;
        for (;;) {
                ssize_t k = positional ? pwrite(fd, buf, (size_t) n, 0) : write(fd, buf, (size_t) n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k != n)
                        return -EIO;
                return 0;
        }
}

int sysroot_write_at(int dfd, const char *attr, const char *value) {
        /* O_TRUNC is ignored by sysfs, and keeps fixture files exact. */
        _cleanup_close_ int fd = strlen(value) + 1 < 64 ? open_attr_at(dfd, attr, O_WRONLY | O_TRUNC, true) : -E2BIG;
        return write_attr_fd(fd, false, value);
}

int sysroot_write_keep_at(int dfd, const char *attr, const char *value) {
        int fd = strlen(value) + 1 < 64 ? open_attr_at(dfd, attr, O_RDWR | O_TRUNC, true) : -E2BIG;
        int r = write_attr_fd(fd, false, value);

        if (r < 0) {
                if (fd >= 0)
                        close(fd);
                return r;
        }
        return fd;
}

int sysroot_reread_fd(int fd, char *buf, size_t size) {
        return read_attr_fd(fd, true, buf, size);
}

int sysroot_open_rw_at(int dfd, const char *attr) {
        return open_attr_at(dfd, attr, O_RDWR, true);
}

int sysroot_rewrite_fd(int fd, const char *value, bool fixture) {
        struct stat st;

        if (strlen(value) + 1 >= 64)
                return -E2BIG;
        /*
         * sysfs refuses a write to an attribute removed since it was opened (ENODEV). A fixture's
         * file removed since is still there for its fd: its removal is said as a path's would be
         * (ENOENT); one holding a longer text than this (another writer's, perhaps) is cut first.
         */
        if (fixture) {
                if (fstat(fd, &st) < 0)
                        return -errno;
                if (st.st_nlink == 0)
                        return -ENOENT;
                if ((size_t) st.st_size > strlen(value) + 1 && ftruncate(fd, 0) < 0)
                        return -errno;
        }
        return write_attr_fd(fd, true, value);
}
