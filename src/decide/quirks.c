/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fnmatch.h>
#include <limits.h>
#include <ctype.h>

#include "decide/keys.h"
#include "decide/quirks.h"

bool quirk_matches(const Quirk *q, const Nic *n, const Machine *m) {
        return n->xid != CHIP_XID_INVALID && match_test(&q->match, n, m);
}

bool quirk_taken_over(const Quirk *q, const Nic *n, const Machine *m) {
        Machine before;

        if (q->confidence != CONFIDENCE_KERNEL || q->match.n_kernels == 0 || !q->kernel_default_since.known || !m ||
            !m->kernel.known || kernel_version_compare(&m->kernel, &q->kernel_default_since) < 0 || quirk_matches(q, n, m))
                return false;
        before = *m;
        before.kernel = kernel_version_before(&q->kernel_default_since);
        return quirk_matches(q, n, &before);
}

static const char *const confidence_names[_CONFIDENCE_MAX] = {
        [CONFIDENCE_KERNEL] = "kernel",
        [CONFIDENCE_MEASURED] = "measured",
        [CONFIDENCE_REPORTED] = "reported",
};

const char *confidence_to_string(QuirkConfidence c) {
        return c >= 0 && c < _CONFIDENCE_MAX ? confidence_names[c] : NULL;
}

static QuirkConfidence confidence_from_string(const char *s) {
        return (QuirkConfidence) string_table_lookup(confidence_names, _CONFIDENCE_MAX, s);
}

static const char *const doubt_names[_DOUBT_MAX] = {
        [DOUBT_NO_NUMBERS] = "no-numbers",
        [DOUBT_CONTRADICTED] = "contradicted",
        [DOUBT_UNMEASURED] = "unmeasured",
};

static const char *const doubt_labels[_DOUBT_MAX] = {
        [DOUBT_NO_NUMBERS] = "reports without numbers",
        [DOUBT_CONTRADICTED] = "measurements disagree",
        [DOUBT_UNMEASURED] = "not measured on this chip",
};

const char *doubt_to_string(QuirkDoubt d) {
        return d >= 0 && d < _DOUBT_MAX ? doubt_names[d] : NULL;
}

static QuirkDoubt doubt_from_string(const char *s) {
        return (QuirkDoubt) string_table_lookup(doubt_names, _DOUBT_MAX, s);
}

const char *doubt_label(QuirkDoubt d) {
        return d >= 0 && d < _DOUBT_MAX ? doubt_labels[d] : "a suggestion";
}

const char *quirk_experiment_line(const Quirk *q, const char *name, char *buf, size_t size) {
        size_t n = 0;
        bool first = true;

        buf[0] = '\0';
        for (int k = 0; k < _KNOB_MAX && n < size; k++) {
                char v[KNOB_VALUE_MAX];
                if (!q->set[k])
                        continue;
                if (first)
                        n += (size_t) snprintf(buf + n, size - n, "r8169-tuned experiment %s --server HOST --knob ", name);
                if (n < size)
                        n += (size_t) snprintf(buf + n, size - n, "%s%s=%s", first ? "" : ",", knob_get(k)->name,
                                               knob_format_value(k, q->value[k], v, sizeof(v)));
                first = false;
        }
        return buf;
}

static void quirk_done(Quirk *q) {
        free(q->id);
        match_done(&q->match);
        free(q->reason);
        free(q->reference);
        free(q->evidence);
        free(q->counter_evidence);
}

bool quirk_is_throughput_fix(const Quirk *q) {
        return q->profiles[PROFILE_PERFORMANCE] && !q->profiles[PROFILE_POWERSAVE];
}

const Quirk *quirk_db_find(const QuirkDb *db, const char *id) {
        for (size_t i = 0; db && i < db->n; i++)
                if (streq(db->quirks[i].id, id))
                        return &db->quirks[i];
        return NULL;
}

void quirk_db_done(QuirkDb *db) {
        for (size_t i = 0; i < db->n; i++)
                quirk_done(&db->quirks[i]);
        free(db->quirks);
        strv_free(db->files, db->n_files);
        strv_free(db->left_out, db->n_left_out);
        *db = (QuirkDb) {};
}

typedef struct QuirkKey QuirkKey;

