/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fnmatch.h>
#include <inttypes.h>
#include <linux/ethtool_netlink.h>

#include "base/log.h"
#include "kernel/backend-internal.h"

int backend_init(Backend *b, const Sysroot *root) {
        int r;

        *b = (Backend) { .root = root, .fixture_in_host_netns = !sysroot_is_live(root) && backend_in_initial_netns() };
        r = ethtool_nl_new(&b->nl);
        if (r < 0) {
                b->nl = NULL;
                b->nl_error = r;
                log_debug_errno(r, "ethtool netlink unavailable: %m");
        }
        return 0;
}

static void session_drop(Backend *b) {
        BackendSession *s = &b->session;

        for (int i = 0; i < _KNOB_BACKEND_MAX; i++)
                if (s->dir_cached[i])
                        close(s->dir_fd[i]);
        for (int k = 0; k < _KNOB_MAX; k++)
                if (s->kept[k])
                        close(s->kept_fd[k]);
        ethtool_features_done(&s->features);
        *s = (BackendSession) {};
}

void backend_begin(Backend *b, const Nic *n, int ifindex, bool writes) {
        const char *ifname = nic_ifname(n);

        session_drop(b);
        b->session.active = true;
        b->session.writes = writes;
        if (ifname && strscpy(b->session.ifname, sizeof(b->session.ifname), ifname) >= 0)
                b->session.ifindex = ifindex;
        if (b->nl)
                ethtool_nl_set_index(b->nl, ifname, ifindex);
}

void backend_end(Backend *b) {
        session_drop(b);
        if (b->nl)
                ethtool_nl_set_index(b->nl, NULL, 0);
}

BackendSession *backend_session_of(Backend *b, const Nic *n) {
        return b->session.active && nic_ifname(n) && streq(b->session.ifname, nic_ifname(n)) ? &b->session : NULL;
}

void backend_done(Backend *b) {
        session_drop(b);
        if (b->class_net_open)
                close(b->class_net_fd);
        b->class_net_open = false;
        b->nl = ethtool_nl_free(b->nl);
}

int knob_batch_add(KnobBatch *batch, KnobId k, const char *name, uint64_t value) {
        KnobBatchItem *it;

        if (batch->n >= KNOB_BATCH_MAX)
                return -E2BIG;
        it = &batch->items[batch->n++];
        *it = (KnobBatchItem) { .knob = k, .value = value };
        snprintf(it->name, sizeof(it->name), "%s", name);
        return 0;
}

bool backend_interface_absent(Backend *b, const Nic *n) {
        const BackendSession *s = backend_session_of(b, n);

        return s && s->ifindex < 0;
}

bool knob_of_backend(KnobId k, const KnobBackend *be) {
        return knob_get(k)->backend == be;
}

static int need_interface(Backend *b, const Nic *n, EthtoolError *err) {
        const BackendSession *s = backend_session_of(b, n);

        if (!nic_ifname(n) || (s && s->ifindex < 0)) {
                /* rtnetlink lists no such interface: no question to the kernel that can only fail */
                *err = (EthtoolError) { .error = -ENODEV, .message = "no network interface" };
                return -ENODEV;
        }
        if (!b->nl) {
                *err = (EthtoolError) { .error = b->nl_error, .message = "ethtool netlink unavailable" };
                return b->nl_error;
        }
        return 0;
}

/*
 * Before a write by interface name: the name must still be the NIC's. The
 * interface's class/net link points into its PCI function's directory
 * (".../0000:01:00.0/net/enp1s0"); after a rename race it points elsewhere,
 * and a write would change another device. In a fixture tree the names are
 * only the fixture's: never write to the host's interfaces of that name.
 */
