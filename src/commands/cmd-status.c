/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <systemd/sd-bus.h>

#include "client/service.h"
#include "commands/commands.h"
#include "show/report.h"
#include "show/status.h"
#include "show/verification.h"
#include "state/undo.h"

/* What r8169-tuned set on this NIC, as its undo journal says (nothing when there is none, or it is unreadable). */
static void status_ours(const Options *o, NicStatus *s) {
        _cleanup_(undo_done) UndoJournal j = {};
        _cleanup_(diag_done) Diagnostics d = {};

        if (undo_load(o->state_dir, s->nic->slot, &j, &d) < 0)
                return;
        for (size_t i = 0; i < j.n; i++) {
                const UndoEntry *e = &j.entries[i];
                KnobOurs *ko;

                if (e->knob < 0 || e->knob >= _KNOB_MAX)
                        continue;
                ko = &s->ours[e->knob];
                if (!ko->ours)
                        *ko = (KnobOurs) { .ours = true, .original = e->original, .set = e->set };
                /* Several features under one knob (tso): alike, or mixed. */
                ko->original_mixed = ko->original_mixed || e->original != ko->original;
                ko->set_mixed = ko->set_mixed || e->set != ko->set;
        }
}

/* The kernel log's word on each NIC's link, read once for all (the file given, or this boot's journal). */
static void status_link_logs(Context *c, NicStatus *s, size_t n) {
        _cleanup_free_ const Nic **nics = calloc(n ?: 1, sizeof(Nic *));
        _cleanup_free_ LinkLog *logs = calloc(n ?: 1, sizeof(LinkLog));
        AspmControlLog aspm = {};
        bool known;

        if (!nics || !logs)
                return;
        for (size_t i = 0; i < n; i++)
                nics[i] = s[i].nic;
        /* A fixture tree's kernel log is the one given: this machine's journal says nothing of it. */
        known = (c->opts->kernel_log || sysroot_is_live(c->root)) && link_log_read(c->opts->kernel_log, nics, n, logs, &aspm) >= 0;
        for (size_t i = 0; i < n; i++)
                link_explain_init(&s[i].link, c->root, s[i].nic, known ? &logs[i] : NULL, known ? &aspm : NULL, 0);
}

/* The verdict without the service: the plan of each NIC listed, from the knobs just read. */
static void verdict_here(Context *c, const NicStatus *s, size_t n, char *buf, size_t size) {
        Verification vd = {};
        size_t differ;

        for (size_t i = 0; i < n; i++) {
                NicPlan p;

                context_plan_nic_read(c, s[i].nic, s[i].knobs, &p);
                (void) verification_add_plan(&vd, &p, NULL);
        }
        differ = vd.n;
        verification_done(&vd);
        if (differ == 0 && c->problems.n == 0)
                snprintf(buf, size, "every knob is as planned (profile %s; the service is not running)", profile_to_string(c->profile));
        else {
                size_t len;
                verification_parts(buf, size, differ, 0, c->problems.n);
                len = strlen(buf);
                if (len < size)
                        snprintf(buf + len, size - len, " (profile %s; the service is not running); \"r8169-tuned verify\" lists them",
                                 profile_to_string(c->profile));
        }
}

int cmd_status(const Options *o) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ NicStatus *s = NULL;
        _cleanup_free_ bool *selected = NULL;
        char verdict[256];
        Out out;
        size_t n = 0;
        Context c;

        if (context_open_selected(&c, o, false, &selected) < 0) {
                context_done(&c);
                return 1;
        }
        /* For the verdict and the problems, which status shows itself; the profile the service holds, and
         * its verdict and NIC states, over one connection. */
        context_load_policy_quiet(&c);
        if (service_bus_open(o, &bus) < 0)
                bus = NULL;
        (void) service_follow_profile(&c, bus);
        s = calloc(c.nics.n ?: 1, sizeof(NicStatus));
        if (!s) {
                context_done(&c);
                return 1;
        }
        for (size_t i = 0; i < c.nics.n; i++) {
                if (!selected[i])
                        continue;
                s[n].nic = &c.nics.nics[i];
                backend_read_all(&c.backend, s[n].nic, s[n].knobs);
                s[n].tx_timeouts_known = nic_read_tx_timeouts(c.root, s[n].nic, &s[n].tx_timeouts) >= 0;
                s[n].tx_guard = context_tx_guard(&c, s[n].nic, &s[n].tx_timeouts);
                s[n].link_power_known = link_power_record_load(o->state_dir, s[n].nic->slot, &s[n].link_power) >= 0;
                s[n].plan = malloc(sizeof(NicPlan));
                if (s[n].plan)
                        context_plan_nic_read(&c, s[n].nic, s[n].knobs, s[n].plan);
                status_ours(o, &s[n]);
                n++;
        }
        status_link_logs(&c, s, n);
        for (size_t i = 0; bus && i < n; i++)
                if (service_nic_state(bus, s[i].nic->slot, s[i].service_state, sizeof(s[i].service_state)) < 0)
                        s[i].service_state[0] = '\0';
        out_document_begin(&out, stdout, o->json);
        /* The verdict first, as tuned-adm and tlp-stat answer (ux-findings M1). */
        if (!o->json && n > 0) {
                if (!service_verify_summary(bus, o, verdict, sizeof(verdict)))
                        verdict_here(&c, s, n, verdict, sizeof(verdict));
                out_text(&out, "Verdict: %s.\n\n", verdict);
        }
        if (c.nics.n == 0)
                /* What an installed user has: no fixtures, but lspci and the README (/usr/share/doc). */
                out_text(&out,
                         "No Realtek NIC found under %s: r8169-tuned tunes the PCIe NICs of the kernel's r8169 driver\n"
                         "(RTL8111/8168/8411/8125/8126 and their OEM variants), whichever driver is bound.\n"
                         "\"lspci -nn -d ::0200\" lists this machine's Ethernet controllers; the README's Examples\n"
                         "(" R8T_DOC_DIR "/README.md.gz) show what it says on machines that have one.\n",
                         o->sysfs);
        report_status_show(&out, s, n, &c.problems, profile_to_string(c.profile), bus != NULL);
        out_document_end(&out);
        for (size_t i = 0; i < n; i++)
                free(s[i].plan);
        context_done(&c);
        return 0;
}
