/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's NIC through its own interface (link.h), without root, a namespace or a loop:
 * a sysfs tree of one RTL8168h in a temporary directory, the real planner, apply and undo
 * journal, and packet counts handed in through the LinkEnv seam. Drift, dynamic link power
 * and the rescan merge, each with what it asks of the manager.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/link.h"
#include "open-fds.h"

#define SLOT "0000:01:00.0"
#define IFNAME "enp1s0"
#define SEC 1000000ull

static char tmpdir[64];

static void put(const char *rel, const char *text) {
        char path[512], *slash;
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
        for (slash = strchr(path + strlen(tmpdir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = '\0';
                (void) mkdir(path, 0755);
                *slash = '/';
        }
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static uint64_t get(const char *rel) {
        char path[512];
        unsigned long long v = 99;
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
        f = fopen(path, "r");
        assert_non_null(f);
        assert_int_equal(fscanf(f, "%llu", &v), 1);
        fclose(f);
        return v;
}

#define L1 "sys/bus/pci/devices/" SLOT "/link/l1_aspm"
#define TX_TIMEOUT "sys/class/net/" IFNAME "/queues/tx-0/tx_timeout"

/* Everything a link needs around it: the tree, a context with policy, the environment. */
typedef struct Fixture {
        char state[128];
        Options o;
        Context c;
        LinkEnv e;
        Nic nic;
        uint64_t packets;
} Fixture;

static Fixture *fx;

static uint64_t clock_now;
static uint64_t clock_fake(void) { return clock_now; }

static unsigned packet_reads;

static int packets_fake(LinkEnv *e, int ifindex, uint64_t *ret) {
        assert_int_equal(ifindex, 7);
        packet_reads++;
        *ret = fx->packets;
        return 0;
}

static int setup(void **state) {
        char sys[128];

        snprintf(tmpdir, sizeof(tmpdir), "/tmp/r8t-link.XXXXXX");
        assert_non_null(mkdtemp(tmpdir));
        put(L1, "0\n");
        put("sys/bus/pci/devices/" SLOT "/link/l1_1_aspm", "0\n");
        put("sys/bus/pci/devices/" SLOT "/link/clkpm", "1\n");
        put("sys/class/net/" IFNAME "/gro_flush_timeout", "20000\n");
        put("sys/class/net/" IFNAME "/napi_defer_hard_irqs", "1\n");
        put(TX_TIMEOUT, "0\n");
        fx = calloc(1, sizeof(Fixture));
        snprintf(fx->state, sizeof(fx->state), "%s/state", tmpdir);
        (void) mkdir(fx->state, 0755);
        fx->o = (Options) { .sysfs = tmpdir, .state_dir = fx->state, .log_level = -1 };
        fx->c = (Context) { .opts = &fx->o, .profile = PROFILE_PERFORMANCE };
        snprintf(sys, sizeof(sys), "%s/sys", tmpdir);
        assert_int_equal(sysroot_new(sys, &fx->c.root), 0);
        backend_init(&fx->c.backend, fx->c.root);
        config_defaults(&fx->c.config);
        fx->c.config.link_power = (LinkPowerSetting) { LINK_POWER_DYNAMIC, { "test.conf", 1 } };
        fx->c.machine.kernel = (KernelVersion) { 6, 12, 0, true };
        fx->e = (LinkEnv) { .c = &fx->c, .opts = &fx->o, .clock = clock_fake, .packets = packets_fake };
        clock_now = 1000 * SEC;
        fx->nic = (Nic) { .slot = SLOT, .vendor = 0x10ec, .device = 0x8168, .driver = "r8169", .ifnames = { IFNAME },
                          .n_ifnames = 1, .xid = 0x541, .xid2 = CHIP_XID2_INVALID };
        fx->nic.chip = chip_lookup(0x541, CHIP_XID2_INVALID, 0x10ec, 0x8168);
        *state = fx;
        return 0;
}

static int teardown(void **state) {
        char cmd[128];

        link_env_done(&fx->e);
        context_close_aspm_policy(&fx->c);
        backend_done(&fx->c.backend);
        config_done(&fx->c.config);
        sysroot_free(fx->c.root);
        free(fx);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
        assert_int_equal(system(cmd), 0);
        return 0;
}

/* A link applied once with its interface up: link power in charge of L1, sampled. */
static void link_up_and_applied(Link *l) {
        link_init(l, &fx->nic, false);
        assert_true(l->dirty);
        /* The interface appears: apply it, at once. */
        assert_int_equal(link_iface_changed(l, &fx->e, 0, 7, true, true), LINK_WORK_QUEUE | LINK_WORK_NOW);
        assert_false(l->power.active); /* no plan has put link power in charge yet */
        l->dirty = false;
        assert_int_equal(link_apply(l, &fx->e), 0);
        assert_true(l->power.in_charge);
        assert_true(l->power.active);
        assert_int_equal(get(L1), 1); /* quiet: L1 on */
        assert_true(l->knobs[KNOB_L1_ASPM].desired_set);
        assert_int_equal(l->knobs[KNOB_L1_ASPM].desired, 1);
}

static void test_link_power(void **state) {
        Link l;
        uint64_t t = 1000 * SEC;
        unsigned reads;
#define AT(when) (clock_now = (when))
#define WINDOW(start) (l.power.window_start = (start), AT((start) + LINK_POWER_WINDOW_USEC))

        link_up_and_applied(&l);
        /* Idle: a wake socket, no samples, and nothing of the NIC read. */
        assert_int_equal(link_power_want(&l), LINK_POWER_WANT_WAKE);
        reads = packet_reads;
        assert_int_equal(link_sample_power(&l, &fx->e, AT(t)), 0);
        assert_int_equal(packet_reads, reads);
        /* A stray frame: its window stays under the busy rate, L1 stays on. */
        assert_int_equal(link_power_window_done(&l, &fx->e, WINDOW(t), 2), 0);
        assert_int_equal(l.power.lp.state, LINK_POWER_IDLE);
        assert_int_equal(l.power.lp.strays, 1);
        /* A burst: busy at the window's end, applied at once; then sampled, no socket. */
        assert_int_equal(link_power_window_done(&l, &fx->e, WINDOW(t + SEC), 100), LINK_WORK_QUEUE | LINK_WORK_NOW);
        assert_true(l.dirty);
        assert_int_equal(l.power.lp.state, LINK_POWER_BUSY);
        assert_int_equal(link_power_want(&l), LINK_POWER_WANT_SAMPLE);
        assert_int_equal(packet_reads, reads);
        l.dirty = false;
        assert_int_equal(link_apply(&l, &fx->e), 0);
        assert_int_equal(get(L1), 0);
        /* The first sample is a baseline; busy samples keep it off; quiet for the quiet time (0.5 s at first): on. */
        fx->packets = 100;
        assert_int_equal(link_sample_power(&l, &fx->e, AT(t + 2 * SEC)), 0);
        fx->packets += 1000;
        assert_int_equal(link_sample_power(&l, &fx->e, AT(t + 3 * SEC)), 0);
        assert_int_equal(link_sample_power(&l, &fx->e, AT(t + 3 * SEC + 250 * 1000)), 0);
        assert_int_equal(l.power.lp.state, LINK_POWER_BUSY);
        assert_int_equal(link_sample_power(&l, &fx->e, AT(t + 3 * SEC + 500 * 1000)), LINK_WORK_QUEUE | LINK_WORK_NOW);
        assert_int_equal(l.power.lp.state, LINK_POWER_IDLE);
        assert_int_equal(packet_reads, reads + 4);
        l.dirty = false;
        assert_int_equal(link_apply(&l, &fx->e), 0);
        assert_int_equal(get(L1), 1);
        /* Busy again, and the cable goes: no traffic without a link (L1 on at once), and no socket nor samples either. */
        assert_int_equal(link_power_window_done(&l, &fx->e, WINDOW(t + 41 * SEC), 100), LINK_WORK_QUEUE | LINK_WORK_NOW);
        l.dirty = false;
        assert_int_equal(link_iface_changed(&l, &fx->e, 0, 7, true, false), LINK_WORK_QUEUE);
        assert_true(l.dirty);
        l.dirty = false;
        assert_false(l.power.active);
        assert_int_equal(link_power_want(&l), LINK_POWER_WANT_NOTHING);
        assert_int_equal(l.power.lp.state, LINK_POWER_IDLE);
        assert_int_equal(link_sample_ifindex(&l), 0);
        {
                LinkPowerRecord rec; /* what status reads: saved at each change */
                assert_int_equal(link_power_record_load(fx->state, SLOT, &rec), 0);
                assert_string_equal(rec.state, "idle");
                assert_int_equal(rec.transitions, 4);
                assert_int_equal(rec.wakeups, 3);
                assert_int_equal(rec.strays, 1);
                assert_int_equal(rec.quiet_usec, LINK_POWER_BREAK_EVEN_USEC);
        }
        /* Back, and someone writes link/l1_aspm by hand: found before the next write, link power stops for this link, said once. */
        assert_int_equal(link_iface_changed(&l, &fx->e, 0, 7, true, true), 0);
        assert_true(l.power.active);
        put(L1, "0\n");
        assert_int_equal(link_power_window_done(&l, &fx->e, WINDOW(t + 50 * SEC), 100), 0);
        assert_false(l.power.active);
        assert_int_equal(link_power_want(&l), LINK_POWER_WANT_NOTHING);
        assert_non_null(strstr(l.power.stopped, "set to 0 outside r8169-tuned"));
        assert_true(l.knobs[KNOB_L1_ASPM].yielded);
        assert_false(l.dirty);
        assert_int_equal(l.power.lp.wakeups, 3); /* the stopped wake decided nothing */
        /* A reload gives it back to the configuration. */
        link_reload(&l);
        assert_null(l.power.stopped);
        assert_false(l.knobs[KNOB_L1_ASPM].yielded);
        link_done(&l);
}

static void test_tx_timeout(void **state) {
        Link l;

        link_up_and_applied(&l);
        put(TX_TIMEOUT, "1\n");
        l.power.window_start = 2000 * SEC;
        assert_int_equal(link_power_window_done(&l, &fx->e, 2000 * SEC + LINK_POWER_WINDOW_USEC, 100), LINK_WORK_QUEUE);
        assert_false(l.power.active);
        assert_true(l.dirty);
        /* The apply that follows puts the link under the guard: link power blocked, L1 left to the kernel. */
        l.dirty = false;
        (void) link_apply(&l, &fx->e);
        assert_false(l.power.active);
        assert_non_null(l.power.stopped);
        put(TX_TIMEOUT, "0\n");
        link_done(&l);
}

static void test_drift(void **state) {
        unsigned link_backend = 1u << knob_get(KNOB_L1_ASPM)->backend->id;
        Link l;

        link_up_and_applied(&l);
        l.knobs[KNOB_L1_ASPM].held = true;
        /* Nothing changed: nothing to do, and nothing asked of the manager even with an apply pending. */
        assert_int_equal(link_check_drift(&l, &fx->e, link_backend), 0);
        assert_false(l.dirty);
        l.dirty = true;
        assert_int_equal(link_check_drift(&l, &fx->e, link_backend), 0);
        l.dirty = false;
        /* Another tool turned L1 off: put back (drift = reassert), said once at notice. */
        put(L1, "0\n");
        assert_int_equal(link_check_drift(&l, &fx->e, link_backend), LINK_WORK_QUEUE);
        assert_true(l.dirty);
        assert_false(l.knobs[KNOB_L1_ASPM].held);
        assert_true(l.knobs[KNOB_L1_ASPM].drift_logged);
        /* A notification of another backend does not read this one. */
        l.dirty = false;
        l.knobs[KNOB_L1_ASPM].held = true;
        assert_int_equal(link_check_drift(&l, &fx->e, ~link_backend & ((1u << _KNOB_BACKEND_MAX) - 1)), 0);
        /* drift = leave: the other tool keeps it, and the next plans leave it out. */
        fx->c.config.drift = DRIFT_LEAVE;
        assert_int_equal(link_check_drift(&l, &fx->e, link_backend), 0);
        assert_true(l.knobs[KNOB_L1_ASPM].yielded);
        assert_false(l.dirty);
        fx->c.config.drift = DRIFT_REASSERT;
        /* An ethtool notification without features decoded: every notified backend is read. */
        assert_int_equal(link_ethtool_notified(&l, 6, NULL), 6);
        link_done(&l);
}

static void test_rescan_merge(void **state) {
        Link old, merged;
        Nic found = fx->nic;

        link_up_and_applied(&old);
        old.dirty = false;
        old.knobs[KNOB_L1_ASPM].held = true;
        knob_state_set_failure(&old.knobs[KNOB_CLKPM], "setting clkpm %d -> %d failed: %s", 1, 0, "Permission denied");
        old.queued = true;
        /* Found again under the same name: what rtnetlink said and what the knobs hold carry over. */
        assert_int_equal(link_merge(&merged, &old, &found), 0);
        assert_int_equal(merged.ifaces[0].ifindex, 7);
        assert_true(merged.ifaces[0].carrier);
        assert_true(merged.knobs[KNOB_L1_ASPM].held);
        /* The failure's text moves with it: the old link, freed with its set, owns it no more. */
        assert_string_equal(merged.knobs[KNOB_CLKPM].failure, "setting clkpm 1 -> 0 failed: Permission denied");
        assert_null(old.knobs[KNOB_CLKPM].failure);
        link_done(&old);
        link_done(&merged);
        assert_null(merged.knobs[KNOB_CLKPM].failure);
        assert_true(merged.power.active);
        assert_false(merged.queued); /* a new queue */
        assert_false(merged.dirty);
        /* Renamed, and a second interface: the known one follows its name, the new one is applied. */
        memcpy(found.ifnames[0], "lan0", 5);
        memcpy(found.ifnames[1], IFNAME, sizeof(IFNAME));
        found.n_ifnames = 2;
        assert_int_equal(link_merge(&merged, &old, &found), LINK_WORK_QUEUE);
        assert_true(merged.dirty);
        assert_int_equal(merged.ifaces[0].ifindex, 0);
        assert_int_equal(merged.ifaces[1].ifindex, 7);
        assert_string_equal(merged.nic.ifnames[0], "lan0");
        /* Gone from a dump: absent, not sampled, L1 back on (no link, no traffic). */
        assert_int_equal(link_iface_removed(&merged, &fx->e, 1, 8), 0); /* another ifindex: not this one */
        (void) link_iface_removed(&merged, &fx->e, 1, 7);
        assert_true(merged.ifaces[1].absent);
        assert_false(merged.power.active);
        link_forget_absent(&merged);
        assert_false(merged.ifaces[1].absent);
        link_done(&merged);
}

/* The global ASPM policy, read at every plan (one fd, opened at the first): another tool's change shows at the next. */
static void test_aspm_policy(void **state) {
        KnobReading current[_KNOB_MAX];
        NicPlan plan;
        Link l;
        int fds;

        put("sys/module/pcie_aspm/parameters/policy", "[default] performance powersave powersupersave\n");
        link_init(&l, &fx->nic, false);
        link_plan_now(&l, &fx->e, true, current, &plan);
        assert_string_equal(plan.aspm_policy, "default");
        fds = open_fds();
        put("sys/module/pcie_aspm/parameters/policy", "default performance powersave [powersupersave]\n");
        link_plan_now(&l, &fx->e, true, current, &plan);
        assert_string_equal(plan.aspm_policy, "powersupersave");
        assert_int_equal(open_fds(), fds); /* read through the fd the first plan opened, */
        context_close_aspm_policy(&fx->c);
        assert_int_equal(open_fds(), fds - 1); /* which stayed open until now */
        link_done(&l);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_aspm_policy, setup, teardown),
                cmocka_unit_test_setup_teardown(test_link_power, setup, teardown),
                cmocka_unit_test_setup_teardown(test_tx_timeout, setup, teardown),
                cmocka_unit_test_setup_teardown(test_drift, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rescan_merge, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