static int check_owner(Backend *b, const Nic *n, EthtoolError *err) {
        const char *ifname = nic_ifname(n);
        char target[4096], suffix[64];
        ssize_t k;

        if (b->fixture_in_host_netns) {
                *err = (EthtoolError) { .error = -EXDEV };
                snprintf(err->message, sizeof(err->message),
                         "a fixture's interface, and this is the host's network namespace: %s here is not that NIC", ifname);
                return -EXDEV;
        }
        if (!b->class_net_open) {
                b->class_net_fd = sysroot_open_dir(b->root, "class/net");
                b->class_net_open = b->class_net_fd >= 0;
        }
        k = !b->class_net_open || !ifname ? -1 : readlinkat(b->class_net_fd, ifname, target, sizeof(target) - 1);
        if (k < 0) {
                *err = (EthtoolError) { .error = -ENODEV, .message = "the interface went away" };
                return -ENODEV;
        }
        target[k] = '\0';
        snprintf(suffix, sizeof(suffix), "/%s/net/%s", n->slot, ifname);
        if (strlen(target) < strlen(suffix) || !streq(target + strlen(target) - strlen(suffix), suffix)) {
                *err = (EthtoolError) { .error = -EXDEV };
                snprintf(err->message, sizeof(err->message), "%s belongs to another device now (renamed?)", ifname);
                return -EXDEV;
        }
        return 0;
}

int backend_expand_by_knob(Backend *b, const KnobBackend *be, const Nic *n, KnobBatch *batch, EthtoolError *err) {
        return 0; /* one item per knob, its original the value the plan read */
}

/* Before an ethtool write: an interface, a socket, and the name still the NIC's. */
static int need_writable_interface(Backend *b, const Nic *n, EthtoolError *err) {
        int r = need_interface(b, n, err);
        return r < 0 ? r : check_owner(b, n, err);
}

/* ---- ethtool features: a knob covers every kernel feature its pattern matches ---- */

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
                knob_reading_fail(ret, -ENOENT, "the kernel has no such feature");
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

/*
 * The interface's features: within its turn, as last known (fresh: asked anyway), else one
 * FEATURES_GET, which the turn keeps. *ret points at them: into the turn, or at *own.
 */
static int features_now(Backend *b, const Nic *n, bool fresh, EthtoolFeatures *own, const EthtoolFeatures **ret,
                        EthtoolError *err) {
        BackendSession *s = backend_session_of(b, n);
        int r;

        if (s && s->features_known && !fresh) {
                *ret = &s->features;
                return 0;
        }
        if (s)
                s->features_known = false; /* asked again: what was known stands only if the kernel answers */
        r = need_interface(b, n, err);
        if (r >= 0)
                r = ethtool_nl_features_get(b->nl, nic_ifname(n), own, err);
        if (r < 0)
                return r;
        if (!s) {
                *ret = own;
                return 0;
        }
        ethtool_features_done(&s->features);
        s->features = *own;
        *own = (EthtoolFeatures) {};
        s->features_known = true;
        *ret = &s->features;
        return 0;
}

static void features_read(Backend *b, const KnobBackend *be, const Nic *n, KnobReading out[_KNOB_MAX]) {
        _cleanup_(ethtool_features_done) EthtoolFeatures own = {};
        const EthtoolFeatures *f = NULL;
        EthtoolError err;
        int r;

        /* A read says what the kernel has now: asked, and kept for the rest of the turn. */
        r = features_now(b, n, true, &own, &f, &err);
        for (int k = 0; k < _KNOB_MAX; k++) {
                if (!knob_of_backend(k, be))
                        continue;
                if (r < 0)
                        knob_reading_fail(&out[k], err.error ?: r, err.message);
                else
                        backend_feature_reading(f, k, &out[k]);
        }
}

/* Each knob item becomes the changeable kernel features it covers that are not as wanted yet. */
static int features_expand(Backend *b, const KnobBackend *be, const Nic *n, KnobBatch *batch, EthtoolError *err) {
        _cleanup_(ethtool_features_done) EthtoolFeatures own = {};
        const EthtoolFeatures *f = NULL;
        KnobBatch knobs = *batch;
        /* What the plan was made from, read a moment ago in this turn: no second request. */
        int r = features_now(b, n, false, &own, &f, err);

        if (r < 0)
                return r;
        batch->n = 0;
        for (size_t i = 0; i < knobs.n && r >= 0; i++) {
                const KnobBatchItem *want = &knobs.items[i];
                for (size_t k = 0; k < f->n && r >= 0; k++) {
                        const EthtoolFeature *e = &f->features[k];
                        if (!e->changeable || e->active == (bool) want->value ||
                            fnmatch(knob_get(want->knob)->pattern, e->name, 0) != 0)
                                continue;
                        r = knob_batch_add(batch, want->knob, e->name, want->value);
                        if (r >= 0)
                                batch->items[batch->n - 1].original = e->active;
                }
        }
        return r;
}

