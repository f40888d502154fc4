/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * The tx-timeout guard of a NIC, recorded for this boot (the state directory is
 * on tmpfs): <state_dir>/<slot>.txguard. Kept even when the driver is reloaded
 * and its counters start again from 0.
 */
bool guard_tx_recorded(const char *state_dir, const char *slot);
int guard_tx_record(const char *state_dir, const char *slot, uint64_t timeouts);
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
bool guard_board_recorded(const char *lib_dir, const char *slot, uint16_t xid, const char *board);
int guard_board_record(const char *lib_dir, const char *slot, uint16_t xid, const BoardGuard *g);
/* 1 if there was a record, 0 if none, -errno. */
int guard_board_forget(const char *lib_dir, const char *slot, uint16_t xid);
