/* attach.h — where a consumer that attaches to an existing schema starts.
 *
 * A real deployment starts a connector on a database that already exists:
 * the tables are in the primary's catalogue and the connector starts from
 * the current position, after the DDL that created them. A generated stream
 * begins with that DDL (CREATE DATABASE / CREATE TABLE, binlog.create_tables)
 * and any other leading statement that changes no row (`ddl:`, `empty:`
 * items before the first row); its *schema prefix* is every transaction
 * before the first one that holds a row event (TABLE_MAP, WRITE/UPDATE/
 * DELETE_ROWS v1/v2, PARTIAL_UPDATE_ROWS) or a TRANSACTION_PAYLOAD. DDL
 * after that first row (ddl-between-compressed's mid-stream ALTERs) is not
 * part of it and stays in what the consumer reads.
 *
 * Also the GTID set executed at any point of a stream (cdch_stream_gtids_before).
 *
 * Owns: the cdch_stream_attach's gtid_set text (free with
 * cdch_stream_attach_free); the paths stay the caller's.
 */
#ifndef CDCH_STREAM_ATTACH_H
#define CDCH_STREAM_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct cdch_stream_attach {
    uint64_t txns;   /* transactions in the schema prefix (expected.jsonl's txn 1..txns); 0: none */
    char file[256];  /* the file holding the prefix's last event (the first file when txns == 0) */
    uint64_t pos;    /* just past the prefix's last event in that file (4 when txns == 0) */
    bool gtids;      /* the stream has GTIDs (GTID / GTID_TAGGED events, gtid_mode on) */
    char *gtid_set;  /* gtids: gtid_executed at that point, as text (the first file's PREVIOUS_GTIDS
                      * plus the prefix's GTIDs); NULL otherwise */
} cdch_stream_attach;

/* Find the attach point of the stream whose binlog files are paths[0..n)
 * (in order, as its index lists them). Reads events only up to the first
 * row or payload event (nothing is decompressed). Fails (err names the
 * file and offset) on a malformed file, and when no transaction changes a
 * row (there is nothing to attach before). */
int cdch_stream_attach_point(const char *const *paths, size_t n, cdch_stream_attach *out, cdch_err *err);
void cdch_stream_attach_free(cdch_stream_attach *a); /* accepts a zeroed one */

/* gtid_executed (text, malloc'd into *out) of the stream paths[0..n) at file:pos (file a base
 * name of one of them): the first file's PREVIOUS_GTIDS plus the GTID of every transaction that
 * starts before that point, tagged ones (uuid:tag:N) included: the set a consumer started there by
 * GTID sends (start: {skip_txns: N}). Fails (err names the file) on a malformed file. */
int cdch_stream_gtids_before(const char *const *paths, size_t n, const char *file, uint64_t pos, char **out,
                             cdch_err *err);

#endif
