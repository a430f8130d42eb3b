/* test_proc.c — adapter processes (proc.c): stdout split into lines as it
 * arrives, whatever the reads cut it into; /proc/PID/stat read past a command
 * name that holds ") R (" (sys.c, activity.c, proc.c's CPU seconds); a child's private temporary
 * directory, its TMPDIR, removed with it; a daemon that left the child's group and environment,
 * adopted by the harness (subreaper) and killed by cdch_proc_reap_orphans. */
#include "proc.h"
#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "activity.h"
#include "buf.h"
#include "sys.h"

typedef struct got {
    size_t n;
    size_t len[8];
    char *first; /* the first line, copied */
    bool terminated; /* every line had its NUL at line[len] */
} got;

static void on_line(void *ud, const char *line, size_t len)
{
    got *g = ud;
    if (g->n < 8)
        g->len[g->n] = len;
    if (g->n == 0) {
        g->first = malloc(len + 1);
        ck_assert_ptr_nonnull(g->first);
        memcpy(g->first, line, len + 1);
    }
    g->terminated = g->terminated && line[len] == '\0';
    g->n++;
}

/* A 3 MB line written in two halves with a pause between them (many reads, many deliveries, the
 * newline search resumed where it stopped), then a short line, an empty one and a last line
 * without its newline (delivered at exit). */
START_TEST(lines_across_reads)
{
    char *argv[] = {"/bin/sh", "-c",
                    "head -c 1500000 /dev/zero | tr '\\0' a; sleep 0.3; head -c 1500000 /dev/zero | tr '\\0' b; "
                    "printf '\\nshort\\n\\nlast'",
                    NULL};
    cdch_proc_opts o = {argv, NULL, NULL, NULL, false};
    cdch_err err;
    cdch_proc *p = cdch_proc_spawn(&o, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    got g = {0, {0}, NULL, true};
    for (int rounds = 0; rounds < 600 && cdch_proc_pump(p, 100, on_line, &g); rounds++) {
    }
    ck_assert(cdch_proc_exited(p));
    ck_assert_uint_eq(g.n, 4);
    ck_assert_uint_eq(g.len[0], 3000000);
    ck_assert_uint_eq(g.len[1], 5);
    ck_assert_uint_eq(g.len[2], 0);
    ck_assert_uint_eq(g.len[3], 4);
    ck_assert(g.terminated);
    size_t as = strspn(g.first, "a"), bs = strspn(g.first + as, "b");
    ck_assert_uint_eq(as, 1500000);
    ck_assert_uint_eq(bs, 1500000);
    free(g.first);
    cdch_proc_free(p);
}
END_TEST

START_TEST(stat_fields)
{
    ck_assert_str_eq(cdch_proc_stat_fields("12 (java) S 1 12"), "S 1 12");
    ck_assert_str_eq(cdch_proc_stat_fields("12 (a) R (b) D 1 12"), "D 1 12");
    ck_assert_ptr_null(cdch_proc_stat_fields("12 (java"));
    ck_assert_ptr_null(cdch_proc_stat_fields("12 (java)"));
    char buf[8];
    ck_assert_int_eq(cdch_read_small("/nonexistent/stat", buf, sizeof buf), -1);
}
END_TEST

/* A sleeping process whose command name is "x) R (y": its state is read as 'S' (not busy), its
 * CPU seconds are read from the fields after the real ')'. */
START_TEST(stat_of_a_tricky_comm)
{
    char dir[] = "/tmp/cdch-test-proc-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char exe[128];
    snprintf(exe, sizeof exe, "%s/x) R (y", dir);
    ck_assert_int_eq(symlink("/bin/sleep", exe), 0);
    char *argv[] = {exe, "5", NULL};
    cdch_proc_opts o = {argv, NULL, NULL, NULL, false};
    cdch_err err;
    cdch_proc *p = cdch_proc_spawn(&o, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)cdch_proc_pid(p));
    const char *f = NULL;
    for (int i = 0; i < 200; i++) { /* until the exec has given it its name, and it sleeps */
        ck_assert_int_gt(cdch_read_small(path, line, sizeof line), 0);
        f = cdch_proc_stat_fields(line);
        if (strstr(line, "(x) R (y)") && f && f[0] == 'S')
            break;
        usleep(10000);
    }
    ck_assert_msg(strstr(line, "(x) R (y)") != NULL, "%s", line);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f[0], 'S');
    ck_assert(!cdch_activity_busy(cdch_proc_pid(p)));
    double cpu = cdch_proc_cpu_seconds(p);
    ck_assert(cpu >= 0 && cpu < 1);
    cdch_proc_free(p); /* kills and reaps it */
    unlink(exe);
    rmdir(dir);
}
END_TEST

