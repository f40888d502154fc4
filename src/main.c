/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>

#include "base/log.h"
#include "commands/commands.h"
#include "daemon/manager.h"
#include "experiment/experiment.h"
#include "experiment/iperf.h"
#include "show/report.h"

typedef enum CommandArgs {
        ARGS_NONE,
        ARGS_NICS,
        ARGS_FILES,
        ARGS_NAME,
} CommandArgs;

/* The one list of commands: it runs them, and the help, each command's --help and the checks
 * of what a command accepts are made from it. */
typedef struct Command {
        const char *name;
        int (*run)(const Options *o);
        CommandArgs args;
        bool json;           /* accepts --json */
        const char *summary; /* one line, in the global help */
        const char *details; /* the command's own --help: what it does, exit status, an example */
} Command;

static const Command commands[] = {
        { "status", cmd_status, ARGS_NICS, true, "Realtek NICs, their chip and the current value of every knob",
          "While the service runs, the state it holds: its profile, each NIC tuned or given back.\n"
          "Example: r8169-tuned status enp1s0" },
        { "plan", cmd_plan, ARGS_NICS, true, "What apply would change, and why; changes nothing",
          "Each knob with its current and planned value and what decided it: a quirk entry, a\n"
          "configuration line or the kernel's default.\nExample: r8169-tuned plan --profile powersave" },
        { "check-config", cmd_check_config, ARGS_FILES, true, "Validate configuration and quirk files (or just these)",
          "Every problem as FILE:LINE: message. Exit status: 0 none, 1 a problem.\n"
          "Example: r8169-tuned check-config /etc/r8169-tuned/r8169-tuned.conf.d/50-local.conf" },
        { "quirks", cmd_quirks, ARGS_NICS, true, "The quirk database, or the entries matching these NICs",
          "Each entry: its conditions, knobs, confidence, reason, evidence and references.\n"
          "Example: r8169-tuned quirks enp1s0" },
        { "kernel-defaults", cmd_kernel_defaults, ARGS_NICS, true, "What r8169 itself does on this kernel, for these NICs' chips",
          "The kernel's own defaults (ASPM, TSO, coalescing) per chip and release, with the commits.\n"
          "Example: r8169-tuned kernel-defaults --kernel-release 6.1.0" },
        { "knobs", cmd_knobs, ARGS_NONE, true, "Every knob r8169-tuned can set: backend, values, what it does", NULL },
        { "apply", cmd_apply, ARGS_NICS, false, "Apply the plan, recording originals first",
          "Through the service when it runs. Exit status: 0 every value holds (a knob the NIC does\n"
          "not have is skipped, and said), 1 a write failed or did not hold (the NIC and knob are\n"
          "named).\nExample: r8169-tuned apply enp1s0" },
        { "verify", cmd_verify, ARGS_NICS, true, "Exit 0 if every knob is as planned, else 1 and what differs",
          "Exit status: 0 every knob of the NICs is as planned and every file was read; 1 a knob\n"
          "differs, a NIC was given back by restore, a file has a problem or a NIC is unknown;\n"
          "2 usage. For a monitoring check or an Ansible task.\nExample: r8169-tuned verify --json" },
        { "restore", cmd_restore, ARGS_NICS, false, "Write back the originals r8169-tuned recorded",
          "Through the service, which then leaves those NICs alone until apply or a restart.\n"
          "Example: r8169-tuned restore enp1s0" },
        { "diagnose", cmd_diagnose, ARGS_NICS, true, "Everything a bug report needs, as Markdown (or --json)",
          "MAC addresses are redacted unless --show-mac.\nExample: r8169-tuned diagnose > report.md" },
        { "metrics", cmd_metrics, ARGS_NICS, false, "The NICs' state as Prometheus text (node_exporter textfile collector)",
          "Example: r8169-tuned metrics > /var/lib/prometheus/node-exporter/r8169-tuned.prom" },
        { "daemon", manager_run, ARGS_NONE, false, "Tune, and keep tuned: hotplug, link up, resume, drift (the service)",
          "Run by r8169-tuned.service; use systemctl to start it." },
        { "reload", cmd_reload, ARGS_NONE, false, "Have the service read its files again; exit 1 if one has a problem",
          "The unit's ExecReload=, so \"systemctl reload r8169-tuned\" does the same." },
        { "profile", cmd_profile, ARGS_NAME, true, "The profile in force, or switch the service to NAME until it stops",
          "NAME: performance, balanced, powersave or auto.\nExample: r8169-tuned profile powersave --persist" },
        { "experiment", cmd_experiment, ARGS_NICS, true, "Measure which knobs help this NIC: iperf3 against --server HOST[:PORT]",
          "Each candidate change is measured against the NIC as found, in alternating rounds, with\n"
          "every change through the undo journal; the NIC is as found at the end, whatever ends it.\n"
          "The default run (6 candidates, 5 rounds of 5 s each way) takes about 15 minutes.\n"
          "Example: r8169-tuned experiment enp1s0 --server 192.168.1.10 --report exp.md" },
};

