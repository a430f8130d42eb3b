/* session.h — session-mode adapters (consumers/README.md "Session mode"):
 * the processes of a run, shared by its workers.
 *
 * A session adapter starts once (a JVM warms up for seconds) and runs cells
 * one after another, each told on its stdin. The run keeps them in a pool:
 * a worker borrows an idle session of the cell's consumer, or launches one,
 * runs its cell through it and gives it back, so the next cell of that
 * consumer, on any worker, finds it warm. One cell at a time per process:
 * the waits (waits.h) judge a process's threads, CPU and output, which are
 * the cell's only while the process serves that cell alone.
 *
 * Bounds: at most `per_consumer` sessions of one consumer at once (each
 * more is another warm-up to pay; a session cell keeps its process busy
 * for part of its life only, so a few per core keep the cores busy; the
 * other workers take other consumers' cells meanwhile), and at most `total`
 * processes in all (the run's -j: the memory of today's one-per-worker); to
 * launch past it, the least recently used idle session is ended. A
 * consumer whose launches are cheap is not held to per_consumer (unless
 * `strict`): once a cell that launched its session used less than
 * CDCH_SESSION_CHEAP_LAUNCH_CPU_S of its CPU in all (its launch cost at most
 * that: a Go process, hundredths of a second; a JVM's first cell, seconds),
 * it may have as many as `total`. CPU time, not wall time: the same on a
 * loaded machine. Until then the bound holds. Below the bound, a consumer
 * whose launches are not cheap gets another session only when the cells it
 * has left need one (cdch_session_pool_may_run_for, backlog.h): in a matrix
 * of many consumers the others' cells keep the workers busy meanwhile.
 *
 * Owns: the pool's arrays and its idle sessions (each owns its cdch_proc).
 * A borrowed session is the borrower's until it gives it back or ends it.
 * The pool functions are not locked: callers hold their run's lock. Ending
 * a process (cdch_session_end) may take seconds: call it outside the lock.
 */
#ifndef CDCH_SESSION_H
#define CDCH_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "jvmarchive.h"
#include "proc.h"

typedef struct cdch_session {
    cdch_proc *p;
    size_t consumer;   /* the run's consumer index */
    uint64_t err_mark; /* stderr position at the current cell's start */
    uint64_t used;     /* the pool's tick when last given back (least recently used first) */
    unsigned cells;    /* cells it has run */
    cdch_jvm_archive jsa; /* the class-data archive its JVM writes when it exits, if any (jvmarchive.h) */
} cdch_session;

/* CPU-seconds of a launching cell under which the launch is cheap. */
#define CDCH_SESSION_CHEAP_LAUNCH_CPU_S 0.5

typedef struct cdch_session_pool {
    cdch_session **idle;
    size_t nidle, cap;
    unsigned *live;        /* per consumer: sessions launched (or being launched) and not ended */
    size_t nconsumers;
    unsigned per_consumer; /* sessions of one consumer at once */
    bool strict;           /* per_consumer holds for cheap launches too (the user set it) */
    signed char *cheap;    /* per consumer: 1 a launching cell was cheap, 0 none so far, -1 none measured */
    unsigned total;        /* processes at once, idle ones included */
    unsigned nlive;
    uint64_t tick;
    unsigned launches;     /* processes launched so far (for reports and tests) */
} cdch_session_pool;

/* Default sessions of one consumer at once: three per core (cores 0:
 * online). Measured on 2 cores, idle, debezium@3.6.1.Final over 81 cells:
 * 3 sessions 37.7 s wall / 25.0 CPU-s, 4 30.9 / 27.6, 6 26.9 / 34.9, 8 26.0
 * / 40.0 (bench/README.md "Sessions shared by the workers"). */
unsigned cdch_session_default_per_consumer(unsigned cores);

/* per_consumer and total at least 1. */
void cdch_session_pool_init(cdch_session_pool *sp, size_t nconsumers, unsigned per_consumer, bool strict,
                            unsigned total);
/* Ends every idle session (blocking: call once the workers are done). */
void cdch_session_pool_free(cdch_session_pool *sp);

