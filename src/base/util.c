/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/magic.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/quote.h"
#include "base/util.h"

int parse_u64_base(const char *s, int base, uint64_t *ret) {
        char *end;
        unsigned long long v;

        if (!s || !*s || !isxdigit((unsigned char) *s))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, base);
        if (errno == ERANGE)
                return -ERANGE;
        if (errno != 0 || *end != '\0' || end == s)
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_u64(const char *s, uint64_t *ret) {
        if (s && !isdigit((unsigned char) *s))
                return -EINVAL;
        return parse_u64_base(s, 10, ret);
}

int parse_sysfs_number(const char *s, uint64_t *ret) {
        if (s && strncmp(s, "0x", 2) == 0)
                return parse_u64_base(s + 2, 16, ret);
        return parse_u64(s, ret);
}

static const struct {
        const char *name;
        bool value;
} bool_table[] = {
        { "1", true },    { "yes", true }, { "on", true },   { "true", true },  { "y", true },
        { "0", false },   { "no", false }, { "off", false }, { "false", false }, { "n", false },
};

int parse_bool(const char *s, bool *ret) {
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(bool_table); i++)
                if (strcasecmp(s, bool_table[i].name) == 0) {
                        *ret = bool_table[i].value;
                        return 0;
                }
        return -EINVAL;
}

char *strip_trailing(char *s) {
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char) s[n - 1]))
                s[--n] = '\0';
        return s;
}

int strscpy(char *dst, size_t size, const char *src) {
        size_t n = strnlen(src, size);
        if (n >= size)
                return -E2BIG;
        memcpy(dst, src, n + 1);
        return 0;
}

bool ifname_valid(const char *s) {
        size_t n;

        if (!s)
                return false;
        n = strnlen(s, IFNAMSIZ);
        if (n == 0 || n >= IFNAMSIZ)
                return false;
        if (streq(s, ".") || streq(s, ".."))
                return false;
        for (const char *p = s; *p; p++)
                if (*p == '/' || *p == ':' || isspace((unsigned char) *p) || !isprint((unsigned char) *p))
                        return false;
        return true;
}

bool pci_slot_valid(const char *s) {
        /* DDDD:BB:DD.F, lower-case hex as sysfs spells it. */
        static const char shape[] = "xxxx:xx:xx.x";

        if (!s || strlen(s) != sizeof(shape) - 1)
                return false;
        for (size_t i = 0; shape[i]; i++) {
                if (shape[i] == 'x') {
                        if (!isxdigit((unsigned char) s[i]) || isupper((unsigned char) s[i]))
                                return false;
                } else if (s[i] != shape[i])
                        return false;
        }
        return true;
}

void json_string(FILE *f, const char *s) {
        if (!s) {
                fputs("null", f);
                return;
        }
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"': fputs("\\\"", f); break;
                case '\\': fputs("\\\\", f); break;
                case '\n': fputs("\\n", f); break;
                case '\t': fputs("\\t", f); break;
                default:
                        if (*p < 0x20 || *p == 0x7f)
                                fprintf(f, "\\u%04x", *p);
                        else
                                fputc(*p, f);
                }
        }
        fputc('"', f);
}

int read_fd_bounded(int fd, size_t max, char **ret, size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t n = 0;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return S_ISDIR(st.st_mode) ? -EISDIR : -EBADF;
        if ((uint64_t) st.st_size > max)
                return -EFBIG;
        buf = malloc((size_t) st.st_size + 1);
        if (!buf)
                return -ENOMEM;
        while (n < (size_t) st.st_size) {
                ssize_t k = read(fd, buf + n, (size_t) st.st_size - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break; /* shrank meanwhile: what is there is what we have */
                n += (size_t) k;
        }
        buf[n] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_len = n;
        return 0;
}

static bool same_char(char a, char b) {
        return a == b || ((a == '-' || a == '_') && (b == '-' || b == '_'));
}

static size_t edit_distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b), prev[65], cur[65];

        if (la > 64 || lb > 64)
                return SIZE_MAX;
        for (size_t j = 0; j <= lb; j++)
                prev[j] = j;
        for (size_t i = 1; i <= la; i++) {
                cur[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t sub = prev[j - 1] + !same_char(a[i - 1], b[j - 1]);
                        size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
                        cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
                }
                memcpy(prev, cur, sizeof(size_t) * (lb + 1));
        }
        return prev[lb];
}

uint64_t now_monotonic_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

uint64_t now_realtime_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

int str_append_word(char **s, const char *word) {
        char *n;

        if (!*s)
                return (*s = strdup(word)) ? 0 : -ENOMEM;
        if (asprintf(&n, "%s %s", *s, word) < 0)
                return -ENOMEM;
        free(*s);
        *s = n;
        return 0;
}

