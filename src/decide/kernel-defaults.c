/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <libgen.h>

#include "decide/kernel-defaults.h"
#include "kernel/chip.h"

/* The rows' own keys; a value may continue on indented lines, as in the quirk files. */
static const char *const keys[] = { "knob",   "mac",  "kernel", "value",    "unless",        "commit",
                                    "landed", "source", "note", "backport", "not-backported" };
/* What a row may name besides the knobs: the kernel's per-speed EEE and the chip's LTR, shown only. */
static const char *const shown_only[] = { "eee_2500", "eee_5000", "ltr" };

const char *kernel_defaults_path(const char *quirks_dir, char *buf, size_t size) {
        _cleanup_free_ char *copy = NULL;

        if (!quirks_dir)
                return R8T_KERNEL_DEFAULTS;
        copy = strdup(quirks_dir);
        if (!copy)
                return R8T_KERNEL_DEFAULTS;
        snprintf(buf, size, "%s/kernel-defaults.conf", dirname(copy));
        return buf;
}

static void row_done(KernelDefault *r) {
        free(r->id);
        free(r->knob);
        free(r->kernels);
        free(r->value);
        free(r->unless);
        free(r->commit);
        free(r->landed);
        free(r->source);
        free(r->note);
        free(r->backport);
        free(r->not_backported);
}

void kernel_defaults_done(KernelDefaults *kd) {
        for (size_t i = 0; i < kd->n; i++)
                row_done(&kd->rows[i]);
        free(kd->rows);
        free(kd->file);
        *kd = (KernelDefaults) {};
}

typedef struct Loader {
        KernelDefaults *kd;
        const char *last_key; /* the key an indented line continues */
        char *text[ELEMENTSOF(keys)]; /* the current row's values, continuations joined */
        unsigned line[ELEMENTSOF(keys)];
} Loader;

static int key_index(const char *key) { return string_table_lookup(keys, ELEMENTSOF(keys), key); }

