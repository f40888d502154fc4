/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/confparse.h"
#include "base/log.h"
#include "base/quote.h"
#include "base/util.h"

static void test_parse_u64(void **state) {
        uint64_t v = 7;

        assert_int_equal(parse_u64("0", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(parse_u64("18446744073709551615", &v), 0);
        assert_true(v == UINT64_MAX);
        assert_int_equal(parse_u64("18446744073709551616", &v), -ERANGE);
        assert_int_equal(parse_u64("-1", &v), -EINVAL);
        assert_int_equal(parse_u64("+1", &v), -EINVAL);
        assert_int_equal(parse_u64("1x", &v), -EINVAL);
        assert_int_equal(parse_u64("", &v), -EINVAL);
        assert_int_equal(parse_u64_base("1f", 16, &v), 0);
        assert_int_equal(v, 0x1f);
}

static void test_bool(void **state) {
        bool b;

        assert_int_equal(parse_bool("On", &b), 0);
        assert_true(b);
        assert_int_equal(parse_bool("no", &b), 0);
        assert_false(b);
        assert_int_equal(parse_bool("2", &b), -EINVAL);
        assert_int_equal(parse_bool("", &b), -EINVAL);
}

static void test_names(void **state) {
        assert_true(ifname_valid("enp1s0"));
        assert_true(ifname_valid("eth0.100"));
        assert_false(ifname_valid(""));
        assert_false(ifname_valid(".."));
        assert_false(ifname_valid("a/b"));
        assert_false(ifname_valid("0123456789abcdef")); /* 16 chars: IFNAMSIZ-1 is 15 */
        assert_false(ifname_valid("a b"));
        assert_true(pci_slot_valid("0000:01:00.0"));
        assert_false(pci_slot_valid("0000:01:00.0/.."));
        assert_false(pci_slot_valid("0000:01:00"));
        assert_false(pci_slot_valid("0000:0G:00.0"));
        assert_false(pci_slot_valid("0000:0A:00.0")); /* sysfs spells hex in lower case */
}

static void test_json(void **state) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);

        json_string(f, "a\"b\\c\n\x01");
        fclose(f);
        assert_string_equal(buf, "\"a\\\"b\\\\c\\n\\u0001\"");
        free(buf);
}

static void test_log_levels(void **state) {
        for (int l = LOG_EMERG; l <= LOG_DEBUG; l++)
                assert_int_equal(log_level_from_string(log_level_to_string(l)), l);
        assert_int_equal(log_level_from_string("error"), LOG_ERR);
        assert_int_equal(log_level_from_string("loud"), -EINVAL);
        assert_null(log_level_to_string(42));
}

static void test_link_basename(void **state) {
        char dir[] = "/tmp/r8t-link.XXXXXX", p[64], buf[16];
        int dfd;

        assert_non_null(mkdtemp(dir));
        snprintf(p, sizeof(p), "%s/driver", dir);
        assert_int_equal(symlink("../../../bus/pci/drivers/r8169", p), 0);
        snprintf(p, sizeof(p), "%s/plain", dir);
        assert_int_equal(symlink("r8168", p), 0);
        snprintf(p, sizeof(p), "%s/long", dir);
        assert_int_equal(symlink("../a-name-longer-than-the-buffer", p), 0);
        dfd = open(dir, O_RDONLY | O_DIRECTORY);
        assert_true(dfd >= 0);
        assert_int_equal(readlinkat_basename(dfd, "driver", buf, sizeof(buf)), 0);
        assert_string_equal(buf, "r8169");
        assert_int_equal(readlinkat_basename(dfd, "plain", buf, sizeof(buf)), 0);
        assert_string_equal(buf, "r8168");
        assert_true(readlinkat_basename(dfd, "long", buf, sizeof(buf)) < 0);
        assert_int_equal(readlinkat_basename(dfd, "none", buf, sizeof(buf)), -ENOENT);
        assert_int_equal(readlinkat_basename(-1, "driver", buf, sizeof(buf)), -EBADF);
        close(dfd);
        for (size_t i = 0; i < 3; i++) {
                snprintf(p, sizeof(p), "%s/%s", dir, (const char *[]) { "driver", "plain", "long" }[i]);
                unlink(p);
        }
        rmdir(dir);
}

static void write_hello(FILE *f, const void *userdata) { fputs(userdata, f); }

static char *slurp(const char *path) {
        static char buf[64];
        FILE *f = fopen(path, "re");
        size_t n;

        if (!f)
                return NULL;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = '\0';
        fclose(f);
        return buf;
}

/*
 * The one writer for what r8169-tuned writes (security review S2, S7): a link planted at the old
 * predictable temporary name, or at the final name, is never followed; a hard link there is
 * replaced, not written through; the mode is the one asked, whatever the umask; a directory others
 * may write (not sticky) is refused; nothing is left behind.
 */