/* Whether a cell of this consumer can get a session now: an idle one, or
 * room to launch one. */
bool cdch_session_pool_may_run(const cdch_session_pool *sp, size_t consumer);
/* may_run, and, for a cell that would launch a session beside live ones,
 * whether that launch buys time: fewer than `needed` of the consumer's
 * sessions are live (the sessions its cells left need, backlog.h). A
 * consumer's first session, an idle one, and a cheap launch (the bound
 * above) always may. */
bool cdch_session_pool_may_run_for(const cdch_session_pool *sp, size_t consumer, unsigned needed);
/* Whether an idle session of this consumer is waiting (a warm cell). */
bool cdch_session_pool_warm(const cdch_session_pool *sp, size_t consumer);

/* Borrow a session for a cell of this consumer (only after may_run): an
 * idle one, most recently used first, or NULL with a launch reserved (the
 * caller launches, cdch_session_launch, and on failure calls gone). *evict:
 * an idle session of another consumer the caller must end (outside the lock)
 * to stay within `total`, else NULL. */
cdch_session *cdch_session_pool_take(cdch_session_pool *sp, size_t consumer, cdch_session **evict);
/* Give a borrowed session back, alive and between cells. */
void cdch_session_pool_give(cdch_session_pool *sp, cdch_session *s);
/* A borrowed session was ended (or a reserved launch failed). */
void cdch_session_pool_gone(cdch_session_pool *sp, size_t consumer);
/* A cell that launched a session of this consumer used cpu_s CPU-seconds
 * in all, launch included (< 0: unknown, ignored). */
void cdch_session_pool_launch_cost(cdch_session_pool *sp, size_t consumer, double cpu_s);
/* Remove and return an idle session of this consumer (SIZE_MAX: of any),
 * for the caller to end; NULL when none. */
cdch_session *cdch_session_pool_pop(cdch_session_pool *sp, size_t consumer);

/* Launch a session process (opts->stdin_pipe is set here). jsa (may be
 * NULL): the launch's class-data archive (cdch_jvm_archive_argv on
 * opts->argv), moved into the session, which finishes it when it ends,
 * also on failure here. NULL and err on failure. */
cdch_session *cdch_session_launch(const cdch_proc_opts *opts, size_t consumer, cdch_jvm_archive *jsa,
                                  cdch_err *err);
/* Send the cell's start line ({"kind":"start","cell":ID,"env":{...}} from
 * the NAME=VALUE strings of env), copying its stderr to errlog (may be
 * NULL) from here on. -1 and err when the process does not take it. */
int cdch_session_start_cell(cdch_session *s, const char *cell_id, char *const *env, size_t ne, FILE *errlog,
                            cdch_err *err);
/* Ask it to stop the cell's consumer and pump its output (fn, ud) until
 * answered(ud) (its "stopped" or "ended" line), up to 10 s of its own time
 * (activity.h: a session starved by load gets them all; at most a minute of
 * wall time), and up to CDCH_SESSION_STOP_CPU_S of its CPU-seconds spent
 * without printing a line (a library spinning in a loop it never leaves, as
 * binlog client 0.23 under Debezium 1.x after an event it cannot decode,
 * would burn the whole 10 s); not answered, its process is killed. The
 * cell's verdict does not depend on it: the waits (waits.h) decided the
 * cell's end before the stop. True when it answered; *own: the own seconds
 * it took. */
#define CDCH_SESSION_STOP_CPU_S 4.0
bool cdch_session_stop_cell(cdch_session *s, const char *cell_id, cdch_proc_line_fn fn, void *ud,
                            bool (*answered)(void *ud), double *own);
/* End the process (end of stdin, up to 5 s to exit, then killed) and free
 * the session. A JVM writing its class-data archive at exit gets up to 30 s
 * of its own time for it (activity.h; at most two minutes of wall time);
 * the archive is kept only when the process exited by itself with status
 * 0. Accepts NULL. */
void cdch_session_end(cdch_session *s);

#endif
