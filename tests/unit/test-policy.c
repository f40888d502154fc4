/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Config and quirk parsing, the lint, and the pure planner. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "decide/config.h"
#include "decide/plan.h"
#include "decide/quirk-lint.h"
#include "decide/quirks.h"

static char tmpdir[] = "/tmp/r8t-unit.XXXXXX";

static const char *write_file(const char *name, const char *text) {
        static char path[4][512];
        static int slot;
        char *p = path[slot++ % 4];
        FILE *f;

        snprintf(p, 512, "%s/%s", tmpdir, name);
        if (strchr(name, '/')) {
                char dir[512];
                snprintf(dir, sizeof(dir), "%s", p);
                *strrchr(dir, '/') = '\0';
                mkdir(dir, 0755);
        }
        f = fopen(p, "w");
        fputs(text, f);
        fclose(f);
        return p;
}

static bool diag_has(const Diagnostics *d, const char *needle) {
        for (size_t i = 0; i < d->n; i++)
                if (strstr(d->msgs[i], needle))
                        return true;
        return false;
}

static void test_config_ok(void **state) {
        const char *p = write_file("ok.conf",
                                   "# comment\n[global]\nprofile = performance\nrestore-on-exit = no\ndrift = leave\n"
                                   "\n[device office]\nmatch-interface = enp*\nclkpm = 1 ; keep it\ntso = off\n");
        Diagnostics d = {};
        Config c;

        assert_int_equal(config_load(&c, p, true, &d), 0);
        diag_print(&d, stderr);
        assert_int_equal(d.n, 0);
        assert_int_equal(c.profile, PROFILE_PERFORMANCE);
        assert_int_equal(c.profile_origin.line, 3);
        assert_false(c.restore_on_exit);
        assert_int_equal(c.drift, DRIFT_LEAVE);
        assert_int_equal(c.n_devices, 1);
        assert_true(c.devices[0].set[KNOB_CLKPM]);
        assert_int_equal(c.devices[0].value[KNOB_CLKPM], 1);
        assert_int_equal(c.devices[0].knob_origin[KNOB_CLKPM].line, 9);
        assert_int_equal(c.devices[0].value[KNOB_TSO], 0);
        config_done(&c);
}

static void test_config_every_complaint(void **state) {
        char longline[400];
        char text[2048];
        const char *p;
        Diagnostics d = {};
        Config c;

        memset(longline, 'x', sizeof(longline) - 1);
        longline[sizeof(longline) - 1] = '\0';
        snprintf(text, sizeof(text),
                 "stray = 1\n"                 /* 1: outside a section */
                 "[global]\n"                  /* 2 */
                 "profile = turbo\n"           /* 3: bad value */
                 "colour = blue\n"             /* 4: unknown key */
                 "[device x]\n"                /* 5: no match key */
                 "tso = maybe\n"               /* 6: bad bool */
                 "rx-usecs = 99999999999\n"    /* 7: out of range */
                 "match-slot = ../../etc\n"    /* 8: bad slot */
                 "just words\n"                /* 9: not key = value */
                 "[strange]\n"                 /* 10: unknown section */
                 "key = %s\n"                  /* 11: too long */
                 "[device y]\n"                /* 12 */
                 "match-mac = f4:93:9f:f0:a5:f5\n"
                 "bin = \x01\x02\n",           /* 14: not text */
                 longline);
        p = write_file("bad.conf", text);
        assert_int_equal(config_load(&c, p, true, &d), 0);
        diag_print(&d, stderr);
        char want[9][128];
        snprintf(want[0], 128, "%s:1: ", p);
        snprintf(want[1], 128, "%s:3: bad profile", p);
        snprintf(want[2], 128, "%s:4: unknown key \"colour\"", p);
        snprintf(want[3], 128, "%s:5: [device x] has no match", p);
        snprintf(want[4], 128, "%s:6: bad value \"maybe\" for tso", p);
        snprintf(want[5], 128, "%s:7: bad value \"99999999999\" for rx-usecs: out of range", p);
        snprintf(want[6], 128, "%s:8: bad match-slot", p);
        snprintf(want[7], 128, "%s:9: expected \"key = value\"", p);
        snprintf(want[8], 128, "%s:11: line too long", p);
        for (int i = 0; i < 9; i++)
                assert_true(diag_has(&d, want[i]));
        assert_true(diag_has(&d, ":10: unknown section [strange]"));
        assert_true(diag_has(&d, ":14: not text"));
        assert_int_equal(d.n, 11);
        config_done(&c);
        diag_done(&d);
}

/* What editors and people do: a key or section given twice names both lines; lspci's slot form. */
static void test_config_duplicates(void **state) {
        const char *p = write_file("dup.conf",
                                   "[global]\nprofile = performance\nprofile = powersave\n"   /* 2, 3 */
                                   "[device a]\nmatch-slot = 01:00.0\nclkpm = 0\nclkpm = 1\n" /* 4-7 */
                                   "[device a]\nmatch-xid = 541\nxid = 509\n");               /* 8-10 */
        Diagnostics d = {};
        Config c;
        char want[128];

        assert_int_equal(config_load(&c, p, true, &d), 0);
        diag_print(&d, stderr);
        snprintf(want, sizeof(want), "%s:3: profile given twice in [global] (first at line 2)", p);
        assert_true(diag_has(&d, want));
        snprintf(want, sizeof(want), "%s:7: clkpm given twice in [device a] (first at line 6)", p);
        assert_true(diag_has(&d, want));
        snprintf(want, sizeof(want), "%s:8: section [device a] given twice in this file (first at line 4)", p);
        assert_true(diag_has(&d, want));
        /* the old spelling is the same key */
        snprintf(want, sizeof(want), "%s:10: match-xid given twice in [device a] (first at line 9)", p);
        assert_true(diag_has(&d, want));
        assert_int_equal(d.n, 4);
        assert_string_equal(c.devices[0].match.slot, "0000:01:00.0");
        assert_int_equal(c.devices[0].value[KNOB_CLKPM], 0); /* the first stays */
        assert_int_equal(c.devices[1].match.n_xids, 1);
        config_done(&c);
        diag_done(&d);
}

