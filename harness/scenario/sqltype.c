/* sqltype.c — MySQL 8 column type text -> cdch_sc_column: the binlog type
 * byte and metadata exactly as TABLE_MAP carries them (binlog-format.md
 * section 6; MySQL sql/field.cc do_save_field_metadata), collation ids,
 * signedness, ENUM/SET labels, and a normalised SQL type for DDL.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scenario_internal.h"
#include "xalloc.h"

typedef enum tkind {
    K_TINYINT = 1, K_SMALLINT, K_MEDIUMINT, K_INT, K_BIGINT, K_BOOL,
    K_DECIMAL, K_FLOAT, K_DOUBLE,
    K_DATE, K_DATETIME, K_TIMESTAMP, K_TIME, K_YEAR,
    K_BIT,
    K_CHAR, K_VARCHAR, K_BINARY, K_VARBINARY,
    K_TINYTEXT, K_TEXT, K_MEDIUMTEXT, K_LONGTEXT,
    K_TINYBLOB, K_BLOB, K_MEDIUMBLOB, K_LONGBLOB,
    K_ENUM, K_SET, K_JSON, K_GEOM, K_VECTOR,
} tkind;

typedef struct tname {
    const char *name;
    tkind kind;
    int sub;          /* geometry subtype; national (utf8mb3) for NCHAR/NVARCHAR */
} tname;

static const tname k_types[] = {
    {"tinyint", K_TINYINT, 0},     {"int1", K_TINYINT, 0},        {"smallint", K_SMALLINT, 0},
    {"int2", K_SMALLINT, 0},       {"mediumint", K_MEDIUMINT, 0}, {"middleint", K_MEDIUMINT, 0},
    {"int3", K_MEDIUMINT, 0},      {"int", K_INT, 0},             {"integer", K_INT, 0},
    {"int4", K_INT, 0},            {"bigint", K_BIGINT, 0},       {"int8", K_BIGINT, 0},
    {"bool", K_BOOL, 0},           {"boolean", K_BOOL, 0},        {"decimal", K_DECIMAL, 0},
    {"dec", K_DECIMAL, 0},         {"numeric", K_DECIMAL, 0},     {"fixed", K_DECIMAL, 0},
    {"float", K_FLOAT, 0},         {"float4", K_FLOAT, 0},        {"double", K_DOUBLE, 0},
    {"float8", K_DOUBLE, 0},       {"real", K_DOUBLE, 0},         {"date", K_DATE, 0},
    {"datetime", K_DATETIME, 0},   {"timestamp", K_TIMESTAMP, 0}, {"time", K_TIME, 0},
    {"year", K_YEAR, 0},           {"bit", K_BIT, 0},             {"char", K_CHAR, 0},
    {"character", K_CHAR, 0},      {"nchar", K_CHAR, 1},          {"varchar", K_VARCHAR, 0},
    {"nvarchar", K_VARCHAR, 1},    {"binary", K_BINARY, 0},       {"varbinary", K_VARBINARY, 0},
    {"tinytext", K_TINYTEXT, 0},   {"text", K_TEXT, 0},           {"mediumtext", K_MEDIUMTEXT, 0},
    {"longtext", K_LONGTEXT, 0},   {"tinyblob", K_TINYBLOB, 0},   {"blob", K_BLOB, 0},
    {"mediumblob", K_MEDIUMBLOB, 0}, {"longblob", K_LONGBLOB, 0}, {"enum", K_ENUM, 0},
    {"set", K_SET, 0},             {"json", K_JSON, 0},
    {"geometry", K_GEOM, SC_GEOM_GEOMETRY},
    {"point", K_GEOM, SC_GEOM_POINT},
    {"linestring", K_GEOM, SC_GEOM_LINESTRING},
    {"polygon", K_GEOM, SC_GEOM_POLYGON},
    {"multipoint", K_GEOM, SC_GEOM_MULTIPOINT},
    {"multilinestring", K_GEOM, SC_GEOM_MULTILINESTRING},
    {"multipolygon", K_GEOM, SC_GEOM_MULTIPOLYGON},
    {"geometrycollection", K_GEOM, SC_GEOM_GEOMETRYCOLLECTION},
    {"geomcollection", K_GEOM, SC_GEOM_GEOMETRYCOLLECTION},
    {"vector", K_VECTOR, 0},
};
#define N_TYPES (sizeof k_types / sizeof k_types[0])

