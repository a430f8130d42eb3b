/* cell.h — one cell's life, from its directories to its verdict.
 *
 * A worker of the run (runner.c) takes a cell and calls cdch_cell_execute,
 * which, in order:
 *   - makes the cell's directories: <report_dir>/cells/<consumer>/<scenario>/
 *     <mode>/{observed.jsonl,stderr.log} and a private state directory;
 *   - starts the fake primary on a free loopback port (primary.h), holding the
 *     stream's end marker when the manifest asks (hold_end_marker), unless the
 *     consumer reads the files;
 *   - starts the adapter with the environment of consumers/README.md: a launch
 *     of its own (one-shot adapters), or the cell's start line to a session
 *     the worker holds (a warm one the pool lent, or one launched for it:
 *     session.h), each launch with a private temporary directory and, for a
 *     JVM, its class-data archive's options (jvmarchive.h);
 *   - reads its output as it comes and asks waits.h, at every wake, whether
 *     to stop it (the consumer's own time, never the wall clock);
 *   - ends it (its own exit or end of cell, else a stop), records its exit,
 *     stderr tail, CPU-seconds and the primary's cut;
 *   - diffs what arrived against the expected events (diff.h; the stream's
 *     alignment keys are made once, by its first cell judged) and judges it
 *     (verdict.h), or against its plain twin (oracle_cell.h);
 *   - gives the session back to the pool (or ends it when its process died
 *     or its consumer has no cell left), and frees the stream's expected
 *     events once its last cell is done.
 * Setup errors, a stream that could not be made, an interrupted harness and
 * an adapter that cannot honour the user's configuration are harness-error
 * cells with the reason, never a consumer's verdict.
 *
 * Owns: while it runs, the cell's primary, adapter process (one-shot),
 * observed list and state directory, all released before it returns; the
 * results it writes into the run's cdch_cell (owned by the run). The hold
 * is the worker's: the session in it is the pool's, lent.
 */
#ifndef CDCH_CELL_H
#define CDCH_CELL_H

#include <stdbool.h>
#include <stddef.h>

#include "session.h"

struct cdch_run;

/* A worker's hold on a session for the cell it runs (all empty between
 * cells). The scheduler (runner.c take_cell) fills it with the cell. */
typedef struct cdch_cell_hold {
    cdch_session *s;      /* borrowed from the run's pool (NULL: launch one, the pool counted it) */
    cdch_session *evict;  /* an idle session to end to make room, outside the lock */
    bool in_session;      /* the cell taken is a session-mode consumer's */
    bool counted;         /* the pool counts a session for this worker (s, or a launch reserved) */
    bool launched;        /* the cell's session was launched for it */
    size_t consumer;      /* the cell's consumer */
} cdch_cell_hold;

/* Runs cell ci of r to its verdict (see above); the hold is empty again
 * afterwards. Called by the run's workers, without r's lock. */
void cdch_cell_execute(struct cdch_run *r, size_t ci, cdch_cell_hold *hold);

#endif