/* The matcher's value forms: what lspci and sysfs print is accepted, look-alikes are not. */
static void test_match_forms(void **state) {
        NicMatch m = {};
        char err[256];

        assert_int_equal(match_parse(&m, "match-slot", "0A:00.0", err, sizeof(err)), 0);
        assert_string_equal(m.slot, "0000:0a:00.0");
        assert_int_equal(match_parse(&m, "match-slot", "0000:0A:00.0", err, sizeof(err)), 0);
        assert_string_equal(m.slot, "0000:0a:00.0");
        assert_int_equal(match_parse(&m, "match-slot", "1:00.0", err, sizeof(err)), -EINVAL);
        assert_int_equal(match_parse(&m, "match-pci-id", "10ec:8168 10ec:8136", err, sizeof(err)), 0);
        assert_int_equal(m.n_pci_ids, 2);
        assert_int_equal(match_parse(&m, "match-pci-id", "0x10:8168", err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "bad match-pci-id \"0x10:8168\""));
        assert_int_equal(match_parse(&m, "pci-id", "-1ec:8168", err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "bad pci-id"));
        assert_int_equal(match_parse(&m, "match-subsystem", "17aa:*", err, sizeof(err)), 0);
        assert_true(m.subsystems[0].any_device);
        assert_int_equal(match_parse(&m, "match-xid", "541 3c0/7c8", err, sizeof(err)), 0);
        assert_int_equal(m.n_xids, 2);
        assert_int_equal(match_parse(&m, "colour", "blue", err, sizeof(err)), -ENOENT);
        match_done(&m);
}

/*
 * Every condition of the table, through the one interface: a value parses, is printed back
 * as a file says it, makes the match non-empty, tests true on a NIC and machine it describes
 * and false on one it does not, and is freed.
 */
static void test_match_conditions(void **state) {
        static const struct {
                const char *key, *value;
        } cases[] = {
                { "match-interface", "enp*" },        { "match-slot", "0000:01:00.0" },
                { "match-mac", "f4:93:9f:f0:a5:f5" }, { "match-chip", "RTL8168h*" },
                { "match-link-l1", "on" },
                { "match-xid", "541/7cf" },           { "match-pci-id", "10ec:8168" },
                { "match-subsystem", "17aa:*" },      { "match-driver", "r8169" },
                { "match-kernel", "6.1..6.2" },       { "match-dmi-sys-vendor", "LENOVO" },
                { "match-dmi-product-name", "10VG*" }, { "match-dmi-product-family", "ThinkCentre M*" },
                { "match-dmi-board-vendor", "LEN*" }, { "match-dmi-board-name", "3136" },
        };
        Nic n = { .slot = "0000:01:00.0", .vendor = 0x10ec, .device = 0x8168, .subsys_vendor = 0x17aa,
                  .subsys_device = 0x3098, .driver = "r8169", .ifnames = { "enp1s0" }, .n_ifnames = 1,
                  .perm_mac = "f4:93:9f:f0:a5:f5", .xid = 0x541, .xid2 = CHIP_XID2_INVALID,
                  .link = { .pcie = true, .aspm_support = 3, .aspm_control = 2 } };
        Machine yes = { .dmi = { [DMI_SYS_VENDOR] = "LENOVO", [DMI_PRODUCT_NAME] = "10VGS02P00",
                                 [DMI_PRODUCT_FAMILY] = "ThinkCentre M720s", [DMI_BOARD_VENDOR] = "LENOVO",
                                 [DMI_BOARD_NAME] = "3136" },
                        .kernel = { 6, 1, 40, true } };
        Machine no = { .dmi = { [DMI_SYS_VENDOR] = "Dell Inc.", [DMI_PRODUCT_NAME] = "OptiPlex",
                                [DMI_PRODUCT_FAMILY] = "OptiPlex", [DMI_BOARD_VENDOR] = "Dell Inc.", [DMI_BOARD_NAME] = "0X" },
                       .kernel = { 6, 6, 0, true } };
        Nic other = n;

        n.chip = chip_lookup(0x541, CHIP_XID2_INVALID, 0x10ec, 0x8168);
        other.chip = chip_lookup(0x509, CHIP_XID2_INVALID, 0x10ec, 0x8168);
        memcpy(other.slot, "0000:02:00.0", PCI_SLOT_LEN);
        memcpy(other.ifnames[0], "wlp2s0", 7);
        memcpy(other.perm_mac, "00:00:00:00:00:01", 18);
        memcpy(other.driver, "r8168", 6);
        other.xid = 0x509;
        other.device = 0x8136;
        other.subsys_vendor = 0x1028;
        other.link.aspm_control = 0; /* L1 off */

        assert_int_equal(match_key_count(), ELEMENTSOF(cases)); /* a new row needs its case here */
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                NicMatch m = {};
                char err[256], buf[256];
                bool list;

                assert_string_equal(match_key_name(i), cases[i].key);
                assert_true(match_is_empty(&m));
                assert_int_equal(match_parse(&m, cases[i].key, cases[i].value, err, sizeof(err)), 0);
                assert_false(match_is_empty(&m));
                /* As the file wrote it, and no other condition set. */
                for (size_t j = 0; j < match_key_count(); j++)
                        if (j == i)
                                assert_string_equal(match_condition_string(&m, j, buf, sizeof(buf), &list), cases[i].value);
                        else
                                assert_null(match_condition_string(&m, j, buf, sizeof(buf), &list));
                assert_true(match_test(&m, &n, &yes));
                assert_false(match_test(&m, &other, &no));
                assert_int_equal(match_parse(&m, cases[i].key, "", err, sizeof(err)), -EINVAL);
                assert_non_null(strstr(err, "empty"));
                match_done(&m);
                assert_true(match_is_empty(&m));
        }
        /* DMI strings run to 127 characters: a glob as long is taken; an interface glob is not. */
        {
                NicMatch m = {};
                char err[256], longglob[121];
                memset(longglob, 'x', sizeof(longglob) - 2);
                longglob[sizeof(longglob) - 2] = '*';
                longglob[sizeof(longglob) - 1] = '\0';
                assert_int_equal(match_parse(&m, "match-dmi-product-name", longglob, err, sizeof(err)), 0);
                assert_int_equal(match_parse(&m, "match-chip", longglob, err, sizeof(err)), 0);
                assert_int_equal(match_parse(&m, "match-interface", longglob, err, sizeof(err)), -EINVAL);
                match_done(&m);
        }
        /* A DMI field the machine does not have never matches, whatever the glob. */
        {
                NicMatch m = {};
                char err[256];
                Machine blank = {};
                assert_int_equal(match_parse(&m, "match-dmi-product-family", "*", err, sizeof(err)), 0);
                assert_false(match_test(&m, &n, &blank));
                match_done(&m);
        }
}

