/* activity.c — see activity.h. */
#include "activity.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sys.h"
#include "xalloc.h"

#define MAX_PROCS 256 /* processes looked at in one adapter's tree */

/* ---- the descriptors kept open, across every tree ---------------------------------------------- */

static atomic_long g_fds_left;
static pthread_once_t g_fds_once = PTHREAD_ONCE_INIT;

static void fds_init(void)
{
    struct rlimit rl;
    long budget = 256;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        budget = (long)(rl.rlim_cur / 4);
    else if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        budget = 16384;
    atomic_store(&g_fds_left, budget);
}

static bool fd_take(void)
{
    pthread_once(&g_fds_once, fds_init);
    long v = atomic_load(&g_fds_left);
    while (v > 0)
        if (atomic_compare_exchange_weak(&g_fds_left, &v, v - 1))
            return true;
    return false;
}

static void fd_give(void) { atomic_fetch_add(&g_fds_left, 1); }

/* A /proc file read again and again: *fd kept open (-1: not open yet, or over the budget: then it
 * is opened for this read alone). The file's text (NUL-terminated) and its length; -1 when it
 * cannot be read: the task ended (a kept descriptor then is closed). An empty file reads as 0. */
static long read_kept(int *fd, const char *path, char *buf, size_t n)
{
    if (*fd < 0 && fd_take()) {
        *fd = open(path, O_RDONLY | O_CLOEXEC);
        if (*fd < 0) {
            fd_give();
            return -1;
        }
    }
    if (*fd < 0)
        return cdch_read_small(path, buf, n);
    ssize_t r;
    do
        r = pread(*fd, buf, n - 1, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        close(*fd);
        fd_give();
        *fd = -1;
        return -1;
    }
    buf[r] = '\0'; /* empty: a thread without children (an ended one's stat fails: ESRCH) */
    return (long)r;
}

static void close_kept(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        fd_give();
        *fd = -1;
    }
}

/* ---- a tree's processes and their threads ----------------------------------------------------- */

enum { F_STAT, F_SCHED, F_CHILDREN, NFILES };
static const char *const k_file[NFILES] = {"stat", "schedstat", "children"};

typedef struct thread {
    pid_t tid;
    int fd[NFILES];
} thread;

typedef struct proc {
    pid_t pid;
    DIR *task;    /* /proc/PID/task, kept open (NULL: opened for each walk) */
    bool task_kept;
    int fd_stat;  /* /proc/PID/stat (CPU seconds, its waited-for children's included) */
    thread *th;   /* in the order of the task directory */
    size_t nth, cap;
    thread *next; /* the walk's new list (swapped in when the walk read the whole directory) */
    size_t nnext, capnext;
    bool seen;    /* found in the tree by the current walk */
} proc;

struct cdch_activity {
    pid_t root;
    proc *procs;
    size_t n, cap;
};

cdch_activity *cdch_activity_new(pid_t pid)
{
    cdch_activity *a = cdch_xcalloc(1, sizeof *a);
    a->root = pid;
    return a;
}

/* arr (n of *cap elements used) with room for one more. */
static void *grow(void *arr, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return arr;
    *cap = *cap ? 2 * *cap : 16;
    return cdch_xrealloc(arr, *cap * elem);
}

static void thread_close(thread *t)
{
    for (int k = 0; k < NFILES; k++)
        close_kept(&t->fd[k]);
}

static void proc_close(proc *p)
{
    for (size_t i = 0; i < p->nth; i++)
        thread_close(&p->th[i]);
    if (p->task) {
        closedir(p->task);
        if (p->task_kept)
            fd_give();
    }
    close_kept(&p->fd_stat);
    free(p->th);
    free(p->next);
}

void cdch_activity_free(cdch_activity *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++)
        proc_close(&a->procs[i]);
    free(a->procs);
    free(a);
}

/* The tree's entry for pid (made when new). */
static proc *proc_get(cdch_activity *a, pid_t pid)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->procs[i].pid == pid)
            return &a->procs[i];
    a->procs = grow(a->procs, a->n, &a->cap, sizeof *a->procs);
    proc *p = &a->procs[a->n++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->fd_stat = -1;
    return p;
}

/* After a walk that saw the whole tree: processes no longer in it are closed. */
static void procs_prune(cdch_activity *a)
{
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->procs[i].seen)
            a->procs[k++] = a->procs[i];
        else
            proc_close(&a->procs[i]);
    }
    a->n = k;
}

/* The task directory, rewound (kept open within the budget); NULL when the process is gone. */
static DIR *task_dir(proc *p)
{
    if (p->task) {
        rewinddir(p->task);
        return p->task;
    }
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)p->pid);
    p->task = opendir(dir);
    p->task_kept = p->task && fd_take();
    return p->task;
}

static void task_done(proc *p)
{
    if (p->task && !p->task_kept) {
        closedir(p->task);
        p->task = NULL;
    }
}

/* The thread tid in the walk's new list, its files taken over from the old list (they are in the
 * same order, so the search starts where the last one ended: *cur). */
