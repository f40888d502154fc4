/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <sys/prctl.h>

#include "base/log.h"
#include "daemon/link.h"
#include "decide/nic-log.h"
#include "kernel/rtnl.h"
#include "state/lock.h"

static uint64_t now_usec(const LinkEnv *e) { return (e->clock ?: now_monotonic_usec)(); }

void link_env_done(LinkEnv *e) {
        if (e->stats)
                nl_socket_free(e->stats);
        e->stats = NULL;
}

void link_done(Link *l) {
        knob_states_done(l->knobs);
}

void link_init(Link *l, const Nic *n, bool record_possible) {
        *l = (Link) { .nic = *n, .dirty = true, .power.record = record_possible };
}

LinkWork link_merge(Link *l, Link *old, const Nic *found) {
        *l = *old;
        /* What the old one owned moves with it (the old set is freed with link_done() on each). */
        for (int k = 0; k < _KNOB_MAX; k++)
                old->knobs[k].failure = NULL;
        /* Interfaces get renamed; the identity (slot, MAC, XID) stays. */
        memcpy(l->nic.ifnames, found->ifnames, sizeof(found->ifnames));
        l->nic.n_ifnames = found->n_ifnames;
        memcpy(l->nic.driver, found->driver, sizeof(found->driver));
        l->queued = false;
        /* What rtnetlink said of an interface follows its name; a renamed one is applied again (the apply reads first). */
        for (size_t k = 0; k < NIC_MAX_IFNAMES; k++) {
                bool known = k >= l->nic.n_ifnames;

                l->ifaces[k] = (LinkIface) {};
                for (size_t j = 0; !known && j < old->nic.n_ifnames; j++)
                        if (streq(old->nic.ifnames[j], l->nic.ifnames[k])) {
                                l->ifaces[k] = old->ifaces[j];
                                known = true;
                        }
                if (!known) {
                        log_debug("%s: renamed; applying.", l->nic.ifnames[k]);
                        l->dirty = true;
                }
        }
        return l->dirty || l->drift_check ? LINK_WORK_QUEUE : 0;
}

void link_reload(Link *l) {
        for (int k = 0; k < _KNOB_MAX; k++)
                l->knobs[k].yielded = l->knobs[k].drift_logged = false;
        l->power.stopped = NULL; /* the state, its times and what was found stay */
}

int link_sample_ifindex(const Link *l) {
        /* Up with carrier: a laptop's unplugged port stays up, and is not sampled. */
        for (size_t k = 0; k < l->nic.n_ifnames; k++)
                if (l->ifaces[k].up && l->ifaces[k].carrier && l->ifaces[k].ifindex > 0)
                        return l->ifaces[k].ifindex;
        return 0;
}

/* Where status, diagnose and metrics find it: the state, the time in each, the transitions. */
static void link_power_save(Link *l, LinkEnv *e, uint64_t now) {
        LinkPowerRecord rec;
        int r;

        link_power_record_from(&rec, &l->power.lp, now, l->power.stopped);
        r = link_power_record_save(e->opts->state_dir, l->nic.slot, &rec);
        l->power.record = true;
        if (r < 0)
                log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, &l->nic, r, "cannot save the link power record: %m");
}

/* Dynamic link power ends for this link until a reload: said once, at notice, with why (a string that lives on). */
static void link_power_stop(Link *l, LinkEnv *e, const char *why) {
        if (l->power.stopped)
                return;
        l->power.stopped = why;
        l->power.active = false;
        log_nic(LOG_NOTICE, R8T_MESSAGE_NIC_TUNED, &l->nic, 0, "dynamic link power is off for this link: %s", why);
        link_power_save(l, e, now_usec(e));
}