typedef struct Loader {
        QuirkDb *db;
        ssize_t current;          /* index of the quirk whose section we are in, -1 if none */
        ssize_t current_prev;     /* the last entry of this file so far, -1 if none */
        size_t first_of_file;     /* quirks before this index come from earlier files */
        const QuirkKey *last_key; /* the key an indented line continues, NULL: none may */
        const char *last_match;   /* or the match-* list one continues (its canonical key) */
        SeenKeys seen;
} Loader;

static bool is_valid_id(const char *s) {
        if (!*s || strlen(s) > 64)
                return false;
        for (; *s; s++)
                if (!(isalnum((unsigned char) *s) || *s == '-' || *s == '_' || *s == '.'))
                        return false;
        return true;
}

/* Splits a whitespace-separated list, calling f on each word; returns the number of words or -error. */
static int for_each_word(const char *value, int (*f)(const char *w, void *u), void *u) {
        _cleanup_free_ char *copy = strdup(value);
        char *save = NULL;
        int n = 0, r;

        if (!copy)
                return -ENOMEM;
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save), n++) {
                r = f(w, u);
                if (r < 0)
                        return r;
        }
        return n;
}

typedef struct WordCtx {
        Quirk *q;
        const char *bad;
        char badbuf[64];
} WordCtx;

static int bad_word(WordCtx *c, const char *w, int r) {
        snprintf(c->badbuf, sizeof(c->badbuf), "%s", w);
        c->bad = c->badbuf;
        return r;
}

static int add_profile(const char *w, void *u) {
        WordCtx *c = u;
        Profile p = profile_from_string(w);

        if (p < 0 || p == PROFILE_BALANCED || p == PROFILE_AUTO)
                return bad_word(c, w, -EINVAL);
        c->q->profiles[p] = true;
        return 0;
}

static int add_skip(const char *w, void *u) {
        WordCtx *c = u;
        KnobId k = knob_from_name(w);

        if (k < 0)
                return bad_word(c, w, -EINVAL);
        c->q->skip[k] = true;
        return 0;
}

static int check_reference(const char *w, void *u) {
        WordCtx *c = u;
        if (strncmp(w, "https://", 8) != 0 && strncmp(w, "http://", 7) != 0)
                return bad_word(c, w, -EINVAL);
        return 0;
}

/* A key's parser: the value (or an indented line that continues it) is checked and stored, or a complaint is added. */
typedef void (*quirk_parser)(Quirk *q, const QuirkKey *k, const char *file, unsigned line, const char *value, Diagnostics *d);

struct QuirkKey {
        const char *name;
        quirk_parser parse;
        size_t offset;  /* of the text it keeps in Quirk, for the text keys */
        bool continues; /* indented lines continue it */
};

static void parse_profiles(Quirk *q, const QuirkKey *k, const char *file, unsigned line, const char *value, Diagnostics *d) {
        WordCtx wc = { .q = q };
        if (for_each_word(value, add_profile, &wc) < 0)
                diag_add(d, file, line, "bad profile \"%s\": a quirk belongs to performance and/or powersave "
                         "(balanced picks one of them)", wc.bad ?: value);
}

static void parse_skip(Quirk *q, const QuirkKey *k, const char *file, unsigned line, const char *value, Diagnostics *d) {
        WordCtx wc = { .q = q };
        if (for_each_word(value, add_skip, &wc) < 0)
                diag_add(d, file, line, "bad skip \"%s\": not a knob", wc.bad ?: value);
}

static void parse_text(Quirk *q, const QuirkKey *k, const char *file, unsigned line, const char *value, Diagnostics *d) {
        (void) str_append_word((char **) ((char *) q + k->offset), value);
}

static void parse_reference(Quirk *q, const QuirkKey *k, const char *file, unsigned line, const char *value, Diagnostics *d) {
        WordCtx wc = { .q = q };
        if (for_each_word(value, check_reference, &wc) < 0)
                diag_add(d, file, line, "reference \"%s\" is not an http(s) URL", wc.bad ?: value);
        else
                parse_text(q, k, file, line, value, d);
}

static void parse_kernel_default_since(Quirk *q, const QuirkKey *k, const char *file, unsigned line, const char *value,
                                       Diagnostics *d) {
        if (kernel_version_parse_strict(value, &q->kernel_default_since) < 0)
                diag_add(d, file, line, "bad kernel-default-since \"%s\": expected a kernel release like 6.2", value);
}

