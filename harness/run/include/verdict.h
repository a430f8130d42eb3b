/* verdict.h — one verdict per (consumer@version, scenario, mode), from the
 * diff and what happened to the adapter process (design.md section 6).
 *
 * Owns: the cdch_judgement's detail buffer (free with cdch_judgement_free).
 * Inputs are the caller's.
 *
 * A cell can show several finding classes; its verdict is the worst of them
 * by this severity order (worst first; design.md section 6):
 *   silent-skip    expected transactions are missing and the consumer did not say
 *                  so: a hole (a later transaction arrived) that no error line
 *                  announced (diff.h: one error line before the first row after a
 *                  missing transaction announces that transaction, in order); a files consumer that exited 0
 *                  without them; a server consumer that received the whole stream
 *                  and went idle without them; transactions the server delivered
 *                  whole before a disconnection the harness caused, never emitted
 *   announced-skip expected transactions are missing while later ones arrived, and
 *                  the consumer said so in its own words before the first row past
 *                  each: an error line matched to that hole (one each, in order),
 *                  or an error line that names the skipped event (diff.h: "names
 *                  the event"), which covers every later hole of that event; or the
 *                  tail of a consumer that stayed up, received the whole stream and
 *                  went idle after an error line naming the first missing
 *                  transaction's event (a consumer that exited is parse-failure). Rows
 *                  are lost all the same: it keeps the compression-regression
 *                  flag and is NOT SAFE in --pre-flip; only an operator reading
 *                  the consumer's log would know (the report quotes the line)
 *   mismatch       rows there but wrong: a value, a column, an image, the op, the
 *                  db or the table differs (the row arrived: never "missing"), or
 *                  unexpected events
 *   duplicate      extra copies of expected rows
 *   reorder        rows out of order
 *   bad-checkpoint reported pos/GTID outside the row's transaction
 *   parse-failure  the consumer said so: it exited (or printed an error line where
 *                  it stopped) and what it emitted is a prefix
 *   no-resume      the harness cut the connection (a scenario fault) and the consumer
 *                  neither resumed nor said why before it stopped or went idle
 *   hang           a prefix arrived and the adapter neither exited nor finished before
 *                  the timeout (or never became ready within startup_timeout)
 *   pass           every expected row once, in order, equal; error lines printed
 *                  along the way and a failing exit status after the last row are
 *                  warnings on the pass
 * harness-error (the harness failed) stands apart: it is never the consumer's.
 * The compression-regression flag is set by the runner across modes
 * (cdch_verdict_regression).
 */
#ifndef CDCH_VERDICT_H
#define CDCH_VERDICT_H

#include <stdbool.h>

#include "buf.h"
#include "diff.h"
#include "events.h"

/* Ordered by severity, least first (harness-error is not comparable: see
 * cdch_verdict_worse). */
typedef enum cdch_verdict {
    CDCH_VERDICT_PASS = 0,
    CDCH_VERDICT_HANG,
    CDCH_VERDICT_NO_RESUME,
    CDCH_VERDICT_PARSE_FAILURE,
    CDCH_VERDICT_BAD_CHECKPOINT,
    CDCH_VERDICT_REORDER,
    CDCH_VERDICT_DUPLICATE,
    CDCH_VERDICT_MISMATCH,
    CDCH_VERDICT_ANNOUNCED_SKIP,
    CDCH_VERDICT_SILENT_SKIP,
    CDCH_VERDICT_HARNESS_ERROR,
} cdch_verdict;

#define CDCH_VERDICT_COUNT 11
#define CDCH_CLASS(v) (1u << (v)) /* a finding class in cdch_judgement.classes */

const char *cdch_verdict_name(cdch_verdict v); /* "pass", "silent-skip", ... */
int cdch_verdict_parse(const char *s, cdch_verdict *out); /* 0 ok, -1 unknown */
/* A recorded expectation's verdict word: "VERDICT", or "VERDICT|VERDICT" for a
 * cell whose outcome a race inside the consumer decides (two distinct verdicts,
 * consumers/README.md "Expectations"). *first gets the first, *other the second
 * (the first again when there is one; other may be NULL). 0 ok, -1 not that form. */
