/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fnmatch.h>
#include <signal.h>
#include <sys/stat.h>

#include "apply.h"
#include "log.h"
#include "nic-log.h"

static void set_held(ApplyContext *ctx, KnobId k, bool v) {
        if (ctx->held)
                ctx->held[k] = v;
}

static void after_write(ApplyContext *ctx) {
        ctx->writes++;
        if (ctx->fault_after > 0 && ctx->writes == ctx->fault_after)
                raise(ctx->fault_signal);
}

static UndoKind undo_kind_for(KnobId k) {
        switch (knob_get(k)->backend) {
        case KNOB_BACKEND_LINK: return UNDO_LINK;
        case KNOB_BACKEND_NETDEV: return UNDO_NETDEV;
        case KNOB_BACKEND_COALESCE: return UNDO_COALESCE;
        default: return UNDO_FEATURE;
        }
}

/* Always fills buf, even where the table hands back a constant ("on"). */
static const char *fmt(KnobId k, uint64_t v, char *buf) {
        const char *s = knob_format_value(k, v, buf, KNOB_VALUE_MAX);
        if (s != buf)
                snprintf(buf, KNOB_VALUE_MAX, "%s", s);
        return buf;
}

static const char *errtext(const EthtoolError *e, int r, char *buf, size_t size) {
        if (e->message[0])
                snprintf(buf, size, "%s: %s", strerror(-(e->error ?: r)), e->message);
        else
                snprintf(buf, size, "%s", strerror(-(e->error ?: r)));
        return buf;
}

/* A write the kernel refused: "not supported" is a state of the NIC, anything else a failure. */
static void report_write_error(const Nic *n, const PlanItem *it, const char *old, int r, const EthtoolError *err,
                               ApplyStats *st) {
        bool unsupported = knob_status_from_errno(r) == KNOB_STATUS_UNSUPPORTED;
        char want[KNOB_VALUE_MAX], e[256];

        if (unsupported)
                st->unsupported++;
        else
                st->failed++;
        fmt(it->knob, it->desired, want);
        log_nic_knob(unsupported ? LOG_WARNING : LOG_ERR,
                     unsupported ? R8T_MESSAGE_KNOB_UNSUPPORTED : R8T_MESSAGE_KNOB_FAILED, n, it->knob, old, want,
                     &it->why, r, "setting %s%s%s -> %s failed: %s", knob_get(it->knob)->name, old ? " " : "",
                     old ?: "", want, errtext(err, r, e, sizeof(e)));
}

static int journal_open(ApplyContext *ctx, const Nic *n, UndoJournal *j, bool strict) {
        Diagnostics d = {};
        int r;

        if (mkdir(ctx->state_dir, 0755) < 0 && errno != EEXIST)
                return log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, errno,
                               "cannot create state directory %s: %m; not touching this NIC", ctx->state_dir);
        r = undo_load(ctx->state_dir, n->slot, j, &d);
        if (r < 0)
                return log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, r,
                               "cannot read its undo journal in %s: %m; not touching this NIC", ctx->state_dir);
        for (size_t i = 0; i < d.n; i++)
                log_nic(strict ? LOG_ERR : LOG_WARNING, R8T_MESSAGE_KNOB_FAILED, n, 0, "%s", d.msgs[i]);
        diag_done(&d);
        if (strict && j->n_raw > 0) {
                /* Recording anew could replace an original we cannot read: never lose one. */
                undo_done(j);
                return log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, EBADMSG,
                               "undo journal has lines it cannot parse; not changing this NIC until it is "
                               "repaired or removed (restore puts back what it can read)");
        }
        if (j->mac[0] && n->perm_mac[0] && !streq(j->mac, n->perm_mac)) {
                log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, ESTALE,
                        "undo journal %s is for the NIC with MAC %s, not %s; not touching this NIC (remove the file "
                        "if that card is gone)", j->path, j->mac, n->perm_mac);
                undo_done(j);
                return -ESTALE;
        }
        if (n->perm_mac[0])
                memcpy(j->mac, n->perm_mac, sizeof(j->mac));
        if (nic_ifname(n))
                snprintf(j->ifname, sizeof(j->ifname), "%s", nic_ifname(n));
        return 0;
}

