/* scenario.h — the scenario model: what happened on a MySQL primary
 * (server and binlog settings, schema, transactions, bulk generators), as
 * loaded from a scenario YAML file (language: scenarios/README.md).
 *
 * Owns: a cdch_scenario owns everything reachable from it (one arena);
 * free it with cdch_scenario_free. Bulk generators are specs, not rows:
 * the stream builder (harness/stream) asks cdch_bulk_next for one
 * transaction at a time, so a 2 GB stream never exists in memory.
 *
 * Errors: the loader reports "FILE:LINE:COLUMN: what is wrong" (1-based
 * line and column of the YAML node at fault) and returns NULL; nothing is
 * half-loaded.
 */
#ifndef CDCH_SCENARIO_H
#define CDCH_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "err.h"
#include "value.h"

/* A place in the scenario file, for messages. */
typedef struct cdch_sc_mark {
    uint32_t line, column; /* 1-based; 0 = unknown */
} cdch_sc_mark;

/* ---- schema ---------------------------------------------------------------- */

typedef struct cdch_sc_column {
    const char *name;
    const char *sql_type;  /* normalised SQL type text: "decimal(10,2) unsigned", "enum('a','b')" */
    cdch_coldef def;       /* binlog type/meta, unsigned, nullable, collation, labels (def.name = name) */
    const char *charset;   /* "utf8mb4", "binary", ... (NULL for non-character types) */
    const char *collation; /* "utf8mb4_0900_ai_ci", ... (NULL for non-character types) */
    uint32_t char_length;  /* declared length: characters (CHAR/VARCHAR), bytes (BINARY/VARBINARY),
                            * bits (BIT), dimensions (VECTOR), 0 otherwise */
    uint32_t mbmaxlen;     /* max bytes per character of the charset (1..4) */
    bool primary_key;
    bool invisible;
    bool auto_increment;
    const char *default_sql; /* DEFAULT clause text or NULL */
    cdch_sc_mark mark;
    const cdch_value *default_value; /* the DEFAULT as a value (NULL: none): what omitted columns take */
} cdch_sc_column;

typedef struct cdch_sc_table {
    const char *db;
    const char *name;
    bool transactional;    /* engine InnoDB (default) vs MyISAM/MEMORY: never compressed */
    const char *engine;    /* "InnoDB", "MyISAM", ... */
    size_t ncols;
    cdch_sc_column *cols;
    uint64_t table_id;     /* assigned by the loader: 1-based order of appearance + server base */
    cdch_sc_mark mark;
    const char *create_sql; /* capture: the CREATE TABLE of schema.sql when it is in SHOW CREATE TABLE form
                             * (what the fake primary answers verbatim); NULL: printed from the columns */
    /* the table's DEFAULT CHARSET and COLLATE, canonical: what a column added later by ALTER TABLE takes
     * (ddltrack.h). Set for schema.sql's and the stream's tables; NULL for `tables:` (utf8mb4,
     * utf8mb4_0900_ai_ci: what stream/ddl.h declares for them) */
    const char *charset;
    const char *collation;
} cdch_sc_table;

typedef struct cdch_sc_database {
    const char *name;
    const char *charset;   /* default "utf8mb4" */
    const char *collation; /* default "utf8mb4_0900_ai_ci" */
} cdch_sc_database;

/* ---- transactions ---------------------------------------------------------- */

typedef enum cdch_sc_op {
    CDCH_SC_INSERT = 1,
    CDCH_SC_UPDATE,
    CDCH_SC_DELETE,
} cdch_sc_op;

/* One partial JSON update of one column (binlog_row_value_options=PARTIAL_JSON):
 * the after value is before with these operations applied. */
typedef struct cdch_sc_json_update {
    size_t column;          /* column index */
    cdch_json_diff diff;    /* operations in order */
} cdch_sc_json_update;

/* One row change. before/after are full rows (ncols values, never ABSENT):
 * the builder derives MINIMAL/NOBLOB images from them. */
