/* backlog.h — how many sessions the cells a consumer has left need (issue 26
 * item 6: a session launch is paid only where it buys time).
 *
 * A session JVM costs CPU to launch and to warm (its first cell takes several
 * times a warm one's seconds and CPU: bench/README.md "Sessions launched by
 * need"), and a whole matrix is bound by its cores. A consumer's sessions
 * need to keep pace with the run, not outrun it: with `jobs` workers and L
 * cell-seconds left in all, the run has about L / jobs seconds to go, and a
 * consumer with L_c of them needs ceil(jobs * L_c / L) sessions to finish
 * within that. More only adds launches. As the other consumers' cells are
 * taken L shrinks, so the consumers left at the run's tail get their
 * sessions (up to the pool's bound, session.h): one consumer alone gets them
 * all.
 *
 * Seconds: each cell's estimate (the last report's seconds for that cell,
 * else a guess from its stream's size: runner.c estimate_cells), scaled per
 * consumer by what its cells took in this run: the seconds of its finished
 * cells that did not launch a session over their estimates (a launching
 * cell's seconds are mostly its launch's). Until one finished, 1.
 *
 * Owns: its per-consumer arrays. Not locked: callers hold their run's lock.
 */
#ifndef CDCH_BACKLOG_H
#define CDCH_BACKLOG_H

#include <stddef.h>

typedef struct cdch_backlog {
    size_t n;          /* consumers */
    double *left_est;  /* per consumer: estimates of its cells not taken yet */
    double *seen_s;    /* per consumer: seconds of its finished cells that launched nothing */
    double *seen_est;  /* per consumer: their estimates */
} cdch_backlog;

void cdch_backlog_init(cdch_backlog *b, size_t nconsumers);
void cdch_backlog_free(cdch_backlog *b);

/* A cell of this consumer with that estimate (seconds, >= 0) is planned. */
void cdch_backlog_add(cdch_backlog *b, size_t consumer, double est);
/* A planned cell was taken by a worker. */
void cdch_backlog_taken(cdch_backlog *b, size_t consumer, double est);
/* A cell that launched no session finished after `seconds` (the scale). */
void cdch_backlog_seen(cdch_backlog *b, size_t consumer, double est, double seconds);

/* Seconds the consumer's untaken cells are expected to take (scaled). */
double cdch_backlog_left(const cdch_backlog *b, size_t consumer);
/* The sum of cdch_backlog_left over the consumers. */
double cdch_backlog_total(const cdch_backlog *b);
/* Sessions the consumer's cells left need (total: cdch_backlog_total; jobs:
 * the run's workers): ceil(jobs * left / total), at least 1, at most jobs. */
unsigned cdch_backlog_sessions(const cdch_backlog *b, size_t consumer, double total, unsigned jobs);

#endif