void link_power_no_socket(Link *l, LinkEnv *e, int r) {
        if (l->power.stopped)
                return;
        /* The unit's sandbox as shipped: no CAP_NET_RAW in the bounding set (EPERM), no AF_PACKET
         * (its seccomp filter's EAFNOSUPPORT). Anything else is said as it is. */
        if (r == -EAFNOSUPPORT || (r == -EPERM && prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0, 0, 0) == 0)) {
                log_nic(LOG_WARNING, R8T_MESSAGE_NIC_TUNED, &l->nic, r,
                        "dynamic link power needs a packet socket, which the service may not open (%m): the unit grants "
                        "CAP_NET_RAW and AF_PACKET only with its drop-in; link " R8T_LINK_POWER_DROPIN
                        " into /etc/systemd/system/r8169-tuned.service.d/, then systemctl daemon-reload and "
                        "systemctl restart r8169-tuned (r8169-tuned.conf(5), DYNAMIC LINK POWER)");
                link_power_stop(l, e, "the service may not open a packet socket (the unit's link-power drop-in grants it)");
                return;
        }
        log_nic(LOG_WARNING, R8T_MESSAGE_NIC_TUNED, &l->nic, r, "cannot open a packet socket on %s to wake on its traffic: %m",
                nic_ifname(&l->nic) ?: "its interface");
        link_power_stop(l, e, "no packet socket to wake it on traffic");
}

/* Before a plan: the rule's parameters, from the configuration in force (set up once per NIC). */
static void link_power_prepare(Link *l, LinkEnv *e) {
        LinkPowerParams p = { e->c->config.link_power_busy_pps, e->c->config.link_power_quiet_s * 1000000 };

        if (l->power.init) {
                if (memcmp(&p, &l->power.lp.params, sizeof(p)) != 0)
                        link_power_set_params(&l->power.lp, &p); /* a reload: new thresholds, the state and its times stay */
                return;
        }
        link_power_init(&l->power.lp, &p, now_usec(e));
        l->power.summary_usec = now_usec(e);
        l->power.init = true;
}

/* Sampled now or not: in charge, and the link up with carrier. */
static LinkWork link_power_update(Link *l, LinkEnv *e) {
        bool active = l->power.in_charge && !l->power.stopped && l->state != LINK_STATE_RELEASED && link_sample_ifindex(l) > 0;
        LinkWork w = 0;

        if (active && !l->power.active)
                link_power_save(l, e, now_usec(e));
        /* No traffic without a link: L1 goes back on at once (an unplugged laptop would otherwise stay out of deep idle). */
        if (!active && l->power.active && link_power_idle(&l->power.lp, now_usec(e))) {
                log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, &l->nic, 0, "link power: no link, L1 on");
                link_power_save(l, e, now_usec(e));
                l->dirty = true;
                w = LINK_WORK_QUEUE;
        }
        l->power.active = active;
        return w;
}

/*
 * The substates as found, before link power ever turned L1 off (which masks them): the
 * journal's originals where it has them (a daemon before this one may have left L1 off),
 * else what the plan read.
 */
static void link_power_read_found(Link *l, LinkEnv *e, const KnobReading current[_KNOB_MAX]) {
        _cleanup_(undo_done) UndoJournal j = {};
        _cleanup_(diag_done) Diagnostics d = {};
        bool have = undo_load(e->opts->state_dir, l->nic.slot, &j, &d) >= 0;

        for (int k = 0; k < _KNOB_MAX; k++) {
                const UndoEntry *en = have ? undo_find(&j, knob_get(k)->backend->id, knob_get(k)->name) : NULL;
                if (!knob_get(k)->l1 || (!en && current[k].status != KNOB_STATUS_OK))
                        continue;
                l->power.plan.found_known[k] = true;
                l->power.plan.found[k] = (en ? en->original : current[k].value) != 0;
        }
        l->power.found_read = true;
}

