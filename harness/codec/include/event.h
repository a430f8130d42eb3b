/* event.h — binlog events: the in-memory model of every event MySQL
 * 8.0.20+ writes or sends in row-based replication, and their decoders and
 * encoders (byte-exact in both directions).
 *
 * Owns: the decoder context (cdch_decoder: the active FORMAT_DESCRIPTION and
 * the table-map cache, each table map deep-copied into memory the decoder
 * owns). A decoded cdch_event lives in the arena the caller passes in, and
 * may point into the caller's event bytes (names, strings, raw payload);
 * keep both alive while using the event. Encoders write into a cdch_buf.
 */
#ifndef CDCH_EVENT_H
#define CDCH_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "err.h"
#include "gtid.h"
#include "json_binary.h"
#include "mysql_types.h"
#include "value.h"

#define CDCH_HEADER_LEN 19
#define CDCH_CHECKSUM_LEN 4
#define CDCH_BINLOG_MAGIC "\xfe" "bin"
#define CDCH_BINLOG_MAGIC_LEN 4
#define CDCH_MAX_EVENT_SIZE (1024u * 1024u * 1024u) /* max_log_event_size: 1 GiB */

enum { CDCH_CHECKSUM_OFF = 0, CDCH_CHECKSUM_CRC32 = 1, CDCH_CHECKSUM_UNDEF = 255 };

/* Header flags (LOG_EVENT_*_F) */
enum {
    CDCH_LOG_EVENT_BINLOG_IN_USE_F = 0x0001,
    CDCH_LOG_EVENT_THREAD_SPECIFIC_F = 0x0004,
    CDCH_LOG_EVENT_SUPPRESS_USE_F = 0x0008,
    CDCH_LOG_EVENT_ARTIFICIAL_F = 0x0020,
    CDCH_LOG_EVENT_RELAY_LOG_F = 0x0040,
    CDCH_LOG_EVENT_IGNORABLE_F = 0x0080,
    CDCH_LOG_EVENT_NO_FILTER_F = 0x0100,
    CDCH_LOG_EVENT_MTS_ISOLATE_F = 0x0200,
};

/* Rows event flags */
enum { CDCH_ROWS_STMT_END_F = 0x0001 };

/* zlib-compatible CRC32 (the binlog checksum). */
uint32_t cdch_crc32(uint32_t crc, const void *data, size_t len);
/* The same by tables only (what cdch_crc32 does where the CPU lacks PCLMULQDQ; for tests). */
uint32_t cdch_crc32_tables(uint32_t crc, const void *data, size_t len);

typedef struct cdch_event_header {
    uint32_t timestamp;
    uint8_t type;
    uint32_t server_id;
    uint32_t event_size; /* as stored (decoding) / computed (encoding) */
    uint32_t log_pos;    /* end position of the event in its file; 0 inside payloads */
    uint16_t flags;
} cdch_event_header;

typedef struct cdch_bytes {
    const uint8_t *ptr;
    size_t len;
} cdch_bytes;

/* ---- FORMAT_DESCRIPTION (15) ---- */
typedef struct cdch_fde {
    uint16_t binlog_version;      /* 4 */
    char server_version[51];      /* NUL padded to 50 in the event */
    uint32_t create_timestamp;
    uint8_t common_header_len;    /* 19 */
    uint16_t n_post_header;       /* 40 (8.0.20-26), 41 (8.0.27+), 42 (9.x) */
    uint8_t post_header_len[256]; /* index = event type - 1 */
    uint8_t checksum_alg;         /* CDCH_CHECKSUM_* */
    uint32_t version_product;     /* e.g. 80028, derived from server_version */
} cdch_fde;

/* "8.0.28-debug" -> 80028 (0 when not a version). */
uint32_t cdch_version_product(const char *version);

/* Build the FDE a MySQL server of `version` ("8.0.28", "9.0.1") writes,
 * post-header table quirks included (the literal 40 for type 40). */
int cdch_fde_for_version(const char *version, uint8_t checksum_alg, cdch_fde *out, cdch_err *err);

