/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <signal.h>
#include <sys/stat.h>

#include "apply/apply.h"
#include "base/log.h"
#include "decide/nic-log.h"

static KnobState *knob_state(ApplyContext *ctx, KnobId k) {
        return ctx->knobs ? &ctx->knobs[k] : NULL;
}

static void set_held(ApplyContext *ctx, KnobId k, bool v) {
        KnobState *s = knob_state(ctx, k);
        if (s && v)
                knob_state_clear_failure(s), s->held_said = false;
        if (s)
                s->held = v;
}

/* A knob asked for that does not hold: in this apply's counts and, for the daemon, the knob's own. */
static void count_failed(ApplyContext *ctx, KnobId k, ApplyStats *st) {
        st->failed++;
        if (ctx->knobs)
                ctx->knobs[k].failures++;
}

static void after_write(ApplyContext *ctx) {
        ctx->writes++;
        if (ctx->fault_after > 0 && ctx->writes == ctx->fault_after)
                raise(ctx->fault_signal);
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

/* Whether a knob's journal items are the knob itself (not kernel features it covers). */
static bool items_are_knobs(KnobId k) {
        return !knob_get(k)->backend->by_feature;
}

/* A write the kernel refused: "not supported" is a state of the NIC, anything else a failure. */
static void report_write_error(ApplyContext *ctx, const Nic *n, const PlanItem *it, int r, const EthtoolError *err,
                               ApplyStats *st) {
        bool unsupported = knob_status_from_errno(r) == KNOB_STATUS_UNSUPPORTED;
        char want[KNOB_VALUE_MAX], old_s[KNOB_VALUE_MAX], e[256];
        const char *old = items_are_knobs(it->knob) ? fmt(it->knob, it->current.value, old_s) : NULL;
        KnobState *s = knob_state(ctx, it->knob);

        if (unsupported) {
                st->unsupported++;
                st->refused++;
        } else
                count_failed(ctx, it->knob, st);
        fmt(it->knob, it->desired, want);
        /* The service keeps the reason for whoever asks it (Nic.Failures), as its journal has it; a
         * longer one is cut there (the journal keeps it whole). */
        if (s)
                knob_state_set_failure(s, "setting %s%s%s -> %s failed: %s", knob_get(it->knob)->name, old ? " " : "", old ?: "",
                                       want, errtext(err, r, e, sizeof(e)));
        log_nic_knob(unsupported ? LOG_WARNING : LOG_ERR, unsupported ? R8T_MESSAGE_KNOB_UNSUPPORTED : R8T_MESSAGE_KNOB_FAILED, n,
                     &(KnobChange){ it->knob, old, want, &it->why }, r, "setting %s%s%s -> %s failed: %s",
                     knob_get(it->knob)->name, old ? " " : "", old ?: "", want, errtext(err, r, e, sizeof(e)));
}

static int journal_open(ApplyContext *ctx, const Nic *n, UndoJournal *j) {
        _cleanup_(diag_done) Diagnostics d = {};
        int r;

        /* No mkdir: the NIC's lock, taken before, is in that directory (lock.c makes it). */
        r = undo_load(ctx->state_dir, n->slot, j, &d);
        if (r < 0)
                return log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, r, "cannot read its undo journal %s/%s: %s; not touching this NIC",
                               ctx->state_dir, n->slot,
                               r == -EBADF ? "not a regular file" : r == -EISDIR ? "it is a directory" : strerror(-r));
        for (size_t i = 0; i < d.n; i++)
                log_nic(LOG_WARNING, R8T_MESSAGE_KNOB_FAILED, n, 0, "%s", d.msgs[i]);
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

/*
 * A state the global ASPM policy keeps off (TLP's PCIE_ASPM_ON_*, powertop): writing it would
 * read back 0, and writing again would not change that. Not written; said once, at notice,
 * until it holds or the plan stops asking (the daemon's knob state), at debug after.
 */
static void apply_held(ApplyContext *ctx, const Nic *n, const PlanItem *it, const char *policy, ApplyStats *st) {
        KnobState *s = knob_state(ctx, it->knob);
        char want[KNOB_VALUE_MAX], now[KNOB_VALUE_MAX];

        st->held_off++;
        log_nic_knob(s && s->held_said ? LOG_DEBUG : LOG_NOTICE, R8T_MESSAGE_KNOB_LEFT_ALONE, n,
                     &(KnobChange){ it->knob, fmt(it->knob, it->current.value, now), fmt(it->knob, it->desired, want), &it->why },
                     0, "%s stays %s, not the %s planned: held off by the global ASPM policy %s (pcie_aspm.policy); not written",
                     knob_get(it->knob)->name, now, want, policy);
        if (s)
                s->held_said = true;
}

static void apply_skip(ApplyContext *ctx, const Nic *n, const PlanItem *it, ApplyStats *st) {
        char want[KNOB_VALUE_MAX];
        const char *why = it->current.message[0] ? it->current.message
                          : it->current.error ? strerror(-it->current.error) : knob_status_to_string(it->current.status);

        if (it->current.status == KNOB_STATUS_UNSUPPORTED || it->current.status == KNOB_STATUS_ABSENT) {
                KnobState *s = knob_state(ctx, it->knob);
                bool said = s && s->unsupported_said;
                st->unsupported++;
                if (s)
                        s->unsupported_said = true;
                log_nic_knob(said ? LOG_DEBUG : LOG_WARNING, R8T_MESSAGE_KNOB_UNSUPPORTED, n,
                             &(KnobChange){ it->knob, NULL, fmt(it->knob, it->desired, want), &it->why }, it->current.error,
                             "%s %s on this NIC (%s); %s not applied", knob_get(it->knob)->name,
                             it->current.status == KNOB_STATUS_UNSUPPORTED ? "is not supported" : "does not exist", why, want);
        } else {
                bool waiting = ctx->daemon && it->current.status == KNOB_STATUS_NO_INTERFACE;
                if (waiting)
                        st->waiting++;
                else
                        count_failed(ctx, it->knob, st);
                log_nic_knob(waiting ? LOG_DEBUG : LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n,
                             &(KnobChange){ it->knob, NULL, fmt(it->knob, it->desired, want), &it->why }, it->current.error,
                             "cannot read %s (%s); %s not applied", knob_get(it->knob)->name, why, want);
        }
}

/*
 * What the kernel holds after our write, into the journal (in memory), so restore knows
 * what is ours; whether that differs from what was saved (the kernel kept another value).
 */
static bool journal_note(UndoJournal *j, const KnobBatch *batch) {
        bool changed = false;

        for (size_t i = 0; i < batch->n; i++) {
                const KnobBatchItem *it = &batch->items[i];
                UndoEntry *e = undo_find(j, knob_get(it->knob)->backend->id, it->name);

                if (it->error < 0 || !e)
                        continue;
                if (!it->existed && it->now == e->original) {
                        undo_remove(j, e); /* nothing changed: nothing to give back */
                        changed = true;
                } else if (e->set != it->now || e->has_pending) {
                        /* Saved as "set, pending" it is right on disk already where the kernel took the pending value. */
                        changed = changed || !(e->has_pending && e->pending == it->now);
                        e->set = it->now;
                        e->has_pending = false;
                }
        }
        return changed;
}

/* One write request: the plan items of one backend (all of a batched one) and the kernel items they expand to. */
typedef struct ApplyStep {
        const PlanItem *items[_KNOB_MAX];
        size_t n_items;
        KnobBatch batch;
        int r; /* expanding failed: reported, nothing recorded or written */
} ApplyStep;

static void step_prepare(ApplyContext *ctx, const Nic *n, ApplyStep *s, ApplyStats *st) {
        const KnobBackend *be = knob_get(s->items[0]->knob)->backend;
        EthtoolError err = {};

        s->r = 0;
        for (size_t i = 0; i < s->n_items && s->r >= 0; i++) {
                s->r = knob_batch_add(&s->batch, s->items[i]->knob, knob_get(s->items[i]->knob)->name, s->items[i]->desired);
                if (s->r >= 0)
                        s->batch.items[s->batch.n - 1].original = s->items[i]->current.value;
        }
        if (s->r >= 0)
                s->r = be->expand(ctx->backend, be, n, &s->batch, &err);
        if (s->r < 0)
                for (size_t i = 0; i < s->n_items; i++)
                        report_write_error(ctx, n, s->items[i], s->r, &err, st);
}

/*
 * Every original of every step into the journal and onto the disk, once, before anything
 * is written: one save per apply, not one per write. A journal that cannot be saved
 * changes nothing, and what it held in memory is what it held before.
 */
static int steps_record(const Nic *n, UndoJournal *j, ApplyStep *steps, size_t n_steps, ApplyStats *st) {
        _cleanup_free_ UndoEntry *saved = j->n ? malloc(j->n * sizeof(UndoEntry)) : NULL;
        size_t saved_n = j->n, recorded = 0;
        int r = 0;

        if (j->n && !saved)
                r = -ENOMEM;
        else if (saved)
                memcpy(saved, j->entries, j->n * sizeof(UndoEntry));
        for (size_t s = 0; s < n_steps && r >= 0; s++) {
                const KnobBackend *be = knob_get(steps[s].items[0]->knob)->backend;
                for (size_t i = 0; steps[s].r >= 0 && i < steps[s].batch.n && r >= 0; i++) {
                        KnobBatchItem *it = &steps[s].batch.items[i];
                        UndoEntry *e = undo_find(j, be->id, it->name);

                        it->existed = e != NULL;
                        if (e)
                                undo_settle(e, it->original);
                        r = undo_record(j, be->id, it->name, it->original, it->value);
                        recorded++;
                }
        }
        if (r >= 0 && recorded > 0)
                r = undo_save(j);
        if (r >= 0)
                return 0;
        if (saved || saved_n == 0) {
                free(j->entries);
                j->entries = TAKE_PTR(saved);
                j->n = saved_n;
        }
        for (size_t s = 0; s < n_steps; s++) {
                if (steps[s].r < 0)
                        continue;
                steps[s].r = r;
                for (size_t i = 0; i < steps[s].n_items; i++) {
                        char old[KNOB_VALUE_MAX], want[KNOB_VALUE_MAX];
                        const PlanItem *it = steps[s].items[i];
                        fmt(it->knob, it->current.value, old);
                        fmt(it->knob, it->desired, want);
                        st->failed++;
                        log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, &(KnobChange){ it->knob, old, want, &it->why }, r,
                                     "cannot record the original %s=%s in %s: %s; not changed", knob_get(it->knob)->name, old,
                                     j->path, strerror(-r));
                }
        }
        return r;
}

