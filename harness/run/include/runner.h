/* runner.h — `cdcharness run`'s engine: consumers@versions × scenarios ×
 * modes -> cells, each with a verdict.
 *
 * Owns: the cdch_run — its consumers (manifests), scenarios (loaded models),
 * the generated streams (in a temporary directory removed by cdch_run_free
 * unless keep_streams), and the cells with their diffs, summaries, stderr
 * tails. Per cell it writes <report_dir>/cells/<family>@<version>/
 * <scenario>/<mode>/{observed.jsonl,stderr.log} when report_dir is set; a
 * cell judged `pass` against the expected events drops an observed.jsonl
 * over CDCH_OBSERVED_KEEP_BYTES once judged (its rows are the expected rows),
 * unless keep_observed.
 *
 * One cell: set the version up (cached, setup.h); generate the stream once
 * per scenario and mode (cdch_stream_generate); start the fake primary on a
 * free loopback port (source: server) or hand the files over (source: files);
 * run the adapter with the environment of consumers/README.md plus CDCH_BIN
 * (this cdcharness binary), CDCH_SCENARIO (the scenario file) and CDCH_MODE;
 * read its stdout as it comes (session adapters: one launch serves many
 * cells, consumers/README.md "Session mode"); stop it when waits.h says so
 * (done, the watermark trusted, idle after the stream, not resumed after a
 * fault's cut, start-up timeout, hang: each window in the consumer's own
 * time, quiet or CPU-seconds, never the wall clock of a busy machine),
 * or when it exits; then diff (diff.h) and judge (verdict.h). Finally the
 * compression-regression flag: a compressed or flip cell worse than the same
 * consumer@version × scenario uncompressed (cdch_verdict_regression); for a
 * cell judged by the differential oracle (oracle.h), its differential
 * verdict is not pass: a difference present in both modes is not one.
 * A differential cell of the compressed or flip stream runs after the
 * uncompressed cell of the same consumer and scenario (it is judged against
 * that cell's rows), which the plan adds when the mode or the scenario names
 * none; without it (excluded, or in another --shard) it is a harness-error.
 */
#ifndef CDCH_RUNNER_H
#define CDCH_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diff.h"
#include "err.h"
#include "manifest.h"
#include "oracle.h"
#include "scenario.h"
#include "verdict.h"

struct cdch_cell;

/* A passing cell's observed.jsonl up to this size is kept (small ones are
 * handy to read; the large ones are the report directory's gigabytes: the
 * default matrix wrote 6.3 GB, 6.0 of them passing cells' rows). */
#define CDCH_OBSERVED_KEEP_BYTES ((uint64_t)1 << 20)

/* Where a cell's consumer starts (`run`/`matrix` --start; scenarios/README.md "start").
 * Attach: the schema pre-exists on the primary (its catalogue already holds the
 * tables) and the consumer starts after the stream's leading schema DDL (stream
 * attach.h), by file:position and, with gtid_mode on, by GTID set; the prefix's
 * events are not expected. A scenario's own start: {skip_txns: N} always wins. */
typedef enum cdch_start_mode {
    CDCH_START_AUTO = 0, /* attach when the scenario says `start: attach` or the consumer's manifest
                          * says `start: attach` (family or version); else from the first event */
    CDCH_START_ATTACH,   /* every cell attaches */
    CDCH_START_EMPTY,    /* no cell attaches: every consumer starts on an empty primary, before the DDL */
} cdch_start_mode;

/* "auto", "attach", "empty" -> mode; -1 when s is none of them. */
int cdch_start_mode_parse(const char *s, cdch_start_mode *out);