#define MAX_ARGS 2
#define MAX_LABELS 65535

typedef struct parsed {
    tkind kind;
    int sub;
    int nargs;               /* -1: no parentheses */
    uint64_t args[MAX_ARGS];
    size_t nlabels;
    char **labels;           /* malloc'd while parsing */
    bool is_unsigned, zerofill;
    char charset[65], collation[65];
} parsed;

static void skip_ws(const char **p)
{
    while (**p && isspace((unsigned char)**p))
        (*p)++;
}

/* A word [A-Za-z0-9_]+, lowercased into buf; false if none. */
static bool read_word(const char **p, char *buf, size_t cap)
{
    skip_ws(p);
    size_t n = 0;
    while (isalnum((unsigned char)**p) || **p == '_') {
        if (n + 1 < cap)
            buf[n++] = (char)tolower((unsigned char)**p);
        (*p)++;
    }
    buf[n] = '\0';
    return n > 0;
}

static bool peek_word(const char *p, const char *w)
{
    char buf[32];
    return read_word(&p, buf, sizeof buf) && strcmp(buf, w) == 0;
}

static void free_labels(parsed *t)
{
    for (size_t i = 0; i < t->nlabels; i++)
        free(t->labels[i]);
    free(t->labels);
    t->labels = NULL;
    t->nlabels = 0;
}

/* A quoted ENUM/SET member: 'it''s', "x", with \ escapes as MySQL reads them. */
static int read_label(const char **pp, char **out, cdch_err *err)
{
    const char *p = *pp;
    char q = *p;
    if (q != '\'' && q != '"')
        return cdch_err_set(err, "expected a quoted member ('...') in the ENUM/SET list, found '%.10s'", p);
    p++;
    cdch_buf b = CDCH_BUF_INIT;
    for (;;) {
        if (!*p) {
            cdch_buf_free(&b);
            return cdch_err_set(err, "unterminated quoted member in the ENUM/SET list");
        }
        if (*p == q) {
            if (p[1] == q) {
                cdch_put_u8(&b, (uint8_t)q);
                p += 2;
                continue;
            }
            p++;
            break;
        }
        if (*p == '\\' && p[1]) {
            char e = p[1];
            char r = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == '0' ? '\0' : e;
            cdch_put_u8(&b, (uint8_t)r);
            p += 2;
            continue;
        }
        cdch_put_u8(&b, (uint8_t)*p++);
    }
    /* MySQL strips trailing spaces from ENUM/SET members */
    size_t n = b.len;
    while (n > 0 && b.data[n - 1] == ' ')
        n--;
    char *s = cdch_xrealloc(NULL, n + 1);
    if (n)
        memcpy(s, b.data, n);
    s[n] = '\0';
    cdch_buf_free(&b);
    *out = s;
    *pp = p;
    return 0;
}

/* After an item of a parenthesised list: ',' (1: another item follows) or ')'
 * (0: the list ends); -1 with an error naming `where` otherwise. */
static int list_next(const char **pp, const char *where, cdch_err *err)
{
    skip_ws(pp);
    char ch = **pp;
    if (ch == ',' || ch == ')') {
        (*pp)++;
        return ch == ',';
    }
    return cdch_err_set(err, "expected ',' or ')' in %s, found '%.10s'", where, **pp ? *pp : "end of text");
}

static int parse_labels(const char **pp, parsed *t, cdch_err *err)
{
    const char *where = t->kind == K_ENUM ? "the ENUM member list" : "the SET member list";
    size_t cap = 0;
    int more;
    do {
        skip_ws(pp);
        if (t->nlabels == cap) {
            cap = cap ? cap * 2 : 8;
            t->labels = cdch_xrealloc(t->labels, cap * sizeof *t->labels);
        }
        if (read_label(pp, &t->labels[t->nlabels], err) < 0)
            return -1;
        t->nlabels++;
        if (t->nlabels > MAX_LABELS)
            return cdch_err_set(err, "too many ENUM members (at most %d)", MAX_LABELS);
    } while ((more = list_next(pp, where, err)) > 0);
    return more;
}

