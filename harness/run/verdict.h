/* verdict.h — one verdict per (consumer@version, scenario, mode), from the
 * diff and what happened to the adapter process (design.md section 6).
 *
 * Owns: the cdch_judgement's detail buffer (free with cdch_judgement_free).
 * Inputs are the caller's.
 *
 * Decision, most serious first:
 *   harness-error  the harness failed (setup, stream, server, spawning the adapter)
 *   silent-skip    expected transactions are missing and the consumer went on:
 *                  a later transaction arrived with no error line in between; or a
 *                  files consumer exited 0 without them; or a server consumer got
 *                  the whole stream and went idle without them
 *   parse-failure  the consumer stopped (exited) or printed {"kind":"error"}; what it
 *                  emitted is a prefix (or every gap was announced by an error line);
 *                  also an adapter that exited with a failure status or printed an
 *                  error after emitting everything
 *   hang           a prefix arrived and the adapter neither exited nor finished before
 *                  the timeout (or never became ready within startup_timeout)
 *   mismatch       rows there, values/columns differ, or unexpected events
 *   duplicate      extra copies of expected rows
 *   reorder        rows out of order
 *   bad-checkpoint rows fine, reported pos/GTID outside the row's transaction
 *   pass
 * The compression-regression flag is set by the runner across modes.
 */
#ifndef CDCH_VERDICT_H
#define CDCH_VERDICT_H

#include <stdbool.h>

#include "buf.h"
#include "diff.h"
#include "events.h"

/* Ordered by severity (harness-error is not comparable: see cdch_verdict_worse). */
typedef enum cdch_verdict {
    CDCH_VERDICT_PASS = 0,
    CDCH_VERDICT_BAD_CHECKPOINT,
    CDCH_VERDICT_REORDER,
    CDCH_VERDICT_DUPLICATE,
    CDCH_VERDICT_MISMATCH,
    CDCH_VERDICT_HANG,
    CDCH_VERDICT_PARSE_FAILURE,
    CDCH_VERDICT_SILENT_SKIP,
    CDCH_VERDICT_HARNESS_ERROR,
} cdch_verdict;

#define CDCH_VERDICT_COUNT 9

const char *cdch_verdict_name(cdch_verdict v); /* "pass", "silent-skip", ... */
int cdch_verdict_parse(const char *s, cdch_verdict *out); /* 0 ok, -1 unknown */
/* The list of names, "pass, parse-failure, ..." (for messages). */
const char *cdch_verdict_names(void);
/* True when `now` is worse than `base` (a harness-error is always worse,
 * except against a recorded harness-error). */
bool cdch_verdict_worse(cdch_verdict now, cdch_verdict base);

typedef enum cdch_stop_reason {
    CDCH_STOP_NONE = 0,
    CDCH_STOP_EXITED,          /* the adapter exited on its own */
    CDCH_STOP_DONE,            /* every expected row arrived and the output went idle */
    CDCH_STOP_IDLE_AFTER_STREAM, /* the server sent the whole stream, output idle since */
    CDCH_STOP_STARTUP_TIMEOUT, /* no ready line / event within startup_timeout */
    CDCH_STOP_TIMEOUT,         /* the run's --timeout */
} cdch_stop_reason;

const char *cdch_stop_reason_name(cdch_stop_reason r);

typedef struct cdch_outcome {
    cdch_stop_reason reason;
    int exit_status;          /* when it exited: status, else -1 */
    int exit_signal;          /* when killed by a signal: its number, else 0 */
    bool files_source;        /* source: files */
    bool stream_delivered;    /* source: server: every event was sent */
    bool got_ready;
    double timeout_s;         /* the timeout that applied (for messages) */
    const char *stderr_tail;  /* NULL or the adapter's stderr tail (last line is quoted) */
    const char *harness_error;/* non-NULL: the harness failed, this says how */
} cdch_outcome;

typedef struct cdch_judgement {
    cdch_verdict verdict;
    char summary[1024]; /* one line */
    cdch_buf detail;    /* lines: the findings, first differing event first */
} cdch_judgement;

void cdch_verdict_judge(const cdch_diff *d, const cdch_change_list *observed, const cdch_outcome *o,
                        cdch_judgement *out);
void cdch_judgement_free(cdch_judgement *j);

#endif
