/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <json-c/json.h>
#include <poll.h>
#include <pwd.h>
#include <grp.h>
#include <sys/prctl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "experiment/iperf.h"

/* The child could not shed its privileges or set up its descriptors: it never ran iperf3. */
#define IPERF_EXIT_SETUP 125

/* A report with per-second intervals is a few kB per second of test; anything this large is not one. */
#define IPERF_OUTPUT_MAX (8u << 20)

static json_object *member(json_object *o, const char *a, const char *b) {
        json_object *v = NULL;

        if (!json_object_object_get_ex(o, a, &v))
                return NULL;
        if (b && !json_object_object_get_ex(v, b, &v))
                return NULL;
        return v;
}

/* A finite number (json-c reads NaN and Infinity too). */
static bool number(json_object *v, double *ret) {
        double d;

        if (!v || !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
                return false;
        d = json_object_get_double(v);
        if (!isfinite(d))
                return false;
        *ret = d;
        return true;
}

int iperf_parse_json(const char *text, size_t len, IperfResult *ret, char *err, size_t size) {
        json_tokener *tok = json_tokener_new();
        json_object *root, *end, *e;
        IperfResult r = {};
        double bps, v;
        int q = -EBADMSG;

        if (!tok)
                return -ENOMEM;
        if (len > INT32_MAX) {
                json_tokener_free(tok);
                return -E2BIG;
        }
        root = json_tokener_parse_ex(tok, text, (int) len);
        if (!root || !json_object_is_type(root, json_type_object)) {
                snprintf(err, size, "not a JSON object (%s)", json_tokener_error_desc(json_tokener_get_error(tok)));
                goto out;
        }
        e = member(root, "error", NULL);
        if (e && json_object_is_type(e, json_type_string)) {
                snprintf(err, size, "%s", json_object_get_string(e));
                q = -EPROTO;
                goto out;
        }
        end = member(root, "end", NULL);
        if (!end || !number(member(end, "sum_received", "bits_per_second"), &bps) || bps < 0) {
                snprintf(err, size, "no end.sum_received.bits_per_second");
                goto out;
        }
        r.mbps = bps / 1e6;
        if (number(member(end, "sum_sent", "retransmits"), &v) && v >= 0) {
                r.retransmits = (uint64_t) v;
                r.retransmits_known = true;
        }
        if (!number(member(end, "cpu_utilization_percent", "host_total"), &r.cpu))
                r.cpu = -1;
        *ret = r;
        q = 0;
out:
        json_object_put(root);
        json_tokener_free(tok);
        return q;
}

typedef struct Credentials {
        bool drop;
        uid_t uid;
        gid_t gid;
        const char *name;
} Credentials;

/*
 * Root's child runs without privilege: iperf3 parses what a network peer sends (CVE-2023-38403).
 * As IPERF_USER, a user of its own, so that no other process can ptrace it (a process of the same
 * uid could: it is dumpable again after exec), if it is one to run as (not root's uid or group,
 * not nobody's uid); as nobody where it is not, which the experiment says. Looked up once.
 */
static const Credentials *credentials(void) {
        static Credentials cred;
        static bool known;
        struct passwd *pw;

        if (known || geteuid() != 0)
                return &cred;
        known = true;
        pw = getpwnam(IPERF_USER);
        if (pw && pw->pw_uid != 0 && pw->pw_gid != 0)
                cred = (Credentials) { .drop = true, .uid = pw->pw_uid, .gid = pw->pw_gid, .name = IPERF_USER };
        pw = getpwnam("nobody"); /* (the same static buffer: what counts was copied first) */
        if (!cred.drop || (pw && pw->pw_uid == cred.uid))
                cred = (Credentials) { .drop = true, .uid = pw ? pw->pw_uid : 65534, .gid = pw ? pw->pw_gid : 65534, .name = "nobody" };
        return &cred;
}

bool iperf_user_exists(void) {
        return !credentials()->drop || streq(credentials()->name, IPERF_USER);
}

__attribute__((noreturn)) static void child_exec(const IperfRequest *req, const Credentials *cred, int out_fd) {
        static char *const envp[] = { (char *) "PATH=/usr/sbin:/usr/bin:/sbin:/bin", (char *) "LC_ALL=C", NULL };
        char port[16], seconds[16];
        const char *argv[16];
        size_t n = 0;
        int null;

        /* Its own process group: a Ctrl-C reaches the experiment, which stops the test itself. */
        (void) setpgid(0, 0);
        for (int sig = 1; sig < _NSIG; sig++)
                (void) signal(sig, SIG_DFL);
        null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
                _exit(IPERF_EXIT_SETUP);
        /* The checked binary as fd 3, without close-on-exec: a script's interpreter opens it as
         * /dev/fd/3 (an ELF binary leaves it unused). */
        if (req->binary_fd > 0 && ((req->binary_fd != 3 && dup2(req->binary_fd, 3) < 0) || fcntl(3, F_SETFD, 0) < 0))
                _exit(IPERF_EXIT_SETUP); /* (dup2 onto itself would keep close-on-exec) */
        /* Nothing of ours but these: no lock, no bus connection, no journal. */
        if (close_range(req->binary_fd > 0 ? 4 : 3, ~0U, 0) < 0)
                for (int fd = req->binary_fd > 0 ? 4 : 3; fd < 1024; fd++)
                        (void) close(fd);
        if (cred->drop && (setgroups(0, NULL) < 0 || setresgid(cred->gid, cred->gid, cred->gid) < 0 ||
                           setresuid(cred->uid, cred->uid, cred->uid) < 0))
                _exit(IPERF_EXIT_SETUP);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                _exit(IPERF_EXIT_SETUP);
        snprintf(port, sizeof(port), "%u", req->port ?: 5201);
        snprintf(seconds, sizeof(seconds), "%u", req->seconds);
        argv[n++] = req->binary ?: IPERF_BINARY;
        argv[n++] = "--client";
        argv[n++] = req->host;
        argv[n++] = "--port";
        argv[n++] = port;
        argv[n++] = "--time";
        argv[n++] = seconds;
        argv[n++] = "--json";
        argv[n++] = "--connect-timeout";
        argv[n++] = "3000";
        if (req->bind_dev) {
                argv[n++] = "--bind-dev";
                argv[n++] = req->bind_dev;
        }
        if (req->reverse)
                argv[n++] = "--reverse";
        argv[n] = NULL;
        if (req->binary_fd > 0)
                (void) syscall(SYS_execveat, 3, "", (char *const *) argv, envp, AT_EMPTY_PATH);
        else
                execve(argv[0], (char *const *) argv, envp);
        _exit(127);
}

int iperf_binary_open(const char *path, char *err, size_t size) {
        _cleanup_close_ int fd = -1;
        char link[64], real[PATH_MAX];
        struct stat st;
        ssize_t k;

        if (path[0] != '/')
                return snprintf(err, size, "not an absolute path"), -EINVAL;
        /*
         * Opened once, and that file is what runs (execveat of this fd): a symbolic link in a
         * directory another user controls can be swapped after the check, the file opened here
         * cannot (security review R2). O_PATH: nothing is read; the child hands it to the exec
         * on a descriptor of its own, so this one closes on exec.
         */
        fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0)
                return snprintf(err, size, "%s", strerror(errno)), -errno;
        if (fstat(fd, &st) < 0)
                return snprintf(err, size, "%s", strerror(errno)), -errno;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        k = readlink(link, real, sizeof(real) - 1);
        if (k <= 0 || real[0] != '/')
                return snprintf(err, size, "cannot tell where %s is (%s)", path, k < 0 ? strerror(errno) : "no path"), -EIO;
        real[k] = 0;
        if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
                return snprintf(err, size, "%s is not an executable file", real), -EACCES;
        /* The file, then each directory up to /: root's, and nobody else may change it or swap an entry. */
        for (bool file = true;; file = false) {
                char *slash;

                if (st.st_uid != 0)
                        return snprintf(err, size, "%s belongs to uid %u, not root", real[0] ? real : "/", (unsigned) st.st_uid),
                               -EPERM;
                if ((st.st_mode & 022) && (file || !(st.st_mode & S_ISVTX)))
                        return snprintf(err, size, "another user can write %s", real[0] ? real : "/"), -EPERM;
                slash = strrchr(real, '/');
                if (!slash || (slash == real && !real[1]) || !real[0]) {
                        /* Above stdio, which the child replaces first (and 0 means "none" in IperfRequest). */
                        if (fd <= STDERR_FILENO) {
                                int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
                                if (high < 0)
                                        return snprintf(err, size, "%s", strerror(errno)), -errno;
                                close(fd);
                                fd = high;
                        }
                        return TAKE_FD(fd);
                }
                *slash = 0;
                if (stat(real[0] ? real : "/", &st) < 0)
                        return snprintf(err, size, "%s", strerror(errno)), -errno;
        }
}