static void test_config_dropins(void **state) {
        const char *main_conf = write_file("drop.conf", "[global]\nprofile = powersave\n");
        Diagnostics d = {};
        Config c;

        write_file("drop.conf.d/20-b.conf", "[global]\nprofile = balanced\n");
        write_file("drop.conf.d/10-a.conf", "[global]\nprofile = performance\n");
        write_file("drop.conf.d/README", "not a conf file, ignored\n");
        assert_int_equal(config_load(&c, main_conf, true, &d), 0);
        assert_int_equal(d.n, 0);
        assert_int_equal(c.profile, PROFILE_BALANCED); /* 20-b is read last */
        assert_non_null(strstr(c.profile_origin.file, "20-b.conf"));
        assert_int_equal(c.n_files, 3);
        config_done(&c);

        /* A missing default file is fine; a missing file named on the command line is not. */
        assert_int_equal(config_load(&c, "/nonexistent/r8169-tuned.conf", false, &d), 0);
        assert_int_equal(d.n, 0);
        config_done(&c);
        assert_int_equal(config_load(&c, "/nonexistent/r8169-tuned.conf", true, &d), 0);
        assert_int_equal(d.n, 1);
        config_done(&c);
        diag_done(&d);
}

static void load_quirks(const char *dir, QuirkDb *db, Diagnostics *d) {
        const char *dirs[] = { dir };
        assert_int_equal(quirk_db_load(db, dirs, 1, d), 0);
        quirk_db_lint(db, d);
}

static void test_quirk_complaints(void **state) {
        Diagnostics d = {};
        QuirkDb db;

        write_file("q1/a.conf",
                   "[no-reason]\nxid = 541/7cf\nprofiles = performance\nclkpm = 0\nreference = https://x/1\n"
                   "[bad values]\n"
                   "[bad-values]\nxid = 5411\nprofiles = balanced\nclkpm = 7\nreference = ftp://x\nreason = r\nfoo = 1\n"
                   "[dup]\nxid = 541/7cf\nprofiles = performance\ntso = on\nreason = a\nevidence = e\nreference = https://x/2\n");
        write_file("q1/b.conf", "[dup]\nxid = 509/7cf\nprofiles = performance\ntso = on\nreason = a\nevidence = e\nreference = https://x/3\n"
                                "[clash]\nxid = 541/7cf\nprofiles = performance powersave\ntso = off\nreason = b\n"
                                "reference = https://x/4\n");
        char dir[512];
        snprintf(dir, sizeof(dir), "%s/q1", tmpdir);
        load_quirks(dir, &db, &d);
        diag_print(&d, stderr);
        assert_true(diag_has(&d, "a.conf:1: [no-reason] has no reason"));
        assert_true(diag_has(&d, "a.conf:6: quirk id \"bad values\""));
        assert_true(diag_has(&d, "a.conf:8: bad xid \"5411\""));
        assert_true(diag_has(&d, "a.conf:9: bad profile \"balanced\""));
        assert_true(diag_has(&d, "a.conf:10: bad value \"7\" for clkpm"));
        assert_true(diag_has(&d, "a.conf:11: reference \"ftp://x\""));
        assert_true(diag_has(&d, "a.conf:13: unknown key \"foo\""));
        assert_true(diag_has(&d, "b.conf:1: duplicate quirk id \"dup\""));
        assert_true(diag_has(&d, "b.conf:8: [clash] contradicts [dup]"));
        quirk_db_done(&db);
        diag_done(&d);
}

/* Quirk files and the configuration complain in the same words (keys.c). */
static void test_quirk_key_words(void **state) {
        Diagnostics d = {};
        QuirkDb db;
        char dir[512];

        write_file("q4/a.conf", "[x]\nmatch-xid = 541\nprofiles = powersave\nclkpm = 0\nclkpm = 1\n"   /* 5 */
                                "xid = 509\nreason = r\nreference = https://x/1\nskip = eee\n"          /* 6..9 */
                                "  tso\nrefrence = https://x/2\nclkpm_ = 1\nl1_aspm = 2\n");            /* 10..13 */
        snprintf(dir, sizeof(dir), "%s/q4", tmpdir);
        load_quirks(dir, &db, &d);
        diag_print(&d, stderr);
        assert_true(diag_has(&d, "a.conf:5: clkpm given twice in [x] (first at line 4)"));
        assert_true(diag_has(&d, "a.conf:6: match-xid given twice in [x] (first at line 2)")); /* the old spelling is the same key */
        assert_true(diag_has(&d, "a.conf:10: only reason, evidence, counter-evidence, reference and match-* lists may continue"));
        assert_true(diag_has(&d, "a.conf:11: unknown key \"refrence\" in [x]; did you mean \"reference\"?"));
        assert_true(diag_has(&d, "a.conf:12: unknown key \"clkpm_\" in [x]; did you mean \"clkpm\"?"));
        assert_true(diag_has(&d, "a.conf:13: bad value \"2\" for l1_aspm: expected"));
        assert_int_equal(db.n, 1);
        assert_int_equal(db.quirks[0].value[KNOB_CLKPM], 0); /* the first line stands */
        assert_true(db.quirks[0].skip[KNOB_EEE]);
        assert_false(db.quirks[0].skip[KNOB_TSO]);
        quirk_db_done(&db);
        diag_done(&d);
        /* A match-* list continues on indented lines, and a bad word there is said with its line. */
        write_file("q5/a.conf", "[x]\nconfidence = measured\nmatch-xid = 541/7cf\n  4c0/7cf 509/7cf\n  zz\nprofiles = powersave\n"
                                "clkpm = 0\nreason = r\nevidence = e\nreference = https://x/1\n");
        snprintf(dir, sizeof(dir), "%s/q5", tmpdir);
        load_quirks(dir, &db, &d);
        assert_true(diag_has(&d, "a.conf:5: bad match-xid \"zz\""));
        assert_int_equal(db.n, 1);
        assert_int_equal(db.quirks[0].match.n_xids, 3);
        quirk_db_done(&db);
        diag_done(&d);
}