static thread *thread_next(proc *p, pid_t tid, size_t *cur)
{
    p->next = grow(p->next, p->nnext, &p->capnext, sizeof *p->next);
    thread *t = &p->next[p->nnext++];
    for (size_t i = 0; i < p->nth; i++) {
        size_t j = (*cur + i) % p->nth;
        if (p->th[j].tid == tid) {
            *t = p->th[j];
            p->th[j].tid = 0; /* moved */
            *cur = j + 1;
            return t;
        }
    }
    t->tid = tid;
    for (int k = 0; k < NFILES; k++)
        t->fd[k] = -1;
    return t;
}

/* The walk read the whole directory: the new list replaces the old, whose threads that ended are
 * closed. An interrupted walk (a busy thread found) puts what it took back instead:
 * the threads it moved into their old places, new ones at the end. */
static void threads_swap(proc *p, bool whole)
{
    if (!whole) {
        size_t k = 0;
        for (size_t j = 0; j < p->nnext; j++) {
            while (k < p->nth && p->th[k].tid != 0)
                k++;
            if (k < p->nth) {
                p->th[k] = p->next[j];
                continue;
            }
            p->th = grow(p->th, p->nth, &p->cap, sizeof *p->th);
            p->th[p->nth++] = p->next[j];
            k = p->nth;
        }
        p->nnext = 0;
        return;
    }
    for (size_t i = 0; i < p->nth; i++)
        if (p->th[i].tid != 0)
            thread_close(&p->th[i]);
    thread *t = p->th;
    size_t c = p->cap;
    p->th = p->next;
    p->nth = p->nnext;
    p->cap = p->capnext;
    p->next = t;
    p->capnext = c;
    p->nnext = 0;
}

static long thread_read(const proc *p, thread *t, int k, char *buf, size_t n)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)p->pid, (int)t->tid, k_file[k]);
    return read_kept(&t->fd[k], path, buf, n);
}

static bool state_busy(const char *stat_line)
{
    const char *f = cdch_proc_stat_fields(stat_line);
    return f && (f[0] == 'R' || f[0] == 'D');
}

/* A thread's children appended to kids. */
static void children_add(const char *buf, pid_t *kids, size_t *nk)
{
    for (const char *q = buf; *nk < MAX_PROCS;) {
        char *end;
        long k = strtol(q, &end, 10);
        if (end == q)
            break;
        kids[(*nk)++] = (pid_t)k;
        q = end;
    }
}

enum { W_STATE = 1, W_SCHED = 2 };

/* One walk of p's threads as they are now: with W_STATE, stops at the first busy one (returns 1);
 * with W_SCHED, adds their run-queue delay to *waited. Always appends the children of every thread
 * read to kids. 0 when done, -1 when the process is gone. */
static int proc_walk(proc *p, int what, double *waited, pid_t *kids, size_t *nk)
{
    DIR *d = task_dir(p);
    if (!d)
        return -1;
    size_t cur = 0;
    int ret = 0;
    struct dirent *de;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        thread *t = thread_next(p, (pid_t)atoi(de->d_name), &cur);
        char buf[1024];
        if ((what & W_STATE) && thread_read(p, t, F_STAT, buf, sizeof buf) > 0 && state_busy(buf)) {
            ret = 1; /* the answer: the other threads and the descendants need not be read */
            break;
        }
        unsigned long long run_ns, wait_ns;
        if ((what & W_SCHED) && thread_read(p, t, F_SCHED, buf, sizeof buf) > 0 &&
            sscanf(buf, "%llu %llu", &run_ns, &wait_ns) == 2)
            *waited += (double)wait_ns / 1e9;
        if (thread_read(p, t, F_CHILDREN, buf, sizeof buf) > 0)
            children_add(buf, kids, nk);
    }
    threads_swap(p, de == NULL && ret == 0);
    task_done(p);
    return ret;
}

/* The threads known from the last walk (none new): is one of them busy? */
static bool known_busy(cdch_activity *a)
{
    for (size_t i = 0; i < a->n; i++) {
        proc *p = &a->procs[i];
        for (size_t j = 0; j < p->nth; j++) {
            char buf[1024];
            if (p->th[j].fd[F_STAT] >= 0 && thread_read(p, &p->th[j], F_STAT, buf, sizeof buf) > 0 &&
                state_busy(buf))
                return true;
        }
    }
    return false;
}

/* A walk of the whole tree begins: procs holds its root (the walk appends the descendants it
 * finds), and every process known is unseen until the walk reaches it (procs_prune). */
static size_t walk_start(cdch_activity *a, pid_t *procs)
{
    procs[0] = a->root;
    for (size_t i = 0; i < a->n; i++)
        a->procs[i].seen = false;
    return 1;
}

