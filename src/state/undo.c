/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>

#include "kernel/backend.h"
#include "state/record.h"
#include "state/undo.h"

#define UNDO_HEADER "# r8169-tuned undo journal 1"
#define UNDO_MAX_FILE (256 * 1024)
#define UNDO_MAX_ENTRIES 1024

/* The knob an entry belongs to: the journal's kinds and names are the backends' and knobs' own. */
KnobId undo_entry_knob(KnobBackendId kind, const char *name) {
        const KnobBackend *be = &knob_backends[kind];
        KnobId k = be->by_feature ? knob_from_feature(name) : knob_from_name(name);

        return k >= 0 && knob_get(k)->backend == be ? k : _KNOB_INVALID;
}

void undo_done(UndoJournal *j) {
        free(j->path);
        free(j->entries);
        strv_free(j->raw, j->n_raw);
        *j = (UndoJournal) {};
}

static int keep_raw(UndoJournal *j, const char *line, size_t len) {
        return strv_push(&j->raw, &j->n_raw, strndup(line, len));
}

static bool word_ok(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isgraph((unsigned char) *s))
                        return false;
        return true;
}

/* "kind name original set [pending]": values decimal; the name a knob or a kernel feature name. */
static int parse_entry(const char *line, UndoEntry *ret) {
        char kind[16], name[ETH_GSTRING_LEN + 1], orig[24], set[24], pending[24], extra[2];
        const KnobBackend *be;
        UndoEntry e = {};
        int n = sscanf(line, "%15s %32s %23s %23s %23s %1s", kind, name, orig, set, pending, extra);

        if (n != 4 && n != 5)
                return -EBADMSG;
        if (n == 5) {
                if (parse_u64(pending, &e.pending) < 0)
                        return -EBADMSG;
                e.has_pending = true;
        }
        be = knob_backend_from_journal_kind(kind);
        if (!be || strlen(name) >= ETH_GSTRING_LEN || !word_ok(name))
                return -EBADMSG;
        if (parse_u64(orig, &e.original) < 0 || parse_u64(set, &e.set) < 0)
                return -EBADMSG;
        /* Every entry belongs to a knob of its kind: anything else was never ours. */
        e.knob = undo_entry_knob(be->id, name);
        if (e.knob < 0)
                return -EBADMSG;
        if (knob_get(e.knob)->type == KNOB_TYPE_BOOL ? e.original > 1 || e.set > 1 || e.pending > 1
                                                     : e.original > knob_get(e.knob)->max || e.set > knob_get(e.knob)->max ||
                                                               e.pending > knob_get(e.knob)->max)
                return -EBADMSG;
        e.kind = be->id;
        memcpy(e.name, name, strlen(name) + 1);
        *ret = e;
        return 0;
}

int undo_parse(const char *text, size_t len, const char *path, UndoJournal *ret, Diagnostics *d) {
        UndoJournal j = {};
        unsigned lineno = 0;
        const char *p = text, *end = text + len;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t n = nl ? (size_t) (nl - p) : (size_t) (end - p);
                char line[256];
                UndoEntry e;

                lineno++;
                if (n >= sizeof(line) || memchr(p, '\0', n)) {
                        diag_add(d, path, lineno, "unreadable line kept as it is");
                        if (keep_raw(&j, p, n) < 0)
                                goto nomem;
                        goto next;
                }
                memcpy(line, p, n);
                line[n] = '\0';
                if (n == 0 || line[0] == '#')
                        goto next;
                if (strncmp(line, "slot ", 5) == 0 && pci_slot_valid(line + 5))
                        memcpy(j.slot, line + 5, PCI_SLOT_LEN);
                else if (strncmp(line, "mac ", 4) == 0 && strlen(line + 4) == 17)
                        memcpy(j.mac, line + 4, 18);
                else if (strncmp(line, "interface ", 10) == 0 && ifname_valid(line + 10))
                        memcpy(j.ifname, line + 10, strlen(line + 10) + 1);
                else if (j.n < UNDO_MAX_ENTRIES && parse_entry(line, &e) >= 0) {
                        UndoEntry *ne;
                        if (undo_find(&j, e.kind, e.name)) {
                                /* A duplicate can only come from outside: keep it, do not guess which is right. */
                                diag_add(d, path, lineno, "second entry for %s %s kept as it is", knob_backends[e.kind].journal_kind, e.name);
                                if (keep_raw(&j, p, n) < 0)
                                        goto nomem;
                                goto next;
                        }
                        ne = reallocarray(j.entries, j.n + 1, sizeof(UndoEntry));
                        if (!ne)
                                goto nomem;
                        j.entries = ne;
                        j.entries[j.n++] = e;
                } else {
                        diag_add(d, path, lineno, "cannot parse \"%.60s\", kept as it is", line);
                        if (keep_raw(&j, p, n) < 0)
                                goto nomem;
                }
        next:
                p = nl ? nl + 1 : end;
        }
        *ret = j;
        return 0;
nomem:
        undo_done(&j);
        return -ENOMEM;
}