/* After the apply: in charge or not, what L1 holds now, and whether it is sampled. */
static LinkWork link_power_applied(Link *l, LinkEnv *e, const NicPlan *plan, const KnobReading current[_KNOB_MAX]) {
        uint64_t v;

        if (plan->link_power_asked && plan->link_power_blocked)
                link_power_stop(l, e, plan->link_power_blocked);
        l->power.in_charge = plan->link_power >= 0;
        if (!l->power.in_charge) {
                /* Not under link power (any more): no record that would tell otherwise (one unlink, not one per apply). */
                if (!plan->link_power_asked && l->power.record && link_power_record_remove(e->opts->state_dir, l->nic.slot) >= 0)
                        l->power.record = false;
                return link_power_update(l, e);
        }
        if (l->power.lp.transitions == 0 && !l->power.found_read)
                link_power_read_found(l, e, current);
        /* What the kernel made of our write: under the default policy L1 comes on only where the BIOS enabled it. */
        l->power.expect = backend_read_knob(&e->c->backend, &l->nic, KNOB_L1_ASPM, &v) >= 0 ? v
                                                                                         : plan->link_power == LINK_POWER_IDLE;
        if (plan->link_power == LINK_POWER_IDLE && l->knobs[KNOB_L1_ASPM].kept_other)
                link_power_stop(l, e, "the kernel keeps L1 off on this link (the BIOS did not enable it, and the "
                                      "ASPM policy is default)");
        else if (plan->link_power == LINK_POWER_IDLE && plan_items_find(plan->items, plan->n, KNOB_L1_ASPM) &&
                 plan_items_find(plan->items, plan->n, KNOB_L1_ASPM)->action == PLAN_HELD)
                link_power_stop(l, e, "the global ASPM policy holds L1 off (pcie_aspm.policy)");
        return link_power_update(l, e);
}

static const char *const link_state_names[_LINK_STATE_MAX] = {
        [LINK_STATE_TUNED] = "tuned",
        [LINK_STATE_WAITING] = "waiting",
        [LINK_STATE_FAILED] = "failed",
        [LINK_STATE_RELEASED] = "released",
};

const char *link_state_to_string(LinkState s) { return link_state_names[s]; }

static LinkState link_applied_state(const Link *l) {
        return l->failed ? LINK_STATE_FAILED : l->waiting ? LINK_STATE_WAITING : LINK_STATE_TUNED;
}

static void link_set_state(Link *l, LinkState s) {
        if (s != l->state)
                log_debug("%s: %s -> %s.", nic_ifname(&l->nic) ?: l->nic.slot, link_state_names[l->state], link_state_names[s]);
        l->state = s;
}

bool link_take_back(Link *l) {
        if (l->state != LINK_STATE_RELEASED)
                return false;
        link_set_state(l, link_applied_state(l));
        return true;
}

/* What the last plan asked of each knob: what drift is measured against. */
static void link_note_desired(Link *l, const NicPlan *plan, const ApplyStats *st) {
        for (int i = 0; i < _KNOB_MAX; i++)
                l->knobs[i].desired_set = false;
        for (size_t i = 0; i < plan->n; i++)
                if ((plan->items[i].action == PLAN_CHANGE || plan->items[i].action == PLAN_KEEP) && !plan->items[i].taken_over) {
                        l->knobs[plan->items[i].knob].desired_set = true;
                        l->knobs[plan->items[i].knob].desired = plan->items[i].desired;
                }
        l->failed = st->failed;
        l->waiting = st->waiting;
        l->unsupported = st->unsupported;
        link_set_state(l, link_applied_state(l));
}

