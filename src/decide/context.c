/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/messages.h"
#include "decide/context.h"
#include "decide/kernel-defaults.h"
#include "decide/nic-log.h"
#include "decide/quirk-lint.h"
#include "state/guard.h"
#include "state/undo.h"

/* The slots the configuration claims, for a command that loads no policy (restore, diagnose):
 * the daemon's, from the files without problems. */
static void read_claims(const Options *o, Config *ret) {
        _cleanup_(diag_done) Diagnostics d = {};
        QuirkDb quirks;

        context_read_policy_quiet(o, ret, &quirks, &d);
        quirk_db_done(&quirks);
}

int context_open(Context *c, const Options *o, bool policy) {
        IdentifyContext ic;
        SlotClaims claims;
        Config claimed;
        int r;

        *c = (Context) { .opts = o, .runtime_profile = _PROFILE_INVALID, .desktop_profile = _PROFILE_INVALID };
        config_defaults(&c->config);
        config_defaults(&claimed);
        r = sysroot_new(o->sysfs, &c->root);
        if (r < 0)
                return log_error_errno(r, "Cannot open sysfs root %s: %m", o->sysfs);
        /* Policy first: its [device] sections can claim slots the scan must include. */
        if (policy) {
                context_load_policy(c);
                claims = config_claims(&c->config);
        } else {
                read_claims(o, &claimed);
                claims = config_claims(&claimed);
        }
        r = nic_discover(c->root, &claims, &c->nics);
        config_done(&claimed);
        if (r < 0)
                return log_error_errno(r, "Cannot scan PCI devices under %s: %m", o->sysfs);
        backend_init(&c->backend, c->root);
        ic = (IdentifyContext) { .root = c->root, .kernel_log = o->kernel_log };
        for (size_t i = 0; i < c->nics.n; i++)
                nic_identify(&c->nics.nics[i], &ic);
        identify_context_done(&ic);
        return 0;
}

void context_done(Context *c) {
        diag_done(&c->problems);
        config_done(&c->config);
        quirk_db_done(&c->quirks);
        backend_done(&c->backend);
        nic_list_done(&c->nics);
        context_close_aspm_policy(c);
        c->root = sysroot_free(c->root);
}

/*
 * The entries that back-port a kernel default, checked against the kernel's defaults as data:
 * a range that ends where the kernel does not do what the entry asks is the entry's problem
 * (file:line), so the entry is left out. Without the data file (an installation that lacks it,
 * a --quirks directory without one beside it) nothing is checked.
 */
static void lint_kernel_defaults(const Options *o, const QuirkDb *quirks, Diagnostics *d) {
        _cleanup_(kernel_defaults_done) KernelDefaults kd = {};
        char buf[PATH_MAX];

        if (kernel_defaults_load(&kd, kernel_defaults_path(o->quirks, buf, sizeof(buf)), d) >= 0)
                kernel_defaults_lint_quirks(&kd, quirks, d);
}

static void load_policy(const Options *o, const Diagnostics *leave_out, Config *config, QuirkDb *quirks, Diagnostics *d) {
        const char *dirs[2] = { R8T_QUIRKS_DIR, R8T_SYSCONF_DIR "/quirks.d" };
        size_t n_dirs = 2;

        if (o->quirks) {
                dirs[0] = o->quirks;
                n_dirs = 1;
        }
        (void) config_load_except(config, o->config ?: CONFIG_DEFAULT_PATH, o->config != NULL, leave_out, d);
        (void) quirk_db_load_except(quirks, dirs, n_dirs, leave_out, d);
        quirk_db_lint(quirks, d);
        lint_kernel_defaults(o, quirks, d);
        if (quirks->n_files == 0)
                diag_add(d, dirs[0], 0, "no quirk files found (is r8169-tuned installed? --quirks DIR names another place)");
        diag_sort(d);
}

void context_check_policy(const Options *o, Config *config, QuirkDb *quirks, Diagnostics *d) {
        load_policy(o, NULL, config, quirks, d);
}