static int parse_numbers(const char **pp, parsed *t, cdch_err *err)
{
    int more;
    do {
        skip_ws(pp);
        if (!isdigit((unsigned char)**pp))
            return cdch_err_set(err, "expected a number in the type's parentheses, found '%.10s'",
                                **pp ? *pp : "end of text");
        char *end;
        unsigned long long v = strtoull(*pp, &end, 10);
        if (v > 0xFFFFFFFFull)
            v = 0xFFFFFFFFull;
        if (t->nargs == MAX_ARGS)
            return cdch_err_set(err, "too many numbers in the type's parentheses (at most %d)", MAX_ARGS);
        t->args[t->nargs++] = v;
        *pp = end;
    } while ((more = list_next(pp, "the type's parentheses", err)) > 0);
    return more;
}

/* "(N[,M])" or an ENUM/SET's "('a','b',...)"; nargs -1 when there are no parentheses. */
static int parse_args(const char **pp, parsed *t, cdch_err *err)
{
    const char *p = *pp;
    skip_ws(&p);
    if (*p != '(') {
        t->nargs = -1;
        return 0;
    }
    p++;
    t->nargs = 0;
    int rc = t->kind == K_ENUM || t->kind == K_SET ? parse_labels(&p, t, err) : parse_numbers(&p, t, err);
    if (rc < 0)
        return -1;
    *pp = p;
    return 0;
}

static bool is_char_kind(tkind k)
{
    return k == K_CHAR || k == K_VARCHAR || (k >= K_TINYTEXT && k <= K_LONGTEXT) || k == K_ENUM || k == K_SET;
}

static bool is_int_kind(tkind k) { return k >= K_TINYINT && k <= K_BOOL; }
static bool is_num_kind(tkind k) { return is_int_kind(k) || k == K_DECIMAL || k == K_FLOAT || k == K_DOUBLE; }

static const char *kind_word(tkind k)
{
    switch (k) {
    case K_TINYINT: return "tinyint";
    case K_SMALLINT: return "smallint";
    case K_MEDIUMINT: return "mediumint";
    case K_INT: return "int";
    case K_BIGINT: return "bigint";
    case K_BOOL: return "tinyint(1)";
    case K_DECIMAL: return "decimal";
    case K_FLOAT: return "float";
    case K_DOUBLE: return "double";
    case K_DATE: return "date";
    case K_DATETIME: return "datetime";
    case K_TIMESTAMP: return "timestamp";
    case K_TIME: return "time";
    case K_YEAR: return "year";
    case K_BIT: return "bit";
    case K_CHAR: return "char";
    case K_VARCHAR: return "varchar";
    case K_BINARY: return "binary";
    case K_VARBINARY: return "varbinary";
    case K_TINYTEXT: return "tinytext";
    case K_TEXT: return "text";
    case K_MEDIUMTEXT: return "mediumtext";
    case K_LONGTEXT: return "longtext";
    case K_TINYBLOB: return "tinyblob";
    case K_BLOB: return "blob";
    case K_MEDIUMBLOB: return "mediumblob";
    case K_LONGBLOB: return "longblob";
    case K_ENUM: return "enum";
    case K_SET: return "set";
    case K_JSON: return "json";
    case K_GEOM: return "geometry";
    case K_VECTOR: return "vector";
    }
    return "?";
}

static int no_args(const parsed *t, const char *word, cdch_err *err)
{
    if (t->nargs >= 0)
        return cdch_err_set(err, "type %s takes no length or precision", word);
    return 0;
}

static int resolve_charset(const char *charset, const char *collation, const char **cs_out, const char **coll_out,
                           cdch_err *err)
{
    const char *cs = NULL, *coll = NULL;
    if (charset && *charset) {
        cs = sc_charset_canon(charset);
        if (!cs)
            return cdch_err_set(err, "unknown character set '%s'", charset);
    }
    if (collation && *collation) {
        coll = sc_collation_canon(collation);
        if (!coll)
            return cdch_err_set(err, "unknown collation '%s'", collation);
        const char *ccs = sc_collation_charset(coll);
        if (cs && strcmp(ccs, cs) != 0)
            return cdch_err_set(err, "collation '%s' is not valid for character set '%s'", collation, cs);
        cs = ccs;
    }
    if (!cs)
        cs = "utf8mb4";
    if (!coll)
        coll = cdch_default_collation(cs);
    *cs_out = cs;
    *coll_out = coll;
    return 0;
}

static void put_quoted_label(cdch_buf *b, const char *s)
{
    cdch_put_u8(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            cdch_put_u8(b, '\'');
        if (*s == '\\')
            cdch_put_u8(b, '\\');
        cdch_put_u8(b, (uint8_t)*s);
    }
    cdch_put_u8(b, '\'');
}