/*
 * One write request, its originals already on disk: write, read back, say per knob what the
 * kernel now holds; whether the journal needs saving again.
 */
static bool step_write(ApplyContext *ctx, const Nic *n, ApplyStep *s, UndoJournal *j, ApplyStats *st) {
        const KnobBackend *be = knob_get(s->items[0]->knob)->backend;
        KnobReading after[_KNOB_MAX];
        EthtoolError err = {}, rerr = {};
        bool dirty;
        int r = 0;

        if (s->batch.n > 0) {
                r = be->write_items(ctx->backend, be, n, &s->batch, &err);
                after_write(ctx);
        }
        /* One read back serves the journal (the items) and the report (the knobs' readings). */
        for (size_t i = 0; i < s->n_items; i++)
                knob_reading_fail(&after[s->items[i]->knob], -EIO, "not read back");
        if (s->batch.n > 0)
                (void) be->read_items(ctx->backend, be, n, &s->batch, after, &rerr);
        else
                be->read(ctx->backend, be, n, after);
        dirty = journal_note(j, &s->batch);
        if (r < 0) {
                for (size_t i = 0; i < s->n_items; i++)
                        report_write_error(ctx, n, s->items[i], r, &err, st);
                return dirty;
        }
        for (size_t i = 0; i < s->n_items; i++) {
                const PlanItem *it = s->items[i];
                const KnobReading *now = &after[it->knob];
                const char *name = knob_get(it->knob)->name;
                char old[KNOB_VALUE_MAX], want[KNOB_VALUE_MAX], now_s[KNOB_VALUE_MAX];

                fmt(it->knob, it->current.value, old);
                fmt(it->knob, it->desired, want);
                if (it->current.partial)
                        snprintf(old, sizeof(old), "partial");
                if (now->status != KNOB_STATUS_OK) {
                        count_failed(ctx, it->knob, st);
                        log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, &(KnobChange){ it->knob, old, want, &it->why },
                                     now->error, "wrote %s=%s but cannot read it back: %s", name, want,
                                     knob_status_to_string(now->status));
                } else if (now->value != it->desired || now->partial) {
                        /* e.g. an ASPM state the BIOS left off stays off under the default policy */
                        count_failed(ctx, it->knob, st);
                        if (knob_state(ctx, it->knob))
                                knob_state(ctx, it->knob)->kept_other = true;
                        log_nic_knob(LOG_WARNING, R8T_MESSAGE_KNOB_FAILED, n,
                                     &(KnobChange){ it->knob, old, now->partial ? "partial" : fmt(it->knob, now->value, now_s),
                                                    &it->why },
                                     0, "asked for %s %s, the kernel kept %s", name, want,
                                     now->partial ? "some of its features as they were" : now_s);
                } else {
                        st->changed++;
                        set_held(ctx, it->knob, true);
                        /* Dynamic link power's transitions are routine: at debug, with a summary now and then. */
                        log_nic_knob(it->why.kind == PROVENANCE_LINK_POWER ? LOG_DEBUG : LOG_INFO, R8T_MESSAGE_KNOB_CHANGED, n,
                                     &(KnobChange){ it->knob, old, want, &it->why }, 0, "%s %s -> %s", name, old, want);
                }
        }
        return dirty;
}

