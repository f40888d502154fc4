/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The D-Bus methods' argument handling: Apply, Restore and Release's "as" of NIC names, from
 * any bytes (one name per line), against two NICs. Each input is a real sd-bus message,
 * sealed and read back as the service reads a caller's.
 */
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "base/log.h"
#include "daemon/manager-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const slots[] = { "0000:02:00.0", "0000:03:00.0" };
static const char *const ifnames[] = { "enp2s0", "wan0" };

static int setup(sd_bus **ret_bus, Manager *m) {
        static Link links[2];
        int fds[2];

        log_set_max_level(LOG_EMERG);
        /* A bus on one end of a socket pair: enough to make messages, never connected. */
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0 || sd_bus_new(ret_bus) < 0 ||
            sd_bus_set_fd(*ret_bus, fds[0], fds[0]) < 0 || sd_bus_start(*ret_bus) < 0)
                return -1;
        for (size_t i = 0; i < 2; i++) {
                snprintf(links[i].nic.slot, sizeof(links[i].nic.slot), "%s", slots[i]);
                snprintf(links[i].nic.ifnames[0], sizeof(links[i].nic.ifnames[0]), "%s", ifnames[i]);
                links[i].nic.n_ifnames = 1;
        }
        m->links = (LinkSet) { .links = links, .n = 2 };
        if (link_set_index(&m->links) < 0 || sd_event_new(&m->event) < 0)
                return -1;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static sd_bus *bus;
        static Manager m;
        static bool ready;
        sd_bus_message *msg = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        bool selected[2];
        const char *p = (const char *) data, *end = p + size;

        if (!ready) {
                if (setup(&bus, &m) < 0)
                        abort();
                ready = true;
        }
        if (sd_bus_message_new_method_call(bus, &msg, "io.github.r8169_tuned1", "/io/github/r8169_tuned1",
                                           "io.github.r8169_tuned1.Manager", "Apply") < 0 ||
            sd_bus_message_open_container(msg, 'a', "s") < 0)
                abort();
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t len = nl ? (size_t) (nl - p) : (size_t) (end - p);
                char *name = strndup(p, len);

                if (!name)
                        abort();
                /* sd-bus refuses what is no D-Bus string (invalid UTF-8): a caller cannot send it either. */
                (void) sd_bus_message_append(msg, "s", name);
                free(name);
                p += len + 1;
        }
        if (sd_bus_message_close_container(msg) >= 0 && sd_bus_message_seal(msg, 1, 0) >= 0 &&
            sd_bus_message_rewind(msg, true) >= 0)
                (void) manager_bus_select_links(&m, msg, selected, &error);
        sd_bus_error_free(&error);
        sd_bus_message_unref(msg);
        /* What the service's loop would run: the deferred malloc_trim after a large message. */
        (void) sd_event_run(m.event, 0);
        return 0;
}
