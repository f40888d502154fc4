/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The quirk parser and the database lint: any bytes as one quirk file. */
#include <fcntl.h>
#include <sys/stat.h>

#include "log.h"
#include "quirks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static char dir[] = "/tmp/r8t-fuzz-quirks.XXXXXX", file[64];
        static bool init;
        const char *dirs[] = { dir };
        Diagnostics d = {};
        QuirkDb db;
        int fd;

        if (!init) {
                log_set_max_level(LOG_EMERG);
                if (!mkdtemp(dir))
                        abort();
                snprintf(file, sizeof(file), "%s/50-fuzz.conf", dir);
                init = true;
        }
        fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                abort();
        if (write(fd, data, size) != (ssize_t) size)
                abort();
        close(fd);
        quirk_db_load(&db, dirs, 1, &d);
        quirk_db_lint(&db, &d);
        quirk_db_done(&db);
        diag_done(&d);
        return 0;
}
