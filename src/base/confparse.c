/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <limits.h>
#include <dirent.h>
#include <fcntl.h>
#include <ini.h>
#include <search.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/confparse.h"

static void free_nothing(void *p) {
        (void) p;
}

/* Per file: how many problems it has, and where its "N more" message stands once it has too many. */
typedef struct FileCount {
        char *file;
        size_t count;
        size_t more_at; /* index of the message that says how many more, when count > DIAG_MAX_PER_FILE */
} FileCount;

static int file_count_compare(const void *a, const void *b) {
        return strcmp(((const FileCount *) a)->file, ((const FileCount *) b)->file);
}

static void file_count_free(void *p) {
        FileCount *fc = p;
        free(fc->file);
        free(fc);
}

/* Appends one message (taking s), without counting it against its file. */
static int diag_push(Diagnostics *d, const char *file, unsigned line, char *s) {
        if (!s)
                return -ENOMEM;
        if (d->n == d->allocated) {
                size_t want = d->allocated ? d->allocated * 2 : 16;
                unsigned *nl = reallocarray(d->lines, want, sizeof(unsigned));
                char **nf, **nm;

                if (nl)
                        d->lines = nl;
                nf = nl ? reallocarray(d->files, want, sizeof(char *)) : NULL;
                if (nf)
                        d->files = nf;
                nm = nf ? reallocarray(d->msgs, want, sizeof(char *)) : NULL;
                if (!nm) {
                        free(s);
                        return -ENOMEM;
                }
                d->msgs = nm;
                d->allocated = want;
        }
        d->files[d->n] = strdup(file ?: "");
        d->lines[d->n] = line;
        d->msgs[d->n++] = s;
        return 0;
}

static char *diag_format(const char *file, unsigned line, const char *msg) {
        char *s;

        if (line > 0 ? asprintf(&s, "%s:%u: %s", file, line, msg) < 0 : asprintf(&s, "%s: %s", file, msg) < 0)
                return NULL;
        return s;
}

#define DIAG_MORE_FORMAT "more than %d problems: %zu more are not shown"

/* Whether a message is a file's "N more" (here or as the service sent it): it is not counted
 * again where it is copied, and it sorts after the problems it stands for. */
static bool diag_is_more(const char *msg, unsigned line) {
        char more[64];

        snprintf(more, sizeof(more), "more than %d problems: ", DIAG_MAX_PER_FILE);
        return line == 0 && msg && strstr(msg, more) && strstr(msg, " more are not shown");
}

/*
 * The first DIAG_MAX_PER_FILE problems of a file are kept; after them one message says how many
 * more there are (security review R6: 100,000 problem lines cost minutes to keep, sort and print).
 */
void diag_add(Diagnostics *d, const char *file, unsigned line, const char *fmt, ...) {
        FileCount key = { .file = (char *) (file ?: "") }, **found;
        char msg[512], *s;
        va_list ap;

        found = tsearch(&key, &d->per_file, file_count_compare);
        if (!found)
                return;
        if (*found == &key) {
                FileCount *fc = calloc(1, sizeof(*fc));
                if (!fc || !(fc->file = strdup(key.file))) {
                        free(fc);
                        tdelete(&key, &d->per_file, file_count_compare);
                        return;
                }
                fc->more_at = SIZE_MAX;
                *found = fc;
        }
        if (++(*found)->count > DIAG_MAX_PER_FILE) {
                char more[128];
                size_t n = (*found)->count - DIAG_MAX_PER_FILE;

                snprintf(more, sizeof(more), DIAG_MORE_FORMAT, DIAG_MAX_PER_FILE, n);
                s = diag_format(key.file, 0, more);
                if (!s)
                        return;
                if ((*found)->more_at == SIZE_MAX) {
                        if (diag_push(d, key.file, 0, s) >= 0)
                                (*found)->more_at = d->n - 1;
                } else {
                        free(d->msgs[(*found)->more_at]);
                        d->msgs[(*found)->more_at] = s;
                }
                return;
        }
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        s = diag_format(key.file, line, msg);
        if (s)
                (void) diag_push(d, key.file, line, s);
}

bool diag_names_file(const Diagnostics *d, const char *file) {
        for (size_t i = 0; d && i < d->n; i++)
                if (d->files[i] && streq(d->files[i], file))
                        return true;
        return false;
}