/* A NIC-less stand-in so messages about a vanished NIC still carry its slot. */
static Nic nic_placeholder(const char *slot, const UndoJournal *j) {
        Nic n = { .xid = CHIP_XID_INVALID, .xid2 = CHIP_XID2_INVALID };
        memcpy(n.slot, slot, PCI_SLOT_LEN);
        if (j && j->ifname[0]) {
                memcpy(n.ifnames[0], j->ifname, IFNAMSIZ);
                n.n_ifnames = 1;
        }
        return n;
}

static bool kept(const bool *keep, KnobId k) { return keep && k >= 0 && keep[k]; }

/* Restores one write request's items: written together, read back, reported per knob. */
static void restore_step(ApplyContext *ctx, const Nic *n, UndoJournal *j, KnobBatch *batch, ApplyStats *st) {
        const KnobBackend *be = knob_get(batch->items[0].knob)->backend;
        EthtoolError err = {}, rerr = {};
        char es[256];
        int r;

        r = be->write_items(ctx->backend, be, n, batch, &err);
        after_write(ctx);
        (void) be->read_items(ctx->backend, be, n, batch, NULL, &rerr);

        /* One message per knob, naming the kernel features it covered where those are its items. */
        for (int k = 0; k < _KNOB_MAX; k++) {
                char done[400] = "", failed[400] = "", from[KNOB_VALUE_MAX] = "", to[KNOB_VALUE_MAX] = "";
                bool any_done = false, any_failed = false;

                for (size_t i = 0; i < batch->n; i++) {
                        KnobBatchItem *it = &batch->items[i];
                        UndoEntry *e;
                        char *list;
                        size_t l;

                        if (it->knob != (KnobId) k)
                                continue;
                        fmt(k, it->set, from);
                        fmt(k, it->value, to);
                        e = undo_find(j, be->id, it->name);
                        if (r >= 0 && it->error == 0 && it->now == it->value) {
                                any_done = true;
                                list = done;
                                if (e)
                                        undo_remove(j, e);
                        } else {
                                any_failed = true;
                                list = failed;
                        }
                        l = strlen(list);
                        snprintf(list + l, sizeof(done) - l, "%s%s", l ? ", " : "", it->name);
                }
                st->restored += any_done;
                st->failed += any_failed;
                if (any_done && items_are_knobs(k))
                        log_nic_knob(LOG_INFO, R8T_MESSAGE_KNOB_RESTORED, n, &(KnobChange){ k, from, to, NULL }, 0,
                                     "%s %s -> %s (restored)", knob_get(k)->name, from, to);
                else if (any_done)
                        log_nic_knob(LOG_INFO, R8T_MESSAGE_KNOB_RESTORED, n, &(KnobChange){ k, from, to, NULL }, 0,
                                     "%s %s -> %s (restored: %s)", knob_get(k)->name, from, to, done);
                if (any_failed)
                        log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, &(KnobChange){ k, from, to, NULL }, r,
                                     "restoring %s to %s failed%s%s: %s; kept in %s", knob_get(k)->name, to,
                                     items_are_knobs(k) ? "" : " for ", items_are_knobs(k) ? "" : failed,
                                     r < 0 ? errtext(&err, r, es, sizeof(es)) : "the kernel kept another value", j->path);
        }
        r = undo_save(j);
        if (r < 0)
                log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, r, "cannot update the undo journal %s: %m", j->path);
}