static void parse_link_power(Quirk *q, const QuirkKey *k, const char *file, unsigned line, const char *value, Diagnostics *d) {
        /* Only a way to keep dynamic link power away from a chip: L1 unsafe there. */
        if (streq(value, "static"))
                q->link_power_static = true;
        else
                diag_add(d, file, line, "bad link-power \"%s\": a quirk can only keep a chip static", value);
}

static void parse_confidence(Quirk *q, const QuirkKey *k, const char *file, unsigned line, const char *value, Diagnostics *d) {
        QuirkConfidence c = confidence_from_string(value);
        const char *guess = c < 0 ? closest_word(value, confidence_names, _CONFIDENCE_MAX) : NULL;

        if (c < 0)
                diag_add(d, file, line, "bad confidence \"%s\": expected kernel (a later kernel does this by default), "
                         "measured (numbers before and after) or reported (a suggestion)%s%s%s", value,
                         guess ? "; did you mean \"" : "", guess ?: "", guess ? "\"?" : "");
        /* Said, if wrongly: one message for one mistake, not a second that it is missing (ux-findings L8). */
        q->confidence = c < 0 ? _CONFIDENCE_MAX : c;
}

static void parse_reported_because(Quirk *q, const QuirkKey *k, const char *file, unsigned line, const char *value,
                                   Diagnostics *d) {
        QuirkDoubt why = doubt_from_string(value);

        if (why < 0)
                diag_add(d, file, line, "bad reported-because \"%s\": expected no-numbers (reports without numbers), "
                         "contradicted (a measurement another disagrees with) or unmeasured (never measured on this chip)",
                         value);
        /* Said, if wrongly: no second message that it is missing. */
        q->reported_because = why < 0 ? _DOUBT_MAX : why;
}

static void parse_guard(Quirk *q, const QuirkKey *k, const char *file, unsigned line, const char *value, Diagnostics *d) {
        if (streq(value, "tx-timeout"))
                q->guard_tx_timeout = true;
        else
                diag_add(d, file, line, "bad guard \"%s\": the one guard is tx-timeout", value);
}

/* An entry's own keys, as config.c keeps the configuration's; knob and match-* keys come from their tables. */
static const QuirkKey quirk_keys[] = {
        { "profiles", parse_profiles, 0, false },
        { "skip", parse_skip, 0, false },
        { "kernel-default-since", parse_kernel_default_since, 0, false },
        { "link-power", parse_link_power, 0, false },
        { "confidence", parse_confidence, 0, false },
        { "reported-because", parse_reported_because, 0, false },
        { "guard", parse_guard, 0, false },
        { "reason", parse_text, offsetof(Quirk, reason), true },
        { "evidence", parse_text, offsetof(Quirk, evidence), true },
        { "counter-evidence", parse_text, offsetof(Quirk, counter_evidence), true },
        { "reference", parse_reference, offsetof(Quirk, reference), true },
};

static const QuirkKey *quirk_key(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(quirk_keys); i++)
                if (streq(name, quirk_keys[i].name))
                        return &quirk_keys[i];
        return NULL;
}

/* [id]: a new entry, or none when the id is refused (its lines are then ignored, said once). */
static void on_quirk_section(Loader *l, const char *file, unsigned line, const char *section, Diagnostics *d) {
        QuirkDb *db = l->db;
        Quirk *nq;

        l->current = -1;
        l->last_key = NULL;
        l->last_match = NULL;
        keys_reset(&l->seen);
        /* The entry before it in this file ends on the line before. */
        if (l->current_prev >= 0)
                db->quirks[l->current_prev].end_line = line - 1;
        l->current_prev = -1;
        if (!is_valid_id(section)) {
                diag_add(d, file, line, "quirk id \"%s\" must be letters, digits, '-', '_' or '.', entry ignored", section);
                return;
        }
        if (db->n >= CONF_MAX_SECTIONS) {
                if (!db->too_many)
                        diag_add(d, file, line, "more than %d quirk entries: this one and those after it are ignored",
                                 CONF_MAX_SECTIONS);
                db->too_many = true;
                return;
        }
        nq = reallocarray(db->quirks, db->n + 1, sizeof(Quirk));
        if (!nq)
                return;
        db->quirks = nq;
        db->quirks[db->n] = (Quirk) { .id = strdup(section), .file = db->files[db->n_files - 1], .line = line,
                                      .end_line = UINT_MAX, .confidence = _CONFIDENCE_INVALID,
                                      .reported_because = _DOUBT_INVALID };
        l->current_prev = (ssize_t) db->n;
        l->current = (ssize_t) db->n++;
}

