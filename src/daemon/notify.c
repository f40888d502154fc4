/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sd_notify(3) documents the protocol as stable: a datagram of "VAR=value" lines to the
 * AF_UNIX socket $NOTIFY_SOCKET names, a path or, with '@', an abstract name. The manager
 * learns the sender's PID from the kernel (SO_PASSCRED on its side), so a plain send will do.
 * The address is given at each send rather than connect()ed once: a re-executed PID 1 binds a
 * new socket at the same path.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "base/log.h"
#include "daemon/notify.h"

void notifier_init(Notifier *n) {
        const char *e = getenv("NOTIFY_SOCKET");
        size_t len;

        *n = (Notifier) { .fd = -1, .absent = !e || !*e, .sa.sun_family = AF_UNIX };
        if (n->absent)
                return;
        len = strlen(e);
        /* A path with its NUL, or an abstract name without one; anything else (vsock:…) is the library's. */
        if ((e[0] != '/' && e[0] != '@') || len >= sizeof(n->sa.sun_path)) {
                n->library = true;
                return;
        }
        memcpy(n->sa.sun_path, e, len);
        if (e[0] == '@')
                n->sa.sun_path[0] = '\0';
        n->sa_len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + len + (e[0] == '/'));
}

bool notifier_listening(const Notifier *n) {
        return !n->absent;
}

void notifier_send(Notifier *n, const char *text) {
        size_t len = strlen(text);

        if (n->absent)
                return;
        if (!n->library && n->fd < 0) {
                n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                if (n->fd < 0) {
                        log_debug_errno(errno, "No socket for the service manager's notifications (%m); sd_notify() sends them.");
                        n->library = true;
                }
        }
        /* Never waiting on a full queue here: sd_notify() below waits as it always did. */
        if (!n->library && sendto(n->fd, text, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *) &n->sa,
                                  n->sa_len) == (ssize_t) len)
                return;
        if (!n->library) {
                log_debug_errno(errno, "Notification to the service manager not sent (%m); trying sd_notify().");
                n->fallbacks++;
        }
        (void) sd_notify(false, text);
}

void notifier_done(Notifier *n) {
        if (n->fd >= 0)
                (void) close(n->fd);
        n->fd = -1;
}