/* The journal's entries not kept, as one batch per backend, with what r8169-tuned had set. */
static void restore_collect(const UndoJournal *j, const bool *keep, KnobBatch all[_KNOB_BACKEND_MAX]) {
        for (size_t i = 0; i < j->n; i++) {
                const UndoEntry *e = &j->entries[i];
                KnobBatchItem *it;

                if (kept(keep, e->knob) || knob_batch_add(&all[e->kind], e->knob, e->name, e->original) < 0)
                        continue;
                it = &all[e->kind].items[all[e->kind].n - 1];
                it->set = e->set;
                it->has_pending = e->has_pending;
                it->pending = e->pending;
        }
}

/*
 * One backend's entries, read now: each is forgotten (gone from this kernel, back at its
 * original, kept off by the tx-timeout guard, changed by someone else) or goes into todo.
 */
static void restore_sort_out(ApplyContext *ctx, const Nic *n, UndoJournal *j, const KnobBackend *be, KnobBatch *batch,
                             KnobBatch *todo, ApplyStats *st) {
        EthtoolError err = {};
        char es[256];
        int rr = be->read_items(ctx->backend, be, n, batch, NULL, &err);

        for (size_t i = 0; i < batch->n; i++) {
                KnobBatchItem *it = &batch->items[i];
                KnobId k = it->knob;
                char orig[KNOB_VALUE_MAX], set[KNOB_VALUE_MAX], now_s[KNOB_VALUE_MAX];

                fmt(k, it->value, orig);
                fmt(k, it->set, set);
                if (rr >= 0 && it->error == -ENOENT && !items_are_knobs(k)) {
                        undo_remove(j, undo_find(j, be->id, it->name)); /* this kernel has no such feature */
                } else if (it->error < 0) {
                        count_failed(ctx, k, st);
                        log_nic_knob(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, &(KnobChange){ k, set, orig, NULL }, it->error,
                                     "cannot read %s (%s); its original %s stays in %s", it->name,
                                     it->error == err.error && err.message[0]
                                             ? errtext(&err, it->error, es, sizeof(es))
                                             : knob_status_to_string(knob_status_from_errno(it->error)),
                                     orig, j->path);
                } else if (it->now == it->value) {
                        st->at_original++;
                        undo_remove(j, undo_find(j, be->id, it->name));
                } else if (ctx->l1_guard && knob_get(k)->l1 && it->value != 0) {
                        /* A link that timed out never gets L1 turned on again, not even to give an original back. */
                        log_nic_knob(LOG_NOTICE, R8T_MESSAGE_KNOB_LEFT_ALONE, n, &(KnobChange){ k, set, orig, NULL }, 0,
                                     "%s stays %s, not the original %s: this link had a tx timeout", it->name, set, orig);
                        undo_remove(j, undo_find(j, be->id, it->name));
                } else if (it->now != it->set && !(it->has_pending && it->now == it->pending)) {
                        st->left_alone++;
                        log_nic_knob(LOG_NOTICE, R8T_MESSAGE_KNOB_LEFT_ALONE, n,
                                     &(KnobChange){ k, fmt(k, it->now, now_s), orig, NULL }, 0,
                                     "%s is %s, not the %s r8169-tuned set: changed by someone else since, left alone "
                                     "(original was %s)",
                                     it->name, now_s, set, orig);
                        undo_remove(j, undo_find(j, be->id, it->name));
                } else if (knob_batch_add(todo, k, it->name, it->value) >= 0)
                        todo->items[todo->n - 1].set = it->now; /* ours: set, or a pending write that happened */
        }
}

