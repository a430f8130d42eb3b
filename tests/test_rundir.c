/* test_rundir.c — the run's temporary directory (rundir.c): made with an
 * owner file; a sweep removes the run directories whose owner is gone (a
 * dead pid, a zombie, or a live pid whose start time is not the owner's: reused), and
 * nothing else: a live owner's, one without or with an unreadable owner
 * file (kept with --keep-streams, an older harness's), a name without the
 * prefix, a plain file. Before it removes a dead owner's directory, it kills
 * the adapters whose TMPDIR lies inside it, and no other process. */
#include "rundir.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "setup.h"
#include "sys.h"

static void make_dir(const char *parent, const char *name, const char *owner)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", parent, name);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/%s/streams", parent, name);
    ck_assert_int_eq(mkdir(p, 0700), 0); /* something inside: the sweep removes the tree */
    if (!owner)
        return;
    snprintf(p, sizeof p, "%s/%s/%s", parent, name, CDCH_RUNDIR_OWNER);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(owner, f);
    fclose(f);
}

static bool exists(const char *parent, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", parent, name);
    struct stat st;
    return lstat(p, &st) == 0;
}

/* A pid that is certainly gone: a child reaped. */
static long dead_pid(void)
{
    pid_t c = fork();
    if (c == 0)
        _exit(0);
    ck_assert_int_gt(c, 0);
    int st;
    ck_assert_int_eq(waitpid(c, &st, 0), c);
    return (long)c;
}

START_TEST(sweep_removes_only_dead_owners_run_dirs)
{
    char parent[] = "/tmp/cdch-test-rundir-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(parent));
    char mine[512];
    cdch_err err;
    ck_assert_int_eq(cdch_rundir_make(parent, mine, sizeof mine, &err), 0);
    const char *mine_name = strrchr(mine, '/') + 1;
    ck_assert(strncmp(mine_name, CDCH_RUNDIR_PREFIX, strlen(CDCH_RUNDIR_PREFIX)) == 0);

    char owner[64], reused[64], ours[64];
    snprintf(owner, sizeof owner, "%ld 12345\n", dead_pid());
    snprintf(reused, sizeof reused, "%ld 1\n", (long)getpid()); /* our pid, another start time */
    char own_path[600];
    snprintf(own_path, sizeof own_path, "%s/%s", mine, CDCH_RUNDIR_OWNER);
    size_t olen = 0;
    char *o = (char *)tu_read_file(own_path, &olen);
    snprintf(ours, sizeof ours, "%s", o);
    free(o);
    ck_assert_int_eq(atol(ours), (long)getpid());

    make_dir(parent, "cdch-run-dead", owner);
    make_dir(parent, "cdch-run-reused", reused);
    make_dir(parent, "cdch-run-live", ours);
    make_dir(parent, "cdch-run-kept", NULL);
    make_dir(parent, "cdch-run-garbled", "not a pid\n");
    make_dir(parent, "other-dead", owner);
    char file[512];
    snprintf(file, sizeof file, "%s/cdch-run-file", parent);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);

    ck_assert_uint_eq(cdch_rundir_sweep(parent), 2);
    ck_assert(!exists(parent, "cdch-run-dead"));
    ck_assert(!exists(parent, "cdch-run-reused"));
    ck_assert(exists(parent, "cdch-run-live"));
    ck_assert(exists(parent, "cdch-run-kept"));
    ck_assert(exists(parent, "cdch-run-garbled"));
    ck_assert(exists(parent, "other-dead"));
    ck_assert(exists(parent, "cdch-run-file"));
    ck_assert(exists(parent, mine_name));

    /* making a run directory sweeps first */
    make_dir(parent, "cdch-run-dead2", owner);
    char second[512];
    ck_assert_int_eq(cdch_rundir_make(parent, second, sizeof second, &err), 0);
    ck_assert(!exists(parent, "cdch-run-dead2"));

    /* kept (--keep-streams): the owner file goes, the directory stays, and no sweep takes it */
    cdch_rundir_release(mine, true);
    ck_assert(exists(parent, mine_name));
    ck_assert_int_ne(access(own_path, F_OK), 0);
    ck_assert_uint_eq(cdch_rundir_sweep(parent), 0);
    ck_assert(exists(parent, mine_name));
    /* released: gone */
    cdch_rundir_release(second, false);
    ck_assert(!exists(parent, strrchr(second, '/') + 1));
    cdch_rm_tree(parent);
}
END_TEST

static unsigned long long stat_start(pid_t pid, char *state)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    ck_assert_int_gt(cdch_read_small(path, line, sizeof line), 0);
    const char *f = cdch_proc_stat_fields(line);
    ck_assert_ptr_nonnull(f);
    *state = *f;
    for (int i = 3; i < 22; i++)
        f = strchr(f, ' ') + 1;
    return strtoull(f, NULL, 10);
}

/* A harness killed with SIGKILL whose parent has not reaped it yet is a zombie: its /proc entry and
 * start time stay, but it owns nothing any more. */
START_TEST(zombie_owner_is_gone)
{
    char parent[] = "/tmp/cdch-test-rundir-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(parent));
    pid_t c = fork();
    if (c == 0) {
        pause();
        _exit(0);
    }
    ck_assert_int_gt(c, 0);
    char state;
    unsigned long long st = stat_start(c, &state);
    char owner[64];
    snprintf(owner, sizeof owner, "%ld %llu\n", (long)c, st);
    make_dir(parent, "cdch-run-alive", owner);
    ck_assert_uint_eq(cdch_rundir_sweep(parent), 0);
    ck_assert(exists(parent, "cdch-run-alive"));
    kill(c, SIGKILL);
    for (int i = 0; i < 500; i++) {
        ck_assert_uint_eq(stat_start(c, &state), st);
        if (state == 'Z')
            break;
        usleep(10000);
    }
    ck_assert_int_eq(state, 'Z');
    ck_assert_uint_eq(cdch_rundir_sweep(parent), 1);
    ck_assert(!exists(parent, "cdch-run-alive"));
    int ws;
    ck_assert_int_eq(waitpid(c, &ws, 0), c);
    cdch_rm_tree(parent);
}
END_TEST

