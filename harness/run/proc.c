/* proc.c — fork/exec in a new process group, non-blocking pipes, poll. */
#define _GNU_SOURCE /* pipe2, close_range */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "activity.h"
#include "buf.h"
#include "setup.h"
#include "sys.h"
#include "xalloc.h"

extern char **environ;

static volatile sig_atomic_t g_interrupted;

void cdch_proc_interrupt(void) { g_interrupted = 1; }
bool cdch_proc_interrupted(void) { return g_interrupted != 0; }

struct cdch_proc {
    pid_t pid;
    int in_fd;          /* stdin pipe (stdin_pipe), -1 when closed or /dev/null */
    int out_fd, err_fd; /* -1 once at EOF */
    uint64_t err_total; /* stderr bytes read so far */
    bool exited;        /* reaped */
    int status, signal;
    cdch_buf out;       /* partial stdout line */
    size_t out_scanned; /* leading bytes of out already searched for '\n' (none there) */
    cdch_buf err;       /* stderr tail (up to 2x the tail size, trimmed) */
    FILE *stderr_copy;
    uint64_t copied;    /* bytes written to stderr_copy since it was set */
    uint64_t out_total, out_limit; /* stdout bytes since the limit was set; the limit (0: none) */
    bool flooded;       /* stdout went past out_limit: no longer read */
    uint64_t delivered; /* stdout lines handed to the caller so far */
    char token[64];     /* CDCH_PROC_TOKEN=... in the environment of the child and its descendants */
    double cpu_s;       /* once reaped: its user + system CPU seconds (wait4), descendants it waited for included */
    bool stop_forced;   /* cdch_proc_stop: it outlived the grace (SIGKILL) */
    double stop_own_s;  /* cdch_proc_stop: its own seconds from SIGTERM to its exit or the SIGKILL */
    char *private_tmp;  /* owned: opts.private_tmp, removed by cdch_proc_free */
    cdch_activity *act; /* owned: its tree's /proc files (activity.h), made at the first look, closed once reaped */
    int pidfd;          /* owned: the leader's pidfd, readable once it exited (-1: none, waitid asks instead) */
    bool leader_exited; /* its pidfd was seen readable (the leader exited, not reaped yet) */
};

static unsigned long g_token_seq; /* per harness process; under g_token_lock */
static pthread_mutex_t g_token_lock = PTHREAD_MUTEX_INITIALIZER;

/* The children cdch_proc_spawn made and has not reaped yet: every other child
 * of this process is an orphan it adopted as subreaper (proc.h). Under
 * g_kids_lock, which is held from the fork to the entry, so a scan of the
 * children never sees a spawned child it does not know. */
static pthread_mutex_t g_kids_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t *g_kids;
static size_t g_nkids, g_capkids;
static pthread_once_t g_subreaper_once = PTHREAD_ONCE_INIT;