/*
 * Gives back every journal entry not kept: what is still ours is written back,
 * in the safe write order of the originals; what someone else changed since is
 * left alone and forgotten.
 */
static void restore_entries(ApplyContext *ctx, const Nic *n, UndoJournal *j, const bool *keep, ApplyStats *st) {
        KnobBatch all[_KNOB_BACKEND_MAX] = {};
        KnobBatch todo = {};
        bool done[_KNOB_BACKEND_MAX] = {};
        size_t before = j->n;

        restore_collect(j, keep, all);
        for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                if (all[b].n > 0)
                        restore_sort_out(ctx, n, j, &knob_backends[b], &all[b], &todo, st);
        if (j->n != before)
                (void) undo_save(j); /* what is forgotten is forgotten on disk too, before anything is written */

        /* The order apply would write the originals in; a batched backend in one request at its first place. */
        for (size_t a = 1; a < todo.n; a++)
                for (size_t b = a; b > 0 && knob_write_rank(todo.items[b - 1].knob, todo.items[b - 1].value) >
                                            knob_write_rank(todo.items[b].knob, todo.items[b].value); b--) {
                        KnobBatchItem t = todo.items[b];
                        todo.items[b] = todo.items[b - 1];
                        todo.items[b - 1] = t;
                }
        for (size_t i = 0; i < todo.n; i++) {
                const KnobBackend *be = knob_get(todo.items[i].knob)->backend;
                KnobBatch step = {};

                if (done[be->id])
                        continue;
                if (be->batch) {
                        for (size_t k = i; k < todo.n; k++)
                                if (knob_get(todo.items[k].knob)->backend == be)
                                        step.items[step.n++] = todo.items[k];
                        done[be->id] = true;
                } else
                        step.items[step.n++] = todo.items[i];
                restore_step(ctx, n, j, &step, st);
        }
}

