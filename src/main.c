/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>

#include "commands.h"
#include "experiment.h"
#include "iperf.h"
#include "log.h"
#include "manager.h"

static void help(void) {
        printf("Usage: r8169-tuned [OPTIONS] [COMMAND] [ARGS] [OPTIONS]\n\n"
               "Finds Realtek NICs, identifies the chip and tunes the knobs it needs.\n"
               "Options may stand anywhere; \"--\" ends them. Without a command, status runs.\n"
               "NIC is an interface name or a PCI slot (0000:01:00.0, or lspci's 01:00.0).\n\n"
               "Commands:\n"
               "  status [NIC...]   Realtek NICs, their chip and the current value of every knob\n"
               "  plan [NIC...]     What apply would change, and why; changes nothing\n"
               "  check-config [FILE...]  Validate configuration and quirk files (or just these)\n"
               "  quirks [NIC...]   The quirk database, or the entries matching these NICs\n"
               "  kernel-defaults [NIC...]  What r8169 itself does on this kernel, for these NICs' chips\n"
               "  knobs             Every knob r8169-tuned can set: backend, values, what it does\n"
               "  apply [NIC...]    Apply the plan, recording originals first\n"
               "  verify [NIC...]   Exit 0 if every knob is as planned, else 1 and what differs\n"
               "  restore [NIC...]  Write back the originals r8169-tuned recorded\n"
               "  diagnose [NIC...] Everything a bug report needs, as Markdown (or --json)\n"
               "  metrics [NIC...]  The NICs' state as Prometheus text (node_exporter textfile collector)\n"
               "  daemon            Tune, and keep tuned: hotplug, link up, resume, drift (the service)\n"
               "  reload            Have the service read its files again; exit 1 if one has a problem\n"
               "  profile [NAME]    The profile in force, or switch the service to NAME until it stops\n"
               "  experiment [NIC]  Measure which knobs help this NIC: iperf3 against --server HOST[:PORT]\n"
               "\nOptions:\n"
               "  -h --help             Show this help\n"
               "     --version          Show the version\n"
               "     --json             Machine-readable output\n"
               "     --sysfs DIR        Use DIR instead of /sys (a fixture tree)\n"
               "     --kernel-log FILE  Read kernel messages from FILE, not this boot's journal\n"
               "     --kernel-release X.Y.Z  Plan for that kernel release, not the running one\n"
               "     --config FILE      Configuration file (default " CONFIG_DEFAULT_PATH ")\n"
               "     --quirks DIR       Quirk directory instead of the shipped and /etc ones\n"
               "     --profile NAME     performance, balanced or powersave, whatever is configured\n"
               "     --state-dir DIR    Undo journals (default /run/r8169-tuned)\n"
               "     --log-level LEVEL  err, warning, notice, info, debug\n"
               "     --log-target TARGET  auto, journal or stderr\n"
               "     --show-mac         diagnose: show MAC addresses (redacted otherwise)\n"
               "     --persist          profile: also write it to a drop-in, for every start\n"
               "     --reset            profile: back to the configured profile (with --persist: remove that drop-in)\n"
               "\nexperiment options:\n"
               "     --server HOST[:PORT]  The iperf3 server (\"iperf3 -s\" on another machine)\n"
               "     --knob K=V[,K=V]   Measure this change (repeatable) instead of the default list\n"
               "     --rounds N         Rounds of baseline and candidate each (default 5, at least 4)\n"
               "     --seconds S        Length of each iperf3 test (default 5)\n"
               "     --idle-seconds S   Length of each idle power sample (default 5)\n"
               "     --direction DIR    send, receive or both (default)\n"
               "     --write-config FILE  Write what helped as a configuration drop-in\n"
               "     --report FILE      Write the results and a quirk entry draft as Markdown\n"
               "     --iperf3 PATH      The iperf3 to run (default " IPERF_BINARY "; root's, run as nobody)\n");
}

typedef enum CommandArgs {
        ARGS_NONE,
        ARGS_NICS,
        ARGS_FILES,
} CommandArgs;

static const struct {
        const char *name;
        int (*run)(const Options *o);
        CommandArgs args;
        bool json; /* accepts --json */
} commands[] = {
        { "status", cmd_status, ARGS_NICS, true },
        { "plan", cmd_plan, ARGS_NICS, true },
        { "check-config", cmd_check_config, ARGS_FILES, false },
        { "quirks", cmd_quirks, ARGS_NICS, true },
        { "kernel-defaults", cmd_kernel_defaults, ARGS_NICS, true },
        { "knobs", cmd_knobs, ARGS_NONE, true },
        { "metrics", cmd_metrics, ARGS_NICS, false },
        { "apply", cmd_apply, ARGS_NICS, false },
        { "restore", cmd_restore, ARGS_NICS, false },
        { "reload", cmd_reload, ARGS_NONE, false },
        { "verify", cmd_verify, ARGS_NICS, true },
        { "profile", cmd_profile, ARGS_NICS, false },
        { "daemon", manager_run, ARGS_NONE, false },
        { "experiment", cmd_experiment, ARGS_NICS, true },
        { "diagnose", cmd_diagnose, ARGS_NICS, true },
};

