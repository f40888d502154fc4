/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "confparse.h"
#include "knob.h"
#include "machine.h"
#include "nic.h"

/* An XID match as the kernel's chip table writes it: value/mask. */
typedef struct XidMatch {
        uint16_t value, mask;
        bool kernel_row; /* value/mask is a row of the kernel's chip table (set by xid_match_parse) */
} XidMatch;

int xid_match_parse(const char *s, XidMatch *ret);
/*
 * Whether a NIC's XID falls under value/mask as the kernel would decide: a
 * value/mask that is a row of the kernel's table matches exactly the XIDs the
 * kernel resolves to that row (first match: 3c0/7c8 is RTL_GIGA_MAC_VER_22
 * only, not the 8168c variants above it); any other value/mask matches bitwise.
 */
bool xid_match_test(const XidMatch *m, uint16_t xid);

typedef struct IdMatch {
        uint16_t vendor, device;
        bool any_device;
} IdMatch;

typedef struct Quirk {
        char *id;
        const char *file;   /* owned by the database */
        unsigned line;
        XidMatch *xids;
        size_t n_xids;
        IdMatch *pci_ids;   /* optional: vendor:device */
        size_t n_pci_ids;
        IdMatch *subsystems; /* optional: vendor:device or vendor:* */
        size_t n_subsystems;
        char *dmi[_DMI_FIELD_MAX]; /* optional globs */
        bool profiles[_PROFILE_MAX];
        bool set[_KNOB_MAX];
        uint64_t value[_KNOB_MAX];
        bool skip[_KNOB_MAX]; /* never planned for matching NICs (driver refuses it) */
        char *reason;
        char *reference;
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
void quirk_db_done(QuirkDb *db);
/* Checks the database as a whole: duplicate ids, overlapping entries that contradict each other. */
void quirk_db_lint(const QuirkDb *db, Diagnostics *d);

bool quirk_matches(const Quirk *q, const Nic *n, const Machine *m);