/*
 * Before any change: the journal, where there are changes to record or (give_back) entries
 * the plan no longer asks for, which go back first. < 0: nothing may be changed.
 */
static int apply_journal(ApplyContext *ctx, const Nic *n, const bool keep[_KNOB_MAX], size_t changes, UndoJournal *j,
                         ApplyStats *st) {
        char path[4096];
        int r;

        snprintf(path, sizeof(path), "%s/%s", ctx->state_dir, n->slot);
        if (changes == 0 && !(ctx->give_back && access(path, F_OK) >= 0))
                return 0;
        r = journal_open(ctx, n, j);
        if (r < 0 && changes > 0) {
                st->failed += (unsigned) changes;
                return r;
        }
        if (r >= 0 && ctx->give_back && j->n > 0) {
                ApplyStats given = *st;
                restore_entries(ctx, n, j, keep, st);
                if (st->restored + st->left_alone + st->failed > given.restored + given.left_alone + given.failed)
                        log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, n, 0, "%u given back, %u left alone, %u failed",
                                st->restored - given.restored, st->left_alone - given.left_alone, st->failed - given.failed);
        }
        if (changes > 0 && (j->n_raw > 0 || j->truncated)) {
                /* Recording anew could replace an original we cannot read: never lose one. */
                st->failed += (unsigned) changes;
                return log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, EBADMSG,
                               "undo journal has lines it cannot parse; not changing this NIC until it is "
                               "repaired or removed (restore puts back what it can read)");
        }
        return 0;
}

