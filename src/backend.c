/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fnmatch.h>
#include <inttypes.h>

#include "backend.h"
#include "log.h"

int backend_init(Backend *b, const Sysroot *root) {
        int r;

        *b = (Backend) { .root = root };
        r = ethtool_nl_new(&b->nl);
        if (r < 0) {
                b->nl = NULL;
                b->nl_error = r;
                log_debug_errno(r, "ethtool netlink unavailable: %m");
        }
        return 0;
}

void backend_done(Backend *b) {
        b->nl = ethtool_nl_free(b->nl);
}

static void reading_fail(KnobReading *r, int error, const char *message) {
        *r = (KnobReading) { .status = knob_status_from_errno(error), .error = error };
        if (message && *message)
                snprintf(r->message, sizeof(r->message), "%s", message);
}

static void read_link(Backend *b, const Nic *n, KnobId id, KnobReading *out) {
        char dir[64];
        uint64_t v;
        int r;

        snprintf(dir, sizeof(dir), "bus/pci/devices/%s/link", n->slot);
        r = sysroot_read_u64(b->root, dir, knob_get(id)->name, &v);
        if (r < 0) {
                _cleanup_close_ int fd = sysroot_open_dir(b->root, dir);
                reading_fail(out, r, fd < 0 ? "no link/ attributes: pcie_aspm=off, firmware owns ASPM, or CONFIG_PCIEASPM=n"
                                            : r == -ENOENT ? "state not supported by this link" : NULL);
                return;
        }
        if (v > 1) {
                reading_fail(out, -EBADMSG, "not 0 or 1");
                return;
        }
        *out = (KnobReading) { .status = KNOB_STATUS_OK, .value = v };
}

static void read_netdev(Backend *b, const Nic *n, KnobId id, KnobReading *out) {
        const char *ifname = nic_ifname(n);
        char dir[64];
        uint64_t v;
        int r;

        if (!ifname) {
                reading_fail(out, -ENODEV, "no network interface");
                return;
        }
        snprintf(dir, sizeof(dir), "class/net/%s", ifname);
        r = sysroot_read_u64(b->root, dir, knob_get(id)->name, &v);
        if (r == -ENOENT) {
                _cleanup_close_ int fd = sysroot_open_dir(b->root, dir);
                if (fd < 0)
                        r = -ENODEV;
        }
        if (r < 0) {
                reading_fail(out, r, NULL);
                return;
        }
        *out = (KnobReading) { .status = KNOB_STATUS_OK, .value = v };
}

void backend_feature_reading(const EthtoolFeatures *f, KnobId id, KnobReading *ret) {
        const char *pattern = knob_get(id)->pattern;
        size_t match = 0, changeable = 0, on = 0, fixed_on = 0;

        for (size_t i = 0; i < f->n; i++) {
                const EthtoolFeature *e = &f->features[i];
                if (fnmatch(pattern, e->name, 0) != 0)
                        continue;
                match++;
                if (e->changeable) {
                        changeable++;
                        on += e->active;
                } else
                        fixed_on += e->active;
        }
        if (match == 0) {
                reading_fail(ret, -ENOENT, "the kernel has no such feature");
                return;
        }
        *ret = (KnobReading) { .status = KNOB_STATUS_OK };
        if (changeable == 0) {
                ret->fixed = true;
                ret->value = fixed_on == match;
        } else {
                ret->value = on == changeable;
                ret->partial = on > 0 && on < changeable;
        }
}

static int need_interface(Backend *b, const Nic *n, EthtoolError *err) {
        if (!nic_ifname(n)) {
                *err = (EthtoolError) { .error = -ENODEV, .message = "no network interface" };
                return -ENODEV;
        }
        if (!b->nl) {
                *err = (EthtoolError) { .error = b->nl_error, .message = "ethtool netlink unavailable" };
                return b->nl_error;
        }
        return 0;
}

static void read_features(Backend *b, const Nic *n, KnobReading *out) {
        EthtoolFeatures f = {};
        EthtoolError err;
        int r;

        r = need_interface(b, n, &err);
        if (r >= 0)
                r = ethtool_nl_features_get(b->nl, nic_ifname(n), &f, &err);
        for (int i = 0; i < _KNOB_MAX; i++) {
                if (knob_get(i)->backend != KNOB_BACKEND_FEATURE)
                        continue;
                if (r < 0)
                        reading_fail(&out[i], err.error ? err.error : r, err.message);
                else
                        backend_feature_reading(&f, i, &out[i]);
        }
        ethtool_features_done(&f);
}