bool strv_contains(char *const *v, size_t n, const char *s) {
        for (size_t i = 0; i < n; i++)
                if (v[i] && streq(v[i], s))
                        return true;
        return false;
}

bool diag_names_lines(const Diagnostics *d, const char *file, unsigned from, unsigned to) {
        for (size_t i = 0; d && i < d->n; i++)
                if (d->files[i] && streq(d->files[i], file) && d->lines[i] >= from && d->lines[i] <= to)
                        return true;
        return false;
}

/* A message without the "file:line: " (or "file: ") it may start with. */
static const char *message_after_file(const char *file, const char *msg) {
        size_t skip = strlen(file);

        if (strncmp(msg, file, skip) == 0 && msg[skip] == ':') {
                msg += skip + 1;
                msg += strspn(msg, "0123456789");
                msg += strspn(msg, ": ");
        }
        return msg;
}

const char *diag_text(const Diagnostics *d, size_t i) {
        return d->files[i] ? message_after_file(d->files[i], d->msgs[i]) : d->msgs[i];
}

void diag_add_message(Diagnostics *d, const char *file, unsigned line, const char *msg) {
        /* A file's "N more" says so again where it is copied (diag_copy, the service's list), as it is. */
        if (diag_is_more(msg, line))
                (void) diag_push(d, file, 0, strdup(msg));
        else
                diag_add(d, file, line, "%s", message_after_file(file, msg));
}

void diag_copy(Diagnostics *to, const Diagnostics *from, size_t i) {
        diag_add_message(to, from->files[i], from->lines[i], from->msgs[i]);
}

void diag_done(Diagnostics *d) {
        strv_free(d->files, d->n);
        free(d->lines);
        strv_free(d->msgs, d->n);
        tdestroy(d->per_file, file_count_free);
        *d = (Diagnostics) {};
}

typedef struct SortKey {
        size_t file_rank, index;
        unsigned line;
} SortKey;

static int sort_key_compare(const void *a, const void *b) {
        const SortKey *x = a, *y = b;

        if (x->file_rank != y->file_rank)
                return x->file_rank < y->file_rank ? -1 : 1;
        if (x->line != y->line)
                return x->line < y->line ? -1 : 1;
        return x->index < y->index ? -1 : x->index > y->index;
}

typedef struct FileRank {
        const char *file;
        size_t rank;
} FileRank;

static int file_rank_compare(const void *a, const void *b) {
        return strcmp(((const FileRank *) a)->file, ((const FileRank *) b)->file);
}

