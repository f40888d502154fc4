/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/confparse.h"
#include "kernel/knob.h"

/*
 * What the configuration and the quirk files share: a section's keys are said once, a key no
 * table has gets the nearest one as a guess, a knob line's value is checked as the knob table
 * says. Both files' parsers take their complaints from here, so they read the same.
 */

#define KEYS_SEEN_MAX 64

/* The keys of the section being read, each with the line it stood on. */
typedef struct SeenKeys {
        struct {
                char key[40];
                unsigned line;
        } v[KEYS_SEEN_MAX];
        size_t n;
} SeenKeys;

static inline void keys_reset(SeenKeys *s) { s->n = 0; }
/*
 * Whether key (canonical: a match key's old spelling counts as its new one) was already
 * given in this section; if so, the complaint names both lines: "KEY given twice in
 * [SECTION] (first at line N)".
 */
bool keys_repeated(SeenKeys *s, Diagnostics *d, const char *file, unsigned line, const char *key, const char *section);
/*
 * "unknown key "K" in [SECTION]; did you mean "G"?": the guess from own (the file's own keys)
 * and, with shared, every knob and match key.
 */
void keys_unknown(Diagnostics *d, const char *file, unsigned line, const char *key, const char *section,
                  const char *const *own, size_t n_own, bool shared);
/* A knob line's value, or the complaint "bad value "V" for KEY: expected …"; -errno then. */
int keys_knob_value(Diagnostics *d, const char *file, unsigned line, KnobId k, const char *key, const char *value,
                    uint64_t *ret);
