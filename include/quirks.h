/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "confparse.h"
#include "knob.h"
#include "machine.h"
#include "match.h"
#include "nic.h"

typedef struct Quirk {
        char *id;
        const char *file;   /* owned by the database */
        unsigned line;
        NicMatch match;     /* match-xid is required; the rest optional */
        bool profiles[_PROFILE_MAX];
        bool set[_KNOB_MAX];
        uint64_t value[_KNOB_MAX];
        bool skip[_KNOB_MAX]; /* never planned for matching NICs (driver refuses it) */
        char *reason;
        char *reference;
        char *evidence;         /* who measured what, on which kernel, with which numbers */
        char *counter_evidence; /* what speaks against the fix, where known; NULL if nothing is */
        KernelVersion kernel_default_since; /* r8169 itself does what the entry asks since this release */
        bool link_power_static; /* link-power = static: L1 is unsafe to switch on this chip */
} Quirk;

typedef struct QuirkDb {
        Quirk *quirks;
        size_t n;
        char **files;
        size_t n_files;
} QuirkDb;

/*
 * Loads every *.conf of the directories, in lexical order of file name; a
 * file in a later directory replaces a same-named one in an earlier directory.
 */
int quirk_db_load(QuirkDb *db, const char *const *dirs, size_t n_dirs, Diagnostics *d);
/* The same, leaving out the files leave_out has messages about (NULL: none). */
int quirk_db_load_except(QuirkDb *db, const char *const *dirs, size_t n_dirs, const Diagnostics *leave_out, Diagnostics *d);
/* Exactly these files, in this order (check-config FILE...). */
int quirk_db_load_files(QuirkDb *db, const char *const *files, size_t n, Diagnostics *d);
void quirk_db_done(QuirkDb *db);
/* A throughput fix: in the performance profile and not in powersave (it costs power to win speed). */
bool quirk_is_throughput_fix(const Quirk *q);
/* Checks the database as a whole: duplicate ids, overlapping entries that contradict each other. */
void quirk_db_lint(const QuirkDb *db, Diagnostics *d);

/* Whether an entry applies to an identified NIC (never to one whose XID is unknown). */
bool quirk_matches(const Quirk *q, const Nic *n, const Machine *m);