/* The row a section's lines made: checked, parsed, kept (or left out with its complaints). */
static void finish_row(Loader *l, Diagnostics *d) {
        KernelDefaults *kd = l->kd;
        KernelDefault *r;
        char *save = NULL;

        if (kd->n == 0 || kd->rows[kd->n - 1].knob) {
                for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                        free(l->text[i]), l->text[i] = NULL;
                return;
        }
        r = &kd->rows[kd->n - 1];
        for (size_t i = 0; i < 4; i++) /* knob, mac, kernel, value */
                if (!l->text[i]) {
                        diag_add(d, r->file, r->line, "[%s] has no %s", r->id, keys[i]);
                        goto bad;
                }
        if (!l->text[7]) {
                diag_add(d, r->file, r->line, "[%s] has no source", r->id);
                goto bad;
        }
        r->knob_id = knob_from_name(l->text[0]);
        if (r->knob_id < 0 && string_table_lookup(shown_only, ELEMENTSOF(shown_only), l->text[0]) < 0) {
                diag_add(d, r->file, l->line[0], "[%s]: \"%s\" is neither a knob nor one of eee_2500, eee_5000, ltr", r->id,
                         l->text[0]);
                goto bad;
        }
        for (char *w = strtok_r(l->text[1], " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                uint64_t v;
                if (parse_u64(w, &v) < 0 || v >= KERNEL_DEFAULTS_MAC_MAX) {
                        diag_add(d, r->file, l->line[1], "[%s]: bad mac \"%s\": expected RTL_GIGA_MAC_VER numbers", r->id, w);
                        goto bad;
                }
                r->mac[v] = true;
        }
        save = NULL;
        for (char *w = strtok_r(l->text[2], " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                KernelRange kr, *n;
                if (kernel_range_parse(w, &kr) < 0) {
                        diag_add(d, r->file, l->line[2], "[%s]: bad kernel \"%s\": expected ranges like 6.1.53..6.2", r->id, w);
                        goto bad;
                }
                n = reallocarray(r->kernels, r->n_kernels + 1, sizeof(*n));
                if (!n)
                        goto bad;
                r->kernels = n;
                r->kernels[r->n_kernels++] = kr;
        }
        if (r->knob_id >= 0 && knob_parse_value(r->knob_id, l->text[3], &r->knob_value) < 0) {
                diag_add(d, r->file, l->line[3], "[%s]: bad value \"%s\" for %s", r->id, l->text[3], l->text[0]);
                goto bad;
        }
        r->knob = TAKE_PTR(l->text[0]);
        r->value = TAKE_PTR(l->text[3]);
        r->unless = TAKE_PTR(l->text[4]);
        r->commit = TAKE_PTR(l->text[5]);
        r->landed = TAKE_PTR(l->text[6]);
        r->source = TAKE_PTR(l->text[7]);
        r->note = TAKE_PTR(l->text[8]);
        r->backport = TAKE_PTR(l->text[9]);
        r->not_backported = TAKE_PTR(l->text[10]);
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                free(l->text[i]), l->text[i] = NULL;
        return;
bad:
        row_done(r);
        kd->n--;
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                free(l->text[i]), l->text[i] = NULL;
}

static void on_line(void *userdata, const char *file, unsigned line, const char *section, const char *key, const char *value,
                    bool continuation, Diagnostics *d) {
        Loader *l = userdata;
        KernelDefaults *kd = l->kd;
        KernelDefault *n;
        int k;

        if (!key) {
                finish_row(l, d);
                l->last_key = NULL;
                n = reallocarray(kd->rows, kd->n + 1, sizeof(*n));
                if (!n)
                        return;
                kd->rows = n;
                kd->rows[kd->n++] = (KernelDefault) { .id = strdup(section), .file = kd->file, .line = line, .knob_id = -1 };
                return;
        }
        if (kd->n == 0) {
                diag_add(d, file, line, "\"%s\" outside of a [row] section, ignored", key);
                return;
        }
        if (continuation) {
                if (l->last_key)
                        (void) str_append_word(&l->text[key_index(l->last_key)], value);
                return;
        }
        k = key_index(key);
        if (k < 0) {
                diag_add(d, file, line, "unknown key \"%s\" in [%s]", key, kd->rows[kd->n - 1].id);
                l->last_key = NULL;
                return;
        }
        if (l->text[k]) {
                diag_add(d, file, line, "%s given twice in [%s]", key, kd->rows[kd->n - 1].id);
                return;
        }
        l->last_key = keys[k];
        l->line[k] = line;
        (void) str_append_word(&l->text[k], value);
}

static bool rows_overlap(const KernelDefault *a, const KernelDefault *b) {
        if (!streq(a->knob, b->knob) || !kernel_ranges_overlap(a->kernels, a->n_kernels, b->kernels, b->n_kernels))
                return false;
        for (size_t m = 0; m < KERNEL_DEFAULTS_MAC_MAX; m++)
                if (a->mac[m] && b->mac[m])
                        return true;
        return false;
}

int kernel_defaults_load(KernelDefaults *kd, const char *path, Diagnostics *d) {
        Loader l = { .kd = kd };
        int r;

        *kd = (KernelDefaults) { .file = strdup(path) };
        if (!kd->file)
                return -ENOMEM;
        if (access(path, F_OK) < 0)
                return -errno;
        r = conf_parse_file(path, on_line, &l, d);
        finish_row(&l, d);
        if (r < 0)
                return r;
        /* One answer per knob, chip and release: two rows that both hold are a mistake in the data. */
        for (size_t i = 0; i < kd->n; i++)
                for (size_t j = i + 1; j < kd->n; j++)
                        if (rows_overlap(&kd->rows[i], &kd->rows[j]))
                                diag_add(d, kd->file, kd->rows[j].line, "[%s] overlaps [%s] (line %u): the same knob, chip and release",
                                         kd->rows[j].id, kd->rows[i].id, kd->rows[i].line);
        return 0;
}

static bool row_holds(const KernelDefault *r, const char *knob, unsigned mac, const KernelVersion *v) {
        if (mac >= KERNEL_DEFAULTS_MAC_MAX || !r->mac[mac] || (knob && !streq(r->knob, knob)))
                return false;
        for (size_t i = 0; i < r->n_kernels; i++)
                if (kernel_range_test(&r->kernels[i], v))
                        return true;
        return false;
}

/* The row that holds for a knob (by name) on a chip and release; NULL when the data has none. */
static const KernelDefault *kernel_defaults_find(const KernelDefaults *kd, const char *knob, unsigned mac, const KernelVersion *v) {
        for (size_t i = 0; kd && i < kd->n; i++)
                if (row_holds(&kd->rows[i], knob, mac, v))
                        return &kd->rows[i];
        return NULL;
}

size_t kernel_defaults_for(const KernelDefaults *kd, unsigned mac, const KernelVersion *v, const KernelDefault **ret, size_t size) {
        size_t n = 0;

        for (size_t i = 0; kd && i < kd->n && n < size; i++)
                if (row_holds(&kd->rows[i], NULL, mac, v))
                        ret[n++] = &kd->rows[i];
        return n;
}

static const char *mac_list(const bool macs[KERNEL_DEFAULTS_MAC_MAX], char *buf, size_t size) {
        size_t n = 0;

        buf[0] = '\0';
        for (unsigned m = 0; m < KERNEL_DEFAULTS_MAC_MAX && n < size; m++)
                if (macs[m])
                        n += (size_t) snprintf(buf + n, size - n, "%s%u", n ? " " : "", m);
        return buf;
}

const char *kernel_default_macs(const KernelDefault *row, char *buf, size_t size) {
        return mac_list(row->mac, buf, size);
}

const char *kernel_default_releases(const KernelDefault *row, char *buf, size_t size) {
        size_t n = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < row->n_kernels && n < size; i++) {
                char r[64];
                n += (size_t) snprintf(buf + n, size - n, "%s%s", i ? " " : "", kernel_range_to_string(&row->kernels[i], r, sizeof(r)));
        }
        return buf;
}

/*
 * The chips an entry matches, as MAC versions: every XID the kernel resolves through its table,
 * and the fast-Ethernet variants of 10ec:8136 where the entry's PCI ids allow them.
 */
static void quirk_macs(const Quirk *q, bool ret[KERNEL_DEFAULTS_MAC_MAX]) {
        bool gbit = q->match.n_pci_ids == 0, fast = q->match.n_pci_ids == 0;
        size_t n_ext;
        const ChipInfo *ext = chip_ext_table(&n_ext);

        for (size_t i = 0; i < q->match.n_pci_ids; i++) {
                bool is8136 = q->match.pci_ids[i].vendor == 0x10ec && q->match.pci_ids[i].device == 0x8136;
                fast = fast || is8136 || q->match.pci_ids[i].any_device;
                gbit = gbit || !is8136;
        }
        memset(ret, 0, KERNEL_DEFAULTS_MAC_MAX * sizeof(bool));
        for (unsigned x = 0; x <= 0xfff; x++) {
                const ChipInfo *row;
                bool hit = false;

                if (x & ~0xfcfu)
                        continue;
                for (size_t i = 0; i < q->match.n_xids && !hit; i++)
                        hit = !q->match.xids[i].extended && xid_match_test(&q->match.xids[i], (uint16_t) x);
                row = hit ? chip_row((uint16_t) x) : NULL;
                if (!row || row->extended)
                        continue;
                if (gbit)
                        ret[row->mac_version] = true;
                /* Without GMII VER_42 is the RTL8106eus (43), VER_46 the RTL8107e (48). */
                if (fast && (row->mac_version == 42 || row->mac_version == 46))
                        ret[row->mac_version == 42 ? 43 : 48] = true;
        }
        for (size_t i = 0; i < q->match.n_xids; i++)
                for (size_t e = 0; q->match.xids[i].extended && e < n_ext; e++)
                        if (!((ext[e].val ^ q->match.xids[i].value) & q->match.xids[i].mask & ext[e].mask))
                                ret[ext[e].mac_version] = true;
}

/* At release v the kernel must do what the entry asks, wherever the data knows it. */
static void check_at(const KernelDefaults *kd, const Quirk *q, const bool macs[KERNEL_DEFAULTS_MAC_MAX], const KernelVersion *v,
                     const char *why, Diagnostics *d) {
        char rel[24];

        for (int k = 0; k < _KNOB_MAX; k++) {
                if (!q->set[k])
                        continue;
                for (unsigned m = 0; m < KERNEL_DEFAULTS_MAC_MAX; m++) {
                        const KernelDefault *row = macs[m] ? kernel_defaults_find(kd, knob_get(k)->name, m, v) : NULL;
                        char want[KNOB_VALUE_MAX];

                        if (!row || row->knob_value == q->value[k])
                                continue;
                        diag_add(d, q->file, q->line,
                                 "[%s] has confidence kernel, but where its %s (%s) r8169 leaves %s = %s on "
                                 "RTL_GIGA_MAC_VER_%u, not %s (%s:%u [%s]): name the release that does it, or lower the tier",
                                 q->id, why, kernel_version_to_string(v, rel, sizeof(rel)), row->knob, row->value, m,
                                 knob_format_value(k, q->value[k], want, sizeof(want)), row->file, row->line, row->id);
                        break; /* one message per knob */
                }
        }
}

static bool row_same_default(const KernelDefault *a, const KernelDefault *b) {
        return streq(a->value, b->value) && streq_ptr(a->unless, b->unless);
}

/*
 * kernel-default-since: the kernel does what the entry asks at that release and at every later
 * change the data knows, except where the entry's own ranges apply it anyway (plan shows those
 * releases as the kernel's doing, so it must be true on each).
 */
static void check_since(const KernelDefaults *kd, const Quirk *q, const bool macs[KERNEL_DEFAULTS_MAC_MAX], Diagnostics *d) {
        const char *why = "kernel-default-since says it does it";

        check_at(kd, q, macs, &q->kernel_default_since, why, d);
        for (size_t i = 0; i < kd->n; i++)
                for (size_t r = 0; r < kd->rows[i].n_kernels; r++) {
                        const KernelVersion *from = &kd->rows[i].kernels[r].from;
                        bool own = false;

                        if (!from->known || kernel_version_compare(from, &q->kernel_default_since) <= 0)
                                continue;
                        for (size_t j = 0; j < q->match.n_kernels && !own; j++)
                                own = kernel_range_test(&q->match.kernels[j], from);
                        if (!own)
                                check_at(kd, q, macs, from, why, d);
                }
}

/*
 * The chips on which a row changes what r8169 does at one of its start releases after 6.1 (the
 * row before it held something else there); false when it changes nothing after 6.1. *at is
 * the first such release.
 */
#define ROW_RANGES_MAX 16

static bool row_changes(const KernelDefaults *kd, const KernelDefault *row, bool macs[KERNEL_DEFAULTS_MAC_MAX], KernelVersion *at,
                        bool starts[ROW_RANGES_MAX]) {
        const KernelVersion v61 = { 6, 1, 0, true };
        bool any = false;

        memset(macs, 0, KERNEL_DEFAULTS_MAC_MAX * sizeof(bool));
        memset(starts, 0, ROW_RANGES_MAX * sizeof(bool));
        for (size_t i = 0; i < row->n_kernels && i < ROW_RANGES_MAX; i++) {
                const KernelVersion *from = &row->kernels[i].from;
                KernelVersion before;

                if (!from->known || kernel_version_compare(from, &v61) <= 0)
                        continue;
                before = kernel_version_before(from);
                for (unsigned m = 0; m < KERNEL_DEFAULTS_MAC_MAX; m++) {
                        const KernelDefault *was = row->mac[m] ? kernel_defaults_find(kd, row->knob, m, &before) : NULL;
                        if (!was || row_same_default(was, row))
                                continue;
                        if (!any || kernel_version_compare(from, at) < 0)
                                *at = *from;
                        macs[m] = any = starts[i] = true;
                }
        }
        return any;
}

/* Does entry q do on the releases before what row does from one of the starts where it changes
 * something (starts[], from row_changes())? NULL, or why not. */
static const char *backport_fault(const KernelDefault *row, const Quirk *q, const bool starts[ROW_RANGES_MAX]) {
        if (q->confidence != CONFIDENCE_KERNEL)
                return "its confidence is not kernel";
        if (row->knob_id < 0 || !q->set[row->knob_id] || q->value[row->knob_id] != row->knob_value)
                return "it does not set this knob to this value";
        for (size_t i = 0; i < row->n_kernels && i < ROW_RANGES_MAX; i++) {
                const KernelVersion *from = &row->kernels[i].from;
                if (!starts[i])
                        continue;
                if (q->kernel_default_since.known && kernel_version_compare(&q->kernel_default_since, from) == 0)
                        return NULL;
                for (size_t r = 0; r < q->match.n_kernels; r++)
                        if (q->match.kernels[r].to.known && kernel_version_compare(&q->match.kernels[r].to, from) == 0)
                                return NULL;
        }
        return "none of its ranges ends, nor its kernel-default-since starts, where this row changes the default";
}

/*
 * Back-ports as a rule: every row that changes what r8169 does after 6.1 names the entries
 * that do it on the releases before (same knob and value, a range that ends, or a
 * kernel-default-since that starts, where the row starts, together on every chip the row
 * changes), or the r8169-tuned-problems(7) paragraph that says why not, or both.
 */
static void lint_backports(const KernelDefaults *kd, const QuirkDb *db, const KernelDefault *row, Diagnostics *d) {
        bool changed[KERNEL_DEFAULTS_MAC_MAX], covered[KERNEL_DEFAULTS_MAC_MAX] = {}, starts[ROW_RANGES_MAX];
        KernelVersion at = {};
        char rel[24], list[400], *save = NULL;
        _cleanup_free_ char *ids = row->backport ? strdup(row->backport) : NULL;
        bool any_left = false;

        if (!row_changes(kd, row, changed, &at, starts)) {
                if (row->backport || row->not_backported)
                        diag_add(d, row->file, row->line, "[%s] changes nothing after 6.1, so it needs no backport or not-backported",
                                 row->id);
                return;
        }
        for (char *id = ids ? strtok_r(ids, " \t", &save) : NULL; id; id = strtok_r(NULL, " \t", &save)) {
                const Quirk *q = quirk_db_find(db, id);
                bool macs[KERNEL_DEFAULTS_MAC_MAX];
                const char *fault = q ? backport_fault(row, q, starts) : "no entry has that id";

                if (fault) {
                        diag_add(d, row->file, row->line, "[%s]: backport names [%s], but %s", row->id, id, fault);
                        continue;
                }
                quirk_macs(q, macs);
                for (unsigned m = 0; m < KERNEL_DEFAULTS_MAC_MAX; m++)
                        covered[m] = covered[m] || macs[m];
        }
        for (unsigned m = 0; m < KERNEL_DEFAULTS_MAC_MAX; m++) {
                changed[m] = changed[m] && !covered[m];
                any_left = any_left || changed[m];
        }
        if (any_left && !row->not_backported)
                diag_add(d, row->file, row->line,
                         "[%s] changes %s from %s on RTL_GIGA_MAC_VER %s, and no entry does it before: name one in backport, "
                         "or the r8169-tuned-problems(7) paragraph that says why not in not-backported",
                         row->id, row->knob, kernel_version_to_string(&at, rel, sizeof(rel)), mac_list(changed, list, sizeof(list)));
}

void kernel_defaults_lint_quirks(const KernelDefaults *kd, const QuirkDb *db, Diagnostics *d) {
        for (size_t i = 0; kd && i < kd->n; i++)
                lint_backports(kd, db, &kd->rows[i], d);
        for (size_t i = 0; kd && i < db->n; i++) {
                const Quirk *q = &db->quirks[i];
                bool macs[KERNEL_DEFAULTS_MAC_MAX];

                if (q->confidence != CONFIDENCE_KERNEL)
                        continue;
                quirk_macs(q, macs);
                for (size_t r = 0; r < q->match.n_kernels; r++)
                        if (q->match.kernels[r].to.known)
                                check_at(kd, q, macs, &q->match.kernels[r].to, "range ends", d);
                if (q->kernel_default_since.known)
                        check_since(kd, q, macs, d);
        }
}
