/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "decide/plan.h"

static const char *const action_names[_PLAN_ACTION_MAX] = {
        [PLAN_CHANGE] = "change",
        [PLAN_KEEP] = "keep",
        [PLAN_SKIP] = "skip",
        [PLAN_EXCLUDED] = "excluded",
        [PLAN_HELD_BACK] = "held-back",
        [PLAN_SUGGEST] = "suggest",
        [PLAN_HELD] = "held",
};

const char *plan_action_to_string(PlanAction a) { return a < _PLAN_ACTION_MAX ? action_names[a] : NULL; }

static const char *const provenance_kinds[_PROVENANCE_KIND_MAX] = {
        [PROVENANCE_QUIRK] = "quirk",
        [PROVENANCE_CONFIG] = "config",
        [PROVENANCE_GUARD] = "tx-timeout-guard",
        [PROVENANCE_LINK_POWER] = "link-power",
        [PROVENANCE_WITH_L1] = "with-l1",
};

const char *provenance_kind_to_string(ProvenanceKind k) { return k < _PROVENANCE_KIND_MAX ? provenance_kinds[k] : NULL; }

const char *plan_provenance_string(const Provenance *p, char *buf, size_t size) {
        switch (p->kind) {
        case PROVENANCE_QUIRK:
                snprintf(buf, size, "quirk %s (%s%s)", p->quirk->id, confidence_to_string(p->quirk->confidence) ?: "?",
                         p->quirk->guard_tx_timeout ? ", guard tx-timeout" : "");
                break;
        case PROVENANCE_CONFIG:
                snprintf(buf, size, "%s:%u", p->origin.file, p->origin.line);
                break;
        case PROVENANCE_GUARD:
                snprintf(buf, size, "tx-timeout guard");
                break;
        case PROVENANCE_LINK_POWER:
                snprintf(buf, size, "link-power dynamic");
                break;
        case PROVENANCE_WITH_L1:
                snprintf(buf, size, "with l1_aspm 0");
                break;
        default:
                snprintf(buf, size, "-");
        }
        return buf;
}

/*
 * Dynamic link power, where asked and allowed: L1 and L1.1 follow the link's load; clkpm and
 * the other substates stay the quirk database's. Not where the link/ attributes are missing,
 * not on a link that had a tx timeout, not where a quirk marks the chip static (unless a
 * [device] section asks for it by name), not where a quirk or the configuration decides L1.
 * The kernel masks every L1 substate with L1 (aspm.c: disabling L1 disables L1.1, L1.2 and
 * the PCI-PM ones; enabling L1 does not bring them back; enabling a substate enables L1), so
 * a substate nothing decides is written with L1: off with it, back to what it was when L1
 * comes back; and one a quirk or the configuration turns on waits while the link is busy.
 */