/* A throughput fix must say who measured it; a correctness fix may; counter-evidence needs evidence. */
static void test_quirk_evidence(void **state) {
        Diagnostics d = {};
        QuirkDb db;
        char dir[512];

        write_file("q3/a.conf",
                   "[speed]\nmatch-xid = 541\nprofiles = performance\nclkpm = 0\nreason = r\nreference = https://x/1\n"
                   "[safety]\nmatch-xid = 509\nprofiles = performance powersave\ntso = off\nreason = r\nreference = https://x/2\n"
                   "confidence = reported\nreported-because = no-numbers\n"
                   "[against-only]\nmatch-xid = 2c8/7c8\nprofiles = powersave\nsg = off\nreason = r\n"
                   "counter-evidence = c\nreference = https://x/3\n"
                   "[measured]\nmatch-xid = 641\nprofiles = performance\nl1_2_aspm = 0\nreason = r\n"
                   "evidence = Someone, a board, 6.1:\n  255 -> 670 Mb/s\ncounter-evidence = one report\n  of the opposite\n"
                   "reference = https://x/4\nconfidence = measured\n");
        snprintf(dir, sizeof(dir), "%s/q3", tmpdir);
        load_quirks(dir, &db, &d);
        diag_print(&d, stderr);
        assert_true(diag_has(&d, "a.conf:1: [speed] is a throughput fix (performance only) with no evidence"));
        assert_false(diag_has(&d, "[safety]"));
        assert_true(diag_has(&d, "a.conf:15: [against-only] has counter-evidence but no evidence"));
        assert_false(diag_has(&d, "[measured]"));
        assert_int_equal(db.n, 4);
        assert_string_equal(db.quirks[3].evidence, "Someone, a board, 6.1: 255 -> 670 Mb/s");
        assert_string_equal(db.quirks[3].counter_evidence, "one report of the opposite");
        assert_null(db.quirks[1].evidence);
        quirk_db_done(&db);
        diag_done(&d);
}

/* A same-named file in a later directory (/etc) replaces the shipped one; others add up. */
static void test_quirk_override_dir(void **state) {
        char shipped[512], etc[512];
        const char *dirs[] = { shipped, etc };
        Diagnostics d = {};
        QuirkDb db;

        write_file("ship/20-a.conf", "[a]\nxid = 541/7cf\nprofiles = performance\nclkpm = 0\nreason = r\nevidence = e\nreference = https://x/a\nconfidence = measured\n");
        write_file("ship/30-b.conf", "[b]\nxid = 509/7cf\nprofiles = performance\ntso = on\nreason = r\nevidence = e\nreference = https://x/b\nconfidence = measured\n");
        write_file("etc/20-a.conf", "[a-local]\nxid = 541/7cf\nprofiles = performance\nclkpm = 1\nreason = r\nevidence = e\nreference = https://x/c\nconfidence = measured\n");
        write_file("etc/10-c.conf", "[c]\nxid = 4c0/7cf\nprofiles = powersave\nsg = on\nreason = r\nreference = https://x/d\nconfidence = reported\nreported-because = no-numbers\n");
        snprintf(shipped, sizeof(shipped), "%s/ship", tmpdir);
        snprintf(etc, sizeof(etc), "%s/etc", tmpdir);
        assert_int_equal(quirk_db_load(&db, dirs, 2, &d), 0);
        assert_int_equal(d.n, 0);
        assert_int_equal(db.n, 3);
        /* lexical order of file names, wherever they live */
        assert_string_equal(db.quirks[0].id, "c");
        assert_string_equal(db.quirks[1].id, "a-local");
        assert_non_null(strstr(db.quirks[1].file, "/etc/20-a.conf"));
        assert_string_equal(db.quirks[2].id, "b");
        quirk_db_done(&db);
}

static void test_xid_match_semantics(void **state) {
        XidMatch m;

        assert_int_equal(xid_match_parse("3c0/7c8", &m), 0);
        /* 3c0..3c3 are earlier kernel rows (VER_19..21); only what falls to VER_22 matches. */
        assert_false(xid_match_test(&m, 0x3c0));
        assert_false(xid_match_test(&m, 0x3c2));
        assert_true(xid_match_test(&m, 0x3c4));
        assert_true(xid_match_test(&m, 0x3c7));
        assert_int_equal(xid_match_parse("541/7cf", &m), 0);
        assert_true(xid_match_test(&m, 0x541));
        assert_true(xid_match_test(&m, 0xd41)); /* bit 31 is not in a 7cf mask, as in the kernel */
        assert_false(xid_match_test(&m, 0x540));
        /* Not a kernel row: plain bitwise matching. */
        assert_int_equal(xid_match_parse("500/700", &m), 0);
        assert_true(xid_match_test(&m, 0x541));
        assert_int_equal(xid_match_parse("541/7c8", &m), -ERANGE);
        assert_int_equal(xid_match_parse("541", &m), -EINVAL);

        /* 7.0's extended chips: an id of TX_CONFIG_V2, a row of the extended table when only a value. */
        assert_int_equal(xid_match_parse("ext:0", &m), 0);
        assert_true(m.extended && m.kernel_row);
        assert_int_equal(m.mask, 0x7fffffff);
        assert_true(xid_match_test_ext(&m, 0));
        assert_true(xid_match_test_ext(&m, 0x80000000));
        assert_false(xid_match_test_ext(&m, 1));
        assert_false(xid_match_test_ext(&m, CHIP_XID2_INVALID));
        assert_false(xid_match_test(&m, 0x7c8)); /* never the XID itself */
        assert_int_equal(xid_match_parse("ext:12/ff", &m), 0);
        assert_false(m.kernel_row);
        assert_true(xid_match_test_ext(&m, 0x3312));
        assert_false(xid_match_test_ext(&m, 0x3313));
        assert_int_equal(xid_match_parse("ext:5", &m), 0); /* no row: that id, bits 30:0 */
        assert_true(xid_match_test_ext(&m, 5));
        assert_false(xid_match_test_ext(&m, 4));
        assert_int_equal(xid_match_parse("ext:13/ff0", &m), -ERANGE);
        assert_int_equal(xid_match_parse("ext:", &m), -EINVAL);
        assert_int_equal(xid_match_parse("ext:123456789", &m), -EINVAL);
        assert_int_equal(xid_match_parse("ext:0/", &m), -EINVAL);
        /* A plain match never takes in an extended chip's id. */
        assert_int_equal(xid_match_parse("541/7cf", &m), 0);
        assert_false(xid_match_test_ext(&m, 0));
        {
                char b[32];
                assert_int_equal(xid_match_parse("ext:0", &m), 0);
                assert_string_equal(xid_match_to_string(&m, b, sizeof(b)), "ext:0/7fffffff");
                assert_int_equal(xid_match_parse("3c0/7c8", &m), 0);
                assert_string_equal(xid_match_to_string(&m, b, sizeof(b)), "3c0/7c8");
        }
}

