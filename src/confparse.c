/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "confparse.h"

void diag_add(Diagnostics *d, const char *file, unsigned line, const char *fmt, ...) {
        char msg[512], *s;
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (line > 0) {
                if (asprintf(&s, "%s:%u: %s", file, line, msg) < 0)
                        return;
        } else if (asprintf(&s, "%s: %s", file, msg) < 0)
                return;
        (void) strv_push(&d->msgs, &d->n, s);
}

void diag_done(Diagnostics *d) {
        strv_free(d->msgs, d->n);
        *d = (Diagnostics) {};
}

void diag_print(const Diagnostics *d, FILE *f) {
        for (size_t i = 0; i < d->n; i++)
                fprintf(f, "%s\n", d->msgs[i]);
}

void strv_free(char **v, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

int strv_push(char ***v, size_t *n, char *s) {
        char **nv;

        if (!s)
                return -ENOMEM;
        nv = reallocarray(*v, *n + 1, sizeof(char *));
        if (!nv) {
                free(s);
                return -ENOMEM;
        }
        nv[(*n)++] = s;
        *v = nv;
        return 0;
}

typedef struct Reader {
        const char *file;
        const char *buf, *pos, *end;
        unsigned line;
        char section[CONF_MAX_LINE];
        conf_handler handler;
        void *userdata;
        Diagnostics *diag;
        bool in_section_or_key; /* a continuation line needs something to continue */
        bool continuation;      /* the line being handed to inih continues a value */
} Reader;

static bool line_is_text(const char *s, size_t n) {
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];
                if (c == '\0' || (c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
                        return false;
        }
        return true;
}

/*
 * inih's reader callback, called once per line: the place to count lines, and
 * to refuse what inih would silently mangle (over-long lines it would split,
 * binary data, lines that are neither section, key nor comment). A refused
 * line reaches inih as an empty one.
 */
static char *reader_next(char *str, int num, void *stream) {
        Reader *r = stream;
        const char *nl;
        size_t len, keep;
        const char *p;

        if (r->pos >= r->end)
                return NULL;
        nl = memchr(r->pos, '\n', (size_t) (r->end - r->pos));
        len = nl ? (size_t) (nl - r->pos) : (size_t) (r->end - r->pos);
        p = r->pos;
        r->pos = nl ? nl + 1 : r->end;
        r->line++;
        r->continuation = false;
        strcpy(str, "\n");

        if (!line_is_text(p, len)) {
                diag_add(r->diag, r->file, r->line, "not text (NUL or control character), line ignored");
                return str;
        }
        keep = len;
        while (keep > 0 && (p[keep - 1] == '\r' || isspace((unsigned char) p[keep - 1])))
                keep--;
        if (keep > CONF_MAX_LINE || keep + 2 > (size_t) num) {
                diag_add(r->diag, r->file, r->line, "line too long (%zu characters, at most %d), ignored", keep,
                         CONF_MAX_LINE);
                return str;
        }
        /* Classify, as inih will, so that what it cannot parse gets a precise complaint. */
        const char *s = p;
        while (s < p + keep && isspace((unsigned char) *s))
                s++;
        size_t rest = (size_t) (p + keep - s);
        if (rest == 0 || *s == '#' || *s == ';') {
                /* blank or comment */
        } else if (*s == '[') {
                if (p[keep - 1] != ']' || rest < 3) {
                        diag_add(r->diag, r->file, r->line, "section header must be \"[name]\", ignored");
                        r->in_section_or_key = false;
                        return str;
                }
                snprintf(r->section, sizeof(r->section), "%.*s", (int) (rest - 2), s + 1);
                r->handler(r->userdata, r->file, r->line, r->section, NULL, NULL, false, r->diag);
                r->in_section_or_key = true;
        } else if (s != p && r->in_section_or_key) {
                /* indented: continues the previous value (inih's multi-line values) */
                r->continuation = true;
        } else if (!memchr(s, '=', rest)) {
                diag_add(r->diag, r->file, r->line, "expected \"key = value\" or \"[section]\", ignored");
                return str;
        } else
                r->in_section_or_key = true;
        memcpy(str, p, keep);
        str[keep] = '\n';
        str[keep + 1] = '\0';
        return str;
}

static int ini_on_value(void *user, const char *section, const char *key, const char *value) {
        Reader *r = user;
        r->handler(r->userdata, r->file, r->line, section, key, value, r->continuation, r->diag);
        return 1;
}

static int read_bounded(const char *path, char **ret, size_t *ret_len) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        /* A link to /dev/null masks a file, as with systemd's configuration. */
        if (fstat(fd, &st) >= 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
                *ret = strdup("");
                *ret_len = 0;
                return *ret ? 0 : -ENOMEM;
        }
        return read_fd_bounded(fd, CONF_MAX_FILE, ret, ret_len);
}

int conf_parse_file(const char *path, conf_handler h, void *userdata, Diagnostics *d) {
        _cleanup_free_ char *buf = NULL;
        size_t len;
        Reader r;
        int k;

        k = read_bounded(path, &buf, &len);
        if (k < 0) {
                diag_add(d, path, 0, "cannot read: %s", k == -EFBIG ? "larger than 1 MiB" : k == -EBADF ? "not a regular file" : strerror(-k));
                return k;
        }
        r = (Reader) { .file = path, .buf = buf, .pos = buf, .end = buf + len, .handler = h, .userdata = userdata, .diag = d };
        /* Our reader already reported every line inih could trip over. */
        (void) ini_parse_stream(reader_next, &r, ini_on_value, &r);
        return 0;
}

static int strcmp_ptr(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int conf_list_dir(const char *dir, char ***ret, size_t *n) {
        _cleanup_closedir_ DIR *d = NULL;
        char **v = NULL;
        size_t k = 0;

        *ret = NULL;
        *n = 0;
        d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        for (struct dirent *de; (de = readdir(d));) {
                size_t l = strlen(de->d_name);
                char *path;
                if (de->d_name[0] == '.' || l < 6 || !streq(de->d_name + l - 5, ".conf"))
                        continue;
                if (asprintf(&path, "%s/%s", dir, de->d_name) < 0 || strv_push(&v, &k, path) < 0) {
                        strv_free(v, k);
                        return -ENOMEM;
                }
        }
        if (k > 1)
                qsort(v, k, sizeof(char *), strcmp_ptr);
        *ret = v;
        *n = k;
        return 0;
}