static void plan_link_power(const PlanInput *in, NicPlan *ret, bool set[_KNOB_MAX], const bool skip[_KNOB_MAX],
                            uint64_t value[_KNOB_MAX], Provenance why[_KNOB_MAX]) {
        const LinkPowerSetting *setting;
        const PlanLinkPower *lp = in->link_power;
        bool by_device = false;

        ret->link_power = -1;
        setting = in->config ? config_link_power(in->config, in->nic, in->machine, &by_device) : NULL;
        if (!setting || setting->mode != LINK_POWER_DYNAMIC)
                return;
        ret->link_power_asked = true;
        ret->link_power_origin = setting->origin;
        ret->link_power_busy_pps = in->config->link_power_busy_pps;
        ret->link_power_quiet_s = in->config->link_power_quiet_s;
        for (size_t i = 0; in->quirks && i < in->quirks->n && !ret->link_power_quirk; i++) {
                const Quirk *q = &in->quirks->quirks[i];
                if (q->link_power_static && q->profiles[in->profile] && quirk_matches(q, in->nic, in->machine))
                        ret->link_power_quirk = q;
        }

        if (in->current[KNOB_L1_ASPM].status != KNOB_STATUS_OK)
                ret->link_power_blocked = "this link has no link/l1_aspm attribute";
        else if (in->tx_guard)
                ret->link_power_blocked = "the link had a tx timeout";
        else if (ret->link_power_quirk && !by_device)
                ret->link_power_blocked = "a quirk marks L1 unsafe to switch on this chip";
        else if (set[KNOB_L1_ASPM] || set[KNOB_L1_1_ASPM] || skip[KNOB_L1_ASPM])
                ret->link_power_blocked = why[KNOB_L1_ASPM].kind == PROVENANCE_CONFIG || why[KNOB_L1_1_ASPM].kind == PROVENANCE_CONFIG
                                                  ? "the configuration sets L1 for this NIC"
                                                  : "a quirk sets L1 for this chip";
        for (int k = 0; !ret->link_power_blocked && k < _KNOB_MAX; k++)
                /* Turning L1 off turns it off too, and it may not be written back: not here. */
                if (knob_get(k)->l1 && skip[k] && in->current[k].status == KNOB_STATUS_OK)
                        ret->link_power_blocked = "a quirk keeps r8169-tuned away from an L1 substate, which L1 off would turn off";
        if (ret->link_power_blocked || !lp)
                return;

        for (int k = 0; k < _KNOB_MAX; k++) {
                bool idle = lp->state == LINK_POWER_IDLE, switched = k == KNOB_L1_ASPM || k == KNOB_L1_1_ASPM;

                if (!knob_get(k)->l1 || in->current[k].status != KNOB_STATUS_OK)
                        continue;
                if (!switched && (set[k] || skip[k])) {
                        /* The quirk database's or the configuration's; a 1 would turn L1 on under load. */
                        if (set[k] && value[k] != 0 && !idle) {
                                value[k] = 0;
                                why[k] = (Provenance) { .kind = PROVENANCE_LINK_POWER };
                        }
                        continue;
                }
                if (!switched && !lp->found_known[k])
                        continue; /* not known what it was: left alone */
                set[k] = true;
                value[k] = idle && (switched || lp->found[k]);
                why[k] = (Provenance) { .kind = PROVENANCE_LINK_POWER };
        }
        ret->link_power = lp->state;
}

/* Whether the configuration accepts this NIC's suggestions (reported entries). */
static bool suggestions_accepted(const PlanInput *in) {
        const SuggestionsSetting *s = in->config ? config_suggestions(in->config, in->nic, in->machine) : NULL;
        return s && s->apply > 0;
}

/* An entry that matches but is not planned: a suggestion not accepted, or a guarded fix on a link that timed out. */
static bool quirk_withheld(const PlanInput *in, const Quirk *q) {
        if (quirk_is_suggestion(q) && !suggestions_accepted(in))
                return true;
        return q->guard_tx_timeout && (in->tx_guard || in->guard_remembered);
}

/* What quirks and configuration want of this NIC (no reading needed): set, skip, and whether it is ignored. */
static void plan_wanted(const PlanInput *in, NicPlan *ret, bool set[_KNOB_MAX], bool skip[_KNOB_MAX],
                        uint64_t value[_KNOB_MAX], Provenance why[_KNOB_MAX], Provenance skip_why[_KNOB_MAX]) {
        /* Quirks of this profile, in database order (later entries refine earlier ones). */
        for (size_t i = 0; in->quirks && i < in->quirks->n; i++) {
                const Quirk *q = &in->quirks->quirks[i];
                if (!q->profiles[in->profile])
                        continue;
                if (!quirk_matches(q, in->nic, in->machine)) {
                        /* Written for r8169's behaviour while Realtek's r8168 is bound, say: not applied, and said. */
                        if (in->nic->xid != CHIP_XID_INVALID && match_test_but_driver(&q->match, in->nic, in->machine) &&
                            ret->n_other_driver < ELEMENTSOF(ret->other_driver))
                                ret->other_driver[ret->n_other_driver++] = q;
                        continue;
                }
                if (quirk_withheld(in, q))
                        continue; /* a suggestion not accepted, or a guarded entry on a link that timed out: see plan_nic */
                for (int k = 0; k < _KNOB_MAX; k++) {
                        if (q->set[k]) {
                                set[k] = true;
                                value[k] = q->value[k];
                                why[k] = (Provenance) { PROVENANCE_QUIRK, q, {} };
                        }
                        if (q->skip[k]) {
                                skip[k] = true;
                                skip_why[k] = (Provenance) { PROVENANCE_QUIRK, q, {} };
                        }
                }
        }

        /* Config overrides always win. */
        for (size_t i = 0; in->config && i < in->config->n_devices; i++) {
                const ConfigDevice *dev = &in->config->devices[i];
                if (!config_device_matches(dev, in->nic, in->machine))
                        continue;
                if (dev->ignore_origin.file) {
                        ret->ignored = dev->ignore;
                        ret->ignored_by = dev->ignore_origin;
                }
                for (int k = 0; k < _KNOB_MAX; k++) {
                        if (!dev->set[k])
                                continue;
                        set[k] = true;
                        skip[k] = false;
                        value[k] = dev->value[k];
                        why[k] = (Provenance) { PROVENANCE_CONFIG, NULL, dev->knob_origin[k] };
                }
        }
}

