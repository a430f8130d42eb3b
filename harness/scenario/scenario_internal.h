/* scenario_internal.h — what the scenario module's files share with each
 * other (the YAML load context, value parsing on YAML nodes, charsets,
 * JSON paths, geometry, the PRNG, the SQL reader's DDL statements). Not for
 * other modules: they use scenario.h and ddltrack.h.
 *
 * Owns: nothing. Everything a loader step builds goes into the scenario's
 * arena (sc_ctx.a); the per-table row state lives in malloc'd memory freed
 * by the loader before it returns.
 */
#ifndef CDCH_SCENARIO_INTERNAL_H
#define CDCH_SCENARIO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "buf.h"
#include "scenario.h"

/* ---- load context (load.c) ---------------------------------------------------- */

typedef struct sc_tstate sc_tstate; /* per-table rows, txn.c */

typedef struct sc_ctx {
    const char *fname;   /* for messages */
    yaml_document_t *doc;
    cdch_scenario *s;
    cdch_arena *a;       /* == &s->arena */
    cdch_err *err;
    sc_tstate *state;    /* one per table (txn.c) */
    unsigned version;    /* server version as major*10000 + minor*100 + patch */
} sc_ctx;

/* Set c->err to "FILE:LINE:COL: message" at node n (or 1:1 when n is NULL); returns -1. */
int sc_fail(sc_ctx *c, const yaml_node_t *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Same with the message of a cdch_err as the tail ("prefix: <e->msg>"). */
int sc_fail_err(sc_ctx *c, const yaml_node_t *n, const cdch_err *e, const char *prefix_fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

cdch_sc_mark sc_mark(const yaml_node_t *n);
yaml_node_t *sc_node(sc_ctx *c, int id);
const char *sc_kind_name(const yaml_node_t *n); /* "a mapping", "a list", "a string" */

static inline bool sc_is_scalar(const yaml_node_t *n) { return n && n->type == YAML_SCALAR_NODE; }
static inline bool sc_is_map(const yaml_node_t *n) { return n && n->type == YAML_MAPPING_NODE; }
static inline bool sc_is_seq(const yaml_node_t *n) { return n && n->type == YAML_SEQUENCE_NODE; }
static inline const char *sc_text(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }
static inline size_t sc_len(const yaml_node_t *n) { return n->data.scalar.length; }
static inline bool sc_plain(const yaml_node_t *n) { return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE; }
/* A plain ~, null, Null, NULL or empty scalar. */
bool sc_is_null(const yaml_node_t *n);
/* A plain true/false in any of YAML's spellings (true True TRUE ...). */
bool sc_plain_bool(const yaml_node_t *n, bool *out);

/* Mapping access. sc_check_map fails unless n is a mapping whose keys are
 * all scalars from `allowed` (NULL-terminated), each at most once: unknown
 * keys are errors (with a "did you mean" when one is close). */
int sc_check_map(sc_ctx *c, yaml_node_t *n, const char *what, const char *const *allowed);
yaml_node_t *sc_get(sc_ctx *c, yaml_node_t *map, const char *key);
/* Required key: the value node, or NULL with an error at the mapping. */
yaml_node_t *sc_need(sc_ctx *c, yaml_node_t *map, const char *key, const char *what);

/* Scalars of a given shape (errors at the node). */
int sc_str(sc_ctx *c, yaml_node_t *n, const char *what, const char **out); /* arena copy */
int sc_bool(sc_ctx *c, yaml_node_t *n, const char *what, bool *out);
int sc_u64(sc_ctx *c, yaml_node_t *n, const char *what, uint64_t min, uint64_t max, uint64_t *out);
int sc_size(sc_ctx *c, yaml_node_t *n, const char *what, uint64_t min, uint64_t max, uint64_t *out); /* 64K, 16M, 1G */
/* One of `words` (case-insensitive); *out = its index. */
int sc_word(sc_ctx *c, yaml_node_t *n, const char *what, const char *const *words, int *out);

/* "did you mean" helper: the candidate closest to word (edit distance <= 2), or NULL. */
const char *sc_suggest(const char *word, const char *const *cands, size_t ncands);

/* ---- captures (capture.c) ------------------------------------------------------ */

/* `capture:` (a path, or {dir, flip_at}): the capture directory, the server
 * identity from its first binlog file, databases and tables from its
 * schema.sql. Errors point at the node. */
int sc_load_capture(sc_ctx *c, yaml_node_t *n);
/* The database of that name among dbs[0..n), NULL when none (load.c). */
cdch_sc_database *sc_find_db(cdch_sc_database *dbs, size_t n, const char *name);

/* ---- the stream's DDL statements (capture.c reads them, ddltrack.c follows them) ------ */

/* A column definition as written (CREATE TABLE's column list, ALTER TABLE ADD/MODIFY/CHANGE):
 * resolved against its table's default charset by sc_coldef_resolve. */
typedef struct sc_coldef {
    const char *name;
    const char *type;        /* the type text up to the attributes, with its CHARACTER SET / COLLATE */
    unsigned line;           /* in the statement's text (1-based) */
    bool not_null, pk, auto_increment, invisible;
    const char *default_sql; /* the DEFAULT's text, NULL: none (or DEFAULT NULL) */
} sc_coldef;

/* The column of d (name, type, attributes) with charset/collation (canonical) as the
 * table's default; its strings in a. Errors are cdch_sc_parse_type's. */
int sc_coldef_resolve(const sc_coldef *d, const char *charset, const char *collation, cdch_arena *a,
                      cdch_sc_column *out, cdch_err *err);

typedef struct sc_name {
    const char *db;   /* the statement's database when the name is unqualified; NULL: none */
    const char *name; /* NULL in database statements */
} sc_name;

typedef enum sc_alter_kind {
    SC_ALTER_ADD = 1,       /* def, at pos (default: last) */
    SC_ALTER_DROP,          /* column */
    SC_ALTER_CHANGE,        /* column becomes def, at pos (default: where it is); MODIFY: column = def.name */
    SC_ALTER_RENAME_COLUMN, /* column gets def.name */
    SC_ALTER_DEFAULT,       /* column's DEFAULT becomes def.default_sql (NULL: DROP DEFAULT) */
    SC_ALTER_VISIBILITY,    /* column's INVISIBLE becomes def.invisible */
    SC_ALTER_PK_ADD,        /* column joins the primary key (ADD PRIMARY KEY: one per column) */
    SC_ALTER_PK_DROP,       /* DROP PRIMARY KEY */
    SC_ALTER_RENAME,        /* the table becomes `to` */
    SC_ALTER_CHARSET,       /* the table's default becomes charset/collation (its columns keep theirs) */
    SC_ALTER_ENGINE,        /* the table's engine becomes `engine` */
} sc_alter_kind;

typedef enum sc_position { SC_POS_DEFAULT = 0, SC_POS_FIRST, SC_POS_AFTER } sc_position;

/* One item of an ALTER TABLE that changes the table's definition (index and table options
 * that change no column are not listed). */
typedef struct sc_alter {
    sc_alter_kind kind;
    const char *column;      /* the column it names (CHANGE: the old name) */
    sc_coldef def;
    sc_position pos;
    const char *after;       /* SC_POS_AFTER */
    sc_name to;              /* SC_ALTER_RENAME */
    const char *charset, *collation; /* SC_ALTER_CHARSET, canonical */
    const char *engine;      /* SC_ALTER_ENGINE */
} sc_alter;

typedef enum sc_ddl_kind {
    SC_DDL_NONE = 0,       /* nothing a table's columns depend on (DML, BEGIN, CREATE INDEX, GRANT, temporary
                            * tables, ...) */
    SC_DDL_CREATE_DB,      /* names[0].db; charset/collation (NULL: the server's default); if_not_exists */
    SC_DDL_ALTER_DB,       /* names[0].db; charset/collation when given */
    SC_DDL_DROP_DB,        /* names[0].db */
    SC_DDL_CREATE_TABLE,   /* table (= names[0]); if_not_exists */
    SC_DDL_CREATE_LIKE,    /* names[0] created as a copy of names[1]; if_not_exists */
    SC_DDL_RENAME,         /* names[2k] becomes names[2k+1], in order */
    SC_DDL_DROP_TABLE,     /* names[] */
    SC_DDL_ALTER_TABLE,    /* names[0]; alters[] in order */
    SC_DDL_NOT_UNDERSTOOD, /* table DDL not read (the error says why): it changes names[] (those read before the
                            * problem; none when even the first is unknown) in a way not known */
} sc_ddl_kind;

typedef struct sc_ddl {
    sc_ddl_kind kind;
    bool if_not_exists;
    sc_name *names;
    size_t nnames;
    cdch_sc_table table;               /* SC_DDL_CREATE_TABLE */
    const char *charset, *collation;   /* SC_DDL_CREATE_DB / SC_DDL_ALTER_DB, canonical */
    sc_alter *alters;
    size_t nalters;
} sc_ddl;

/* Read the first statement of sql[0..len) (a QUERY event's text; db its default database,
 * NULL or "" for none) into *out, everything in a (nothing for SC_DDL_NONE). dbs[0..ndbs):
 * the databases' default charsets for CREATE TABLE (a table without one takes its
 * database's; utf8mb4 for a database not listed). Returns 0, or -1 with err set and
 * out->kind SC_DDL_NOT_UNDERSTOOD when table DDL cannot be read (CREATE TABLE ... SELECT,
 * CONVERT TO CHARACTER SET, an unknown type ...). */
int sc_ddl_parse(const char *sql, size_t len, const char *db, const cdch_sc_database *dbs, size_t ndbs,
                 cdch_arena *a, sc_ddl *out, cdch_err *err);

/* ---- transactions (txn.c) ------------------------------------------------------ */

int sc_load_items(sc_ctx *c, yaml_node_t *list);
void sc_state_free(sc_ctx *c);

/* ---- values (values.c) ---------------------------------------------------------- */

/* Scalar text -> value (what cdch_sc_parse_value does, with a length and
 * the YAML style: plain scalars may be numbers/booleans in JSON columns). */
int sc_parse_scalar(const cdch_sc_column *col, const char *text, size_t len, bool plain, cdch_arena *a,
                    cdch_value *out, cdch_err *err);
/* Any YAML node -> value of col (lists for SET/VECTOR, {hex:}/{base64:} for
 * bytes, any node for JSON, {srid:,wkb:|wkt:} for GEOMETRY). Errors at the node. */
int sc_node_value(sc_ctx *c, const cdch_sc_column *col, yaml_node_t *n, cdch_value *out);
/* A YAML node -> JSON tree ({json_text: "..."} parses JSON text). */
int sc_node_json(sc_ctx *c, yaml_node_t *n, unsigned depth, cdch_json **out);
/* The value an omitted column takes: NULL if nullable, else the type's
 * zero value (0, '', 0000-00-00, first ENUM member, JSON null, ...). */
int sc_zero_value(const cdch_sc_column *col, cdch_arena *a, cdch_value *out, cdch_err *err);
/* SQL literal for a DEFAULT clause. */
const char *sc_sql_literal(const cdch_sc_column *col, const cdch_value *v, cdch_arena *a);

/* Column classes. */
bool sc_col_is_int(const cdch_sc_column *col);        /* TINYINT..BIGINT */
bool sc_col_is_chartext(const cdch_sc_column *col);   /* CHAR/VARCHAR/TEXT with a non-binary charset */
bool sc_col_is_blobby(const cdch_sc_column *col);     /* BLOB/TEXT/JSON/GEOMETRY/VECTOR */
/* Integer column range. */
void sc_int_range(const cdch_sc_column *col, int64_t *min, uint64_t *max);
/* Max byte length of a string value (CHAR/VARCHAR/BINARY/TEXT/BLOB); 0 if not a string column. */
uint64_t sc_col_max_bytes(const cdch_sc_column *col);

/* ---- charsets (collation.c) --------------------------------------------------- */

typedef enum sc_cs {
    SC_CS_UTF8MB4 = 1,
    SC_CS_UTF8MB3,
    SC_CS_LATIN1,
    SC_CS_ASCII,
    SC_CS_UCS2,
    SC_CS_UTF16,
    SC_CS_UTF16LE,
    SC_CS_UTF32,
    SC_CS_BINARY,
    SC_CS_OTHER, /* known to MySQL, but we only convert ASCII text into it */
} sc_cs;

sc_cs sc_charset_kind(const char *charset);
/* Canonical charset name ("utf8" -> "utf8mb3"), NULL if unknown. */
const char *sc_charset_canon(const char *charset);
/* Charset of a collation name, NULL if unknown. */
const char *sc_collation_charset(const char *collation);
/* Canonical collation name ("utf8_bin" -> "utf8mb3_bin"), NULL if unknown. */
const char *sc_collation_canon(const char *collation);

/* Convert UTF-8 text to the charset's bytes (arena copy); *nchars = characters.
 * Fails on characters the charset cannot hold or invalid UTF-8. */
int sc_charset_encode(sc_cs cs, const char *charset, const char *utf8, size_t len, cdch_arena *a,
                      const uint8_t **out, size_t *out_len, size_t *nchars, cdch_err *err);
/* Characters in len bytes already in the charset (raw {hex:} values). */
size_t sc_charset_count(sc_cs cs, const uint8_t *p, size_t len);
/* Length without the trailing pad characters MySQL strips from CHAR values
 * (spaces in the charset's encoding; 0x00 for binary). */
size_t sc_charset_strip_pad(sc_cs cs, const uint8_t *p, size_t len);
/* Next code point of UTF-8 at s[*i] (advances *i); -1 on invalid UTF-8. */
int sc_utf8_next(const char *s, size_t len, size_t *i, uint32_t *cp);
void sc_utf8_put(cdch_buf *b, uint32_t cp);

/* ---- geometry (geometry.c) ------------------------------------------------------- */

/* Geometry subtypes (MySQL Field::geometry_type). */
enum { SC_GEOM_GEOMETRY = 0, SC_GEOM_POINT, SC_GEOM_LINESTRING, SC_GEOM_POLYGON, SC_GEOM_MULTIPOINT,
       SC_GEOM_MULTILINESTRING, SC_GEOM_MULTIPOLYGON, SC_GEOM_GEOMETRYCOLLECTION };

/* WKT -> little-endian WKB appended to out. */
int sc_wkt_to_wkb(const char *text, size_t len, cdch_buf *out, cdch_err *err);
/* Check WKB (little-endian, well formed, rings closed) and that its type
 * fits a column of subtype `want` (SC_GEOM_GEOMETRY accepts any). */
int sc_wkb_check(const uint8_t *p, size_t len, uint32_t want, cdch_err *err);
const char *sc_geom_name(uint32_t subtype);

/* ---- PRNG (bulk.c) ----------------------------------------------------------------- */

uint64_t sc_mix64(uint64_t x); /* splitmix64 finaliser */

#endif