void context_read_policy_quiet(const Options *o, Config *config, QuirkDb *quirks, Diagnostics *problems) {
        *problems = (Diagnostics) {};
        load_policy(o, NULL, config, quirks, problems);
        /* Every file with a problem is left out and the rest loaded again, until no other file has
         * one (a lint finding, such as a contradiction, can name a file that was fine alone). */
        /* Each round leaves out at least one more file, so this ends. */
        while (problems->n > 0) {
                _cleanup_(diag_done) Diagnostics d = {};
                bool more = false;

                config_done(config);
                quirk_db_done(quirks);
                load_policy(o, problems, config, quirks, &d);
                for (size_t i = 0; i < d.n; i++)
                        if (!diag_names_file(problems, d.files[i])) {
                                diag_copy(problems, &d, i);
                                more = true;
                        }
                if (!more)
                        break;
        }
        diag_sort(problems);
}

/* context_read_policy_quiet(), each problem logged (file:line, with MESSAGE_ID): a mistake never stops tuning. */
static void context_read_policy(const Options *o, Config *config, QuirkDb *quirks, Diagnostics *problems) {
        size_t files = 0;

        context_read_policy_quiet(o, config, quirks, problems);
        for (size_t i = 0; i < problems->n; i++)
                log_internal(LOG_ERR, 0, (const char *[]) { "MESSAGE_ID=" R8T_MESSAGE_CONFIG_REJECTED, NULL }, "%s",
                             problems->msgs[i]);
        for (size_t i = 0; i < problems->n; i++)
                if (i == 0 || !streq(problems->files[i], problems->files[i - 1])) {
                        files++;
                        if (problems->lines[i] > 0 && !strv_contains(quirks->files, quirks->n_files, problems->files[i]))
                                log_internal(LOG_WARNING, 0, (const char *[]) { "MESSAGE_ID=" R8T_MESSAGE_CONFIG_REJECTED, NULL },
                                             "%s is left out, as a whole, until it is fixed; everything else is in force.",
                                             problems->files[i]);
                }
        /* A quirk file loses only the entries with a problem: each is one fix, with its own grounds. */
        for (size_t i = 0; i < quirks->n_left_out; i++)
                log_internal(LOG_WARNING, 0, (const char *[]) { "MESSAGE_ID=" R8T_MESSAGE_CONFIG_REJECTED, NULL },
                             "Quirk entry %s is left out until it is fixed; the file's other entries are in force.",
                             quirks->left_out[i]);
        if (problems->n > 0)
                log_internal(LOG_ERR, 0, (const char *[]) { "MESSAGE_ID=" R8T_MESSAGE_CONFIG_REJECTED, NULL },
                             "%zu problem%s in %zu configuration or quirk file%s (r8169-tuned check-config lists them).",
                             problems->n, problems->n == 1 ? "" : "s", files, files == 1 ? "" : "s");
}

const char *context_profile_source(const Context *c) {
        return c->opts->profile ? "command-line" : c->runtime_profile >= 0 ? "runtime" : "configuration";
}

Profile context_configured_profile(const Context *c) {
        if (c->opts->profile)
                return profile_from_string(c->opts->profile);
        return c->runtime_profile >= 0 ? c->runtime_profile : c->config.profile;
}

bool context_update_profile(Context *c) {
        Profile p;

        machine_read(c->root, c->opts->kernel_release, &c->machine);
        p = context_configured_profile(c);
        if (p == PROFILE_AUTO && c->desktop_profile >= 0)
                p = c->desktop_profile;
        p = profile_resolve(p, c->machine.power);
        if (p == c->profile)
                return false;
        c->profile = p;
        return true;
}

static void load_into(Context *c, bool quiet) {
        Diagnostics problems;
        Config config;
        QuirkDb quirks;

        if (quiet)
                context_read_policy_quiet(c->opts, &config, &quirks, &problems);
        else
                context_read_policy(c->opts, &config, &quirks, &problems);
        config_done(&c->config);
        quirk_db_done(&c->quirks);
        diag_done(&c->problems);
        c->config = config;
        c->quirks = quirks;
        c->problems = problems;
        c->profile = _PROFILE_INVALID;
        (void) context_update_profile(c);
}

void context_load_policy(Context *c) {
        load_into(c, false);
}

void context_load_policy_quiet(Context *c) {
        load_into(c, true);
}

/* A name that is no Realtek NIC: what it is instead (an interface of another driver), and what is
 * here to name (ux-findings L1). */