/* The planner, with a tiny database and config of its own. */
static Quirk q_perf = { .id = "perf", .profiles = { [PROFILE_PERFORMANCE] = true } };
static Quirk q_all = { .id = "all", .profiles = { [PROFILE_PERFORMANCE] = true, [PROFILE_POWERSAVE] = true } };
static XidMatch x541 = { 0x541, 0x7cf, true, false };

static void setup_quirks(QuirkDb *db, Quirk *qs) {
        qs[0] = q_perf;
        qs[0].match.xids = &x541;
        qs[0].match.n_xids = 1;
        qs[0].set[KNOB_CLKPM] = true;
        qs[0].value[KNOB_CLKPM] = 0;
        qs[0].set[KNOB_L1_2_ASPM] = true;
        qs[0].set[KNOB_L1_1_ASPM] = true;
        qs[1] = q_all;
        qs[1].match.xids = &x541;
        qs[1].match.n_xids = 1;
        qs[1].set[KNOB_TSO] = true;
        qs[1].skip[KNOB_RX_USECS] = true;
        *db = (QuirkDb) { .quirks = qs, .n = 2 };
}

static const PlanItem *find_item(const NicPlan *p, KnobId k) {
        for (size_t i = 0; i < p->n; i++)
                if (p->items[i].knob == k)
                        return &p->items[i];
        return NULL;
}

static void test_plan(void **state) {
        Nic nic = { .slot = "0000:01:00.0", .ifnames = { "enp1s0" }, .n_ifnames = 1, .xid = 0x541, .vendor = 0x10ec, .device = 0x8168 };
        KnobReading cur[_KNOB_MAX] = {};
        Quirk qs[2];
        QuirkDb db;
        Machine m = {};
        ConfigDevice dev = { .name = "x", .match.interface = "enp*", .set = { [KNOB_CLKPM] = true },
                             .value = { [KNOB_CLKPM] = 1 }, .knob_origin = { [KNOB_CLKPM] = { "/etc/x.conf", 7 } } };
        Config cfg = { .devices = &dev, .n_devices = 1 };
        NicPlan p;
        const PlanItem *it;

        setup_quirks(&db, qs);
        cur[KNOB_CLKPM].value = 1;
        cur[KNOB_L1_1_ASPM].value = 1; /* the rest read 0 (status OK) */
        cur[KNOB_TSO] = (KnobReading) { .status = KNOB_STATUS_NO_INTERFACE, .error = -ENODEV };

        /* performance, no config: clkpm 1 -> 0, both L1 substates off, deepest first */
        plan_nic(&(PlanInput) { &nic, cur, &db, NULL, PROFILE_PERFORMANCE, &m, false, false, 0, NULL, false }, &p);
        it = find_item(&p, KNOB_CLKPM);
        assert_int_equal(it->action, PLAN_CHANGE);
        assert_int_equal(it->desired, 0);
        assert_ptr_equal(it->why.quirk, &qs[0]);
        assert_int_equal(find_item(&p, KNOB_L1_2_ASPM)->action, PLAN_KEEP);
        assert_int_equal(find_item(&p, KNOB_L1_1_ASPM)->action, PLAN_CHANGE);
        assert_true(find_item(&p, KNOB_L1_2_ASPM) < find_item(&p, KNOB_L1_1_ASPM));
        assert_true(find_item(&p, KNOB_L1_1_ASPM) < find_item(&p, KNOB_CLKPM));
        assert_int_equal(find_item(&p, KNOB_TSO)->action, PLAN_SKIP);
        assert_int_equal(find_item(&p, KNOB_RX_USECS)->action, PLAN_EXCLUDED);
        assert_null(find_item(&p, KNOB_SG)); /* unset is not zero: nobody asked */

        /* powersave: the performance-only quirk is out, the other stays */
        plan_nic(&(PlanInput) { &nic, cur, &db, NULL, PROFILE_POWERSAVE, &m, false, false, 0, NULL, false }, &p);
        assert_null(find_item(&p, KNOB_CLKPM));
        assert_non_null(find_item(&p, KNOB_TSO));

        /* config beats the quirk and says which line and which quirk */
        plan_nic(&(PlanInput) { &nic, cur, &db, &cfg, PROFILE_PERFORMANCE, &m, false, false, 0, NULL, false }, &p);
        it = find_item(&p, KNOB_CLKPM);
        assert_int_equal(it->action, PLAN_KEEP);
        assert_int_equal(it->desired, 1);
        assert_int_equal(it->why.kind, PROVENANCE_CONFIG);
        assert_int_equal(it->why.origin.line, 7);
        assert_true(it->overrides);
        assert_ptr_equal(it->overridden.quirk, &qs[0]);

        /* a config section that does not match changes nothing */
        dev.match.interface = "wl*";
        plan_nic(&(PlanInput) { &nic, cur, &db, &cfg, PROFILE_PERFORMANCE, &m, false, false, 0, NULL, false }, &p);
        assert_int_equal(find_item(&p, KNOB_CLKPM)->why.kind, PROVENANCE_QUIRK);

        /* ignore = yes: nothing planned at all */
        dev.match.interface = "enp1s0";
        dev.ignore = true;
        dev.ignore_origin = (Origin) { "/etc/x.conf", 3 };
        plan_nic(&(PlanInput) { &nic, cur, &db, &cfg, PROFILE_PERFORMANCE, &m, false, false, 0, NULL, false }, &p);
        assert_true(p.ignored);
        assert_int_equal(p.n, 0);

        /* an unidentified NIC matches no quirk */
        nic.xid = CHIP_XID_INVALID;
        plan_nic(&(PlanInput) { &nic, cur, &db, NULL, PROFILE_PERFORMANCE, &m, false, false, 0, NULL, false }, &p);
        assert_int_equal(p.n, 0);
}

