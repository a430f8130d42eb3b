/* estimate.c — per-level cost of compressing a captured stream: one
 * count-only recompress pass per level (recompress.h), each in a child
 * process so its CPU and memory are its own. See estimate.h. */
#include "estimate.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "event.h"
#include "sys.h"

/* ---- the level list ----------------------------------------------------------------- */

static int parse_level(const char *s, const char *end, int *out)
{
    int v = 0;
    if (s == end || end - s > 2)
        return -1;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
    }
    if (v < 1 || v > 22)
        return -1;
    *out = v;
    return 0;
}

int cdch_estimate_parse_levels(const char *spec, cdch_estimate_opts *o, cdch_err *err)
{
    bool seen[23] = {false};
    o->nlevels = 0;
    const char *p = spec;
    for (;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        const char *dash = memchr(p, '-', (size_t)(end - p));
        int a, b;
        if (dash ? parse_level(p, dash, &a) != 0 || parse_level(dash + 1, end, &b) != 0 || b < a
                 : parse_level(p, end, &a) != 0)
            return cdch_err_set(err,
                                "--levels wants zstd levels 1..22 as a range (1-7), a list (1,3,7,19) or both "
                                "(1-3,7), not '%s'",
                                spec);
        if (!dash)
            b = a;
        for (int l = a; l <= b; l++) {
            if (seen[l])
                return cdch_err_set(err, "--levels '%s' names level %d twice", spec, l);
            seen[l] = true;
            o->levels[o->nlevels++] = l;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

/* ---- one pass, in a child process ----------------------------------------------------- */

/* What a child sends back through its pipe. */
typedef struct est_msg {
    cdch_estimate_level l;
    int rc;
    char msg[CDCH_ERR_MSG_MAX];
} est_msg;

/* The decompression a consumer does, for each payload the pass writes. */
typedef struct est_dec {
    cdch_buf out;
    uint64_t cpu_ns;
    bool bad;
    char msg[CDCH_ERR_MSG_MAX];
} est_dec;

static void on_payload(void *ud, const uint8_t *frame, size_t len, uint64_t uncompressed_len)
{
    est_dec *d = ud;
    if (d->bad)
        return;
    cdch_err err;
    cdch_buf_reset(&d->out);
    uint64_t t0 = cdch_thread_cpu_ns();
    int rc = cdch_zstd_decompress(frame, len, (size_t)uncompressed_len, &d->out, &err);
    d->cpu_ns += cdch_thread_cpu_ns() - t0;
    if (rc != 0 || d->out.len != uncompressed_len) {
        d->bad = true;
        snprintf(d->msg, sizeof d->msg, "a payload written at this level does not decompress to its %llu bytes: %s",
                 (unsigned long long)uncompressed_len, rc != 0 ? err.msg : "size differs");
    }
}

static uint64_t rss_now(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, res = 0;
    if (f) {
        if (fscanf(f, "%llu %llu", &size, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The child's work: one count-only rewrite at `level` (0: uncompressed). */
static void run_pass(const cdch_recompress_input *in, const cdch_estimate_opts *o, int level, est_msg *m)
{
    memset(m, 0, sizeof *m);
    est_dec dec;
    memset(&dec, 0, sizeof dec);
    cdch_recompress_opts ro = {level > 0, level > 0 ? level : 3, o->content_size, 0, o->verify, true, NULL, NULL};
    if (level > 0) {
        ro.on_payload = on_payload;
        ro.on_payload_ud = &dec;
    }
    cdch_recompress_stats st;
    cdch_err err;
    m->l.level = level;
    m->l.rss_start_bytes = rss_now();
    uint64_t t0 = cdch_now_ns();
    m->rc = cdch_recompress(in, NULL, &ro, &st, &err);
    m->l.wall_s = (double)(cdch_now_ns() - t0) / 1e9;
    if (m->rc != 0) {
        snprintf(m->msg, sizeof m->msg, "%s", err.msg);
    } else if (dec.bad) {
        m->rc = -1;
        snprintf(m->msg, sizeof m->msg, "level %d: %s", level, dec.msg);
    }
    m->l.stream_bytes = st.bytes_out;
    m->l.files = st.files;
    m->l.transactions = st.transactions;
    m->l.compressed = st.compressed;
    m->l.row_bytes = st.compressed_in_bytes;
    m->l.row_wire_in = st.compressed_in_wire_bytes;
    m->l.row_wire_out = st.payload_wire_bytes;
    m->l.zstd_bytes = st.compressed_out_bytes;
    m->l.max_transaction_bytes = st.max_transaction_bytes;
    m->l.zstd_cpu_s = (double)st.zstd_cpu_ns / 1e9;
    m->l.decompress_cpu_s = (double)dec.cpu_ns / 1e9;
    cdch_buf_free(&dec.out);
}

static bool write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

static bool read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        c += r;
        n -= (size_t)r;
    }
    return true;
}

/* ---- the passes, jobs at a time --------------------------------------------------------- */

typedef struct est_child {
    pid_t pid;
    int fd;       /* read end of its pipe */
    size_t slot;  /* index into out */
} est_child;

static int start_child(const cdch_recompress_input *in, const cdch_estimate_opts *o, int level, size_t slot,
                       est_child *c, cdch_err *err)
{
    int p[2];
    if (pipe(p) != 0)
        return cdch_err_set(err, "cannot create a pipe for a measuring process: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return cdch_err_set(err, "cannot start a measuring process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(p[0]);
        est_msg *m = malloc(sizeof *m);
        if (!m)
            _exit(3);
        run_pass(in, o, level, m);
        _exit(write_all(p[1], m, sizeof *m) ? 0 : 3);
    }
    close(p[1]);
    c->pid = pid;
    c->fd = p[0];
    c->slot = slot;
    return 0;
}

/* Collect child c: its message, then its rusage. */
static int finish_child(est_child *c, cdch_estimate_level *out, cdch_err *err)
{
    est_msg *m = calloc(1, sizeof *m);
    bool got = m && read_all(c->fd, m, sizeof *m);
    close(c->fd);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(c->pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    int rc = 0;
    if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        rc = cdch_err_set(err, "the measuring process of level %d %s", out[c->slot].level,
                          WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "failed (out of memory?)");
    else if (m->rc != 0)
        rc = cdch_err_set(err, "%s", m->msg);
    if (rc == 0) {
        out[c->slot] = m->l;
        double cpu = cdch_rusage_seconds(&ru);
        out[c->slot].cpu_s = cpu > m->l.decompress_cpu_s ? cpu - m->l.decompress_cpu_s : 0;
        out[c->slot].peak_rss_bytes = (uint64_t)ru.ru_maxrss * 1024u;
    }
    free(m);
    return rc;
}

int cdch_estimate(const cdch_recompress_input *in, const cdch_estimate_opts *o, cdch_estimate_level *out,
                  cdch_err *err)
{
    size_t total = o->nlevels + 1;
    int jobs = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1)
        jobs = 1;
    if (jobs > 16)
        jobs = 16;
    est_child run[16];
    int nrun = 0;
    size_t next = 0, done = 0;
    int rc = 0;
    cdch_err first;
    first.msg[0] = 0;
    for (size_t i = 0; i < total; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].level = i ? o->levels[i - 1] : 0;
    }
    /* The highest levels first: the slowest passes start early. The
     * uncompressed pass (cheap) goes last. */
    size_t order[CDCH_ESTIMATE_MAX_LEVELS + 1];
    for (size_t i = 0; i < total; i++)
        order[i] = i;
    for (size_t i = 0; i < total; i++)
        for (size_t j = i + 1; j < total; j++)
            if (out[order[j]].level > out[order[i]].level) {
                size_t t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    while (done < total) {
        while (rc == 0 && nrun < jobs && next < total) {
            size_t slot = order[next++];
            if (start_child(in, o, out[slot].level, slot, &run[nrun], &first) != 0)
                rc = -1;
            else
                nrun++;
        }
        if (nrun == 0)
            break;
        /* whichever child is done first: its pipe holds its message (or
         * ends, when it died); finish_child then reaps it with its rusage */
        struct pollfd pf[16];
        for (int k = 0; k < nrun; k++)
            pf[k] = (struct pollfd){.fd = run[k].fd, .events = POLLIN};
        if (poll(pf, (nfds_t)nrun, -1) < 0) {
            if (errno == EINTR)
                continue;
            pf[0].revents = POLLIN; /* cannot wait: collect the oldest */
        }
        int k = 0;
        while (k < nrun - 1 && !pf[k].revents)
            k++;
        cdch_err e;
        if (finish_child(&run[k], out, &e) != 0 && rc == 0) {
            rc = -1;
            first = e;
            for (int j = 0; j < nrun; j++) /* the answer is an error: stop the passes still running */
                if (j != k)
                    kill(run[j].pid, SIGTERM);
        }
        if (o->on_done && rc == 0)
            o->on_done(o->on_done_ud, &out[run[k].slot], done + 1, total);
        done++;
        run[k] = run[--nrun];
        if (rc != 0 && nrun == 0)
            break;
    }
    if (rc != 0)
        cdch_err_set(err, "%s", first.msg);
    return rc;
}
