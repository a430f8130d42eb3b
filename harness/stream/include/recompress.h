/* recompress.h — rewrite captured binlog files as MySQL 8 writes them with
 * binlog_transaction_compression=ON (at a chosen zstd level), or with it OFF
 * (every TRANSACTION_PAYLOAD unpacked), or switched on at one transaction.
 *
 * What is rewritten, per transaction (a GTID / ANONYMOUS_GTID / GTID_TAGGED
 * event and the events after it up to and including its XID, XA_PREPARE or
 * commit QUERY):
 *   - compressed: the events after the GTID event go into one
 *     TRANSACTION_PAYLOAD (type 40, one zstd frame, inner events without
 *     checksum and with log_pos 0) exactly where MySQL's
 *     Binlog_cache_compressor::shall_compress would compress: row-based
 *     transactional DML (first event QUERY BEGIN or XA START, at least one
 *     rows event, ends with XID or XA_PREPARE, GTID flag MAY_HAVE_SBR clear,
 *     nothing but ROWS_QUERY / TABLE_MAP / rows events / XA END in between)
 *     written by a server of 8.0.20 or later. Never: DDL, non-transactional
 *     (QUERY COMMIT instead of XID, e.g. MyISAM), empty, incident or
 *     statement-based transactions, or one cut short by the end of a file.
 *     The payload's header timestamp and server id are those of the
 *     transaction's last event (its XID), as in real 8.0 files.
 *   - uncompressed: payloads are unpacked, each inner event getting its
 *     checksum (when the file has them) and position back.
 *   Already compressed payloads are decompressed and compressed again at the
 *   requested level. The GTID event's transaction_length, every event's
 *   log_pos and every CRC32 are recomputed; the checksum setting is the one
 *   each input file's FORMAT_DESCRIPTION names. Everything else is copied:
 *   FORMAT_DESCRIPTION, PREVIOUS_GTIDS, ROTATE (same next file, new
 *   end_log_pos), STOP, and every event outside transactions. File names and
 *   file boundaries are kept (rotation is not redone by size).
 *
 * Streaming: one event is read at a time and one transaction is held whole
 * (as MySQL's transaction cache holds it), so memory is the largest
 * transaction (uncompressed, plus its compressed form) and a constant, however
 * large the capture. One zstd compression context serves every payload.
 *
 * Output: DIR/<the input file names> and DIR/<index>, written into a
 * temporary sibling directory renamed into place only when everything
 * succeeded (DIR must not exist or be empty); an error leaves nothing.
 *
 * Owns: cdch_recompress_input (its path strings); nothing else outlives a call.
 */
#ifndef CDCH_RECOMPRESS_H
#define CDCH_RECOMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct cdch_recompress_opts {
    bool compress;      /* true: compression ON (where MySQL compresses); false: every payload unpacked */
    int level;          /* zstd level 1..22 (binlog_transaction_compression_level_zstd) */
    bool content_size;  /* zstd frames carry Frame_Content_Size (as gen's binlog.zstd_content_size) */
    uint64_t flip_at;   /* with compress: 0 = from the start; N = transactions 1..N-1 written
                         * uncompressed, N.. compressed (1-based, counted over all files by
                         * GTID events, the "txn" of expected.jsonl) */
    bool verify;        /* verify every input CRC32 (default on) */
    bool time_zstd;     /* fill stats.zstd_ns / zstd_cpu_ns (costs a system call per transaction) */
    /* Called (when set) with each zstd frame written into a TRANSACTION_PAYLOAD
     * and the size it decompresses to; valid during the call only (estimate.h
     * decompresses it to measure what a consumer spends). */
    void (*on_payload)(void *ud, const uint8_t *frame, size_t len, uint64_t uncompressed_len);
    void *on_payload_ud;
} cdch_recompress_opts;

typedef struct cdch_recompress_stats {
    uint64_t files;
    uint64_t bytes_in, bytes_out;    /* total binlog file sizes */
    uint64_t events_in;              /* top-level events read */
    uint64_t transactions;           /* GTID events */
    uint64_t compressed;             /* transactions written as a TRANSACTION_PAYLOAD */
    uint64_t payloads_in;            /* TRANSACTION_PAYLOAD events read (unpacked or recompressed) */
    uint64_t not_compressible;       /* DDL, non-transactional, empty, incident, statement-based, cut short */
    uint64_t old_server;             /* transactions of servers before 8.0.20 (never compressed) */
    uint64_t compressed_in_bytes;    /* uncompressed size of the transactions written compressed */
    uint64_t compressed_out_bytes;   /* their payloads' zstd frames */
    uint64_t max_transaction_bytes;  /* largest transaction held (inner events, uncompressed) */
    uint64_t zstd_ns;                /* wall time spent inside zstd compression (opts.time_zstd) */
    uint64_t zstd_cpu_ns;            /* CPU time of the calling thread inside zstd compression (opts.time_zstd) */
    uint64_t payload_wire_bytes;     /* TRANSACTION_PAYLOAD events written (header and checksum included) */
    uint64_t compressed_in_wire_bytes; /* the same transactions' events uncompressed, as they would be written
                                      * (headers and checksums included, GTID event excluded) */
} cdch_recompress_stats;

/* The binlog files to read, in order, and the index file to write. */
typedef struct cdch_recompress_input {
    char **paths;     /* n paths */
    size_t n;
    char *index_name; /* e.g. "binlog.index" */
} cdch_recompress_input;

/* Resolve the command line's IN arguments: one directory holding exactly one
 * *.index file (a `cdcharness gen` output, a copy of a server's binlog
 * directory) gives the files the index lists, in its order (each line's
 * base name, looked up in that directory); otherwise every argument must be
 * a binlog file, in stream order, and the index is named after the first
 * file (binlog.000001 -> binlog.index). Two inputs with the same base name
 * are refused (the output keeps the names). */
int cdch_recompress_resolve(int nargs, char *const *args, cdch_recompress_input *in, cdch_err *err);
void cdch_recompress_input_free(cdch_recompress_input *in);

/* Rewrite the input into out_dir. stats may be NULL. Errors name the file
 * and offset (truncated or corrupt input, a checksum mismatch, a write
 * failure); nothing is left behind then. out_dir NULL: count only (the
 * stream is rewritten and measured in stats, bytes_out included, but no
 * file is written). */
int cdch_recompress(const cdch_recompress_input *in, const char *out_dir, const cdch_recompress_opts *o,
                    cdch_recompress_stats *stats, cdch_err *err);

#endif
