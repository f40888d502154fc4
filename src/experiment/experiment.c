/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>

#include "experiment/experiment.h"
#include "kernel/backend.h"

static const char *const origin_names[_CANDIDATE_ORIGIN_MAX] = {
        [CANDIDATE_QUIRK] = "quirk",
        [CANDIDATE_GENERIC] = "generic",
        [CANDIDATE_ASKED] = "--knob",
};

const char *candidate_origin_to_string(CandidateOrigin o) {
        return o >= 0 && o < _CANDIDATE_ORIGIN_MAX ? origin_names[o] : NULL;
}

static const char *const verdict_names[_VERDICT_MAX] = {
        [VERDICT_HELPS] = "helps",
        [VERDICT_HURTS] = "hurts",
        [VERDICT_NO_EFFECT] = "no-effect",
        [VERDICT_CANNOT_TELL] = "cannot-tell",
};

const char *verdict_to_string(Verdict v) {
        return v >= 0 && v < _VERDICT_MAX ? verdict_names[v] : NULL;
}

/*
 * The generic list: what every seed report tried by hand, for any chip. A row is keyed on
 * one knob's current value: "on" when it reads non-zero, "off" when it reads 0 (NULL: the
 * knob is already where the row would take it). Documented in r8169-tuned(8) EXPERIMENT.
 */
static const struct {
        KnobId key;
        const char *on, *off;
} generic[] = {
        { KNOB_CLKPM, "clkpm=0", NULL },         /* 225 -> 440 Mb/s (seeds/001) */
        { KNOB_L1_ASPM, "l1_aspm=0", NULL },     /* L1 and, with it, its substates */
        { KNOB_L1_1_ASPM, "l1_1_aspm=0", NULL },
        { KNOB_L1_2_ASPM, "l1_2_aspm=0", NULL }, /* 255 -> 670 Mb/s (seeds/002) */
        { KNOB_EEE, "eee=off", NULL },
        /* TSO off (22 -> 941 Mb/s on an RTL8168c), or SG and TSO on where r8169 keeps them off (8168g). */
        { KNOB_TSO, "tso=off", "sg=on,tso=on" },
        /* r8169's software interrupt coalescing (its default since 6.2) against none. */
        { KNOB_NAPI_DEFER_HARD_IRQS, "gro_flush_timeout=0,napi_defer_hard_irqs=0",
          "gro_flush_timeout=20000,napi_defer_hard_irqs=1" },
        { KNOB_RX_USECS, "rx-usecs=0", "rx-usecs=50" },
};

void candidate_list_done(CandidateList *l) {
        free(l->v);
        *l = (CandidateList) {};
}

int candidate_parse(const char *word, Candidate *ret, char *err, size_t size) {
        _cleanup_free_ char *copy = strdup(word);
        Candidate c = { .origin = CANDIDATE_ASKED };
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(kv, '='), syntax[64];
                KnobId k;
                int r;

                if (!eq) {
                        snprintf(err, size, "\"%s\" is not KNOB=VALUE", kv);
                        return -EINVAL;
                }
                *eq = 0;
                k = knob_from_name(kv);
                if (k < 0) {
                        snprintf(err, size, "unknown knob \"%s\" (r8169-tuned knobs lists them)", kv);
                        return -EINVAL;
                }
                for (size_t i = 0; i < c.n; i++)
                        if (c.settings[i].knob == k) {
                                snprintf(err, size, "%s given twice in \"%s\"", kv, word);
                                return -EINVAL;
                        }
                if (c.n == EXPERIMENT_SETTINGS_MAX) {
                        snprintf(err, size, "more than %d knobs in \"%s\"", EXPERIMENT_SETTINGS_MAX, word);
                        return -E2BIG;
                }
                r = knob_parse_value(k, eq + 1, &c.settings[c.n].value);
                if (r < 0) {
                        snprintf(err, size, "%s takes %s, not \"%s\"", kv, knob_value_syntax(k, syntax, sizeof(syntax)), eq + 1);
                        return -EINVAL;
                }
                c.settings[c.n++].knob = k;
        }
        if (c.n == 0) {
                snprintf(err, size, "\"%s\" names no knob", word);
                return -EINVAL;
        }
        *ret = c;
        return 0;
}

