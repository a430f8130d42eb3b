/* json_binary.h — MySQL's binary JSON format (sql-common/json_binary.{h,cc})
 * <-> an in-memory JSON tree, JSON text output and input, and the partial
 * update diff format (sql/json_diff.cc, Json_diff_vector::write_binary).
 *
 * Owns: nothing beyond what it allocates in the caller's arena. Trees
 * returned by the decoders live in the arena passed in; string and opaque
 * data may point into the input bytes (the caller keeps the input alive as
 * long as the tree) — decoders never copy payload bytes they do not need to.
 *
 * Decoding follows offsets, so sparse documents (holes left by in-place
 * updates) decode; every offset and size is bounds-checked and nesting depth
 * is limited (CDCH_JSON_MAX_DEPTH), so malformed input gives an error,
 * never a crash.
 *
 * Encoding produces the layout MySQL's json_binary::serialize writes: keys
 * sorted by length then bytes, small containers when everything fits in
 * 16-bit offsets (else large), integers in the narrowest of int16/int32/
 * int64 (uint16/uint32/uint64 for unsigned), literals and int16/uint16
 * inlined (int32/uint32 too in large containers), strings and opaque
 * lengths as 7-bit varints.
 */
#ifndef CDCH_JSON_BINARY_H
#define CDCH_JSON_BINARY_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "err.h"

#define CDCH_JSON_MAX_DEPTH 100

typedef enum cdch_json_type {
    CDCH_JSON_NULL,
    CDCH_JSON_TRUE,
    CDCH_JSON_FALSE,
    CDCH_JSON_INT,    /* u.i */
    CDCH_JSON_UINT,   /* u.u */
    CDCH_JSON_DOUBLE, /* u.d */
    CDCH_JSON_STRING, /* u.str */
    CDCH_JSON_OBJECT, /* u.obj */
    CDCH_JSON_ARRAY,  /* u.arr */
    CDCH_JSON_OPAQUE, /* u.opaque: a MySQL-typed scalar (DATE, DECIMAL, BLOB, ...) */
} cdch_json_type;

typedef struct cdch_json cdch_json;

typedef struct cdch_json_member {
    const char *key;
    size_t key_len;
    cdch_json *value;
} cdch_json_member;

struct cdch_json {
    cdch_json_type type;
    union {
        int64_t i;
        uint64_t u;
        double d;
        struct { const char *ptr; size_t len; } str;
        struct { size_t count; cdch_json_member *members; } obj; /* in stored order */
        struct { size_t count; cdch_json **items; } arr;
        struct { uint8_t field_type; const uint8_t *data; size_t len; } opaque;
    } u;
};

/* Decode one binary JSON document (type byte + value) of len bytes.
 * len == 0 is JSON null (MySQL writes a 0-length value for it). */
int cdch_json_decode(const uint8_t *p, size_t len, cdch_arena *a, cdch_json **out, cdch_err *err);

/* Append the MySQL binary form of j (type byte + value). */
void cdch_json_encode(const cdch_json *j, cdch_buf *out);

/* Append j as compact JSON text (no spaces), UTF-8, strings escaped per
 * RFC 8259. Doubles use the shortest form that round-trips ("%.17g" then
 * shortened). Opaque values print as MySQL's JSON_EXTRACT would show them:
 * DATE/TIME/DATETIME/TIMESTAMP as quoted strings, DECIMAL as a number,
 * other types as "base64:typeNN:<base64>". */
void cdch_json_to_text(const cdch_json *j, cdch_buf *out);

/* Parse RFC 8259 JSON text into a tree (objects get MySQL key order:
 * sorted by length then bytes, duplicate keys: the last one wins as in
 * MySQL 8.0, whose Json_object::add_alias replaces the earlier value).
 * Numbers: integers that fit int64 -> INT, else uint64 -> UINT, else DOUBLE.
 * Errors give the byte offset in err->offset and what was expected. */
int cdch_json_parse_text(const char *s, size_t len, cdch_arena *a, cdch_json **out, cdch_err *err);

/* Structural equality (object members compared by key regardless of
 * order; INT and UINT with the same value are equal; doubles exactly). */
int cdch_json_equal(const cdch_json *x, const cdch_json *y);

/* ---- partial update diffs (PARTIAL_UPDATE_ROWS after-images) ---- */

enum { CDCH_JSON_DIFF_REPLACE = 0, CDCH_JSON_DIFF_INSERT = 1, CDCH_JSON_DIFF_REMOVE = 2 };

typedef struct cdch_json_diff_op {
    uint8_t op;
    const char *path; /* e.g. "$.age" */
    size_t path_len;
    cdch_json *value; /* NULL for REMOVE */
} cdch_json_diff_op;

typedef struct cdch_json_diff {
    size_t count;
    cdch_json_diff_op *ops;
} cdch_json_diff;

/* The diff vector starts with a u32 LE total length; c is positioned at
 * it. Reads exactly that many bytes after it. */
struct cdch_cursor;
int cdch_json_diff_decode(struct cdch_cursor *c, cdch_arena *a, cdch_json_diff *out, cdch_err *err);
void cdch_json_diff_encode(const cdch_json_diff *d, cdch_buf *out); /* includes the u32 length */

/* ---- JSON paths and applying diffs (json_path.c) ---- */

/* Deep copy of a tree into a (strings and opaque data stay shared). */
cdch_json *cdch_json_copy(cdch_arena *a, const cdch_json *j);

/* Apply one operation (CDCH_JSON_DIFF_*) at `path` ("$.a[2].b") to root,
 * as JSON_REPLACE/JSON_SET/JSON_REMOVE do: replace and remove need an
 * existing path; insert needs the parent and, for an object member, no
 * existing member; an array index at or past the end appends. The result
 * shares unchanged subtrees with root; *canon is the path as MySQL prints
 * it. Returns -1 with an actionable message for bad or missing paths. */
int cdch_json_path_apply(cdch_arena *a, cdch_json *root, int op, const char *path, size_t path_len,
                         cdch_json *value, cdch_json **out, const char **canon, cdch_err *err);

/* Apply every operation of a diff to doc (not modified) -> *out. */
int cdch_json_diff_apply(cdch_arena *a, const cdch_json *doc, const cdch_json_diff *diff, cdch_json **out,
                         cdch_err *err);

/* Append the diff as JSON text: [{"op":"replace","path":"$.age","value":26},...] */
void cdch_json_diff_to_text(const cdch_json_diff *d, cdch_buf *out);

#endif