/* A private temporary directory: the child sees it as TMPDIR over the harness's and over one the
 * caller's env gives; what the child leaves in it (here a tree, the child still running) is gone
 * after cdch_proc_free. */
START_TEST(private_tmp_removed_with_the_process)
{
    char dir[] = "/tmp/cdch-test-proc-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("TMPDIR", "/var/tmp", 1);
    char *argv[] = {"/bin/sh", "-c",
                    "mkdir -p \"$TMPDIR/a/b\" && echo left > \"$TMPDIR/a/b/f\" && echo \"$TMPDIR\" && exec sleep 30",
                    NULL};
    char *env[] = {"TMPDIR=/elsewhere", NULL};
    cdch_proc_opts o = {argv, NULL, env, NULL, false, dir};
    cdch_err err;
    cdch_proc *p = cdch_proc_spawn(&o, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    got g = {0, {0}, NULL, true};
    for (int rounds = 0; rounds < 100 && g.n == 0 && cdch_proc_pump(p, 100, on_line, &g); rounds++) {
    }
    ck_assert_uint_eq(g.n, 1);
    ck_assert_str_eq(g.first, dir);
    char f[sizeof dir + 16];
    snprintf(f, sizeof f, "%s/a/b/f", dir);
    ck_assert_int_eq(access(f, F_OK), 0);
    ck_assert(!cdch_proc_exited(p));
    cdch_proc_free(p);
    ck_assert_int_ne(access(dir, F_OK), 0);
    free(g.first);
    unsetenv("TMPDIR");
}
END_TEST

/* The parent pid of pid (/proc/PID/stat field 4), 0 when it has ended (a zombie too). */
static long parent_of(long pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (cdch_read_small(path, line, sizeof line) <= 0)
        return 0;
    const char *f = cdch_proc_stat_fields(line);
    char state;
    long ppid;
    if (!f || sscanf(f, "%c %ld", &state, &ppid) != 2 || state == 'Z' || state == 'X')
        return 0;
    return ppid;
}

/* A daemon as a careful one is made: a new session, stdio on /dev/null, an empty environment (no
 * CDCH_PROC_TOKEN, no TMPDIR: nothing names its adapter). The adapter waits until it has written its
 * pid, then exits. The daemon is then this process's child (it is the subreaper); reaping without
 * killing leaves it running, cdch_proc_reap_orphans(true) kills and reaps it (no zombie left). */
START_TEST(scrubbed_daemon_adopted_and_killed)
{
    char dir[] = "/tmp/cdch-test-proc-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char f[sizeof dir + 16], cmd[1024];
    snprintf(f, sizeof f, "%s/pid", dir);
    snprintf(cmd, sizeof cmd,
             "setsid env -i /bin/sh -c 'echo $$ > %s.tmp && mv %s.tmp %s && exec sleep 60' "
             "</dev/null >/dev/null 2>&1 & while [ ! -s %s ]; do sleep 0.02; done; exit 0",
             f, f, f, f);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    cdch_proc_opts o = {argv, NULL, NULL, NULL, false, NULL};
    cdch_err err;
    cdch_proc *p = cdch_proc_spawn(&o, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    for (int rounds = 0; rounds < 300 && cdch_proc_pump(p, 100, NULL, NULL); rounds++) {
    }
    ck_assert(cdch_proc_exited(p));
    cdch_proc_free(p);
    char buf[64];
    ck_assert_int_gt(cdch_read_small(f, buf, sizeof buf), 0);
    long daemon = strtol(buf, NULL, 10);
    ck_assert_int_gt(daemon, 1);
    ck_assert_msg(parent_of(daemon) == (long)getpid(), "the daemon %ld was adopted by %ld, not by the harness %ld",
                  daemon, parent_of(daemon), (long)getpid());
    ck_assert_uint_eq(cdch_proc_reap_orphans(false), 0);
    ck_assert_msg(parent_of(daemon) == (long)getpid(), "reaping without killing killed the daemon");
    ck_assert_uint_eq(cdch_proc_reap_orphans(true), 1);
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld", daemon);
    ck_assert_msg(access(path, F_OK) != 0, "the daemon %ld is still there (running or a zombie)", daemon);
    unlink(f);
    rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("proc");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, lines_across_reads);
    tcase_add_test(tc, stat_fields);
    tcase_add_test(tc, stat_of_a_tricky_comm);
    tcase_add_test(tc, private_tmp_removed_with_the_process);
    tcase_add_test(tc, scrubbed_daemon_adopted_and_killed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