static uint16_t char_meta(uint32_t len)
{
    /* byte0 = real_type XOR ((len & 0x300) >> 4), byte1 = len & 0xFF */
    unsigned byte0 = CDCH_T_STRING ^ ((len & 0x300) >> 4);
    return (uint16_t)(byte0 << 8 | (len & 0xFF));
}

static bool labels_equal_ci(const char *x, const char *y, bool ci)
{
    return ci ? strcasecmp(x, y) == 0 : strcmp(x, y) == 0;
}

static bool collation_is_ci(const char *coll)
{
    size_t n = coll ? strlen(coll) : 0;
    return n > 3 && strcmp(coll + n - 3, "_ci") == 0;
}

/* ---- one builder per type family ---------------------------------------------------- */

/* What a family builder works on: the parsed type, and the column it fills
 * (def, char_length) with its normalised SQL type in sql. */
typedef struct bctx {
    const parsed *t;
    const char *word;      /* kind_word(t->kind) */
    cdch_sc_column *out;
    cdch_coldef *d;
    cdch_arena *a;
    cdch_buf *sql;
    cdch_err *err;
    const char *cs, *coll; /* character types: the resolved charset and collation */
    uint32_t mb;           /* ... and its bytes per character */
} bctx;

static int b_int(bctx *b)
{
    static const uint8_t codes[] = {0, CDCH_T_TINY, CDCH_T_SHORT, CDCH_T_INT24, CDCH_T_LONG, CDCH_T_LONGLONG,
                                    CDCH_T_TINY};
    const parsed *t = b->t;
    if (t->kind == K_BOOL && t->nargs >= 0)
        return cdch_err_set(b->err, "type bool takes no length");
    if (t->nargs > 1 || (t->nargs == 1 && (t->args[0] < 1 || t->args[0] > 255)))
        return cdch_err_set(b->err, "integer display width must be one number 1..255");
    b->d->type = codes[t->kind];
    cdch_put_str(b->sql, b->word);
    return 0;
}

static int b_decimal(bctx *b)
{
    const parsed *t = b->t;
    uint64_t p = 10, s = 0;
    if (t->nargs >= 1)
        p = t->args[0];
    if (t->nargs >= 2)
        s = t->args[1];
    if (t->nargs == 0 || p < 1 || p > 65)
        return cdch_err_set(b->err, "decimal precision %" PRIu64 " is out of range 1..65", p);
    if (s > 30)
        return cdch_err_set(b->err, "decimal scale %" PRIu64 " is out of range 0..30", s);
    if (s > p)
        return cdch_err_set(b->err, "decimal scale %" PRIu64 " is larger than its precision %" PRIu64, s, p);
    b->d->type = CDCH_T_NEWDECIMAL;
    b->d->meta = (uint16_t)(p << 8 | s);
    cdch_buf_printf(b->sql, "decimal(%" PRIu64 ",%" PRIu64 ")", p, s);
    return 0;
}

static int b_float(bctx *b)
{
    const parsed *t = b->t;
    bool dbl = t->kind == K_DOUBLE;
    if (t->nargs == 1) {
        if (dbl)
            return cdch_err_set(b->err, "double takes (M,D) or nothing");
        if (t->args[0] > 53)
            return cdch_err_set(b->err, "float(%" PRIu64 ") precision is out of range 0..53", t->args[0]);
        dbl = t->args[0] > 24;
    } else if (t->nargs == 2) {
        if (t->args[0] < 1 || t->args[0] > 255 || t->args[1] > 30 || t->args[1] > t->args[0])
            return cdch_err_set(b->err, "%s(%" PRIu64 ",%" PRIu64 "): M must be 1..255 and D 0..30, D <= M", b->word,
                                t->args[0], t->args[1]);
    } else if (t->nargs == 0) {
        return cdch_err_set(b->err, "%s() needs a precision", b->word);
    }
    b->d->type = dbl ? CDCH_T_DOUBLE : CDCH_T_FLOAT;
    b->d->meta = dbl ? 8 : 4;
    cdch_put_str(b->sql, dbl ? "double" : "float");
    if (t->nargs == 2)
        cdch_buf_printf(b->sql, "(%" PRIu64 ",%" PRIu64 ")", t->args[0], t->args[1]);
    return 0;
}

static int b_date(bctx *b)
{
    if (no_args(b->t, b->word, b->err) < 0)
        return -1;
    b->d->type = CDCH_T_DATE;
    cdch_put_str(b->sql, b->word);
    return 0;
}

