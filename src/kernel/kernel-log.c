/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <inttypes.h>
#include <systemd/sd-journal.h>

#include "base/log.h"
#include "kernel/kernel-log.h"

int kernel_log_for_each_line(const char *path, kernel_log_line_fn fn, void *userdata) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_close_ int fd = -1;
        size_t len;
        int r;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        r = read_fd_bounded(fd, KERNEL_LOG_MAX, &buf, &len);
        if (r < 0)
                return r;
        for (char *p = buf, *end = buf + len; p < end;) {
                char *nl = memchr(p, '\n', (size_t) (end - p)), line[1024];
                size_t k = nl ? (size_t) (nl - p) : (size_t) (end - p);

                if (k < sizeof(line) && !memchr(p, '\0', k)) {
                        memcpy(line, p, k);
                        line[k] = '\0';
                        fn(line, k, userdata);
                }
                p += k + 1;
        }
        return 0;
}

int kernel_log_this_boot(kernel_log_device_line_fn fn, void *userdata) {
        _cleanup_journal_ sd_journal *j = NULL;
        char b[64] = "_BOOT_ID=";
        sd_id128_t boot;
        int r;

        r = sd_id128_get_boot(&boot);
        if (r >= 0)
                r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
        if (r >= 0) {
                sd_id128_to_string(boot, b + strlen(b));
                r = sd_journal_add_match(j, "_TRANSPORT=kernel", 0);
        }
        if (r >= 0)
                r = sd_journal_add_match(j, b, 0);
        if (r < 0)
                return r;
        SD_JOURNAL_FOREACH(j) {
                const void *data, *dev;
                size_t len, dlen = 0;
                uint64_t usec = 0;
                char line[1100];
                int n;

                if (sd_journal_get_data(j, "MESSAGE", &data, &len) < 0 || len <= 8 || len - 8 > 1000)
                        continue;
                (void) sd_journal_get_monotonic_usec(j, &usec, NULL);
                n = snprintf(line, sizeof(line), "[%5" PRIu64 ".%06" PRIu64 "] %.*s", usec / 1000000, usec % 1000000,
                             (int) (len - 8), (const char *) data + 8);
                if (sd_journal_get_data(j, "_KERNEL_DEVICE", &dev, &dlen) < 0 || dlen < 15)
                        dev = NULL, dlen = 0;
                fn(line, (size_t) n, dev ? (const char *) dev + 15 : "", dev ? dlen - 15 : 0, userdata);
        }
        return 0;
}

const char *kernel_log_error_string(int error) {
        return error == -EBADF ? "not a regular file" : error == -EFBIG ? "larger than 16 MiB" : strerror(-error);
}