/* Another tool changed knob k from what we held to now: said, then yielded (drift = leave) or put back at the apply. */
static void link_drift_said(Link *l, LinkEnv *e, KnobId k, const KnobReading *now) {
        KnobState *ks = &l->knobs[k];
        char was[KNOB_VALUE_MAX], is[KNOB_VALUE_MAX];
        const char *was_s = knob_format_value(k, ks->desired, was, sizeof(was));
        const char *is_s = now->partial ? "partial" : knob_format_value(k, now->value, is, sizeof(is));

        ks->held = false;
        if (e->c->config.drift == DRIFT_LEAVE) {
                ks->yielded = true;
                log_nic_knob(LOG_NOTICE, R8T_MESSAGE_DRIFT, &l->nic, &(KnobChange){ k, was_s, is_s, NULL }, 0,
                             "%s changed from %s to %s outside r8169-tuned; leaving it (drift = leave)", knob_get(k)->name, was_s,
                             is_s);
                return;
        }
        log_nic_knob(ks->drift_logged ? LOG_DEBUG : LOG_NOTICE, R8T_MESSAGE_DRIFT, &l->nic, &(KnobChange){ k, was_s, is_s, NULL },
                     0, "%s changed from %s to %s outside r8169-tuned; putting %s back", knob_get(k)->name, was_s, is_s, was_s);
        ks->drift_logged = true;
}

/*
 * Knobs no notification tells about (sysfs: the link states, netdev attributes, runtime PM),
 * found at the next apply (an event: link up, resume, power source) at another value than the
 * one we held, with the plan still asking ours: another tool wrote it (TLP's RUNTIME_PM_ON_BAT,
 * a hand's echo). Said, then as drift says: put back once (one write per event, not a loop),
 * or left to it.
 */
static void link_drift_at_apply(Link *l, LinkEnv *e, const NicPlan *plan, const KnobReading current[_KNOB_MAX]) {
        for (size_t i = 0; i < plan->n; i++) {
                const PlanItem *it = &plan->items[i];
                const KnobState *ks = &l->knobs[it->knob];

                if (knob_get(it->knob)->backend->drift_ntf || it->action != PLAN_CHANGE || !ks->held || !ks->desired_set ||
                    ks->desired != it->desired || ks->yielded || current[it->knob].status != KNOB_STATUS_OK)
                        continue;
                link_drift_said(l, e, it->knob, &current[it->knob]);
        }
}

/* Its first interface as rtnetlink told it: its ifindex; -1 not there (neither ethtool nor its directory is asked); 0 not told. */
static int link_ifindex(const Link *l) {
        return l->ifaces[0].ifindex > 0 ? l->ifaces[0].ifindex : l->ifaces[0].absent ? -1 : 0;
}

/*
 * Dynamic link power as the plan takes it (NULL: L1 planned statically): not where it stopped,
 * nor where the service may not wake on traffic (the unit without its drop-in).
 */
static const PlanLinkPower *link_power_planned(const Link *l, const LinkEnv *e) {
        return l->power.stopped || e->packet_wake_error < 0 ? NULL : &l->power.plan;
}

/* drift = leave: what another tool took over stays with it until a reload, out of the plan. */
static void plan_drop_yielded(const Link *l, NicPlan *plan) {
        size_t k = 0;

        for (size_t i = 0; i < plan->n; i++)
                if (!l->knobs[plan->items[i].knob].yielded)
                        plan->items[k++] = plan->items[i];
        plan->n = k;
}

void link_plan_now(Link *l, LinkEnv *e, bool read_all, KnobReading current[_KNOB_MAX], NicPlan *plan) {
        PlanLinkPower lp = l->power.plan;
        const PlanLinkPower *planned = link_power_planned(l, e);

        lp.state = l->power.lp.state;
        backend_begin(&e->c->backend, &l->nic, link_ifindex(l), false);
        if (read_all) {
                backend_read_all(&e->c->backend, &l->nic, current);
                context_plan_nic_read_daemon(e->c, &l->nic, planned ? &lp : NULL, current, plan);
        } else
                context_plan_nic_daemon(e->c, &l->nic, planned ? &lp : NULL, current, plan);
        backend_end(&e->c->backend);
        plan_drop_yielded(l, plan);
}