/* ---- ROTATE (4) ---- */
typedef struct cdch_rotate {
    uint64_t position;
    cdch_bytes next_file;
} cdch_rotate;

/* ---- QUERY (2) ---- */
typedef struct cdch_status_var {
    uint8_t code;
    cdch_bytes value; /* raw value bytes after the code byte */
} cdch_status_var;

enum {
    CDCH_Q_FLAGS2 = 0, CDCH_Q_SQL_MODE = 1, CDCH_Q_CATALOG = 2, CDCH_Q_AUTO_INCREMENT = 3,
    CDCH_Q_CHARSET = 4, CDCH_Q_TIME_ZONE = 5, CDCH_Q_CATALOG_NZ = 6, CDCH_Q_LC_TIME_NAMES = 7,
    CDCH_Q_CHARSET_DATABASE = 8, CDCH_Q_TABLE_MAP_FOR_UPDATE = 9, CDCH_Q_MASTER_DATA_WRITTEN = 10,
    CDCH_Q_INVOKER = 11, CDCH_Q_UPDATED_DB_NAMES = 12, CDCH_Q_MICROSECONDS = 13,
    CDCH_Q_COMMIT_TS = 14, CDCH_Q_COMMIT_TS2 = 15, CDCH_Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP = 16,
    CDCH_Q_DDL_LOGGED_WITH_XID = 17, CDCH_Q_DEFAULT_COLLATION_FOR_UTF8MB4 = 18,
    CDCH_Q_SQL_REQUIRE_PRIMARY_KEY = 19, CDCH_Q_DEFAULT_TABLE_ENCRYPTION = 20,
};

typedef struct cdch_query {
    uint32_t thread_id;
    uint32_t exec_time;
    uint16_t error_code;
    size_t n_status;
    cdch_status_var *status; /* in stored order */
    cdch_bytes status_tail;  /* bytes after the first unknown code (kept verbatim) */
    cdch_bytes db;
    cdch_bytes query;
} cdch_query;

/* ---- TABLE_MAP (19) ---- */
typedef struct cdch_opt_meta {
    uint8_t type;
    cdch_bytes value;
} cdch_opt_meta;

enum {
    CDCH_OPT_SIGNEDNESS = 1, CDCH_OPT_DEFAULT_CHARSET, CDCH_OPT_COLUMN_CHARSET, CDCH_OPT_COLUMN_NAME,
    CDCH_OPT_SET_STR_VALUE, CDCH_OPT_ENUM_STR_VALUE, CDCH_OPT_GEOMETRY_TYPE, CDCH_OPT_SIMPLE_PRIMARY_KEY,
    CDCH_OPT_PRIMARY_KEY_WITH_PREFIX, CDCH_OPT_ENUM_AND_SET_DEFAULT_CHARSET,
    CDCH_OPT_ENUM_AND_SET_COLUMN_CHARSET, CDCH_OPT_COLUMN_VISIBILITY, CDCH_OPT_VECTOR_DIMENSIONALITY,
};

typedef struct cdch_table_map {
    uint64_t table_id; /* 6 bytes */
    uint16_t flags;    /* bit0 TM_BIT_LEN_EXACT_F, bit2 TM_GENERATED_INVISIBLE_PK_F */
    cdch_bytes db;
    cdch_bytes table;
    size_t ncols;
    cdch_coldef *cols;       /* ncols entries: type, meta, and what optional metadata told */
    uint8_t *null_bitmap;    /* (ncols+7)/8 bytes */
    size_t n_opt;
    cdch_opt_meta *opt;      /* optional metadata TLVs in stored order */
    bool *visible;           /* ncols entries, NULL if no COLUMN_VISIBILITY */
    size_t n_pk;
    uint32_t *pk_cols;       /* primary key column indexes (SIMPLE_PRIMARY_KEY or WITH_PREFIX) */
    uint32_t *pk_prefix;     /* prefix lengths (0 = whole column), n_pk entries */
} cdch_table_map;

/* Metadata bytes a column of this type carries in TABLE_MAP (0, 1 or 2). */
unsigned cdch_meta_size(uint8_t type);