typedef struct cdch_run_opts {
    const char *const *consumer_dirs; /* where <family>/manifest.yaml are searched, in order */
    size_t nconsumer_dirs;
    double timeout_s;            /* per cell: without progress while quiet, or CPU-seconds of the consumer's
                                  * own without progress (default 60) */
    double grace_s;              /* idle time after the last expected row (default 2) */
    double idle_after_stream_s;  /* source: server, quiet time after the whole stream was sent (default
                                  * 0 = auto: 2 s) */
    double setup_timeout_s;      /* per version setup (default 1800) */
    double hold_quiet_s;         /* a fault's cut is held until the consumer emitted what it received whole,
                                  * said something, or was quiet this long (default 2) */
    double resume_wait_s;        /* after a fault of the scenario cut the consumer's connection: how long
                                  * with no dump connection and no output before "did not resume"
                                  * (default 80: BinaryLogClient's keepalive thread looks every 60 s, then pings
                                  * and reconnects) */
    int jobs;                    /* cells run in parallel (default 1; the CLI's: ten a core, at most 64) */
    unsigned sessions;           /* session-mode consumers: processes of one consumer at once, shared by the
                                  * workers (session.h; default 0 = three per core) */
    const char *report_dir;      /* cell logs (NULL: none) */
    const char *bin_path;        /* CDCH_BIN for adapters (NULL: /proc/self/exe) */
    const char *cache_root;      /* NULL: $CDCH_CACHE or ~/.cache/cdcharness */
    bool keep_streams;           /* do not delete the generated streams */
    bool keep_observed;          /* keep every cell's observed.jsonl (else a passing cell's large one goes) */
    FILE *progress;              /* one line per finished cell (NULL: quiet) */
    FILE *setup_progress;        /* setup lines ("installing x@v ...") when progress is NULL */
    /* called (serialised, from a worker thread) when a cell is done; done/total count cells run */
    void (*on_cell)(void *ud, struct cdch_cell *c, size_t done, size_t total);
    void *on_cell_ud;
    /* which planned cells run: keep(ud, cell) false drops a cell before indexing (exclusions) */
    bool (*keep)(void *ud, const struct cdch_cell *c);
    void *keep_ud;
    unsigned shard_k, shard_n;   /* run shard K of N (1-based) of the indexed cells; 0/0 = all */
    bool watermark;              /* end each stream with the watermark insert (watermark.h; default on): a cell
                                  * stops shortly after its row arrives instead of waiting for idleness */
    cdch_start_mode start;       /* where consumers start (default CDCH_START_AUTO) */
    cdch_oracle_kind oracle;     /* how adapters' cells are judged (oracle.h; default canonical); command
                                  * consumers are always judged by the differential oracle */
    const cdch_oracle_filter *filter; /* --ignore / --normalize for the differential oracle (the caller's; NULL) */
} cdch_run_opts;

void cdch_run_opts_init(cdch_run_opts *o);

struct cdch_run;
/* Session-mode processes the run launched (session.h; after cdch_run_execute). */
unsigned cdch_run_session_launches(const struct cdch_run *r);

