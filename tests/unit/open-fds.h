/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* For the unit tests: how many descriptors the process has open (what a kept fd adds). */
#include <dirent.h>

static inline int open_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        int n = 0;

        assert_non_null(d);
        while (readdir(d))
                n++;
        closedir(d);
        return n - 3; /* ".", "..", and d's own */
}