static int features_read_items(Backend *b, const KnobBackend *be, const Nic *n, KnobBatch *batch, KnobReading out[_KNOB_MAX],
                               EthtoolError *err) {
        _cleanup_(ethtool_features_done) EthtoolFeatures own = {};
        const EthtoolFeatures *f = NULL;
        /* After a write in this turn, its own reply told: the kernel is not asked again. */
        int r = features_now(b, n, false, &own, &f, err);

        for (size_t i = 0; i < batch->n; i++) {
                KnobBatchItem *it = &batch->items[i];
                const EthtoolFeature *e = r >= 0 ? ethtool_features_find(f, it->name) : NULL;
                it->error = r < 0 ? r : e ? 0 : -ENOENT;
                it->now = e && e->active;
        }
        /* Every feature knob's reading from the same reply: one FEATURES_GET serves both. */
        for (int k = 0; out && k < _KNOB_MAX; k++) {
                if (!knob_of_backend(k, be))
                        continue;
                if (r < 0)
                        knob_reading_fail(&out[k], err->error ?: r, err->message);
                else
                        backend_feature_reading(f, k, &out[k]);
        }
        return r;
}

static void features_set_active(EthtoolFeatures *f, const char *name, bool active) {
        for (size_t k = 0; k < f->n; k++)
                if (streq(f->features[k].name, name))
                        f->features[k].active = active;
}

/* One FEATURES_SET for all of them: the kernel fixes up dependent features once, consistently. */
static int features_write_items(Backend *b, const KnobBackend *be, const Nic *n, const KnobBatch *batch, EthtoolError *err) {
        _cleanup_(ethtool_features_done) EthtoolFeatures refused = {}, changed = {};
        BackendSession *s = backend_session_of(b, n);
        const char *names[KNOB_BATCH_MAX];
        bool values[KNOB_BATCH_MAX], known = s && s->features_known;
        int r;

        r = need_writable_interface(b, n, err);
        for (size_t i = 0; r >= 0 && i < batch->n; i++) {
                names[i] = batch->items[i].name;
                values[i] = batch->items[i].value;
        }
        if (r >= 0)
                r = ethtool_nl_features_set(b->nl, nic_ifname(n), names, values, batch->n, known ? &refused : NULL,
                                            known ? &changed : NULL, err);
        if (!known)
                return r;
        if (r < 0) {
                s->features_known = false; /* what the kernel holds now is not known: the read-back asks */
                return r;
        }
        /*
         * The state after the write, for its read-back: what it started from, with every change
         * the kernel reports; each requested feature as asked unless refused. Both come from the
         * kernel under the lock it wrote with: exact for what was written.
         */
        for (size_t i = 0; i < changed.n; i++)
                features_set_active(&s->features, changed.features[i].name, changed.features[i].active);
        for (size_t i = 0; i < batch->n; i++) {
                const EthtoolFeature *no = ethtool_features_find(&refused, names[i]);
                features_set_active(&s->features, names[i], no ? !no->active : values[i]);
        }
        return r;
}

/* ---- ethtool attribute groups (COALESCE, EEE): one u8/u32 attribute per knob ---- */

/* The attributes the group's knobs read: u8 for booleans, u32 for numbers (the kernel's policies). */
static void group_widths(const KnobBackend *be, uint8_t width[ETHTOOL_ATTRS_MAX]) {
        memset(width, 0, ETHTOOL_ATTRS_MAX);
        for (int k = 0; k < _KNOB_MAX; k++)
                if (knob_of_backend(k, be))
                        width[knob_get(k)->nl_attr] = knob_get(k)->type == KNOB_TYPE_BOOL ? 1 : 4;
}