/* The plan's items in order: kept ones said, skipped ones reported, changes gathered into steps. */
static size_t apply_steps_prepare(ApplyContext *ctx, const Nic *n, const NicPlan *p, UndoJournal *j, ApplyStep *steps,
                                  ApplyStats *st) {
        bool done[_KNOB_BACKEND_MAX] = {};
        size_t n_steps = 0;

        /* "held off" is said again once the plan stops asking for it held (apply_held()). */
        for (int k = 0; ctx->knobs && k < _KNOB_MAX; k++) {
                const PlanItem *it = plan_items_find(p->items, p->n, k);
                if (!it || it->action != PLAN_HELD)
                        ctx->knobs[k].held_said = false;
        }
        for (size_t i = 0; i < p->n; i++) {
                const PlanItem *it = &p->items[i];
                const KnobBackend *be = knob_get(it->knob)->backend;
                ApplyStep *step;

                if (it->action == PLAN_KEEP) {
                        st->unchanged++;
                        /* The kernel's own value, shown: not ours to hold, so another tool changing it is no drift. */
                        if (!it->taken_over)
                                set_held(ctx, it->knob, true);
                        /* A write left pending by a kill, which the kernel took: ours, and settled (saved with the next change). */
                        if (j->path && items_are_knobs(it->knob))
                                undo_settle(undo_find(j, be->id, knob_get(it->knob)->name), it->current.value);
                } else if (it->action == PLAN_SKIP)
                        apply_skip(ctx, n, it, st);
                else if (it->action == PLAN_HELD)
                        apply_held(ctx, n, it, p->aspm_policy, st);
                else if (it->action == PLAN_CHANGE && !done[be->id]) {
                        step = &steps[n_steps++];
                        /* A batched backend: all its changes together, where the first one stands in the order. */
                        if (be->batch) {
                                for (size_t k = i; k < p->n; k++)
                                        if (p->items[k].action == PLAN_CHANGE && knob_get(p->items[k].knob)->backend == be)
                                                step->items[step->n_items++] = &p->items[k];
                                done[be->id] = true;
                        } else
                                step->items[step->n_items++] = it;
                        step_prepare(ctx, n, step, st);
                }
        }
        return n_steps;
}

/* One line for the NIC: what changed, what was right, what is not supported or failed. */
static void apply_summary(const Nic *n, const NicPlan *p, size_t changes, const ApplyStats *before, const ApplyStats *st) {
        bool routine = true;

        for (size_t i = 0; i < p->n; i++)
                routine = routine && (p->items[i].action != PLAN_CHANGE || p->items[i].why.kind == PROVENANCE_LINK_POWER);
        if (routine && changes > 0 && st->failed == before->failed)
                log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, n, 0, "link power: %u changed", st->changed - before->changed);
        else if (st->waiting > before->waiting && st->changed + st->failed == before->changed + before->failed)
                log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, n, 0, "waiting for its network interface");
        else
                log_nic(st->failed > before->failed ? LOG_WARNING : LOG_INFO, R8T_MESSAGE_NIC_TUNED, n, 0,
                        "%u changed, %u already right, %u not supported, %u failed%s", st->changed - before->changed,
                        st->unchanged - before->unchanged, st->unsupported - before->unsupported, st->failed - before->failed,
                        st->held_off > before->held_off ? ", some held off by the global ASPM policy" : "");
}

