/* stream.h — scenario -> binlog files + expected change events.
 *
 * Owns: the cdch_stream_writer (its output files, buffers and state); the
 * scenario stays the caller's. Generation streams: one transaction at a
 * time is built, written and forgotten, so memory stays flat however long
 * the stream is (a single transaction is held whole, as MySQL's
 * transaction cache holds it).
 *
 * Output of one generation (into a directory):
 *   <basename>.000001 ...   binlog files exactly as a MySQL server of the
 *                           scenario's version writes them (magic, FDE,
 *                           PREVIOUS_GTIDS, transactions, ROTATE at the end of
 *                           all but the last file, optional STOP)
 *   <basename>.index        the index file ("./binlog.000001" per line)
 *   expected.jsonl          one canonical change event per row (design.md s.4)
 *                           plus "txn" (1-based transaction number) and
 *                           "compressed" (whether it was written in a payload)
 *   stream.json             what a server needs to serve it: version, ids,
 *                           files and sizes, gtid_executed, counts
 * The directory is written under a temporary name and renamed into place
 * only when everything succeeded: an error leaves nothing half-written.
 */
#ifndef CDCH_STREAM_H
#define CDCH_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "scenario.h"

typedef enum cdch_stream_mode {
    CDCH_STREAM_UNCOMPRESSED = 0,
    CDCH_STREAM_COMPRESSED,
    CDCH_STREAM_FLIP, /* follow the scenario's mid-stream flips; starts uncompressed */
} cdch_stream_mode;

const char *cdch_stream_mode_name(cdch_stream_mode m); /* "uncompressed", "compressed", "flip" */
int cdch_stream_mode_parse(const char *s, cdch_stream_mode *out);

typedef struct cdch_stream_stats {
    uint64_t files;
    uint64_t bytes;                 /* total size of the binlog files */
    uint64_t events;                /* top-level events written */
    uint64_t inner_events;          /* events inside payloads */
    uint64_t transactions;
    uint64_t compressed_transactions;
    uint64_t row_changes;           /* lines in expected.jsonl */
    uint64_t row_data_bytes;        /* bytes of row images (uncompressed) */
    uint64_t max_transaction_bytes; /* largest transaction (uncompressed inner events) */
} cdch_stream_stats;

/* Generate the stream of scenario s in `mode` into directory `out_dir`
 * (created; must not exist or be empty). stats may be NULL. */
int cdch_stream_generate(const cdch_scenario *s, cdch_stream_mode mode, const char *out_dir,
                         cdch_stream_stats *stats, cdch_err *err);

/* Output directories written atomically: prepare_out makes a fresh temporary
 * sibling of out_dir (its path in tmp), commit_out renames it into place
 * (out_dir must not exist or be empty); rm_tree removes a tree (cleanup). */
int cdch_stream_prepare_out(const char *out_dir, char *tmp, size_t tmpsz, cdch_err *err);
int cdch_stream_commit_out(const char *tmp, const char *out_dir, cdch_err *err);
int cdch_stream_rm_tree(const char *path);

#endif
