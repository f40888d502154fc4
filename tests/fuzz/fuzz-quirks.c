/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The quirk parser and the database lint: any bytes as one quirk file, parsed from memory. */
#include "base/log.h"
#include "decide/quirk-lint.h"
#include "decide/quirks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static bool init;
        Diagnostics d = {};
        QuirkDb db;

        if (!init) {
                log_set_max_level(LOG_EMERG);
                init = true;
        }
        if (size > CONF_MAX_FILE)
                return 0; /* the file reader refuses it before the parser sees it */
        quirk_db_load_buffer(&db, "/usr/share/r8169-tuned/quirks.d/50-fuzz.conf", (const char *) data, size, &d);
        quirk_db_lint(&db, &d);
        quirk_db_done(&db);
        diag_done(&d);
        return 0;
}