void plan_knobs_needed(const PlanInput *in, bool needed[_KNOB_MAX]) {
        const LinkPowerSetting *setting;
        bool set[_KNOB_MAX] = {}, skip[_KNOB_MAX] = {}, by_device = false, dynamic;
        uint64_t value[_KNOB_MAX];
        Provenance why[_KNOB_MAX], skip_why[_KNOB_MAX];
        NicPlan *p = calloc(1, sizeof(NicPlan));

        /* Without memory for the scratch plan: everything, which is never wrong. */
        for (int k = 0; k < _KNOB_MAX; k++)
                needed[k] = !p;
        if (!p)
                return;
        plan_wanted(in, p, set, skip, value, why, skip_why);
        setting = in->config ? config_link_power(in->config, in->nic, in->machine, &by_device) : NULL;
        dynamic = setting && setting->mode == LINK_POWER_DYNAMIC;
        /* What is suggested or withheld is shown with the value it would change, and what the kernel took over
         * with the value it keeps: read too. */
        for (size_t i = 0; in->quirks && i < in->quirks->n; i++) {
                const Quirk *q = &in->quirks->quirks[i];
                if (q->profiles[in->profile] && ((quirk_matches(q, in->nic, in->machine) && quirk_withheld(in, q)) ||
                                                 quirk_taken_over(q, in->nic, in->machine)))
                        for (int k = 0; k < _KNOB_MAX; k++)
                                skip[k] = skip[k] || q->set[k];
        }
        for (int k = 0; k < _KNOB_MAX; k++)
                needed[k] = !p->ignored && (set[k] || skip[k] || (dynamic && knob_get(k)->l1) ||
                                            (set[KNOB_L1_ASPM] && value[KNOB_L1_ASPM] == 0 && knob_get(k)->l1) ||
                                            (in->tx_guard && knob_get(k)->off_after_tx_timeout));
        free(p);
}

/* What quirks and configuration want of each knob, before it meets what the NIC holds. */
typedef struct Wanted {
        bool set[_KNOB_MAX], skip[_KNOB_MAX], taken_over[_KNOB_MAX];
        uint64_t value[_KNOB_MAX];
        Provenance why[_KNOB_MAX], skip_why[_KNOB_MAX];
} Wanted;

/*
 * The tx-timeout guard, above every profile, quirk and override: a link that timed out never
 * gets an L1 state turned on again (6.3+ turns L0s/L1 off then, and turning them on undoes
 * it); L0s and L1 are planned off: where the kernel did that already it is a keep, where L1
 * is still on the kernel had no guard of its own (before 6.3, except 5.10.203+ and 5.15.142+)
 * and they are turned off.
 */