static void apply_skip(ApplyContext *ctx, const Nic *n, const PlanItem *it, ApplyStats *st) {
        char want[KNOB_VALUE_MAX];
        const char *why = it->current.message[0] ? it->current.message
                          : it->current.error ? strerror(-it->current.error) : knob_status_to_string(it->current.status);

        if (it->current.status == KNOB_STATUS_UNSUPPORTED || it->current.status == KNOB_STATUS_ABSENT) {
                bool said = ctx->unsupported_said && ctx->unsupported_said[it->knob];
                st->unsupported++;
                if (ctx->unsupported_said)
                        ctx->unsupported_said[it->knob] = true;
                log_nic_knob(said ? LOG_DEBUG : LOG_WARNING, R8T_MESSAGE_KNOB_UNSUPPORTED, n, it->knob, NULL, fmt(it->knob, it->desired, want),
                             &it->why, it->current.error, "%s %s on this NIC (%s); %s not applied",
                             knob_get(it->knob)->name,
                             it->current.status == KNOB_STATUS_UNSUPPORTED ? "is not supported" : "does not exist",
                             why, want);
        } else {
                bool waiting = ctx->daemon && it->current.status == KNOB_STATUS_NO_INTERFACE;
                if (waiting)
                        st->waiting++;
                else
                        st->failed++;
                log_nic_knob(waiting ? LOG_DEBUG : LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, it->knob, NULL,
                             fmt(it->knob, it->desired, want),
                             &it->why, it->current.error, "cannot read %s (%s); %s not applied",
                             knob_get(it->knob)->name, why, want);
        }
}

/* Link, netdev and coalesce knobs: one value, one write. */
static void apply_scalar(ApplyContext *ctx, const Nic *n, const PlanItem *it, UndoJournal *j, ApplyStats *st) {
        const char *name = knob_get(it->knob)->name;
        UndoKind kind = undo_kind_for(it->knob);
        char old[KNOB_VALUE_MAX], want[KNOB_VALUE_MAX], now_s[KNOB_VALUE_MAX];
        bool existed = undo_find(j, kind, name) != NULL;
        EthtoolError err;
        KnobReading now;
        UndoEntry *entry;
        int r;

        fmt(it->knob, it->current.value, old);
        fmt(it->knob, it->desired, want);
        r = undo_record(j, kind, name, it->current.value, it->desired);
        if (r >= 0)
                r = undo_save(j);
        if (r < 0) {
                st->failed++;
                log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, it->knob, old, want, &it->why, r,
                             "cannot record the original %s=%s in %s: %m; not changed", name, old, j->path);
                return;
        }

        r = backend_write(ctx->backend, n, it->knob, it->desired, &err);
        after_write(ctx);
        backend_read_knob(ctx->backend, n, it->knob, &now);

        /* The journal holds what the kernel has now, so restore knows what is ours. */
        entry = undo_find(j, kind, name);
        if (now.status == KNOB_STATUS_OK && entry) {
                if (!existed && now.value == entry->original)
                        undo_remove(j, entry);
                else
                        entry->set = now.value;
                if (undo_save(j) < 0)
                        log_nic_knob(LOG_WARNING, R8T_MESSAGE_KNOB_FAILED, n, it->knob, old, want, &it->why, errno,
                                     "cannot update the undo journal %s: %m", j->path);
        }

        if (r < 0)
                report_write_error(n, it, old, r, &err, st);
        else if (now.status != KNOB_STATUS_OK) {
                st->failed++;
                log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, it->knob, old, want, &it->why, now.error,
                             "wrote %s=%s but cannot read it back: %s", name, want, knob_status_to_string(now.status));
        } else if (now.value != it->desired) {
                /* e.g. an ASPM state the BIOS left off stays off under the default policy */
                st->failed++;
                log_nic_knob(LOG_WARNING, R8T_MESSAGE_KNOB_FAILED, n, it->knob, old, fmt(it->knob, now.value, now_s),
                             &it->why, 0, "wrote %s=%s but the kernel kept %s", name, want, now_s);
        } else {
                st->changed++;
                set_held(ctx, it->knob, true);
                log_nic_knob(LOG_INFO, R8T_MESSAGE_KNOB_CHANGED, n, it->knob, old, want, &it->why, 0, "%s %s -> %s",
                             name, old, want);
        }
}