int iperf_binary_trusted(const char *path, char *err, size_t size) {
        _cleanup_close_ int fd = iperf_binary_open(path, err, size);

        return fd < 0 ? fd : 0;
}

/*
 * What the child left running behind it (a helper it started in a session of its own, which
 * the group kill misses): reparented to us, the subreaper, and killed and reaped here. Our only
 * children are the runner's.
 */
static void reap_orphans(void) {
        pid_t self = getpid();

        for (unsigned round = 0; round < 100; round++) {
                _cleanup_closedir_ DIR *d = opendir("/proc");
                bool any = false;

                if (!d)
                        return;
                for (struct dirent *de; (de = readdir(d));) {
                        char path[300], buf[512];
                        const char *close_paren;
                        ssize_t k;
                        int ppid, fd;

                        if (!isdigit((unsigned char) de->d_name[0]))
                                continue;
                        snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
                        fd = open(path, O_RDONLY | O_CLOEXEC);
                        if (fd < 0)
                                continue;
                        k = read(fd, buf, sizeof(buf) - 1);
                        close(fd);
                        if (k <= 0)
                                continue;
                        buf[k] = 0;
                        /* "pid (comm) state ppid ...": comm may hold anything, up to the last ')'. */
                        close_paren = strrchr(buf, ')');
                        if (close_paren && sscanf(close_paren + 1, " %*c %d", &ppid) == 1 && ppid == self) {
                                (void) kill(atoi(de->d_name), SIGKILL);
                                any = true;
                        }
                }
                while (waitpid(-1, NULL, WNOHANG) > 0)
                        ;
                if (!any)
                        return;
                nanosleep(&(struct timespec) { .tv_nsec = 10 * 1000 * 1000 }, NULL);
        }
}

