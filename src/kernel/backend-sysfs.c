/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sysfs knob backends (PCIe link/, the interface's netdev attributes, runtime PM): one
 * attribute per knob, in a directory opened once a turn, read and written through one fd.
 */
#include <inttypes.h>

#include "kernel/backend-internal.h"

/* ---- sysfs: one attribute per knob, under the PCI function's link/ or the interface's directory ---- */

static int sysfs_dir(const KnobBackend *be, const Nic *n, char *buf, size_t size) {
        const char *arg = be->sysfs_by_ifname ? nic_ifname(n) : n->slot;

        if (!arg)
                return -ENODEV;
        snprintf(buf, size, "%s%s%s", be->sysfs_dir, arg, be->sysfs_subdir ?: "");
        return 0;
}

/*
 * The backend's directory for this NIC, opened once for all its attributes (-ENODEV: no
 * interface, or the interface's directory is gone; -ENOENT: no link/ directory).
 */
static int sysfs_open(Backend *b, const KnobBackend *be, const Nic *n) {
        char dir[64];
        int r = sysfs_dir(be, n, dir, sizeof(dir));

        if (r < 0)
                return r;
        /*
         * rtnetlink lists no such interface (the daemon's turn): on a machine its directory is
         * gone too; a fixture tree may still have one, which is not the interface of this
         * namespace, as for ethtool (need_interface()). Written when the interface appears.
         */
        if (be->sysfs_by_ifname && backend_session_of(b, n) && b->session.ifindex < 0)
                return -ENODEV;
        if (b->session.active && b->session.dir_cached[be->id] && streq(b->session.dir_path[be->id], dir))
                return b->session.dir_fd[be->id];
        r = sysroot_open_dir(b->root, dir);
        if (r < 0)
                return r == -ENOENT && be->sysfs_by_ifname ? -ENODEV : r;
        if (b->session.active && strscpy(b->session.dir_path[be->id], sizeof(b->session.dir_path[be->id]), dir) >= 0) {
                if (b->session.dir_cached[be->id])
                        close(b->session.dir_fd[be->id]);
                b->session.dir_fd[be->id] = r;
                b->session.dir_cached[be->id] = true;
        }
        return r;
}

/* What sysfs_open() gave: closed unless the turn keeps it. */
static void sysfs_release(Backend *b, const KnobBackend *be, int fd) {
        if (fd >= 0 && !(b->session.dir_cached[be->id] && b->session.dir_fd[be->id] == fd))
                close(fd);
}

/* The turn's fd of knob k, kept: read from for the plan, or written. */
static void session_keep(BackendSession *s, KnobId k, int fd, bool written) {
        if (s->kept[k])
                close(s->kept_fd[k]);
        s->kept[k] = true;
        s->kept_fd[k] = fd;
        s->written[k] = written;
}

/* The turn's fd of knob k, no longer kept: -EBADF when there is none. */
static int session_take(BackendSession *s, KnobId k) {
        if (!s || !s->kept[k])
                return -EBADF;
        s->kept[k] = s->written[k] = false;
        return s->kept_fd[k];
}

/* A knob's attribute as text: in a writing turn, opened for writing too and kept for the write that may follow. */
static int sysfs_read_text(Backend *b, const Nic *n, int dfd, KnobId k, char *buf, size_t size) {
        BackendSession *s = backend_session_of(b, n);
        int fd, r;

        if (!s || !s->writes || dfd < 0)
                return dfd < 0 ? dfd : sysroot_read_text_at(dfd, knob_sysfs_attr(k), buf, size);
        fd = sysroot_open_rw_at(dfd, knob_sysfs_attr(k));
        /* An attribute root may read but not write (0444): read as before. */
        if (fd == -EACCES || fd == -EPERM || fd == -EROFS)
                return sysroot_read_text_at(dfd, knob_sysfs_attr(k), buf, size);
        if (fd < 0)
                return fd;
        r = sysroot_reread_fd(fd, buf, size);
        if (r < 0) {
                close(fd);
                return r;
        }
        session_keep(s, k, fd, false);
        return 0;
}

/*
 * A knob's attribute: a number, or where the backend says so one of its two words ("on", "auto").
 * Read from kept_fd when this turn keeps it (>= 0, closed here), else as sysfs_read_text() reads.
 */
static int sysfs_read_at(Backend *b, const Nic *n, int dfd, int kept_fd, const KnobBackend *be, KnobId k, uint64_t *ret) {
        char buf[64];
        int r;

        if (kept_fd >= 0) {
                r = sysroot_reread_fd(kept_fd, buf, sizeof(buf));
                close(kept_fd);
        } else
                r = sysfs_read_text(b, n, dfd, k, buf, sizeof(buf));
        if (r < 0)
                return r;
        if (!be->words_only)
                return parse_sysfs_number(buf, ret);
        for (int i = 0; i < 2; i++)
                if (streq(buf, be->words[i])) {
                        *ret = (uint64_t) i;
                        return 0;
                }
        return -EBADMSG;
}

void sysfs_read(Backend *b, const KnobBackend *be, const Nic *n, KnobReading out[_KNOB_MAX]) {
        int dfd = -EBADF;
        bool opened = false;

        for (int k = 0; k < _KNOB_MAX; k++) {
                uint64_t v;
                int r;

                if (!knob_of_backend(k, be))
                        continue;
                if (!opened) {
                        dfd = sysfs_open(b, be, n);
                        opened = true;
                }
                r = sysfs_read_at(b, n, dfd, -EBADF, be, k, &v);
                if (r < 0) {
                        const char *why = NULL;
                        if (r == -ENODEV)
                                why = be->sysfs_by_ifname && !nic_ifname(n) ? "no network interface" : NULL;
                        else if (be->id == KNOB_BACKEND_LINK)
                                why = dfd < 0 && !n->link.truncated && !n->link.pcie
                                              ? "a conventional PCI device: no PCIe link"
                                      : dfd < 0 ? "no link/ attributes: pcie_aspm=off, firmware owns ASPM, or CONFIG_PCIEASPM=n"
                                      : r == -ENOENT && be->id == KNOB_BACKEND_LINK ? "state not supported by this link"
                                      : r == -EBADMSG ? "neither of the kernel's words" : NULL;
                        knob_reading_fail(&out[k], r, why);
                } else if (knob_get(k)->type == KNOB_TYPE_BOOL && v > 1)
                        knob_reading_fail(&out[k], -EBADMSG, "not 0 or 1");
                else
                        out[k] = (KnobReading) { .status = KNOB_STATUS_OK, .value = v };
        }
        sysfs_release(b, be, dfd);
}

int sysfs_read_items(Backend *b, const KnobBackend *be, const Nic *n, KnobBatch *batch, KnobReading out[_KNOB_MAX],
                            EthtoolError *err) {
        int dfd = batch->n > 0 ? sysfs_open(b, be, n) : -EBADF;

        for (size_t i = 0; i < batch->n; i++) {
                KnobBatchItem *it = &batch->items[i];
                /* A read-back: of what this turn wrote or read, through its fd (a read at offset 0 is sysfs's show() again). */
                int kept_fd = session_take(backend_session_of(b, n), it->knob);

                it->error = sysfs_read_at(b, n, dfd, kept_fd, be, it->knob, &it->now);
                if (!out)
                        continue;
                if (it->error < 0)
                        knob_reading_fail(&out[it->knob], it->error, NULL);
                else
                        out[it->knob] = (KnobReading) { .status = KNOB_STATUS_OK, .value = it->now };
        }
        sysfs_release(b, be, dfd);
        return 0;
}

/*
 * In a turn, the attribute is written through the fd its read for the plan kept, or opened
 * for reading too and kept: its read-back (sysfs_read_items()) is one pread() on it.
 */
static int sysfs_write_one(Backend *b, const Nic *n, int dfd, KnobId k, const char *text) {
        BackendSession *s = backend_session_of(b, n);
        int fd;

        if (!s)
                return sysroot_write_at(dfd, knob_sysfs_attr(k), text);
        if (s->kept[k] && !s->written[k]) {
                int r = sysroot_rewrite_fd(s->kept_fd[k], text, !sysroot_is_live(b->root));

                /* Not written: its read-back asks the path again (gone, or what another writer left). */
                if (r < 0)
                        close(session_take(s, k));
                else
                        s->written[k] = true;
                return r;
        }
        fd = sysroot_write_keep_at(dfd, knob_sysfs_attr(k), text);
        /* An attribute root may write but not read (0200, no show()): written as before, read back on its own. */
        if (fd == -EACCES)
                return sysroot_write_at(dfd, knob_sysfs_attr(k), text);
        if (fd < 0)
                return fd;
        session_keep(s, k, fd, true);
        return 0;
}

int sysfs_write_items(Backend *b, const KnobBackend *be, const Nic *n, const KnobBatch *batch, EthtoolError *err) {
        char dir[64], text[KNOB_VALUE_MAX];
        int dfd = -EBADF, r;

        *err = (EthtoolError) {};
        r = sysfs_dir(be, n, dir, sizeof(dir));
        if (r >= 0)
                r = dfd = sysfs_open(b, be, n);
        /*
         * The directory written to must be this NIC's interface's: asked of the directory
         * itself (its "device" link ends in the NIC's slot), which may have been opened for
         * the plan's reads, before a rename.
         */
        if (r >= 0 && be->sysfs_by_ifname && sysroot_is_live(b->root)) {
                char device[PCI_SLOT_LEN + 1];

                if (readlinkat_basename(dfd, "device", device, sizeof(device)) < 0 || !streq(device, n->slot)) {
                        *err = (EthtoolError) { .error = -EXDEV };
                        snprintf(err->message, sizeof(err->message), "%s belongs to another device now (renamed?)",
                                 nic_ifname(n));
                        r = -EXDEV;
                }
        }
        for (size_t i = 0; r >= 0 && i < batch->n; i++) {
                if (be->words_only)
                        snprintf(text, sizeof(text), "%s", be->words[batch->items[i].value != 0]);
                else
                        snprintf(text, sizeof(text), "%" PRIu64, batch->items[i].value);
                r = sysfs_write_one(b, n, dfd, batch->items[i].knob, text);
        }
        sysfs_release(b, be, dfd);
        err->error = r < 0 ? r : 0;
        return r;
}