typedef struct cdch_cell {
    /* what */
    const char *family, *version;   /* owned by the run */
    const char *config;             /* the consumer's configuration file (absolute), NULL: the adapter's defaults */
    bool unpinned;                  /* a version the manifest does not pin, or a local build: expectation predicted */
    const char *local_path;         /* FAMILY@file:PATH: the user's build, NULL otherwise */
    const char *local_version;      /* local build: the library version its setup found ("" unknown) */
    const char *local_fp;           /* local build: fingerprint of its content ("" before setup) */
    char *config_line;              /* the adapter's {"kind":"config",...} line (effective settings), NULL: none */
    size_t invalid_lines;           /* stdout lines that were neither change events nor control lines */
    char first_invalid[256];        /* the first of them ("line N: why: <start>"), "" when none */
    bool watermark_seen;            /* the watermark row arrived (watermark.h) */
    const char *scenario;           /* scenario name */
    const char *scenario_path;
    const char *mode;               /* "uncompressed", "compressed", "flip" */
    size_t consumer_idx, scenario_idx;
    size_t index;                   /* position in the full plan (before sharding): stable across shards */
    bool attach;                    /* the consumer attaches after the schema prefix (cdch_start_mode) */
    /* verdict */
    cdch_verdict verdict;           /* the worst of classes */
    unsigned classes;               /* CDCH_CLASS bits of every finding class (verdict.h) */
    bool compression_regression;
    char *summary;                  /* one line */
    char *warnings;                 /* consumer errors that explain no finding (lines), NULL when none */
    size_t nwarnings;
    char *detail;                   /* findings, one per line */
    cdch_diff *diff;                /* NULL when the cell never ran (harness-error) */
    /* the adapter */
    cdch_stop_reason stop;
    int exit_status, exit_signal;
    bool got_ready;
    char *stderr_tail;
    double seconds;
    double startup_seconds;         /* cell start to the adapter's first line (-1: none) */
    double wait_seconds;            /* stopped by the harness: its last line to the end of its stop (0: it exited) */
    double stop_seconds;            /* stopped by the harness: its own seconds (activity.h) from the stop request
                                     * (SIGTERM, or a session's stop line) to its exit or "stopped" line */
    bool stop_forced;               /* stopped by the harness, and it did not stop within its grace (5 s of its own
                                     * time after SIGTERM, 10 s for a session's stop line): killed */
    bool launched;                  /* the adapter process was launched for this cell (not a warm session) */
    double cpu_seconds;             /* the adapter's CPU during the cell (a session launched for it: its
                                     * start-up too); -1: not measured */
    size_t expected_rows, observed_rows;
    /* the stream served (bytes on the wire = binlog file bytes) */
    uint64_t stream_bytes, stream_events, stream_transactions, stream_compressed_transactions;
    char *cell_dir;                 /* report_dir/cells/... or NULL */
    uint64_t observed_bytes;        /* the size of its observed.jsonl when the cell was judged */
    bool observed_dropped;          /* that file was removed: a pass over CDCH_OBSERVED_KEEP_BYTES */
    /* expectation (filled by the caller, e.g. cmd_run) */
    cdch_verdict expected;          /* with expected_racy: the one of the two the verdict is (else the first) */
    bool expected_racy;             /* the manifest records two verdicts, VERDICT|VERDICT: a race inside the
                                     * consumer decides (its cause says which); either meets */
    cdch_verdict expected_other;    /* with expected_racy: the other one */
    char expect_source[160];
    char expect_cause[256];         /* causes recorded with a manifest expectation ("id id"; "" when none) */
    char *predict_in_range;         /* unpinned, manifest expectation: the known issues whose range holds the
                                     * version ("id id"), NULL otherwise (expect_source "predicted") */
    bool meets;
    /* the differential oracle (oracle.h) */
    bool command;                   /* a program run with --consumer-cmd / `command:` (command.h), not an adapter */
    cdch_oracle_kind oracle;        /* how the cell was judged: differential for a command consumer */
    bool oracle_judged;             /* oracle_* below hold a differential judgement */
    cdch_verdict oracle_verdict;    /* the differential verdict (the cell's verdict unless oracle is both) */
    unsigned oracle_classes;
    char *oracle_summary;
    char *oracle_side;              /* the first differing rows of both runs (cdch_oracle_side_json), NULL: none */
    cdch_oracle_lines *rows;        /* the rows it printed (kept for the cells of its other modes) */
} cdch_cell;

typedef struct cdch_run cdch_run;

cdch_run *cdch_run_new(const cdch_run_opts *o);
void cdch_run_free(cdch_run *r); /* accepts NULL */

/* "FAMILY" (every pinned version), "FAMILY@VERSION[+variant]" (pinned, or
 * any version the family's registry serves: installed by the same setup,
 * its expectation predicted, predict.h) or "FAMILY@file:PATH[+variant]"
 * (the user's own build, installed under a fingerprint of its content).
 * Errors list the known families / the family's variants. */
int cdch_run_add_consumer(cdch_run *r, const char *spec, cdch_err *err);
/* The same with the consumer's configuration file (NULL: none): adapters get
 * it as CDCH_CONFIG (consumers/README.md "Your configuration"). The same
 * consumer with two configurations is two consumers. */
