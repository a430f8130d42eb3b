/* record_internal.h — the capture directory writer shared by `record` from
 * a server (record.c) and from files (record_capture.c), and the schema
 * snapshot (record_schema.c). Private to `record`.
 *
 * Owns: a rec_capture owns its temporary directory (removed by
 * rec_cap_abort), the open binlog file, the file names, the set of tables
 * seen in TABLE_MAP events and its scratch buffer; rec_cap_finish or
 * rec_cap_abort releases all of it. A rec_schema owns its strings.
 */
#ifndef CDCH_RECORD_INTERNAL_H
#define CDCH_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "err.h"
#include "record.h"

/* A (database, table) pair; names as the binlog spells them. */
typedef struct rec_table {
    char *db;
    char *name;
    uint64_t hash;
} rec_table;

/* The tables seen, in first-seen order, with a hash index over them. */
typedef struct rec_tables {
    rec_table *v;
    size_t n, vcap;
    uint32_t *idx; /* open addressing: index into v + 1, 0 = empty */
    size_t icap;   /* a power of two, > 2n */
} rec_tables;

typedef struct rec_capture {
    const char *out_dir;
    char tmp[4096];      /* temporary directory, renamed to out_dir at the end */
    FILE *f;             /* the binlog file being written */
    char *iobuf;         /* its stdio buffer */
    char cur[512];       /* its name */
    uint64_t cur_size;   /* bytes in it (magic included) */
    bool cur_has_fde;    /* its FDE is written (a re-sent one, on resume, is not) */
    char **names;        /* files in order */
    uint64_t *sizes;
    size_t nfiles;
    uint64_t bytes, events; /* events written (magic not counted) */
    bool scan_tables;    /* note the tables TABLE_MAP events name (--tables touched); set after rec_cap_begin */
    rec_tables tables;
    cdch_buf scratch;    /* decompressed payloads */
    struct ZSTD_DCtx_s *dctx; /* kept for the whole capture (zstd.h's ZSTD_DCtx) */
} rec_capture;

/* Create the temporary directory beside out_dir (out_dir must not exist or be empty). */
int rec_cap_begin(rec_capture *c, const char *out_dir, cdch_err *err);
/* Start the file `name` (a plain file name: no '/', not "." or "..") or,
 * when it is the current one, go on appending to it. */
int rec_cap_file(rec_capture *c, const char *name, cdch_err *err);
/* Append one event to the current file and, with scan_tables, note the
 * tables it maps (TABLE_MAP, also inside TRANSACTION_PAYLOAD). */
int rec_cap_event(rec_capture *c, const uint8_t *ev, size_t len, cdch_err *err);
/* Close the files, write the index, capture.json ({fields_json, "files",
 * "tables_scanned", "tables" (null without scan_tables), "bytes", "events"}: fields_json is a JSON object body without
 * braces, e.g. "\"source\":\"server\",...") and schema_sql (NULL: no
 * schema.sql), then rename the directory into place. in_schema(db, table)
 * says whether schema_sql holds that table (NULL: not known, written as null). */
int rec_cap_finish(rec_capture *c, const char *fields_json, const char *schema_sql,
                   bool (*in_schema)(void *ctx, const char *db, const char *table), void *ctx, cdch_err *err);
void rec_cap_abort(rec_capture *c); /* removes the temporary directory; frees */

/* The schema as of the start (record_schema.c): SHOW CREATE DATABASE and
 * SHOW CREATE TABLE of every base table outside the system schemas. */
struct st_mysql;
typedef struct rec_schema {
    rec_table *tables; /* name = table; hash unused */
    char **table_sql;  /* SHOW CREATE TABLE's text, one per table */
    size_t ntables;
    char **dbs, **db_sql;
    size_t ndbs;
} rec_schema;

int rec_schema_load(struct st_mysql *m, rec_schema *s, cdch_err *err);
/* schema.sql, malloc'd: with c->scan_tables, the tables of c that s holds (a
 * comment names the others); without, every table of s. */
char *rec_schema_sql(const rec_schema *s, const rec_capture *c, const char *header);
bool rec_schema_has(void *schema, const char *db, const char *table);
void rec_schema_free(rec_schema *s);

/* The tables seen so far, in first-seen order. */
size_t rec_cap_ntables(const rec_capture *c);
const rec_table *rec_cap_table(const rec_capture *c, size_t i);

/* Checksum algorithm an FDE announces (CDCH_CHECKSUM_*). */
uint8_t rec_fde_checksum_alg(const uint8_t *ev, size_t len);
/* The event's CRC32 is right (len >= 19 + 4). */
bool rec_crc_ok(const uint8_t *ev, size_t len);

#endif
