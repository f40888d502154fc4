/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The writers' locks in the state directory: one per NIC, one for the service. */
#include <sys/file.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <time.h>

#include "base/util.h"
#include "kernel/nic.h"
#include "state/lock.h"

static int lock_open(const char *state_dir, const char *name) {
        _cleanup_free_ char *path = NULL;
        int fd;

        if (asprintf(&path, "%s/%s", state_dir, name) < 0)
                return -ENOMEM;
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
        /* The directory is made the first time it is missing, not looked at every time. */
        if (fd < 0 && errno == ENOENT) {
                if (mkdir(state_dir, 0755) < 0 && errno != EEXIST)
                        return -errno;
                fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
        }
        return fd < 0 ? -errno : fd;
}

/*
 * Once, when the daemon starts: under a NIC's lock a leftover is simply overwritten, so the hot
 * path never lists the directory or looks for them one by one. Which names are leftovers is
 * their owners' to say.
 */
unsigned lock_remove_leftovers(const char *state_dir, bool (*leftover)(const char *suffix)) {
        _cleanup_closedir_ DIR *d = opendir(state_dir);
        unsigned busy = 0;

        if (!d)
                return 0;
        for (struct dirent *de; (de = readdir(d));) {
                size_t n = strlen(de->d_name);
                char slot[PCI_SLOT_LEN];

                if (n <= PCI_SLOT_LEN || de->d_name[PCI_SLOT_LEN - 1] != '.')
                        continue;
                memcpy(slot, de->d_name, PCI_SLOT_LEN - 1);
                slot[PCI_SLOT_LEN - 1] = 0;
                if (!pci_slot_valid(slot))
                        continue;
                if (!leftover(de->d_name + PCI_SLOT_LEN - 1))
                        continue;
                /* Only with the slot's lock: a command may be writing it this very moment. */
                _cleanup_close_ int lock = lock_nic(state_dir, slot, 0);
                if (lock >= 0)
                        (void) unlinkat(dirfd(d), de->d_name, 0);
                else
                        busy++;
        }
        return busy;
}

/* An exclusive lock, tried every 20 ms for up to wait_ms (a bounded poll, not a blocking flock: the
 * holder may be stopped): the fd, -EAGAIN when another holds it still, or -errno. Takes fd. */
static int lock_take(int fd, unsigned wait_ms) {
        _cleanup_close_ int owned = fd;

        if (fd < 0)
                return fd;
        for (unsigned waited = 0; flock(fd, LOCK_EX | LOCK_NB) < 0;) {
                if (errno == EINTR)
                        continue;
                if (errno != EWOULDBLOCK)
                        return -errno;
                if (waited >= wait_ms)
                        return -EAGAIN;
                nanosleep(&(struct timespec) { .tv_nsec = 20 * 1000 * 1000 }, NULL);
                waited += 20;
        }
        return TAKE_FD(owned);
}

int lock_nic(const char *state_dir, const char *slot, unsigned wait_ms) {
        char name[PCI_SLOT_LEN + 8];

        if (!pci_slot_valid(slot))
                return -EINVAL;
        snprintf(name, sizeof(name), "%s.lock", slot);
        /* Commands wait a while for another writer; the daemon never does (wait_ms 0). */
        return lock_take(lock_open(state_dir, name), wait_ms);
}

int lock_service(const char *state_dir) {
        /* A command asking whether the service runs holds a shared lock for a moment: wait that out. */
        int fd = lock_take(lock_open(state_dir, "daemon.lock"), 1000);

        return fd == -EAGAIN ? -EBUSY : fd;
}

int lock_service_running(const char *state_dir) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -1;

        if (asprintf(&path, "%s/daemon.lock", state_dir) < 0)
                return -ENOMEM;
        /* O_NONBLOCK: a FIFO in its place would block the open forever. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        if (flock(fd, LOCK_SH | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? 1 : -errno;
        return 0;
}

int lock_service_held_by(const char *state_dir, pid_t pid) {
        _cleanup_free_ char *path = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        char dir[64];
        struct stat st;

        if (asprintf(&path, "%s/daemon.lock", state_dir) < 0)
                return -ENOMEM;
        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        /*
         * The process's own descriptors (/proc/PID/fdinfo, seen under the unit's ProcSubset=pid,
         * where /proc/locks is not): "lock:\t1: FLOCK  ADVISORY  WRITE 2412 fd:01:1049211 0 EOF".
         */
        snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", (int) pid);
        d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        for (struct dirent *de; (de = readdir(d));) {
                _cleanup_fclose_ FILE *f = NULL;
                char line[256];
                int fd;

                if (de->d_name[0] == '.' || (fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC)) < 0)
                        continue;
                f = fdopen(fd, "re");
                if (!f) {
                        close(fd);
                        continue;
                }
                while (fgets(line, sizeof(line), f)) {
                        unsigned maj, min;
                        unsigned long long ino;
                        char type[16], mode[16];

                        if (strncmp(line, "lock:", 5) != 0 ||
                            sscanf(line + 5, "%*[^:]: %15s %*s %15s %*d %x:%x:%llu", type, mode, &maj, &min, &ino) != 5)
                                continue;
                        if (streq(type, "FLOCK") && streq(mode, "WRITE") && maj == major(st.st_dev) &&
                            min == minor(st.st_dev) && ino == (unsigned long long) st.st_ino)
                                return 1;
                }
        }
        return 0;
}