int string_table_lookup(const char *const *table, size_t n, const char *s) {
        for (size_t i = 0; s && i < n; i++)
                if (table[i] && streq(s, table[i]))
                        return (int) i;
        return -EINVAL;
}

const char *closest_word(const char *word, const char *const *candidates, size_t n) {
        size_t best = SIZE_MAX, limit = strlen(word) / 3 + 1;
        const char *found = NULL;

        for (size_t i = 0; i < n; i++) {
                size_t lw = strlen(word), lc = strlen(candidates[i]);
                /* The distance is at least the difference in length: most candidates need no table. */
                if ((lw > lc ? lw - lc : lc - lw) > limit)
                        continue;
                size_t dist = edit_distance(word, candidates[i]);
                if (dist < best) {
                        best = dist;
                        found = candidates[i];
                }
        }
        return best <= limit ? found : NULL;
}

void dir_names_init(DirNames *d, int fd) {
        d->fd = fd;
        d->error = fd < 0 ? fd : 0;
        d->pos = d->len = 0;
}

const char *dir_names_next(DirNames *d) {
        for (;;) {
                const struct dirent64 *de;

                if (d->pos >= d->len) {
                        ssize_t n;

                        if (d->fd < 0)
                                return NULL;
                        n = getdents64(d->fd, d->buf, sizeof(d->buf));
                        if (n <= 0) {
                                if (n < 0)
                                        d->error = -errno;
                                return NULL;
                        }
                        d->pos = 0;
                        d->len = (size_t) n;
                }
                de = (const struct dirent64 *) (d->buf + d->pos);
                d->pos += de->d_reclen;
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        return de->d_name;
        }
}

void dir_names_done(DirNames *d) {
        if (d->fd >= 0)
                close(d->fd);
        d->fd = -1;
}

int readlinkat_basename(int dfd, const char *name, char *buf, size_t size) {
        char target[4096];
        const char *base;
        ssize_t k;

        if (dfd < 0)
                return -EBADF;
        k = readlinkat(dfd, name, target, sizeof(target) - 1);
        if (k < 0)
                return -errno;
        target[k] = '\0';
        base = strrchr(target, '/');
        base = base ? base + 1 : target;
        return *base ? strscpy(buf, size, base) : -EINVAL;
}

int pci_slot_normalize(const char *s, char buf[13]) {
        size_t l = strlen(s);

        if (l != 7 && l != 12)
                return -EINVAL;
        if (l == 7)
                memcpy(buf, "0000:", 5);
        memcpy(buf + (l == 7 ? 5 : 0), s, l + 1); /* 12 characters and the NUL either way */
        for (char *p = buf; *p; p++)
                *p = (char) tolower((unsigned char) *p); /* sysfs writes hex in lower case */
        return pci_slot_valid(buf) ? 0 : -EINVAL;
}

/* Root, us, or the user who ran us through sudo (a report into their own home directory). */
static bool uid_trusted(uid_t uid) {
        const char *sudo = getenv("SUDO_UID");
        uint64_t u;

        return uid == 0 || uid == geteuid() || (sudo && parse_u64(sudo, &u) >= 0 && u == uid);
}

/* The directory a path's file lands in, into buf: "." for a bare name, "/" for one at the root. */
static int parent_of(const char *path, char *buf, size_t size) {
        const char *slash = strrchr(path, '/');
        size_t n = slash ? (slash == path ? 1 : (size_t) (slash - path)) : 0;

        if (!slash)
                return strscpy(buf, size, ".");
        if (n >= size)
                return -ENAMETOOLONG;
        memcpy(buf, path, n);
        buf[n] = 0;
        return 0;
}

/*
 * Whether root may write a file into dir without another user choosing what it lands on: the
 * directory is root's (or ours) and nobody else can write it, or it is sticky (as /tmp), where
 * others can neither rename nor remove what is not theirs.
 */
static int directory_trusted(const char *dir) {
        struct stat st;

        if (stat(dir, &st) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        if (!uid_trusted(st.st_uid) || ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))
                return -EPERM;
        return 0;
}

/* Whether the directory path is in is trusted (directory_trusted); its name into buf, if given. */
static int parent_trusted(const char *path, char *buf, size_t size) {
        char parent[PATH_MAX];
        int r = parent_of(path, parent, sizeof(parent));

        if (r < 0)
                return r;
        if (buf && strscpy(buf, size, parent) < 0)
                return -ENAMETOOLONG;
        return directory_trusted(parent);
}

/*
 * A directory of our own to write files into or remove them from (the profile drop-in's
 * CONFIG.d): not a symbolic link, which is never followed, root's (or ours) and writable by
 * nobody else, in a directory nobody else can swap it in. Missing is fine: it is made.
 */
