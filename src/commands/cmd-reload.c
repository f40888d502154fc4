/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <signal.h>
#include <stdlib.h>
#include <systemd/sd-bus.h>

#include "base/log.h"
#include "client/service.h"
#include "commands/commands.h"
#include "state/lock.h"

/*
 * What the unit's ExecReload= runs (systemd sets $MAINPID): the service reads its files again
 * (without those that have problems, as at start-up) and this command checks them as the
 * service will, so that a file with a problem fails the reload — `systemctl reload` exits
 * non-zero with every problem as file:line — while everything else is in force. No /bin/kill
 * is needed: a minimal Debian has no procps.
 */
int cmd_reload(const Options *o) {
        _cleanup_(diag_done) Diagnostics d = {};
        const char *env = getenv("MAINPID");
        Config config;
        QuirkDb quirks;
        uint64_t pid;
        int r;

        if (!env) {
                /* By hand: through the service's API, which answers with the problems. */
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
                if (service_bus_open(o, &bus) >= 0)
                        return service_reload(bus, o);
                log_error("r8169-tuned.service is not running (or has no D-Bus API): there is nothing to reload.");
                return 1;
        }
        if (parse_u64(env, &pid) < 0 || pid <= 1 || pid > INT32_MAX)
                return log_error("MAINPID=%s is not a process.", env), 1;
        /* Only the service is signalled: run from another unit's hook, $MAINPID names that unit's process. */
        r = lock_service_held_by(o->state_dir, (pid_t) pid);
        if (r < 0)
                return log_error_errno(r, "MAINPID=%s: cannot tell whether it is the r8169-tuned service (%m); nothing is "
                                       "signalled.", env), 1;
        if (r == 0)
                return log_error("MAINPID=%s is not the r8169-tuned service: it does not hold %s/daemon.lock. Nothing is "
                                 "signalled.", env, o->state_dir), 1;
        context_read_policy_quiet(o, &config, &quirks, &d); /* as the service will: the same files left out */
        config_done(&config);
        quirk_db_done(&quirks);
        if (kill((pid_t) pid, SIGHUP) < 0)
                return log_error_errno(errno, "Cannot signal the service (PID %" PRIu64 "): %m", pid), 1;
        if (d.n == 0)
                return 0;
        diag_print(&d, stderr);
        log_error("%zu problem%s: the files named are left out until they are fixed; everything else is in force.", d.n,
                  d.n == 1 ? "" : "s");
        return 1;
}
