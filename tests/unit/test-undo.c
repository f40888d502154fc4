/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/manager.h"
#include "state/lock.h"
#include "state/undo.h"

static char dir[] = "/tmp/r8t-undo.XXXXXX";

static void test_round_trip(void **state) {
        UndoJournal j = {}, k = {};
        Diagnostics d = {};

        assert_int_equal(undo_load(dir, "0000:01:00.0", &j, &d), 0); /* missing: empty */
        assert_int_equal(j.n, 0);
        strcpy(j.mac, "f4:93:9f:f0:a5:f5");
        assert_int_equal(undo_record(&j, KNOB_BACKEND_LINK, "clkpm", 1, 0), 0);
        assert_int_equal(undo_record(&j, KNOB_BACKEND_FEATURE, "tx-tcp-segmentation", 1, 0), 0);
        assert_int_equal(undo_record(&j, KNOB_BACKEND_NETDEV, "gro_flush_timeout", 0, 20000), 0);
        /* A later record keeps the first original; the new value is pending beside what was set. */
        assert_int_equal(undo_record(&j, KNOB_BACKEND_NETDEV, "gro_flush_timeout", 30000, 40000), 0);
        assert_int_equal(undo_save(&j), 0);

        assert_int_equal(undo_load(dir, "0000:01:00.0", &k, &d), 0);
        assert_int_equal(d.n, 0);
        assert_int_equal(k.n, 3);
        assert_string_equal(k.mac, "f4:93:9f:f0:a5:f5");
        assert_int_equal(undo_find(&k, KNOB_BACKEND_NETDEV, "gro_flush_timeout")->original, 0);
        assert_int_equal(undo_find(&k, KNOB_BACKEND_NETDEV, "gro_flush_timeout")->set, 20000);
        assert_true(undo_find(&k, KNOB_BACKEND_NETDEV, "gro_flush_timeout")->has_pending);
        assert_int_equal(undo_find(&k, KNOB_BACKEND_NETDEV, "gro_flush_timeout")->pending, 40000);
        assert_false(undo_find(&k, KNOB_BACKEND_FEATURE, "tx-tcp-segmentation")->has_pending);
        assert_int_equal(undo_find(&k, KNOB_BACKEND_FEATURE, "tx-tcp-segmentation")->set, 0);
        assert_null(undo_find(&k, KNOB_BACKEND_LINK, "tx-tcp-segmentation"));

        /* A pending write the kernel took becomes what we set; one never done is forgotten; else both stay ours. */
        UndoEntry *e = undo_find(&k, KNOB_BACKEND_NETDEV, "gro_flush_timeout");
        undo_settle(e, 12345);
        assert_true(e->has_pending);
        undo_settle(e, 40000);
        assert_false(e->has_pending);
        assert_int_equal(e->set, 40000);
        assert_int_equal(e->original, 0);
        assert_int_equal(undo_record(&k, KNOB_BACKEND_NETDEV, "gro_flush_timeout", 40000, 50000), 0);
        undo_settle(e, 40000);
        assert_false(e->has_pending);
        assert_int_equal(e->set, 40000);

        /* Emptied: the file goes. */
        while (k.n)
                undo_remove(&k, &k.entries[0]);
        assert_int_equal(undo_save(&k), 0);
        char path[256];
        snprintf(path, sizeof(path), "%s/0000:01:00.0", dir);
        assert_int_equal(access(path, F_OK), -1);
        undo_done(&j);
        undo_done(&k);
}

static void test_bad_lines_kept(void **state) {
        static const char text[] = "# r8169-tuned undo journal 1\nslot 0000:01:00.0\n"
                                   "link clkpm 1 0\n"
                                   "link nosuchknob 1 0\n"
                                   "feature rx-vlan-filter 1 0\n"
                                   "feature tx-sg 2 0\n"
                                   "link clkpm 0 1\n"
                                   "netdev gro_flush_timeout 99999999999999999999 0\n"
                                   "link clkpm\n";
        UndoJournal j = {};
        Diagnostics d = {};

        assert_int_equal(undo_parse(text, sizeof(text) - 1, "J", &j, &d), 0);
        assert_int_equal(j.n, 1);
        assert_int_equal(j.entries[0].original, 1);
        assert_int_equal(j.n_raw, 6);
        assert_int_equal(d.n, 6);
        assert_string_equal(j.raw[1], "feature rx-vlan-filter 1 0"); /* no knob covers it: never ours */
        assert_string_equal(j.raw[3], "link clkpm 0 1"); /* the duplicate is kept, not chosen */
        assert_non_null(strstr(d.msgs[0], "J:4: "));
        undo_done(&j);
        diag_done(&d);

        /* Binary junk and NULs: no crash, nothing invented. */
        static const char junk[] = "\x00\x01link clkpm 1 0\n\xff\xfe\n";
        assert_int_equal(undo_parse(junk, sizeof(junk) - 1, "J", &j, &d), 0);
        assert_int_equal(j.n, 0);
        undo_done(&j);
        diag_done(&d);
}

