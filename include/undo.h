/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <linux/ethtool.h>
#include <net/if.h>

#include "confparse.h"
#include "knob.h"
#include "nic.h"

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
/*
 * The writer's lock of one NIC: <state_dir>/<slot>.lock, flock(LOCK_EX), held
 * around read-journal-plan-write-save by the commands and the daemon alike, so
 * that two writers never interleave and no original is lost. With wait_ms 0 it
 * does not wait (-EAGAIN when another writer holds it). Returns the fd to close.
 */
int undo_lock_nic(const char *state_dir, const char *slot, unsigned wait_ms);
/*
 * Removes the temporary journals crashed writers left and old link power records (the
 * daemon, once at start); returns how many it left because their slot's lock was held.
 */
unsigned undo_remove_leftovers(const char *state_dir);
/*
 * The service's lock, <state_dir>/daemon.lock: the daemon holds it while it
 * runs (undo_lock_service), the commands ask whether someone does
 * (undo_service_running: 1, 0, or -errno).
 */
int undo_lock_service(const char *state_dir);
int undo_service_running(const char *state_dir);
/* Whether process pid holds the service's lock (from its /proc/PID/fdinfo): 1, 0, or -errno. */
int undo_pid_holds_service_lock(const char *state_dir, pid_t pid);
/*
 * The tx-timeout guard of a NIC, recorded for this boot (the state directory is
 * on tmpfs): <state_dir>/<slot>.txguard. Kept even when the driver is reloaded
 * and its counters start again from 0.
 */
bool undo_tx_guard_recorded(const char *state_dir, const char *slot);
int undo_tx_guard_record(const char *state_dir, const char *slot, uint64_t timeouts);
/*
 * The guard of entries with guard = tx-timeout, remembered across reboots for one board,
 * slot and chip: <lib_dir>/<slot>-<xid>.guard (lib_dir: /var/lib/r8169-tuned), holding the
 * board (DMI board vendor and name), the entries it took back and the tx timeouts seen.
 * A record of another board (the disk moved to another machine) does not count.
 */
typedef struct BoardGuard {
        char board[260];  /* "VENDOR / NAME" */
        char quirks[256]; /* the entries taken back, space-separated */
        uint64_t timeouts;
} BoardGuard;
bool undo_board_guard_recorded(const char *lib_dir, const char *slot, uint16_t xid, const char *board);
int undo_board_guard_record(const char *lib_dir, const char *slot, uint16_t xid, const BoardGuard *g);
/* 1 if there was a record, 0 if none, -errno. */
int undo_board_guard_forget(const char *lib_dir, const char *slot, uint16_t xid);
#define UNDO_TMP_SUFFIX ".tmp"
/*
 * Temporary file <slot>.tmp (the caller holds the slot's lock), fsync, rename, fsync of the
 * directory (no fsync on tmpfs, the default /run: nothing to flush); an empty journal is removed.
 */
int undo_save(UndoJournal *j);
