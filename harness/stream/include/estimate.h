/* estimate.h — what binlog_transaction_compression would cost and buy on a
 * captured stream, per zstd level: `cdcharness estimate` (issue 12 item 4).
 *
 * Each level's stream is the capture rewritten by the recompress library
 * (recompress.h) in count-only mode (nothing is written): the same
 * transaction grouping, payloads and positions `recompress --level N`
 * writes, so stream_bytes equals the size of the files it writes. One more
 * pass, level 0, measures the stream with compression OFF (every payload
 * unpacked): the baseline of every ratio.
 *
 * Each pass runs in a child process of its own (fork), `jobs` at a time, so
 * its CPU time and peak memory are its own (wait4's rusage), not the sum of
 * the passes running beside it. Inside the child:
 *   - cpu: user + system CPU of the whole pass (read, verify CRC32, group,
 *     compress, encode; no file written), less the decompression below;
 *   - zstd_cpu: the CPU of the compressing thread inside zstd alone;
 *   - decompress_cpu: every payload's zstd frame decompressed once more
 *     (one reused context, the work a consumer does per payload), its size
 *     checked against the transaction it came from;
 *   - peak_rss: the child's peak resident set (ru_maxrss), which includes
 *     the few MB of the forked process itself (rss_start: its resident set
 *     when the pass began).
 *
 * The row/scaffolding split: "row" bytes are the events of the transactions
 * MySQL compresses (row-based transactional DML: TABLE_MAP, rows events,
 * BEGIN, XID), uncompressed as they would be written (row_wire_in) or as the
 * TRANSACTION_PAYLOAD events that replace them (row_wire_out); scaffolding is
 * every other byte of the stream (FORMAT_DESCRIPTION, PREVIOUS_GTIDS, GTID
 * events, ROTATE, DDL and other transactions MySQL never compresses), which
 * compression leaves as it is.
 *
 * Owns: nothing across calls.
 */
#ifndef CDCH_ESTIMATE_H
#define CDCH_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "recompress.h"

#define CDCH_ESTIMATE_MAX_LEVELS 22

typedef struct cdch_estimate_level {
    int level;                   /* zstd level; 0: the uncompressed stream */
    uint64_t stream_bytes;       /* total binlog file bytes of this stream */
    uint64_t files, transactions, compressed; /* compressed: transactions written as a payload */
    uint64_t row_bytes;          /* the compressed transactions' events, uncompressed, without checksums
                                  * (what zstd compresses; the "GB of row data" of the CPU figures) */
    uint64_t row_wire_in;        /* the same as they are written uncompressed (headers, checksums) */
    uint64_t row_wire_out;       /* the TRANSACTION_PAYLOAD events written instead */
    uint64_t zstd_bytes;         /* their zstd frames alone */
    uint64_t max_transaction_bytes;
    double cpu_s;                /* the pass's CPU (user + system), decompression excluded */
    double zstd_cpu_s;           /* inside zstd compression */
    double decompress_cpu_s;     /* zstd decompression of every payload once */
    double wall_s;               /* the pass's elapsed time */
    uint64_t peak_rss_bytes;     /* the child's peak resident set */
    uint64_t rss_start_bytes;    /* its resident set when the pass began */
} cdch_estimate_level;

typedef struct cdch_estimate_opts {
    int levels[CDCH_ESTIMATE_MAX_LEVELS]; /* zstd levels 1..22, in the order given */
    size_t nlevels;
    int jobs;                    /* passes at a time (default: the online CPUs) */
    bool verify;                 /* verify the input's CRC32 (recompress_opts.verify) */
    bool content_size;           /* zstd frames carry Frame_Content_Size */
    /* called (when set) from the parent as each pass finishes, for progress */
    void (*on_done)(void *ud, const cdch_estimate_level *l, size_t done, size_t total);
    void *on_done_ud;
} cdch_estimate_opts;

/* Measure the uncompressed stream (out[0], level 0) and every level of o
 * (out[1..nlevels], in o's order). out has room for nlevels + 1. On error
 * (the first failing pass's message, e.g. a corrupt input with its file and
 * offset) every child has been reaped. */
int cdch_estimate(const cdch_recompress_input *in, const cdch_estimate_opts *o, cdch_estimate_level *out,
                  cdch_err *err);

/* Parse a level list: "1-7", "1,3,7,19", "1-3,7" (each 1..22, no repeats;
 * kept in the order given). */
int cdch_estimate_parse_levels(const char *spec, cdch_estimate_opts *o, cdch_err *err);

#endif
