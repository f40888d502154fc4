/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <pci/pci.h>
#include <setjmp.h>
#include <stdarg.h>
#include <systemd/sd-device.h>

#include "base/log.h"
#include "kernel/nic.h"

#define PCI_HEADER_LEN 64 /* the standard header of config space */

/*
 * libpci's error callback must not return (it would continue with garbage)
 * and by default calls exit(1): a daemon cannot allow either. We jump back to
 * nic_discover() instead. libpci is used from one place, without threads.
 */
static jmp_buf pci_error_jmp;
static char pci_error_msg[256];

static void _printf_(1, 2) __attribute__((noreturn)) pci_on_error(char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(pci_error_msg, sizeof(pci_error_msg), fmt, ap);
        va_end(ap);
        longjmp(pci_error_jmp, 1);
}

static void _printf_(1, 2) pci_on_warning(char *fmt, ...) {
        char buf[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        log_debug("libpci: %s", buf);
}

static void _printf_(1, 2) pci_on_debug(char *fmt, ...) {}

/* The claim on a slot, NULL if none (the last one wins, as later sections do). */
static const SlotClaim *slot_claims_find(const SlotClaims *c, const char *slot) {
        for (size_t i = c ? c->n : 0; i > 0; i--)
                if (streq(c->v[i - 1].slot, slot))
                        return &c->v[i - 1];
        return NULL;
}

void nic_list_done(NicList *l) {
        free(l->nics);
        *l = (NicList) {};
}

Nic *nic_list_find_ifname(NicList *l, const char *ifname) {
        for (size_t i = 0; i < l->n; i++)
                for (size_t j = 0; j < l->nics[i].n_ifnames; j++)
                        if (streq(l->nics[i].ifnames[j], ifname))
                                return &l->nics[i];
        return NULL;
}

static void read_link_caps(struct pci_dev *d, PciLink *link) {
        struct pci_cap *cap;
        uint8_t probe[4];

        /* Without CAP_SYS_ADMIN (the service's sandbox) the kernel hands out 64 bytes of config
         * space: the capabilities lie past them. Say so rather than report zeros. */
        if (!pci_read_block(d, 0x40, probe, sizeof(probe))) {
                link->truncated = true;
                return;
        }

        cap = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
        if (cap) {
                uint32_t lnkcap = pci_read_long(d, cap->addr + PCI_EXP_LNKCAP);
                uint16_t lnkctl = pci_read_word(d, cap->addr + PCI_EXP_LNKCTL);
                link->pcie = true;
                link->aspm_support = (uint8_t) ((lnkcap & PCI_EXP_LNKCAP_ASPM) >> 10);
                link->clkpm_capable = lnkcap & PCI_EXP_LNKCAP_CLOCKPM;
                link->aspm_control = lnkctl & PCI_EXP_LNKCTL_ASPM;
                link->clkpm_enabled = lnkctl & PCI_EXP_LNKCTL_CLOCKPM;
        }
        cap = pci_find_cap(d, PCI_EXT_CAP_ID_L1PM, PCI_CAP_EXTENDED);
        if (cap) {
                link->l1ss = true;
                link->l1ss_cap = pci_read_long(d, cap->addr + PCI_L1PM_SUBSTAT_CAP);
                link->l1ss_ctl1 = pci_read_long(d, cap->addr + PCI_L1PM_SUBSTAT_CTL1);
        }
}

/* "../../../devices/pci0000:00/0000:00:1c.0/0000:01:00.0": the port is the parent component. */
static void read_upstream(int devices_fd, Nic *n) {
        char dir[64], target[4096];
        ssize_t k;
        char *last, *prev;

        if (devices_fd < 0)
                return;
        k = readlinkat(devices_fd, n->slot, target, sizeof(target) - 1);
        if (k < 0)
                return;
        target[k] = '\0';
        last = strrchr(target, '/');
        if (!last)
                return;
        *last = '\0';
        prev = strrchr(target, '/');
        prev = prev ? prev + 1 : target;
        if (strscpy(dir, sizeof(dir), prev) >= 0 && pci_slot_valid(dir))
                memcpy(n->upstream, dir, PCI_SLOT_LEN);
}

static void read_ifnames(const Sysroot *root, Nic *n) {
        _cleanup_dir_names_ DirNames d = { .fd = -EBADF };
        char dir[64];

        snprintf(dir, sizeof(dir), "bus/pci/devices/%s/net", n->slot);
        if (sysroot_dir_names(root, dir, &d) < 0)
                return;
        for (const char *name; (name = dir_names_next(&d));) {
                if (name[0] == '.' || !ifname_valid(name))
                        continue;
                if (n->n_ifnames >= NIC_MAX_IFNAMES)
                        break;
                memcpy(n->ifnames[n->n_ifnames++], name, strlen(name) + 1);
        }
        /* readdir order is arbitrary; make output stable. */
        qsort(n->ifnames, n->n_ifnames, IFNAMSIZ, (int (*)(const void *, const void *)) strcmp);
}

/* The permanent address: sysfs "address" when the kernel says it is the permanent one. */
static void read_perm_mac(const Sysroot *root, Nic *n) {
        char dir[64], addr[64];
        uint64_t assign = 0;

        if (n->n_ifnames == 0)
                return;
        snprintf(dir, sizeof(dir), "class/net/%s", n->ifnames[0]);
        if (sysroot_read_u64(root, dir, "addr_assign_type", &assign) < 0 || assign != 0)
                return; /* NET_ADDR_PERM is 0; a random or set address is not an identity */
        if (sysroot_read(root, dir, "address", addr, sizeof(addr)) < 0 || strlen(addr) != 17)
                return;
        /* It goes into the undo journal and the journal's fields: only what an address can be. */
        for (int i = 0; i < 17; i++)
                if (i % 3 == 2 ? addr[i] != ':' : !isxdigit((unsigned char) addr[i]))
                        return;
        for (int i = 0; i < 17; i++)
                addr[i] = (char) tolower((unsigned char) addr[i]);
        memcpy(n->perm_mac, addr, 18);
}

static void format_slot(const struct pci_dev *d, char buf[static PCI_SLOT_LEN]) {
        snprintf(buf, PCI_SLOT_LEN, "%04x:%02x:%02x.%x", (unsigned) d->domain & 0xffffu, d->bus, d->dev & 0x1fu,
                 d->func & 0x7u);
}

/*
 * The bound driver: the last component of the device's "driver" link, read in its directory
 * (libpci's PCI_FILL_DRIVER resolves the whole path with realpath(), a readlink per component).
 */
static void read_driver(int dfd, Nic *n) {
        if (readlinkat_basename(dfd, "driver", n->driver, sizeof(n->driver)) < 0)
                n->driver[0] = '\0';
}

bool nic_driver_tunable(const Nic *n) {
        static const char *const realtek[] = { "r8169", "r8168", "r8125", "r8126", "r8101" };

        if (!n->driver[0])
                return false;
        return n->claim.slot[0] || string_table_lookup(realtek, ELEMENTSOF(realtek), n->driver) >= 0;
}

static void read_runtime_status(const Sysroot *root, Nic *n) {
        char dir[64];

        snprintf(dir, sizeof(dir), "bus/pci/devices/%s/power", n->slot);
        if (sysroot_read(root, dir, "runtime_status", n->runtime_status, sizeof(n->runtime_status)) < 0)
                n->runtime_status[0] = '\0';
}

/*
 * ids: vendor and device as read_ids() found them in the function's directory dfd (the scan
 * filters on them before libpci is asked), the subsystem ids from header; libpci reads the
 * config space (capabilities, the link). devices_fd: the scan's bus/pci/devices, where the
 * function's link says its port.
 */
static void nic_from_pci(struct pci_dev *d, int devices_fd, int dfd, const uint16_t ids[4], const uint8_t *header,
                         const Sysroot *root, Nic *n) {
        uint64_t rev;

        *n = (Nic) { .xid = CHIP_XID_INVALID, .xid2 = CHIP_XID2_INVALID };
        format_slot(d, n->slot);
        n->vendor = ids[0];
        n->device = ids[1];
        n->subsys_vendor = ids[2];
        n->subsys_device = ids[3];
        pci_fill_info(d, PCI_FILL_CAPS | PCI_FILL_EXT_CAPS);
        if (header)
                n->revision = header[PCI_REVISION_ID];
        else
                n->revision = sysroot_read_u64_at(dfd, "revision", &rev) >= 0 && rev <= UINT8_MAX ? (uint8_t) rev
                                                                                                  : pci_read_byte(d, PCI_REVISION_ID);
        read_driver(dfd, n);
        read_link_caps(d, &n->link);
        read_upstream(devices_fd, n);
        read_ifnames(root, n);
        read_perm_mac(root, n);
        read_runtime_status(root, n);
}

static int slot_cmp(const void *a, const void *b) {
        return strcmp(((const Nic *) a)->slot, ((const Nic *) b)->slot);
}

/*
 * ids[from..to) of a PCI function (dfd: its directory under bus/pci/devices): vendor and
 * device must be there, a missing subsystem id reads 0. A function whose ids cannot be
 * read is skipped by the scan, and said.
 */
static int read_ids(int dfd, int from, int to, uint16_t ids[4]) {
        static const char *const attrs[4] = { "vendor", "device", "subsystem_vendor", "subsystem_device" };

        if (dfd < 0)
                return dfd;
        for (int i = from; i < to; i++) {
                uint64_t v = 0;
                int r = sysroot_read_u64_at(dfd, attrs[i], &v);
                if (r < 0 && i < 2)
                        return r;
                if (r >= 0 && v > UINT16_MAX)
                        return -EBADMSG;
                ids[i] = (uint16_t) v;
        }
        return 0;
}

/*
 * The standard header, 64 bytes (what the kernel lets any user read, as lspci -x does), in one
 * read kept as libpci's cache of the device: the subsystem ids, the revision, the status and
 * the capability pointer then cost no read of their own. False: not read, nothing cached.
 */
static bool read_header(struct pci_dev *d, uint8_t header[static PCI_HEADER_LEN]) {
        if (!pci_read_block(d, 0, header, PCI_HEADER_LEN))
                return false;
        pci_setup_cache(d, header, PCI_HEADER_LEN);
        return true;
}

/*
 * One function: the port above a NIC (upstream_only), or a NIC into n. 1: a function whose
 * subsystem ids say it is no NIC of ours after all (claimed: read all the same). header: the
 * buffer libpci's cache of d points into until d is freed.
 */
static int read_dev(struct pci_dev *d, uint8_t header[static PCI_HEADER_LEN], const Sysroot *root, int devices_fd,
                    int dfd, uint16_t ids[4], bool claimed, Nic *n, PciLink *upstream_only) {
        bool cached = read_header(d, header);
        int r = 0;

        if (upstream_only) {
                pci_fill_info(d, PCI_FILL_CAPS | PCI_FILL_EXT_CAPS);
                read_link_caps(d, upstream_only);
                return 0;
        }
        /*
         * Subsystem ids are a type 0 (endpoint) header's; without the header, the kernel's attributes.
         * The kernel's are these registers as read at enumeration: a quirk could rewrite them, none
         * does for a Realtek NIC. A function whose ids only its subsystem rules out (0x1737:0x1032,
         * 0x0001:0x8168) now has its header read before it is left alone.
         */
        if (cached && (header[PCI_HEADER_TYPE] & 0x7f) == PCI_HEADER_TYPE_NORMAL) {
                ids[2] = (uint16_t) (header[PCI_SUBSYSTEM_VENDOR_ID] | header[PCI_SUBSYSTEM_VENDOR_ID + 1] << 8);
                ids[3] = (uint16_t) (header[PCI_SUBSYSTEM_ID] | header[PCI_SUBSYSTEM_ID + 1] << 8);
        } else
                r = read_ids(dfd, 2, 4, ids);
        if (r < 0)
                return r;
        if (!claimed && !chip_pci_id_known(ids[0], ids[1], ids[2], ids[3]))
                return 1;
        nic_from_pci(d, devices_fd, dfd, ids, cached ? header : NULL, root, n);
        return 0;
}

/*
 * libpci reads one device: with its error callback jumping back here, a device
 * that vanishes while it is read costs that device, not the whole scan.
 */
static int read_one(struct pci_access *pacc, const Sysroot *root, const char *slot, int devices_fd, int dfd,
                    uint16_t ids[4], bool claimed, Nic *n, PciLink *upstream_only) {
        struct pci_dev *volatile d = NULL;
        unsigned domain, bus, dev, func;

        if (sscanf(slot, "%4x:%2x:%2x.%1x", &domain, &bus, &dev, &func) != 4)
                return -EINVAL;
        if (setjmp(pci_error_jmp)) {
                if (d)
                        pci_free_dev(d);
                return -EIO;
        }
        d = pci_get_dev(pacc, (int) domain, (int) bus, (int) dev, (int) func);
        if (!d)
                return -ENOMEM;
        {
                /* Declared after setjmp(): nothing here lives across a jump. */
                uint8_t header[PCI_HEADER_LEN];
                int r = read_dev(d, header, root, devices_fd, dfd, ids, claimed, n, upstream_only);
                pci_free_dev(d);
                return r;
        }
}

/* libpci's set-up and tear-down, each under an error jump of its own (no setjmp in the caller). */
static int pci_open(char *path, struct pci_access **ret) {
        struct pci_access *volatile pacc = pci_alloc();

        if (!pacc)
                return -ENOMEM;
        pacc->error = pci_on_error;
        pacc->warning = pci_on_warning;
        pacc->debug = pci_on_debug;
        pacc->method = PCI_ACCESS_SYS_BUS_PCI;
        if (setjmp(pci_error_jmp)) {
                log_error("libpci: %s", pci_error_msg);
                return -EIO; /* pacc is left: libpci failed inside it */
        }
        if (pci_set_param(pacc, "sysfs.path", path) < 0) {
                pci_cleanup(pacc);
                return -EINVAL;
        }
        pci_init(pacc);
        *ret = pacc;
        return 0;
}

static void pci_close(struct pci_access *pacc) {
        if (setjmp(pci_error_jmp) == 0)
                pci_cleanup(pacc);
}

int nic_discover(const Sysroot *root, const SlotClaims *claims, NicList *ret) {
        _cleanup_dir_names_ DirNames dir = { .fd = -EBADF };
        struct pci_access *pacc;
        char path[4096], skipped_first[sizeof(pci_error_msg) + 64] = "";
        unsigned skipped = 0;
        NicList l = {};
        int ret_error;

        /* Our own listing, each entry checked: a dangling or looping link, a device without vendor
         * (removed during the scan) is skipped and said, not a reason to see no NIC at all. */
        ret_error = sysroot_dir_names(root, "bus/pci/devices", &dir);
        if (ret_error < 0)
                return log_error_errno(ret_error, "Cannot list %s/bus/pci/devices, where libpci finds PCI devices: %m",
                                       sysroot_path(root));
        snprintf(path, sizeof(path), "%s/bus/pci", sysroot_path(root));
        ret_error = pci_open(path, &pacc);
        if (ret_error < 0)
                return ret_error;

        for (const char *name; (name = dir_names_next(&dir));) {
                uint16_t ids[4];
                const SlotClaim *claim;
                Nic *nics;
                int r;

                char devdir[sizeof("bus/pci/devices/") + 256];
                _cleanup_close_ int dfd = -1;

                if (!pci_slot_valid(name))
                        continue;
                snprintf(devdir, sizeof(devdir), "bus/pci/devices/%s", name);
                dfd = sysroot_open_dir(root, devdir);
                claim = slot_claims_find(claims, name);
                /* Vendor and device first: most functions of a machine are no NIC of ours, and
                 * their subsystem ids are not read at all. */
                r = read_ids(dfd, 0, 2, ids);
                if (r >= 0 && !claim && !chip_pci_id_may_be_known(ids[0], ids[1]))
                        continue;
                nics = r >= 0 ? reallocarray(l.nics, l.n + 1, sizeof(Nic)) : NULL;
                if (r >= 0 && !nics) {
                        nic_list_done(&l);
                        ret_error = -ENOMEM;
                        goto done;
                }
                if (nics)
                        l.nics = nics;
                if (r >= 0)
                        r = read_one(pacc, root, name, dir.fd, dfd, ids, claim != NULL, &l.nics[l.n], NULL);
                if (r > 0)
                        continue; /* its subsystem ids say it is not ours */
                if (r >= 0 && claim)
                        l.nics[l.n].claim = *claim;
                if (r < 0) {
                        if (skipped++ == 0)
                                snprintf(skipped_first, sizeof(skipped_first), "%.16s: %s", name,
                                         r == -EIO && pci_error_msg[0] ? pci_error_msg : strerror(-r));
                        continue;
                }
                l.n++;
        }
        if (dir.error < 0)
                log_warning_errno(dir.error, "Listing %s/bus/pci/devices stopped early: PCI functions after it are not seen: %m",
                                  sysroot_path(root));
        if (skipped > 0)
                log_warning("Skipped %u PCI entr%s that cannot be read (%s%s).", skipped, skipped == 1 ? "y" : "ies",
                            skipped_first, skipped > 1 ? ", …" : "");
        /* The other end of each link: the port above the NIC. */
        for (size_t i = 0; i < l.n; i++)
                if (l.nics[i].upstream[0])
                        (void) read_one(pacc, root, l.nics[i].upstream, -EBADF, -EBADF, NULL, false, NULL, &l.nics[i].upstream_link);
done:
        pci_close(pacc);
        if (ret_error < 0)
                return ret_error;
        if (l.n > 1)
                qsort(l.nics, l.n, sizeof(Nic), slot_cmp);
        *ret = l;
        return 0;
}

int nic_read_tx_timeouts(const Sysroot *root, const Nic *n, uint64_t *ret) {
        _cleanup_dir_names_ DirNames d = { .fd = -EBADF };
        char dir[128];
        uint64_t sum = 0;
        int r, found = 0;

        if (!nic_ifname(n))
                return -ENODEV;
        snprintf(dir, sizeof(dir), "class/net/%s/queues", nic_ifname(n));
        r = sysroot_dir_names(root, dir, &d);
        if (r < 0)
                return r;
        for (const char *name; (name = dir_names_next(&d));) {
                char qdir[sizeof(dir) + 256 + 2];
                uint64_t v;

                if (strncmp(name, "tx-", 3) != 0 || strlen(name) > 16)
                        continue;
                snprintf(qdir, sizeof(qdir), "%s/%s", dir, name);
                if (sysroot_read_u64(root, qdir, "tx_timeout", &v) >= 0) {
                        sum += v;
                        found++;
                }
        }
        if (!found)
                return -ENOENT;
        *ret = sum;
        return 0;
}

/*
 * Whether an interface nobody knows may belong to a Realtek NIC: its parent is a PCI
 * function in r8169's ID table. veths, bridges, Wi-Fi and other vendors' NICs do not
 * cost a rescan.
 */
bool nic_net_device_may_be_ours(sd_device *d, const SlotClaims *claims) {
        const char *subsystem, *v, *dv, *sv, *sd, *slot;
        uint64_t vendor, device, subsys_vendor = 0, subsys_device = 0;
        sd_device *parent;

        if (sd_device_get_parent(d, &parent) < 0 || sd_device_get_subsystem(parent, &subsystem) < 0 ||
            !streq(subsystem, "pci"))
                return false;
        if (sd_device_get_sysname(parent, &slot) >= 0 && slot_claims_find(claims, slot))
                return true;
        if (sd_device_get_sysattr_value(parent, "vendor", &v) < 0 || sd_device_get_sysattr_value(parent, "device", &dv) < 0 ||
            parse_sysfs_number(v, &vendor) < 0 || parse_sysfs_number(dv, &device) < 0)
                return true; /* cannot tell: look */
        if (sd_device_get_sysattr_value(parent, "subsystem_vendor", &sv) >= 0)
                (void) parse_sysfs_number(sv, &subsys_vendor);
        if (sd_device_get_sysattr_value(parent, "subsystem_device", &sd) >= 0)
                (void) parse_sysfs_number(sd, &subsys_device);
        return chip_pci_id_known((uint16_t) vendor, (uint16_t) device, (uint16_t) subsys_vendor, (uint16_t) subsys_device);
}
