/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's notifications to the service manager (daemon/notify.h) received by a socket of
 * the test's own, at a path and at an abstract name: every message arrives whole, through one
 * socket for all of them, and still after the listener was bound anew (PID 1 re-executed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/notify.h"

static char tmpdir[64];

static int listener(const char *name, bool abstract) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct timeval tv = { .tv_sec = 5 };
        size_t len = strlen(name);
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        assert_true(len + 1 < sizeof(sa.sun_path));
        memcpy(sa.sun_path + abstract, name, len);
        assert_int_equal(bind(fd, (struct sockaddr *) &sa, (socklen_t) (offsetof(struct sockaddr_un, sun_path) + abstract + len + !abstract)), 0);
        assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
        return fd;
}

static void expect(int fd, const char *text) {
        char buf[512];
        ssize_t k = recv(fd, buf, sizeof(buf) - 1, 0);

        assert_true(k >= 0);
        buf[k] = '\0';
        assert_string_equal(buf, text);
}

static void test_path(void **state) {
        char path[128];
        Notifier n;
        int fd, first;

        snprintf(path, sizeof(path), "%s/notify", tmpdir);
        fd = listener(path, false);
        assert_int_equal(setenv("NOTIFY_SOCKET", path, 1), 0);
        notifier_init(&n);
        assert_true(notifier_listening(&n));
        notifier_send(&n, "READY=1\nSTATUS=1 NIC tuned");
        first = n.fd;
        assert_true(first >= 0);
        notifier_send(&n, "STATUS=2 NICs tuned");
        expect(fd, "READY=1\nSTATUS=1 NIC tuned");
        expect(fd, "STATUS=2 NICs tuned");
        assert_int_equal(n.fd, first); /* one socket for every message, */
        assert_int_equal(n.fallbacks, 0); /* and none left to sd_notify() */

        /* The manager binds its socket anew at the same path: the next message reaches the new one. */
        close(fd);
        assert_int_equal(unlink(path), 0);
        fd = listener(path, false);
        notifier_send(&n, "STATUS=3 NICs tuned");
        expect(fd, "STATUS=3 NICs tuned");
        assert_int_equal(n.fallbacks, 0);
        notifier_done(&n);
        assert_int_equal(n.fd, -1);
        close(fd);
        unlink(path);
}

static void test_abstract(void **state) {
        char name[64], env[80];
        Notifier n;
        int fd;

        snprintf(name, sizeof(name), "r8t-test-notify-%d", (int) getpid());
        fd = listener(name, true);
        snprintf(env, sizeof(env), "@%s", name);
        assert_int_equal(setenv("NOTIFY_SOCKET", env, 1), 0);
        notifier_init(&n);
        notifier_send(&n, "STOPPING=1\nSTATUS=Stopping");
        expect(fd, "STOPPING=1\nSTATUS=Stopping");
        assert_int_equal(n.fallbacks, 0);
        notifier_done(&n);
        close(fd);
}

static void test_nobody(void **state) {
        Notifier n;

        assert_int_equal(unsetenv("NOTIFY_SOCKET"), 0);
        notifier_init(&n);
        assert_false(notifier_listening(&n));
        notifier_send(&n, "READY=1");
        assert_int_equal(n.fd, -1); /* nothing opened for nobody */

        /* An address that is not a path or an abstract name (vsock:…) is sd_notify()'s: nothing of
         * ours is opened for it. One sd_notify() refuses at once, so that nothing is sent anywhere. */
        assert_int_equal(setenv("NOTIFY_SOCKET", "not-a-socket-address", 1), 0);
        notifier_init(&n);
        assert_true(notifier_listening(&n));
        notifier_send(&n, "READY=1");
        assert_int_equal(n.fd, -1);
        unsetenv("NOTIFY_SOCKET");
}

static int setup(void **state) {
        snprintf(tmpdir, sizeof(tmpdir), "/tmp/r8t-notify-XXXXXX");
        return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
        return rmdir(tmpdir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_path),
                cmocka_unit_test(test_abstract),
                cmocka_unit_test(test_nobody),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
