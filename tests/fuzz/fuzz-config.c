/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration parser: any bytes as /etc/r8169-tuned/r8169-tuned.conf. */
#include <sys/mman.h>

#include "config.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static int fd = -1;
        char path[64];
        Diagnostics d = {};
        Config c;

        if (fd < 0) {
                log_set_max_level(LOG_EMERG);
                fd = memfd_create("r8169-tuned.conf", MFD_CLOEXEC);
        }
        if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t) size)
                return 0;
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        config_load(&c, path, true, &d);
        config_done(&c);
        diag_done(&d);
        return 0;
}
