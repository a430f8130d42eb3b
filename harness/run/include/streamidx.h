/* streamidx.h — where each transaction of a generated stream is: for
 * verdicts that name "txn 7 (gtid ...:7) at binlog.000001:1663,
 * Transaction_payload" and for checkpoint bounds.
 *
 * Owns: the cdch_stream_index and its arrays/strings. Built by framing the
 * stream's binlog files (the order of <basename>.index) with the codec's
 * reader; events are not decoded, but for payloads, which are decompressed
 * to count the PARTIAL_UPDATE_ROWS events inside (verdicts name them: no
 * Debezium version has a handler for them), and GTID events, decoded for each
 * transaction's GTID (checkpoints: the GTID set executed up to a transaction,
 * diff.h). Transaction k (1-based, as expected.jsonl's
 * "txn") starts at the k-th GTID / ANONYMOUS_GTID / GTID_TAGGED event, the
 * same count the reference consumer (canon.c) keeps.
 */
#ifndef CDCH_STREAMIDX_H
#define CDCH_STREAMIDX_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct cdch_txn_loc {
    const char *file;    /* "binlog.000001" */
    uint64_t start;      /* offset of the GTID event */
    uint64_t end;        /* offset just past the transaction's last event (its XID/COMMIT) */
    uint64_t body_pos;   /* offset of the first event after the GTID (payload or BEGIN) */
    uint8_t body_type;   /* its event type (40 = Transaction_payload, 2 = Query) */
    uint32_t partial_rows; /* PARTIAL_UPDATE_ROWS events (type 39) in it, inside payloads too */
    uint32_t sid;        /* its GTID's server (index into sids), CDCH_TXN_NO_GTID for an anonymous one */
    int64_t gno;         /* its GTID's number */
} cdch_txn_loc;

#define CDCH_TXN_NO_GTID UINT32_MAX

typedef struct cdch_txn_sid {
    uint8_t uuid[16];
    char tag[33]; /* "" when untagged (CDCH_GTID_TAG_MAX + 1) */
} cdch_txn_sid;

typedef struct cdch_stream_index {
    size_t ntxn;
    cdch_txn_loc *txn; /* txn[k-1] = transaction k */
    size_t nfiles;
    char **files;      /* file names in order */
    char **paths;      /* full paths in order */
    size_t nsids;
    cdch_txn_sid *sids; /* the servers of the transactions' GTIDs */
    char *prev_gtids;  /* the first file's PREVIOUS_GTIDS (executed before the stream) as text; NULL: none */
} cdch_stream_index;

/* Index the stream in directory dir (reads its *.index file). */
int cdch_stream_index_load(const char *dir, cdch_stream_index *out, cdch_err *err);
void cdch_stream_index_free(cdch_stream_index *idx); /* accepts a zeroed index */

/* Location of transaction k, NULL when unknown. */
const cdch_txn_loc *cdch_stream_index_txn(const cdch_stream_index *idx, uint64_t k);

#endif
