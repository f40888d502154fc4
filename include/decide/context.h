/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "decide/config.h"
#include "decide/plan.h"
#include "decide/quirks.h"
#include "kernel/backend.h"
#include "kernel/machine.h"
#include "kernel/nic.h"
#include "kernel/sysroot.h"

/* Global options, as the command line gave them. */
typedef struct Options {
        const char *sysfs;       /* default "/sys" */
        const char *kernel_log;  /* NULL: this boot's journal */
        const char *kernel_release; /* NULL: the running kernel's */
        const char *config;      /* NULL: /etc/r8169-tuned/r8169-tuned.conf + drop-ins */
        const char *quirks;      /* NULL: shipped + /etc overrides */
        const char *state_dir;   /* default /run/r8169-tuned */
        const char *lib_dir;     /* what outlives a reboot: /var/lib/r8169-tuned, or state_dir when that is given */
        const char *profile;     /* overrides the configured profile */
        bool json;
        bool show_mac;           /* diagnose: print MAC addresses, which it redacts otherwise */
        bool verbose;            /* plan: each quirk's reason, evidence and sources under the table */
        bool persist;            /* profile: also write it to a drop-in */
        bool reset;              /* profile: drop the run-time choice (with persist: the drop-in too) */
        /* experiment */
        const char *server;      /* HOST[:PORT] of an iperf3 server */
        const char **knobs;      /* --knob K=V[,K=V], each a candidate; NULL: the default list */
        int n_knobs;
        unsigned rounds, seconds, idle_seconds; /* 0: the defaults */
        const char *direction;   /* send, receive or both (NULL) */
        const char *write_config, *report;
        const char *iperf3;             /* experiment: NULL, IPERF_BINARY */
        int log_level;            /* -1: as configured */
        unsigned fault_after_writes; /* test seam: raise fault_signal after this many writes */
        int fault_signal;
        char **args;             /* the command's own arguments */
        int n_args;
} Options;

/* What every command starts from: the machine's Realtek NICs, identified. */
typedef struct Context {
        const Options *opts;
        Sysroot *root;
        Backend backend;
        NicList nics;

        /* Policy, loaded by context_load_policy(). */
        Config config;
        QuirkDb quirks;
        Machine machine;
        Profile profile;         /* resolved: performance or powersave */
        Profile runtime_profile; /* the service's, set over D-Bus until it stops; _PROFILE_INVALID: none */
        Profile desktop_profile; /* power-profiles-daemon's, for profile = auto; _PROFILE_INVALID: none runs */
        Diagnostics problems;    /* of the files left out of the policy (file:line each) */
        /* pcie_aspm.policy, opened at the first plan and kept (aspm_policy_fd < 0: there is none) */
        bool aspm_policy_opened;
        int aspm_policy_fd;
} Context;

/* Opens the sysfs root, loads the policy if asked, then scans and identifies the NICs (with the
 * slots the configuration claims). */
int context_open(Context *c, const Options *o, bool policy);
void context_done(Context *c);
/* The ASPM policy's fd, kept since the first plan, closed (context_done() does it). */
void context_close_aspm_policy(Context *c);
/*
 * The one way policy is loaded, by the commands and the daemon alike: config and quirks into
 * the given structs, a file with a problem left out as a whole and everything else loaded, the
 * problems kept in problems (freed with diag_done()). This one says nothing (the caller shows
 * them); context_load_policy() logs each (file:line, with MESSAGE_ID).
 */
void context_read_policy_quiet(const Options *o, Config *config, QuirkDb *quirks, Diagnostics *problems);
/* The policy read into c (replacing what it had), then the profile. */
void context_load_policy(Context *c);
void context_load_policy_quiet(Context *c);
/* The profile asked for: --profile, else the configuration's. */
Profile context_configured_profile(const Context *c);
/* What chose that profile: command-line (--profile), runtime (SetProfile) or configuration. */
const char *context_profile_source(const Context *c);
/* Reads the machine (power source, DMI) and resolves the profile; whether it changed. */
bool context_update_profile(Context *c);
/* Reads config and quirks into d without a machine: for check-config. */
void context_check_policy(const Options *o, Config *config, QuirkDb *quirks, Diagnostics *d);
/*
 * What most commands start with: open, load the policy if asked, select the
 * NICs named in the arguments. On failure it has said why; context_done() still applies.
 */
int context_open_selected(Context *c, const Options *o, bool policy, bool **ret_selected);
/* Whether a NIC's link had a tx timeout: its counters, or a guard recorded this boot. */
bool context_tx_guard(Context *c, const Nic *n, uint64_t *ret_timeouts);
/* restore: forgets it, said in the journal. */
void context_forget_board_guard(Context *c, const Nic *n);
/* Records a new tx-timeout guard for this boot and says so once, with its own MESSAGE_ID. */
void context_record_tx_guard(Context *c, const Nic *n, const NicPlan *plan);
/* Reads a NIC's knobs and plans it with the loaded policy (and the tx-timeout guard). */
void context_plan_nic(Context *c, const Nic *n, KnobReading current[_KNOB_MAX], NicPlan *ret);
/* The same from knobs already read (status: one read for the listing and the verdict). */
void context_plan_nic_read(Context *c, const Nic *n, const KnobReading current[_KNOB_MAX], NicPlan *ret);
/*
 * The daemon's: with dynamic link power in a state (NULL: L1 planned statically), reading
 * only the knobs the plan can have items for (plan_knobs_needed) and listing nothing held back.
 */
void context_plan_nic_daemon(Context *c, const Nic *n, const PlanLinkPower *link_power, KnobReading current[_KNOB_MAX],
                             NicPlan *ret);
/* The daemon's plan from knobs already read (its published metrics read every knob, as the command does). */
void context_plan_nic_read_daemon(Context *c, const Nic *n, const PlanLinkPower *link_power, const KnobReading current[_KNOB_MAX],
                                  NicPlan *ret);
/*
 * One check before anything is written: what a command that changes knobs needs
 * and lacks is said once (root on the real /sys, a writable state directory);
 * a missing CAP_NET_ADMIN is a warning, since sysfs knobs can still be set.
 */
int context_check_privileges(const Options *o, const char *command);