void diag_sort(Diagnostics *d) {
        _cleanup_free_ SortKey *keys = NULL;
        _cleanup_free_ FileRank *ranks = NULL;
        _cleanup_free_ char **msgs = NULL, **files = NULL;
        _cleanup_free_ unsigned *lines = NULL;
        void *tree = NULL;
        size_t n_files = 0;

        if (d->n < 2)
                return;
        keys = calloc(d->n, sizeof(*keys));
        ranks = calloc(d->n, sizeof(*ranks));
        msgs = calloc(d->n, sizeof(*msgs));
        files = calloc(d->n, sizeof(*files));
        lines = calloc(d->n, sizeof(*lines));
        if (!keys || !ranks || !msgs || !files || !lines)
                return; /* left in the order they came */
        /* Files in the order they were first complained about; lines in order within each; stable. */
        for (size_t i = 0; i < d->n; i++) {
                FileRank *r;
                const FileRank **found;

                ranks[n_files] = (FileRank) { d->files[i] ?: "", n_files };
                found = tsearch(&ranks[n_files], &tree, file_rank_compare);
                if (!found) {
                        tdestroy(tree, free_nothing);
                        return;
                }
                r = (FileRank *) *found;
                if (r == &ranks[n_files])
                        n_files++;
                /* A file's "N more" after its problems. */
                keys[i] = (SortKey) { r->rank, i, diag_is_more(d->msgs[i], d->lines[i]) ? UINT_MAX : d->lines[i] };
        }
        tdestroy(tree, free_nothing);
        qsort(keys, d->n, sizeof(*keys), sort_key_compare);
        for (size_t i = 0; i < d->n; i++) {
                msgs[i] = d->msgs[keys[i].index];
                files[i] = d->files[keys[i].index];
                lines[i] = d->lines[keys[i].index];
        }
        memcpy(d->msgs, msgs, d->n * sizeof(*msgs));
        memcpy(d->files, files, d->n * sizeof(*files));
        memcpy(d->lines, lines, d->n * sizeof(*lines));
        /* The "N more" messages moved: tell their files where. */
        for (size_t i = 0; i < d->n; i++)
                if (diag_is_more(d->msgs[i], d->lines[i])) {
                        FileCount key = { .file = d->files[i] ?: "" }, **fc = tfind(&key, &d->per_file, file_count_compare);
                        if (fc && (*fc)->more_at != SIZE_MAX)
                                (*fc)->more_at = i;
                }
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
        bool bad_section;       /* under a refused header: its keys belong to no section, not the one before */
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
        /*
         * Classify the line and hand inih exactly what we classified, so that the
         * two can never read a line differently: a section header without its
         * indentation or trailing comment, a value without its inline comment.
         */
        const char *s = p;
        while (s < p + keep && isspace((unsigned char) *s))
                s++;
        size_t rest = (size_t) (p + keep - s), out;
        if (rest == 0 || *s == '#' || *s == ';') {
                return str; /* blank or comment */
        } else if (*s == '[') {
                const char *close = memchr(s, ']', rest);
                const char *after = close ? close + 1 : NULL;
                while (after && after < p + keep && isspace((unsigned char) *after))
                        after++;
                /* "[device office]   ; why" is a header with a comment, as inih itself reads it. */
                if (!close || close - s < 2 || (after < p + keep && *after != '#' && *after != ';')) {
                        diag_add(r->diag, r->file, r->line, "section header must be \"[name]\", ignored with its keys");
                        r->in_section_or_key = false;
                        r->bad_section = true;
                        return str;
                }
                r->bad_section = false;
                snprintf(r->section, sizeof(r->section), "%.*s", (int) (close - s - 1), s + 1);
                r->handler(r->userdata, r->file, r->line, r->section, NULL, NULL, false, r->diag);
                r->in_section_or_key = true;
                out = (size_t) (close - s + 1);
                memcpy(str, s, out);
        } else if (r->bad_section) {
                return str; /* already said, with the header */
        } else {
                if (s != p && r->in_section_or_key)
                        r->continuation = true; /* indented: continues the previous value (inih's multi-line values) */
                else if (!memchr(s, '=', rest)) {
                        diag_add(r->diag, r->file, r->line, "expected \"key = value\" or \"[section]\", ignored");
                        return str;
                } else
                        r->in_section_or_key = true;
                /* An inline comment starts with # or ; after white space (r8169-tuned.conf(5)). */
                out = keep;
                for (const char *c = s + 1; c < p + keep; c++)
                        if ((*c == '#' || *c == ';') && isspace((unsigned char) c[-1])) {
                                out = (size_t) (c - p);
                                break;
                        }
                while (out > 0 && isspace((unsigned char) p[out - 1]))
                        out--;
                memcpy(str, p, out);
        }
        str[out] = '\n';
        str[out + 1] = '\0';
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
        int k;

        k = read_bounded(path, &buf, &len);
        if (k < 0) {
                diag_add(d, path, 0, "cannot read: %s", k == -EFBIG ? "larger than 1 MiB" : k == -EBADF ? "not a regular file" : strerror(-k));
                return k;
        }
        conf_parse_buffer(path, buf, len, h, userdata, d);
        return 0;
}

void conf_parse_buffer(const char *name, const char *buf, size_t len, conf_handler h, void *userdata, Diagnostics *d) {
        Reader r = { .file = name, .buf = buf, .pos = buf, .end = buf + len, .handler = h, .userdata = userdata, .diag = d };

        /* A UTF-8 byte-order mark, as Notepad writes one, is not part of the first line. */
        if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
                r.pos += 3;
        /* Our reader already reported every line inih could trip over. */
        (void) ini_parse_stream(reader_next, &r, ini_on_value, &r);
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
        if (k > CONF_MAX_FILES) {
                size_t more = k - CONF_MAX_FILES;
                for (size_t i = CONF_MAX_FILES; i < k; i++)
                        free(v[i]);
                *ret = v;
                *n = CONF_MAX_FILES;
                return (int) (more > INT_MAX ? INT_MAX : more);
        }
        *ret = v;
        *n = k;
        return 0;
}
