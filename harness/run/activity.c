/* activity.c — see activity.h. */
#include "activity.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys.h"

#define MAX_PROCS 256 /* processes looked at in one adapter's tree */

/* The state letter of /proc/.../stat, '?' when unreadable. */
static char stat_state(const char *path)
{
    char buf[512];
    if (cdch_read_small(path, buf, sizeof buf) <= 0)
        return '?';
    const char *f = cdch_proc_stat_fields(buf);
    return f ? f[0] : '?';
}

/* pid's children (every thread's), appended to kids. */
static void proc_children(pid_t pid, pid_t *kids, size_t *nk)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[128], buf[1024];
        snprintf(path, sizeof path, "%s/%s/children", dir, de->d_name);
        if (cdch_read_small(path, buf, sizeof buf) > 0) {
            for (char *p = buf, *end; *nk < MAX_PROCS; p = end) {
                long k = strtol(p, &end, 10);
                if (end == p)
                    break;
                kids[(*nk)++] = (pid_t)k;
            }
        }
    }
    closedir(d);
}

/* Whether a thread of pid is busy; else appends pid's children to kids. */
static bool proc_busy(pid_t pid, pid_t *kids, size_t *nk)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool busy = false;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && !busy) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[128];
        snprintf(path, sizeof path, "%s/%s/stat", dir, de->d_name);
        char st = stat_state(path);
        busy = st == 'R' || st == 'D'; /* the answer: the other threads and the descendants need not be read */
    }
    closedir(d);
    if (!busy)
        proc_children(pid, kids, nk);
    return busy;
}

bool cdch_activity_busy(pid_t pid)
{
    pid_t procs[MAX_PROCS];
    size_t n = 0;
    procs[n++] = pid;
    bool busy = false;
    for (size_t i = 0; i < n && !busy; i++)
        busy = proc_busy(procs[i], procs, &n);
    return busy;
}

double cdch_activity_cpu_seconds(pid_t pid)
{
    pid_t procs[MAX_PROCS];
    size_t n = 0;
    procs[n++] = pid;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)procs[i]);
        double cpu = cdch_proc_stat_cpu_seconds(path);
        if (cpu < 0) {
            if (i == 0)
                return -1;
            continue; /* a descendant that just ended: its CPU is its parent's cutime once waited for */
        }
        sum += cpu;
        proc_children(procs[i], procs, &n);
    }
    return sum;
}

/* The run-queue wait (schedstat's second field, ns) of every thread of pid
 * added to *sum; pid's children appended to kids. */
static bool proc_waited(pid_t pid, double *sum, pid_t *kids, size_t *nk)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[128], buf[128];
        snprintf(path, sizeof path, "%s/%s/schedstat", dir, de->d_name);
        unsigned long long run_ns, wait_ns;
        if (cdch_read_small(path, buf, sizeof buf) > 0 && sscanf(buf, "%llu %llu", &run_ns, &wait_ns) == 2)
            *sum += (double)wait_ns / 1e9;
    }
    closedir(d);
    proc_children(pid, kids, nk);
    return true;
}

double cdch_activity_waited_seconds(pid_t pid)
{
    pid_t procs[MAX_PROCS];
    size_t n = 0;
    procs[n++] = pid;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        if (!proc_waited(procs[i], &sum, procs, &n) && i == 0)
            return -1;
    return sum;
}

void cdch_own_clock_start(cdch_own_clock *c, pid_t pid, double now)
{
    c->t = now;
    c->waited = cdch_activity_waited_seconds(pid);
    c->own = 0;
}

double cdch_own_clock_read(cdch_own_clock *c, pid_t pid, double now)
{
    double w = cdch_activity_waited_seconds(pid);
    /* a thread that ended takes its delay with it: the sum may go down, never counted as time */
    double lost = w >= 0 && c->waited >= 0 && w > c->waited ? w - c->waited : 0;
    if (now - c->t > lost)
        c->own += now - c->t - lost;
    if (w >= 0)
        c->waited = w;
    c->t = now;
    return c->own;
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