int backend_parse_group_reply(const KnobBackend *be, const void *buf, size_t len, EthtoolAttrs *ret) {
        uint8_t width[ETHTOOL_ATTRS_MAX];

        group_widths(be, width);
        return ethtool_nl_parse_attrs(buf, len, width, ret);
}

static int group_get(Backend *b, const KnobBackend *be, const Nic *n, EthtoolAttrs *ret, EthtoolError *err) {
        uint8_t width[ETHTOOL_ATTRS_MAX];
        int r;

        r = need_interface(b, n, err);
        if (r < 0)
                return r;
        group_widths(be, width);
        return ethtool_nl_attrs_get(b->nl, be->get_cmd, be->header_attr, nic_ifname(n), width, ret, err);
}

static void group_read(Backend *b, const KnobBackend *be, const Nic *n, KnobReading out[_KNOB_MAX]) {
        EthtoolAttrs a = {};
        EthtoolError err;
        int r;

        r = group_get(b, be, n, &a, &err);
        for (int k = 0; k < _KNOB_MAX; k++) {
                if (!knob_of_backend(k, be))
                        continue;
                if (r < 0)
                        knob_reading_fail(&out[k], err.error ?: r, err.message);
                else if (!a.present[knob_get(k)->nl_attr])
                        knob_reading_fail(&out[k], -EOPNOTSUPP, "the driver does not support this parameter");
                else
                        out[k] = (KnobReading) { .status = KNOB_STATUS_OK, .value = a.value[knob_get(k)->nl_attr] };
        }
}

static int group_read_items(Backend *b, const KnobBackend *be, const Nic *n, KnobBatch *batch, KnobReading out[_KNOB_MAX],
                            EthtoolError *err) {
        EthtoolAttrs a = {};
        int r;

        r = group_get(b, be, n, &a, err);
        for (size_t i = 0; i < batch->n; i++) {
                KnobBatchItem *it = &batch->items[i];
                uint16_t attr = knob_get(it->knob)->nl_attr;
                it->error = r < 0 ? (err->error ?: r) : a.present[attr] ? 0 : -EOPNOTSUPP;
                it->now = a.value[attr];
                if (!out)
                        continue;
                if (it->error < 0)
                        knob_reading_fail(&out[it->knob], it->error, r < 0 ? err->message : NULL);
                else
                        out[it->knob] = (KnobReading) { .status = KNOB_STATUS_OK, .value = it->now };
        }
        return r;
}

static int group_write_items(Backend *b, const KnobBackend *be, const Nic *n, const KnobBatch *batch, EthtoolError *err) {
        uint16_t attrs[KNOB_BATCH_MAX];
        uint8_t widths[KNOB_BATCH_MAX];
        uint32_t values[KNOB_BATCH_MAX];
        int r;

        r = need_writable_interface(b, n, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < batch->n; i++) {
                const Knob *k = knob_get(batch->items[i].knob);
                attrs[i] = k->nl_attr;
                widths[i] = k->type == KNOB_TYPE_BOOL ? 1 : 4;
                values[i] = (uint32_t) batch->items[i].value;
        }
        return ethtool_nl_attrs_set(b->nl, be->set_cmd, be->header_attr, nic_ifname(n), attrs, widths, values, batch->n, err);
}

/* ---- the descriptors ---- */

