/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stand-in for systemd-logind on a private system bus (DBUS_SYSTEM_BUS_ADDRESS): owns
 * org.freedesktop.login1, prints "ready", then for every line on stdin emits
 * org.freedesktop.login1.Manager.PrepareForSleep from /org/freedesktop/login1, as logind
 * does around a suspend: "sleep" emits (true), "resume" emits (false). Each emission is
 * flushed to the bus before "sent" is printed. EOF or "quit" ends it (the name goes away,
 * as when logind restarts).
 */
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

int main(void) {
        sd_bus *bus = NULL;
        char line[64];
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "login1-standin: cannot connect to the system bus: %s\n", strerror(-r));
                return 1;
        }
        r = sd_bus_request_name(bus, "org.freedesktop.login1", 0);
        if (r < 0) {
                fprintf(stderr, "login1-standin: cannot own org.freedesktop.login1: %s\n", strerror(-r));
                return 1;
        }
        setvbuf(stdout, NULL, _IOLBF, 0);
        printf("ready\n");
        while (fgets(line, sizeof(line), stdin)) {
                int sleeping;

                line[strcspn(line, "\n")] = '\0';
                if (strcmp(line, "quit") == 0)
                        break;
                if (strcmp(line, "sleep") == 0)
                        sleeping = 1;
                else if (strcmp(line, "resume") == 0)
                        sleeping = 0;
                else {
                        fprintf(stderr, "login1-standin: unknown command \"%s\"\n", line);
                        continue;
                }
                r = sd_bus_emit_signal(bus, "/org/freedesktop/login1", "org.freedesktop.login1.Manager",
                                       "PrepareForSleep", "b", sleeping);
                if (r >= 0)
                        r = sd_bus_flush(bus);
                if (r < 0) {
                        fprintf(stderr, "login1-standin: cannot emit PrepareForSleep: %s\n", strerror(-r));
                        return 1;
                }
                printf("sent\n");
        }
        sd_bus_flush_close_unref(bus);
        return 0;
}