typedef struct FeatureBatch {
        const char *names[256];
        bool values[256];
        bool existed[256];
        size_t n;
} FeatureBatch;

static void batch_collect(FeatureBatch *b, const EthtoolFeatures *f, const PlanItem *it) {
        for (size_t i = 0; i < f->n && b->n < ELEMENTSOF(b->names); i++) {
                const EthtoolFeature *e = &f->features[i];
                if (!e->changeable || e->active == (bool) it->desired ||
                    fnmatch(knob_get(it->knob)->pattern, e->name, 0) != 0)
                        continue;
                b->names[b->n] = e->name;
                b->values[b->n++] = it->desired;
        }
}

/* All feature knobs of a NIC in one FEATURES_SET: the kernel fixes up features once, consistently. */
static void apply_features(ApplyContext *ctx, const Nic *n, const PlanItem *const *items, size_t n_items,
                           UndoJournal *j, ApplyStats *st) {
        EthtoolFeatures before = {}, after = {}, refused = {};
        FeatureBatch b = {};
        EthtoolError err = {};
        char e[256];
        int r, rr;

        r = backend_features_get(ctx->backend, n, &before, &err);
        if (r < 0)
                goto fail_all;
        for (size_t i = 0; i < n_items; i++)
                batch_collect(&b, &before, items[i]);
        for (size_t i = 0; i < b.n; i++) {
                b.existed[i] = undo_find(j, UNDO_FEATURE, b.names[i]) != NULL;
                r = undo_record(j, UNDO_FEATURE, b.names[i], !b.values[i], b.values[i]);
                if (r < 0)
                        break;
        }
        if (r >= 0)
                r = undo_save(j);
        if (r < 0) {
                for (size_t i = 0; i < n_items; i++)
                        log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, items[i]->knob, NULL, NULL, &items[i]->why, r,
                                     "cannot record original features in %s: %m; not changed", j->path);
                st->failed += (unsigned) n_items;
                goto out;
        }

        r = b.n > 0 ? backend_features_set(ctx->backend, n, b.names, b.values, b.n, &refused, &err) : 0;
        if (b.n > 0)
                after_write(ctx);
        rr = backend_features_get(ctx->backend, n, &after, &err);
        if (rr >= 0) {
                for (size_t i = 0; i < b.n; i++) {
                        const EthtoolFeature *f = ethtool_features_find(&after, b.names[i]);
                        UndoEntry *entry = undo_find(j, UNDO_FEATURE, b.names[i]);
                        if (!f || !entry)
                                continue;
                        if (!b.existed[i] && f->active == (bool) entry->original)
                                undo_remove(j, entry);
                        else
                                entry->set = f->active;
                }
                (void) undo_save(j);
        }
        if (r < 0 || rr < 0) {
                if (r >= 0)
                        r = rr;
                goto fail_all;
        }

        for (size_t i = 0; i < n_items; i++) {
                const PlanItem *it = items[i];
                char old[KNOB_VALUE_MAX], want[KNOB_VALUE_MAX], miss[200] = "";
                KnobReading now;

                backend_feature_reading(&after, it->knob, &now);
                fmt(it->knob, it->current.value, old);
                fmt(it->knob, it->desired, want);
                if (it->current.partial)
                        snprintf(old, sizeof(old), "partial");
                for (size_t k = 0; k < refused.n; k++)
                        if (fnmatch(knob_get(it->knob)->pattern, refused.features[k].name, 0) == 0) {
                                size_t l = strlen(miss);
                                snprintf(miss + l, sizeof(miss) - l, "%s%s", l ? ", " : "", refused.features[k].name);
                        }
                if (now.status == KNOB_STATUS_OK && now.value == it->desired && !now.partial) {
                        st->changed++;
                        set_held(ctx, it->knob, true);
                        log_nic_knob(LOG_INFO, R8T_MESSAGE_KNOB_CHANGED, n, it->knob, old, want, &it->why, 0,
                                     "%s %s -> %s", knob_get(it->knob)->name, old, want);
                } else {
                        st->failed++;
                        log_nic_knob(LOG_WARNING, R8T_MESSAGE_KNOB_FAILED, n, it->knob, old,
                                     now.partial ? "partial" : fmt(it->knob, now.value, e), &it->why, 0,
                                     "asked for %s %s, the kernel kept %s%s%s", knob_get(it->knob)->name, want,
                                     now.partial ? "some features as they were" : e,
                                     miss[0] ? ": not changed: " : "", miss);
                }
        }
        goto out;