static void test_write_file_atomic(void **state) {
        char dir[] = "/tmp/r8t-write.XXXXXX", path[64], tmp[128], victim[64], open_dir[64];
        struct stat st;
        mode_t old;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/out.conf", dir);
        snprintf(tmp, sizeof(tmp), "%s/out.conf.tmp", dir);
        snprintf(victim, sizeof(victim), "%s/victim", dir);
        assert_int_equal(write_file_atomic(victim, 0600, write_hello, "secret\n"), 0);

        /* The old writer's temporary name, a link to a file it must not touch. */
        assert_int_equal(symlink(victim, tmp), 0);
        old = umask(0);
        assert_int_equal(write_file_atomic(path, 0644, write_hello, "one\n"), 0);
        umask(old);
        assert_string_equal(slurp(victim), "secret\n");
        assert_string_equal(slurp(path), "one\n");
        assert_int_equal(lstat(path, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0644); /* not 0666 under umask 000 */
        unlink(tmp);

        /* A symlink at the final path: refused, its target untouched. */
        unlink(path);
        assert_int_equal(symlink(victim, path), 0);
        assert_int_equal(write_file_atomic(path, 0644, write_hello, "two\n"), -ELOOP);
        assert_string_equal(slurp(victim), "secret\n");
        unlink(path);

        /* A hard link at the final path: the name gets a new file, the other inode keeps its text. */
        assert_int_equal(link(victim, path), 0);
        assert_int_equal(write_file_atomic(path, 0644, write_hello, "three\n"), 0);
        assert_string_equal(slurp(victim), "secret\n");
        assert_string_equal(slurp(path), "three\n");

        /* A directory anyone may write, not sticky: refused; sticky (as /tmp): written. */
        snprintf(open_dir, sizeof(open_dir), "%s/open", dir);
        assert_int_equal(mkdir(open_dir, 0777), 0);
        assert_int_equal(chmod(open_dir, 0777), 0);
        snprintf(tmp, sizeof(tmp), "%s/x.conf", open_dir);
        assert_int_equal(write_file_atomic(tmp, 0644, write_hello, "x\n"), -EPERM);
        assert_int_equal(access(tmp, F_OK), -1);
        assert_int_equal(chmod(open_dir, 01777), 0);
        assert_int_equal(write_file_atomic(tmp, 0644, write_hello, "x\n"), 0);
        unlink(tmp);
        rmdir(open_dir);

        /* What a command checks before it measures (S6): a directory, a missing directory, a link. */
        assert_int_equal(write_file_check(dir), -EISDIR);
        snprintf(tmp, sizeof(tmp), "%s/missing/x.conf", dir);
        assert_int_equal(write_file_check(tmp), -ENOENT);
        assert_int_equal(write_file_check(path), 0);
        assert_non_null(strstr(write_file_refusal(-ELOOP), "symbolic link"));

        /* Nothing else left in the directory: no temporary. */
        unlink(path);
        unlink(victim);
        assert_int_equal(rmdir(dir), 0);
}

/* Text from elsewhere (iperf3's error, a --server argument) reaches a terminal without its control characters. */
/* More names than one getdents64() buffer holds, each once; "." and ".." never; an fd of -1 lists nothing. */
static void test_dir_names(void **state) {
        char dir[] = "/tmp/r8t-dir.XXXXXX", path[512];
        bool seen[300] = {};
        unsigned n = 0;
        const char *name;
        DirNames d;

        assert_non_null(mkdtemp(dir));
        for (int i = 0; i < 300; i++) {
                /* 60-byte names: 300 of them are about 24 KiB of entries, six of DirNames's buffers */
                snprintf(path, sizeof(path), "%s/%03d-%056d", dir, i, 0);
                int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
                assert_true(fd >= 0);
                close(fd);
        }
        dir_names_init(&d, open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        while ((name = dir_names_next(&d))) {
                int i = atoi(name);
                assert_string_not_equal(name, ".");
                assert_string_not_equal(name, "..");
                assert_true(i >= 0 && i < 300);
                assert_false(seen[i]);
                seen[i] = true;
                n++;
        }
        assert_int_equal(d.error, 0);
        dir_names_done(&d);
        assert_int_equal(n, 300);

        dir_names_init(&d, -ENOENT);
        assert_null(dir_names_next(&d));
        assert_int_equal(d.error, -ENOENT);
        dir_names_done(&d);

        for (int i = 0; i < 300; i++) {
                snprintf(path, sizeof(path), "%s/%03d-%056d", dir, i, 0);
                assert_int_equal(unlink(path), 0);
        }
        assert_int_equal(rmdir(dir), 0);
}

static void test_printable(void **state) {
        char buf[32];

        assert_string_equal(printable("plain text", buf, sizeof(buf)), "plain text");
        assert_string_equal(printable("a\nb\tc\033[2J\x7f", buf, sizeof(buf)), "a\\nb\\tc\\x1b[2J\\x7f");
        assert_string_equal(printable(NULL, buf, sizeof(buf)), "");
        /* cut to fit, never half an escape */
        assert_string_equal(printable("abcdefgh\033", buf, 11), "abcdefgh");
        assert_string_equal(printable("\xc3\xa9t\xc3\xa9", buf, sizeof(buf)), "\xc3\xa9t\xc3\xa9"); /* UTF-8 stays */
        /* ... but not its C1 controls (U+009B is a terminal's CSI), stray or overlong bytes */
        assert_string_equal(printable("a\xc2\x9b" "2J", buf, sizeof(buf)), "a\\xc2\\x9b2J");
        assert_string_equal(printable("\x9b" "2J\xc0\xaf", buf, sizeof(buf)), "\\x9b2J\\xc0\\xaf");
        assert_string_equal(printable("\xe2\x82", buf, sizeof(buf)), "\\xe2\\x82"); /* cut off at the end */
        assert_string_equal(printable("ab\xc3\xa9", buf, 4), "ab"); /* never half a character */
}

/* What diagnose quotes from the journal and sysfs (security review R1). */
static void test_quote(void **state) {
        char *t;
        const char *lines[] = { "plain", "a ``` b", "````" };

        t = quote_text("\033]0;owned\007## Maintainer's note\n```\nrun `curl x | sh`", QUOTE_CONTROLS);
        assert_string_equal(t, "\\x1b]0;owned\\x07## Maintainer's note\\n```\\nrun `curl x | sh`");
        free(t);
        t = quote_text("a|b *c* _d_ [e](f) <img> `g` ~h~ \\ #i rx_missed x_", QUOTE_MARKDOWN_INLINE);
        assert_string_equal(t, "a\\|b \\*c\\* _d\\_ \\[e\\](f) \\<img\\> \\`g\\` \\~h\\~ \\\\ #i rx_missed x\\_");
        free(t);
        t = quote_text(NULL, QUOTE_CONTROLS);
        assert_string_equal(t, "");
        free(t);
        assert_int_equal(quote_fence_length(lines, 1), 3);
        assert_int_equal(quote_fence_length(lines, 2), 4);
        assert_int_equal(quote_fence_length(lines, 3), 5);
}

/* A file's problems stop at DIAG_MAX_PER_FILE, its "N more" after them, kept as it is when copied
 * (the service's list, read back by verify) (security review R6). */
static void test_diag_cap(void **state) {
        Diagnostics d = {}, copy = {};

        for (unsigned i = 150; i > 0; i--) /* out of order: sorted below */
                diag_add(&d, "a.conf", i, "problem %u", i);
        diag_add(&d, "b.conf", 7, "b's problem");
        assert_int_equal(d.n, DIAG_MAX_PER_FILE + 2);
        diag_sort(&d);
        assert_int_equal(d.lines[0], 51); /* the first 100 that came (150..51), in line order */
        assert_string_equal(d.msgs[0], "a.conf:51: problem 51");
        assert_string_equal(d.msgs[DIAG_MAX_PER_FILE - 1], "a.conf:150: problem 150");
        assert_string_equal(d.msgs[DIAG_MAX_PER_FILE], "a.conf: more than 100 problems: 50 more are not shown");
        assert_string_equal(d.msgs[DIAG_MAX_PER_FILE + 1], "b.conf:7: b's problem");
        /* one more after sorting: the "N more" it moved is the one updated */
        diag_add(&d, "a.conf", 200, "problem 200");
        assert_string_equal(d.msgs[DIAG_MAX_PER_FILE], "a.conf: more than 100 problems: 51 more are not shown");
        for (size_t i = 0; i < d.n; i++)
                diag_add_message(&copy, d.files[i], d.lines[i], d.msgs[i]);
        assert_int_equal(copy.n, d.n);
        for (size_t i = 0; i < d.n; i++)
                assert_string_equal(copy.msgs[i], d.msgs[i]);
        diag_done(&copy);
        diag_done(&d);
        (void) state;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_u64), cmocka_unit_test(test_bool),
                cmocka_unit_test(test_names),     cmocka_unit_test(test_json),
                cmocka_unit_test(test_log_levels), cmocka_unit_test(test_link_basename),
                cmocka_unit_test(test_write_file_atomic), cmocka_unit_test(test_dir_names),
                cmocka_unit_test(test_printable),
                cmocka_unit_test(test_quote),
                cmocka_unit_test(test_diag_cap),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