typedef struct cdch_sc_row {
    cdch_value *before;     /* UPDATE/DELETE */
    cdch_value *after;      /* INSERT/UPDATE */
    size_t n_json_updates;  /* UPDATE with partial JSON updates */
    cdch_sc_json_update *json_updates;
    cdch_sc_mark mark;
} cdch_sc_row;

/* One statement: rows of one table changed by one SQL statement (one or
 * more rows events, split like MySQL does at binlog_row_event_max_size). */
typedef struct cdch_sc_stmt {
    cdch_sc_op op;
    const cdch_sc_table *table;
    size_t nrows;
    cdch_sc_row *rows;
    const char *rows_query;  /* text for the ROWS_QUERY event (NULL: the builder writes one) */
    cdch_sc_mark mark;
} cdch_sc_stmt;

typedef enum cdch_sc_txn_kind {
    CDCH_SC_TXN_DML = 1,  /* BEGIN, statements, XID (or COMMIT for non-transactional tables) */
    CDCH_SC_TXN_DDL,      /* one QUERY event (never compressed) */
    CDCH_SC_TXN_EMPTY,    /* BEGIN, COMMIT with nothing in between */
} cdch_sc_txn_kind;

typedef enum cdch_sc_compress {
    CDCH_SC_COMPRESS_DEFAULT = 0, /* follow the stream's mode */
    CDCH_SC_COMPRESS_ON,          /* SET binlog_transaction_compression=ON before this one */
    CDCH_SC_COMPRESS_OFF,
} cdch_sc_compress;

typedef struct cdch_sc_txn {
    cdch_sc_txn_kind kind;
    size_t nstmts;
    cdch_sc_stmt *stmts;
    const char *ddl_db;      /* DDL: current database ("" for none) */
    const char *ddl_sql;     /* DDL: statement text */
    cdch_sc_compress compress; /* a mid-stream flip that starts at this transaction */
    const char *gtid_tag;    /* a `gtid_next:` switch just before this transaction (8.3+):
                              * NULL = none; "" = SET gtid_next='AUTOMATIC' (untagged GTIDs);
                              * "tag" = 'AUTOMATIC:tag' (this and the following transactions get
                              * uuid:tag:N, N counted per tag from 1) */
    cdch_sc_mark mark;
} cdch_sc_txn;

/* ---- bulk generators ------------------------------------------------------- */

typedef enum cdch_bulk_kind {
    /* nightly batch rewrite of JSON staging rows: UPDATEs of wide, highly
     * repetitive JSON documents (compresses very well) */
    CDCH_BULK_JSON_STAGING = 1,
    /* short random-key updates on a narrow table (poorly compressible) */
    CDCH_BULK_RANDOM_KEYS,
    /* inserts of random rows of any table (every column type) */
    CDCH_BULK_INSERTS,
} cdch_bulk_kind;

typedef struct cdch_sc_bulk {
    cdch_bulk_kind kind;
    const cdch_sc_table *table;
    uint64_t seed;
    uint64_t transactions;      /* how many transactions to generate */
    uint64_t rows_per_txn;      /* rows per transaction */
    uint64_t target_bytes;      /* stop once this much row data was generated (0 = no limit) */
    uint32_t doc_keys;          /* JSON_STAGING: keys per document */
    uint32_t value_bytes;       /* size of generated string/JSON values */
    cdch_sc_mark mark;
    uint64_t keys;              /* RANDOM_KEYS: keys 1..keys are updated (default 10000);
                                 * JSON_STAGING: staging rows 1..keys (default rows_per_txn) */
    uint64_t first_id;          /* INSERTS: integer primary key of the first generated row
                                 * (default: one past the largest key inserted before) */
    cdch_sc_compress compress;  /* a `compression:` switch just before this item: cdch_bulk_next
                                 * sets it on the first transaction it generates */
} cdch_sc_bulk;

/* ---- items: the stream in order -------------------------------------------- */

typedef enum cdch_sc_item_kind { CDCH_SC_ITEM_TXN = 1, CDCH_SC_ITEM_BULK } cdch_sc_item_kind;

typedef struct cdch_sc_item {
    cdch_sc_item_kind kind;
    union {
        cdch_sc_txn txn;
        cdch_sc_bulk bulk;
    } u;
} cdch_sc_item;

