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
    char *s = malloc(n + 1);
    if (!s)
        abort();
    if (n)
        memcpy(s, b.data, n);
    s[n] = '\0';
    cdch_buf_free(&b);
    *out = s;
    *pp = p;
    return 0;
}

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
    if (t->kind == K_ENUM || t->kind == K_SET) {
        size_t cap = 0;
        for (;;) {
            skip_ws(&p);
            if (t->nlabels == cap) {
                cap = cap ? cap * 2 : 8;
                char **nl = realloc(t->labels, cap * sizeof *nl);
                if (!nl)
                    abort();
                t->labels = nl;
            }
            if (read_label(&p, &t->labels[t->nlabels], err) < 0)
                return -1;
            t->nlabels++;
            if (t->nlabels > MAX_LABELS)
                return cdch_err_set(err, "too many ENUM members (at most %d)", MAX_LABELS);
            skip_ws(&p);
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == ')') {
                p++;
                break;
            }
            return cdch_err_set(err, "expected ',' or ')' in the %s member list, found '%.10s'",
                                t->kind == K_ENUM ? "ENUM" : "SET", *p ? p : "end of text");
        }
        *pp = p;
        return 0;
    }
    for (;;) {
        skip_ws(&p);
        if (!isdigit((unsigned char)*p))
            return cdch_err_set(err, "expected a number in the type's parentheses, found '%.10s'",
                                *p ? p : "end of text");
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (v > 0xFFFFFFFFull)
            v = 0xFFFFFFFFull;
        if (t->nargs == MAX_ARGS)
            return cdch_err_set(err, "too many numbers in the type's parentheses (at most %d)", MAX_ARGS);
        t->args[t->nargs++] = v;
        p = end;
        skip_ws(&p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == ')') {
            p++;
            break;
        }
        return cdch_err_set(err, "expected ',' or ')' in the type's parentheses, found '%.10s'",
                            *p ? p : "end of text");
    }
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