fail_all:
        for (size_t i = 0; i < n_items; i++)
                report_write_error(n, items[i], NULL, r, &err, st);
out:
        ethtool_features_done(&before);
        ethtool_features_done(&after);
        ethtool_features_done(&refused);
}

int apply_nic(ApplyContext *ctx, const Nic *n, const NicPlan *p, ApplyStats *st) {
        const PlanItem *features[_KNOB_MAX];
        size_t n_features = 0, changes = 0;
        bool features_done = false;
        UndoJournal j = {};
        ApplyStats before = *st;
        int r;

        if (ctx->held)
                memset(ctx->held, 0, _KNOB_MAX * sizeof(bool));
        if (p->ignored) {
                log_nic(LOG_INFO, R8T_MESSAGE_NIC_IGNORED, n, 0, "ignored (%s:%u)", p->ignored_by.file, p->ignored_by.line);
                return 0;
        }
        for (size_t i = 0; i < p->n; i++) {
                const PlanItem *it = &p->items[i];
                if (it->action != PLAN_CHANGE)
                        continue;
                changes++;
                if (knob_get(it->knob)->backend == KNOB_BACKEND_FEATURE)
                        features[n_features++] = it;
        }
        if (changes > 0) {
                r = journal_open(ctx, n, &j, true);
                if (r < 0) {
                        st->failed += (unsigned) changes;
                        return r;
                }
        }
        for (size_t i = 0; i < p->n; i++) {
                const PlanItem *it = &p->items[i];
                switch (it->action) {
                case PLAN_KEEP:
                        st->unchanged++;
                        set_held(ctx, it->knob, true);
                        break;
                case PLAN_SKIP:
                        apply_skip(ctx, n, it, st);
                        break;
                case PLAN_CHANGE:
                        if (knob_get(it->knob)->backend != KNOB_BACKEND_FEATURE)
                                apply_scalar(ctx, n, it, &j, st);
                        else if (!features_done) {
                                /* All features together, where the first one stands in the order. */
                                apply_features(ctx, n, features, n_features, &j, st);
                                features_done = true;
                        }
                        break;
                default:
                        break;
                }
        }
        undo_done(&j);
        if (st->waiting > before.waiting && st->changed + st->failed == before.changed + before.failed)
                log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, n, 0, "waiting for its network interface");
        else
                log_nic(st->failed > before.failed ? LOG_WARNING : LOG_INFO, R8T_MESSAGE_NIC_TUNED, n, 0,
                        "%u changed, %u already right, %u not supported, %u failed", st->changed - before.changed,
                        st->unchanged - before.unchanged, st->unsupported - before.unsupported,
                        st->failed - before.failed);
        return st->failed > before.failed || st->unsupported > before.unsupported ? -EIO : 0;
}

/* A NIC-less stand-in so messages about a vanished NIC still carry its slot. */
static Nic nic_placeholder(const char *slot, const UndoJournal *j) {
        Nic n = { .xid = CHIP_XID_INVALID };
        memcpy(n.slot, slot, PCI_SLOT_LEN);
        if (j && j->ifname[0]) {
                memcpy(n.ifnames[0], j->ifname, IFNAMSIZ);
                n.n_ifnames = 1;
        }
        return n;
}