/* Dynamic link power in the plan: where it may run, what each state writes, the L1.2 it gives back. */
static void test_plan_link_power(void **state) {
        Nic nic = { .slot = "0000:01:00.0", .ifnames = { "enp1s0" }, .n_ifnames = 1, .xid = 0x541, .vendor = 0x10ec, .device = 0x8168 };
        KnobReading cur[_KNOB_MAX] = {};
        Quirk unsafe = q_all;
        QuirkDb db = { .quirks = &unsafe, .n = 1 };
        Machine m = {};
        ConfigDevice dev = { .name = "here", .match.slot = "0000:01:00.0", .link_power = { -1 } };
        Config cfg = { .link_power = { LINK_POWER_DYNAMIC, { "/etc/x.conf", 3 } }, .link_power_busy_pps = 100,
                       .link_power_quiet_s = 30, .devices = &dev, .n_devices = 1 };
        PlanLinkPower busy = { .state = LINK_POWER_BUSY }, idle = { .state = LINK_POWER_IDLE };
        PlanInput in = { .nic = &nic, .current = cur, .quirks = &db, .config = &cfg, .profile = PROFILE_POWERSAVE, .machine = &m };
        NicPlan p;

        for (int k = 0; k < _KNOB_MAX; k++)
                cur[k] = (KnobReading) { .status = KNOB_STATUS_OK, .value = 1 };
        /* As found: L1.2 on, PCI-PM L1.1 on, PCI-PM L1.2 off. */
        busy.found_known[KNOB_L1_2_ASPM] = idle.found_known[KNOB_L1_2_ASPM] = true;
        busy.found[KNOB_L1_2_ASPM] = idle.found[KNOB_L1_2_ASPM] = true;
        busy.found_known[KNOB_L1_1_PCIPM] = idle.found_known[KNOB_L1_1_PCIPM] = true;
        busy.found[KNOB_L1_1_PCIPM] = idle.found[KNOB_L1_1_PCIPM] = true;
        busy.found_known[KNOB_L1_2_PCIPM] = idle.found_known[KNOB_L1_2_PCIPM] = true;

        /* The CLI: asked, runs (no quirk marks the chip), nothing planned for L1. */
        plan_nic(&in, &p);
        assert_true(p.link_power_asked);
        assert_null(p.link_power_blocked);
        assert_int_equal(p.link_power, -1);
        assert_null(find_item(&p, KNOB_L1_ASPM));
        assert_int_equal(p.link_power_origin.line, 3);

        /* Busy: L1, L1.1 and L1.2 off; quiet: on, and L1.2 back to what it was. */
        in.link_power = &busy;
        plan_nic(&in, &p);
        assert_int_equal(p.link_power, LINK_POWER_BUSY);
        assert_int_equal(find_item(&p, KNOB_L1_ASPM)->desired, 0);
        assert_int_equal(find_item(&p, KNOB_L1_1_ASPM)->desired, 0);
        assert_int_equal(find_item(&p, KNOB_L1_2_ASPM)->desired, 0);
        assert_int_equal(find_item(&p, KNOB_L1_1_PCIPM)->desired, 0);
        assert_int_equal(find_item(&p, KNOB_L1_2_PCIPM)->desired, 0);
        assert_int_equal(find_item(&p, KNOB_L1_ASPM)->why.kind, PROVENANCE_LINK_POWER);
        assert_null(find_item(&p, KNOB_CLKPM)); /* clkpm is the quirk database's */
        assert_null(find_item(&p, KNOB_L0S_ASPM));
        in.link_power = &idle;
        plan_nic(&in, &p);
        assert_int_equal(find_item(&p, KNOB_L1_ASPM)->desired, 1);
        assert_int_equal(find_item(&p, KNOB_L1_1_ASPM)->desired, 1);
        assert_int_equal(find_item(&p, KNOB_L1_2_ASPM)->desired, 1);  /* back as found */
        assert_int_equal(find_item(&p, KNOB_L1_1_PCIPM)->desired, 1); /* back as found */
        assert_int_equal(find_item(&p, KNOB_L1_2_PCIPM)->desired, 0); /* it was off: it stays off */
        idle.found_known[KNOB_L1_2_ASPM] = false;
        plan_nic(&in, &p);
        assert_null(find_item(&p, KNOB_L1_2_ASPM)); /* not known: left alone */

        /* A quirk deciding L1.2 keeps it; one turning it on waits while the link is busy (it would turn L1 on). */
        unsafe.set[KNOB_L1_2_ASPM] = true;
        unsafe.value[KNOB_L1_2_ASPM] = 0;
        in.link_power = &busy;
        plan_nic(&in, &p);
        assert_int_equal(find_item(&p, KNOB_L1_2_ASPM)->why.kind, PROVENANCE_QUIRK);
        unsafe.value[KNOB_L1_2_ASPM] = 1;
        plan_nic(&in, &p);
        assert_int_equal(find_item(&p, KNOB_L1_2_ASPM)->desired, 0);
        in.link_power = &idle;
        plan_nic(&in, &p);
        assert_int_equal(find_item(&p, KNOB_L1_2_ASPM)->desired, 1);
        assert_int_equal(find_item(&p, KNOB_L1_2_ASPM)->why.kind, PROVENANCE_QUIRK);
        in.link_power = &busy;
        unsafe.set[KNOB_L1_2_ASPM] = false;
        /* A quirk setting L1 itself: not here. */
        unsafe.set[KNOB_L1_ASPM] = true;
        plan_nic(&in, &p);
        assert_string_equal(p.link_power_blocked, "a quirk sets L1 for this chip");
        unsafe.set[KNOB_L1_ASPM] = false;

        /* A quirk marking the chip static: not from [global], but a [device] naming it may. */
        unsafe.link_power_static = true;
        plan_nic(&in, &p);
        assert_string_equal(p.link_power_blocked, "a quirk marks L1 unsafe to switch on this chip");
        assert_ptr_equal(p.link_power_quirk, &unsafe);
        assert_null(find_item(&p, KNOB_L1_ASPM));
        dev.link_power = (LinkPowerSetting) { LINK_POWER_DYNAMIC, { "/etc/x.conf", 9 } };
        plan_nic(&in, &p);
        assert_null(p.link_power_blocked);
        assert_int_equal(p.link_power_origin.line, 9);
        assert_int_equal(find_item(&p, KNOB_L1_ASPM)->desired, 0);
        /* ... and one saying static wins over [global]. */
        dev.link_power.mode = LINK_POWER_STATIC;
        plan_nic(&in, &p);
        assert_false(p.link_power_asked);
        dev.link_power.mode = LINK_POWER_DYNAMIC;

        /* An ignored NIC: not under link power (its plan says no state). */
        dev.ignore = true;
        dev.ignore_origin = (Origin) { "/etc/x.conf", 10 };
        plan_nic(&in, &p);
        assert_int_equal(p.link_power, -1);
        dev.ignore = false;
        dev.ignore_origin = (Origin) {};

        /* A quirk that skips a substate (L1 off would turn it off, and it would never be given back). */
        unsafe.skip[KNOB_L1_2_PCIPM] = true;
        plan_nic(&in, &p);
        assert_non_null(p.link_power_blocked);
        assert_null(find_item(&p, KNOB_L1_ASPM));
        unsafe.skip[KNOB_L1_2_PCIPM] = false;

        /* The configuration setting L1 itself, a tx timeout, no link/ attributes: not here. */
        dev.set[KNOB_L1_ASPM] = true;
        plan_nic(&in, &p);
        assert_string_equal(p.link_power_blocked, "the configuration sets L1 for this NIC");
        dev.set[KNOB_L1_ASPM] = false;
        in.tx_guard = true;
        plan_nic(&in, &p);
        assert_string_equal(p.link_power_blocked, "the link had a tx timeout");
        assert_int_equal(find_item(&p, KNOB_L1_ASPM)->why.kind, PROVENANCE_GUARD);
        in.tx_guard = false;
        cur[KNOB_L1_ASPM] = (KnobReading) { .status = KNOB_STATUS_ABSENT, .error = -ENOENT };
        plan_nic(&in, &p);
        assert_string_equal(p.link_power_blocked, "this link has no link/l1_aspm attribute");
}

