/* waits.h — when a cell's consumer is done, idle, not resuming or hung,
 * in the consumer's own time, never the wall clock of a busy machine.
 *
 * Owns: the cdch_waits state (embedded in the caller's cell; no heap). Reads
 * the cell through a cdch_waits_view the caller fills before each look (its
 * pointers stay the caller's), and holds the fake primary's fault cut and
 * end marker until the consumer had its chance (primary.h).
 *
 * Two of the consumer's clocks decide every wait (activity.h):
 *   - quiet: no stdout line, no thread of its process tree runnable or in
 *     I/O wait, no output of its waiting in our pipes, no byte in flight that
 *     it is reading; looked at every 100 ms. A consumer starved of CPU is
 *     runnable, so it is never quiet.
 *   - own time: wall time minus the time its threads spent runnable but
 *     waiting for a CPU (the run-queue delay, schedstat), read every 0.5 s.
 *     On an idle machine it runs with the wall clock; beside a load it slows
 *     down by what the load took. Every window that is not a quiet window is
 *     measured in it (a library's own timer, e.g. BinaryLogClient's 60 s
 *     keep-alive, is late by the same delay, so it is counted as the library
 *     counts it).
 *   - and CPU-seconds of its process tree (cpu_seconds): a budget spent
 *     without output.
 * The rules, in the order they are looked at (cdch_waits_check):
 *   1. start-up: no line yet, and quiet for 1 s after startup_s of own time,
 *      or startup_s of its CPU-seconds spent: startup timeout;
 *   2. every expected row arrived (by count) and quiet for grace_s: done;
 *   3. the watermark row arrived: done after min(grace_s, 0.5 s) of no output
 *      when every expected row arrived by then, or when the consumer
 *      delivers in stream order (in_order: its library hands each event to
 *      the adapter on the thread that read it, no queue or timer between, so
 *      a row the stream held before the watermark that did not come before it
 *      never comes); when rows are still missing otherwise, the watermark is
 *      not trusted (a consumer may hand rows to its sink on a timer, after
 *      later ones): done when quiet for idle_after_s and idle_after_s of own
 *      time passed since the watermark (a late row is then judged `reorder`,
 *      not lost);
 *   4. a scenario fault's cut, held by the primary until the consumer
 *      emitted the rows of every transaction it received whole, printed an
 *      error, or was quiet for hold_quiet_s (hold_quiet_s of own time since
 *      the hold began), or printed no line for 5 x hold_quiet_s of own time
 *      (a consumer never quiet): released; the end marker (hold_end_marker)
 *      is held until it was quiet 0.3 s (hold_quiet_s after an error line).
 *      While held, the primary sends the heartbeats an idle source sends
 *      (server.h), so a library's keep-alive never counts a hold as a lost
 *      connection. The lines printed before the cut's release are counted
 *      (cut_nctl): what a consumer says after it is about the cut;
 *   5. the cut was released and no dump connection streams: not resumed
 *      after resume_wait_s of own time without a connection or a line, while
 *      quiet (a consumer reconnecting is busy); or after timeout_s of its
 *      CPU-seconds spent without either;
 *   6. (server) the whole stream was sent (the end marker released) and it
 *      was quiet for idle_after_s, idle_after_s of own time after the last
 *      event went out or the marker's release; or it printed
 *      an error and then was quiet (or, retrying for ever, printed nothing and
 *      read nothing for 5 x idle_after_s of own time; or reconnecting for
 *      ever, printed an error since its last row and connected three more
 *      times since that error, none streaming now, with idle_after_s of own
 *      time since the last event went out; or restarting for ever, printed an error since its
 *      last row and opened three dump connections since that row): idle after
 *      stream;
 *   7. hang: no line for timeout_s of own time while quiet for 2 s (blocked),
 *      or timeout_s of its CPU-seconds spent since its last line (spinning),
 *      or no row for timeout_s of own time while it opened three dump
 *      connections since its last row and printed no error (restarting for
 *      ever in silence).
 * Load only slows own time and keeps a starved consumer busy: it can stretch
 * a wait, never shorten one into a verdict.
 */