int cdch_verdict_parse_any(const char *s, cdch_verdict *first, cdch_verdict *other);
/* The list of names, "pass, parse-failure, ..." (for messages). */
const char *cdch_verdict_names(void);
/* True when `now` is worse than `base` (a harness-error is always worse,
 * except against a recorded harness-error). */
bool cdch_verdict_worse(cdch_verdict now, cdch_verdict base);
/* The compression-regression rule: the compressed (or flip) cell is worse
 * than the uncompressed one on the severity order, or has the same verdict
 * and shows a failure class (classes: CDCH_CLASS bits) the uncompressed one
 * does not (a value bug in both, and compressed also dies). Never for a
 * harness-error on either side. */
bool cdch_verdict_regression(cdch_verdict comp, unsigned comp_classes, cdch_verdict unc, unsigned unc_classes);
/* "mismatch, parse-failure" of the class bits, worst first, into buf. */
void cdch_verdict_classes_str(unsigned classes, char *buf, size_t bufsz);

typedef enum cdch_stop_reason {
    CDCH_STOP_NONE = 0,
    CDCH_STOP_EXITED,          /* the adapter exited on its own */
    CDCH_STOP_DONE,            /* every expected row arrived and the output went idle */
    CDCH_STOP_IDLE_AFTER_STREAM, /* the server sent the whole stream, output idle since */
    CDCH_STOP_STARTUP_TIMEOUT, /* no ready line / event within startup_timeout */
    CDCH_STOP_TIMEOUT,         /* the run's --timeout */
    CDCH_STOP_NOT_RESUMED,     /* the harness cut the connection; no dump connection and no output since */
    CDCH_STOP_FLOOD,           /* the adapter wrote more to stdout than the cell's limit allows */
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
    const char *hang_how;     /* CDCH_STOP_TIMEOUT: which of the consumer's clocks ran out ("blocked: ...",
                               * "N CPU-seconds without output"), NULL: not said */
    const char *stderr_tail;  /* NULL or the adapter's stderr tail (last line is quoted) */
    const char *harness_error;/* non-NULL: the harness failed, this says how */
    bool harness_cut;         /* a scenario fault cut the consumer's dump connection */
    bool cut_after_error;     /* the consumer had printed an error line before the cut (its own failure) */
    char cut_file[256];       /* then: the last complete event sent before the cut ended here */
    uint64_t cut_pos;
    size_t cut_nctl;          /* then: the observed control lines printed before the harness released the
                               * cut (SIZE_MAX: not known, every line counts) */
} cdch_outcome;

typedef struct cdch_judgement {
    cdch_verdict verdict;   /* the worst of classes */
    unsigned classes;       /* CDCH_CLASS bits of every finding class seen (0 for pass) */
    char summary[1024];     /* one line */
    cdch_buf detail;        /* lines: the findings, first differing event first */
    cdch_buf warnings;      /* lines: consumer errors that explain no finding, a failing exit after every row */
    size_t nwarnings;
} cdch_judgement;

/* A harness-error, not a verdict, when o says so (harness_error), or when
 * the adapter never ran its consumer (cdch_outcome_not_run, with "printed"
 * taken from observed: a row or an error line; observed NULL: as printed). */
void cdch_verdict_judge(const cdch_diff *d, const cdch_change_list *observed, const cdch_outcome *o,
                        cdch_judgement *out);

/* Whether the adapter ended with the shell's status for a command it could
 * not execute (126: found, not executable; 127: not found), by exit (not a
 * signal), without having printed anything that counts (printed: a row or
 * an error line, as the caller knows them): its consumer never ran (an
 * adapter that execs a binary being rebuilt, a user's build path gone, a
 * typo in an in-house command), so the cell says nothing about it. Then msg
 * (msgsz bytes) says so, with the stderr's last line. */
bool cdch_outcome_not_run(const cdch_outcome *o, bool printed, char *msg, size_t msgsz);

void cdch_judgement_free(cdch_judgement *j);

#endif
