/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "open-fds.h"

#include "kernel/backend.h"
#include "kernel/knob.h"
#include "kernel/sysroot.h"
#include "state/undo.h"
#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

static void test_names_round_trip(void **state) {
        static const char *const expected[] = {
                "clkpm", "l0s_aspm", "l1_aspm", "l1_1_aspm", "l1_2_aspm", "l1_1_pcipm", "l1_2_pcipm",
                "tso", "sg", "gso", "gro", "tx", "rx", "rx-usecs", "rx-frames", "tx-usecs", "tx-frames", "eee",
                "gro_flush_timeout", "napi_defer_hard_irqs", "runtime-pm",
        };
        assert_int_equal(ELEMENTSOF(expected), _KNOB_MAX);
        for (int i = 0; i < _KNOB_MAX; i++) {
                assert_string_equal(knob_get(i)->name, expected[i]);
                assert_int_equal(knob_from_name(expected[i]), i);
                assert_non_null(knob_backend_to_string(knob_get(i)->backend));
        }
        assert_int_equal(knob_from_name("TSO"), _KNOB_INVALID);
        assert_int_equal(knob_from_name(""), _KNOB_INVALID);
        assert_null(knob_get(_KNOB_MAX));
}

static void test_values(void **state) {
        char buf[KNOB_VALUE_MAX];
        uint64_t v;

        for (int i = 0; i < _KNOB_MAX; i++) {
                const Knob *k = knob_get(i);
                const char *text;
                uint64_t probe = k->type == KNOB_TYPE_BOOL ? 1 : 20000 % (k->max + 1);

                /* format → parse is the identity for every knob */
                text = knob_format_value(i, probe, buf, sizeof(buf));
                assert_int_equal(knob_parse_value(i, text, &v), 0);
                assert_int_equal(v, probe);
        }
        assert_int_equal(knob_parse_value(KNOB_CLKPM, "off", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(knob_parse_value(KNOB_TSO, "yes", &v), 0);
        assert_int_equal(v, 1);
        assert_string_equal(knob_format_value(KNOB_TSO, 0, buf, sizeof(buf)), "off");
        assert_string_equal(knob_format_value(KNOB_L1_2_ASPM, 0, buf, sizeof(buf)), "0");
        assert_int_equal(knob_parse_value(KNOB_CLKPM, "2", &v), -EINVAL);
        assert_int_equal(knob_parse_value(KNOB_RX_USECS, "-1", &v), -EINVAL);
        assert_int_equal(knob_parse_value(KNOB_RX_USECS, "4294967296", &v), -ERANGE);
        assert_int_equal(knob_parse_value(KNOB_NAPI_DEFER_HARD_IRQS, "2147483648", &v), -ERANGE);
        assert_int_equal(knob_parse_value(KNOB_GRO_FLUSH_TIMEOUT, "99999999999999999999999", &v), -ERANGE);
        assert_int_equal(knob_parse_value(KNOB_GRO_FLUSH_TIMEOUT, "20000ns", &v), -EINVAL);
        assert_int_equal(knob_parse_value(KNOB_GRO_FLUSH_TIMEOUT, " 1", &v), -EINVAL);
        /* runtime-pm takes the kernel's own words only: "off" would not say which of them it means. */
        assert_int_equal(knob_parse_value(KNOB_RUNTIME_PM, "auto", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(knob_parse_value(KNOB_RUNTIME_PM, "on", &v), 0);
        assert_int_equal(v, 1);
        assert_int_equal(knob_parse_value(KNOB_RUNTIME_PM, "off", &v), -EINVAL);
        assert_int_equal(knob_parse_value(KNOB_RUNTIME_PM, "1", &v), -EINVAL);
        assert_string_equal(knob_format_value(KNOB_RUNTIME_PM, 0, buf, sizeof(buf)), "auto");
        assert_string_equal(knob_value_syntax(KNOB_RUNTIME_PM, buf, sizeof(buf)), "on or auto");
        assert_string_equal(knob_sysfs_attr(KNOB_RUNTIME_PM), "control");
        assert_string_equal(knob_sysfs_attr(KNOB_L1_ASPM), "l1_aspm");
}

static void test_status(void **state) {
        assert_int_equal(knob_status_from_errno(-EOPNOTSUPP), KNOB_STATUS_UNSUPPORTED);
        assert_int_equal(knob_status_from_errno(-ENOENT), KNOB_STATUS_ABSENT);
        assert_int_equal(knob_status_from_errno(-EACCES), KNOB_STATUS_NO_PERMISSION);
        assert_int_equal(knob_status_from_errno(-ENODEV), KNOB_STATUS_NO_INTERFACE);
        assert_int_equal(knob_status_from_errno(-EIO), KNOB_STATUS_ERROR);
        for (int s = 0; s < _KNOB_STATUS_MAX; s++)
                assert_non_null(knob_status_to_string(s));
}

/* The tso pattern must catch every TCP segmentation flavour the running kernel names. */
static void test_feature_patterns(void **state) {
        EthtoolFeature f[] = {
                { "tx-tcp-segmentation", true, true },
                { "tx-tcp-ecn-segmentation", true, false },
                { "tx-tcp-mangleid-segmentation", true, true },
                { "tx-tcp6-segmentation", true, true },
                { "tx-tcp-accecn-segmentation", true, true },
                { "tx-scatter-gather", true, true },
                { "tx-scatter-gather-fraglist", false, false },
                { "rx-gro", true, false },
                { "rx-gro-hw", false, true },
                { "tx-udp-segmentation", true, true },
        };
        EthtoolFeatures fs = { f, ELEMENTSOF(f) };
        KnobReading r;

        backend_feature_reading(&fs, KNOB_TSO, &r);
        assert_int_equal(r.status, KNOB_STATUS_OK);
        assert_true(r.partial); /* ecn off, the rest on */
        f[1].active = true;
        backend_feature_reading(&fs, KNOB_TSO, &r);
        assert_false(r.partial);
        assert_int_equal(r.value, 1);
        /* A fixed feature does not count against a changeable one. */
        backend_feature_reading(&fs, KNOB_SG, &r);
        assert_int_equal(r.value, 1);
        assert_false(r.partial);
        /* "gro" is rx-gro only, not rx-gro-hw. */
        backend_feature_reading(&fs, KNOB_GRO, &r);
        assert_int_equal(r.value, 0);
        backend_feature_reading(&fs, KNOB_RX, &r);
        assert_int_equal(r.status, KNOB_STATUS_ABSENT);

        /* And back: which knob a kernel feature belongs to (undo journal entries). */
        assert_int_equal(knob_from_feature("tx-tcp-accecn-segmentation"), KNOB_TSO);
        assert_int_equal(knob_from_feature("tx-scatter-gather-fraglist"), KNOB_SG);
        assert_int_equal(knob_from_feature("rx-gro"), KNOB_GRO);
        assert_int_equal(knob_from_feature("rx-gro-hw"), _KNOB_INVALID);
        assert_int_equal(knob_from_feature("tx-udp-segmentation"), _KNOB_INVALID);
}

static void test_sysroot_allowlist(void **state) {
        assert_true(sysroot_attr_allowed("clkpm", true));
        assert_true(sysroot_attr_allowed("gro_flush_timeout", true));
        assert_false(sysroot_attr_allowed("vendor", true));
        assert_false(sysroot_attr_allowed("remove", true));
        assert_false(sysroot_attr_allowed("config", false)); /* libpci reads config space, not us */
        assert_true(sysroot_attr_allowed("resource2", false));
        assert_false(sysroot_attr_allowed("resource2", true));
        assert_false(sysroot_attr_allowed("../vendor", false));
}

/* The shipped tables are complete; a row or descriptor with a piece missing is caught. */
static void test_tables_complete(void **state) {
        Knob knobs[_KNOB_MAX];
        KnobBackend backends[_KNOB_BACKEND_MAX];
        char why[256] = "";

        assert_int_equal(backend_check_tables(knob_get(0), _KNOB_MAX, knob_backends, _KNOB_BACKEND_MAX, why, sizeof(why)), 0);

#define BROKEN(mutation, needle)                                                                               \
        do {                                                                                                   \
                memcpy(knobs, knob_get(0), sizeof(knobs));                                                     \
                memcpy(backends, knob_backends, sizeof(backends));                                             \
                for (int i = 0; i < _KNOB_MAX; i++)                                                            \
                        knobs[i].backend = &backends[knob_get(i)->backend->id];                                 \
                mutation;                                                                                      \
                assert_int_equal(backend_check_tables(knobs, _KNOB_MAX, backends, _KNOB_BACKEND_MAX, why,       \
                                                      sizeof(why)), -EINVAL);                                  \
                assert_non_null(strstr(why, needle));                                                          \
        } while (0)

        BROKEN(knobs[KNOB_EEE] = (Knob) {}, "without a backend");          /* a row left out of the table */
        BROKEN(knobs[KNOB_EEE].backend = NULL, "without a backend");
        BROKEN(backends[KNOB_BACKEND_EEE].write_items = NULL, "incomplete");
        BROKEN(backends[KNOB_BACKEND_COALESCE].read = NULL, "incomplete");
        BROKEN(backends[KNOB_BACKEND_LINK].journal_kind = NULL, "incomplete");
        BROKEN(knobs[KNOB_EEE].nl_attr = 0, "without its attribute");
        BROKEN(knobs[KNOB_TSO].pattern = NULL, "pattern");
        BROKEN(knobs[KNOB_CLKPM].pattern = "x*", "pattern");
        BROKEN(knobs[KNOB_GRO_FLUSH_TIMEOUT].max = 0, "maximum");
        BROKEN(knobs[KNOB_RX_USECS].order[0] = knobs[KNOB_RX_USECS].order[1] = 0, "write order");
#undef BROKEN
}

/* Every knob can be journalled under its backend's kind and is read back as that knob. */
static void test_journal_covers_every_knob(void **state) {
        char dir[] = "/tmp/r8t-journal.XXXXXX";
        UndoJournal j = {}, back = {};
        Diagnostics d = {};

        assert_non_null(mkdtemp(dir));
        assert_int_equal(undo_load(dir, "0000:01:00.0", &j, &d), 0);
        for (int k = 0; k < _KNOB_MAX; k++) {
                const Knob *knob = knob_get(k);
                char name[ETH_GSTRING_LEN];

                snprintf(name, sizeof(name), "%s", knob->pattern ?: knob->name);
                for (char *p = strchr(name, '*'); p; p = strchr(name, '*'))
                        *p = 'x'; /* a kernel feature name the pattern covers */
                assert_int_equal(undo_entry_knob(knob->backend->id, name), k);
                assert_int_equal(undo_record(&j, knob->backend->id, name, 1, 0), 0);
        }
        assert_int_equal(undo_record(&j, KNOB_BACKEND_LINK, "tso", 1, 0), -EINVAL); /* not a link knob */
        assert_int_equal(undo_save(&j), 0);
        assert_int_equal(undo_load(dir, "0000:01:00.0", &back, &d), 0);
        assert_int_equal(d.n, 0);
        assert_int_equal(back.n_raw, 0);
        assert_int_equal(back.n, _KNOB_MAX);
        for (size_t i = 0; i < back.n; i++)
                assert_int_equal(back.entries[i].knob, (int) i);
        unlink(j.path);
        rmdir(dir);
        undo_done(&j);
        undo_done(&back);
}

/* Reading every knob fills every reading, whatever the backend: nothing is planned from garbage. */
static void test_read_all_covers_every_knob(void **state) {
        char dir[] = "/tmp/r8t-root.XXXXXX";
        Nic nic = { .slot = "0000:01:00.0" }; /* no interface, no link/ directory */
        KnobReading r[_KNOB_MAX];
        Sysroot *root;
        Backend b;

        assert_non_null(mkdtemp(dir));
        assert_int_equal(sysroot_new(dir, &root), 0);
        backend_init(&b, root);
        memset(r, 0xa5, sizeof(r));
        backend_read_all(&b, &nic, r);
        for (int k = 0; k < _KNOB_MAX; k++) {
                assert_true(r[k].status >= 0 && r[k].status < _KNOB_STATUS_MAX);
                assert_int_not_equal(r[k].status, KNOB_STATUS_OK);
        }
        assert_int_equal(r[KNOB_EEE].status, KNOB_STATUS_NO_INTERFACE);
        assert_int_equal(r[KNOB_CLKPM].status, KNOB_STATUS_ABSENT);
        backend_done(&b);
        sysroot_free(root);
        rmdir(dir);
}

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
}

/* The whole file: a write that left the end of an older, longer text shows. */
static void read_text(const char *path, char *buf, size_t size) {
        FILE *f = fopen(path, "r");
        size_t n;

        assert_non_null(f);
        n = fread(buf, 1, size - 1, f);
        buf[n] = '\0';
        fclose(f);
}

/*
 * The daemon's turn for a NIC whose interface rtnetlink does not list (ifindex < 0): the tree's
 * directory of that name is not the interface, and is neither read nor written; a turn that
 * knows nothing of rtnetlink (the commands: ifindex 0) reads and writes it.
 */
static void test_absent_interface_directory(void **state) {
        const KnobBackend *be = knob_get(KNOB_GRO_FLUSH_TIMEOUT)->backend;
        char dir[] = "/tmp/r8t-root.XXXXXX", path[256], buf[32];
        Nic nic = { .slot = "0000:01:00.0", .n_ifnames = 1, .ifnames = { "eth0" } };
        Nic other = { .slot = "0000:02:00.0", .n_ifnames = 1, .ifnames = { "eth1" } };
        KnobBatch batch = {};
        EthtoolError err = {};
        KnobReading r[_KNOB_MAX];
        Sysroot *root;
        Backend b;
        int fds;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/class", dir);
        assert_int_equal(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/class/net", dir);
        assert_int_equal(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/class/net/eth0", dir);
        assert_int_equal(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/class/net/eth0/gro_flush_timeout", dir);
        write_text(path, "0\n");
        assert_int_equal(sysroot_new(dir, &root), 0);
        backend_init(&b, root);
        assert_int_equal(knob_batch_add(&batch, KNOB_GRO_FLUSH_TIMEOUT, "gro_flush_timeout", 20000), 0);

        backend_begin(&b, &nic, -1, true);
        assert_true(backend_interface_absent(&b, &nic));
        assert_false(backend_interface_absent(&b, &other));
        backend_read_all(&b, &nic, r);
        assert_int_equal(r[KNOB_GRO_FLUSH_TIMEOUT].status, KNOB_STATUS_NO_INTERFACE);
        assert_int_equal(be->write_items(&b, be, &nic, &batch, &err), -ENODEV);
        backend_end(&b);
        assert_false(backend_interface_absent(&b, &nic));
        read_text(path, buf, sizeof(buf));
        assert_string_equal(buf, "0\n");

        /* A turn that only reads (Verify, the metrics) keeps nothing open but the directory. */
        fds = open_fds();
        backend_begin(&b, &nic, 0, false);
        backend_read_all(&b, &nic, r);
        assert_int_equal(r[KNOB_GRO_FLUSH_TIMEOUT].status, KNOB_STATUS_OK);
        assert_int_equal(open_fds(), fds + 1);
        backend_end(&b);

        backend_begin(&b, &nic, 0, true);
        assert_false(backend_interface_absent(&b, &nic));
        backend_read_all(&b, &nic, r);
        assert_int_equal(r[KNOB_GRO_FLUSH_TIMEOUT].status, KNOB_STATUS_OK);
        assert_int_equal(be->write_items(&b, be, &nic, &batch, &err), 0);
        /* Written through the fd the read kept, at its start: the text whole, nothing after the old one. */
        read_text(path, buf, sizeof(buf));
        assert_string_equal(buf, "20000\n");
        /* The read-back reads the file the write left open, from its start: what it holds now. */
        assert_int_equal(be->read_items(&b, be, &nic, &batch, r, &err), 0);
        assert_int_equal(batch.items[0].error, 0);
        assert_int_equal(batch.items[0].now, 20000);
        assert_int_equal(be->write_items(&b, be, &nic, &batch, &err), 0);
        write_text(path, "33\n"); /* another writer, between the write and its read-back */
        assert_int_equal(be->read_items(&b, be, &nic, &batch, r, &err), 0);
        assert_int_equal(batch.items[0].now, 33);
        backend_end(&b);
        read_text(path, buf, sizeof(buf));
        assert_string_equal(buf, "33\n");

        /* A shorter text over a fixture's longer one: the file is cut to it. */
        backend_begin(&b, &nic, 0, true);
        backend_read_all(&b, &nic, r);
        assert_int_equal(r[KNOB_GRO_FLUSH_TIMEOUT].value, 33);
        batch.items[0].value = 5;
        assert_int_equal(be->write_items(&b, be, &nic, &batch, &err), 0);
        read_text(path, buf, sizeof(buf));
        assert_string_equal(buf, "5\n");
        assert_int_equal(be->read_items(&b, be, &nic, &batch, r, &err), 0);
        assert_int_equal(batch.items[0].now, 5);
        backend_end(&b);

        backend_done(&b);
        sysroot_free(root);
        unlink(path);
        snprintf(path, sizeof(path), "%s/class/net/eth0", dir);
        rmdir(path);
        snprintf(path, sizeof(path), "%s/class/net", dir);
        rmdir(path);
        snprintf(path, sizeof(path), "%s/class", dir);
        rmdir(path);
        rmdir(dir);
}

/* The supported path of EEE, from a canned EEE_GET reply as r8169 on an RTL8168h sends it. */
static void test_eee_reply(void **state) {
        const KnobBackend *be = knob_get(KNOB_EEE)->backend;
        struct nl_msg *m = nlmsg_alloc();
        struct nlmsghdr *h;
        EthtoolAttrs a;
        char buf[KNOB_VALUE_MAX];
        uint64_t v;

        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_EEE_GET_REPLY, 1);
        nla_put_u8(m, ETHTOOL_A_EEE_ACTIVE, 1);
        nla_put_u8(m, ETHTOOL_A_EEE_ENABLED, 1);
        nla_put_u8(m, ETHTOOL_A_EEE_TX_LPI_ENABLED, 1);
        nla_put_u32(m, ETHTOOL_A_EEE_TX_LPI_TIMER, 0);
        h = nlmsg_hdr(m);
        assert_int_equal(backend_parse_group_reply(be, h, h->nlmsg_len, &a), 0);
        assert_true(a.present[ETHTOOL_A_EEE_ENABLED]);
        assert_int_equal(a.value[ETHTOOL_A_EEE_ENABLED], 1);
        assert_false(a.present[ETHTOOL_A_EEE_ACTIVE]);       /* not a knob: not read */
        assert_false(a.present[ETHTOOL_A_EEE_TX_LPI_TIMER]); /* u32, not a knob */
        nlmsg_free(m);

        /* A u32 where the kernel sends a u8 is not taken for the flag. */
        m = nlmsg_alloc();
        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_EEE_GET_REPLY, 1);
        nla_put_u32(m, ETHTOOL_A_EEE_ENABLED, 1);
        h = nlmsg_hdr(m);
        assert_int_equal(backend_parse_group_reply(be, h, h->nlmsg_len, &a), 0);
        assert_false(a.present[ETHTOOL_A_EEE_ENABLED]);
        nlmsg_free(m);

        assert_int_equal(knob_parse_value(KNOB_EEE, "off", &v), 0);
        assert_int_equal(v, 0);
        assert_string_equal(knob_format_value(KNOB_EEE, 1, buf, sizeof(buf)), "on");
        assert_string_equal(knob_backend_to_string(be), "ethtool-eee");
        assert_int_equal(be->drift_ntf, ETHTOOL_MSG_EEE_NTF);
        assert_false(sysroot_attr_allowed("eee", true)); /* not a sysfs attribute */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names_round_trip), cmocka_unit_test(test_values),
                cmocka_unit_test(test_status),           cmocka_unit_test(test_feature_patterns),
                cmocka_unit_test(test_sysroot_allowlist), cmocka_unit_test(test_tables_complete),
                cmocka_unit_test(test_journal_covers_every_knob), cmocka_unit_test(test_read_all_covers_every_knob),
                cmocka_unit_test(test_eee_reply),         cmocka_unit_test(test_absent_interface_directory),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