const char *candidate_settings_string(const Candidate *c, char *buf, size_t size) {
        size_t n = 0;

        buf[0] = 0;
        for (size_t i = 0; i < c->n && n < size; i++) {
                char v[KNOB_VALUE_MAX];
                n += (size_t) snprintf(buf + n, size - n, "%s%s=%s", i ? "," : "", knob_get(c->settings[i].knob)->name,
                                       knob_format_value(c->settings[i].knob, c->settings[i].value, v, sizeof(v)));
        }
        return buf;
}

void candidate_check(Candidate *c, const KnobReading current[_KNOB_MAX]) {
        size_t kept = 0;

        c->skipped = NULL;
        c->link_power = false;
        for (size_t i = 0; i < c->n; i++) {
                const KnobReading *r = &current[c->settings[i].knob];

                if (r->status != KNOB_STATUS_OK && !c->skipped)
                        c->skipped = knob_status_to_string(r->status);
        }
        if (c->skipped)
                return;
        for (size_t i = 0; i < c->n; i++)
                if (!knob_reading_holds(&current[c->settings[i].knob], c->settings[i].value))
                        c->settings[kept++] = c->settings[i];
        if (kept == 0) {
                c->skipped = "already so";
                return;
        }
        c->n = kept;
        for (size_t i = 0; i < kept; i++)
                if (c->settings[i].knob == KNOB_L1_ASPM && c->settings[i].value == 0)
                        for (KnobId k = 0; k < _KNOB_MAX; k++) {
                                bool listed = false;

                                if (!knob_get(k)->l1 || k == KNOB_L1_ASPM || current[k].status != KNOB_STATUS_OK ||
                                    current[k].value == 0)
                                        continue;
                                for (size_t j = 0; j < c->n; j++)
                                        listed = listed || c->settings[j].knob == k;
                                if (!listed) /* distinct knobs: it fits */
                                        c->settings[c->n++] = (Setting) { k, 0 };
                        }
        for (size_t i = 0; i < c->n; i++) {
                const Knob *k = knob_get(c->settings[i].knob);
                if (k->backend == &knob_backends[KNOB_BACKEND_LINK] || c->settings[i].knob == KNOB_EEE)
                        c->link_power = true;
        }
}

const char *candidate_skip_reason(const Candidate *c, char *buf, size_t size) {
        if (c->blocked_by)
                snprintf(buf, size, "%s quirk %s", c->skipped, c->blocked_by->id);
        else
                snprintf(buf, size, "%s", c->skipped ?: "");
        return buf;
}

/*
 * A generic candidate that would turn on what a correctness fix in force here turns off (TSO on
 * a chip whose TSO corrupts, L1 where it times out), or on a knob a quirk says the driver
 * refuses. Turning off what such an entry turns on (software coalescing) is a question of
 * speed, and measured.
 */
static void check_against_quirks(Candidate *c, const QuirkDb *db, const Nic *n, const Machine *m) {
        for (size_t i = 0; i < db->n && !c->skipped; i++) {
                const Quirk *q = &db->quirks[i];

                if (!quirk_matches(q, n, m))
                        continue;
                for (size_t k = 0; k < c->n; k++) {
                        KnobId id = c->settings[k].knob;

                        if (q->skip[id])
                                c->skipped = "the driver refuses it, says";
                        else if (q->set[id] && q->value[id] == 0 && c->settings[k].value != 0 && !quirk_is_throughput_fix(q))
                                c->skipped = "would undo the correctness fix of";
                        else
                                continue;
                        c->blocked_by = q;
                        break;
                }
        }
}

static bool same_settings(const Candidate *a, const Candidate *b) {
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++) {
                bool found = false;
                for (size_t j = 0; j < b->n && !found; j++)
                        found = a->settings[i].knob == b->settings[j].knob && a->settings[i].value == b->settings[j].value;
                if (!found)
                        return false;
        }
        return true;
}