/* The one list of options the help shows; "for" names the command an option is for (NULL: all). */
static const struct {
        const char *names, *arg, *help, *for_command;
} option_help[] = {
        { "-h --help", NULL, "Show this help (after a command: that command's)", NULL },
        { "   --version", NULL, "Show the version", NULL },
        { "   --json", NULL, "Machine-readable output", NULL },
        { "   --sysfs", "DIR", "Use DIR instead of /sys (a fixture tree)", NULL },
        { "   --kernel-log", "FILE", "Read kernel messages from FILE, not this boot's journal", NULL },
        { "   --kernel-release", "X.Y.Z", "Plan for that kernel release, not the running one", NULL },
        { "   --config", "FILE", "Configuration file (default " CONFIG_DEFAULT_PATH ")", NULL },
        { "   --quirks", "DIR", "Quirk directory instead of the shipped and /etc ones", NULL },
        { "   --profile", "NAME", "performance, balanced, powersave or auto, whatever is configured", NULL },
        { "   --state-dir", "DIR", "Undo journals (default /run/r8169-tuned)", NULL },
        { "   --log-level", "LEVEL", "err, warning, notice, info, debug", NULL },
        { "   --log-target", "TARGET", "auto, journal or stderr", NULL },
        { "   --show-mac", NULL, "Show MAC addresses (redacted otherwise)", "diagnose" },
        { "-v --verbose", NULL, "Each quirk's reason, evidence and sources under the table", "plan" },
        { "   --persist", NULL, "Also write it to a drop-in, for every start", "profile" },
        { "   --reset", NULL, "Back to the configured profile (with --persist: remove that drop-in)", "profile" },
        { "   --server", "HOST[:PORT]", "The iperf3 server (\"iperf3 -s\" on another machine)", "experiment" },
        { "   --knob", "K=V[,K=V]", "Measure this change (repeatable) instead of the default list", "experiment" },
        { "   --rounds", "N", "Rounds of baseline and candidate each (default 5, at least 4)", "experiment" },
        { "   --seconds", "S", "Length of each iperf3 test (default 5)", "experiment" },
        { "   --idle-seconds", "S", "Length of each idle power sample (default 5)", "experiment" },
        { "   --direction", "DIR", "send, receive or both (default)", "experiment" },
        { "   --write-config", "FILE", "Write what helped as a configuration drop-in", "experiment" },
        { "   --report", "FILE", "Write the results and a quirk entry draft as Markdown", "experiment" },
        { "   --iperf3", "PATH", "The iperf3 to run (default " IPERF_BINARY "; root's, run as " IPERF_USER ")", "experiment" },
};

static const char *const args_words[] = {
        [ARGS_NONE] = "", [ARGS_NICS] = "[NIC...]", [ARGS_FILES] = "[FILE...]", [ARGS_NAME] = "[NAME]",
};

/* Two columns, the second at 28; a first column that leaves no space gets a line of its own. */
static void help_row(const char *indent, const char *left, const char *arg, const char *text) {
        char col[96];
        int n = snprintf(col, sizeof(col), "%s%s%s%s", indent, left, arg && *arg ? " " : "", arg ?: "");

        if (n >= 27)
                printf("%s\n%28s%s\n", col, "", text);
        else
                printf("%-28s%s\n", col, text);
}

static void help_options(const char *for_command) {
        for (size_t i = 0; i < ELEMENTSOF(option_help); i++)
                if (for_command ? option_help[i].for_command && streq(option_help[i].for_command, for_command)
                                : !option_help[i].for_command)
                        help_row("  ", option_help[i].names, option_help[i].arg, option_help[i].help);
}

static bool command_has_options(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(option_help); i++)
                if (option_help[i].for_command && streq(option_help[i].for_command, name))
                        return true;
        return false;
}

/* One table of exit codes for every command, direct or through the service (r8169-tuned(8) has the same). */
static const struct {
        const char *code, *meaning;
} exit_codes[] = {
        { "0", "Done: applied, nothing to do, a knob the NIC does not have (skipped, and said), a NIC given back by restore taken back by apply" },
        { "1", "A write failed or did not hold; verify: a knob differs from the plan or a NIC was given back; a file has a problem; a NIC named is not there; root is needed" },
        { "2", "Usage: an unknown command or option, a missing or bad option value, arguments where none go" },
        { "128+N", "experiment: ended by signal N, once every value is as it was found (1 when one is not)" },
};

