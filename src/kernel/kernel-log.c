/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>

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

const char *kernel_log_error_string(int error) {
        return error == -EBADF ? "not a regular file" : error == -EFBIG ? "larger than 16 MiB" : strerror(-error);
}