static int build(const parsed *t, const char *charset, const char *collation, cdch_arena *a, cdch_sc_column *out,
                 cdch_err *err)
{
    cdch_coldef *d = &out->def;
    cdch_buf sql = CDCH_BUF_INIT;
    int rc = 0;
    const char *word = kind_word(t->kind);
    out->mbmaxlen = 1;
    out->charset = NULL;
    out->collation = NULL;
    out->char_length = 0;

    if (!is_num_kind(t->kind) && (t->is_unsigned || t->zerofill)) {
        rc = cdch_err_set(err, "UNSIGNED/ZEROFILL only apply to numeric types, not %s", word);
        goto done;
    }
    if (!is_char_kind(t->kind) && (t->charset[0] || t->collation[0])) {
        rc = cdch_err_set(err, "CHARACTER SET/COLLATE do not apply to %s", word);
        goto done;
    }
    d->is_unsigned = t->is_unsigned || t->zerofill;

    if (is_int_kind(t->kind)) {
        static const uint8_t codes[] = {0, CDCH_T_TINY, CDCH_T_SHORT, CDCH_T_INT24, CDCH_T_LONG, CDCH_T_LONGLONG,
                                        CDCH_T_TINY};
        if (t->kind == K_BOOL && t->nargs >= 0) {
            rc = cdch_err_set(err, "type bool takes no length");
            goto done;
        }
        if (t->nargs > 1 || (t->nargs == 1 && (t->args[0] < 1 || t->args[0] > 255))) {
            rc = cdch_err_set(err, "integer display width must be one number 1..255");
            goto done;
        }
        d->type = codes[t->kind];
        cdch_put_str(&sql, word);
    } else {
        switch (t->kind) {
        case K_DECIMAL: {
            uint64_t p = 10, s = 0;
            if (t->nargs >= 1)
                p = t->args[0];
            if (t->nargs >= 2)
                s = t->args[1];
            if (t->nargs == 0 || p < 1 || p > 65) {
                rc = cdch_err_set(err, "decimal precision %" PRIu64 " is out of range 1..65", p);
                goto done;
            }
            if (s > 30) {
                rc = cdch_err_set(err, "decimal scale %" PRIu64 " is out of range 0..30", s);
                goto done;
            }
            if (s > p) {
                rc = cdch_err_set(err, "decimal scale %" PRIu64 " is larger than its precision %" PRIu64, s, p);
                goto done;
            }
            d->type = CDCH_T_NEWDECIMAL;
            d->meta = (uint16_t)(p << 8 | s);
            cdch_buf_printf(&sql, "decimal(%" PRIu64 ",%" PRIu64 ")", p, s);
            break;
        }
        case K_FLOAT:
        case K_DOUBLE: {
            bool dbl = t->kind == K_DOUBLE;
            if (t->nargs == 1) {
                if (dbl) {
                    rc = cdch_err_set(err, "double takes (M,D) or nothing");
                    goto done;
                }
                if (t->args[0] > 53) {
                    rc = cdch_err_set(err, "float(%" PRIu64 ") precision is out of range 0..53", t->args[0]);
                    goto done;
                }
                dbl = t->args[0] > 24;
            } else if (t->nargs == 2) {
                if (t->args[0] < 1 || t->args[0] > 255 || t->args[1] > 30 || t->args[1] > t->args[0]) {
                    rc = cdch_err_set(err, "%s(%" PRIu64 ",%" PRIu64 "): M must be 1..255 and D 0..30, D <= M",
                                      word, t->args[0], t->args[1]);
                    goto done;
                }
            } else if (t->nargs == 0) {
                rc = cdch_err_set(err, "%s() needs a precision", word);
                goto done;
            }
            d->type = dbl ? CDCH_T_DOUBLE : CDCH_T_FLOAT;
            d->meta = dbl ? 8 : 4;
            cdch_put_str(&sql, dbl ? "double" : "float");
            if (t->nargs == 2)
                cdch_buf_printf(&sql, "(%" PRIu64 ",%" PRIu64 ")", t->args[0], t->args[1]);
            break;
        }
        case K_DATE:
            if ((rc = no_args(t, word, err)) < 0)
                goto done;
            d->type = CDCH_T_DATE;
            cdch_put_str(&sql, word);
            break;
        case K_YEAR:
            if (t->nargs > 1 || (t->nargs == 1 && t->args[0] != 4)) {
                rc = cdch_err_set(err, "year takes no length (or the old (4))");
                goto done;
            }
            d->type = CDCH_T_YEAR;
            d->is_unsigned = true; /* Field_year is an unsigned zerofill Field_tiny (SIGNEDNESS metadata) */
            cdch_put_str(&sql, word);
            break;
        case K_DATETIME:
        case K_TIMESTAMP:
        case K_TIME: {
            uint64_t fsp = t->nargs >= 1 ? t->args[0] : 0;
            if (t->nargs == 0 || t->nargs > 1 || fsp > 6) {
                rc = cdch_err_set(err, "%s fractional seconds precision must be 0..6", word);
                goto done;
            }
            d->type = t->kind == K_DATETIME ? CDCH_T_DATETIME2 : t->kind == K_TIMESTAMP ? CDCH_T_TIMESTAMP2
                                                                                        : CDCH_T_TIME2;
            d->meta = (uint16_t)fsp;
            cdch_put_str(&sql, word);
            if (fsp)
                cdch_buf_printf(&sql, "(%" PRIu64 ")", fsp);
            break;
        }
        case K_BIT: {
            uint64_t n = t->nargs >= 1 ? t->args[0] : 1;
            if (t->nargs == 0 || t->nargs > 1 || n < 1 || n > 64) {
                rc = cdch_err_set(err, "bit(%" PRIu64 "): the number of bits must be 1..64", n);
                goto done;
            }
            d->type = CDCH_T_BIT;
            d->meta = (uint16_t)((n / 8) << 8 | (n % 8));
            out->char_length = (uint32_t)n;
            cdch_buf_printf(&sql, "bit(%" PRIu64 ")", n);
            break;
        }
        case K_BINARY:
        case K_VARBINARY: {
            bool var = t->kind == K_VARBINARY;
            if (t->nargs > 1 || t->nargs == 0 || (var && t->nargs < 0)) {
                rc = cdch_err_set(err, "%s needs one length: %s(N)", word, word);
                goto done;
            }
            uint64_t n = t->nargs == 1 ? t->args[0] : 1;
            if (!var && n > 255) {
                rc = cdch_err_set(err, "binary(%" PRIu64 ") is too long (at most 255 bytes; use varbinary)", n);
                goto done;
            }
            if (var && n > 65535) {
                rc = cdch_err_set(err, "varbinary(%" PRIu64 ") is too long (at most 65535 bytes; use blob)", n);
                goto done;
            }
            d->type = var ? CDCH_T_VARCHAR : CDCH_T_STRING;
            d->meta = var ? (uint16_t)n : char_meta((uint32_t)n);
            d->collation = CDCH_COLLATION_BINARY;
            out->char_length = (uint32_t)n;
            cdch_buf_printf(&sql, "%s(%" PRIu64 ")", word, n);
            break;
        }
        case K_TINYBLOB:
        case K_BLOB:
        case K_MEDIUMBLOB:
        case K_LONGBLOB: {
            int prefix = (int)(t->kind - K_TINYBLOB) + 1;
            if (t->nargs >= 0 && t->kind != K_BLOB) {
                rc = cdch_err_set(err, "type %s takes no length", word);
                goto done;
            }
            if (t->nargs > 1 || t->nargs == 0) {
                rc = cdch_err_set(err, "blob takes one length: blob(N)");
                goto done;
            }
            if (t->nargs == 1) {
                uint64_t n = t->args[0];
                prefix = n <= 255 ? 1 : n <= 65535 ? 2 : n <= 16777215 ? 3 : 4;
            }
            static const char *const names[] = {"", "tinyblob", "blob", "mediumblob", "longblob"};
            d->type = CDCH_T_BLOB;
            d->meta = (uint16_t)prefix;
            d->collation = CDCH_COLLATION_BINARY;
            cdch_put_str(&sql, names[prefix]);
            break;
        }
        case K_JSON:
            if ((rc = no_args(t, word, err)) < 0)
                goto done;
            d->type = CDCH_T_JSON;
            d->meta = 4;
            d->collation = CDCH_COLLATION_BINARY;
            cdch_put_str(&sql, word);
            break;
        case K_GEOM:
            if ((rc = no_args(t, sc_geom_name((uint32_t)t->sub), err)) < 0)
                goto done;
            d->type = CDCH_T_GEOMETRY;
            d->meta = 4;
            d->collation = CDCH_COLLATION_BINARY;
            d->geometry_type = (uint32_t)t->sub;
            cdch_put_str(&sql, sc_geom_name((uint32_t)t->sub));
            break;
        case K_VECTOR: {
            uint64_t n = t->nargs >= 1 ? t->args[0] : 2048;
            if (t->nargs == 0 || t->nargs > 1 || n < 1 || n > 16383) {
                rc = cdch_err_set(err, "vector(%" PRIu64 "): the dimension must be 1..16383", n);
                goto done;
            }
            d->type = CDCH_T_VECTOR;
            d->meta = 4;
            d->collation = CDCH_COLLATION_BINARY;
            out->char_length = (uint32_t)n;
            cdch_buf_printf(&sql, "vector(%" PRIu64 ")", n);
            break;
        }
        default: {
            /* character types */
            const char *cs = NULL, *coll = NULL;
            /* CHARACTER SET / COLLATE in the type text win over the arguments
             * (which are the column's keys or the table's defaults) */
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
            if (resolve_charset(want_cs, want_coll, &cs, &coll, err) < 0) {
                rc = -1;
                goto done;
            }
            uint32_t mb = cdch_charset_mbmaxlen(cs);
            out->charset = cdch_arena_strdup(a, cs);
            out->collation = cdch_arena_strdup(a, coll);
            out->mbmaxlen = mb;
            d->collation = cdch_collation_id(coll);
            switch (t->kind) {
            case K_CHAR: {
                if (t->nargs > 1 || t->nargs == 0) {
                    rc = cdch_err_set(err, "char takes one length: char(N)");
                    goto done;
                }
                uint64_t n = t->nargs == 1 ? t->args[0] : 1;
                if (n > 255) {
                    rc = cdch_err_set(err, "char(%" PRIu64 ") is too long (at most 255 characters; use varchar)", n);
                    goto done;
                }
                d->type = CDCH_T_STRING;
                d->meta = char_meta((uint32_t)(n * mb));
                out->char_length = (uint32_t)n;
                cdch_buf_printf(&sql, "char(%" PRIu64 ")", n);
                break;
            }
            case K_VARCHAR: {
                if (t->nargs != 1) {
                    rc = cdch_err_set(err, "varchar needs a length: varchar(N)");
                    goto done;
                }
                uint64_t n = t->args[0];
                if (n * mb > 65535) {
                    rc = cdch_err_set(err,
                                      "varchar(%" PRIu64 ") needs %" PRIu64 " bytes in %s (%u bytes per character), "
                                      "more than 65535; use text",
                                      n, n * mb, cs, mb);
                    goto done;
                }
                d->type = CDCH_T_VARCHAR;
                d->meta = (uint16_t)(n * mb);
                out->char_length = (uint32_t)n;
                cdch_buf_printf(&sql, "varchar(%" PRIu64 ")", n);
                break;
            }
            case K_TINYTEXT:
            case K_TEXT:
            case K_MEDIUMTEXT:
            case K_LONGTEXT: {
                int prefix = (int)(t->kind - K_TINYTEXT) + 1;
                if (t->nargs >= 0 && t->kind != K_TEXT) {
                    rc = cdch_err_set(err, "type %s takes no length", word);
                    goto done;
                }
                if (t->nargs > 1 || t->nargs == 0) {
                    rc = cdch_err_set(err, "text takes one length: text(N)");
                    goto done;
                }
                if (t->nargs == 1) {
                    uint64_t n = t->args[0] * mb;
                    prefix = n <= 255 ? 1 : n <= 65535 ? 2 : n <= 16777215 ? 3 : 4;
                }
                static const char *const names[] = {"", "tinytext", "text", "mediumtext", "longtext"};
                d->type = CDCH_T_BLOB;
                d->meta = (uint16_t)prefix;
                cdch_put_str(&sql, names[prefix]);
                break;
            }
            case K_ENUM:
            case K_SET: {
                bool is_enum = t->kind == K_ENUM;
                if (t->nargs < 0 || t->nlabels == 0) {
                    rc = cdch_err_set(err, "%s needs its members: %s('a','b')", word, word);
                    goto done;
                }
                if (!is_enum && t->nlabels > 64) {
                    rc = cdch_err_set(err, "set has %zu members, more than 64", t->nlabels);
                    goto done;
                }
                bool ci = collation_is_ci(coll);
                for (size_t i = 0; i < t->nlabels; i++) {
                    if (!is_enum && strchr(t->labels[i], ',')) {
                        rc = cdch_err_set(err, "set member '%s' contains a comma", t->labels[i]);
                        goto done;
                    }
                    for (size_t j = 0; j < i; j++)
                        if (labels_equal_ci(t->labels[i], t->labels[j], ci)) {
                            rc = cdch_err_set(err, "%s has the member '%s' twice", word, t->labels[i]);
                            goto done;
                        }
                }
                unsigned pack;
                if (is_enum)
                    pack = t->nlabels <= 255 ? 1 : 2;
                else {
                    pack = (unsigned)((t->nlabels + 7) / 8);
                    if (pack > 4)
                        pack = 8;
                }
                d->type = CDCH_T_STRING;
                d->meta = (uint16_t)((is_enum ? CDCH_T_ENUM : CDCH_T_SET) << 8 | pack);
                const char **labels = cdch_arena_alloc(a, t->nlabels * sizeof *labels);
                cdch_put_str(&sql, word);
                cdch_put_u8(&sql, '(');
                for (size_t i = 0; i < t->nlabels; i++) {
                    labels[i] = cdch_arena_strdup(a, t->labels[i]);
                    if (i)
                        cdch_put_u8(&sql, ',');
                    put_quoted_label(&sql, t->labels[i]);
                }
                cdch_put_u8(&sql, ')');
                d->labels = labels;
                d->nlabels = t->nlabels;
                break;
            }
            default: break;
            }
        }
        }
    }
    if (t->is_unsigned || t->zerofill)
        cdch_put_str(&sql, " unsigned");
    if (t->zerofill)
        cdch_put_str(&sql, " zerofill");
    cdch_coldef_finish(d);
    out->sql_type = cdch_arena_memdup(a, sql.data, sql.len);
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