static void plan_tx_guard(const PlanInput *in, NicPlan *ret, Wanted *w) {
        ret->tx_guard = in->tx_guard;
        ret->tx_timeouts = in->tx_timeouts;
        if (!in->tx_guard)
                return;
        for (int k = 0; k < _KNOB_MAX; k++) {
                if (knob_get(k)->l1 && w->set[k] && w->value[k] != 0) {
                        ret->guarded[ret->n_guarded++] = (PlanItem) { .knob = k, .action = PLAN_EXCLUDED, .desired = w->value[k],
                                                                      .current = in->current[k], .why = w->why[k] };
                        w->set[k] = false;
                }
                /* Planned even where the kernel did it already (keep): a plan that left them out would give back. */
                if (knob_get(k)->off_after_tx_timeout && in->current[k].status == KNOB_STATUS_OK) {
                        w->set[k] = true;
                        w->skip[k] = false;
                        w->value[k] = 0;
                        w->why[k] = (Provenance) { .kind = PROVENANCE_GUARD };
                }
        }
}

/*
 * A back-port on a kernel that does it itself: where nothing else plans the knob and the NIC holds
 * the entry's value, a keep that says since when the kernel does it. Where it holds another
 * value (a user's, or a BIOS flag the kernel honours) nothing is planned: the kernel's default is
 * not enforced.
 */
static void plan_taken_over(const PlanInput *in, Wanted *w) {
        bool withheld[_KNOB_MAX] = {};

        /* A suggestion (or a guarded entry) for the knob is shown as such, not hidden behind a keep. */
        for (size_t i = 0; in->quirks && i < in->quirks->n; i++) {
                const Quirk *q = &in->quirks->quirks[i];
                if (q->profiles[in->profile] && quirk_matches(q, in->nic, in->machine) && quirk_withheld(in, q))
                        for (int k = 0; k < _KNOB_MAX; k++)
                                withheld[k] = withheld[k] || q->set[k];
        }
        for (size_t i = 0; in->quirks && i < in->quirks->n; i++) {
                const Quirk *q = &in->quirks->quirks[i];
                bool holds = true;

                if (!q->profiles[in->profile] || !quirk_taken_over(q, in->nic, in->machine))
                        continue;
                /* All of it or none, as the plan leaves the NIC (what it decides otherwise, else what is there):
                 * L1.2 off alone on a link with L1 on is not what the kernel does. */
                for (int k = 0; k < _KNOB_MAX; k++)
                        holds = holds && (!q->set[k] || (w->set[k] ? w->value[k] == q->value[k]
                                                                     : knob_reading_holds(&in->current[k], q->value[k])));
                for (int k = 0; holds && k < _KNOB_MAX; k++)
                        if (q->set[k] && !w->set[k] && !w->skip[k] && !withheld[k]) {
                                w->set[k] = w->taken_over[k] = true;
                                w->value[k] = q->value[k];
                                w->why[k] = (Provenance) { PROVENANCE_QUIRK, q, {} };
                        }
        }
}

/* What a config value beat: the last matching quirk of this profile that set (or skipped) the knob. */
static void plan_overridden(const PlanInput *in, PlanItem *it) {
        for (size_t i = in->quirks ? in->quirks->n : 0; i-- > 0;) {
                const Quirk *q = &in->quirks->quirks[i];
                if (!q->profiles[in->profile] || !(q->set[it->knob] || q->skip[it->knob]) || !quirk_matches(q, in->nic, in->machine))
                        continue;
                it->overrides = true;
                it->overridden = (Provenance) { PROVENANCE_QUIRK, q, {} };
                it->overridden_value = q->value[it->knob];
                return;
        }
}

/*
 * A link state turned on is honoured only as far as the global policy allows (aspm.c: the
 * sysfs store clears the state's disable bit, then enables policy_to_aspm_state() of what is
 * not disabled; clkpm_store likewise): performance enables nothing, powersave L0s and L1 but
 * no substate, powersupersave everything, default what the BIOS had. A write of 1 that the
 * policy holds off reads back 0: it is not written, and said. (default is not known here.)
 */
bool aspm_policy_holds_off(const char *policy, KnobId k, uint64_t v) {
        if (v == 0 || !policy || !(k == KNOB_CLKPM || k == KNOB_L0S_ASPM || knob_get(k)->l1))
                return false;
        if (streq(policy, "performance"))
                return true;
        return streq(policy, "powersave") &&
               (k == KNOB_L1_1_ASPM || k == KNOB_L1_2_ASPM || k == KNOB_L1_1_PCIPM || k == KNOB_L1_2_PCIPM);
}