static void help_exit_codes(void) {
        printf("\nExit status, the same directly and through the service:\n");
        for (size_t i = 0; i < ELEMENTSOF(exit_codes); i++) {
                /* Wrapped at 72 columns of text under the second column (80 in all). */
                const char *s = exit_codes[i].meaning;
                bool first = true;
                while (*s) {
                        size_t len = strlen(s), cut = len;
                        if (len > 72) {
                                cut = 72;
                                while (cut > 0 && s[cut] != ' ')
                                        cut--;
                                if (cut == 0)
                                        cut = len;
                        }
                        printf("  %-8s%.*s\n", first ? exit_codes[i].code : "", (int) cut, s);
                        s += cut;
                        while (*s == ' ')
                                s++;
                        first = false;
                }
        }
}

static void help(void) {
        printf("Usage: r8169-tuned [OPTIONS] [COMMAND] [ARGS] [OPTIONS]\n\n"
               "Finds Realtek NICs, identifies the chip and tunes the knobs it needs.\n"
               "Options may stand anywhere; \"--\" ends them. Without a command, status runs.\n"
               "NIC is an interface name or a PCI slot (0000:01:00.0, or lspci's 01:00.0).\n"
               "\"r8169-tuned COMMAND --help\" shows a command's own help.\n\nCommands:\n");
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                help_row("  ", commands[i].name, args_words[commands[i].args], commands[i].summary);
        printf("\nOptions:\n");
        help_options(NULL);
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (command_has_options(commands[i].name)) {
                        printf("\n%s options:\n", commands[i].name);
                        help_options(commands[i].name);
                }
        help_exit_codes();
}

static void help_command(const Command *c) {
        printf("Usage: r8169-tuned %s%s%s [OPTIONS]\n\n%s.\n", c->name, c->args != ARGS_NONE ? " " : "", args_words[c->args],
               c->summary);
        if (c->args == ARGS_NICS)
                printf("NIC: an interface name or a PCI slot (0000:01:00.0, or lspci's 01:00.0); %s.\n",
                       streq(c->name, "experiment") ? "one, which may be left out where there is only one"
                                                    : "none: every one");
        if (c->details)
                printf("%s\n", c->details);
        if (command_has_options(c->name)) {
                printf("\nOptions:\n");
                help_options(c->name);
        }
        printf("\n%s\"r8169-tuned --help\" lists the options every command takes;\n"
               "man r8169-tuned has the rest.\n", c->json ? "--json gives the same as JSON. " : "");
}

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
       ARG_FAULT, ARG_LOG_TARGET, ARG_KERNEL_RELEASE, ARG_SHOW_MAC, ARG_VERBOSE, ARG_PERSIST, ARG_RESET,
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
        { "verbose", no_argument, NULL, 'v' },
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
/* The options given, by their index in options[]: what dispatch checks against the command. */
static bool given[ELEMENTSOF(options)];

static void option_given(int c) {
        for (size_t i = 0; options[i].name; i++)
                if (options[i].val == c)
                        given[i] = true;
}

/* An option that belongs to one command (option_help's "for"), given to another: a usage error. */
static int check_option_owners(const Command *c) {
        for (size_t i = 0; i < ELEMENTSOF(option_help); i++) {
                const char *owner = option_help[i].for_command, *name = strstr(option_help[i].names, "--");

                if (!owner || streq(owner, c->name))
                        continue;
                for (size_t k = 0; options[k].name; k++)
                        if (given[k] && streq(options[k].name, name + 2))
                                return usage_error("%s is for %s only.", name, owner);
        }
        return 0;
}

/* An option getopt did not know; for a long one, the closest that exists (ux-findings L9). */
static int unknown_option(const char *arg) {
        char names[ELEMENTSOF(options)][32], name[64];
        const char *candidates[ELEMENTSOF(options)], *guess;
        size_t n = 0;

        snprintf(name, sizeof(name), "%.*s", (int) strcspn(arg, "="), arg);
        for (size_t i = 0; i < ELEMENTSOF(options) && options[i].name; i++) {
                if (options[i].val == ARG_FAULT) /* a test seam, never suggested */
                        continue;
                snprintf(names[n], sizeof(names[n]), "--%s", options[i].name);
                candidates[n] = names[n];
                n++;
        }
        guess = strncmp(name, "--", 2) == 0 ? closest_word(name, candidates, n) : NULL;
        if (guess)
                return usage_error("Unknown option \"%s\"; did you mean \"%s\"?", name, guess);
        return usage_error("Unknown option \"%s\".", arg);
}

