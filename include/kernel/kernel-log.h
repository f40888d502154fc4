/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/util.h"

/* A kernel log given as a file (--kernel-log): a regular file of at most 16 MiB. */
#define KERNEL_LOG_MAX (16u << 20)

typedef void (*kernel_log_line_fn)(const char *line, size_t len, void *userdata);

/*
 * Calls fn for each line of the file, without its newline. A line with a NUL, or longer
 * than any line r8169 writes (1023 bytes), is not one of its lines and is skipped.
 * Errors: -errno of open, -EBADF for what is not a regular file (a FIFO or a device
 * would block or never end), -EFBIG beyond KERNEL_LOG_MAX.
 */
int kernel_log_for_each_line(const char *path, kernel_log_line_fn fn, void *userdata);
/*
 * This boot's kernel messages from the journal, oldest first, each as dmesg prints it
 * ("[    8.458515] message": the journal keeps a device line's "r8169 0000:03:00.0" prefix out of
 * MESSAGE, and gives the device as _KERNEL_DEVICE instead, "" when the line has none).
 */
typedef void (*kernel_log_device_line_fn)(const char *line, size_t len, const char *device, size_t device_len,
                                          void *userdata);
int kernel_log_this_boot(kernel_log_device_line_fn fn, void *userdata);
/* Words for those errors: "not a regular file", "larger than 16 MiB", else strerror. */
const char *kernel_log_error_string(int error);