/* One knob's item: excluded, skipped (not readable here), kept (already there) or changed. */
static void plan_item(const PlanInput *in, const Wanted *w, KnobId k, PlanItem *it) {
        *it = (PlanItem) { .knob = k, .desired = w->value[k], .current = in->current[k], .why = w->set[k] ? w->why[k] : w->skip_why[k],
                           .taken_over = w->taken_over[k] };
        if (w->skip[k]) {
                it->action = PLAN_EXCLUDED;
                return;
        }
        if (w->why[k].kind == PROVENANCE_CONFIG)
                plan_overridden(in, it);
        if (it->current.status != KNOB_STATUS_OK)
                it->action = PLAN_SKIP;
        else if (!knob_reading_holds(&it->current, it->desired) && in->machine &&
                 aspm_policy_holds_off(in->machine->aspm_policy, k, it->desired))
                it->action = PLAN_HELD;
        else if (it->current.value == it->desired && !it->current.partial) {
                it->action = PLAN_KEEP;
                /* Detect, then explain: the value is there, and this kernel puts it there itself. */
                it->kernel_default = it->why.kind == PROVENANCE_QUIRK && it->why.quirk->kernel_default_since.known &&
                                     in->machine && in->machine->kernel.known &&
                                     kernel_version_compare(&in->machine->kernel, &it->why.quirk->kernel_default_since) >= 0;
        } else
                it->action = PLAN_CHANGE;
}

/*
 * What the profile holds back: fixes of the performance profile (on battery, balanced
 * resolves to powersave) that would change this NIC. Not applied, but shown, so that the
 * fix for exactly this machine is not invisible.
 */
static void plan_held_back(const PlanInput *in, NicPlan *ret, const Wanted *w) {
        for (size_t i = 0; in->show_held_back && in->profile == PROFILE_POWERSAVE && in->quirks && i < in->quirks->n; i++) {
                const Quirk *q = &in->quirks->quirks[i];
                if (!q->profiles[PROFILE_PERFORMANCE] || !quirk_matches(q, in->nic, in->machine) || quirk_withheld(in, q))
                        continue;
                for (int k = 0; k < _KNOB_MAX; k++) {
                        bool dup = false;

                        if (!q->set[k] || w->set[k] || w->skip[k])
                                continue;
                        if (in->current[k].status != KNOB_STATUS_OK || (in->current[k].value == q->value[k] && !in->current[k].partial))
                                continue; /* nothing it would change here */
                        for (size_t j = 0; j < ret->n_held; j++)
                                if (ret->held[j].knob == k) {
                                        ret->held[j].desired = q->value[k]; /* later entries refine earlier ones */
                                        ret->held[j].why = (Provenance) { PROVENANCE_QUIRK, q, {} };
                                        dup = true;
                                }
                        if (!dup)
                                ret->held[ret->n_held++] = (PlanItem) { .knob = k, .action = PLAN_HELD_BACK, .desired = q->value[k],
                                                                        .current = in->current[k],
                                                                        .why = { PROVENANCE_QUIRK, q, {} } };
                }
        }
}

/*
 * L1 off masks every L1 substate (aspm.c: writing 0 to l1_aspm disables L1.1, L1.2 and the
 * PCI-PM ones) and L1 on does not bring them back: where a quirk or the configuration turns L1
 * off and leaves a substate that is on undecided, the substate is written off first, so that
 * the undo journal holds its original and restore gives it back with L1.
 */
static void plan_with_l1(const PlanInput *in, Wanted *w) {
        if (!w->set[KNOB_L1_ASPM] || w->value[KNOB_L1_ASPM] != 0)
                return;
        for (int k = 0; k < _KNOB_MAX; k++)
                if (knob_get(k)->l1 && k != KNOB_L1_ASPM && !w->set[k] && !w->skip[k] &&
                    in->current[k].status == KNOB_STATUS_OK && in->current[k].value != 0) {
                        w->set[k] = true;
                        w->value[k] = 0;
                        w->why[k] = (Provenance) { .kind = PROVENANCE_WITH_L1 };
                }
}