static int b_year(bctx *b)
{
    const parsed *t = b->t;
    if (t->nargs > 1 || (t->nargs == 1 && t->args[0] != 4))
        return cdch_err_set(b->err, "year takes no length (or the old (4))");
    b->d->type = CDCH_T_YEAR;
    b->d->is_unsigned = true; /* Field_year is an unsigned zerofill Field_tiny (SIGNEDNESS metadata) */
    cdch_put_str(b->sql, b->word);
    return 0;
}

/* DATETIME, TIMESTAMP, TIME: fractional seconds precision */
static int b_fsp(bctx *b)
{
    const parsed *t = b->t;
    uint64_t fsp = t->nargs >= 1 ? t->args[0] : 0;
    if (t->nargs == 0 || t->nargs > 1 || fsp > 6)
        return cdch_err_set(b->err, "%s fractional seconds precision must be 0..6", b->word);
    b->d->type = t->kind == K_DATETIME ? CDCH_T_DATETIME2 : t->kind == K_TIMESTAMP ? CDCH_T_TIMESTAMP2 : CDCH_T_TIME2;
    b->d->meta = (uint16_t)fsp;
    cdch_put_str(b->sql, b->word);
    if (fsp)
        cdch_buf_printf(b->sql, "(%" PRIu64 ")", fsp);
    return 0;
}

static int b_bit(bctx *b)
{
    const parsed *t = b->t;
    uint64_t n = t->nargs >= 1 ? t->args[0] : 1;
    if (t->nargs == 0 || t->nargs > 1 || n < 1 || n > 64)
        return cdch_err_set(b->err, "bit(%" PRIu64 "): the number of bits must be 1..64", n);
    b->d->type = CDCH_T_BIT;
    b->d->meta = (uint16_t)((n / 8) << 8 | (n % 8));
    b->out->char_length = (uint32_t)n;
    cdch_buf_printf(b->sql, "bit(%" PRIu64 ")", n);
    return 0;
}

static int b_binary(bctx *b)
{
    const parsed *t = b->t;
    bool var = t->kind == K_VARBINARY;
    if (t->nargs > 1 || t->nargs == 0 || (var && t->nargs < 0))
        return cdch_err_set(b->err, "%s needs one length: %s(N)", b->word, b->word);
    uint64_t n = t->nargs == 1 ? t->args[0] : 1;
    if (!var && n > 255)
        return cdch_err_set(b->err, "binary(%" PRIu64 ") is too long (at most 255 bytes; use varbinary)", n);
    if (var && n > 65535)
        return cdch_err_set(b->err, "varbinary(%" PRIu64 ") is too long (at most 65535 bytes; use blob)", n);
    b->d->type = var ? CDCH_T_VARCHAR : CDCH_T_STRING;
    b->d->meta = var ? (uint16_t)n : char_meta((uint32_t)n);
    b->d->collation = CDCH_COLLATION_BINARY;
    b->out->char_length = (uint32_t)n;
    cdch_buf_printf(b->sql, "%s(%" PRIu64 ")", b->word, n);
    return 0;
}

/* TINY/-/MEDIUM/LONG BLOB and TEXT: a length prefix of 1..4 bytes; only the
 * middle one takes a length N (bytes, or characters of mb bytes), which picks
 * the smallest prefix that holds it. */
static int lob(bctx *b, tkind tiny, const char *base, uint32_t mb, const char *const names[5])
{
    const parsed *t = b->t;
    int prefix = (int)(t->kind - tiny) + 1;
    if (t->nargs >= 0 && prefix != 2)
        return cdch_err_set(b->err, "type %s takes no length", b->word);
    if (t->nargs > 1 || t->nargs == 0)
        return cdch_err_set(b->err, "%s takes one length: %s(N)", base, base);
    if (t->nargs == 1) {
        uint64_t n = t->args[0] * mb;
        prefix = n <= 255 ? 1 : n <= 65535 ? 2 : n <= 16777215 ? 3 : 4;
    }
    b->d->type = CDCH_T_BLOB;
    b->d->meta = (uint16_t)prefix;
    cdch_put_str(b->sql, names[prefix]);
    return 0;
}

static int b_blob(bctx *b)
{
    static const char *const names[] = {"", "tinyblob", "blob", "mediumblob", "longblob"};
    if (lob(b, K_TINYBLOB, "blob", 1, names) < 0)
        return -1;
    b->d->collation = CDCH_COLLATION_BINARY;
    return 0;
}