static void read_coalesce(Backend *b, const Nic *n, KnobReading *out) {
        EthtoolCoalesce c = {};
        EthtoolError err;
        int r;

        r = need_interface(b, n, &err);
        if (r >= 0)
                r = ethtool_nl_coalesce_get(b->nl, nic_ifname(n), &c, &err);
        for (int i = 0; i < _KNOB_MAX; i++) {
                const Knob *k = knob_get(i);
                if (k->backend != KNOB_BACKEND_COALESCE)
                        continue;
                if (r < 0)
                        reading_fail(&out[i], err.error ? err.error : r, err.message);
                else if (!c.present[k->nl_attr])
                        reading_fail(&out[i], -EOPNOTSUPP, "the driver does not support this parameter");
                else
                        out[i] = (KnobReading) { .status = KNOB_STATUS_OK, .value = c.value[k->nl_attr] };
        }
}

void backend_read_all(Backend *b, const Nic *n, KnobReading out[_KNOB_MAX]) {
        for (int i = 0; i < _KNOB_MAX; i++) {
                switch (knob_get(i)->backend) {
                case KNOB_BACKEND_LINK:
                        read_link(b, n, i, &out[i]);
                        break;
                case KNOB_BACKEND_NETDEV:
                        read_netdev(b, n, i, &out[i]);
                        break;
                default:
                        break;
                }
        }
        read_features(b, n, out);
        read_coalesce(b, n, out);
}

void backend_read_knob(Backend *b, const Nic *n, KnobId id, KnobReading *ret) {
        KnobReading all[_KNOB_MAX];

        switch (knob_get(id)->backend) {
        case KNOB_BACKEND_LINK:
                read_link(b, n, id, ret);
                return;
        case KNOB_BACKEND_NETDEV:
                read_netdev(b, n, id, ret);
                return;
        case KNOB_BACKEND_FEATURE:
                read_features(b, n, all);
                break;
        case KNOB_BACKEND_COALESCE:
                read_coalesce(b, n, all);
                break;
        default:
                return;
        }
        *ret = all[id];
}


int backend_write(Backend *b, const Nic *n, KnobId id, uint64_t value, EthtoolError *err) {
        const Knob *k = knob_get(id);
        char dir[64], text[KNOB_VALUE_MAX];
        int r;

        *err = (EthtoolError) {};
        snprintf(text, sizeof(text), "%" PRIu64, value);
        switch (k->backend) {
        case KNOB_BACKEND_LINK:
                snprintf(dir, sizeof(dir), "bus/pci/devices/%s/link", n->slot);
                r = sysroot_write(b->root, dir, k->name, text);
                break;
        case KNOB_BACKEND_NETDEV:
                if (!nic_ifname(n))
                        return err->error = -ENODEV;
                snprintf(dir, sizeof(dir), "class/net/%s", nic_ifname(n));
                r = sysroot_write(b->root, dir, k->name, text);
                if (r == -ENOENT) {
                        _cleanup_close_ int fd = sysroot_open_dir(b->root, dir);
                        if (fd < 0)
                                r = -ENODEV; /* the interface went away */
                }
                break;
        case KNOB_BACKEND_COALESCE:
                r = need_interface(b, n, err);
                if (r < 0)
                        return r;
                return ethtool_nl_coalesce_set(b->nl, nic_ifname(n), k->nl_attr, (uint32_t) value, err);
        default:
                return err->error = -EINVAL;
        }
        err->error = r < 0 ? r : 0;
        return r;
}

int backend_features_get(Backend *b, const Nic *n, EthtoolFeatures *ret, EthtoolError *err) {
        int r = need_interface(b, n, err);
        if (r < 0)
                return r;
        return ethtool_nl_features_get(b->nl, nic_ifname(n), ret, err);
}

int backend_features_set(Backend *b, const Nic *n, const char *const *names, const bool *values, size_t count,
                         EthtoolFeatures *refused, EthtoolError *err) {
        int r = need_interface(b, n, err);
        if (r < 0)
                return r;
        return ethtool_nl_features_set(b->nl, nic_ifname(n), names, values, count, refused, err);
}