/* ---- settings -------------------------------------------------------------- */

typedef enum cdch_row_image { CDCH_ROW_IMAGE_FULL = 0, CDCH_ROW_IMAGE_MINIMAL, CDCH_ROW_IMAGE_NOBLOB } cdch_row_image;

typedef enum cdch_compression_mode {
    CDCH_COMPRESSION_BOTH = 0, /* generate a compressed and an uncompressed stream (default) */
    CDCH_COMPRESSION_ON,       /* only compressed */
    CDCH_COMPRESSION_OFF,      /* only uncompressed */
    CDCH_COMPRESSION_FLIP,     /* one stream; transactions carry ON/OFF flips */
} cdch_compression_mode;

/* The server a scenario without server.version describes: the current 8.4 LTS release
 * (https://dev.mysql.com/doc/relnotes/mysql/8.4/en/news-8-4-9.html, released 2026-04-21
 * with 9.7.0, the first 9.x LTS, when 8.0 reached its end of life). */
#define CDCH_SC_DEFAULT_VERSION "8.4.9"
#define CDCH_SC_DEFAULT_VERSION_PRODUCT 80409

typedef struct cdch_sc_server {
    const char *version;     /* "8.4.9" (8.0.20 ... 9.x; default CDCH_SC_DEFAULT_VERSION) */
    uint32_t server_id;      /* default 1 */
    uint8_t uuid[16];        /* server_uuid */
    bool gtid_mode;          /* ON: GTID events; OFF: ANONYMOUS_GTID */
    uint32_t thread_id;      /* session thread id written in QUERY events (default 8) */
    uint64_t first_table_id; /* table id of the first table (default 90) */
    uint64_t first_gno;      /* GNO of the first transaction (default 1) */
    bool native_password;    /* the mysql_native_password plugin is loaded (--mysql-native-password):
                              * default ON before 8.4.0, OFF on 8.4.x, absent (never ON) from 9.0.0 */
} cdch_sc_server;

typedef struct cdch_sc_binlog {
    bool checksum;           /* CRC32 (default) vs NONE */
    cdch_row_image row_image;
    bool row_metadata_full;  /* binlog_row_metadata FULL vs MINIMAL (default) */
    bool rows_query;         /* binlog_rows_query_log_events */
    bool partial_json;       /* binlog_row_value_options=PARTIAL_JSON */
    uint64_t max_size;       /* max_binlog_size: rotate after the transaction that reaches it (default 1 GiB) */
    const char *basename;    /* file prefix, default "binlog" */
    cdch_compression_mode compression;
    int zstd_level;          /* 1..22, default 3 */
    bool zstd_content_size;  /* write Frame_Content_Size in payload frames (default false, like 8.0.2x) */
    uint32_t row_event_max_size; /* binlog_row_event_max_size, default 8192 */
    uint64_t start_time;     /* epoch seconds of the first event (default 2024-01-01 00:00:00 UTC) */
    bool create_tables;      /* start the stream with CREATE DATABASE/TABLE DDL (default true) */
    bool end_with_stop;      /* end the last file with a STOP event (default false: file left open) */
} cdch_sc_binlog;

/* Faults the fake primary injects into binlog dumps of this scenario
 * (`faults:`; events numbered from 1 per dump, counting the fake ROTATE and
 * FDE of each file). 0 = off. The serve command's --drop-after-events etc.
 * override them. */
typedef struct cdch_sc_faults {
    uint64_t drop_after_events;
    uint64_t drop_after_bytes;
    uint64_t corrupt_checksum_at;
    uint64_t truncate_event_at;
    uint64_t unknown_event_at;
    uint64_t stall_at;
    bool once;               /* only the first dump connection */
} cdch_sc_faults;

