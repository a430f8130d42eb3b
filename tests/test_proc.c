/* test_proc.c — adapter processes (proc.c): stdout split into lines as it
 * arrives, whatever the reads cut it into; /proc/PID/stat read past a command
 * name that holds ") R (" (sys.c, activity.c, proc.c's CPU seconds); a child's private temporary
 * directory, its TMPDIR, removed with it; a daemon that left the child's group and environment,
 * adopted by the harness (subreaper) and killed by cdch_proc_reap_orphans; a process tree looked
 * at through the /proc files activity.c keeps open: a descendant born after a look, the clocks, no
 * descriptor left; a leader's exit seen while the child it left holds the pipes open. */
#include "proc.h"
#include "testutil.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
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

/* argv spawned with the harness's environment, stdin /dev/null. */
static cdch_proc *spawn(char **argv)
{
    cdch_proc_opts o = {argv, NULL, NULL, NULL, false};
    cdch_err err;
    cdch_proc *p = cdch_proc_spawn(&o, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    return p;
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
    cdch_proc *p = spawn(argv);
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
    cdch_proc *p = spawn(argv);
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
    ck_assert(!cdch_activity_busy(cdch_proc_activity(p)));
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
    /* the pid file is there once mv renamed it, and mv (the daemon's child) may not have ended yet: on a
     * loaded machine it was still there when the daemon was killed, and then an orphan of its own (2
     * reaped, once under stress-ng). The daemon runs sleep once its shell has waited for mv. */
    char comm_path[64], comm[32] = "";
    snprintf(comm_path, sizeof comm_path, "/proc/%ld/comm", daemon);
    for (int i = 0; i < 1000 && !(cdch_read_small(comm_path, comm, sizeof comm) > 0 && strncmp(comm, "sleep", 5) == 0);
         i++)
        usleep(10000);
    ck_assert_msg(strncmp(comm, "sleep", 5) == 0, "the daemon %ld does not run sleep 10 s after its pid file (%s)",
                  daemon, comm);
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

/* Entries of a directory, less . and .. (-1: cannot open it). */
static int entries(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Descriptors this process has open. */
static int open_fds(void)
{
    int n = entries("/proc/self/fd");
    ck_assert_int_ge(n, 1);
    return n - 1; /* the directory's own */
}

static bool busy_within(cdch_activity *a, double s, bool want)
{
    for (int i = 0; i < (int)(s * 100); i++) {
        if (cdch_activity_busy(a) == want)
            return true;
        usleep(10000);
    }
    return false;
}

/* activity.c keeps a tree's /proc files open between looks. A shell that waits (sleep) is quiet at
 * every look; then it starts a new process that spins: a look must see that descendant, born after
 * the files were opened, as busy (the threads known are all asleep). Its CPU shows in the clocks.
 * Once it is killed the tree is quiet again; the files are closed with the tree, and none is left
 * once the process was reaped. */
START_TEST(activity_sees_a_descendant_born_after_a_look)
{
    int fds0 = open_fds();
    char *argv[] = {"/bin/sh", "-c", "sleep 1.5; /bin/sh -c 'while :; do :; done' & wait", NULL};
    cdch_proc *p = spawn(argv);
    cdch_activity *a = cdch_proc_activity(p);
    ck_assert_ptr_nonnull(a);
    ck_assert_msg(busy_within(a, 1.0, false), "the shell waiting for sleep is never quiet");
    double cpu0, w0;
    cdch_activity_clocks(a, &cpu0, &w0);
    ck_assert(cpu0 >= 0 && w0 >= 0);
    ck_assert_msg(open_fds() > fds0, "no /proc file kept open between looks");
    ck_assert_msg(busy_within(a, 10.0, true), "the spinning grandchild, started after the first looks, is not seen");
    usleep(300000);
    double cpu1, w1;
    cdch_activity_clocks(a, &cpu1, &w1);
    ck_assert_msg(cpu1 > cpu0, "the spinner's CPU is not in the tree's clock (%.2f, then %.2f)", cpu0, cpu1);
    /* the spinner (a child of the shell): killed, the shell's wait returns and it exits */
    char cmd[96];
    snprintf(cmd, sizeof cmd, "pkill -KILL -P %d -f 'while :'", (int)cdch_proc_pid(p));
    ck_assert_int_eq(system(cmd), 0);
    for (int i = 0; i < 500 && cdch_proc_pump(p, 20, NULL, NULL); i++)
        ;
    ck_assert(cdch_proc_exited(p));
    ck_assert_msg(cdch_proc_activity(p) == NULL, "a reaped process still has a tree to look at");
    ck_assert(!cdch_activity_busy(NULL));
    cdch_proc_free(p);
    ck_assert_int_eq(open_fds(), fds0);
}
END_TEST

/* A thread that ends: its kept descriptor fails and is closed (not read as another's); the tree
 * of a process with many threads keeps one set of files per thread, not more at each look. */
START_TEST(activity_files_follow_threads)
{
    int fds0 = open_fds();
    /* 20 threads that end one after another, every 0.1 s, then the process sleeps */
    char *argv[] = {"/usr/bin/python3", "-c",
                    "import threading, time\n"
                    "ts = [threading.Thread(target=time.sleep, args=(0.2 + i / 10,)) for i in range(20)]\n"
                    "[t.start() for t in ts]\n"
                    "print('up', flush=True)\n"
                    "[t.join() for t in ts]\n"
                    "print('down', flush=True)\n"
                    "time.sleep(30)\n",
                    NULL};
    cdch_proc *p = spawn(argv);
    cdch_activity *a = cdch_proc_activity(p);
    got g = {0, {0}, NULL, true};
    for (int i = 0; i < 500 && g.n < 1; i++)
        cdch_proc_pump(p, 20, on_line, &g);
    ck_assert_uint_eq(g.n, 1);
    double cpu, w;
    cdch_activity_clocks(a, &cpu, &w);
    /* schedstat and children of each thread, the process's stat and its task directory */
    ck_assert_msg(open_fds() - fds0 >= 2 * 21 + 2, "%d files kept for 21 threads", open_fds() - fds0);
    cdch_activity_busy(a);
    int up = open_fds();
    for (int i = 0; i < 3; i++) { /* looks again: no new file for a thread already known */
        cdch_activity_clocks(a, &cpu, &w);
        ck_assert_int_le(open_fds(), up);
    }
    for (int i = 0; i < 1000 && g.n < 2; i++) {
        cdch_proc_pump(p, 20, on_line, &g);
        cdch_activity_clocks(a, &cpu, &w);
        cdch_activity_busy(a);
    }
    ck_assert_uint_eq(g.n, 2);
    /* 'down' follows the joins, and a joined Python thread's task can outlive its join for a moment
     * (on a loaded machine, long enough for a look to find it alive: 11 files, once in a CI run): the
     * kernel's own list says when the 20 are gone */
    char task[64];
    snprintf(task, sizeof task, "/proc/%d/task", (int)cdch_proc_pid(p));
    int tasks = -1;
    for (int i = 0; i < 1000 && (tasks = entries(task)) != 1; i++)
        usleep(10000);
    ck_assert_msg(tasks == 1, "%d tasks left 10 s after the joins", tasks);
    cdch_activity_clocks(a, &cpu, &w);
    ck_assert(cpu >= 0 && w >= 0);
    int down = open_fds();
    ck_assert_msg(down - fds0 <= 3 + 3 * 2 + 1, "%d files kept once 20 of 21 threads ended", down - fds0);
    free(g.first);
    cdch_proc_free(p);
    ck_assert_int_eq(open_fds(), fds0);
}
END_TEST

typedef struct order_check {
    cdch_proc *p;
    unsigned long n, bad, first_bad;
    uint64_t err_needed; /* bytes of "E0\n".."E<n>\n" */
} order_check;

static void on_ordered_line(void *ud, const char *line, size_t len)
{
    order_check *o = ud;
    (void)len;
    char e[32];
    o->err_needed += (uint64_t)snprintf(e, sizeof e, "E%lu\n", strtoul(line + 1, NULL, 10));
    if (cdch_proc_stderr_mark(o->p) < o->err_needed && o->bad++ == 0)
        o->first_bad = o->n;
    o->n++;
}

/* A line on stdout is delivered only with what the adapter wrote to stderr before it: a session
 * cell's "ended" is judged with the error line written just before (report's "stderr: ..."). The
 * child writes E<i> to stderr, then O<i> to stdout, 20000 times; at each O<i> the bytes of E0..E<i>
 * must have been read. poll_once once drained stdout until empty, taking lines written after poll
 * returned, and left stderr for the next call when poll had not seen it readable. */
START_TEST(stderr_read_before_the_stdout_line_after_it)
{
    char *argv[] = {"/bin/sh", "-c",
                    "i=0; while [ $i -lt 20000 ]; do printf 'E%d\\n' $i >&2; printf 'O%d\\n' $i; i=$((i+1)); done",
                    NULL};
    cdch_proc *p = spawn(argv);
    order_check oc = {p, 0, 0, 0, 0};
    while (cdch_proc_pump(p, 100, on_ordered_line, &oc))
        ;
    ck_assert_uint_eq(oc.n, 20000);
    ck_assert_msg(oc.bad == 0, "%lu of 20000 stdout lines delivered before the stderr line written ahead of them "
                  "(first: O%lu)", oc.bad, oc.first_bad);
    cdch_proc_free(p);
}
END_TEST

/* The leader exits at once while the child it left in the background keeps stdout and stderr open (no
 * EOF comes): the pump sees the exit by itself (the leader's pidfd in its poll set; waitid where the
 * kernel has no pidfd), ends the process with its status, and leaves no descriptor open. */
START_TEST(leader_exit_seen_while_the_pipes_stay_open)
{
    int fds0 = open_fds();
    char *argv[] = {"/bin/sh", "-c", "sleep 30 & echo up; exit 3", NULL};
    cdch_proc *p = spawn(argv);
    got g = {0, {0}, NULL, true};
    bool running = true;
    for (int i = 0; i < 50 && running; i++) /* ten seconds of pumps; the background sleep holds the pipes 30 */
        running = cdch_proc_pump(p, 200, on_line, &g);
    ck_assert_msg(!running, "the leader's exit was not seen in 50 pumps of 200 ms");
    ck_assert(cdch_proc_exited(p));
    int st = 0, sig = 0;
    cdch_proc_status(p, &st, &sig);
    ck_assert_int_eq(st, 3);
    ck_assert_int_eq(sig, 0);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_str_eq(g.first, "up");
    cdch_proc_free(p);
    free(g.first);
    ck_assert_int_eq(open_fds(), fds0);
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
    tcase_add_test(tc, activity_sees_a_descendant_born_after_a_look);
    tcase_add_test(tc, activity_files_follow_threads);
    tcase_add_test(tc, stderr_read_before_the_stdout_line_after_it);
    tcase_add_test(tc, leader_exit_seen_while_the_pipes_stay_open);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
