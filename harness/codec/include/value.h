/* value.h — column definitions and row-image values for every MySQL 8
 * column type, both directions, plus their canonical JSON and
 * mysqlbinlog-style text forms.
 *
 * Owns: nothing beyond what it allocates in the caller's arena. Decoded
 * values may point into the event bytes (strings, blobs, WKB): keep the
 * event buffer alive as long as the values.
 */
#ifndef CDCH_VALUE_H
#define CDCH_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "cursor.h"
#include "err.h"
#include "json_binary.h"
#include "mysql_types.h"
#include "temporal.h"

#define CDCH_COLLATION_BINARY 63

/* One column as the row-image codec needs it. Built from a TABLE_MAP event
 * (type, meta, optional metadata) or from a scenario's schema. */
typedef struct cdch_coldef {
    uint8_t type;      /* binlog type byte (TABLE_MAP column type) */
    uint16_t meta;     /* per-type metadata, combined the way MySQL's
                        * rpl_utility does it:
                        *  FLOAT/DOUBLE: pack length (4/8)
                        *  VARCHAR: max byte length (LE16 in the event)
                        *  BIT: (bits/8)<<8 | bits%8  (event bytes: bits%8, bits/8)
                        *  NEWDECIMAL: precision<<8 | scale
                        *  TIMESTAMP2/DATETIME2/TIME2: fsp
                        *  BLOB/JSON/GEOMETRY/VECTOR: length-prefix size (1-4)
                        *  STRING (CHAR/ENUM/SET): byte0<<8 | byte1 (see real_type)
                        */
    uint8_t real_type; /* for STRING: CDCH_T_STRING, CDCH_T_ENUM or CDCH_T_SET
                        * (decoded from meta); otherwise == type */
    uint32_t length;   /* CHAR: declared byte length; ENUM/SET: pack length */
    bool is_unsigned;  /* numeric columns: from SIGNEDNESS metadata or schema */
    bool nullable;
    uint32_t collation;/* 0 unknown; CDCH_COLLATION_BINARY (63) = binary data */
    const char *name;  /* NULL when unknown (printed as @N) */
    const char *const *labels; /* ENUM/SET member names, NULL when unknown */
    size_t nlabels;
    uint32_t geometry_type; /* GEOMETRY subtype from optional metadata */
} cdch_coldef;

/* Fill real_type and length from type+meta (STRING decoding as mysqlbinlog
 * does it: a long CHAR has (byte0 & 0x30) != 0x30). */
void cdch_coldef_finish(cdch_coldef *col);

/* True if the column's values are character data in the collation
 * (CHAR/VARCHAR/TEXT with a non-binary collation). */
bool cdch_coldef_is_text(const cdch_coldef *col);

typedef enum cdch_vkind {
    CDCH_V_ABSENT = 0, /* column not present in this image */
    CDCH_V_NULL,
    CDCH_V_INT,       /* u.i: TINY..LONGLONG signed */
    CDCH_V_UINT,      /* u.u: TINY..LONGLONG unsigned */
    CDCH_V_FLOAT,     /* u.f */
    CDCH_V_DOUBLE,    /* u.d */
    CDCH_V_DECIMAL,   /* u.bytes: exact decimal text ("-12.50") */
    CDCH_V_DATE,      /* u.t */
    CDCH_V_DATETIME,  /* u.t */
    CDCH_V_TIME,      /* u.t */
    CDCH_V_TIMESTAMP, /* u.ts */
    CDCH_V_YEAR,      /* u.u: 0 or 1901..2155 */
    CDCH_V_BIT,       /* u.u */
    CDCH_V_STRING,    /* u.bytes: CHAR/VARCHAR/BINARY/VARBINARY/BLOB/TEXT */
    CDCH_V_ENUM,      /* u.u: 1-based index, 0 = '' */
    CDCH_V_SET,       /* u.u: member bitmap */
    CDCH_V_JSON,      /* u.json (a JSON null document is a tree of type NULL) */
    CDCH_V_JSON_DIFF, /* u.diff: partial update of a JSON column */
    CDCH_V_GEOMETRY,  /* u.geom */
    CDCH_V_VECTOR,    /* u.bytes: float32 LE array */
} cdch_vkind;

typedef struct cdch_value {
    cdch_vkind kind;
    union {
        int64_t i;
        uint64_t u;
        float f;
        double d;
        struct { const uint8_t *ptr; size_t len; } bytes;
        cdch_temporal t;
        struct { uint32_t sec, usec; } ts;
        cdch_json *json;
        cdch_json_diff diff;
        struct { uint32_t srid; const uint8_t *wkb; size_t len; } geom;
    } u;
} cdch_value;

/* Decode one non-NULL value of column col at c. Sets c->overrun when the
 * image is short; returns -1 with err set for malformed values (e.g. a
 * decimal group > 999999999, a bad JSON document, an unknown type). */
int cdch_value_decode(const cdch_coldef *col, cdch_cursor *c, cdch_arena *a, cdch_value *out, cdch_err *err);

/* Encode a non-NULL value in the exact bytes MySQL writes for col. Returns
 * -1 with err set if the value kind does not fit the column or the value
 * is out of range (a string longer than the column, a decimal with too many
 * digits, ...). CDCH_V_JSON_DIFF is encoded as a diff vector. CHAR values
 * are written exactly as given: stripping trailing pad characters (as
 * MySQL's Field_string::pack does) is the caller's job. */
int cdch_value_encode(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err);

/* Canonical JSON form (design.md section 4): integers as numbers, DECIMAL
 * as an exact string, FLOAT/DOUBLE as numbers (FLOAT printed with %.9g,
 * shortest round-trip), temporals as strings, YEAR and BIT as integers,
 * text as UTF-8 strings (latin1 is read as cp1252, ucs2/utf16/utf16le/utf32
 * are converted; bytes that are not valid in the column's charset are
 * printed as {"base64":...}), binary as {"base64":"..."},
 * ENUM as its label (or its index when labels are unknown), SET as an
 * array of labels (or the bitmap), JSON as the value itself, a JSON diff
 * as {"json_diff":[...]}, GEOMETRY as {"srid":N,"wkb":"<hex>"}, VECTOR as
 * an array of numbers. NULL as null. */
void cdch_value_to_json(const cdch_coldef *col, const cdch_value *v, cdch_buf *out);

/* mysqlbinlog -v style: the value as mysqlbinlog prints it after "@N=",
 * e.g. 1, 'abc', -12.50, '2024-01-02 03:04:05', NULL, b'101'. A JSON diff
 * is printed as mysqlbinlog does (JSON_REPLACE(@N, ...)) using col->name as
 * the column reference ("@?" when NULL): pass a coldef named "@N". */
void cdch_value_to_sql(const cdch_coldef *col, const cdch_value *v, cdch_buf *out);

/* The "/ * TYPE meta=N nullable=1 is_null=0 * /" comment mysqlbinlog -vv
 * prints after each value, without the comment markers: e.g.
 * "TINYINT meta=0 nullable=1 is_null=0". */
void cdch_value_type_comment(const cdch_coldef *col, const cdch_value *v, cdch_buf *out);

/* Equality as a consumer diff needs it: same kind and same value
 * (JSON structurally, doubles bit-exact, bytes byte-exact). */
bool cdch_value_equal(const cdch_value *x, const cdch_value *y);

/* Base64 (RFC 4648, with padding) of n bytes appended to out. */
void cdch_base64_append(cdch_buf *out, const uint8_t *p, size_t n);

#endif