static void restore_scalar(ApplyContext *ctx, const Nic *n, UndoJournal *j, UndoEntry *e, ApplyStats *st) {
        KnobId k = knob_from_name(e->name);
        char orig[KNOB_VALUE_MAX], set[KNOB_VALUE_MAX], now_s[KNOB_VALUE_MAX], es[256];
        EthtoolError err;
        KnobReading now;
        int r;

        fmt(k, e->original, orig);
        fmt(k, e->set, set);
        backend_read_knob(ctx->backend, n, k, &now);
        if (now.status != KNOB_STATUS_OK) {
                st->failed++;
                log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, k, set, orig, NULL, now.error,
                             "cannot read %s (%s); its original %s stays in %s", e->name,
                             knob_status_to_string(now.status), orig, j->path);
                return;
        }
        if (now.value == e->original) {
                undo_remove(j, e);
                return;
        }
        if (now.value != e->set) {
                st->left_alone++;
                log_nic_knob(LOG_NOTICE, R8T_MESSAGE_KNOB_LEFT_ALONE, n, k, fmt(k, now.value, now_s), orig, NULL, 0,
                             "%s is %s, not the %s r8169-tuned set: changed by someone else since, left alone "
                             "(original was %s)", e->name, now_s, set, orig);
                undo_remove(j, e);
                return;
        }
        r = backend_write(ctx->backend, n, k, e->original, &err);
        after_write(ctx);
        backend_read_knob(ctx->backend, n, k, &now);
        if (r >= 0 && now.status == KNOB_STATUS_OK && now.value == e->original) {
                st->restored++;
                log_nic_knob(LOG_INFO, R8T_MESSAGE_KNOB_RESTORED, n, k, set, orig, NULL, 0, "%s %s -> %s (restored)",
                             e->name, set, orig);
                undo_remove(j, e);
        } else {
                st->failed++;
                log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, k, set, orig, NULL, r,
                             "restoring %s to %s failed: %s; kept in %s", e->name, orig,
                             r < 0 ? errtext(&err, r, es, sizeof(es)) : "the kernel kept another value", j->path);
        }
}

static bool kept(const bool *keep, KnobId k) { return keep && k >= 0 && keep[k]; }

static void restore_features(ApplyContext *ctx, const Nic *n, UndoJournal *j, const bool *keep, ApplyStats *st) {
        EthtoolFeatures f = {}, after = {};
        FeatureBatch b = {};
        EthtoolError err = {};
        char es[256];
        int r;

        r = backend_features_get(ctx->backend, n, &f, &err);
        if (r < 0) {
                for (size_t i = 0; i < j->n; i++)
                        if (j->entries[i].kind == UNDO_FEATURE && !kept(keep, knob_from_feature(j->entries[i].name))) {
                                st->failed++;
                                log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, knob_from_feature(j->entries[i].name), NULL, NULL, NULL, r,
                                             "cannot read feature %s (%s); its original stays in %s", j->entries[i].name,
                                             errtext(&err, r, es, sizeof(es)), j->path);
                        }
                return;
        }
        for (size_t i = 0; i < j->n;) {
                UndoEntry *e = &j->entries[i];
                const EthtoolFeature *cur = e->kind == UNDO_FEATURE ? ethtool_features_find(&f, e->name) : NULL;
                KnobId k = knob_from_feature(e->name);

                if (e->kind != UNDO_FEATURE || kept(keep, k)) {
                        i++;
                        continue;
                }
                if (!cur || cur->active == (bool) e->original) {
                        undo_remove(j, e); /* gone from this kernel, or already the original */
                        continue;
                }
                if (cur->active != (bool) e->set) {
                        st->left_alone++;
                        log_nic_knob(LOG_NOTICE, R8T_MESSAGE_KNOB_LEFT_ALONE, n, k, NULL, NULL, NULL, 0,
                                     "feature %s was changed by someone else since, left alone", e->name);
                        undo_remove(j, e);
                        continue;
                }
                if (b.n < ELEMENTSOF(b.names)) {
                        b.names[b.n] = cur->name;
                        b.values[b.n++] = e->original;
                }
                i++;
        }
        if (b.n > 0) {
                r = backend_features_set(ctx->backend, n, b.names, b.values, b.n, NULL, &err);
                after_write(ctx);
                if (r >= 0)
                        r = backend_features_get(ctx->backend, n, &after, &err);
                /* One message per knob, naming the kernel features it covered. */
                for (int k = 0; k < _KNOB_MAX; k++) {
                        char done[400] = "", failed[400] = "", from[KNOB_VALUE_MAX] = "", to[KNOB_VALUE_MAX] = "";
                        for (size_t i = 0; i < b.n; i++) {
                                const EthtoolFeature *now = r >= 0 ? ethtool_features_find(&after, b.names[i]) : NULL;
                                UndoEntry *e = undo_find(j, UNDO_FEATURE, b.names[i]);
                                char *list;
                                size_t l;
                                if (!e || knob_from_feature(b.names[i]) != (KnobId) k)
                                        continue;
                                fmt(k, e->set, from);
                                fmt(k, e->original, to);
                                if (now && now->active == b.values[i]) {
                                        list = done;
                                        undo_remove(j, e);
                                } else
                                        list = failed;
                                l = strlen(list);
                                snprintf(list + l, 400 - l, "%s%s", l ? ", " : "", b.names[i]);
                        }
                        st->restored += done[0] != '\0';
                        st->failed += failed[0] != '\0';
                        if (done[0])
                                log_nic_knob(LOG_INFO, R8T_MESSAGE_KNOB_RESTORED, n, k, from, to, NULL, 0,
                                             "%s %s -> %s (restored: %s)", knob_get(k)->name, from, to, done);
                        if (failed[0])
                                log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, k, from, to, NULL, r,
                                             "restoring %s to %s failed for %s: %s; kept in %s", knob_get(k)->name, to,
                                             failed, r < 0 ? errtext(&err, r, es, sizeof(es)) : "the kernel kept them",
                                             j->path);
                }
        }
        ethtool_features_done(&f);
        ethtool_features_done(&after);
}