static int b_json(bctx *b)
{
    if (no_args(b->t, b->word, b->err) < 0)
        return -1;
    b->d->type = CDCH_T_JSON;
    b->d->meta = 4;
    b->d->collation = CDCH_COLLATION_BINARY;
    cdch_put_str(b->sql, b->word);
    return 0;
}

static int b_geom(bctx *b)
{
    const char *name = sc_geom_name((uint32_t)b->t->sub);
    if (no_args(b->t, name, b->err) < 0)
        return -1;
    b->d->type = CDCH_T_GEOMETRY;
    b->d->meta = 4;
    b->d->collation = CDCH_COLLATION_BINARY;
    b->d->geometry_type = (uint32_t)b->t->sub;
    cdch_put_str(b->sql, name);
    return 0;
}

static int b_vector(bctx *b)
{
    const parsed *t = b->t;
    uint64_t n = t->nargs >= 1 ? t->args[0] : 2048;
    if (t->nargs == 0 || t->nargs > 1 || n < 1 || n > 16383)
        return cdch_err_set(b->err, "vector(%" PRIu64 "): the dimension must be 1..16383", n);
    b->d->type = CDCH_T_VECTOR;
    b->d->meta = 4;
    b->d->collation = CDCH_COLLATION_BINARY;
    b->out->char_length = (uint32_t)n;
    cdch_buf_printf(b->sql, "vector(%" PRIu64 ")", n);
    return 0;
}

/* Character types: the charset and collation the column ends up with (in b
 * and out). CHARACTER SET / COLLATE in the type text win over charset and
 * collation (the column's keys or the table's defaults). */
static int char_charset(bctx *b, const char *charset, const char *collation)
{
    const parsed *t = b->t;
    const char *want_cs = charset, *want_coll = collation;
    if (t->charset[0] || t->collation[0]) {
        want_cs = t->charset[0] ? t->charset : NULL;
        want_coll = t->collation[0] ? t->collation : NULL;
    }
    if (want_cs && !*want_cs)
        want_cs = NULL;
    if (want_coll && !*want_coll)
        want_coll = NULL;
    if (t->sub == 1 && !want_cs && !want_coll)
        want_cs = "utf8mb3"; /* NCHAR / NVARCHAR */
    if (resolve_charset(want_cs, want_coll, &b->cs, &b->coll, b->err) < 0)
        return -1;
    b->mb = cdch_charset_mbmaxlen(b->cs);
    b->out->charset = cdch_arena_strdup(b->a, b->cs);
    b->out->collation = cdch_arena_strdup(b->a, b->coll);
    b->out->mbmaxlen = b->mb;
    b->d->collation = cdch_collation_id(b->coll);
    return 0;
}

static int b_char(bctx *b)
{
    const parsed *t = b->t;
    if (t->nargs > 1 || t->nargs == 0)
        return cdch_err_set(b->err, "char takes one length: char(N)");
    uint64_t n = t->nargs == 1 ? t->args[0] : 1;
    if (n > 255)
        return cdch_err_set(b->err, "char(%" PRIu64 ") is too long (at most 255 characters; use varchar)", n);
    b->d->type = CDCH_T_STRING;
    b->d->meta = char_meta((uint32_t)(n * b->mb));
    b->out->char_length = (uint32_t)n;
    cdch_buf_printf(b->sql, "char(%" PRIu64 ")", n);
    return 0;
}

static int b_varchar(bctx *b)
{
    const parsed *t = b->t;
    if (t->nargs != 1)
        return cdch_err_set(b->err, "varchar needs a length: varchar(N)");
    uint64_t n = t->args[0];
    if (n * b->mb > 65535)
        return cdch_err_set(b->err,
                            "varchar(%" PRIu64 ") needs %" PRIu64 " bytes in %s (%u bytes per character), "
                            "more than 65535; use text",
                            n, n * b->mb, b->cs, b->mb);
    b->d->type = CDCH_T_VARCHAR;
    b->d->meta = (uint16_t)(n * b->mb);
    b->out->char_length = (uint32_t)n;
    cdch_buf_printf(b->sql, "varchar(%" PRIu64 ")", n);
    return 0;
}

static int b_text(bctx *b)
{
    static const char *const names[] = {"", "tinytext", "text", "mediumtext", "longtext"};
    return lob(b, K_TINYTEXT, "text", b->mb, names);
}

