/* value_json.c — the canonical JSON form of a row value (design.md
 * section 4; contract in value.h): text columns converted from their
 * charset to UTF-8, binary and undecodable bytes as {"base64":...},
 * numbers in their shortest round-trip form.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonstr.h"
#include "value_internal.h"
#include "cursor.h"

/* ---- text helpers ------------------------------------------------------------ */

void cdch_base64_append(cdch_buf *out, const uint8_t *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        char q[4] = {tab[v >> 18], tab[(v >> 12) & 63], tab[(v >> 6) & 63], tab[v & 63]};
        cdch_put_bytes(out, q, 4);
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        char q[4] = {tab[v >> 18], tab[(v >> 12) & 63], '=', '='};
        cdch_put_bytes(out, q, 4);
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        char q[4] = {tab[v >> 18], tab[(v >> 12) & 63], tab[(v >> 6) & 63], '='};
        cdch_put_bytes(out, q, 4);
    }
}

/* Strict UTF-8 check (no overlongs, no surrogates, <= U+10FFFF). */
static bool valid_utf8(const uint8_t *p, size_t n)
{
    for (size_t i = 0, k; i < n; i += k)
        if ((k = cdch_utf8_seq(p + i, n - i)) == 0)
            return false;
    return true;
}

static bool is_latin1_collation(uint32_t coll)
{
    switch (coll) {
    case 5:
    case 8:
    case 15:
    case 31:
    case 47:
    case 48:
    case 49:
    case 94: return true;
    default: return false;
    }
}