static void on_quirk_line(void *userdata, const char *file, unsigned line, const char *section, const char *key,
                          const char *value, bool continuation, Diagnostics *d) {
        Loader *l = userdata;
        const QuirkKey *qk;
        KnobId k;
        Quirk *q;

        if (!key) {
                on_quirk_section(l, file, line, section, d);
                return;
        }
        if (l->current < 0) {
                if (!section[0])
                        diag_add(d, file, line, "\"%s\" outside of a [quirk-id] section, ignored", key);
                return; /* inside a refused section: already reported */
        }
        q = &l->db->quirks[l->current];
        if (continuation) {
                char err[256];
                if (l->last_key)
                        l->last_key->parse(q, l->last_key, file, line, value, d);
                else if (!l->last_match)
                        diag_add(d, file, line, "only reason, evidence, counter-evidence, reference and match-* lists may "
                                 "continue on the next line");
                else if (match_parse(&q->match, l->last_match, value, err, sizeof(err)) < 0)
                        diag_add(d, file, line, "%s", err);
                return;
        }
        l->last_key = NULL;
        l->last_match = NULL;
        k = knob_from_name(key);
        if (k >= 0) {
                if (!keys_repeated(&l->seen, d, file, line, key, q->id) &&
                    keys_knob_value(d, file, line, k, key, value, &q->value[k]) >= 0)
                        q->set[k] = true;
                return;
        }
        if (match_key_canonical(key)) {
                char err[256];
                int r;
                if (keys_repeated(&l->seen, d, file, line, match_key_canonical(key), q->id))
                        return;
                r = match_parse(&q->match, key, value, err, sizeof(err));
                if (r < 0)
                        diag_add(d, file, line, "%s", r == -ENOMEM ? strerror(ENOMEM) : err);
                else if (match_key_is_list(key))
                        l->last_match = match_key_canonical(key);
                return;
        }
        qk = quirk_key(key);
        if (!qk) {
                const char *own[ELEMENTSOF(quirk_keys)];
                for (size_t i = 0; i < ELEMENTSOF(quirk_keys); i++)
                        own[i] = quirk_keys[i].name;
                keys_unknown(d, file, line, key, q->id, own, ELEMENTSOF(own), true);
                return;
        }
        if (keys_repeated(&l->seen, d, file, line, key, q->id))
                return;
        if (qk->continues)
                l->last_key = qk;
        qk->parse(q, qk, file, line, value, d);
}

/* The drivers an entry may name: r8169 and Realtek's own out-of-tree ones (r8168, r8125, r8126, r8101). */
static const char *const known_drivers[] = { "r8169", "r8168", "r8125", "r8126", "r8101" };

