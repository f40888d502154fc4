/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/confparse.h"
#include "decide/match.h"
#include "kernel/knob.h"
#include "kernel/machine.h"
#include "kernel/nic.h"

/*
 * How sure an entry's sources make us, and so what the daemon does with it: kernel and
 * measured entries apply per profile; a reported one is a suggestion, applied only where the
 * configuration accepts suggestions (suggestions = apply) or sets the knob itself.
 */
typedef enum QuirkConfidence {
        CONFIDENCE_KERNEL,   /* a later kernel does this by default: the entry back-ports it */
        CONFIDENCE_MEASURED, /* before/after numbers on a named machine */
        CONFIDENCE_REPORTED, /* first-hand reports without numbers, or a measurement another contradicts */
        _CONFIDENCE_MAX,
        _CONFIDENCE_INVALID = -EINVAL,
} QuirkConfidence;

/* "kernel", "measured", "reported". */
const char *confidence_to_string(QuirkConfidence c);

/*
 * Why a reported entry is only a suggestion (reported-because, required with that tier): its
 * label is what plan, quirks and diagnose print beside the entry, so that an entry with strong
 * numbers that another measurement contradicts never reads "without numbers".
 */
typedef enum QuirkDoubt {
        DOUBT_NO_NUMBERS,   /* first-hand reports, no numbers */
        DOUBT_CONTRADICTED, /* a measurement, and another that disagrees */
        DOUBT_UNMEASURED,   /* measured (or only argued) elsewhere, never on this chip */
        _DOUBT_MAX,
        _DOUBT_INVALID = -EINVAL,
} QuirkDoubt;

/* "no-numbers", "contradicted", "unmeasured"; the label ("measurements disagree"). */
const char *doubt_to_string(QuirkDoubt d);
const char *doubt_label(QuirkDoubt d);

typedef struct Quirk {
        char *id;
        const char *file;   /* owned by the database */
        unsigned line;
        unsigned end_line;  /* the last line of its section in the file */
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
        int confidence;         /* QuirkConfidence; _CONFIDENCE_INVALID until the entry says (it must) */
        int reported_because;   /* QuirkDoubt; _DOUBT_INVALID unless the entry says (reported ones must) */
        /*
         * guard = tx-timeout: it turns on what the kernel keeps off for safety. Not planned for
         * a NIC whose link had a tx timeout, and never again on that board (state/guard.h's
         * records, kept across reboots) until restore or the configuration forgets it.
         */
        bool guard_tx_timeout;
} Quirk;

typedef struct QuirkDb {
        Quirk *quirks;
        size_t n;
        bool too_many;    /* more than CONF_MAX_SECTIONS entries: said once */
        char **files;
        size_t n_files;
        char **left_out;  /* "FILE:LINE [ID]": entries left out for a problem (quirk_db_load_except) */
        size_t n_left_out;
} QuirkDb;

/*
 * Loads every *.conf of the directories, in lexical order of file name; a
 * file in a later directory replaces a same-named one in an earlier directory.
 */
int quirk_db_load(QuirkDb *db, const char *const *dirs, size_t n_dirs, Diagnostics *d);
/*
 * The same, leaving out each entry leave_out has a message about (a problem on one of its
 * lines, NULL: none): an entry, never the file, so that one bad entry does not take the
 * others' fixes with it. Those left out are named in db->left_out.
 */
int quirk_db_load_except(QuirkDb *db, const char *const *dirs, size_t n_dirs, const Diagnostics *leave_out, Diagnostics *d);
/* Exactly these files, in this order (check-config FILE...). */
int quirk_db_load_files(QuirkDb *db, const char *const *files, size_t n, Diagnostics *d);
/* One quirk file's text, from memory (the fuzzer); name is what diagnostics say. */
int quirk_db_load_buffer(QuirkDb *db, const char *name, const char *buf, size_t len, Diagnostics *d);
void quirk_db_done(QuirkDb *db);
/* The entry with this id, or NULL. */
const Quirk *quirk_db_find(const QuirkDb *db, const char *id);
/* A throughput fix: in the performance profile and not in powersave (it costs power to win speed). */
bool quirk_is_throughput_fix(const Quirk *q);

/* Whether an entry is applied by itself (kernel, measured) or only suggested (reported). */
static inline bool quirk_is_suggestion(const Quirk *q) { return q->confidence == CONFIDENCE_REPORTED; }
/*
 * The experiment line that measures an entry's knobs on this NIC (NAME: its interface or
 * slot): "r8169-tuned experiment NAME --server HOST --knob K=V,K=V"; "" for an entry that
 * sets no knob.
 */
const char *quirk_experiment_line(const Quirk *q, const char *name, char *buf, size_t size);

/* Whether an entry applies to an identified NIC (never to one whose XID is unknown). */
bool quirk_matches(const Quirk *q, const Nic *n, const Machine *m);
/*
 * A back-port the kernel took over: a kernel-tier entry whose match-kernel ranges end where the
 * kernel starts doing it (kernel-default-since), on a kernel at or past that release, for a NIC
 * it matched on the release before. Not applied; plan shows what it would keep as the kernel's.
 */
bool quirk_taken_over(const Quirk *q, const Nic *n, const Machine *m);