static int no_such_nic(const Context *c, const char *name) {
        char driver[64] = "", here[512] = "";
        size_t n = 0;

        _cleanup_dir_names_ DirNames d = { .fd = -EBADF };

        /* The PCI device whose net/ has that name, as discovery finds interfaces. */
        if (ifname_valid(name) && sysroot_dir_names(c->root, "bus/pci/devices", &d) >= 0)
                for (const char *e; !driver[0] && (e = dir_names_next(&d));) {
                        _cleanup_free_ char *dir = NULL, *net = NULL;
                        _cleanup_close_ int dfd = -EBADF, nfd = -EBADF;

                        if (e[0] == '.' || asprintf(&dir, "bus/pci/devices/%s", e) < 0 ||
                            asprintf(&net, "%s/net/%s", dir, name) < 0 || (nfd = sysroot_open_dir(c->root, net)) < 0 ||
                            (dfd = sysroot_open_dir(c->root, dir)) < 0 || readlinkat_basename(dfd, "driver", driver, sizeof(driver)) < 0)
                                driver[0] = '\0';
                }
        for (size_t i = 0; i < c->nics.n && n < sizeof(here); i++) {
                const char *ifname = nic_ifname(&c->nics.nics[i]);
                n += (size_t) snprintf(here + n, sizeof(here) - n, "%s%s%s%s%s", i ? ", " : "", ifname ?: "", ifname ? " (" : "",
                                       c->nics.nics[i].slot, ifname ? ")" : "");
        }
        if (driver[0])
                log_error("%s is driven by %s, not r8169: r8169-tuned leaves it alone.", name, driver);
        else
                log_error("No Realtek NIC \"%s\" (an interface name or a PCI slot).", name);
        if (c->nics.n > 0)
                log_error("Realtek NIC%s here: %s.", c->nics.n == 1 ? "" : "s", here);
        else
                log_error("There is no Realtek NIC here.");
        return -ENOENT;
}

/* Selects NICs by interface name or PCI slot (all when no arguments); -ENOENT names the first unknown one. */
static int context_select(Context *c, char **args, int n_args, bool *selected) {
        for (size_t i = 0; i < c->nics.n; i++)
                selected[i] = n_args == 0;
        for (int a = 0; a < n_args; a++) {
                char slot[PCI_SLOT_LEN];
                bool found = false;
                for (size_t i = 0; i < c->nics.n; i++)
                        if (pci_slot_normalize(args[a], slot) >= 0 ? streq(c->nics.nics[i].slot, slot)
                                                                   : nic_list_find_ifname(&c->nics, args[a]) == &c->nics.nics[i]) {
                                selected[i] = found = true;
                        }
                if (!found)
                        return no_such_nic(c, args[a]);
        }
        return 0;
}

bool context_tx_guard(Context *c, const Nic *n, uint64_t *ret_timeouts) {
        uint64_t t = 0;
        /* An interface rtnetlink does not list has no queues to count (a fixture's directory is not it). */
        bool counted = !backend_interface_absent(&c->backend, n) && nic_read_tx_timeouts(c->root, n, &t) >= 0 && t > 0;

        *ret_timeouts = t;
        return counted || guard_tx_recorded(c->opts->state_dir, n->slot);
}

/* The board a guard record is kept for: DMI board vendor and name (the product's where the board has none). */
static const char *machine_board(const Machine *m, char *buf, size_t size) {
        const char *vendor = m->dmi[DMI_BOARD_VENDOR][0] ? m->dmi[DMI_BOARD_VENDOR] : m->dmi[DMI_SYS_VENDOR];
        const char *name = m->dmi[DMI_BOARD_NAME][0] ? m->dmi[DMI_BOARD_NAME] : m->dmi[DMI_PRODUCT_NAME];

        snprintf(buf, size, "%s / %s", vendor[0] ? vendor : "-", name[0] ? name : "-");
        return buf;
}

/* Whether a tx timeout on this NIC's board, slot and chip is remembered (entries with guard = tx-timeout stay off). */
static bool context_board_guard(Context *c, const Nic *n) {
        char board[260];

        return n->xid != CHIP_XID_INVALID &&
               guard_board_recorded(c->opts->lib_dir, n->slot, n->xid, machine_board(&c->machine, board, sizeof(board)));
}

void context_forget_board_guard(Context *c, const Nic *n) {
        int r;

        if (n->xid == CHIP_XID_INVALID)
                return;
        r = guard_board_forget(c->opts->lib_dir, n->slot, n->xid);
        if (r > 0)
                log_nic(LOG_NOTICE, R8T_MESSAGE_QUIRK_GUARD, n, 0,
                        "the remembered tx timeout is forgotten: entries with guard = tx-timeout apply again from the next apply");
        else if (r < 0)
                log_nic(LOG_WARNING, R8T_MESSAGE_QUIRK_GUARD, n, r, "cannot forget the remembered tx timeout in %s: %m",
                        c->opts->lib_dir);
}