typedef struct cdch_scenario {
    const char *path;        /* file it was loaded from */
    const char *name;        /* scenario name (default: file name without .yaml) */
    const char *description; /* what compatibility risk it probes */
    cdch_sc_server server;
    cdch_sc_binlog binlog;
    cdch_sc_faults faults;
    uint64_t start_skip_txns;  /* start: {skip_txns: N}: consumers start right after the N-th transaction that
                                * changes rows, by GTID set and by file:position (0: at the start) */
    bool start_attach;         /* start: attach: the schema pre-exists on the primary; consumers start after the
                                * stream's leading schema DDL (stream attach.h), by GTID set and by file:position */
    /* capture: DIR (scenarios/README.md "Captured streams"): the stream is a capture's binlog files,
     * served as recorded (recompressed per mode), not generated; the schema is its schema.sql, the
     * server identity its first file's. No items then. */
    const char *capture_dir;   /* absolute path; NULL: a generated scenario */
    uint64_t capture_flip_at;  /* flip streams of a capture: compression ON from this transaction
                                * (1-based, as expected.jsonl's "txn"); 0: the middle one */
    size_t ndbs;
    cdch_sc_database *dbs;
    size_t ntables;
    cdch_sc_table *tables;
    size_t nitems;
    cdch_sc_item *items;
    cdch_arena arena;        /* owns everything above */
} cdch_scenario;

/* Load and validate a scenario file. Returns NULL with err set to
 * "PATH:LINE:COL: message" on any problem. */
cdch_scenario *cdch_scenario_load(const char *path, cdch_err *err);
/* Same from memory (name is used in messages). */
cdch_scenario *cdch_scenario_load_mem(const char *yaml, size_t len, const char *name, cdch_err *err);
void cdch_scenario_free(cdch_scenario *s); /* accepts NULL */

/* Find a table by "db.table" or by name when unique. */
const cdch_sc_table *cdch_scenario_table(const cdch_scenario *s, const char *db, const char *name);

/* ---- bulk generation --------------------------------------------------------
 * A bulk item expands to `transactions` DML transactions, generated one at a
 * time, deterministically from the seed: the same scenario always gives the
 * same rows. cdch_bulk_next fills *txn (allocated in the cursor's arena,
 * which is reset on each call) and returns 1, or 0 when the item is done. */
typedef struct cdch_bulk_cursor cdch_bulk_cursor;
cdch_bulk_cursor *cdch_bulk_start(const cdch_scenario *s, const cdch_sc_bulk *b);
int cdch_bulk_next(cdch_bulk_cursor *c, cdch_sc_txn *txn);
void cdch_bulk_free(cdch_bulk_cursor *c);

/* ---- helpers the loader exports for other modules ---------------------------- */

/* Parse a SQL column type ("int unsigned", "decimal(10,2)", "varchar(20)",
 * "datetime(6)", "enum('a','b')", "bit(3)", "json", "geometry", ...) with an
 * optional charset/collation into a column (def, sql_type, char_length,
 * mbmaxlen). Errors are plain messages (the caller adds file:line:col). */
int cdch_sc_parse_type(const char *type_text, const char *charset, const char *collation, cdch_arena *a,
                       cdch_sc_column *out, cdch_err *err);

/* Convert a scalar from YAML (its text; is_null for ~/null) to a value of
 * the column, checking ranges: "value 300 out of range for tinyint
 * unsigned (0..255)". The value is stored as MySQL logs it (CHAR/BINARY
 * pads stripped, text converted from UTF-8 to the column charset, DECIMAL
 * in canonical form with `scale` fraction digits, TIMESTAMP as epoch).
 * Text forms of the non-scalar types: JSON columns take JSON text, SET
 * "a,c", GEOMETRY WKT ("POINT(1 2)", SRID 0), VECTOR "[1.5,2]", binary
 * types the bytes of the text. */
int cdch_sc_parse_value(const cdch_sc_column *col, const char *text, bool is_null, cdch_arena *a,
                        cdch_value *out, cdch_err *err);

/* Collation id <-> name/charset (the common MySQL 8 ones). */
uint32_t cdch_collation_id(const char *collation);
const char *cdch_collation_name(uint32_t id);
const char *cdch_default_collation(const char *charset); /* "utf8mb4" -> "utf8mb4_0900_ai_ci" */
uint32_t cdch_charset_mbmaxlen(const char *charset);

#endif