LinkWork link_apply(Link *l, LinkEnv *e) {
        ApplyContext ac = { .backend = &e->c->backend, .state_dir = e->opts->state_dir, .knobs = l->knobs,
                            .daemon = true, .give_back = true, .writes = e->writes,
                            .fault_after = e->opts->fault_after_writes, .fault_signal = e->opts->fault_signal };
        KnobReading current[_KNOB_MAX];
        _cleanup_close_ int lock = -1;
        ApplyStats st = {};
        NicPlan plan;
        LinkWork w;

        if (l->state == LINK_STATE_RELEASED)
                return 0;
        /* Unbound, or bound to a driver that is not a NIC's we tune (vfio-pci): nothing to write (said by link_rebound()). */
        if (!nic_driver_tunable(&l->nic)) {
                log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, &l->nic, 0, "not applied: %s",
                        l->nic.driver[0] ? "its driver is not a NIC driver r8169-tuned tunes" : "no driver bound");
                l->dirty = false;
                return 0;
        }
        /* Read, plan, write and record as the only writer of this NIC; never wait in the event loop. */
        lock = lock_nic(e->opts->state_dir, l->nic.slot, 0);
        if (lock < 0) {
                log_nic(lock == -EAGAIN ? LOG_DEBUG : LOG_ERR, R8T_MESSAGE_KNOB_FAILED, &l->nic, lock,
                        lock == -EAGAIN ? "another writer holds it; trying again shortly" : "cannot take its lock: %m");
                /* Still to do: the worker keeps it queued, the retry wakes it (a queue now would spin on the lock). */
                l->dirty = true;
                return lock == -EAGAIN ? LINK_WORK_RETRY : 0;
        }
        link_power_prepare(l, e);
        l->power.plan.state = l->power.lp.state;
        /* By ifindex, as rtnetlink told it (the kernel checks it against the name); none: ethtool is not asked. */
        backend_begin(&e->c->backend, &l->nic, link_ifindex(l), true);
        /* Where the service may not wake on traffic (the unit without its drop-in), planned without
         * dynamic link power from the start, one read and one plan; if it was asked for and would
         * run here, said now, at every start and reload, not when the link is next quiet. */
        context_plan_nic_daemon(e->c, &l->nic, link_power_planned(l, e), current, &plan);
        if (e->packet_wake_error < 0 && !l->power.stopped && plan.link_power_asked && !plan.link_power_blocked)
                link_power_no_socket(l, e, e->packet_wake_error);
        context_record_tx_guard(e->c, &l->nic, &plan);
        link_drift_at_apply(l, e, &plan, current);
        plan_drop_yielded(l, &plan);

        ac.l1_guard = plan.tx_guard;
        (void) apply_nic(&ac, &l->nic, &plan, &st);
        backend_end(&e->c->backend);
        e->writes = ac.writes;
        w = link_power_applied(l, e, &plan, current);
        link_note_desired(l, &plan, &st);
        return w;
}

/* Whether knob k, of one of these backends, is held at a value the kernel no longer has. */
static bool link_knob_drifted(const Link *l, unsigned backends, KnobId k, const KnobReading now[_KNOB_MAX]) {
        const KnobState *ks = &l->knobs[k];

        if (!(backends & (1u << knob_get(k)->backend->id)) || !ks->desired_set || !ks->held)
                return false;
        return now[k].status == KNOB_STATUS_OK && (now[k].value != ks->desired || now[k].partial);
}

/*
 * Another tool changed a knob whose backend tells us (an ethtool notification): only the
 * backends that notified are read, one request each (our own writes notify too).
 */
LinkWork link_check_drift(Link *l, LinkEnv *e, unsigned backends) {
        KnobReading now[_KNOB_MAX] = {};
        bool marked = false;

        if (l->state == LINK_STATE_RELEASED)
                return 0;
        for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                if (backends & (1u << b))
                        knob_backends[b].read(&e->c->backend, &knob_backends[b], &l->nic, now);
        for (int k = 0; k < _KNOB_MAX; k++) {
                if (!link_knob_drifted(l, backends, k, now))
                        continue;
                link_drift_said(l, e, k, &now[k]);
                if (!l->knobs[k].yielded)
                        l->dirty = marked = true;
        }
        return marked ? LINK_WORK_QUEUE : 0;
}