/* Collects the child's output until it closes it, the deadline passes or someone interrupts. */
static int collect(int fd, uint64_t deadline, volatile sig_atomic_t *interrupted, char **buf, size_t *len) {
        size_t alloc = 0;

        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                char chunk[16384];
                ssize_t k;

                if (interrupted && *interrupted)
                        return -EINTR;
                if (now_monotonic_usec() > deadline)
                        return -ETIMEDOUT;
                if (poll(&p, 1, 200) < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (!p.revents)
                        continue;
                k = read(fd, chunk, sizeof(chunk));
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return 0;
                if (*len + (size_t) k + 1 > IPERF_OUTPUT_MAX)
                        return -EFBIG;
                if (*len + (size_t) k + 1 > alloc) {
                        size_t want = alloc * 2 > *len + (size_t) k + 1 ? alloc * 2 : *len + (size_t) k + 1;
                        char *b = realloc(*buf, want);
                        if (!b)
                                return -ENOMEM;
                        *buf = b;
                        alloc = want;
                }
                memcpy(*buf + *len, chunk, (size_t) k);
                *len += (size_t) k;
                (*buf)[*len] = 0;
        }
}

int iperf_run(const IperfRequest *req, volatile sig_atomic_t *interrupted, IperfResult *ret, char *err, size_t size) {
        const Credentials *cred = credentials();
        _cleanup_free_ char *out = NULL;
        IperfResult res;
        int fds[2], status = 0, r;
        bool subreaper;
        size_t len = 0;
        pid_t pid;

        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        /* Whatever the child leaves behind comes back to us, not to init (reap_orphans). */
        subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) >= 0;
        pid = fork();
        if (pid < 0) {
                r = -errno;
                close(fds[0]);
                close(fds[1]);
                return r;
        }
        if (pid == 0)
                child_exec(req, cred, fds[1]);
        (void) setpgid(pid, pid); /* as the child does: whichever runs first, the group exists before any kill */
        close(fds[1]);
        r = collect(fds[0], now_monotonic_usec() + (uint64_t) (req->seconds + IPERF_GRACE_S) * 1000000u, interrupted,
                    &out, &len);
        close(fds[0]);
        if (r < 0)
                (void) kill(-pid, SIGKILL); /* the group: an iperf3 behind a wrapper goes too */
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (subreaper)
                reap_orphans();
        if (r == -ETIMEDOUT)
                snprintf(err, size, "iperf3 did not finish within %u s of its %u s test; stopped", IPERF_GRACE_S, req->seconds);
        if (r < 0)
                return r;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && len == 0) {
                snprintf(err, size, "cannot run %s%s%s (is iperf3 installed%s?)", req->binary ?: IPERF_BINARY,
                         cred->drop ? " as " : "", cred->drop ? cred->name : "", cred->drop ? ", and can every user run it" : "");
                return -ENOENT;
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == IPERF_EXIT_SETUP && len == 0) {
                snprintf(err, size, "cannot start iperf3 without privileges (%s%s%sno new privileges)", cred->drop ? "as " : "",
                         cred->drop ? cred->name : "", cred->drop ? ", " : "");
                return -EPERM;
        }
        r = iperf_parse_json(out ?: "", len, &res, err, size);
        if (r == -EPROTO) {
                /* iperf3's "error" member is the server's or the network's text: no terminal escapes from it. */
                char raw[256];
                (void) strscpy(raw, sizeof(raw), err);
                (void) printable(raw, err, size);
        }
        if (r == -EBADMSG && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
                /* No report at all: an iperf3 that does not know an option says so on stderr, before any JSON. */
                snprintf(err, size, "iperf3 exited with status %d and no report (iperf3 3.10 or later is needed, for --bind-dev)",
                         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        if (r < 0)
                return r;
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                snprintf(err, size, "iperf3 exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
                return -EPROTO;
        }
        *ret = res;
        return 0;
}