/* ENUM / SET: members distinct under the collation, packed in 1-2 (ENUM) or
 * 1-4, 8 (SET) bytes. */
static int b_enum_set(bctx *b)
{
    const parsed *t = b->t;
    bool is_enum = t->kind == K_ENUM;
    if (t->nargs < 0 || t->nlabels == 0)
        return cdch_err_set(b->err, "%s needs its members: %s('a','b')", b->word, b->word);
    if (!is_enum && t->nlabels > 64)
        return cdch_err_set(b->err, "set has %zu members, more than 64", t->nlabels);
    bool ci = collation_is_ci(b->coll);
    for (size_t i = 0; i < t->nlabels; i++) {
        if (!is_enum && strchr(t->labels[i], ','))
            return cdch_err_set(b->err, "set member '%s' contains a comma", t->labels[i]);
        for (size_t j = 0; j < i; j++)
            if (labels_equal_ci(t->labels[i], t->labels[j], ci))
                return cdch_err_set(b->err, "%s has the member '%s' twice", b->word, t->labels[i]);
    }
    unsigned pack;
    if (is_enum)
        pack = t->nlabels <= 255 ? 1 : 2;
    else {
        pack = (unsigned)((t->nlabels + 7) / 8);
        if (pack > 4)
            pack = 8;
    }
    b->d->type = CDCH_T_STRING;
    b->d->meta = (uint16_t)((is_enum ? CDCH_T_ENUM : CDCH_T_SET) << 8 | pack);
    const char **labels = cdch_arena_alloc(b->a, t->nlabels * sizeof *labels);
    cdch_put_str(b->sql, b->word);
    cdch_put_u8(b->sql, '(');
    for (size_t i = 0; i < t->nlabels; i++) {
        labels[i] = cdch_arena_strdup(b->a, t->labels[i]);
        if (i)
            cdch_put_u8(b->sql, ',');
        put_quoted_label(b->sql, t->labels[i]);
    }
    cdch_put_u8(b->sql, ')');
    b->d->labels = labels;
    b->d->nlabels = t->nlabels;
    return 0;
}

/* The builder of each kind. */
static int (*const k_builders[])(bctx *) = {
    [K_TINYINT] = b_int,      [K_SMALLINT] = b_int,    [K_MEDIUMINT] = b_int,   [K_INT] = b_int,
    [K_BIGINT] = b_int,       [K_BOOL] = b_int,        [K_DECIMAL] = b_decimal, [K_FLOAT] = b_float,
    [K_DOUBLE] = b_float,     [K_DATE] = b_date,       [K_DATETIME] = b_fsp,    [K_TIMESTAMP] = b_fsp,
    [K_TIME] = b_fsp,         [K_YEAR] = b_year,       [K_BIT] = b_bit,         [K_CHAR] = b_char,
    [K_VARCHAR] = b_varchar,  [K_BINARY] = b_binary,   [K_VARBINARY] = b_binary, [K_TINYTEXT] = b_text,
    [K_TEXT] = b_text,        [K_MEDIUMTEXT] = b_text, [K_LONGTEXT] = b_text,   [K_TINYBLOB] = b_blob,
    [K_BLOB] = b_blob,        [K_MEDIUMBLOB] = b_blob, [K_LONGBLOB] = b_blob,   [K_ENUM] = b_enum_set,
    [K_SET] = b_enum_set,     [K_JSON] = b_json,       [K_GEOM] = b_geom,       [K_VECTOR] = b_vector,
};

/* The column of type t: the checks every type shares, the character set of
 * character types, then its family's builder. */
static int build(const parsed *t, const char *charset, const char *collation, cdch_arena *a, cdch_sc_column *out,
                 cdch_err *err)
{
    cdch_buf sql = CDCH_BUF_INIT;
    bctx b = {.t = t, .word = kind_word(t->kind), .out = out, .d = &out->def, .a = a, .sql = &sql, .err = err};
    int rc = -1;
    out->mbmaxlen = 1;
    out->charset = NULL;
    out->collation = NULL;
    out->char_length = 0;

    if (!is_num_kind(t->kind) && (t->is_unsigned || t->zerofill)) {
        cdch_err_set(err, "UNSIGNED/ZEROFILL only apply to numeric types, not %s", b.word);
        goto done;
    }
    if (!is_char_kind(t->kind) && (t->charset[0] || t->collation[0])) {
        cdch_err_set(err, "CHARACTER SET/COLLATE do not apply to %s", b.word);
        goto done;
    }
    out->def.is_unsigned = t->is_unsigned || t->zerofill;
    if (is_char_kind(t->kind) && char_charset(&b, charset, collation) < 0)
        goto done;
    if (k_builders[t->kind](&b) < 0)
        goto done;
    if (t->is_unsigned || t->zerofill)
        cdch_put_str(&sql, " unsigned");
    if (t->zerofill)
        cdch_put_str(&sql, " zerofill");
    cdch_coldef_finish(&out->def);
    out->sql_type = cdch_arena_memdup(a, sql.data, sql.len);
    rc = 0;
done:
    cdch_buf_free(&sql);
    return rc;
}