#ifndef CDCH_WAITS_H
#define CDCH_WAITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "activity.h"
#include "events.h"
#include "primary.h"
#include "proc.h"
#include "streamidx.h"
#include "verdict.h"

typedef struct cdch_waits_cfg {
    double timeout_s, grace_s, hold_quiet_s, resume_wait_s;
    double startup_s;    /* the manifest's startup_timeout */
    double idle_after_s; /* idle after the stream (run option; auto: 2 s) */
    bool in_order;       /* the consumer delivers in stream order (manifest `delivery: in-order`): rule 3 */
} cdch_waits_cfg;

/* What the cell shows now: filled by the caller before each look. */
typedef struct cdch_waits_view {
    cdch_proc *p;                       /* the adapter (a session's process is shared) */
    cdch_primary *prim;                 /* NULL: the consumer reads the files */
    const cdch_change_list *obs;        /* what it printed so far */
    const cdch_change_list *expected;   /* the stream's expected rows */
    const cdch_stream_index *idx;       /* their transactions' places */
    uint64_t stream_events;             /* top-level events the primary sends in all */
    size_t rows;         /* rows it emitted so far: change events, or a program's row lines (command.h) */
    double last_line;    /* wall time of its last stdout line (or of the cell's start) */
    double watermark_at; /* wall time the watermark row arrived (0: not yet) */
    bool any_line;
} cdch_waits_view;

typedef struct cdch_waits {
    cdch_waits_cfg cfg;
    double t0;
    /* the consumer's clocks */
    double own;           /* own time since the cell began (seconds) */
    double own0;          /* the part before the first read (the launch) */
    cdch_own_clock clock; /* activity.h */
    double clock_t;       /* wall time of the last read (0: never) */
    double cpu0, cpu;     /* CPU-seconds of its tree at the start and at the last read */
    double line_seen;     /* the last line's wall time, as last seen */
    double own_line, cpu_line; /* own time and CPU at that line */
    size_t rows_seen;     /* rows emitted, as last seen */
    double own_row;       /* own time at the last row (or the cell's start) */
    uint64_t dumps_row;   /* the primary's dump connections at that row */
    size_t nctl_row;      /* control lines printed before that row */
    uint64_t conns_err;   /* the primary's connections when an error since that row was first seen (UINT64_MAX: none) */
    double sample_t, quiet_t;  /* quiet: the last look, and since when quiet (0: busy) */
    uint64_t pending;     /* bytes in flight at the last look */
    uint64_t out_bytes;   /* stdout bytes read at the last look, lines or not */
    double out_t;
    /* the primary */
    double hold_own;      /* own time the fault's cut began to be held (-1: not yet) */
    size_t hold_need;     /* rows of the transactions delivered whole before the cut */
    bool cut_released, cut_after_error, mark_released;
    size_t cut_nctl;      /* control lines (errors among them) printed before the cut's release */
    bool delivered;       /* the primary sent the whole stream */
    double deliv_own;
    uint64_t last_sent;
    double sent_own;      /* own time the last event went out */
    double cut_idle_own;  /* own time since which no dump connection streams after a cut (-1: one does) */
    double wm_own;        /* own time the watermark was first seen (-1: not yet) */
    char hang_how[160];   /* why a timeout said hang */
} cdch_waits;

void cdch_waits_init(cdch_waits *w, const cdch_waits_cfg *cfg, double t0);

/* Whether to stop the adapter now (CDCH_STOP_NONE: keep going), at wall
 * time t. Also releases the primary's held cut and end marker. */
cdch_stop_reason cdch_waits_check(cdch_waits *w, const cdch_waits_view *v, double t);

/* The consumer's own seconds since the cell began (for reports). */
double cdch_waits_own_seconds(const cdch_waits *w);

#endif