void context_close_aspm_policy(Context *c) {
        if (c->aspm_policy_opened && c->aspm_policy_fd >= 0)
                close(c->aspm_policy_fd);
        c->aspm_policy_opened = false;
}

/*
 * Another tool (TLP, powertop) may have written it since: read at every plan, one pread() on
 * the attribute opened at the first. CONFIG_PCIEASPM is built in or not at all: a policy not
 * there then (ENOENT) is never there. Any other failure, to open (EMFILE) or to read, is tried
 * again at the next plan.
 */
static void context_read_aspm_policy(Context *c) {
        if (!c->aspm_policy_opened) {
                c->aspm_policy_fd = aspm_policy_open(c->root);
                c->aspm_policy_opened = c->aspm_policy_fd >= 0 || c->aspm_policy_fd == -ENOENT;
        }
        if (aspm_policy_reread(c->aspm_policy_fd, c->machine.aspm_policy, sizeof(c->machine.aspm_policy)) < 0 &&
            c->aspm_policy_fd >= 0)
                context_close_aspm_policy(c);
}

static PlanInput plan_input(Context *c, const Nic *n, const PlanLinkPower *link_power, bool daemon,
                            const KnobReading current[_KNOB_MAX]) {
        uint64_t timeouts;
        bool guard = context_tx_guard(c, n, &timeouts);

        context_read_aspm_policy(c);
        return (PlanInput) { .nic = n, .current = current, .quirks = &c->quirks, .config = &c->config,
                             .profile = c->profile, .machine = &c->machine, .show_held_back = !daemon,
                             .tx_guard = guard, .tx_timeouts = timeouts, .link_power = link_power,
                             .guard_remembered = context_board_guard(c, n) };
}

static void plan_with(Context *c, const Nic *n, const PlanLinkPower *link_power, bool daemon, KnobReading current[_KNOB_MAX],
                      NicPlan *ret) {
        PlanInput in = plan_input(c, n, link_power, daemon, current);
        bool needed[_KNOB_MAX];

        /* The daemon writes only its items: it reads only what they can come from (a hotplug burst pays no more). */
        if (daemon) {
                plan_knobs_needed(&in, needed);
                backend_read_needed(&c->backend, n, needed, current);
        } else
                backend_read_all(&c->backend, n, current);
        plan_nic(&in, ret);
}

void context_plan_nic_daemon(Context *c, const Nic *n, const PlanLinkPower *link_power, KnobReading current[_KNOB_MAX],
                             NicPlan *ret) {
        plan_with(c, n, link_power, true, current, ret);
}

void context_plan_nic_read(Context *c, const Nic *n, const KnobReading current[_KNOB_MAX], NicPlan *ret) {
        PlanInput in = plan_input(c, n, NULL, false, current);

        plan_nic(&in, ret);
}

void context_plan_nic_read_daemon(Context *c, const Nic *n, const PlanLinkPower *link_power, const KnobReading current[_KNOB_MAX],
                                  NicPlan *ret) {
        PlanInput in = plan_input(c, n, link_power, true, current);

        plan_nic(&in, ret);
}

void context_plan_nic(Context *c, const Nic *n, KnobReading current[_KNOB_MAX], NicPlan *ret) {
        plan_with(c, n, NULL, false, current, ret);
}

/* A tx timeout that took back entries with guard = tx-timeout: remembered for this board, slot and chip. */
static void record_board_guard(Context *c, const Nic *n, const NicPlan *plan) {
        BoardGuard g = { .timeouts = plan->tx_timeouts };
        size_t used = 0;
        int r;

        if (!plan->tx_guard || plan->entry_guard_remembered || n->xid == CHIP_XID_INVALID)
                return;
        for (size_t j = 0; j < plan->n_guarded; j++) {
                const Quirk *q = plan->guarded[j].why.quirk;
                if (plan->guarded[j].why.kind != PROVENANCE_QUIRK || !q->guard_tx_timeout || strstr(g.quirks, q->id))
                        continue;
                used += (size_t) snprintf(g.quirks + used, used < sizeof(g.quirks) ? sizeof(g.quirks) - used : 0, "%s%s",
                                          used ? " " : "", q->id);
        }
        if (!g.quirks[0])
                return; /* no entry with a guard matched this NIC: nothing to remember */
        machine_board(&c->machine, g.board, sizeof(g.board));
        r = guard_board_record(c->opts->lib_dir, n->slot, n->xid, &g);
        log_nic(LOG_WARNING, R8T_MESSAGE_QUIRK_GUARD, n, r,
                "had %" PRIu64 " tx timeout%s: %s taken back, and not applied again on this board (%s) until "
                "\"r8169-tuned restore\" forgets it%s%s", plan->tx_timeouts, plan->tx_timeouts == 1 ? "" : "s", g.quirks, g.board,
                r < 0 ? "; cannot remember it across reboots: " : "", r < 0 ? strerror(-r) : "");
}

