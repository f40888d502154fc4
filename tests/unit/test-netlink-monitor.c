/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The link monitor against the running kernel, in a network namespace of the test's own:
 * everything queued is taken by one receive, however many batches it spans, and a message
 * another process sends to the monitor's port id (CAP_NET_ADMIN may) is dropped unread; a
 * receive asked for from inside a handler is done by the one under way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <stdio.h>
#include <sys/socket.h>

#include "kernel/rtnl.h"

#define PAIRS 12 /* 24 interfaces: more link messages than three batches */

typedef struct Seen {
        bool created[2 * PAIRS];
        unsigned messages;
        bool spoofed;
        NetlinkMonitor *nested; /* at r8tm0: create r8tn0/r8tn1 and receive from inside the handler */
        bool inner[2];
} Seen;

static void on_link(const char *ifname, int ifindex, unsigned flags, bool removed, void *userdata) {
        Seen *s = userdata;
        unsigned i;
        char end;

        s->messages++;
        if (streq(ifname, "r8tspoof0"))
                s->spoofed = true;
        if (!removed && sscanf(ifname, "r8tm%u%c", &i, &end) == 1 && i < 2 * PAIRS)
                s->created[i] = true;
        if (!removed && sscanf(ifname, "r8tn%u%c", &i, &end) == 1 && i < 2)
                s->inner[i] = true;
        if (s->nested && streq(ifname, "r8tm0")) {
                NetlinkMonitor *m = TAKE_PTR(s->nested);
                assert_int_equal(system("ip link add r8tn0 type veth peer name r8tn1"), 0);
                /* From inside a handler: only asks the receive under way to look again. */
                assert_int_equal(netlink_monitor_receive(m), 0);
                assert_false(s->inner[0] || s->inner[1]);
        }
}

static void enter_netns(void) {
        if (unshare(CLONE_NEWNET) < 0) {
                if (errno == EPERM)
                        skip(); /* not root: no namespace of our own to create links in */
                fail_msg("unshare(CLONE_NEWNET): %s", strerror(errno));
        }
}

static void test_batches(void **state) {
        _cleanup_(netlink_monitor_freep) NetlinkMonitor *m = NULL;
        Seen seen = {};
        char cmd[4096] = "ip -batch - <<EOF >/dev/null 2>&1\n";

        enter_netns();
        assert_int_equal(rtnl_monitor_new(on_link, &seen, &m), 0);
        /* Room for all of it (the default would do, but a test must not depend on rmem_default). */
        assert_int_equal(netlink_monitor_set_rcvbuf(m, 4 * 1024 * 1024, NULL), 0);
        for (int i = 0; i < PAIRS; i++)
                snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "link add r8tm%d type veth peer name r8tm%d\n", 2 * i,
                         2 * i + 1);
        strcat(cmd, "EOF\n");
        /* Multicast delivery is done when ip returns: everything is queued before the one receive. */
        assert_int_equal(system(cmd), 0);
        assert_int_equal(netlink_monitor_receive(m), 0);
        for (int i = 0; i < 2 * PAIRS; i++)
                assert_true(seen.created[i]);
        assert_true(seen.messages > 2 * NETLINK_MONITOR_BATCH);
        /* Nothing left behind: a second receive finds an empty queue. */
        seen.messages = 0;
        assert_int_equal(netlink_monitor_receive(m), 0);
        assert_int_equal(seen.messages, 0);
}

static void test_foreign_sender(void **state) {
        _cleanup_(netlink_monitor_freep) NetlinkMonitor *m = NULL;
        _cleanup_close_ int fd = -1;
        Seen seen = {};
        struct {
                struct nlmsghdr nlh;
                struct ifinfomsg ifi;
                struct rtattr rta;
                char name[12];
        } msg = {
                .nlh = { .nlmsg_len = sizeof(msg), .nlmsg_type = RTM_NEWLINK },
                .ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 4242 },
                .rta = { .rta_len = RTA_LENGTH(sizeof("r8tspoof0")), .rta_type = IFLA_IFNAME },
                .name = "r8tspoof0",
        };
        struct sockaddr_nl to = { .nl_family = AF_NETLINK };

        enter_netns();
        assert_int_equal(rtnl_monitor_new(on_link, &seen, &m), 0);
        to.nl_pid = nl_socket_get_local_port(m->sock);
        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        assert_true(fd >= 0);
        /* A well-formed link message, sent to the monitor by a process, not by the kernel. */
        assert_int_equal(sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *) &to, sizeof(to)), (ssize_t) sizeof(msg));
        assert_int_equal(netlink_monitor_receive(m), 0);
        assert_false(seen.spoofed);
        assert_int_equal(seen.messages, 0);
        assert_int_equal(m->foreign, 1);
        /* And the kernel's own still come through after it. */
        assert_int_equal(system("ip link add r8tm0 type veth peer name r8tm1"), 0);
        assert_int_equal(netlink_monitor_receive(m), 0);
        assert_true(seen.created[0] && seen.created[1]);
        assert_false(seen.spoofed);
}

/* A handler whose work makes more messages, and that asks for them: the receive under way reads them. */
static void test_nested(void **state) {
        _cleanup_(netlink_monitor_freep) NetlinkMonitor *m = NULL;
        Seen seen = {};

        enter_netns();
        assert_int_equal(rtnl_monitor_new(on_link, &seen, &m), 0);
        seen.nested = m;
        assert_int_equal(system("ip link add r8tm0 type veth peer name r8tm1"), 0);
        assert_int_equal(netlink_monitor_receive(m), 0);
        assert_null(seen.nested); /* the handler ran */
        assert_true(seen.inner[0] && seen.inner[1]);
        assert_false(m->receiving || m->again);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_batches),
                cmocka_unit_test(test_foreign_sender),
                cmocka_unit_test(test_nested),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