/* The tier: said, and with what its tier needs; a guard only where it can act. */
static void quirk_check_confidence(const Quirk *q, Diagnostics *d) {
        bool any_set = false, bounded = q->match.n_kernels > 0;

        for (int k = 0; k < _KNOB_MAX; k++)
                any_set = any_set || q->set[k];
        for (size_t i = 0; i < q->match.n_kernels; i++)
                bounded = bounded && q->match.kernels[i].to.known;
        if (q->confidence < 0)
                diag_add(d, q->file, q->line, "[%s] has no confidence: say kernel, measured or reported", q->id);
        else if (q->confidence == CONFIDENCE_KERNEL && !bounded && !q->kernel_default_since.known)
                diag_add(d, q->file, q->line,
                         "[%s] has confidence kernel but no release where the kernel took it over: give match-kernel "
                         "ranges that end there, or kernel-default-since", q->id);
        else if (q->confidence == CONFIDENCE_MEASURED && (!q->evidence || !*q->evidence))
                diag_add(d, q->file, q->line, "[%s] has confidence measured but no evidence: say who measured what, "
                         "on which machine, with which numbers", q->id);
        else if (q->confidence == CONFIDENCE_REPORTED && !any_set)
                diag_add(d, q->file, q->line, "[%s] is a suggestion (confidence reported) with no knob an experiment "
                         "could measure", q->id);
        /* A reported entry that does not say why (a local file written before reported-because) is kept,
         * shown as "a suggestion"; every shipped one says why (test-plan checks it). */
        if (q->confidence >= 0 && q->confidence < _CONFIDENCE_MAX && q->confidence != CONFIDENCE_REPORTED &&
            q->reported_because >= 0 && q->reported_because < _DOUBT_MAX)
                diag_add(d, q->file, q->line, "[%s] has reported-because but confidence %s: it says why a reported entry "
                         "is only a suggestion", q->id, confidence_to_string(q->confidence));
        if (!q->guard_tx_timeout)
                return;
        /*
         * The guard takes back an entry that turns on what the kernel may keep off for safety: an
         * on/off knob turned on. A number (coalescing, deferral) is no such switch; a value turned
         * off beside one turned on (L1.2 off with L1 on) goes back with it.
         */
        bool turns_on = false;
        for (int k = 0; k < _KNOB_MAX; k++) {
                if (!q->set[k])
                        continue;
                if (knob_get(k)->type != KNOB_TYPE_BOOL)
                        diag_add(d, q->file, q->line, "[%s] has guard = tx-timeout, which takes back switches turned on: "
                                 "%s is a number and cannot be guarded", q->id, knob_get(k)->name);
                turns_on = turns_on || (knob_get(k)->type == KNOB_TYPE_BOOL && q->value[k] != 0);
        }
        if (!turns_on)
                diag_add(d, q->file, q->line, "[%s] has guard = tx-timeout but turns nothing on: the guard takes back "
                         "what an entry turns on", q->id);
}

/* What an entry must have, checked once its section is complete. */
static void quirk_check(Quirk *q, Diagnostics *d) {
        bool any_knob = false, any_profile = false;

        for (int k = 0; k < _KNOB_MAX; k++)
                any_knob = any_knob || q->set[k] || q->skip[k];
        any_knob = any_knob || q->link_power_static;
        for (int p = 0; p < _PROFILE_MAX; p++)
                any_profile = any_profile || q->profiles[p];
        if (q->match.n_xids == 0)
                diag_add(d, q->file, q->line, "[%s] has no xid to match (match-xid)", q->id);
        if (!any_profile)
                diag_add(d, q->file, q->line, "[%s] names no profiles", q->id);
        if (!any_knob)
                diag_add(d, q->file, q->line, "[%s] sets no knob", q->id);
        if (!q->reason || !*q->reason)
                diag_add(d, q->file, q->line, "[%s] has no reason", q->id);
        if (!q->reference || !*q->reference)
                diag_add(d, q->file, q->line, "[%s] has no reference", q->id);
        /* A fix that costs power to win speed must say who measured the win: a reason is not a measurement. */
        if (quirk_is_throughput_fix(q) && (!q->evidence || !*q->evidence))
                diag_add(d, q->file, q->line,
                         "[%s] is a throughput fix (performance only) with no evidence: say who measured what, on which "
                         "kernel, with which numbers", q->id);
        if (q->counter_evidence && (!q->evidence || !*q->evidence))
                diag_add(d, q->file, q->line, "[%s] has counter-evidence but no evidence", q->id);
        for (int k = 0; k < _KNOB_MAX; k++)
                if (q->set[k] && q->skip[k])
                        diag_add(d, q->file, q->line, "[%s] both sets and skips %s", q->id, knob_get(k)->name);
        quirk_check_confidence(q, d);
        for (size_t i = 0; i < q->match.n_drivers; i++) {
                if (string_table_lookup(known_drivers, ELEMENTSOF(known_drivers), q->match.drivers[i]) < 0)
                        diag_add(d, q->file, q->line, "[%s] names driver \"%s\", not one of r8169, r8168, r8125, r8126, r8101",
                                 q->id, q->match.drivers[i]);
        }
        /* What a fix corrects is a driver's behaviour: r8169's, unless the entry says otherwise. */
        if (q->match.n_drivers == 0)
                (void) strv_push(&q->match.drivers, &q->match.n_drivers, strdup("r8169"));
}

static void db_parse(QuirkDb *db, char **all, size_t n_all, const char *buf, size_t len, Diagnostics *d);

int quirk_db_load(QuirkDb *db, const char *const *dirs, size_t n_dirs, Diagnostics *d) {
        return quirk_db_load_except(db, dirs, n_dirs, NULL, d);
}