void context_record_tx_guard(Context *c, const Nic *n, const NicPlan *plan) {
        int r;

        record_board_guard(c, n, plan);
        if (!plan->tx_guard || guard_tx_recorded(c->opts->state_dir, n->slot))
                return;
        r = guard_tx_record(c->opts->state_dir, n->slot, plan->tx_timeouts);
        log_nic(LOG_WARNING, R8T_MESSAGE_TX_TIMEOUT_GUARD, n, 0,
                "had %" PRIu64 " tx timeout%s: L1 stays off for this link until reboot, whatever the profile or configuration "
                "asks%s%s", plan->tx_timeouts, plan->tx_timeouts == 1 ? "" : "s",
                r < 0 ? "; cannot record it in the state directory: " : "", r < 0 ? strerror(-r) : "");
}

int context_open_selected(Context *c, const Options *o, bool policy, bool **ret_selected) {
        _cleanup_free_ bool *selected = NULL;
        int r;

        r = context_open(c, o, policy);
        if (r < 0)
                return r;
        selected = calloc(c->nics.n + 1, sizeof(bool));
        if (!selected)
                return log_oom();
        r = context_select(c, o->args, o->n_args, selected);
        if (r < 0)
                return r;
        *ret_selected = TAKE_PTR(selected);
        return 0;
}

/* The effective capability set, from /proc/self/status (no libcap needed for one look). */
static int effective_caps(uint64_t *ret) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/status", "re");
        char line[256];

        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, "CapEff:", 7) == 0)
                        return parse_u64_base(strip_trailing(line + 7 + strspn(line + 7, " \t")), 16, ret);
        return -ENOENT;
}

#define CAP_BIT(n) (UINT64_C(1) << (n))
#define CAP_DAC_OVERRIDE_BIT CAP_BIT(1)
#define CAP_NET_ADMIN_BIT CAP_BIT(12)

int context_check_privileges(const Options *o, const char *command) {
        bool live = streq(o->sysfs, "/sys") || streq(o->sysfs, "/sys/");
        uint64_t caps = 0;
        struct stat st;

        if (effective_caps(&caps) < 0)
                return 0; /* cannot tell: let the kernel say */
        /* The knob files in /sys are root's, mode 0644: one refusal up front, not one per knob. */
        if (live && geteuid() != 0 && !(caps & CAP_DAC_OVERRIDE_BIT))
                return log_error_errno(EPERM, "%s changes /sys and ethtool settings: it needs root (or CAP_DAC_OVERRIDE and "
                                       "CAP_NET_ADMIN). Run it as root.", command);
        if (!(caps & CAP_NET_ADMIN_BIT))
                log_warning("Without CAP_NET_ADMIN, %s cannot change ethtool settings (offloads, coalescing, EEE); "
                            "it changes the rest.", command);
        if (mkdir(o->state_dir, 0755) < 0 && errno != EEXIST)
                return log_error_errno(errno, "%s keeps the original values in %s, which cannot be created: %m.", command,
                                       o->state_dir);
        if (access(o->state_dir, W_OK) < 0)
                return log_error_errno(errno, "%s keeps the original values in %s, which is not writable: %m.", command,
                                       o->state_dir);
        /* What is there is what restore writes back as root: nobody else may put or change a file in it. */
        if (stat(o->state_dir, &st) < 0)
                return log_error_errno(errno, "%s: %m.", o->state_dir);
        if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022))
                return log_error_errno(EPERM, "%s keeps the original values in %s, which another user can write "
                                       "(owner uid %u, mode %04o): refused. Use a directory only root can write.", command,
                                       o->state_dir, (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
        return 0;
}