static int parse_options(Options *o, int argc, char *argv[], bool *ret_help) {
        int c, r;

        opterr = 0;
        while ((c = getopt_long(argc, argv, ":hv", options, NULL)) >= 0) {
                option_given(c);
                switch (c) {
                case 'h': /* after the loop: the command's own help, if one is named */
                        *ret_help = true;
                        break;
                case ARG_VERSION:
                        printf("r8169-tuned %s\n", R8T_VERSION);
                        return 0;
                case ARG_JSON:
                        o->json = true;
                        break;
                case ARG_SHOW_MAC:
                        o->show_mac = true;
                        break;
                case 'v':
                        o->verbose = true;
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
                        return unknown_option(argv[optind - 1]);
                default:
                        r = parse_valued(o, c, optarg);
                        if (r != 0)
                                return r;
                }
        }
        return -1;
}

static const Command *command_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (streq(name, commands[i].name))
                        return &commands[i];
        return NULL;
}

static int unknown_command(const char *cmd) {
        const char *names[ELEMENTSOF(commands)], *guess;

        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                names[i] = commands[i].name;
        guess = closest_word(cmd, names, ELEMENTSOF(commands));
        if (guess)
                return usage_error("Unknown command \"%s\"; did you mean \"%s\"?", cmd, guess);
        return usage_error("Unknown command \"%s\".", cmd);
}

/* --help anywhere, or "help [COMMAND]" as systemctl and networkctl take it. */
static int show_help(const char *cmd) {
        const Command *c;

        if (cmd && streq(cmd, "help"))
                cmd = NULL; /* "help --help": the help */
        c = cmd ? command_find(cmd) : NULL;

        if (cmd && !c)
                return unknown_command(cmd);
        if (c)
                help_command(c);
        else
                help();
        return 0;
}

/* The command line, past its options: which command, checked against what it takes. */
static int dispatch(Options *o, int argc, char *argv[]) {
        const Command *c;
        const char *cmd;
        int r;

        cmd = optind < argc ? argv[optind] : "status";
        if (streq(cmd, "help"))
                return optind + 2 < argc ? usage_error("help takes one command.") : show_help(optind + 1 < argc ? argv[optind + 1] : NULL);
        o->args = argv + optind + (optind < argc);
        o->n_args = argc - optind - (optind < argc);
        c = command_find(cmd);
        if (!c)
                return unknown_command(cmd);
        if (o->json && !c->json)
                return usage_error("%s has no --json output.", cmd);
        if (o->n_args > 0 && c->args == ARGS_NONE)
                return usage_error("%s takes no arguments (\"%s\" given).", cmd, o->args[0]);
        r = check_option_owners(c);
        if (r != 0)
                return r;
        if (o->reset && o->n_args > 0)
                return usage_error("--reset goes back to the configured profile: it takes no name (\"%s\" given).", o->args[0]);
        if (o->persist && !o->reset && o->n_args == 0)
                return usage_error("--persist writes the profile named: r8169-tuned profile NAME --persist.");
        return c->run(o);
}
/* Whether --json is among the options, whether or not getopt got that far. */
static bool json_asked(int argc, char *argv[]) {
        for (int i = 1; i < argc && !streq(argv[i], "--"); i++)
                if (streq(argv[i], "--json"))
                        return true;
        return false;
}

/* {"schema": 1, "error": {"message", "errno", "exit_status"}}: what went wrong, as the first error logged says it. */
static void error_json(int status) {
        JsonWriter w = json_writer(stdout);
        int error;
        const char *msg = log_first_error(&error);

        json_object_begin(&w);
        json_kv_u64(&w, "schema", REPORT_JSON_SCHEMA);
        json_key(&w, "error");
        json_object_begin(&w);
        json_kv_str(&w, "message", msg ?: "failed");
        json_kv_str(&w, "errno", report_errno_name(error));
        json_kv_u64(&w, "exit_status", (uint64_t) status);
        json_object_end(&w);
        json_object_end(&w);
        json_end(&w);
}

int main(int argc, char *argv[]) {
        Options o = { .sysfs = "/sys", .state_dir = "/run/r8169-tuned", .log_level = -1 };
        bool want_help = false;
        int r;

        log_open();
        _cleanup_free_ const char **knobs = calloc((size_t) argc, sizeof(char *));
        if (!knobs)
                return log_oom(), 1;
        o.knobs = knobs;
        r = parse_options(&o, argc, argv, &want_help);
        if (r < 0 && want_help)
                r = show_help(optind < argc ? argv[optind] : NULL);
        else if (r < 0) {
                /* A state directory of its own (a test, a second instance) keeps what outlives a reboot there too. */
                o.lib_dir = streq(o.state_dir, "/run/r8169-tuned") ? "/var/lib/r8169-tuned" : o.state_dir;
                r = dispatch(&o, argc, argv);
        }
        /* --json asked, and the command failed before its document: the error as JSON too, for the script that parses it
         * (also when an option before --json was the error). */
        if ((o.json || json_asked(argc, argv)) && r != 0 && !json_document_written())
                error_json(r);
        return r;
}