/* Build optional metadata TLVs from tm->cols the way MySQL 8.0 writes them
 * for binlog_row_metadata MINIMAL (full=false) or FULL (full=true); the
 * TLVs and their bytes are allocated in a. */
void cdch_table_map_build_opt(cdch_table_map *tm, bool full, cdch_arena *a);

/* ---- WRITE/UPDATE/DELETE_ROWS v2 (30/31/32), PARTIAL_UPDATE_ROWS (39) ---- */
typedef struct cdch_row {
    cdch_value *before;          /* ncols entries (CDCH_V_ABSENT where not in the image) or NULL */
    cdch_value *after;           /* ncols entries or NULL */
    uint64_t value_options;      /* PARTIAL_UPDATE_ROWS only: 1 = PARTIAL_JSON_UPDATES */
    uint8_t *partial_bits;       /* PARTIAL_UPDATE_ROWS with value_options&1: 1 bit per JSON column */
} cdch_row;

typedef struct cdch_rows {
    uint64_t table_id;
    uint16_t flags;
    cdch_bytes extra;            /* extra row info TLVs (without the 2-byte length) */
    size_t ncols;
    uint8_t *cols_before;        /* present bitmap for BI (DELETE/UPDATE) */
    uint8_t *cols_after;         /* present bitmap for AI (WRITE/UPDATE) */
    size_t nrows;
    cdch_row *rows;
    const cdch_table_map *tm;    /* the table map the rows were decoded with: owned by the
                                  * decoder, valid until cdch_decoder_free (a map replaced
                                  * by a new one for the same table id is kept, not freed) */
} cdch_rows;

/* Encode a rows event body piecewise, the way the stream builder splits a
 * statement's rows into events of at most binlog_row_event_max_size:
 * the post-header + column count + bitmaps (r->rows is not used), then one
 * row at a time (before/after images, value options for partial updates).
 * `type` is the event type (30, 31, 32 or 39). */
int cdch_rows_encode_head(uint8_t type, const cdch_rows *r, cdch_buf *out, cdch_err *err);
int cdch_rows_encode_row(uint8_t type, const cdch_rows *r, const cdch_row *row, cdch_buf *out, cdch_err *err);

/* ---- XA_PREPARE (38) ---- */
typedef struct cdch_xa_prepare {
    uint8_t one_phase;
    int32_t format_id;
    uint32_t gtrid_len;
    uint32_t bqual_len;
    cdch_bytes data;
} cdch_xa_prepare;

/* ---- INCIDENT (26) ---- */
typedef struct cdch_incident {
    uint16_t code;
    cdch_bytes message;
} cdch_incident;

/* ---- HEARTBEAT (27) / HEARTBEAT_V2 (41) ---- */
typedef struct cdch_heartbeat {
    cdch_bytes log_file;
    uint64_t position; /* v2: from the TLV; v1: header log_pos */
} cdch_heartbeat;

/* ---- TRANSACTION_PAYLOAD (40) ---- */
enum { CDCH_COMPRESSION_ZSTD = 0, CDCH_COMPRESSION_NONE = 255 };

typedef struct cdch_event cdch_event;

typedef struct cdch_payload {
    uint64_t compression_type;
    uint64_t uncompressed_size;
    bool has_uncompressed_size;  /* the TLV was present */
    uint64_t payload_size;
    cdch_bytes payload;          /* compressed bytes as stored */
    cdch_bytes uncompressed;     /* the inner event stream */
    size_t n_inner;
    cdch_event *inner;           /* decoded inner events (no checksum, log_pos 0) */
    size_t *inner_offset;        /* offset of each inner event in `uncompressed` */
    bool frame_has_content_size; /* zstd frame header carries Frame_Content_Size */
} cdch_payload;

/* Fill a payload to encode: zstd, `zlen` compressed bytes at z (borrowed),
 * uncompressed_size TLV = `uncompressed` (what MySQL writes). */
void cdch_payload_set_zstd(cdch_payload *p, const uint8_t *z, size_t zlen, uint64_t uncompressed);