/*
 * The entries plan_wanted() left out, shown with what they would do here: suggestions
 * (reported entries) that would change a knob nothing else decides, as PLAN_SUGGEST; a
 * guarded entry's values on a link that timed out, in guarded[] (not turned on).
 */
static void plan_withheld(const PlanInput *in, NicPlan *ret, const Wanted *w) {
        const SuggestionsSetting *s = in->config ? config_suggestions(in->config, in->nic, in->machine) : NULL;

        ret->suggestions_apply = s && s->apply > 0;
        ret->suggestions_origin = s ? s->origin : (Origin) {};
        ret->entry_guard = in->tx_guard || in->guard_remembered;
        ret->entry_guard_remembered = in->guard_remembered;
        for (size_t i = 0; in->quirks && i < in->quirks->n; i++) {
                const Quirk *q = &in->quirks->quirks[i];
                bool guarded;

                if (!q->profiles[in->profile] || !quirk_matches(q, in->nic, in->machine) || !quirk_withheld(in, q))
                        continue;
                guarded = q->guard_tx_timeout && ret->entry_guard;
                for (int k = 0; k < _KNOB_MAX; k++) {
                        PlanItem *list = guarded ? ret->guarded : ret->suggested;
                        size_t *n = guarded ? &ret->n_guarded : &ret->n_suggested, j;

                        if (!q->set[k] || w->set[k] || w->skip[k])
                                continue; /* something else decides it */
                        if (!guarded && knob_reading_holds(&in->current[k], q->value[k]))
                                continue; /* a suggestion that would change nothing here (one not readable here is shown) */
                        for (j = 0; j < *n && list[j].knob != k; j++)
                                ;
                        if (j == *n) {
                                if (*n >= _KNOB_MAX)
                                        continue;
                                (*n)++;
                        }
                        /* Later entries refine earlier ones. */
                        list[j] = (PlanItem) { .knob = k, .action = guarded ? PLAN_EXCLUDED : PLAN_SUGGEST, .desired = q->value[k],
                                               .current = in->current[k], .why = { PROVENANCE_QUIRK, q, {} } };
                }
        }
}

void plan_nic(const PlanInput *in, NicPlan *ret) {
        Wanted w = {};
        PlanItem *items = ret->items;

        *ret = (NicPlan) { .nic = in->nic, .link_power = -1 };
        if (in->machine)
                snprintf(ret->aspm_policy, sizeof(ret->aspm_policy), "%s", in->machine->aspm_policy);
        plan_wanted(in, ret, w.set, w.skip, w.value, w.why, w.skip_why);
        if (ret->ignored) {
                ret->n = 0;
                return;
        }
        plan_link_power(in, ret, w.set, w.skip, w.value, w.why);
        plan_tx_guard(in, ret, &w);
        plan_taken_over(in, &w);
        plan_with_l1(in, &w);
        for (int k = 0; k < _KNOB_MAX; k++)
                if (w.set[k] || w.skip[k])
                        plan_item(in, &w, k, &items[ret->n++]);
        plan_held_back(in, ret, &w);
        plan_withheld(in, ret, &w);
        /* Stable insertion sort by the knob table's write order: the order apply writes in. */
        for (size_t i = 1; i < ret->n; i++)
                for (size_t j = i; j > 0 && knob_write_rank(items[j - 1].knob, items[j - 1].desired) >
                                            knob_write_rank(items[j].knob, items[j].desired); j--) {
                        PlanItem t = items[j];
                        items[j] = items[j - 1];
                        items[j - 1] = t;
                }
}

const PlanItem *plan_items_find(const PlanItem *items, size_t n, KnobId k) {
        for (size_t i = 0; i < n; i++)
                if (items[i].knob == k)
                        return &items[i];
        return NULL;
}

const char *plan_item_source(const PlanItem *it, char *buf, size_t size) {
        if (it->why.quirk)
                snprintf(buf, size, "quirk %s", it->why.quirk->id);
        else if (it->why.origin.file)
                snprintf(buf, size, "%s:%u", it->why.origin.file, it->why.origin.line);
        else
                snprintf(buf, size, "%s", "r8169-tuned");
        return buf;
}
