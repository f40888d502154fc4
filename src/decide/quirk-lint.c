/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The database checked as a whole (check-config, and each load): two entries with one id, and
 * entries that can match one NIC and set one knob to different values.
 */
#include <fnmatch.h>
#include <string.h>

#include "decide/quirk-lint.h"

static bool id_lists_overlap(const IdMatch *a, size_t na, const IdMatch *b, size_t nb) {
        if (na == 0 || nb == 0)
                return true;
        for (size_t i = 0; i < na; i++)
                for (size_t j = 0; j < nb; j++)
                        if (a[i].vendor == b[j].vendor &&
                            (a[i].any_device || b[j].any_device || a[i].device == b[j].device))
                                return true;
        return false;
}

/* The XIDs (12 bits) a quirk matches, as a bitmap: the lint compares every pair of entries. */
typedef struct XidSet {
        uint64_t w[64];
} XidSet;

static void xid_set_of(const Quirk *q, XidSet *ret) {
        *ret = (XidSet) {};
        for (unsigned x = 0; x <= 0xfff; x++) {
                if (x & ~0xfcfu)
                        continue; /* TxConfig bits 25:24 are never part of an XID */
                for (size_t i = 0; i < q->match.n_xids; i++)
                        if (xid_match_test(&q->match.xids[i], (uint16_t) x)) {
                                ret->w[x / 64] |= 1ull << (x % 64);
                                break;
                        }
        }
}

static bool xids_overlap(const XidSet *a, const XidSet *b, uint16_t *example) {
        for (unsigned i = 0; i < ELEMENTSOF(a->w); i++)
                if (a->w[i] & b->w[i]) {
                        *example = (uint16_t) (i * 64 + (unsigned) __builtin_ctzll(a->w[i] & b->w[i]));
                        return true;
                }
        return false;
}

/* Whether the two entries' extended-id matches can name one chip; an example id when they can. */
static bool ext_overlap(const Quirk *a, const XidSet *sa, const Quirk *b, const XidSet *sb, uint32_t *example) {
        for (size_t i = 0; i < a->match.n_xids; i++)
                for (size_t j = 0; j < b->match.n_xids; j++) {
                        const XidMatch *x = &a->match.xids[i], *y = &b->match.xids[j];
                        if (x->extended && y->extended && !((x->value ^ y->value) & x->mask & y->mask)) {
                                *example = x->value | y->value;
                                return true;
                        }
                }
        /* A plain match of the extended row's XID takes in every extended chip. */
        for (int pass = 0; pass < 2; pass++) {
                const Quirk *e = pass ? a : b;
                const XidSet *qs = pass ? sb : sa;
                if (!(qs->w[CHIP_XID_EXTENDED_ROW / 64] & 1ull << (CHIP_XID_EXTENDED_ROW % 64)))
                        continue;
                for (size_t i = 0; i < e->match.n_xids; i++)
                        if (e->match.xids[i].extended) {
                                *example = e->match.xids[i].value;
                                return true;
                        }
        }
        return false;
}

static bool has_glob(const char *s) { return strpbrk(s, "*?[") != NULL; }

static bool drivers_overlap(const NicMatch *a, const NicMatch *b) {
        for (size_t i = 0; i < a->n_drivers; i++)
                for (size_t j = 0; j < b->n_drivers; j++)
                        if (streq(a->drivers[i], b->drivers[j]))
                                return true;
        return a->n_drivers == 0 || b->n_drivers == 0;
}

static bool scopes_overlap(const Quirk *a, const Quirk *b) {
        bool profile = false;

        for (int p = 0; p < _PROFILE_MAX; p++)
                profile = profile || (a->profiles[p] && b->profiles[p]);
        if (!profile || !drivers_overlap(&a->match, &b->match) ||
            !kernel_ranges_overlap(a->match.kernels, a->match.n_kernels, b->match.kernels, b->match.n_kernels))
                return false;
        if (!id_lists_overlap(a->match.pci_ids, a->match.n_pci_ids, b->match.pci_ids, b->match.n_pci_ids) ||
            !id_lists_overlap(a->match.subsystems, a->match.n_subsystems, b->match.subsystems, b->match.n_subsystems))
                return false;
        /* Two different literal DMI strings can never both match; globs might. */
        for (int f = 0; f < _DMI_FIELD_MAX; f++)
                if (a->match.dmi[f] && b->match.dmi[f] && !has_glob(a->match.dmi[f]) && !has_glob(b->match.dmi[f]) &&
                    !streq(a->match.dmi[f], b->match.dmi[f]))
                        return false;
        return true;
}

void quirk_db_lint(const QuirkDb *db, Diagnostics *d) {
        _cleanup_free_ XidSet *sets = calloc(db->n + 1, sizeof(XidSet));

        if (!sets)
                return;
        for (size_t i = 0; i < db->n; i++)
                xid_set_of(&db->quirks[i], &sets[i]);
        for (size_t i = 0; i < db->n; i++)
                for (size_t j = i + 1; j < db->n; j++) {
                        const Quirk *a = &db->quirks[i], *b = &db->quirks[j];
                        char where[32];
                        uint32_t x2;
                        uint16_t x;

                        if (streq(a->id, b->id)) {
                                diag_add(d, b->file, b->line, "duplicate quirk id \"%s\" (first at %s:%u)", b->id, a->file, a->line);
                                continue;
                        }
                        if (!scopes_overlap(a, b))
                                continue;
                        if (xids_overlap(&sets[i], &sets[j], &x))
                                snprintf(where, sizeof(where), "XID %03x", x);
                        else if (ext_overlap(a, &sets[i], b, &sets[j], &x2))
                                snprintf(where, sizeof(where), "extXID %x", x2);
                        else
                                continue;
                        for (int k = 0; k < _KNOB_MAX; k++) {
                                char va[KNOB_VALUE_MAX], vb[KNOB_VALUE_MAX];
                                bool clash = (a->set[k] && b->set[k] && a->value[k] != b->value[k]) ||
                                             (a->set[k] && b->skip[k]) || (a->skip[k] && b->set[k]);
                                if (!clash)
                                        continue;
                                diag_add(d, b->file, b->line,
                                         "[%s] contradicts [%s] (%s:%u) on %s: %s vs %s, both match %s",
                                         b->id, a->id, a->file, a->line, knob_get(k)->name,
                                         b->skip[k] ? "skip" : knob_format_value(k, b->value[k], vb, sizeof(vb)),
                                         a->skip[k] ? "skip" : knob_format_value(k, a->value[k], va, sizeof(va)), where);
                        }
                }
}
