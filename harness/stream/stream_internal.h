/* stream_internal.h — shared by the stream writer's source files only. */
#ifndef CDCH_STREAM_INTERNAL_H
#define CDCH_STREAM_INTERNAL_H

#include <stdio.h>

#include "event.h"
#include "stream.h"

typedef struct sw_txn_info {
    uint64_t txn_no;     /* 1-based transaction number in the stream */
    uint64_t gno;        /* GTID number (0 when gtid_mode is off) */
    uint32_t ts;         /* event timestamp */
    uint64_t commit_us;  /* commit timestamp, microseconds */
    bool may_have_sbr;   /* DDL: GTID flag FLAG_MAY_HAVE_SBR */
    const char *tag;     /* GTID tag ("" untagged): a GTID_TAGGED event, uuid:tag:gno */
    size_t n_events;     /* events in the transaction cache */
} sw_txn_info;

typedef struct sw_writer {
    const cdch_scenario *s;
    cdch_stream_mode mode;
    const char *dir;            /* temporary output directory */
    FILE *bin, *index, *expected, *manifest_files;
    char *binbuf;               /* bin's stdio buffer, CDCH_IO_BUF bytes, reused file to file */
    char *manifest_files_buf;
    size_t manifest_files_len;
    char file_name[256];
    unsigned file_no;
    uint64_t pos;               /* position in the current file */
    uint64_t fde_offset;
    cdch_fde fde;
    cdch_gtid_set executed;     /* gtid_executed so far */
    cdch_arena arena;           /* long-lived: table maps, gtid set */
    cdch_table_map *tms;        /* per scenario table (same index) */
    cdch_zstd_compressor *zstd; /* reused for every payload */
    cdch_buf cache;             /* the transaction cache: inner events, no CRC, log_pos 0 */
    cdch_buf evbuf, zbuf, rowbuf, tmp;
    cdch_buf exp;               /* expected lines of the transaction (without position) */
    size_t *exp_lines;          /* end offset of each line in exp */
    size_t n_exp, cap_exp;
    uint64_t txn_no, xid;
    int64_t seq, last_committed;
    bool compress_now;          /* FLIP mode state */
    const char *tag_now;        /* gtid_next='AUTOMATIC[:tag]' state: "" untagged */
    uint64_t n_untagged;        /* untagged GTIDs given so far (GNO first_gno + n) */
    struct sw_tag_gno {
        const char *tag;
        uint64_t last;          /* last GNO given to uuid:tag (GNOs of a tag count from 1) */
    } *tag_gnos;
    size_t n_tag_gnos;
    cdch_stream_stats stats;
} sw_writer;

int sw_tables_init(sw_writer *w, cdch_err *err);
/* Append the events of a DDL / DML transaction to `cache` (inner form);
 * sets ti->n_events and queues expected lines. */
int sw_put_ddl(sw_writer *w, sw_txn_info *ti, const char *db, const char *sql, cdch_buf *cache, cdch_err *err);
int sw_put_dml(sw_writer *w, sw_txn_info *ti, const cdch_sc_txn *t, bool transactional, cdch_buf *cache,
               cdch_err *err);
/* Write the queued expected lines with the transaction's GTID and end position. */
int sw_expected_flush(sw_writer *w, const sw_txn_info *ti, bool compressed, cdch_err *err);


#endif
