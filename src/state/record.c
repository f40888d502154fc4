/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/util.h"
#include "state/record.h"

/*
 * A record the program keeps for itself (the undo journal, guard and link-power records):
 * opened without blocking and without following a link, and only when it is a regular file
 * owned by root or us, as it writes them. A FIFO would hang the reader forever; another
 * user's file is not ours to believe. The fd, or -ENOENT, -ELOOP (a symbolic link), -EBADF
 * (not a regular file: a FIFO, a device, a socket), -EISDIR, -EPERM (another user's).
 */
int record_open(const char *path) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return S_ISDIR(st.st_mode) ? -EISDIR : -EBADF;
        if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022))
                return -EPERM;
        return TAKE_FD(fd);
}

FILE *record_fopen(const char *path) {
        int fd = record_open(path);
        FILE *f;

        if (record_refusal(fd))
                log_warning("%s: %s", path, record_refusal(fd));
        if (fd < 0) {
                errno = -fd;
                return NULL;
        }
        f = fdopen(fd, "re");
        if (!f)
                close(fd);
        return f;
}

const char *record_refusal(int error) {
        switch (error) {
        case -ELOOP:
                return "a symbolic link, not a record of ours: ignored";
        case -EBADF:
                return "not a regular file (a FIFO, a device or a socket): ignored";
        case -EISDIR:
                return "a directory, not a record: ignored";
        case -EPERM:
                return "belongs to another user, or another user can write it: ignored";
        default:
                return NULL;
        }
}