bool cdch_activity_busy(cdch_activity *a)
{
    if (!a)
        return false;
    if (known_busy(a)) /* busy is the safe answer: it only delays a decision */
        return true;
    pid_t procs[MAX_PROCS];
    size_t n = walk_start(a, procs);
    for (size_t i = 0; i < n; i++) {
        proc *p = proc_get(a, procs[i]);
        p->seen = true;
        if (proc_walk(p, W_STATE, NULL, procs, &n) == 1)
            return true; /* an interrupted walk: the processes not reached stay as they were */
    }
    procs_prune(a);
    return false;
}

void cdch_activity_clocks(cdch_activity *a, double *cpu, double *waited)
{
    *cpu = *waited = -1;
    if (!a)
        return;
    pid_t procs[MAX_PROCS];
    size_t n = walk_start(a, procs);
    double csum = 0, wsum = 0;
    for (size_t i = 0; i < n; i++) {
        proc *p = proc_get(a, procs[i]);
        p->seen = true;
        char path[64], buf[1024];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)p->pid);
        double c = read_kept(&p->fd_stat, path, buf, sizeof buf) > 0 ? cdch_proc_stat_line_cpu_seconds(buf) : -1;
        if (c < 0 || proc_walk(p, W_SCHED, &wsum, procs, &n) < 0) {
            if (i == 0) {
                procs_prune(a);
                return; /* the process is gone */
            }
            continue; /* a descendant that just ended: its CPU is its parent's cutime once waited for */
        }
        csum += c;
    }
    procs_prune(a);
    *cpu = csum;
    *waited = wsum;
}

void cdch_own_clock_start(cdch_own_clock *c, double waited, double now)
{
    c->t = now;
    c->waited = waited;
    c->own = 0;
}

double cdch_own_clock_read(cdch_own_clock *c, double waited, double now)
{
    /* a thread that ended takes its delay with it: the sum may go down, never counted as time */
    double lost = waited >= 0 && c->waited >= 0 && waited > c->waited ? waited - c->waited : 0;
    if (now - c->t > lost)
        c->own += now - c->t - lost;
    if (waited >= 0)
        c->waited = waited;
    c->t = now;
    return c->own;
}

void cdch_activity_own_start(cdch_activity *a, cdch_own_clock *c, double now, double *cpu)
{
    double cp, w;
    cdch_activity_clocks(a, &cp, &w);
    cdch_own_clock_start(c, w, now);
    if (cpu)
        *cpu = cp;
}

double cdch_activity_own_read(cdch_activity *a, cdch_own_clock *c, double now, double *cpu)
{
    double cp, w;
    cdch_activity_clocks(a, &cp, &w);
    if (cpu)
        *cpu = cp;
    return cdch_own_clock_read(c, w, now);
}

/* One /proc/net/tcp{,6} file: add the queues of port's connections to *sum;
 * false when the file cannot be read. The file is read whole, in as few
 * read(2)s as it takes: the kernel resumes each read by counting its way back
 * to the last position, so while other sockets open and close a line can
 * come twice at a read boundary. A connection is counted once all the same
 * (an ESTABLISHED 4-tuple is unique; the first 64 of port's are remembered):
 * the server's side by its local address, the consumer's by its remote one. */
static bool tcp_file(const char *path, unsigned port, uint64_t *sum)
{
    cdch_err err;
    size_t len;
    char *text = cdch_read_file(path, 0, &len, &err);
    if (!text)
        return false;
    enum { SEEN_MAX = 64 };
    char seen[SEEN_MAX][2][64];
    size_t nseen = 0;
    char *save = NULL;
    strtok_r(text, "\n", &save); /* the header */
    for (char *line; (line = strtok_r(NULL, "\n", &save)) != NULL;) {
        char local[64], remote[64];
        unsigned st;
        unsigned long tx, rx;
        if (sscanf(line, " %*u: %63s %63s %x %lx:%lx", local, remote, &st, &tx, &rx) != 5 || st != 0x01)
            continue; /* not ESTABLISHED */
        const char *lp = strrchr(local, ':'), *rp = strrchr(remote, ':');
        if (!lp || !rp)
            continue;
        bool server = strtoul(lp + 1, NULL, 16) == port, client = strtoul(rp + 1, NULL, 16) == port;
        if (!server && !client)
            continue;
        bool dup = false;
        for (size_t i = 0; i < nseen && !dup; i++)
            dup = strcmp(seen[i][0], local) == 0 && strcmp(seen[i][1], remote) == 0;
        if (dup)
            continue;
        if (nseen < SEEN_MAX) {
            memcpy(seen[nseen][0], local, sizeof local);
            memcpy(seen[nseen][1], remote, sizeof remote);
            nseen++;
        }
        if (server)
            *sum += tx; /* the server's side: sent, not yet acknowledged */
        if (client)
            *sum += rx; /* the consumer's side: received, not yet read */
    }
    free(text);
    return true;
}

uint64_t cdch_activity_tcp_pending(uint16_t port)
{
    uint64_t sum = 0;
    if (!tcp_file("/proc/net/tcp", port, &sum))
        return UINT64_MAX;
    tcp_file("/proc/net/tcp6", port, &sum); /* may not exist without IPv6 */
    return sum;
}