static bool exists(const char *name) {
        char p[256];
        snprintf(p, sizeof(p), "%s/%s", dir, name);
        return access(p, F_OK) == 0;
}

static void touch(const char *name) {
        char p[256];
        snprintf(p, sizeof(p), "%s/%s", dir, name);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        assert_true(fd >= 0);
        close(fd);
}

/* A crashed writer's temporary files and a gone daemon's link power records go at start-up; the rest stays. */
static void test_leftovers(void **state) {
        static const char *const kept[] = { "0000:02:00.0", "0000:02:00.0.lock", "0000:02:00.0.txguard",
                                            "0000:02:00.0.linkpowers", "notaslot.tmp", "daemon.lock" };
        static const char *const gone[] = { "0000:02:00.0.tmp", "0000:02:00.0.a1B2c3", "0000:02:00.0.linkpower",
                                            "0000:02:00.0.linkpower.tmp", "0000:02:00.0.linkpower.Xy12Zw" };
        char p[256];
        int held;

        for (size_t i = 0; i < 6; i++)
                touch(kept[i]);
        for (size_t i = 0; i < ELEMENTSOF(gone); i++)
                touch(gone[i]);
        /* Another writer holds the slot: its temporary file may be in the making. */
        touch("0000:03:00.0.tmp");
        held = lock_nic(dir, "0000:03:00.0", 0);
        assert_true(held >= 0);

        lock_remove_leftovers(dir, manager_state_leftover);
        for (size_t i = 0; i < 6; i++)
                assert_true(exists(kept[i]));
        for (size_t i = 0; i < ELEMENTSOF(gone); i++)
                assert_false(exists(gone[i]));
        assert_true(exists("0000:03:00.0.tmp"));
        close(held);
        lock_remove_leftovers(dir, manager_state_leftover);
        assert_false(exists("0000:03:00.0.tmp"));

        /*
         * Security review S8: a hard link to another file planted at the old fixed temporary name,
         * or at the journal's own name, is never written through; the journal is 0600 under umask 000.
         */
        {
                UndoJournal j = {};
                Diagnostics d = {};
                char victim[256], path[256], tmp[256];
                struct stat st;
                mode_t old;
                FILE *f;

                snprintf(victim, sizeof(victim), "%s/victim", dir);
                snprintf(path, sizeof(path), "%s/0000:02:00.0", dir);
                snprintf(tmp, sizeof(tmp), "%s/0000:02:00.0.tmp", dir);
                f = fopen(victim, "w");
                assert_non_null(f);
                fputs("untouched\n", f);
                fclose(f);
                (void) unlink(path);
                assert_int_equal(link(victim, tmp), 0);
                assert_int_equal(link(victim, path), 0);
                assert_int_equal(undo_load(dir, "0000:02:00.0", &j, &d), 0);
                assert_int_equal(undo_record(&j, KNOB_BACKEND_LINK, "clkpm", 1, 0), 0);
                old = umask(0);
                assert_int_equal(undo_save(&j), 0);
                umask(old);
                f = fopen(victim, "r");
                assert_non_null(f);
                assert_non_null(fgets(p, sizeof(p), f));
                fclose(f);
                assert_string_equal(p, "untouched\n");
                assert_int_equal(stat(path, &st), 0);
                assert_int_equal(st.st_nlink, 1);
                assert_int_equal(st.st_mode & 07777, 0600);
                undo_done(&j);
                diag_done(&d);
                (void) unlink(tmp);
                (void) unlink(victim);
        }

        for (size_t i = 0; i < 6; i++) {
                snprintf(p, sizeof(p), "%s/%s", dir, kept[i]);
                (void) unlink(p);
        }
        snprintf(p, sizeof(p), "%s/0000:03:00.0.lock", dir);
        (void) unlink(p);
}

static int setup(void **state) { return mkdtemp(dir) ? 0 : -1; }
static int teardown(void **state) { return rmdir(dir); }

int main(void) {
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_round_trip), cmocka_unit_test(test_bad_lines_kept),
                                            cmocka_unit_test(test_leftovers) };
        return cmocka_run_group_tests(tests, setup, teardown);
}