/* Readings of only the knobs plan_knobs_needed() names give the same items as readings of all. */
static void same_items_from_needed(const PlanInput *in) {
        KnobReading part[_KNOB_MAX];
        PlanInput pin = *in;
        bool needed[_KNOB_MAX];
        NicPlan full, from_needed;

        plan_knobs_needed(in, needed);
        for (int k = 0; k < _KNOB_MAX; k++)
                part[k] = needed[k] ? in->current[k]
                                    : (KnobReading) { .status = KNOB_STATUS_ERROR, .error = -ENODATA };
        pin.current = part;
        plan_nic(in, &full);
        plan_nic(&pin, &from_needed);
        assert_int_equal(full.n, from_needed.n);
        for (size_t i = 0; i < full.n; i++) {
                assert_int_equal(full.items[i].knob, from_needed.items[i].knob);
                assert_int_equal(full.items[i].action, from_needed.items[i].action);
                assert_int_equal(full.items[i].desired, from_needed.items[i].desired);
        }
        assert_int_equal(full.link_power, from_needed.link_power);
        assert_true((full.link_power_blocked == NULL) == (from_needed.link_power_blocked == NULL));
}

static void test_plan_knobs_needed(void **state) {
        Nic nic = { .slot = "0000:01:00.0", .ifnames = { "enp1s0" }, .n_ifnames = 1, .xid = 0x541, .vendor = 0x10ec, .device = 0x8168 };
        KnobReading cur[_KNOB_MAX] = {};
        Quirk qs[2];
        QuirkDb db;
        Machine m = {};
        ConfigDevice dev = { .name = "x", .match.interface = "enp*", .set = { [KNOB_SG] = true },
                             .value = { [KNOB_SG] = 0 }, .knob_origin = { [KNOB_SG] = { "/etc/x.conf", 7 } }, .link_power = { -1 } };
        Config cfg = { .devices = &dev, .n_devices = 1, .link_power_busy_pps = 100, .link_power_quiet_s = 30 };
        PlanLinkPower busy = { .state = LINK_POWER_BUSY };
        PlanInput in = { .nic = &nic, .current = cur, .quirks = &db, .profile = PROFILE_PERFORMANCE, .machine = &m };
        bool needed[_KNOB_MAX];

        setup_quirks(&db, qs);
        for (int k = 0; k < _KNOB_MAX; k++)
                cur[k] = (KnobReading) { .status = KNOB_STATUS_OK, .value = k % 2 };

        /* Quirks only: what they set and skip; nothing nobody asked for, no L1 state nobody decides on. */
        plan_knobs_needed(&in, needed);
        assert_true(needed[KNOB_CLKPM] && needed[KNOB_TSO] && needed[KNOB_RX_USECS] && needed[KNOB_L1_2_ASPM]);
        assert_false(needed[KNOB_SG]);
        assert_false(needed[KNOB_L1_2_PCIPM] || needed[KNOB_L0S_ASPM] || needed[KNOB_L1_ASPM]);
        same_items_from_needed(&in);
        in.profile = PROFILE_POWERSAVE;
        same_items_from_needed(&in);

        /* A configuration line adds its knob. */
        in.config = &cfg;
        plan_knobs_needed(&in, needed);
        assert_true(needed[KNOB_SG]);
        same_items_from_needed(&in);

        /* The tx-timeout guard: L0s and L1 too. Dynamic link power, busy: the whole L1 family. */
        in.tx_guard = true;
        plan_knobs_needed(&in, needed);
        assert_true(needed[KNOB_L0S_ASPM] && needed[KNOB_L1_ASPM] && needed[KNOB_L1_2_PCIPM]);
        same_items_from_needed(&in);
        in.tx_guard = false;
        cfg.link_power = (LinkPowerSetting) { LINK_POWER_DYNAMIC, { "/etc/x.conf", 3 } };
        in.link_power = &busy;
        plan_knobs_needed(&in, needed);
        assert_true(needed[KNOB_L1_ASPM] && needed[KNOB_L1_1_PCIPM] && !needed[KNOB_L0S_ASPM]);
        same_items_from_needed(&in);
        in.tx_guard = true;
        same_items_from_needed(&in);

        /* Ignored: nothing to read at all. */
        dev.ignore = true;
        dev.ignore_origin = (Origin) { "/etc/x.conf", 2 };
        plan_knobs_needed(&in, needed);
        for (int k = 0; k < _KNOB_MAX; k++)
                assert_false(needed[k]);
        same_items_from_needed(&in);
}