static int usage_error(const char *fmt, ...) _printf_(1, 2);
static int usage_error(const char *fmt, ...) {
        char msg[256];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        log_error("%s See r8169-tuned --help.", msg);
        return 2;
}

enum { ARG_VERSION = 0x100, ARG_JSON, ARG_SYSFS, ARG_KERNEL_LOG, ARG_LOG_LEVEL, ARG_CONFIG, ARG_QUIRKS, ARG_PROFILE, ARG_STATE_DIR,
       ARG_FAULT, ARG_LOG_TARGET, ARG_KERNEL_RELEASE, ARG_SHOW_MAC, ARG_PERSIST, ARG_RESET,
       ARG_SERVER, ARG_KNOB, ARG_ROUNDS, ARG_SECONDS, ARG_IDLE_SECONDS, ARG_DIRECTION, ARG_WRITE_CONFIG, ARG_REPORT, ARG_IPERF3 };

static const struct option options[] = {
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, ARG_VERSION },
        { "json", no_argument, NULL, ARG_JSON },
        { "sysfs", required_argument, NULL, ARG_SYSFS },
        { "kernel-log", required_argument, NULL, ARG_KERNEL_LOG },
        { "kernel-release", required_argument, NULL, ARG_KERNEL_RELEASE },
        { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
        { "config", required_argument, NULL, ARG_CONFIG },
        { "quirks", required_argument, NULL, ARG_QUIRKS },
        { "profile", required_argument, NULL, ARG_PROFILE },
        { "state-dir", required_argument, NULL, ARG_STATE_DIR },
        { "log-target", required_argument, NULL, ARG_LOG_TARGET },
        { "show-mac", no_argument, NULL, ARG_SHOW_MAC },
        { "persist", no_argument, NULL, ARG_PERSIST },
        { "reset", no_argument, NULL, ARG_RESET },
        { "server", required_argument, NULL, ARG_SERVER },
        { "knob", required_argument, NULL, ARG_KNOB },
        { "rounds", required_argument, NULL, ARG_ROUNDS },
        { "seconds", required_argument, NULL, ARG_SECONDS },
        { "idle-seconds", required_argument, NULL, ARG_IDLE_SECONDS },
        { "direction", required_argument, NULL, ARG_DIRECTION },
        { "write-config", required_argument, NULL, ARG_WRITE_CONFIG },
        { "report", required_argument, NULL, ARG_REPORT },
        { "iperf3", required_argument, NULL, ARG_IPERF3 },
        /* Test seam, not documented: "N:KILL" or "N:STOP" after the N-th write. */
        { "fault-after-writes", required_argument, NULL, ARG_FAULT },
        {}
};

/* An option with a value that must be checked: 0, or the exit code of a usage error. */
static int parse_valued(Options *o, int c, const char *arg) {
        KernelVersion v;
        unsigned n;
        uint64_t u;
        char sig[8];
        int level;

        switch (c) {
        case ARG_ROUNDS:
                if (parse_u64(arg, &u) < 0 || u < EXPERIMENT_ROUNDS_MIN || u > EXPERIMENT_ROUNDS_MAX)
                        return usage_error("--rounds takes %d to %d (a 95 %% interval needs at least %d), not \"%s\".",
                                           EXPERIMENT_ROUNDS_MIN, EXPERIMENT_ROUNDS_MAX, EXPERIMENT_ROUNDS_MIN, arg);
                o->rounds = (unsigned) u;
                return 0;
        case ARG_SECONDS:
        case ARG_IDLE_SECONDS:
                if (parse_u64(arg, &u) < 0 || u < 1 || u > 3600)
                        return usage_error("--%s takes whole seconds, 1 to 3600, not \"%s\".",
                                           c == ARG_SECONDS ? "seconds" : "idle-seconds", arg);
                *(c == ARG_SECONDS ? &o->seconds : &o->idle_seconds) = (unsigned) u;
                return 0;
        case ARG_DIRECTION:
                if (!streq(arg, "send") && !streq(arg, "receive") && !streq(arg, "both"))
                        return usage_error("--direction takes send, receive or both, not \"%s\".", arg);
                o->direction = arg;
                return 0;
        case ARG_KERNEL_RELEASE:
                if (kernel_version_parse_strict(arg, &v) < 0)
                        return usage_error("--kernel-release takes a release like 6.1.53, not \"%s\".", arg);
                o->kernel_release = arg;
                return 0;
        case ARG_PROFILE:
                if (profile_from_string(arg) < 0)
                        return usage_error("Unknown profile \"%s\": expected performance, balanced, powersave or auto.", arg);
                o->profile = arg;
                return 0;
        case ARG_LOG_TARGET:
                if (log_target_from_string(arg) < 0)
                        return usage_error("--log-target takes auto, journal or stderr.");
                log_set_target(log_target_from_string(arg));
                return 0;
        case ARG_FAULT:
                if (sscanf(arg, "%u:%7s", &n, sig) != 2 || n == 0 || (!streq(sig, "KILL") && !streq(sig, "STOP")))
                        return usage_error("--fault-after-writes takes N:KILL or N:STOP.");
                o->fault_after_writes = n;
                o->fault_signal = streq(sig, "KILL") ? SIGKILL : SIGSTOP;
                return 0;
        case ARG_LOG_LEVEL:
                level = log_level_from_string(arg);
                if (level < 0)
                        return usage_error("Unknown log level \"%s\".", arg);
                log_set_max_level(level);
                o->log_level = level;
                return 0;
        }
        return usage_error("Unknown option.");
}