/* ---- the event ---- */
struct cdch_event {
    cdch_event_header h;
    bool has_checksum;
    uint32_t checksum;          /* stored CRC32 (decoded) */
    cdch_bytes raw;             /* the whole event as decoded (header..checksum) */
    union {
        cdch_fde fde;
        cdch_rotate rotate;
        cdch_gtid_set prev_gtids;
        cdch_gtid_ev gtid;      /* GTID, ANONYMOUS_GTID, GTID_TAGGED */
        cdch_query query;
        cdch_table_map table_map;
        cdch_rows rows;
        uint64_t xid;
        cdch_xa_prepare xa;
        struct { uint8_t len_byte; cdch_bytes text; } rows_query;
        cdch_incident incident;
        cdch_heartbeat heartbeat;
        cdch_payload payload;
        cdch_bytes body;        /* STOP (empty) and event types we do not model */
    } u;
};

/* ---- decoding ---- */
typedef struct cdch_decoder cdch_decoder;

cdch_decoder *cdch_decoder_new(void);
void cdch_decoder_free(cdch_decoder *d); /* accepts NULL */

/* Override the checksum setting (e.g. for a replication stream). */
void cdch_decoder_set_checksum(cdch_decoder *d, uint8_t alg);
/* Verify CRC32 checksums (default on). */
void cdch_decoder_verify_checksums(cdch_decoder *d, bool on);
/* Look up a cached table map. */
const cdch_table_map *cdch_decoder_table(const cdch_decoder *d, uint64_t table_id);

/* Decode one event (len bytes starting at the 19-byte header). A
 * FORMAT_DESCRIPTION updates the decoder's format; a TABLE_MAP is cached
 * (deep copy); rows are decoded with the cached map. Payload events are
 * decompressed and their inner events decoded too. Returns 0, or -1 with
 * err set (err->offset = offset inside the event where it went wrong). */
int cdch_decode_event(cdch_decoder *d, const uint8_t *ev, size_t len, cdch_arena *a, cdch_event *out,
                      cdch_err *err);

/* ---- encoding ---- */
typedef struct cdch_encode_opts {
    bool checksum;      /* append CRC32 (ignored for FDE, which always has its 4 bytes,
                         * and for inner payload events, which never do) */
    bool inner;         /* an event inside a TRANSACTION_PAYLOAD: no checksum, log_pos 0 */
    int zstd_level;     /* payload compression level when (re)compressing (default 3) */
    bool zstd_content_size; /* write Frame_Content_Size in the payload's zstd frame */
} cdch_encode_opts;

/* Encode ev into out (appended). The header's event_size is computed; its
 * log_pos is taken from ev->h.log_pos (inner events: 0). Rows events are
 * encoded with ev->u.rows.tm. A payload is encoded from its inner events
 * (re-encoded and compressed per opts) unless `reuse_payload` is true, in
 * which case the stored compressed bytes are written as they are. */
int cdch_encode_event(const cdch_event *ev, const cdch_encode_opts *opts, bool reuse_payload, cdch_buf *out,
                      cdch_err *err);

/* Compress an inner event stream into one zstd frame (level, with or
 * without content size), appended to out. */
int cdch_zstd_compress(const uint8_t *src, size_t len, int level, bool content_size, cdch_buf *out, cdch_err *err);
/* A reusable compression context (its memory is kept between frames, which
 * matters when compressing many small transactions). */
typedef struct cdch_zstd_compressor cdch_zstd_compressor;
cdch_zstd_compressor *cdch_zstd_compressor_new(void); /* NULL when out of memory */
void cdch_zstd_compressor_free(cdch_zstd_compressor *z); /* accepts NULL */
int cdch_zstd_compress_with(cdch_zstd_compressor *z, const uint8_t *src, size_t len, int level, bool content_size,
                            cdch_buf *out, cdch_err *err);
/* Decompress (all frames) into out. max_size bounds the output. */
int cdch_zstd_decompress(const uint8_t *src, size_t len, size_t max_size, cdch_buf *out, cdch_err *err);

#endif