static void become_subreaper(void) { (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

static void kids_add_locked(pid_t pid)
{
    if (g_nkids == g_capkids) {
        g_capkids = g_capkids ? 2 * g_capkids : 64;
        g_kids = cdch_xrealloc(g_kids, g_capkids * sizeof *g_kids);
    }
    g_kids[g_nkids++] = pid;
}

static void kids_remove(pid_t pid)
{
    pthread_mutex_lock(&g_kids_lock);
    for (size_t i = 0; i < g_nkids; i++)
        if (g_kids[i] == pid) {
            g_kids[i] = g_kids[--g_nkids];
            break;
        }
    pthread_mutex_unlock(&g_kids_lock);
}

static bool kids_has_locked(pid_t pid)
{
    for (size_t i = 0; i < g_nkids; i++)
        if (g_kids[i] == pid)
            return true;
    return false;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool has_name(char *const *env, const char *entry)
{
    const char *eq = strchr(entry, '=');
    size_t n = eq ? (size_t)(eq - entry) : strlen(entry);
    for (size_t i = 0; env && env[i]; i++)
        if (strncmp(env[i], entry, n) == 0 && env[i][n] == '=')
            return true;
    return false;
}

static const char *env_get(char *const *env, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; env && env[i]; i++)
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
            return env[i] + n + 1;
    return getenv(name);
}

/* Resolve a bare command name through PATH. */
static int resolve(const char *name, char *const *env, char *out, size_t outsz, cdch_err *err)
{
    if (strchr(name, '/')) {
        snprintf(out, outsz, "%s", name);
        return 0;
    }
    const char *path = env_get(env, "PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    const char *p = path;
    while (*p) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        snprintf(out, outsz, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
        if (access(out, X_OK) == 0)
            return 0;
        p += n;
        if (*p == ':')
            p++;
    }
    return cdch_err_set(err, "cannot run '%s': not found in PATH (%s)", name, path);
}

/* The child's environment: the harness's minus the names o->env sets, plus
 * o->env (the strings are borrowed). NULL when out of memory. */
/* tmpdir: "TMPDIR=<private_tmp>" or NULL; it replaces any other TMPDIR. */
static char **child_env(const cdch_proc_opts *o, char *token, char *tmpdir)
{
    size_t n = 0, k = 0;
    while (environ && environ[n])
        n++;
    while (o->env && o->env[k])
        k++;
    char **envp = cdch_xcalloc(n + k + 3, sizeof *envp);
    size_t e = 0;
    for (size_t i = 0; i < n; i++)
        if (!has_name(o->env, environ[i]) && strncmp(environ[i], "CDCH_PROC_TOKEN=", 16) != 0 &&
            !(tmpdir && strncmp(environ[i], "TMPDIR=", 7) == 0))
            envp[e++] = environ[i];
    for (size_t i = 0; i < k; i++)
        if (!(tmpdir && strncmp(o->env[i], "TMPDIR=", 7) == 0))
            envp[e++] = o->env[i];
    if (tmpdir)
        envp[e++] = tmpdir;
    envp[e++] = token;
    envp[e] = NULL;
    return envp;
}

/* Whether the environment holds the entry ud (a NUL-terminated
 * "CDCH_PROC_TOKEN=..." string) exactly. */
static bool env_has_entry(const char *env, size_t len, void *ud)
{
    const char *entry = ud;
    size_t tl = strlen(entry) + 1; /* with its NUL: an exact entry */
    for (size_t i = 0; i + tl <= len;) { /* entries are NUL-separated */
        if (memcmp(env + i, entry, tl) == 0)
            return true;
        const char *nul = memchr(env + i, '\0', len - i);
        if (!nul)
            break;
        i = (size_t)(nul - env) + 1;
    }
    return false;
}

/* Every process whose environment holds p->token (the adapter's
 * descendants, also those that left its process group with setsid or
 * setpgid and outlived it): SIGKILL, until none is left (bounded). */
static void sweep_descendants(const cdch_proc *p)
{
    cdch_kill_by_environ(env_has_entry, (void *)p->token, 5, 20);
}

/* The pipes of a spawn: the child's stdout and stderr, the one its exec
 * failure is reported on, and its stdin (stdin_pipe only). */
enum { PIPE_OUT, PIPE_ERR, PIPE_EXEC, PIPE_IN, NPIPES };

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Open them all close-on-exec (PIPE_IN only with stdin_pipe: else -1); on
 * failure none is left open. */
static int open_pipes(int pp[NPIPES][2], bool stdin_pipe, cdch_err *err)
{
    for (int i = 0; i < NPIPES; i++)
        pp[i][0] = pp[i][1] = -1;
    for (int i = 0; i < NPIPES; i++) {
        if (i == PIPE_IN && !stdin_pipe)
            continue;
        if (pipe2(pp[i], O_CLOEXEC) != 0) {
            int e = errno;
            pp[i][0] = pp[i][1] = -1;
            for (int k = 0; k < i; k++) {
                close_fd(&pp[k][0]);
                close_fd(&pp[k][1]);
            }
            return cdch_err_set(err, "pipe: %s", strerror(e));
        }
    }
    return 0;
}

/* In the child (async-signal-safe calls only): its own process group, a
 * clean signal state (the harness may ignore SIGPIPE and block signals in
 * threads), cwd, stdin/stdout/stderr, exec. What failed is written as an
 * errno on the PIPE_EXEC pipe. */
static _Noreturn void exec_child(const cdch_proc_opts *o, const char *exe, char **envp, int stdin_fd,
                                 int pp[NPIPES][2])
{
    int code;
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (o->cwd && chdir(o->cwd) != 0)
        goto fail;
    if (stdin_fd >= 0 && dup2(stdin_fd, 0) < 0)
        goto fail;
    if (dup2(pp[PIPE_OUT][1], 1) < 0 || dup2(pp[PIPE_ERR][1], 2) < 0)
        goto fail;
    /* The adapter gets stdin/stdout/stderr and nothing else: a descriptor the harness opened
     * without close-on-exec (another cell's log, a library's socket) must not live on in it.
     * The exec-status pipe stays (it is close-on-exec). close_range is a system call: safe
     * between fork and exec in a threaded parent; where it is missing, O_CLOEXEC everywhere
     * in the harness is the line of defence. */
    int keep = pp[PIPE_EXEC][1];
    if (keep > 3)
        close_range(3, (unsigned)keep - 1, 0);
    close_range((unsigned)keep + 1, ~0u, 0);
    execve(exe, o->argv, envp);
fail:
    code = errno;
    if (write(pp[PIPE_EXEC][1], &code, sizeof code) < 0) {
        /* nothing more we can do */
    }
    _exit(127);
}

/* In the parent: the child's errno from the PIPE_EXEC pipe (0: the exec
 * succeeded and closed it unread). */
static int exec_errno(int fd)
{
    int code = 0;
    ssize_t r;
    do {
        r = read(fd, &code, sizeof code);
    } while (r < 0 && errno == EINTR);
    return r == (ssize_t)sizeof code ? code : 0;
}

static void set_nonblock(int fd)
{
    if (fd >= 0)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* A pidfd of our child pid (close-on-exec, as every pidfd), or -1 where the
 * kernel has none (before Linux 5.3): then waitid is asked at every wake. The
 * child is not reaped before its cdch_proc is, so the pid is still its own. */
static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

cdch_proc *cdch_proc_spawn(const cdch_proc_opts *o, cdch_err *err)
{
    if (!o->argv || !o->argv[0]) {
        cdch_err_set(err, "empty command");
        return NULL;
    }
    char exe[PATH_MAX];
    if (resolve(o->argv[0], o->env, exe, sizeof exe, err) != 0)
        return NULL;
    char token[64];
    pthread_mutex_lock(&g_token_lock);
    unsigned long seq = ++g_token_seq;
    pthread_mutex_unlock(&g_token_lock);
    snprintf(token, sizeof token, "CDCH_PROC_TOKEN=%ld.%lu", (long)getpid(), seq);
    char *tmpdir = NULL;
    if (o->private_tmp) {
        size_t tl = strlen(o->private_tmp);
        tmpdir = cdch_xcalloc(tl + 8, 1);
        memcpy(tmpdir, "TMPDIR=", 7);
        memcpy(tmpdir + 7, o->private_tmp, tl);
    }
    char **envp = child_env(o, token, tmpdir);
    int pp[NPIPES][2];
    if (open_pipes(pp, o->stdin_pipe, err) != 0) {
        free(envp);
        free(tmpdir);
        return NULL;
    }
    int stdin_fd = o->stdin_pipe ? pp[PIPE_IN][0] : open("/dev/null", O_RDONLY | O_CLOEXEC);
    pthread_once(&g_subreaper_once, become_subreaper);
    pthread_mutex_lock(&g_kids_lock);
    pid_t pid = fork();
    if (pid == 0)
        exec_child(o, exe, envp, stdin_fd, pp);
    int fork_errno = errno;
    if (pid > 0)
        kids_add_locked(pid);
    pthread_mutex_unlock(&g_kids_lock);
    free(envp);
    free(tmpdir);
    if (stdin_fd >= 0)
        close(stdin_fd); /* the /dev/null or the stdin pipe's read end */
    pp[PIPE_IN][0] = -1;
    close_fd(&pp[PIPE_OUT][1]);
    close_fd(&pp[PIPE_ERR][1]);
    close_fd(&pp[PIPE_EXEC][1]);
    int code = 0;
    if (pid < 0) {
        cdch_err_set(err, "fork: %s", strerror(fork_errno));
    } else {
        setpgid(pid, pid); /* also in the parent: no race with an early kill */
        code = exec_errno(pp[PIPE_EXEC][0]);
    }
    close_fd(&pp[PIPE_EXEC][0]);
    cdch_proc *p = NULL;
    if (pid > 0 && code) {
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        kids_remove(pid);
        cdch_err_set(err, "cannot run '%s'%s%s: %s", exe, o->cwd ? " in " : "", o->cwd ? o->cwd : "", strerror(code));
    } else if (pid > 0) {
        p = cdch_xcalloc(1, sizeof *p);
    }
    if (!p) {
        close_fd(&pp[PIPE_OUT][0]);
        close_fd(&pp[PIPE_ERR][0]);
        close_fd(&pp[PIPE_IN][1]);
        return NULL;
    }
    p->pid = pid;
    p->pidfd = pidfd_of(pid);
    p->in_fd = pp[PIPE_IN][1];
    p->out_fd = pp[PIPE_OUT][0];
    p->err_fd = pp[PIPE_ERR][0];
    p->status = -1;
    p->stderr_copy = o->stderr_copy;
    p->private_tmp = o->private_tmp ? cdch_xstrdup(o->private_tmp) : NULL;
    snprintf(p->token, sizeof p->token, "%s", token);
    set_nonblock(p->out_fd);
    set_nonblock(p->in_fd);
    set_nonblock(p->err_fd);
    return p;
}

static void deliver(cdch_proc *p, cdch_proc_line_fn fn, void *ud, bool final)
{
    /* a line of many megabytes arrives in many reads: search only the bytes not searched yet */
    size_t start = 0, from = p->out_scanned < p->out.len ? p->out_scanned : p->out.len;
    char *data = (char *)p->out.data;
    char *nl;
    while (from < p->out.len && (nl = memchr(data + from, '\n', p->out.len - from)) != NULL) {
        size_t i = (size_t)(nl - data);
        data[i] = '\0';
        if (fn)
            fn(ud, data + start, i - start);
        p->delivered++;
        start = from = i + 1;
    }
    if (final && start < p->out.len) {
        cdch_buf_cstr(&p->out);
        data = (char *)p->out.data;
        if (fn)
            fn(ud, data + start, p->out.len - start);
        start = p->out.len;
    }
    if (start) {
        memmove(p->out.data, p->out.data + start, p->out.len - start);
        p->out.len -= start;
    }
    p->out_scanned = p->out.len;
}

/* stderr to the caller's copy, at most CDCH_PROC_STDERR_COPY_MAX bytes per
 * copy (then one line says where it stopped). */
static void copy_stderr(cdch_proc *p, const char *buf, size_t n)
{
    if (!p->stderr_copy || p->copied > CDCH_PROC_STDERR_COPY_MAX)
        return;
    size_t room = CDCH_PROC_STDERR_COPY_MAX - (size_t)p->copied;
    fwrite(buf, 1, n < room ? n : room, p->stderr_copy);
    p->copied += n;
    if (p->copied > CDCH_PROC_STDERR_COPY_MAX)
        fprintf(p->stderr_copy, "\n[cdcharness: the adapter wrote more than %d MiB to stderr; the copy stops here]\n",
                CDCH_PROC_STDERR_COPY_MAX >> 20);
}

/* Read what is available on fd; false at EOF/error (fd closed). */
static bool drain_fd(cdch_proc *p, int *fd, bool is_err)
{
    char buf[65536];
    for (int rounds = 0; rounds < 64; rounds++) {
        ssize_t r = read(*fd, buf, sizeof buf);
        if (r > 0) {
            if (is_err) {
                p->err_total += (uint64_t)r;
                copy_stderr(p, buf, (size_t)r);
                cdch_put_bytes(&p->err, buf, (size_t)r);
                if (p->err.len > 2 * CDCH_PROC_STDERR_TAIL) {
                    size_t keep = CDCH_PROC_STDERR_TAIL;
                    memmove(p->err.data, p->err.data + p->err.len - keep, keep);
                    p->err.len = keep;
                }
            } else {
                p->out_total += (uint64_t)r;
                if (p->out_limit && p->out_total > p->out_limit) {
                    /* a flood: stop reading (the partial line goes too); the caller stops the adapter */
                    p->flooded = true;
                    cdch_buf_reset(&p->out);
                    p->out_scanned = 0;
                    close(*fd);
                    *fd = -1;
                    return false;
                }
                cdch_put_bytes(&p->out, buf, (size_t)r);
            }
            continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        if (r < 0 && errno == EINTR)
            continue;
        close(*fd);
        *fd = -1;
        return false;
    }
    return true;
}

/* Wait for readable pipes up to ms; read them. */
static void poll_once(cdch_proc *p, int ms, cdch_proc_line_fn fn, void *ud)
{
    struct pollfd fds[3];
    int nf = 0, leader = -1;
    if (p->out_fd >= 0)
        fds[nf++] = (struct pollfd){p->out_fd, POLLIN, 0};
    if (p->err_fd >= 0)
        fds[nf++] = (struct pollfd){p->err_fd, POLLIN, 0};
    if (p->pidfd >= 0 && !p->leader_exited) {
        /* the leader's exit wakes the poll too: known without a waitid at every wake */
        leader = nf;
        fds[nf++] = (struct pollfd){p->pidfd, POLLIN, 0};
    }
    if (nf == 0) {
        if (ms > 0) {
            struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        return;
    }
    int r = poll(fds, (nfds_t)nf, ms);
    if (r <= 0)
        return;
    if (leader >= 0 && fds[leader].revents)
        p->leader_exited = true;
    if (p->out_fd >= 0 && fds[0].fd == p->out_fd && fds[0].revents)
        drain_fd(p, &p->out_fd, false);
    /* stderr after stdout, whether poll saw it readable or not: drain_fd reads stdout until it is empty,
     * so it may take lines the adapter wrote after poll returned, and what the adapter wrote to stderr
     * before them must be read before they are delivered (a session cell's "ended" would otherwise be
     * judged without the error line it wrote just before) */
    if (p->err_fd >= 0)
        drain_fd(p, &p->err_fd, true);
    deliver(p, fn, ud, false);
}

/* Has the leader exited? (not reaped: its pid keeps the group id reserved)
 * Asked of the kernel now: its pidfd polled, or waitid. */
static bool leader_gone(cdch_proc *p)
{
    if (p->leader_exited)
        return true;
    if (p->pidfd >= 0) {
        struct pollfd f = {p->pidfd, POLLIN, 0};
        if (poll(&f, 1, 0) == 1 && f.revents)
            p->leader_exited = true;
        return p->leader_exited;
    }
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD;
    return si.si_pid == p->pid;
}

/* Leader exited: kill what is left of the group, drain the pipes (bounded), reap. */
static void finish(cdch_proc *p, cdch_proc_line_fn fn, void *ud)
{
    double t0 = now_ms();
    /* let the pipes drain of what the adapter wrote before exiting */
    while ((p->out_fd >= 0 || p->err_fd >= 0) && now_ms() - t0 < 500)
        poll_once(p, 50, fn, ud);
    kill(-p->pid, SIGKILL);
    sweep_descendants(p);
    t0 = now_ms();
    while ((p->out_fd >= 0 || p->err_fd >= 0) && now_ms() - t0 < 1000)
        poll_once(p, 50, fn, ud);
    if (p->out_fd >= 0) {
        close(p->out_fd);
        p->out_fd = -1;
    }
    if (p->err_fd >= 0) {
        close(p->err_fd);
        p->err_fd = -1;
    }
    cdch_proc_close_stdin(p);
    deliver(p, fn, ud, true);
    int st = 0;
    pid_t r;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    do {
        r = wait4(p->pid, &st, 0, &ru);
    } while (r < 0 && errno == EINTR);
    kids_remove(p->pid);
    cdch_proc_reap_orphans(false); /* what the sweep killed, and orphans that ended on their own */
    p->exited = true;
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pidfd = -1;
    cdch_activity_free(p->act); /* its pid may be another process's from now on */
    p->act = NULL;
    p->cpu_s = cdch_rusage_seconds(&ru);
    if (r == p->pid) {
        if (WIFEXITED(st)) {
            p->status = WEXITSTATUS(st);
            p->signal = 0;
        } else if (WIFSIGNALED(st)) {
            p->status = -1;
            p->signal = WTERMSIG(st);
        }
    }
}

bool cdch_proc_pump(cdch_proc *p, int timeout_ms, cdch_proc_line_fn fn, void *ud)
{
    if (p->exited)
        return false;
    double t0 = now_ms();
    uint64_t lines = p->delivered;
    do {
        double left = (double)timeout_ms - (now_ms() - t0);
        int slice = left > 100 ? 100 : left > 0 ? (int)left : 0;
        poll_once(p, slice, fn, ud);
        /* with a pidfd, what that poll saw: the leader's pidfd was in its set (an exit after it returned
         * wakes the next one at once) */
        if (p->pidfd >= 0 ? p->leader_exited : leader_gone(p)) {
            finish(p, fn, ud);
            return false;
        }
    } while (p->delivered == lines && now_ms() - t0 < timeout_ms); /* a line: the caller looks at once */
    return true;
}

void cdch_proc_stop(cdch_proc *p, int grace_ms, cdch_proc_line_fn fn, void *ud)
{
    if (p->exited)
        return;
    kill(-p->pid, SIGTERM);
    /* the grace is the process's own time (waits.h): wall time less what its threads waited for a
     * CPU, so a process starved by the machine's load gets its full grace; bounded by ten graces of
     * wall time (and a minute) so the harness never waits for ever */
    double t0 = now_ms(), own = 0;
    double cap = grace_ms * 10.0 < 60000 ? grace_ms * 10.0 : 60000;
    cdch_own_clock clk;
    cdch_activity_own_start(cdch_proc_activity(p), &clk, t0 / 1e3, NULL);
    bool gone;
    while (!(gone = leader_gone(p)) && own < grace_ms && now_ms() - t0 < cap) {
        poll_once(p, 50, fn, ud);
        own = cdch_activity_own_read(cdch_proc_activity(p), &clk, now_ms() / 1e3, NULL) * 1e3;
    }
    p->stop_forced = !gone && !leader_gone(p);
    p->stop_own_s = own / 1e3;
    finish(p, fn, ud); /* SIGKILLs whatever is left, reaps */
}

bool cdch_proc_stop_forced(const cdch_proc *p, double *own_seconds)
{
    if (own_seconds)
        *own_seconds = p->stop_own_s;
    return p->stop_forced;
}

bool cdch_proc_exited(const cdch_proc *p) { return p->exited; }

pid_t cdch_proc_pid(const cdch_proc *p) { return p->pid; }

cdch_activity *cdch_proc_activity(cdch_proc *p)
{
    if (!p->act && !p->exited)
        p->act = cdch_activity_new(p->pid);
    return p->act;
}

double cdch_proc_cpu_seconds(const cdch_proc *p)
{
    if (p->exited)
        return p->cpu_s;
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)p->pid);
    return cdch_proc_stat_cpu_seconds(path);
}

bool cdch_proc_output_pending(const cdch_proc *p)
{
    int fds[2] = {p->out_fd, p->err_fd};
    for (int i = 0; i < 2; i++) {
        int n = 0;
        if (fds[i] >= 0 && ioctl(fds[i], FIONREAD, &n) == 0 && n > 0)
            return true;
    }
    return false;
}

void cdch_proc_status(const cdch_proc *p, int *status, int *sig)
{
    if (status)
        *status = p->status;
    if (sig)
        *sig = p->signal;
}

const char *cdch_proc_stderr_tail(cdch_proc *p)
{
    if (p->err.len > CDCH_PROC_STDERR_TAIL) {
        size_t keep = CDCH_PROC_STDERR_TAIL;
        memmove(p->err.data, p->err.data + p->err.len - keep, keep);
        p->err.len = keep;
    }
    return cdch_buf_cstr(&p->err);
}


int cdch_proc_send(cdch_proc *p, const char *line, int timeout_ms, cdch_err *err)
{
    if (p->in_fd < 0)
        return cdch_err_set(err, "the adapter's stdin is closed");
    size_t n = strlen(line);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_bytes(&b, line, n);
    cdch_put_bytes(&b, "\n", 1);
    size_t off = 0;
    double t0 = now_ms();
    int rc = 0;
    while (off < b.len) {
        ssize_t w = write(p->in_fd, b.data + off, b.len - off);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            double left = timeout_ms - (now_ms() - t0);
            if (left <= 0) {
                rc = cdch_err_set(err, "the adapter did not read its stdin for %d ms", timeout_ms);
                break;
            }
            struct pollfd pf = {p->in_fd, POLLOUT, 0};
            poll(&pf, 1, left > 100 ? 100 : (int)left + 1);
            continue;
        }
        rc = cdch_err_set(err, "writing to the adapter's stdin: %s", w < 0 ? strerror(errno) : "short write");
        break;
    }
    cdch_buf_free(&b);
    return rc;
}

void cdch_proc_close_stdin(cdch_proc *p)
{
    if (p->in_fd >= 0) {
        close(p->in_fd);
        p->in_fd = -1;
    }
}

void cdch_proc_set_stderr_copy(cdch_proc *p, FILE *f)
{
    p->stderr_copy = f;
    p->copied = 0;
}

void cdch_proc_set_stdout_limit(cdch_proc *p, uint64_t limit)
{
    p->out_limit = limit;
    p->out_total = 0;
}

bool cdch_proc_flooded(const cdch_proc *p) { return p->flooded; }

uint64_t cdch_proc_stdout_bytes(const cdch_proc *p) { return p->out_total; }

uint64_t cdch_proc_stderr_mark(const cdch_proc *p) { return p->err_total; }

const char *cdch_proc_stderr_since(cdch_proc *p, uint64_t mark)
{
    const char *tail = cdch_proc_stderr_tail(p);
    uint64_t since = p->err_total >= mark ? p->err_total - mark : 0;
    if (since >= p->err.len)
        return tail;
    return tail + (p->err.len - (size_t)since);
}

void cdch_proc_free(cdch_proc *p)
{
    if (!p)
        return;
    if (!p->exited)
        cdch_proc_stop(p, 0, NULL, NULL);
    if (p->out_fd >= 0)
        close(p->out_fd);
    if (p->err_fd >= 0)
        close(p->err_fd);
    cdch_proc_close_stdin(p);
    cdch_activity_free(p->act);
    cdch_buf_free(&p->out);
    cdch_buf_free(&p->err);
    if (p->private_tmp)
        cdch_rm_tree(p->private_tmp); /* the child, its group and its descendants are gone (stop, reap) */
    free(p->private_tmp);
    free(p);
}

/* This process's children (every thread's) that cdch_proc_spawn did not make,
 * into out (up to cap); under g_kids_lock. */
static size_t orphans_locked(pid_t *out, size_t cap)
{
    size_t n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < cap) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[128], buf[4096];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", de->d_name);
        if (cdch_read_small(path, buf, sizeof buf) <= 0)
            continue;
        for (char *q = buf, *end; n < cap; q = end) {
            long k = strtol(q, &end, 10);
            if (end == q)
                break;
            if (k > 0 && !kids_has_locked((pid_t)k))
                out[n++] = (pid_t)k;
        }
    }
    closedir(d);
    return n;
}

size_t cdch_proc_reap_orphans(bool kill_them)
{
    size_t done = 0;
    /* killing an orphan makes its own children orphans of this process: a few rounds */
    for (int round = 0; round < (kill_them ? 50 : 1); round++) {
        pid_t o[256];
        /* held throughout: no child is spawned meanwhile, and a listed orphan's pid cannot be reused
         * (only this function reaps orphans), so the kill and the reap reach that orphan alone */
        pthread_mutex_lock(&g_kids_lock);
        size_t n = orphans_locked(o, sizeof o / sizeof *o);
        for (size_t i = 0; i < n; i++) {
            if (kill_them)
                kill(o[i], SIGKILL);
            siginfo_t si;
            memset(&si, 0, sizeof si);
            if (waitid(P_PID, (id_t)o[i], &si, WEXITED | WNOHANG) == 0 && si.si_pid == o[i])
                done++;
        }
        pthread_mutex_unlock(&g_kids_lock);
        if (n == 0)
            break;
        if (kill_them) {
            struct timespec ts = {0, 20 * 1000000L}; /* the SIGKILLs land; the next round reaps them */
            nanosleep(&ts, NULL);
        }
    }
    return done;
}
