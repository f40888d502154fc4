/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The service manager's notification socket ($NOTIFY_SOCKET, sd_notify(3)) through one socket
 * kept for the daemon's life. sd_notify() makes a socket for each message: with its socket
 * options and credential calls, eleven system calls where one send will do. What this cannot
 * reach itself (a vsock address, a path too long for sockaddr_un, a failed send) goes to
 * sd_notify(), so nothing it would deliver is lost.
 */
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>

typedef struct Notifier {
        int fd;                 /* -1 until the first send */
        bool absent;            /* no $NOTIFY_SOCKET: nobody listens, nothing is sent */
        bool library;           /* an address this does not handle: every message through sd_notify() */
        struct sockaddr_un sa;
        socklen_t sa_len;
        unsigned fallbacks;     /* messages left to sd_notify() after a send of ours failed */
} Notifier;

/* Reads $NOTIFY_SOCKET; sends nothing and opens nothing yet. */
void notifier_init(Notifier *n);
/* Whether the service manager listens (a $NOTIFY_SOCKET is set). */
bool notifier_listening(const Notifier *n);
/* One message ("READY=1\nSTATUS=…"), as sd_notify(0, text) would send it. */
void notifier_send(Notifier *n, const char *text);
void notifier_done(Notifier *n);