int quirk_db_load_except(QuirkDb *db, const char *const *dirs, size_t n_dirs, const Diagnostics *leave_out, Diagnostics *d) {
        char **all = NULL;
        size_t n_all = 0;
        int r = 0;

        *db = (QuirkDb) {};
        /* Collect by basename: a later directory's file replaces an earlier one's. */
        for (size_t i = 0; i < n_dirs; i++) {
                char **files;
                size_t n;

                r = conf_list_dir(dirs[i], &files, &n);
                if (r < 0) {
                        diag_add(d, dirs[i], 0, "cannot list: %s", strerror(-r));
                        continue;
                }
                if (r > 0)
                        diag_add(d, dirs[i], 0, "%d more files than the %d read: those after %s are left out", r,
                                 CONF_MAX_FILES, files[n - 1]);
                for (size_t j = 0; j < n; j++) {
                        const char *base = strrchr(files[j], '/') + 1;
                        size_t k;
                        for (k = 0; k < n_all; k++)
                                if (streq(strrchr(all[k], '/') + 1, base))
                                        break;
                        if (k < n_all) {
                                free(all[k]);
                                all[k] = files[j];
                        } else {
                                char **na = reallocarray(all, n_all + 1, sizeof(char *));
                                if (!na) {
                                        strv_free(files + j, n - j);
                                        free(files);
                                        strv_free(all, n_all);
                                        return -ENOMEM;
                                }
                                all = na;
                                all[n_all++] = files[j];
                        }
                }
                free(files);
        }
        /* Lexical order of the file name, wherever it lives. */
        for (size_t i = 1; i < n_all; i++)
                for (size_t j = i; j > 0 && strcmp(strrchr(all[j - 1], '/'), strrchr(all[j], '/')) > 0; j--) {
                        char *t = all[j];
                        all[j] = all[j - 1];
                        all[j - 1] = t;
                }
        db_parse(db, all, n_all, NULL, 0, d);
        /* What is left out goes after the overriding: a broken entry in /etc does not bring the shipped file back. */
        for (size_t i = 0; leave_out && i < db->n;) {
                Quirk *q = &db->quirks[i];
                char *what;

                if (!diag_names_lines(leave_out, q->file, q->line, q->end_line)) {
                        i++;
                        continue;
                }
                if (asprintf(&what, "%s:%u [%s]", q->file, q->line, q->id) >= 0)
                        (void) strv_push(&db->left_out, &db->n_left_out, what);
                quirk_done(q);
                memmove(q, q + 1, (db->n - i - 1) * sizeof(Quirk));
                db->n--;
        }
        return 0;
}

/* Parses the files (taken over) into db, in the order given; buf: the text of the only one. */
static void db_parse(QuirkDb *db, char **all, size_t n_all, const char *buf, size_t len, Diagnostics *d) {
        db->files = all;
        for (size_t i = 0; i < n_all; i++) {
                Loader l = { .db = db, .current = -1, .current_prev = -1, .first_of_file = db->n };
                db->n_files = i + 1;
                if (buf)
                        conf_parse_buffer(all[i], buf, len, on_quirk_line, &l, d);
                else
                        (void) conf_parse_file(all[i], on_quirk_line, &l, d);
                for (size_t k = l.first_of_file; k < db->n; k++)
                        quirk_check(&db->quirks[k], d);
        }
        db->n_files = n_all;
}

int quirk_db_load_files(QuirkDb *db, const char *const *files, size_t n, Diagnostics *d) {
        char **all = NULL;
        size_t n_all = 0;

        *db = (QuirkDb) {};
        for (size_t i = 0; i < n; i++)
                if (strv_push(&all, &n_all, strdup(files[i])) < 0) {
                        strv_free(all, n_all);
                        return -ENOMEM;
                }
        db_parse(db, all, n_all, NULL, 0, d);
        return 0;
}

int quirk_db_load_buffer(QuirkDb *db, const char *name, const char *buf, size_t len, Diagnostics *d) {
        char **all = NULL;
        size_t n_all = 0;

        *db = (QuirkDb) {};
        if (strv_push(&all, &n_all, strdup(name)) < 0)
                return -ENOMEM;
        db_parse(db, all, n_all, buf, len, d);
        return 0;
}