static void put_utf8(cdch_buf *out, uint32_t cp)
{
    if (cp < 0x80) {
        cdch_put_u8(out, (uint8_t)cp);
    } else if (cp < 0x800) {
        cdch_put_u8(out, (uint8_t)(0xC0 | cp >> 6));
        cdch_put_u8(out, (uint8_t)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        cdch_put_u8(out, (uint8_t)(0xE0 | cp >> 12));
        cdch_put_u8(out, (uint8_t)(0x80 | ((cp >> 6) & 0x3F)));
        cdch_put_u8(out, (uint8_t)(0x80 | (cp & 0x3F)));
    } else {
        cdch_put_u8(out, (uint8_t)(0xF0 | cp >> 18));
        cdch_put_u8(out, (uint8_t)(0x80 | ((cp >> 12) & 0x3F)));
        cdch_put_u8(out, (uint8_t)(0x80 | ((cp >> 6) & 0x3F)));
        cdch_put_u8(out, (uint8_t)(0x80 | (cp & 0x3F)));
    }
}

/* The wide Unicode charsets MySQL stores text in (collation ids from
 * MySQL 8's collation table). */
typedef enum { WIDE_NONE, WIDE_UCS2, WIDE_UTF16, WIDE_UTF16LE, WIDE_UTF32 } wide_cs;

static wide_cs wide_charset(uint32_t coll)
{
    if (coll == 35 || coll == 90 || (coll >= 128 && coll <= 159))
        return WIDE_UCS2;
    if (coll == 54 || coll == 55 || (coll >= 101 && coll <= 124))
        return WIDE_UTF16;
    if (coll == 56 || coll == 62)
        return WIDE_UTF16LE;
    if (coll == 60 || coll == 61 || (coll >= 160 && coll <= 183))
        return WIDE_UTF32;
    return WIDE_NONE;
}

/* Convert wide text to UTF-8; false if the bytes are not valid in it. */
static bool wide_to_utf8(wide_cs cs, const uint8_t *p, size_t n, cdch_buf *out)
{
    size_t unit = cs == WIDE_UTF32 ? 4 : 2;
    if (n % unit)
        return false;
    for (size_t i = 0; i < n; i += unit) {
        uint32_t cp;
        if (cs == WIDE_UTF32) {
            cp = (uint32_t)p[i] << 24 | (uint32_t)p[i + 1] << 16 | (uint32_t)p[i + 2] << 8 | p[i + 3];
        } else {
            cp = cs == WIDE_UTF16LE ? (uint32_t)(p[i] | p[i + 1] << 8) : (uint32_t)(p[i] << 8 | p[i + 1]);
            if (cs != WIDE_UCS2 && cp >= 0xD800 && cp <= 0xDBFF) {
                if (i + 3 >= n)
                    return false;
                uint32_t lo = cs == WIDE_UTF16LE ? (uint32_t)(p[i + 2] | p[i + 3] << 8)
                                                 : (uint32_t)(p[i + 2] << 8 | p[i + 3]);
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return false;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 2;
            } else if (cp >= 0xD800 && cp <= 0xDFFF) {
                return false;
            }
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        put_utf8(out, cp);
    }
    return true;
}

/* MySQL's latin1 is Windows-1252 (with the five undefined bytes mapped to
 * the C1 controls), see strings/ctype-latin1.cc. */
static void latin1_to_utf8(cdch_buf *out, const uint8_t *p, size_t n)
{
    static const uint16_t c1[32] = {0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
                                    0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        put_utf8(out, c >= 0x80 && c < 0xA0 ? c1[c - 0x80] : c);
    }
}

static void put_base64_object(cdch_buf *out, const uint8_t *p, size_t n)
{
    cdch_put_str(out, "{\"base64\":\"");
    cdch_base64_append(out, p, n);
    cdch_put_str(out, "\"}");
}

/* Shortest %g form that reads back as the same value. */
static void fmt_shortest(char *buf, size_t cap, double d, bool is_float)
{
    int maxp = is_float ? 9 : 17;
    for (int p = 1; p <= maxp; p++) {
        snprintf(buf, cap, "%.*g", p, d);
        if (is_float ? strtof(buf, NULL) == (float)d : strtod(buf, NULL) == d)
            break;
    }
    /* %g picks exponent form for short mantissas ("1e+01" for 10); whole
     * numbers of ordinary size print as integers, as consumers print them */
    if (strchr(buf, 'e') && d == floor(d) && fabs(d) < 1e15)
        snprintf(buf, cap, "%.0f", d);
}

static void json_number(cdch_buf *out, double d, bool is_float)
{
    if (isnan(d)) {
        cdch_put_str(out, "\"NaN\"");
        return;
    }
    if (isinf(d)) {
        cdch_put_str(out, d < 0 ? "\"-Infinity\"" : "\"Infinity\"");
        return;
    }
    char buf[64];
    fmt_shortest(buf, sizeof buf, d, is_float);
    cdch_put_str(out, buf);
}

static float float_at(const uint8_t *p)
{
    uint32_t bits = cdch_le32(p);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* ---- canonical JSON ------------------------------------------------------------ */

/* design.md section 4: integers as JSON numbers, or as a decimal string
 * beyond the 64-bit signed range (many JSON readers lose them otherwise). */
static void json_u64(cdch_buf *out, uint64_t u)
{
    if (u > (uint64_t)INT64_MAX)
        cdch_buf_printf(out, "\"%" PRIu64 "\"", u);
    else
        cdch_buf_printf(out, "%" PRIu64, u);
}

/* CHAR/VARCHAR/TEXT in the column's charset as a UTF-8 string; binary
 * columns and bytes not valid in the charset as {"base64":...}. */
static void json_text(cdch_buf *out, const cdch_coldef *col, const uint8_t *p, size_t n)
{
    if (!cdch_coldef_is_text(col)) {
        put_base64_object(out, p, n);
    } else if (is_latin1_collation(col->collation)) {
        cdch_buf tmp = CDCH_BUF_INIT;
        latin1_to_utf8(&tmp, p, n);
        cdch_put_json_str(out, tmp.data, tmp.len, 0);
        cdch_buf_free(&tmp);
    } else if (wide_charset(col->collation) != WIDE_NONE) {
        cdch_buf tmp = CDCH_BUF_INIT;
        if (wide_to_utf8(wide_charset(col->collation), p, n, &tmp))
            cdch_put_json_str(out, tmp.data, tmp.len, 0);
        else
            put_base64_object(out, p, n);
        cdch_buf_free(&tmp);
    } else if (valid_utf8(p, n)) {
        cdch_put_json_str(out, p, n, 0);
    } else {
        put_base64_object(out, p, n);
    }
}

/* A SET as the array of its members' labels, or the bitmap when a set bit
 * has no label. */
static void json_set(cdch_buf *out, const cdch_coldef *col, uint64_t bits)
{
    bool labelled = col->labels != NULL;
    for (unsigned b = 0; b < 64 && labelled; b++)
        if ((bits >> b) & 1)
            labelled = b < col->nlabels && col->labels[b];
    if (!labelled) {
        json_u64(out, bits);
        return;
    }
    cdch_put_u8(out, '[');
    bool first = true;
    for (unsigned b = 0; b < 64; b++) {
        if (!((bits >> b) & 1))
            continue;
        if (!first)
            cdch_put_u8(out, ',');
        first = false;
        cdch_put_json_str(out, col->labels[b], strlen(col->labels[b]), 0);
    }
    cdch_put_u8(out, ']');
}

/* A VECTOR as an array of numbers (base64 if not whole float32s). */
static void json_vector(cdch_buf *out, const uint8_t *p, size_t n)
{
    if (n % 4) {
        put_base64_object(out, p, n);
        return;
    }
    cdch_put_u8(out, '[');
    for (size_t i = 0; i < n; i += 4) {
        if (i)
            cdch_put_u8(out, ',');
        json_number(out, (double)float_at(p + i), true);
    }
    cdch_put_u8(out, ']');
}

void cdch_value_to_json(const cdch_coldef *col, const cdch_value *v, cdch_buf *out)
{
    switch (v->kind) {
    case CDCH_V_ABSENT:
    case CDCH_V_NULL: cdch_put_str(out, "null"); return;
    case CDCH_V_INT: cdch_buf_printf(out, "%" PRId64, v->u.i); return;
    case CDCH_V_UINT:
    case CDCH_V_YEAR:
    case CDCH_V_BIT: json_u64(out, v->u.u); return;
    case CDCH_V_FLOAT: json_number(out, (double)v->u.f, true); return;
    case CDCH_V_DOUBLE: json_number(out, v->u.d, false); return;
    case CDCH_V_DECIMAL: cdch_put_json_str(out, v->u.bytes.ptr, v->u.bytes.len, 0); return;
    case CDCH_V_DATE:
    case CDCH_V_DATETIME:
    case CDCH_V_TIME: {
        int kind = v->kind == CDCH_V_DATE ? CDCH_T_DATE : v->kind == CDCH_V_TIME ? CDCH_T_TIME2 : CDCH_T_DATETIME2;
        cdch_put_u8(out, '"');
        cdch_temporal_format(&v->u.t, kind, v->kind == CDCH_V_DATE ? 0 : val_col_fsp(col), out);
        cdch_put_u8(out, '"');
        return;
    }
    case CDCH_V_TIMESTAMP: {
        cdch_temporal t;
        if (v->u.ts.sec == 0 && v->u.ts.usec == 0)
            memset(&t, 0, sizeof t); /* MySQL's zero TIMESTAMP '0000-00-00 00:00:00' */
        else
            cdch_epoch_to_civil(v->u.ts.sec, v->u.ts.usec, &t);
        cdch_put_u8(out, '"');
        cdch_temporal_format(&t, CDCH_T_DATETIME2, val_col_fsp(col), out);
        cdch_put_u8(out, '"');
        return;
    }
    case CDCH_V_STRING: json_text(out, col, v->u.bytes.ptr, v->u.bytes.len); return;
    case CDCH_V_ENUM:
        if (v->u.u == 0)
            cdch_put_str(out, "\"\"");
        else if (col->labels && v->u.u <= col->nlabels && col->labels[v->u.u - 1])
            cdch_put_json_str(out, col->labels[v->u.u - 1], strlen(col->labels[v->u.u - 1]), 0);
        else
            cdch_buf_printf(out, "%" PRIu64, v->u.u);
        return;
    case CDCH_V_SET: json_set(out, col, v->u.u); return;
    case CDCH_V_JSON:
        if (v->u.json)
            cdch_json_to_text(v->u.json, out);
        else
            cdch_put_str(out, "null");
        return;
    case CDCH_V_JSON_DIFF:
        cdch_put_str(out, "{\"json_diff\":");
        cdch_json_diff_to_text(&v->u.diff, out);
        cdch_put_u8(out, '}');
        return;
    case CDCH_V_GEOMETRY:
        cdch_buf_printf(out, "{\"srid\":%u,\"wkb\":\"", v->u.geom.srid);
        cdch_put_hex(out, v->u.geom.wkb, v->u.geom.len);
        cdch_put_str(out, "\"}");
        return;
    case CDCH_V_VECTOR: json_vector(out, v->u.bytes.ptr, v->u.bytes.len); return;
    }
}

