/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <linux/ethtool.h>
#include <net/if.h>

#include "base/confparse.h"
#include "kernel/knob.h"
#include "kernel/nic.h"

/*
 * The undo journal: per NIC (keyed by PCI slot, checked against the permanent
 * MAC), the original value of every knob r8169-tuned changed and the value it
 * set. It is written atomically before each change, so a crash at any moment
 * leaves enough to restore. The first original of a knob is kept for good.
 * Entries are "KIND NAME ORIGINAL SET": KIND is a backend's journal word
 * (knob_backends[].journal_kind), NAME a knob or, for ethtool features, a
 * kernel feature its pattern covers.
 */
typedef struct UndoEntry {
        KnobBackendId kind;
        KnobId knob;
        char name[ETH_GSTRING_LEN];
        uint64_t original;
        uint64_t set;     /* what the kernel held after our write */
        /*
         * A write recorded but not yet read back, to an entry that had a value of ours:
         * until then either value is ours (a kill between record and write leaves set,
         * one after the write leaves pending).
         */
        bool has_pending;
        uint64_t pending;
} UndoEntry;

typedef struct UndoJournal {
        char *path;
        char slot[PCI_SLOT_LEN];
        char mac[18];               /* "" when unknown */
        char ifname[IFNAMSIZ];      /* for messages only */
        UndoEntry *entries;
        size_t n;
        char **raw;                 /* lines that did not parse: kept verbatim, never dropped */
        size_t n_raw;
        bool truncated;             /* too large: only its first lines were read; never saved */
} UndoJournal;

void undo_done(UndoJournal *j);
/* Pure parser (fuzzed): bad lines are diagnosed with file:line and kept in raw. */
int undo_parse(const char *text, size_t len, const char *path, UndoJournal *ret, Diagnostics *d);
/*
 * Loads <state_dir>/<slot>; a missing file is an empty journal. -EBADF: not a
 * regular file (a FIFO, a device), -EISDIR: a directory. A file too large is
 * read as far as it fits, with a diagnostic, and marked truncated.
 */
int undo_load(const char *state_dir, const char *slot, UndoJournal *ret, Diagnostics *d);
/* All journals in a state directory (slots of NICs that may be gone). */
int undo_list(const char *state_dir, char ***ret_slots, size_t *n);

UndoEntry *undo_find(UndoJournal *j, KnobBackendId kind, const char *name);
/* The knob a journal entry of this kind and name belongs to, or _KNOB_INVALID. */
KnobId undo_entry_knob(KnobBackendId kind, const char *name);
/* Adds an entry, or updates the value set while keeping the first original. */
int undo_record(UndoJournal *j, KnobBackendId kind, const char *name, uint64_t original, uint64_t set);
/*
 * A pending write against what the kernel holds now: taken (now the value set) or never
 * done (forgotten). Anything else stays pending: either value is still ours to give back.
 */
void undo_settle(UndoEntry *e, uint64_t now);
void undo_remove(UndoJournal *j, UndoEntry *e);
/* Whether "<slot><suffix>" is a journal a writer that is gone left half-written: write_file_atomic's
 * temporary ".XXXXXX", or the ".tmp" of versions before 0.2. */
bool undo_is_leftover(const char *suffix);
/*
 * Saves the journal whole, 0600, as write_file_atomic() writes (a temporary <slot>.XXXXXX renamed
 * over it; the caller holds the slot's lock); an empty journal is removed.
 */
int undo_save(UndoJournal *j);