static int restore_filtered(ApplyContext *ctx, const Nic *n, const char *slot, const bool *keep, ApplyStats *st) {
        ApplyStats before = *st;
        UndoJournal j = {};
        Nic gone;
        int r;

        if (!n) {
                Diagnostics d = {};
                r = undo_load(ctx->state_dir, slot, &j, &d);
                diag_done(&d);
                gone = nic_placeholder(slot, r >= 0 ? &j : NULL);
                if (r >= 0 && j.n + j.n_raw > 0) {
                        st->failed += (unsigned) j.n;
                        log_nic(LOG_WARNING, R8T_MESSAGE_NIC_GONE, &gone, ENODEV,
                                "not present; keeping its %zu original value%s in %s", j.n, j.n == 1 ? "" : "s", j.path);
                }
                undo_done(&j);
                return r < 0 ? r : -ENODEV;
        }
        r = journal_open(ctx, n, &j, false);
        if (r < 0)
                return r;
        /* Link, netdev and coalesce entries one by one, each saved as it goes. */
        for (size_t i = 0; i < j.n;) {
                UndoEntry *e = &j.entries[i];
                size_t n_before = j.n;
                if (e->kind == UNDO_FEATURE || knob_from_name(e->name) < 0 || kept(keep, knob_from_name(e->name))) {
                        i++;
                        continue;
                }
                restore_scalar(ctx, n, &j, e, st);
                if (j.n == n_before)
                        i++;
                (void) undo_save(&j);
        }
        if (j.n > 0)
                restore_features(ctx, n, &j, keep, st);
        r = undo_save(&j);
        if (r < 0)
                log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, r, "cannot update the undo journal %s: %m", j.path);
        if (j.n_raw > 0)
                log_nic(LOG_WARNING, R8T_MESSAGE_KNOB_FAILED, n, EBADMSG,
                        "%zu line%s of %s could not be read and stay%s there", j.n_raw, j.n_raw == 1 ? "" : "s", j.path,
                        j.n_raw == 1 ? "s" : "");
        undo_done(&j);
        if (st->restored + st->left_alone + st->failed > before.restored + before.left_alone + before.failed)
                log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, n, 0, "%u restored, %u left alone, %u failed",
                        st->restored - before.restored, st->left_alone - before.left_alone, st->failed - before.failed);
        return st->failed > before.failed ? -EIO : 0;
}

int restore_nic(ApplyContext *ctx, const Nic *n, const char *slot, ApplyStats *st) {
        return restore_filtered(ctx, n, slot, NULL, st);
}

int restore_unplanned(ApplyContext *ctx, const Nic *n, const NicPlan *plan, ApplyStats *st) {
        bool keep[_KNOB_MAX] = {};
        char path[4096];

        snprintf(path, sizeof(path), "%s/%s", ctx->state_dir, n->slot);
        if (access(path, F_OK) < 0)
                return 0; /* nothing recorded: nothing to give back */
        for (size_t i = 0; i < plan->n; i++)
                keep[plan->items[i].knob] = plan->items[i].action != PLAN_EXCLUDED;
        return restore_filtered(ctx, n, n->slot, keep, st);
}