unsigned link_ethtool_notified(const Link *l, unsigned backends, const EthtoolFeatures *features) {
        KnobReading now[_KNOB_MAX] = {};
        unsigned decoded = 0;
        bool drifted = false;

        /*
         * The notification says what the kernel holds (our own writes notify too): where that is
         * what we hold, nothing is read. A difference may be a notification older than our
         * latest write, so only then is the kernel asked, by the worker.
         */
        if (!features)
                return backends;
        for (int b = 0; b < _KNOB_BACKEND_MAX; b++)
                if ((backends & (1u << b)) && knob_backends[b].by_feature)
                        decoded |= 1u << b;
        for (int k = 0; k < _KNOB_MAX && decoded; k++)
                if (decoded & (1u << knob_get(k)->backend->id)) {
                        backend_feature_reading(features, k, &now[k]);
                        drifted = drifted || link_knob_drifted(l, decoded, k, now);
                }
        return drifted ? backends : backends & ~decoded;
}

LinkWork link_iface_changed(Link *l, LinkEnv *e, size_t k, int ifindex, bool up, bool carrier) {
        LinkIface *i = &l->ifaces[k];
        bool appeared = i->ifindex != ifindex, came_up = up && !i->up;
        LinkWork w;

        i->ifindex = ifindex;
        i->absent = false;
        i->up = up;
        i->carrier = carrier;
        /* No samples, and no wakeups, while the link is down or has no carrier. */
        w = link_power_update(l, e);
        /* r8169 rewrites IntrMitigate on every open: re-apply when the interface comes up. */
        if (!appeared && !came_up)
                return w;
        if (appeared)
                log_debug("%s: appeared (ifindex %d); applying.", l->nic.ifnames[k], ifindex);
        else
                log_debug("%s: up; re-applying.", l->nic.ifnames[k]);
        l->dirty = true;
        return w | LINK_WORK_QUEUE | LINK_WORK_NOW;
}

LinkWork link_iface_removed(Link *l, LinkEnv *e, size_t k, int ifindex) {
        if (l->ifaces[k].ifindex != ifindex)
                return 0;
        l->ifaces[k] = (LinkIface) { .absent = true, .seen = l->ifaces[k].seen };
        return link_power_update(l, e);
}

void link_forget_absent(Link *l) {
        for (size_t k = 0; k < NIC_MAX_IFNAMES; k++)
                l->ifaces[k].absent = false;
}

static int packets_rtnl(LinkEnv *e, int ifindex, uint64_t *ret) {
        int r;

        if (!e->stats) {
                r = rtnl_stats_open(&e->stats);
                if (r < 0)
                        return r;
        }
        return rtnl_link_packets(e->stats, ifindex, ret);
}

LinkPowerWant link_power_want(const Link *l) {
        if (!l->power.active)
                return LINK_POWER_WANT_NOTHING;
        return l->power.lp.state == LINK_POWER_IDLE ? LINK_POWER_WANT_WAKE : LINK_POWER_WANT_SAMPLE;
}

/*
 * Before a decision: a tx timeout, or L1 written by someone else since our last write, ends
 * it (nothing is read of the NIC: both are the kernel's own state). False: it ended, *ret
 * says what the manager is to do.
 */
