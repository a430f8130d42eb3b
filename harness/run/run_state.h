/* run_state.h — the run's state (struct cdch_run, and the consumer,
 * scenario and stream records it owns), shared by the run module's two
 * halves: runner.c (building a run, its plan, its streams, its setups and
 * the scheduling of its cells) and cell.c (one cell's life). Not part of
 * the public interface (runner.h); nothing outside harness/run includes it.
 *
 * Owns: nothing itself; the records below are owned by their cdch_run
 * (freed by cdch_run_free). Fields marked "under mu" are read and written
 * with run->mu held.
 */
#ifndef CDCH_RUN_STATE_H
#define CDCH_RUN_STATE_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "admit.h"
#include "backlog.h"
#include "diff.h"
#include "events.h"
#include "manifest.h"
#include "runner.h"
#include "scenario.h"
#include "session.h"
#include "stream.h"
#include "streamidx.h"

typedef struct consumer {
    cdch_manifest *m; /* shared by the versions of a family (owned by run->manifests) */
    const cdch_manifest_version *v;
    cdch_manifest_version *own; /* v when the manifest does not pin it (cdch_manifest_unpinned), owned */
    char *config;     /* the user's configuration file (absolute), NULL: the adapter's defaults */
    char local_version[64]; /* local build: the library version its setup found ("" unknown) */
    char local_fp[24];      /* local build: fingerprint of its content */
    char cache[PATH_MAX];
    char *setup_error;
    enum { SETUP_PENDING, SETUP_RUNNING, SETUP_DONE } setup; /* under run->mu */
    bool used;        /* a cell of this run (shard) needs it */
    bool command;     /* a program, not an adapter (command.h): m is its own, nothing to set up */
} consumer;

typedef struct scen {
    cdch_scenario *s;    /* what runs: the watermarked copy when there is one */
    cdch_scenario *orig; /* as loaded from path (cells point at its name); NULL when s is it */
    char *path;
    char *run_path;      /* the file adapters get as CDCH_SCENARIO (the watermarked copy, or path) */
    char *wm_db;         /* the watermark table's database, NULL: no watermark */
    char *databases; /* comma-separated */
    cdch_diff_schema *schema;
} scen;

typedef struct stream {
    size_t scen;
    const char *mode;
    bool attach;     /* consumers attach after the schema prefix (cdch_cell.attach) */
    char *dir;
    char *error;
    cdch_change_list *expected; /* freed when its last cell is done (cells_left, under run->mu) */
    cdch_diff_expected *keys;   /* the expected rows' alignment keys, made by the first cell judged
                                 * (stream_keys), freed with expected */
    bool keys_making;           /* a cell is making them (under run->mu) */
    size_t cells_left;       /* cells of this run (shard) that still need it */
    uint64_t expected_bytes; /* size of expected.jsonl */
    cdch_stream_index idx;
    uint64_t events; /* top-level events in the files */
    cdch_stream_stats stats;
    char *expected_path; /* cdch_run_cell_expected_path's answer, made on demand */
    char *files;     /* absolute paths, space-separated */
    char *start_file;  /* scenario start: where consumers start (NULL: the first file, position 4) */
    uint64_t start_pos;
    char *gtid_set;    /* scenario start with gtid_mode on: the GTID set executed before it */
    uint64_t attach_txns; /* attach: transactions of the schema prefix the consumer starts after */
} stream;

struct cdch_run {
    cdch_run_opts o;
    char **dirs;
    char *report_dir;
    int report_lock; /* cdch_run_lock_report's descriptor; -1 none yet, -2 unlocked (no flock) */
    char *bin;
    char *cache_root;
    char *mode;
    cdch_manifest **manifests;
    size_t nmanifests;
    consumer *consumers;
    size_t nconsumers;
    scen *scens;
    size_t nscens;
    stream *streams;
    size_t nstreams;
    cdch_cell *cells;
    size_t ncells;
    char tmp[PATH_MAX];
    pthread_mutex_t mu;
    pthread_cond_t changed; /* a setup finished (under mu) */
    pthread_cond_t keys_made; /* a stream's expected keys were made (under mu) */
    size_t done;
    bool *taken;            /* per cell: a worker has it (under mu) */
    bool *finished;         /* per cell: run and judged (under mu; differential cells wait for their plain twin) */
    double *estimate;       /* per cell: expected seconds (longest first) */
    double *started;        /* per cell: run_now_s() when a worker took it, 0 before (under mu) */
    bool *heavy;            /* per cell: CPU-heavy (admit.h) */
    cdch_admit admit;       /* heavy cells and setups running (under mu) */
    cdch_session_pool sessions; /* session-mode adapters, shared by the workers (under mu) */
    size_t *untaken;        /* per consumer: cells no worker has taken yet (under mu) */
    cdch_backlog backlog;   /* per consumer: seconds of cells left, so sessions launched by need (under mu) */
    bool planned;
    size_t planned_total; /* before sharding */
};

/* A monotonic clock's seconds (the run's wall clock: never a verdict's time, waits.h). */
static inline double run_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A new string from a format (out of memory aborts, xalloc.h); the caller frees it. */
char *run_xprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The index of the stream of scenario sc in mode (attached or not), added when new. */
size_t run_stream_for(cdch_run *r, size_t sc, const char *mode, bool attach);

/* The consumer runs in session mode (session.h). */
static inline bool run_consumer_session(const consumer *con) { return cdch_manifest_session(con->m, con->v); }

#endif
