/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guard records: a NIC's tx timeouts, for this boot and, per board, across reboots. */
#include <inttypes.h>
#include <sys/stat.h>

#include "base/util.h"
#include "state/guard.h"
#include "state/record.h"

static int guard_path(const char *state_dir, const char *slot, char **ret) {
        if (!pci_slot_valid(slot))
                return -EINVAL;
        return asprintf(ret, "%s/%s.txguard", state_dir, slot) < 0 ? -ENOMEM : 0;
}

bool guard_tx_recorded(const char *state_dir, const char *slot) {
        _cleanup_free_ char *path = NULL;

        return guard_path(state_dir, slot, &path) >= 0 && access(path, F_OK) >= 0;
}

static void tx_guard_write(FILE *f, const void *userdata) {
        fprintf(f, "tx_timeouts %" PRIu64 "\n", *(const uint64_t *) userdata);
}

int guard_tx_record(const char *state_dir, const char *slot, uint64_t timeouts) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = guard_path(state_dir, slot, &path);
        if (r < 0)
                return r;
        if (mkdir(state_dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        return write_file_atomic(path, 0644, tx_guard_write, &timeouts);
}

static int board_guard_path(const char *lib_dir, const char *slot, uint16_t xid, char **ret) {
        if (!pci_slot_valid(slot))
                return -EINVAL;
        return asprintf(ret, "%s/%s-%03x.guard", lib_dir, slot, xid) < 0 ? -ENOMEM : 0;
}

bool guard_board_recorded(const char *lib_dir, const char *slot, uint16_t xid, const char *board) {
        _cleanup_free_ char *path = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char line[300];

        if (board_guard_path(lib_dir, slot, xid, &path) < 0)
                return false;
        f = record_fopen(path);
        if (!f || !fgets(line, sizeof(line), f))
                return false;
        line[strcspn(line, "\n")] = '\0';
        /* The first line names the board: a record of another board is not this one's. */
        return strncmp(line, "board ", 6) == 0 && streq(line + 6, board);
}

static void board_guard_write(FILE *f, const void *userdata) {
        const BoardGuard *g = userdata;

        fprintf(f, "board %s\nquirks %s\ntx_timeouts %" PRIu64 "\n", g->board, g->quirks, g->timeouts);
}

int guard_board_record(const char *lib_dir, const char *slot, uint16_t xid, const BoardGuard *g) {
        _cleanup_free_ char *path = NULL;
        int r = board_guard_path(lib_dir, slot, xid, &path);

        if (r < 0)
                return r;
        if (mkdir(lib_dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        /* 0644, as the boot's record: plan and status read it as any user, and it holds nothing
         * that sysfs does not show them (the DMI board, the quirk entries, a counter). */
        return write_file_atomic(path, 0644, board_guard_write, g);
}

int guard_board_forget(const char *lib_dir, const char *slot, uint16_t xid) {
        _cleanup_free_ char *path = NULL;
        int r = board_guard_path(lib_dir, slot, xid, &path);

        if (r < 0)
                return r;
        if (unlink(path) < 0)
                return errno == ENOENT ? 0 : -errno;
        return 1;
}