int cdch_run_add_consumer_config(cdch_run *r, const char *spec, const char *config, cdch_err *err);
/* A program as a consumer (command.h): NAME (NULL: cdch_command_default_name)
 * runs COMMAND in directory cwd (NULL: the harness's) with an adapter's
 * environment; files: it reads the binlog files instead of connecting.
 * Judged by the differential oracle. */
int cdch_run_add_command(cdch_run *r, const char *name, const char *command, const char *cwd, bool files,
                         cdch_err *err);
/* Load a scenario file. */
int cdch_run_add_scenario(cdch_run *r, const char *path, cdch_err *err);
/* "both" (default: the scenario's own modes: both -> uncompressed +
 * compressed, on -> compressed, off -> uncompressed, flip -> flip),
 * "compressed", "uncompressed" or "flip". */
int cdch_run_set_mode(cdch_run *r, const char *mode, cdch_err *err);

/* Plan the cells (consumers × scenarios × modes, minus keep()'s drops,
 * then the shard): done by cdch_run_execute, callable before it to list
 * the cells (cdch_run_ncells/cdch_run_cell) without running anything.
 * Idempotent. total = cells before sharding (may be NULL). */
void cdch_run_plan(cdch_run *r, size_t *total);

/* Run every cell. Returns 0; per-cell failures are verdicts. -1 only when
 * nothing can run (e.g. no temp dir), with err set. */
int cdch_run_execute(cdch_run *r, cdch_err *err);

/* Lock the run's report directory against a second harness (reportlock.h),
 * creating it when missing; held until cdch_run_free. cdch_run_execute
 * takes it first; a caller that writes into the report directory before
 * (matrix: a capture's scenario file) takes it itself. Idempotent; 0 when
 * the run has no report directory. -1 with err set: another harness holds
 * it, or the directory cannot be made. */
int cdch_run_lock_report(cdch_run *r, cdch_err *err);

/* Install every consumer version the planned cells need (setup.h; two
 * setups at a time, as cdch_run_execute does) and run no cell: a CI cache
 * warmed in a step of its own. report (may be NULL) is called for each
 * version with its cache directory and NULL, or the setup's error. Returns
 * how many versions could not be installed. Makes the run directory (its
 * setups' private TMPDIRs, setup.h). Not with cdch_run_execute on the
 * same run. */
size_t cdch_run_install(cdch_run *r, void (*report)(void *ud, const char *family, const char *version,
                                                   const char *dir, const char *error),
                        void *ud);

/* How far a running run is, in its cells' estimated seconds (the last
 * report's, else guessed from the streams' sizes): the longest cells start
 * first and the short ones finish first, so a count of finished cells
 * misjudges what is left. *done gets the estimates of the finished cells
 * plus, for each running one, the part of its estimate its time so far
 * covers; returns the estimates of all cells (0 before the run plans them).
 * Call it where the run's lock is held: from opts.on_cell. */
double cdch_run_progress(const cdch_run *r, double *done);
size_t cdch_run_ncells(const cdch_run *r);
cdch_cell *cdch_run_cell(cdch_run *r, size_t i);
/* The manifest version record of a cell's consumer (for its `expect`). */
const cdch_manifest_version *cdch_run_cell_version(const cdch_run *r, const cdch_cell *c);
const cdch_manifest *cdch_run_cell_manifest(const cdch_run *r, const cdch_cell *c);
/* Cell patterns (expect files, baselines, matrix exclusions and quick
 * lists): a consumer pattern is "*", FAMILY or FAMILY@VERSION; a scenario
 * pattern is "*", the scenario's name or its file name without .yaml. */
bool cdch_cell_match_consumer(const char *pat, const cdch_cell *c);
bool cdch_cell_match_scenario(const char *pat, const cdch_cell *c);

/* The expected.jsonl the cell was judged against (valid until cdch_run_free;
 * NULL when its stream was not generated). */
const char *cdch_run_cell_expected_path(cdch_run *r, const cdch_cell *c);

#endif