int directory_check_own(const char *dir) {
        char parent[PATH_MAX];
        struct stat st;
        int r;

        r = parent_trusted(dir, parent, sizeof(parent));
        if (r < 0)
                return r;
        /* Not even a sticky one (as /tmp): another user could make the name a link between this
         * check and the mkdir that follows it. */
        if (stat(parent, &st) < 0)
                return -errno;
        if (st.st_mode & 022)
                return -EPERM;
        if (lstat(dir, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISLNK(st.st_mode))
                return -ELOOP;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        if (!uid_trusted(st.st_uid) || (st.st_mode & 022))
                return -EPERM;
        return 0;
}

/*
 * write_file_check(); write_file_atomic() does not ask whether the directory is writable
 * (writable false): creating the file says so, with the same errno.
 */
static int write_file_check_full(const char *path, bool writable) {
        char dir[PATH_MAX];
        struct stat st;
        int r;

        r = parent_trusted(path, dir, sizeof(dir));
        if (r < 0)
                return r;
        if (writable && access(dir, W_OK) < 0)
                return -errno;
        /* What stands at the final path is replaced, never followed, and must be ours to replace. */
        if (lstat(path, &st) >= 0) {
                if (S_ISLNK(st.st_mode))
                        return -ELOOP;
                if (S_ISDIR(st.st_mode))
                        return -EISDIR;
                if (!uid_trusted(st.st_uid))
                        return -EPERM;
        }
        return 0;
}

int write_file_check(const char *path) {
        return write_file_check_full(path, true);
}

/*
 * The process's umask, asked once. What counts is its owner bits (mkostemp() creates 0600 less
 * them), which nothing here changes; the unit tests change the group's and others' bits only.
 */
static mode_t process_umask(void) {
        static mode_t m = (mode_t) -1;

        if (m == (mode_t) -1) {
                m = umask(0);
                (void) umask(m);
        }
        return m;
}

/* All of buf to fd, however the kernel splits it. */
static int write_all(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t k = write(fd, buf, len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : -EIO;
                buf += k;
                len -= (size_t) k;
        }
        return 0;
}

int write_file_atomic(const char *path, mode_t mode, void (*writer)(FILE *f, const void *userdata), const void *userdata) {
        _cleanup_free_ char *tmp = NULL, *text = NULL;
        size_t len = 0;
        char dir[PATH_MAX];
        struct statfs sf;
        bool durable;
        FILE *f;
        int fd, r;

        r = write_file_check_full(path, false);
        if (r < 0)
                return r;
        /* The text whole in memory first: one write() (a hotplug saves a journal), and nothing
         * is created when it cannot be made. */
        f = open_memstream(&text, &len);
        if (!f)
                return -ENOMEM;
        writer(f, userdata);
        r = ferror(f) ? -ENOMEM : 0;
        if (fclose(f) != 0 || r < 0)
                return -ENOMEM;
        if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
                return -ENOMEM;
        /* A new file under a name nobody can guess (O_CREAT|O_EXCL: never a planted link), the mode
         * said here rather than left to the caller's umask. */
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = mode != (0600 & ~(process_umask() & 0600)) && fchmod(fd, mode) < 0 ? -errno : 0;
        /* On tmpfs (/run) the rename is all there is to make it whole: no fsync, which costs on the hot path. */
        durable = fstatfs(fd, &sf) < 0 || (sf.f_type != TMPFS_MAGIC && sf.f_type != RAMFS_MAGIC);
        if (r == 0)
                r = write_all(fd, text, len);
        if (r == 0 && durable && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlink(tmp);
                return r;
        }
        if (durable && parent_of(path, dir, sizeof(dir)) >= 0) {
                _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (dfd < 0 || fsync(dfd) < 0)
                        return -errno;
        }
        return 0;
}

const char *printable(const char *s, char *buf, size_t size) {
        size_t n = 0;

        if (size == 0)
                return "";
        while (s && *s) {
                char piece[QUOTE_PIECE_MAX];
                size_t k, used = quote_next(s, QUOTE_CONTROLS, piece, &k);

                if (n + k + 1 > size)
                        break; /* cut to fit, never half an escape or a character */
                memcpy(buf + n, piece, k);
                n += k;
                s += used;
        }
        buf[n] = 0;
        return buf;
}

const char *write_file_refusal(int r) {
        switch (r) {
        case -ELOOP:
                return "it is a symbolic link, which is never followed";
        case -EPERM:
                return "the file or its directory belongs to another user, or another user can write the directory";
        case -EISDIR:
                return "it is a directory";
        case -ENOTDIR:
                return "its directory is not a directory";
        case -EACCES:
                return "its directory is not writable";
        default:
                return strerror(-r);
        }
}
