/* session.c — session-mode adapters shared by a run's workers (session.h). */
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activity.h"
#include "buf.h"
#include "jsonstr.h"
#include "sys.h"
#include "xalloc.h"

static double mono_s(void) { return (double)cdch_now_ns() / 1e9; }

unsigned cdch_session_default_per_consumer(unsigned cores)
{
    if (cores == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        cores = n > 0 ? (unsigned)n : 1;
    }
    return 3 * cores;
}

void cdch_session_pool_init(cdch_session_pool *sp, size_t nconsumers, unsigned per_consumer, bool strict,
                            unsigned total)
{
    memset(sp, 0, sizeof *sp);
    sp->nconsumers = nconsumers;
    sp->strict = strict;
    sp->live = cdch_xcalloc(nconsumers ? nconsumers : 1, sizeof *sp->live);
    sp->cheap = cdch_xcalloc(nconsumers ? nconsumers : 1, sizeof *sp->cheap);
    memset(sp->cheap, -1, nconsumers);
    sp->cap = total ? total : 1;
    sp->idle = cdch_xcalloc(sp->cap, sizeof *sp->idle);
    sp->per_consumer = per_consumer ? per_consumer : 1;
    sp->total = total ? total : 1;
}

void cdch_session_pool_free(cdch_session_pool *sp)
{
    for (size_t i = 0; i < sp->nidle; i++)
        cdch_session_end(sp->idle[i]);
    free(sp->idle);
    free(sp->live);
    free(sp->cheap);
    memset(sp, 0, sizeof *sp);
}

bool cdch_session_pool_warm(const cdch_session_pool *sp, size_t consumer)
{
    for (size_t i = 0; i < sp->nidle; i++)
        if (sp->idle[i]->consumer == consumer)
            return true;
    return false;
}

/* Whether the bound leaves room to launch one more session of the consumer (a valid index). */
static bool launch_room(const cdch_session_pool *sp, size_t consumer)
{
    unsigned bound = !sp->strict && sp->cheap[consumer] == 1 ? sp->total : sp->per_consumer;
    return sp->live[consumer] < bound;
}

bool cdch_session_pool_may_run(const cdch_session_pool *sp, size_t consumer)
{
    return consumer < sp->nconsumers && (launch_room(sp, consumer) || cdch_session_pool_warm(sp, consumer));
}

bool cdch_session_pool_may_run_for(const cdch_session_pool *sp, size_t consumer, unsigned needed)
{
    if (consumer >= sp->nconsumers)
        return false;
    if (cdch_session_pool_warm(sp, consumer))
        return true; /* no launch */
    return launch_room(sp, consumer) &&
           (sp->live[consumer] == 0 || sp->cheap[consumer] == 1 || sp->live[consumer] < needed);
}

void cdch_session_pool_launch_cost(cdch_session_pool *sp, size_t consumer, double cpu_s)
{
    if (consumer >= sp->nconsumers || cpu_s < 0)
        return;
    if (cpu_s < CDCH_SESSION_CHEAP_LAUNCH_CPU_S)
        sp->cheap[consumer] = 1; /* a launch costs at most that: cheap for good */
    else if (sp->cheap[consumer] == -1)
        sp->cheap[consumer] = 0;
}

static cdch_session *remove_idle(cdch_session_pool *sp, size_t i)
{
    cdch_session *s = sp->idle[i];
    memmove(&sp->idle[i], &sp->idle[i + 1], (sp->nidle - i - 1) * sizeof *sp->idle);
    sp->nidle--;
    return s;
}

cdch_session *cdch_session_pool_take(cdch_session_pool *sp, size_t consumer, cdch_session **evict)
{
    *evict = NULL;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < sp->nidle; i++)
        if (sp->idle[i]->consumer == consumer && (best == SIZE_MAX || sp->idle[i]->used > sp->idle[best]->used))
            best = i;
    if (best != SIZE_MAX)
        return remove_idle(sp, best);
    if (sp->nlive >= sp->total && sp->nidle > 0) {
        size_t lru = 0;
        for (size_t i = 1; i < sp->nidle; i++)
            if (sp->idle[i]->used < sp->idle[lru]->used)
                lru = i;
        *evict = remove_idle(sp, lru);
        sp->live[(*evict)->consumer]--;
        sp->nlive--;
    }
    sp->live[consumer]++;
    sp->nlive++;
    return NULL;
}

void cdch_session_pool_give(cdch_session_pool *sp, cdch_session *s)
{
    s->used = ++sp->tick;
    if (sp->nidle == sp->cap) { /* not while nidle < nlive <= total; kept safe all the same */
        sp->cap *= 2;
        sp->idle = cdch_xrealloc(sp->idle, sp->cap * sizeof *sp->idle);
    }
    sp->idle[sp->nidle++] = s;
}

void cdch_session_pool_gone(cdch_session_pool *sp, size_t consumer)
{
    if (consumer < sp->nconsumers && sp->live[consumer] > 0) {
        sp->live[consumer]--;
        sp->nlive--;
    }
}

cdch_session *cdch_session_pool_pop(cdch_session_pool *sp, size_t consumer)
{
    for (size_t i = 0; i < sp->nidle; i++)
        if (consumer == SIZE_MAX || sp->idle[i]->consumer == consumer) {
            cdch_session *s = remove_idle(sp, i);
            cdch_session_pool_gone(sp, s->consumer);
            return s;
        }
    return NULL;
}