static bool link_power_may_decide(Link *l, LinkEnv *e, LinkWork *ret) {
        uint64_t v;

        *ret = 0;
        /* A tx timeout first: it stops link power at once, and the apply that follows puts the
         * link under the guard (r8169 turns L1 off itself then, since 6.3: not a hand-written value). */
        if (nic_read_tx_timeouts(e->c->root, &l->nic, &v) >= 0 && v > 0) {
                l->power.active = false;
                l->dirty = true;
                *ret = LINK_WORK_QUEUE;
                return false;
        }
        /* Written by hand since our last write: the other writer keeps L1, said once. */
        if (backend_read_knob(&e->c->backend, &l->nic, KNOB_L1_ASPM, &v) >= 0 && v != l->power.expect) {
                for (int k = 0; k < _KNOB_MAX; k++)
                        if (knob_get(k)->l1)
                                l->knobs[k].yielded = true;
                link_power_stop(l, e, v ? "link/l1_aspm was set to 1 outside r8169-tuned"
                                        : "link/l1_aspm was set to 0 outside r8169-tuned");
                return false;
        }
        return true;
}

/* The state changed: the apply that follows writes it. */
static LinkWork link_power_changed(Link *l, LinkEnv *e, uint64_t now) {
        log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, &l->nic, 0, "link power: %s, L1 %s (quiet time %.2f s)",
                link_power_state_to_string(l->power.lp.state), l->power.lp.state == LINK_POWER_BUSY ? "off" : "on",
                (double) l->power.lp.quiet_usec / 1e6);
        link_power_save(l, e, now);
        l->dirty = true;
        return LINK_WORK_QUEUE | LINK_WORK_NOW;
}

LinkWork link_power_window_done(Link *l, LinkEnv *e, uint64_t now, uint64_t packets) {
        LinkWork w;

        if (link_power_want(l) != LINK_POWER_WANT_WAKE)
                return 0;
        /* The kernel's state first (nothing of the NIC): a stray frame then decides nothing. */
        if (!link_power_may_decide(l, e, &w))
                return w;
        if (link_power_woken(&l->power.lp, l->power.window_start, now, packets))
                return link_power_changed(l, e, now);
        link_power_save(l, e, now); /* the stray counted where status reads it (a file in /run) */
        return 0;
}

LinkWork link_sample_power(Link *l, LinkEnv *e, uint64_t now) {
        uint64_t packets;
        LinkWork w;
        int r;

        if (link_power_want(l) != LINK_POWER_WANT_SAMPLE)
                return 0;
        if (!link_power_may_decide(l, e, &w))
                return w;
        r = (e->packets ?: packets_rtnl)(e, link_sample_ifindex(l), &packets);
        if (r < 0) {
                /* No socket: said once. Gone between the link's notification and now: the notification that follows decides. */
                if (!e->stats && !e->packets) {
                        if (!e->stats_warned)
                                log_nic(LOG_WARNING, R8T_MESSAGE_NIC_TUNED, &l->nic, r, "cannot read packet counters: %m");
                        e->stats_warned = true;
                } else
                        log_nic(LOG_DEBUG, R8T_MESSAGE_NIC_TUNED, &l->nic, r, "cannot read its packet counters: %m");
                return 0;
        }
        w = link_power_sample(&l->power.lp, now, packets) ? link_power_changed(l, e, now) : 0;
        if (now >= l->power.summary_usec + 3600ull * 1000000) {
                uint64_t idle = link_power_time(&l->power.lp, LINK_POWER_IDLE, now),
                         busy = link_power_time(&l->power.lp, LINK_POWER_BUSY, now);

                log_nic(LOG_INFO, R8T_MESSAGE_NIC_TUNED, &l->nic, 0,
                        "link power: L1 on %.1f%% of %.1f h, %u transitions, %u wakeups (%u stray), quiet time %.2f s",
                        100.0 * (double) idle / (double) (idle + busy + 1), (double) (idle + busy) / 3600e6,
                        l->power.lp.transitions, l->power.lp.wakeups, l->power.lp.strays, (double) l->power.lp.quiet_usec / 1e6);
                l->power.summary_usec = now;
                link_power_save(l, e, now);
        }
        return w;
}