static int list_add(CandidateList *l, const Candidate *c) {
        Candidate *v;

        for (size_t i = 0; i < l->n; i++)
                if (!c->skipped && !l->v[i].skipped && same_settings(&l->v[i], c))
                        return 0; /* the quirk's entry (or an earlier row) measures it already */
        v = reallocarray(l->v, l->n + 1, sizeof(Candidate));
        if (!v)
                return -ENOMEM;
        l->v = v;
        l->v[l->n++] = *c;
        return 0;
}

int experiment_candidates(const QuirkDb *db, const Nic *n, const Machine *m, const KnobReading current[_KNOB_MAX],
                          CandidateList *ret) {
        CandidateList l = {};
        char err[160];
        int r = 0;

        /* The suggestions (reported entries) first: they are what a measurement here can settle. */
        for (size_t i = 0; r >= 0 && i < 2 * db->n; i++) {
                const Quirk *q = &db->quirks[i % db->n];
                NicMatch any_kernel = q->match; /* a shallow copy: only the count of kernel ranges differs */
                Candidate c = { .origin = CANDIDATE_QUIRK, .quirk = q };

                if (quirk_is_suggestion(q) != (i < db->n))
                        continue;
                any_kernel.n_kernels = 0;
                if (n->xid == CHIP_XID_INVALID || !match_test(&any_kernel, n, m))
                        continue;
                for (KnobId k = 0; k < _KNOB_MAX; k++)
                        if (q->set[k])
                                c.settings[c.n++] = (Setting) { k, q->value[k] };
                if (c.n == 0)
                        continue; /* skip = or link-power = only: nothing to measure */
                candidate_check(&c, current);
                r = list_add(&l, &c);
        }
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(generic); i++) {
                const KnobReading *key = &current[generic[i].key];
                const char *spec = key->status != KNOB_STATUS_OK || key->value != 0 ? generic[i].on : generic[i].off;
                Candidate c;

                if (!spec) {
                        /* Already where the row would take it: say so, for the table. */
                        r = candidate_parse(generic[i].on, &c, err, sizeof(err));
                        if (r < 0)
                                break;
                        c.origin = CANDIDATE_GENERIC;
                        c.skipped = "already so";
                        r = list_add(&l, &c);
                        continue;
                }
                r = candidate_parse(spec, &c, err, sizeof(err));
                if (r < 0)
                        break;
                c.origin = CANDIDATE_GENERIC;
                candidate_check(&c, current);
                if (!c.skipped)
                        check_against_quirks(&c, db, n, m);
                r = list_add(&l, &c);
        }
        if (r < 0) {
                candidate_list_done(&l);
                return r;
        }
        *ret = l;
        return 0;
}

void experiment_compare(const double *baseline, const double *candidate, size_t n, double line_mbps, Comparison *ret) {
        Comparison c = {
                .baseline = stats_median(baseline, n),
                .candidate = stats_median(candidate, n),
        };
        bool up, down, large;

        int r = stats_hodges_lehmann(baseline, n, candidate, n, 0.95, &c.change);

        if (r < 0) {
                c.verdict = VERDICT_CANNOT_TELL;
                c.why = r == -ERANGE ? "too few rounds for a 95 % interval" : "no valid measurement";
                if (r == -ERANGE)
                        c.relative = c.baseline > 0 ? c.change.estimate / c.baseline : 0;
                else
                        c.change = (Estimate) { .lo = -INFINITY, .hi = INFINITY };
                *ret = c;
                return;
        }
        c.relative = c.baseline > 0 ? c.change.estimate / c.baseline : 0;
        up = c.change.lo > 0;
        down = c.change.hi < 0;
        /* From nothing (a baseline median of 0 Mb/s), any change the interval shows is large. */
        large = c.baseline <= 0 || fabs(c.change.estimate) >= EXPERIMENT_PRACTICAL * c.baseline;
        if (down && large)
                c.verdict = VERDICT_HURTS;
        else if (up && large)
                c.verdict = VERDICT_HELPS;
        else if (line_mbps > 0 && c.baseline >= EXPERIMENT_LINE_RATE * line_mbps) {
                c.verdict = VERDICT_CANNOT_TELL;
                c.why = "at line rate already";
        } else {
                c.verdict = VERDICT_NO_EFFECT;
                c.why = up || down ? "real but below 5 %" : NULL;
        }
        *ret = c;
}