cdch_session *cdch_session_launch(const cdch_proc_opts *opts, size_t consumer, cdch_jvm_archive *jsa,
                                  cdch_err *err)
{
    cdch_proc_opts po = *opts;
    po.stdin_pipe = true;
    cdch_proc *p = cdch_proc_spawn(&po, err);
    if (!p) {
        if (jsa)
            cdch_jvm_archive_finish(jsa, false);
        return NULL;
    }
    cdch_session *s = cdch_xcalloc(1, sizeof *s);
    s->p = p;
    s->consumer = consumer;
    cdch_jvm_archive none = CDCH_JVM_ARCHIVE_INIT;
    s->jsa = none;
    if (jsa) {
        s->jsa = *jsa;
        *jsa = none;
    }
    return s;
}

static void json_env(cdch_buf *b, char *const *env, size_t ne)
{
    cdch_put_str(b, "{");
    bool first = true;
    for (size_t i = 0; i < ne; i++) {
        const char *eq = strchr(env[i], '=');
        if (!eq)
            continue;
        if (!first)
            cdch_put_str(b, ",");
        first = false;
        cdch_put_json_str(b, env[i], (size_t)(eq - env[i]), 0);
        cdch_put_str(b, ":");
        cdch_put_json_str(b, eq + 1, strlen(eq + 1), 0);
    }
    cdch_put_str(b, "}");
}

int cdch_session_start_cell(cdch_session *s, const char *cell_id, char *const *env, size_t ne, FILE *errlog,
                            cdch_err *err)
{
    cdch_proc_set_stderr_copy(s->p, errlog);
    s->err_mark = cdch_proc_stderr_mark(s->p);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, "{\"kind\":\"start\",\"cell\":");
    cdch_put_json_str(&b, cell_id, strlen(cell_id), 0);
    cdch_put_str(&b, ",\"env\":");
    json_env(&b, env, ne);
    cdch_put_str(&b, "}");
    int rc = cdch_proc_send(s->p, cdch_buf_cstr(&b), 5000, err);
    cdch_buf_free(&b);
    if (rc != 0)
        return cdch_err_wrap(err, "session adapter: ");
    s->cells++;
    return 0;
}

/* The caller's line function, counting the lines (a stop that prints is not spinning in silence). */
typedef struct stop_lines {
    cdch_proc_line_fn fn;
    void *ud;
    size_t n;
} stop_lines;

static void stop_line(void *ud, const char *line, size_t len)
{
    stop_lines *sl = ud;
    sl->n++;
    if (sl->fn)
        sl->fn(sl->ud, line, len);
}

bool cdch_session_stop_cell(cdch_session *s, const char *cell_id, cdch_proc_line_fn fn, void *ud,
                            bool (*answered)(void *ud), double *own)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, "{\"kind\":\"stop\",\"cell\":");
    cdch_put_json_str(&b, cell_id, strlen(cell_id), 0);
    cdch_put_str(&b, "}");
    cdch_err e;
    *own = 0;
    if (cdch_proc_send(s->p, cdch_buf_cstr(&b), 2000, &e) == 0) {
        double t0 = mono_s();
        cdch_own_clock clk;
        double cpu0, cpu;
        cdch_activity_own_start(cdch_proc_activity(s->p), &clk, t0, &cpu0);
        cpu = cpu0;
        stop_lines sl = {fn, ud, 0};
        size_t lines_seen = 0;
        while (!answered(ud) && cdch_proc_pump(s->p, 100, stop_line, &sl) && *own < 10 && mono_s() - t0 < 60 &&
               (cpu0 < 0 || cpu - cpu0 < CDCH_SESSION_STOP_CPU_S)) {
            *own = cdch_activity_own_read(cdch_proc_activity(s->p), &clk, mono_s(), &cpu);
            if (sl.n != lines_seen) { /* a line: the budget counts from here */
                lines_seen = sl.n;
                cpu0 = cpu;
            }
        }
    }
    cdch_buf_free(&b);
    bool ok = answered(ud);
    if (!ok && !cdch_proc_exited(s->p))
        cdch_proc_stop(s->p, 2000, fn, ud);
    return ok;
}

void cdch_session_end(cdch_session *s)
{
    if (!s)
        return;
    bool writing = cdch_jvm_archive_writing(&s->jsa);
    if (!cdch_proc_exited(s->p)) {
        cdch_proc_set_stderr_copy(s->p, NULL);
        cdch_proc_close_stdin(s->p); /* EOF: the adapter exits 0 */
        double t0 = mono_s(), own = 0;
        cdch_own_clock clk;
        cdch_activity_own_start(cdch_proc_activity(s->p), &clk, t0, NULL);
        while (cdch_proc_pump(s->p, 100, NULL, NULL) &&
               (mono_s() - t0 < 5 || (writing && own < 30 && mono_s() - t0 < 120)))
            own = cdch_activity_own_read(cdch_proc_activity(s->p), &clk, mono_s(), NULL);
    }
    bool clean = false;
    if (writing && cdch_proc_exited(s->p)) {
        int status = -1, sig = 0;
        cdch_proc_status(s->p, &status, &sig);
        clean = status == 0 && sig == 0;
    }
    cdch_proc_free(s->p); /* kills what is left */
    cdch_jvm_archive_finish(&s->jsa, clean);
    free(s);
}