void link_restore(Link *l, LinkEnv *e, unsigned wait_ms, ApplyStats *st) {
        ApplyContext ac = { .backend = &e->c->backend, .state_dir = e->opts->state_dir, .daemon = true,
                            .writes = e->writes, .fault_after = e->opts->fault_after_writes,
                            .fault_signal = e->opts->fault_signal };
        _cleanup_close_ int lock = lock_nic(e->opts->state_dir, l->nic.slot, wait_ms);
        uint64_t timeouts;

        ac.l1_guard = context_tx_guard(e->c, &l->nic, &timeouts);
        if (lock < 0) {
                st->failed++;
                log_nic(LOG_ERR, R8T_MESSAGE_KNOB_FAILED, &l->nic, lock, "cannot take its lock (%m); its originals stay in %s",
                        e->opts->state_dir);
        } else
                (void) restore_nic(&ac, &l->nic, l->nic.slot, st);
        e->writes = ac.writes;
}

void link_release(Link *l, LinkEnv *e, unsigned wait_ms, ApplyStats *st) {
        link_set_state(l, LINK_STATE_RELEASED);
        l->dirty = false;
        l->drift_check = 0;
        /* Link power hands L1 back too: no sample may take the original for someone else's write. */
        l->power.in_charge = l->power.active = false;
        if (l->power.record && link_power_record_remove(e->opts->state_dir, l->nic.slot) >= 0)
                l->power.record = false;
        link_restore(l, e, wait_ms, st);
        /* Given back: nothing is held any more, so what another tool (or the experiment) writes next is no drift. */
        for (int k = 0; k < _KNOB_MAX; k++)
                l->knobs[k].held = l->knobs[k].desired_set = false;
}

void link_stopped(Link *l, LinkEnv *e) {
        /* Nobody samples any more: a record left behind would tell status of a daemon that is gone. */
        (void) link_power_record_remove(e->opts->state_dir, l->nic.slot);
}

/*
 * A driver bound to or unbound from a managed function. r8169 disables ASPM L1 in its probe
 * and nowhere else, and the mask lives on the link, so every unbind and bind of r8169 (a module
 * reload, a switch to r8168 and back, PCI error recovery) undoes an "L1 on" choice, and another
 * driver inherits L1 off. After a bind the link is marked to apply again (the caller's rescan
 * reads the driver and the interfaces); after an unbind nothing is written: no driver to tune.
 */
void link_rebound(Link *l, sd_device *d) {
        const char *driver = NULL;
        sd_device_action_t action = _SD_DEVICE_ACTION_INVALID;

        (void) sd_device_get_action(d, &action);
        (void) sd_device_get_driver(d, &driver);
        /* The probe (or the unbind) rewrote what we held: what the next apply finds is no other tool's drift. */
        for (int k = 0; k < _KNOB_MAX; k++)
                l->knobs[k].held = l->knobs[k].desired_set = l->knobs[k].drift_logged = false;
        if (action == SD_DEVICE_UNBIND)
                log_nic(LOG_NOTICE, R8T_MESSAGE_NIC_GONE, &l->nic, 0,
                        "%s unbound from it (a module reload, a switch of driver or PCI error recovery); its link keeps "
                        "the ASPM states the driver left", l->nic.driver[0] ? l->nic.driver : "its driver");
        else if (driver && streq(driver, "r8169"))
                log_nic(LOG_NOTICE, R8T_MESSAGE_NIC_TUNED, &l->nic, 0,
                        "r8169 bound to it again: its probe turned ASPM L1 off; applying the plan again");
        else
                /* Applied only where that driver is one r8169-tuned tunes (nic_driver_tunable(), after the rescan). */
                log_nic(LOG_NOTICE, R8T_MESSAGE_NIC_TUNED, &l->nic, 0,
                        "%s bound to it, not r8169: r8169's defaults and the entries written for r8169 do not hold here, "
                        "and L1 stays as r8169's probe left it (off)", driver ?: "another driver");
        if (action == SD_DEVICE_BIND)
                l->dirty = true;
}