/* An adapter the way the run launches one (proc.h private_tmp): its own
 * TMPDIR=<run dir>/tmp/a-X, spelled through a symlinked parent when via is
 * given (the sweep compares real paths); sleeps until killed. */
static pid_t adapter_in(const char *run_dir, const char *via)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s/tmp", run_dir);
    mkdir(tmp, 0700);
    snprintf(tmp, sizeof tmp, "%s/tmp/a-1", run_dir);
    mkdir(tmp, 0700);
    if (via)
        snprintf(tmp, sizeof tmp, "%s/%s/tmp/a-1", via, strrchr(run_dir, '/') + 1);
    /* a close-on-exec pipe: its write end closes when the child execs, so the
     * parent's read returns EOF once sleep runs with its environment */
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    ck_assert_int_eq(fcntl(fd[1], F_SETFD, FD_CLOEXEC), 0);
    pid_t c = fork();
    if (c == 0) {
        close(fd[0]);
        setenv("TMPDIR", tmp, 1);
        execlp("sleep", "sleep", "60", (char *)NULL);
        _exit(127);
    }
    ck_assert_int_gt(c, 0);
    close(fd[1]);
    char b;
    ssize_t r;
    while ((r = read(fd[0], &b, 1)) != 0)
        ck_assert(r < 0 && errno == EINTR);
    close(fd[0]);
    return c;
}

/* Whether child c ends by SIGKILL within 2 s (reaped then; left running otherwise). */
static bool killed_soon(pid_t c)
{
    int ws;
    for (int i = 0; i < 200; i++) {
        pid_t w = waitpid(c, &ws, WNOHANG);
        if (w == c)
            return WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL;
        usleep(10000);
    }
    kill(c, SIGKILL);
    waitpid(c, &ws, 0);
    return false;
}

/* A harness killed with SIGKILL leaves its adapters running (a session waits on its stdin, a blocked
 * consumer never ends): the sweep that removes its run directory kills them first, and no other. */
START_TEST(sweep_kills_a_dead_owners_adapters_only)
{
    char parent[] = "/tmp/cdch-test-rundir-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(parent));
    char link[600], dead[600], live[600], other[600];
    snprintf(link, sizeof link, "%s-link", parent);
    ck_assert_int_eq(symlink(parent, link), 0);
    cdch_err err;
    ck_assert_int_eq(cdch_rundir_make(parent, live, sizeof live, &err), 0); /* sweeps first: made before */
    char owner[64];
    snprintf(owner, sizeof owner, "%ld 12345\n", dead_pid());
    make_dir(parent, "cdch-run-dead", owner);
    snprintf(dead, sizeof dead, "%s/cdch-run-dead", parent);
    make_dir(parent, "cdch-run-deadx", owner); /* a name that extends the dead one's: not inside it */
    snprintf(other, sizeof other, "%s/cdch-run-deadx", parent);
    ck_assert_int_eq(rmdir(strcat(other, "/streams")), 0);
    snprintf(other, sizeof other, "%s/cdch-run-deadx", parent);
    ck_assert_int_eq(unlink(strcat(other, "/" CDCH_RUNDIR_OWNER)), 0); /* no owner: never swept */
    snprintf(other, sizeof other, "%s/cdch-run-deadx", parent);

    pid_t orphan = adapter_in(dead, NULL), via_link = adapter_in(dead, link);
    pid_t live_one = adapter_in(live, NULL), beside = adapter_in(other, NULL); /* each has exec'd sleep */

    ck_assert_uint_eq(cdch_rundir_sweep(parent), 1);
    ck_assert(!exists(parent, "cdch-run-dead"));
    ck_assert_msg(killed_soon(orphan), "the dead owner's adapter runs on");
    ck_assert_msg(killed_soon(via_link), "the dead owner's adapter (TMPDIR through a symlink) runs on");
    int ws;
    ck_assert_int_eq(waitpid(live_one, &ws, WNOHANG), 0); /* a live owner's adapter runs on */
    ck_assert_int_eq(waitpid(beside, &ws, WNOHANG), 0);   /* so does one of cdch-run-deadx */
    kill(live_one, SIGKILL);
    kill(beside, SIGKILL);
    waitpid(live_one, &ws, 0);
    waitpid(beside, &ws, 0);
    unlink(link);
    cdch_rm_tree(parent);
}
END_TEST

START_TEST(unmakeable_parent_is_an_error_naming_it)
{
    char out[512];
    cdch_err err;
    ck_assert_int_ne(cdch_rundir_make("/nonexistent-cdch-parent", out, sizeof out, &err), 0);
    ck_assert_msg(strstr(err.msg, "/nonexistent-cdch-parent/cdch-run-") != NULL, "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "set TMPDIR") != NULL, "%s", err.msg);
    ck_assert_str_eq(out, "");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("rundir");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, sweep_removes_only_dead_owners_run_dirs);
    tcase_add_test(tc, zombie_owner_is_gone);
    tcase_add_test(tc, sweep_kills_a_dead_owners_adapters_only);
    tcase_add_test(tc, unmakeable_parent_is_an_error_naming_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