/* Options anywhere on the line, as systemctl and networkctl take them; "--" ends them. -1: go on, else the exit code. */
static int parse_options(Options *o, int argc, char *argv[]) {
        int c, r;

        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("r8169-tuned %s\n", R8T_VERSION);
                        return 0;
                case ARG_JSON:
                        o->json = true;
                        break;
                case ARG_SHOW_MAC:
                        o->show_mac = true;
                        break;
                case ARG_PERSIST:
                        o->persist = true;
                        break;
                case ARG_RESET:
                        o->reset = true;
                        break;
                case ARG_SYSFS:
                        o->sysfs = optarg;
                        break;
                case ARG_KERNEL_LOG:
                        o->kernel_log = optarg;
                        break;
                case ARG_CONFIG:
                        o->config = optarg;
                        break;
                case ARG_QUIRKS:
                        o->quirks = optarg;
                        break;
                case ARG_STATE_DIR:
                        o->state_dir = optarg;
                        break;
                case ARG_SERVER:
                        o->server = optarg;
                        break;
                case ARG_KNOB:
                        o->knobs[o->n_knobs++] = optarg; /* sized for argc */
                        break;
                case ARG_WRITE_CONFIG:
                        o->write_config = optarg;
                        break;
                case ARG_REPORT:
                        o->report = optarg;
                        break;
                case ARG_IPERF3:
                        o->iperf3 = optarg;
                        break;
                case ':':
                        return usage_error("Option %s needs a value.", argv[optind - 1]);
                case '?':
                        return usage_error("Unknown option \"%s\".", argv[optind - 1]);
                default:
                        r = parse_valued(o, c, optarg);
                        if (r != 0)
                                return r;
                }
        }
        return -1;
}

int main(int argc, char *argv[]) {
        Options o = { .sysfs = "/sys", .state_dir = "/run/r8169-tuned", .log_level = -1 };
        const char *cmd;
        int r;

        log_open();
        _cleanup_free_ const char **knobs = calloc((size_t) argc, sizeof(char *));
        if (!knobs)
                return log_oom(), 1;
        o.knobs = knobs;
        r = parse_options(&o, argc, argv);
        if (r >= 0)
                return r;
        /* A state directory of its own (a test, a second instance) keeps what outlives a reboot there too. */
        o.lib_dir = streq(o.state_dir, "/run/r8169-tuned") ? "/var/lib/r8169-tuned" : o.state_dir;
        cmd = optind < argc ? argv[optind] : "status";
        if (streq(cmd, "help")) /* as systemctl and networkctl take it */
                return help(), 0; /* "help" */
        o.args = argv + optind + (optind < argc);
        o.n_args = argc - optind - (optind < argc);
        for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
                if (!streq(cmd, commands[i].name))
                        continue;
                if (o.json && !commands[i].json)
                        return usage_error("%s has no --json output.", cmd);
                if (o.n_args > 0 && commands[i].args == ARGS_NONE)
                        return usage_error("%s takes no arguments (\"%s\" given).", cmd, o.args[0]);
                if ((o.persist || o.reset) && commands[i].run != cmd_profile)
                        return usage_error("--persist and --reset are for profile only.");
                if (o.reset && o.n_args > 0)
                        return usage_error("--reset goes back to the configured profile: it takes no name (\"%s\" given).", o.args[0]);
                if (o.persist && !o.reset && o.n_args == 0)
                        return usage_error("--persist writes the profile named: r8169-tuned profile NAME --persist.");
                if ((o.server || o.n_knobs || o.rounds || o.seconds || o.idle_seconds || o.direction || o.write_config || o.report ||
                     o.iperf3) &&
                    commands[i].run != cmd_experiment)
                        return usage_error("--server, --knob, --rounds, --seconds, --idle-seconds, --direction, --write-config, "
                                           "--report and --iperf3 are for experiment only.");
                return commands[i].run(&o);
        }
        {
                const char *names[ELEMENTSOF(commands)], *guess;

                for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                        names[i] = commands[i].name;
                guess = closest_word(cmd, names, ELEMENTSOF(commands));
                if (guess)
                        return usage_error("Unknown command \"%s\"; did you mean \"%s\"?", cmd, guess);
        }
        return usage_error("Unknown command \"%s\".", cmd);
}