int cdch_sc_parse_type(const char *type_text, const char *charset, const char *collation, cdch_arena *a,
                       cdch_sc_column *out, cdch_err *err)
{
    parsed t;
    memset(&t, 0, sizeof t);
    t.nargs = -1;
    const char *p = type_text ? type_text : "";
    char w[64];
    if (!read_word(&p, w, sizeof w))
        return cdch_err_set(err, "empty column type");

    /* multi-word spellings */
    const char *save = p;
    char w2[64];
    if (strcmp(w, "double") == 0 && peek_word(p, "precision")) {
        read_word(&p, w2, sizeof w2);
    } else if (strcmp(w, "national") == 0) {
        if (!read_word(&p, w2, sizeof w2) || (strcmp(w2, "char") && strcmp(w2, "character") && strcmp(w2, "varchar")))
            return cdch_err_set(err, "expected char or varchar after 'national'");
        snprintf(w, sizeof w, "%s", strcmp(w2, "varchar") == 0 ? "nvarchar" : "nchar");
    } else if ((strcmp(w, "char") == 0 || strcmp(w, "character") == 0) && peek_word(p, "varying")) {
        read_word(&p, w2, sizeof w2);
        snprintf(w, sizeof w, "varchar");
    } else {
        p = save;
    }

    const tname *tn = NULL;
    for (size_t i = 0; i < N_TYPES; i++)
        if (strcmp(k_types[i].name, w) == 0)
            tn = &k_types[i];
    if (!tn) {
        const char *cands[N_TYPES];
        for (size_t i = 0; i < N_TYPES; i++)
            cands[i] = k_types[i].name;
        const char *sug = sc_suggest(w, cands, N_TYPES);
        if (sug)
            return cdch_err_set(err, "unknown column type '%s' (did you mean '%s'?)", w, sug);
        return cdch_err_set(err, "unknown column type '%s'", w);
    }
    t.kind = tn->kind;
    t.sub = tn->sub;
    int rc = -1;
    if (parse_args(&p, &t, err) < 0)
        goto out;
    for (;;) {
        skip_ws(&p);
        if (!*p)
            break;
        const char *at = p;
        if (!read_word(&p, w, sizeof w)) {
            cdch_err_set(err, "unexpected '%s' in the column type", at);
            goto out;
        }
        if (strcmp(w, "unsigned") == 0) {
            t.is_unsigned = true;
        } else if (strcmp(w, "signed") == 0) {
            t.is_unsigned = false;
        } else if (strcmp(w, "zerofill") == 0) {
            t.zerofill = true;
        } else if (strcmp(w, "charset") == 0 || strcmp(w, "character") == 0 || strcmp(w, "collate") == 0) {
            bool coll = strcmp(w, "collate") == 0;
            if (strcmp(w, "character") == 0 && (!read_word(&p, w, sizeof w) || strcmp(w, "set") != 0)) {
                cdch_err_set(err, "expected CHARACTER SET <name>");
                goto out;
            }
            if (!read_word(&p, w, sizeof w)) {
                cdch_err_set(err, "expected a name after %s", coll ? "COLLATE" : "CHARACTER SET");
                goto out;
            }
            snprintf(coll ? t.collation : t.charset, 65, "%s", w);
        } else {
            cdch_err_set(err, "unexpected '%s' after the column type (expected UNSIGNED, ZEROFILL, CHARACTER SET "
                              "or COLLATE)",
                         at);
            goto out;
        }
    }
    if (t.charset[0] && !sc_charset_canon(t.charset)) {
        cdch_err_set(err, "unknown character set '%s'", t.charset);
        goto out;
    }
    rc = build(&t, charset, collation, a, out, err);
out:
    free_labels(&t);
    return rc;
}
