/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "decide/keys.h"
#include "decide/match.h"

bool keys_repeated(SeenKeys *s, Diagnostics *d, const char *file, unsigned line, const char *key, const char *section) {
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->v[i].key, key)) {
                        diag_add(d, file, line, "%s given twice in [%s] (first at line %u)", key, section, s->v[i].line);
                        return true;
                }
        if (s->n < ELEMENTSOF(s->v)) {
                snprintf(s->v[s->n].key, sizeof(s->v[s->n].key), "%s", key);
                s->v[s->n++].line = line;
        }
        return false;
}

void keys_unknown(Diagnostics *d, const char *file, unsigned line, const char *key, const char *section,
                  const char *const *own, size_t n_own, bool shared) {
        const char *candidates[96], *guess;
        size_t n = 0;

        for (size_t i = 0; i < n_own && n < ELEMENTSOF(candidates); i++)
                candidates[n++] = own[i];
        if (shared) {
                for (int k = 0; k < _KNOB_MAX && n < ELEMENTSOF(candidates); k++)
                        candidates[n++] = knob_get(k)->name;
                for (size_t i = 0; i < match_key_count() && n < ELEMENTSOF(candidates); i++)
                        candidates[n++] = match_key_name(i);
        }
        guess = closest_word(key, candidates, n);
        if (guess)
                diag_add(d, file, line, "unknown key \"%s\" in [%s]; did you mean \"%s\"?", key, section, guess);
        else
                diag_add(d, file, line, "unknown key \"%s\" in [%s]", key, section);
}

int keys_knob_value(Diagnostics *d, const char *file, unsigned line, KnobId k, const char *key, const char *value,
                    uint64_t *ret) {
        char syntax[80];
        int r = knob_parse_value(k, value, ret);

        if (r < 0)
                diag_add(d, file, line, "bad value \"%s\" for %s: %s%s", value, key,
                         r == -ERANGE ? "out of range, expected " : "expected ", knob_value_syntax(k, syntax, sizeof(syntax)));
        return r;
}