int undo_load(const char *state_dir, const char *slot, UndoJournal *ret, Diagnostics *d) {
        _cleanup_free_ char *path = NULL, *buf = NULL;
        _cleanup_close_ int fd = -1;
        UndoJournal j = {};
        size_t n = 0;
        int r;

        if (!pci_slot_valid(slot))
                return -EINVAL;
        if (asprintf(&path, "%s/%s", state_dir, slot) < 0)
                return -ENOMEM;
        fd = record_open(path);
        if (record_refusal(fd)) {
                diag_add(d, path, 0, "%s", record_refusal(fd));
                return fd;
        }
        if (fd < 0 && fd != -ENOENT)
                return fd;
        if (fd >= 0) {
                bool truncated = false;

                r = read_fd_bounded(fd, UNDO_MAX_FILE, &buf, &n);
                if (r == -EFBIG) {
                        /* Too large to be ours: read what fits, so restore can still put that back, and
                         * never write the file again (it would lose the rest). */
                        buf = malloc(UNDO_MAX_FILE);
                        if (!buf)
                                return -ENOMEM;
                        for (n = 0; n < UNDO_MAX_FILE;) {
                                ssize_t k = pread(fd, buf + n, UNDO_MAX_FILE - n, (off_t) n);
                                if (k < 0 && errno == EINTR)
                                        continue;
                                if (k <= 0)
                                        break;
                                n += (size_t) k;
                        }
                        while (n > 0 && buf[n - 1] != '\n')
                                n--; /* the last line is cut: not read */
                        truncated = true;
                        diag_add(d, path, 0, "larger than %u KiB: only its first lines are read, and the file is kept as it is",
                                 UNDO_MAX_FILE / 1024);
                        r = 0;
                }
                if (r < 0)
                        return r; /* -EBADF: not a regular file, -EISDIR: a directory */
                r = undo_parse(buf, n, path, &j, d);
                if (r < 0)
                        return r;
                j.truncated = truncated;
        }
        memcpy(j.slot, slot, PCI_SLOT_LEN);
        j.path = TAKE_PTR(path);
        *ret = j;
        return 0;
}

int undo_list(const char *state_dir, char ***ret_slots, size_t *n) {
        _cleanup_closedir_ DIR *d = opendir(state_dir);
        char **v = NULL;
        size_t k = 0;

        *ret_slots = NULL;
        *n = 0;
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        for (struct dirent *de; (de = readdir(d));) {
                if (!pci_slot_valid(de->d_name))
                        continue;
                if (strv_push(&v, &k, strdup(de->d_name)) < 0) {
                        strv_free(v, k);
                        return -ENOMEM;
                }
        }
        *ret_slots = v;
        *n = k;
        return 0;
}

UndoEntry *undo_find(UndoJournal *j, KnobBackendId kind, const char *name) {
        for (size_t i = 0; i < j->n; i++)
                if (j->entries[i].kind == kind && streq(j->entries[i].name, name))
                        return &j->entries[i];
        return NULL;
}

int undo_record(UndoJournal *j, KnobBackendId kind, const char *name, uint64_t original, uint64_t set) {
        UndoEntry *e = undo_find(j, kind, name), *ne;
        KnobId k = undo_entry_knob(kind, name);

        if (e) {
                /* The first original stays; the value being written is ours too until it is read back. */
                e->has_pending = set != e->set;
                e->pending = set;
                return 0;
        }
        if (k < 0)
                return -EINVAL; /* the parser would refuse it: never write what cannot be read back */
        if (j->n >= UNDO_MAX_ENTRIES || strlen(name) >= ETH_GSTRING_LEN)
                return -E2BIG;
        ne = reallocarray(j->entries, j->n + 1, sizeof(UndoEntry));
        if (!ne)
                return -ENOMEM;
        j->entries = ne;
        e = &j->entries[j->n++];
        *e = (UndoEntry) { .kind = kind, .knob = k, .original = original, .set = set };
        memcpy(e->name, name, strlen(name) + 1);
        return 0;
}

void undo_settle(UndoEntry *e, uint64_t now) {
        if (!e || !e->has_pending)
                return;
        if (now == e->pending)
                e->set = e->pending; /* the write happened: it is what we set */
        if (now == e->pending || now == e->set)
                e->has_pending = false;
}

void undo_remove(UndoJournal *j, UndoEntry *e) {
        if (!e)
                return;
        size_t i = (size_t) (e - j->entries);
        if (i >= j->n)
                return;
        memmove(e, e + 1, (j->n - i - 1) * sizeof(UndoEntry));
        j->n--;
}

static int fsync_dir_of(const char *path) {
        _cleanup_free_ char *copy = strdup(path);
        _cleanup_close_ int fd = -1;

        if (!copy)
                return -ENOMEM;
        fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) < 0)
                return -errno;
        return 0;
}

/* The journal's text, as undo_parse() reads it back (write_file_atomic() makes it in memory first). */
static void journal_write(FILE *f, const void *userdata) {
        const UndoJournal *j = userdata;

        fprintf(f, UNDO_HEADER "\nslot %s\n", j->slot);
        if (j->mac[0])
                fprintf(f, "mac %s\n", j->mac);
        if (j->ifname[0])
                fprintf(f, "interface %s\n", j->ifname);
        for (size_t i = 0; i < j->n; i++) {
                fprintf(f, "%s %s %" PRIu64 " %" PRIu64, knob_backends[j->entries[i].kind].journal_kind, j->entries[i].name,
                        j->entries[i].original, j->entries[i].set);
                if (j->entries[i].has_pending)
                        fprintf(f, " %" PRIu64, j->entries[i].pending);
                fputc('\n', f);
        }
        for (size_t i = 0; i < j->n_raw; i++)
                fprintf(f, "%s\n", j->raw[i]);
}

bool undo_is_leftover(const char *suffix) {
        return streq(suffix, ".tmp") || (suffix[0] == '.' && strlen(suffix) == 7);
}

int undo_save(UndoJournal *j) {
        if (j->truncated)
                return -EFBIG; /* only part of it was read: writing it would lose the rest */
        if (j->n == 0 && j->n_raw == 0) {
                /* Nothing to record: the file goes, and only a removal is made durable (none: three calls fewer). */
                if (unlink(j->path) < 0)
                        return errno == ENOENT ? 0 : -errno;
                return fsync_dir_of(j->path);
        }
        /* 0600: the journal says what restore writes back, nobody else's to read or change. */
        return write_file_atomic(j->path, 0600, journal_write, j);
}