const KnobBackend knob_backends[_KNOB_BACKEND_MAX] = {
        [KNOB_BACKEND_LINK] = {
                .id = KNOB_BACKEND_LINK, .name = "pcie-link", .journal_kind = "link", .words = { "0", "1" },
                /* The link/ group sits on the downstream end of the link: the NIC itself. */
                .sysfs_dir = "bus/pci/devices/", .sysfs_subdir = "/link",
                .read = sysfs_read, .expand = backend_expand_by_knob, .read_items = sysfs_read_items, .write_items = sysfs_write_items,
        },
        [KNOB_BACKEND_FEATURE] = {
                .id = KNOB_BACKEND_FEATURE, .name = "ethtool-features", .journal_kind = "feature", .words = { "off", "on" },
                .by_feature = true, .batch = true, .drift_ntf = ETHTOOL_MSG_FEATURES_NTF,
                .read = features_read, .expand = features_expand, .read_items = features_read_items,
                .write_items = features_write_items,
        },
        [KNOB_BACKEND_COALESCE] = {
                .id = KNOB_BACKEND_COALESCE, .name = "ethtool-coalesce", .journal_kind = "coalesce", .words = { "off", "on" },
                .drift_ntf = ETHTOOL_MSG_COALESCE_NTF, .get_cmd = ETHTOOL_MSG_COALESCE_GET,
                .set_cmd = ETHTOOL_MSG_COALESCE_SET, .header_attr = ETHTOOL_A_COALESCE_HEADER,
                .read = group_read, .expand = backend_expand_by_knob, .read_items = group_read_items, .write_items = group_write_items,
        },
        [KNOB_BACKEND_NETDEV] = {
                .id = KNOB_BACKEND_NETDEV, .name = "netdev-sysfs", .journal_kind = "netdev", .words = { "0", "1" },
                .sysfs_dir = "class/net/", .sysfs_by_ifname = true,
                .read = sysfs_read, .expand = backend_expand_by_knob, .read_items = sysfs_read_items, .write_items = sysfs_write_items,
        },
        [KNOB_BACKEND_RUNTIME_PM] = {
                .id = KNOB_BACKEND_RUNTIME_PM, .name = "runtime-pm", .journal_kind = "power", .words = { "auto", "on" },
                .words_only = true, .sysfs_dir = "bus/pci/devices/", .sysfs_subdir = "/power",
                .read = sysfs_read, .expand = backend_expand_by_knob, .read_items = sysfs_read_items, .write_items = sysfs_write_items,
        },
        [KNOB_BACKEND_EEE] = {
                .id = KNOB_BACKEND_EEE, .name = "ethtool-eee", .journal_kind = "eee", .words = { "off", "on" },
                .drift_ntf = ETHTOOL_MSG_EEE_NTF, .get_cmd = ETHTOOL_MSG_EEE_GET, .set_cmd = ETHTOOL_MSG_EEE_SET,
                .header_attr = ETHTOOL_A_EEE_HEADER,
                .read = group_read, .expand = backend_expand_by_knob, .read_items = group_read_items, .write_items = group_write_items,
        },
};

const KnobBackend *knob_backend_from_journal_kind(const char *kind) {
        for (int i = 0; i < _KNOB_BACKEND_MAX; i++)
                if (knob_backends[i].journal_kind && streq(knob_backends[i].journal_kind, kind))
                        return &knob_backends[i];
        return NULL;
}

void backend_read_all(Backend *b, const Nic *n, KnobReading out[_KNOB_MAX]) {
        backend_read_needed(b, n, NULL, out);
}

void backend_read_needed(Backend *b, const Nic *n, const bool needed[_KNOB_MAX], KnobReading out[_KNOB_MAX]) {
        for (int i = 0; i < _KNOB_BACKEND_MAX; i++) {
                bool any = !needed;

                for (int k = 0; k < _KNOB_MAX && !any; k++)
                        any = needed[k] && knob_of_backend(k, &knob_backends[i]);
                if (any) {
                        knob_backends[i].read(b, &knob_backends[i], n, out);
                        continue;
                }
                /* One request fewer (an ethtool one takes the RTNL lock): nothing planned here reads it. */
                for (int k = 0; k < _KNOB_MAX; k++)
                        if (knob_of_backend(k, &knob_backends[i]))
                                knob_reading_fail(&out[k], -ENODATA, "not read: nothing is planned for it");
        }
}

int backend_read_knob(Backend *b, const Nic *n, KnobId k, uint64_t *ret) {
        const KnobBackend *be = knob_get(k)->backend;
        KnobBatch batch = {};
        EthtoolError err = {};
        int r;

        if (be->by_feature)
                return -EOPNOTSUPP; /* its items are kernel features, not the knob */
        r = knob_batch_add(&batch, k, knob_get(k)->name, 0);
        if (r >= 0)
                r = be->read_items(b, be, n, &batch, NULL, &err);
        if (r >= 0)
                r = batch.items[0].error;
        if (r < 0)
                return r;
        *ret = batch.items[0].now;
        return 0;
}