/* L1 off masks its substates: those that are on are written off first, so the undo journal has them. */
static void test_plan_with_l1(void **state) {
        Nic nic = { .slot = "0000:01:00.0", .ifnames = { "enp1s0" }, .n_ifnames = 1, .xid = 0x541, .vendor = 0x10ec, .device = 0x8168 };
        KnobReading cur[_KNOB_MAX] = {};
        Quirk q = q_all;
        QuirkDb db = { .quirks = &q, .n = 1 };
        Machine m = {};
        PlanInput in = { .nic = &nic, .current = cur, .quirks = &db, .profile = PROFILE_PERFORMANCE, .machine = &m };
        bool needed[_KNOB_MAX];
        NicPlan p;

        q.match.xids = &x541;
        q.match.n_xids = 1;
        q.set[KNOB_L1_ASPM] = true; /* l1_aspm = 0, as rtl8168gu-6.4-aspm */
        cur[KNOB_L1_ASPM].value = 1;
        cur[KNOB_L1_1_ASPM].value = 1;
        cur[KNOB_L1_2_ASPM].value = 0;
        cur[KNOB_L1_1_PCIPM].value = 1;
        cur[KNOB_L1_2_PCIPM] = (KnobReading) { .status = KNOB_STATUS_ABSENT, .error = -ENOENT };
        plan_nic(&in, &p);
        assert_int_equal(find_item(&p, KNOB_L1_ASPM)->why.kind, PROVENANCE_QUIRK);
        assert_int_equal(find_item(&p, KNOB_L1_1_ASPM)->action, PLAN_CHANGE);
        assert_int_equal(find_item(&p, KNOB_L1_1_ASPM)->desired, 0);
        assert_int_equal(find_item(&p, KNOB_L1_1_ASPM)->why.kind, PROVENANCE_WITH_L1);
        assert_int_equal(find_item(&p, KNOB_L1_1_PCIPM)->why.kind, PROVENANCE_WITH_L1);
        assert_null(find_item(&p, KNOB_L1_2_ASPM));  /* off already: nothing to give back */
        assert_null(find_item(&p, KNOB_L1_2_PCIPM)); /* not on this link */
        assert_true(find_item(&p, KNOB_L1_1_ASPM) < find_item(&p, KNOB_L1_ASPM));
        assert_true(find_item(&p, KNOB_L1_1_PCIPM) < find_item(&p, KNOB_L1_ASPM));
        plan_knobs_needed(&in, needed);
        assert_true(needed[KNOB_L1_1_ASPM] && needed[KNOB_L1_2_ASPM] && needed[KNOB_L1_1_PCIPM]);
        same_items_from_needed(&in);

        /* A substate the quirk decides stays the quirk's; L1 on masks nothing. */
        q.set[KNOB_L1_1_ASPM] = true;
        plan_nic(&in, &p);
        assert_int_equal(find_item(&p, KNOB_L1_1_ASPM)->why.kind, PROVENANCE_QUIRK);
        q.set[KNOB_L1_1_ASPM] = false;
        q.value[KNOB_L1_ASPM] = 1;
        plan_nic(&in, &p);
        assert_null(find_item(&p, KNOB_L1_1_ASPM));
        assert_null(find_item(&p, KNOB_L1_1_PCIPM));
}

static void test_profile_resolve(void **state) {
        assert_int_equal(profile_resolve(PROFILE_BALANCED, POWER_AC), PROFILE_PERFORMANCE);
        assert_int_equal(profile_resolve(PROFILE_BALANCED, POWER_NO_BATTERY), PROFILE_PERFORMANCE);
        assert_int_equal(profile_resolve(PROFILE_BALANCED, POWER_BATTERY), PROFILE_POWERSAVE);
        assert_int_equal(profile_resolve(PROFILE_POWERSAVE, POWER_AC), PROFILE_POWERSAVE);
        assert_int_equal(profile_resolve(PROFILE_PERFORMANCE, POWER_BATTERY), PROFILE_PERFORMANCE);
        for (int p = 0; p < _PROFILE_MAX; p++)
                assert_int_equal(profile_from_string(profile_to_string(p)), p);
}

static int setup(void **state) { return mkdtemp(tmpdir) ? 0 : -1; }
static int teardown(void **state) {
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
        return system(cmd);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_config_ok),          cmocka_unit_test(test_config_every_complaint),
                cmocka_unit_test(test_config_duplicates), cmocka_unit_test(test_match_forms), cmocka_unit_test(test_config_dropins),     cmocka_unit_test(test_quirk_complaints),
                cmocka_unit_test(test_quirk_evidence),    cmocka_unit_test(test_match_conditions),
                cmocka_unit_test(test_quirk_key_words),
                cmocka_unit_test(test_quirk_override_dir),
                cmocka_unit_test(test_xid_match_semantics), cmocka_unit_test(test_plan), cmocka_unit_test(test_plan_link_power), cmocka_unit_test(test_plan_knobs_needed),
                cmocka_unit_test(test_plan_with_l1),
                cmocka_unit_test(test_profile_resolve),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