int apply_nic(ApplyContext *ctx, const Nic *n, const NicPlan *p, ApplyStats *st) {
        _cleanup_(undo_done) UndoJournal j = {};
        ApplyStats before = *st;
        bool keep[_KNOB_MAX] = {};
        _cleanup_free_ ApplyStep *steps = NULL;
        size_t changes = 0, n_steps;
        int r;

        for (int k = 0; k < _KNOB_MAX; k++) {
                set_held(ctx, k, false);
                if (knob_state(ctx, k)) {
                        knob_state(ctx, k)->kept_other = false;
                        knob_state_clear_failure(knob_state(ctx, k));
                }
        }
        for (size_t i = 0; i < p->n; i++) {
                changes += p->items[i].action == PLAN_CHANGE;
                keep[p->items[i].knob] = p->items[i].action != PLAN_EXCLUDED;
        }
        r = apply_journal(ctx, n, keep, changes, &j, st);
        if (r < 0)
                return r;
        if (p->ignored) {
                log_nic(LOG_INFO, R8T_MESSAGE_NIC_IGNORED, n, 0, "ignored (%s:%u)", p->ignored_by.file, p->ignored_by.line);
                /* What was given back before (give_back) may have failed: said, and the exit says so. */
                return st->failed > before.failed ? -EIO : 0;
        }
        steps = changes ? calloc(changes, sizeof(ApplyStep)) : NULL;
        if (changes && !steps) {
                st->failed += (unsigned) changes;
                return log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, ENOMEM, "not changed: %m");
        }
        n_steps = apply_steps_prepare(ctx, n, p, &j, steps, st);
        if (n_steps > 0 && steps_record(n, &j, steps, n_steps, st) >= 0) {
                bool dirty = false;

                for (size_t i = 0; i < n_steps; i++)
                        if (steps[i].r >= 0)
                                dirty = step_write(ctx, n, &steps[i], &j, st) || dirty;
                /* As saved, where the kernel took every value: one save for the whole apply. */
                r = dirty ? undo_save(&j) : 0;
                if (r < 0)
                        log_nic(LOG_WARNING, R8T_MESSAGE_KNOB_FAILED, n, r, "cannot update the undo journal %s: %m", j.path);
        }
        apply_summary(n, p, changes, &before, st);
        /*
         * What the NIC does not have is a state of the NIC, as plan (skip) and verify (as planned)
         * say, not a failure (issue 45 M1); a write the kernel refused after plan read the knob
         * leaves it not as planned, and is one.
         */
        return st->failed > before.failed || st->refused > before.refused ? -EIO : 0;
}

int restore_nic(ApplyContext *ctx, const Nic *n, const char *slot, ApplyStats *st) {
        _cleanup_(undo_done) UndoJournal j = {};
        ApplyStats before = *st;
        int r;

        if (!n) {
                _cleanup_(diag_done) Diagnostics d = {};
                Nic gone;

                r = undo_load(ctx->state_dir, slot, &j, &d);
                gone = nic_placeholder(slot, r >= 0 ? &j : NULL);
                if (r >= 0 && j.n + j.n_raw > 0) {
                        st->failed += (unsigned) j.n;
                        log_nic(LOG_WARNING, R8T_MESSAGE_NIC_GONE, &gone, ENODEV,
                                "not present; keeping its %zu original value%s in %s", j.n, j.n == 1 ? "" : "s", j.path);
                }
                return r < 0 ? r : -ENODEV;
        }
        r = journal_open(ctx, n, &j);
        if (r < 0)
                return r;
        restore_entries(ctx, n, &j, NULL, st);
        r = j.truncated ? 0 : undo_save(&j);
        if (r < 0)
                log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, n, r, "cannot update the undo journal %s: %m", j.path);
        if (j.truncated)
                log_nic(LOG_WARNING, R8T_MESSAGE_KNOB_FAILED, n, EFBIG,
                        "%s is larger than an undo journal can be: what could be read was restored, the file stays as it "
                        "is; remove it once the values are right", j.path);
        if (j.n_raw > 0)
                log_nic(LOG_WARNING, R8T_MESSAGE_KNOB_FAILED, n, EBADMSG,
                        "%zu line%s of %s could not be read and stay%s there", j.n_raw, j.n_raw == 1 ? "" : "s", j.path,
                        j.n_raw == 1 ? "s" : "");
        if (st->restored + st->left_alone + st->failed > before.restored + before.left_alone + before.failed)
                log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, n, 0, "%u restored, %u left alone, %u failed",
                        st->restored - before.restored, st->left_alone - before.left_alone, st->failed - before.failed);
        else if (st->at_original > before.at_original) { /* every value was back already (by hand): said (ux-findings L9) */
                unsigned back = st->at_original - before.at_original;
                log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, n, 0, "0 restored: the %u value%s r8169-tuned recorded %s at %s original%s "
                        "already", back, back == 1 ? "" : "s", back == 1 ? "is" : "are", back == 1 ? "its" : "their",
                        back == 1 ? "" : "s");
        }
        return st->failed > before.failed ? -EIO : 0;
}
