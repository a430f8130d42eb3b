/* value.c — row-image values for every MySQL 8 column type: decoding,
 * encoding, canonical JSON, mysqlbinlog-style text, equality.
 *
 * Sources of truth: MySQL sql/log_event.cc log_event_print_value (how
 * mysqlbinlog sizes and prints each type), sql/rpl_utility.h table_def::type
 * (DATE -> NEWDATE, STRING -> ENUM/SET), sql/field.cc pack() methods,
 * strings/decimal.cc, mysys/my_time.cc.
 *
 * CHAR values: MySQL's Field_string::pack strips trailing pad characters
 * (spaces for text collations, 0x00 for BINARY(n)) before writing the value.
 * The encoder here writes exactly the bytes it is given: stripping pads is
 * the caller's job (a scenario writer must pass 'ab' for CHAR(5) 'ab   ').
 */
#include "value.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "jsonstr.h"

/* ---- small helpers ---------------------------------------------------------- */

static int64_t sign_extend(uint64_t v, unsigned bits)
{
    if (bits >= 64)
        return (int64_t)v;
    uint64_t m = 1ULL << (bits - 1);
    v &= (1ULL << bits) - 1;
    return (int64_t)((v ^ m) - m);
}

static unsigned int_width(uint8_t type)
{
    switch (type) {
    case CDCH_T_TINY: return 1;
    case CDCH_T_SHORT: return 2;
    case CDCH_T_INT24: return 3;
    case CDCH_T_LONG: return 4;
    case CDCH_T_LONGLONG: return 8;
    default: return 0;
    }
}

static const char *int_sql_name(uint8_t type)
{
    switch (type) {
    case CDCH_T_TINY: return "TINYINT";
    case CDCH_T_SHORT: return "SMALLINT";
    case CDCH_T_INT24: return "MEDIUMINT";
    case CDCH_T_LONG: return "INT";
    default: return "BIGINT";
    }
}

static const char *kind_name(cdch_vkind k)
{
    switch (k) {
    case CDCH_V_ABSENT: return "absent";
    case CDCH_V_NULL: return "NULL";
    case CDCH_V_INT: return "signed integer";
    case CDCH_V_UINT: return "unsigned integer";
    case CDCH_V_FLOAT: return "FLOAT";
    case CDCH_V_DOUBLE: return "DOUBLE";
    case CDCH_V_DECIMAL: return "DECIMAL";
    case CDCH_V_DATE: return "DATE";
    case CDCH_V_DATETIME: return "DATETIME";
    case CDCH_V_TIME: return "TIME";
    case CDCH_V_TIMESTAMP: return "TIMESTAMP";
    case CDCH_V_YEAR: return "YEAR";
    case CDCH_V_BIT: return "BIT";
    case CDCH_V_STRING: return "string";
    case CDCH_V_ENUM: return "ENUM";
    case CDCH_V_SET: return "SET";
    case CDCH_V_JSON: return "JSON";
    case CDCH_V_JSON_DIFF: return "JSON diff";
    case CDCH_V_GEOMETRY: return "GEOMETRY";
    case CDCH_V_VECTOR: return "VECTOR";
    }
    return "unknown";
}

static const uint32_t frac_div[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};

/* real type and byte length of a STRING (254) column */
static void string_info(const cdch_coldef *col, uint8_t *real_type, uint32_t *length)
{
    if (col->real_type == CDCH_T_ENUM || col->real_type == CDCH_T_SET ||
        (col->real_type == CDCH_T_STRING && col->length != 0)) {
        *real_type = col->real_type;
        *length = col->length;
        return;
    }
    unsigned meta = col->meta;
    if (meta < 256) {
        *real_type = CDCH_T_STRING;
        *length = meta;
        return;
    }
    unsigned byte0 = meta >> 8, byte1 = meta & 0xFF;
    if ((byte0 & 0x30) != 0x30) {
        /* a long CHAR(): the two high bits of the length hide in byte0 */
        *real_type = (uint8_t)(byte0 | 0x30);
        *length = byte1 | (((byte0 & 0x30) ^ 0x30) << 4);
    } else {
        *real_type = (uint8_t)byte0;
        *length = byte1;
    }
}

void cdch_coldef_finish(cdch_coldef *col)
{
    if (col->type == CDCH_T_STRING) {
        col->real_type = 0;
        col->length = 0;
        uint8_t rt;
        uint32_t len;
        string_info(col, &rt, &len);
        col->real_type = rt;
        col->length = len;
    } else {
        col->real_type = col->type;
    }
}

static bool is_blob_type(uint8_t t)
{
    return t == CDCH_T_BLOB || t == CDCH_T_TINY_BLOB || t == CDCH_T_MEDIUM_BLOB || t == CDCH_T_LONG_BLOB;
}

bool cdch_coldef_is_text(const cdch_coldef *col)
{
    if (col->collation == CDCH_COLLATION_BINARY)
        return false;
    if (col->type == CDCH_T_STRING) {
        uint8_t rt;
        uint32_t len;
        string_info(col, &rt, &len);
        return rt == CDCH_T_STRING;
    }
    return col->type == CDCH_T_VARCHAR || col->type == CDCH_T_VAR_STRING || is_blob_type(col->type);
}

/* Length-prefix size for BLOB/JSON/GEOMETRY/VECTOR columns. */
static unsigned prefix_size(const cdch_coldef *col)
{
    if (col->meta >= 1 && col->meta <= 4)
        return col->meta;
    switch (col->type) {
    case CDCH_T_TINY_BLOB: return 1;
    case CDCH_T_MEDIUM_BLOB: return 3;
    case CDCH_T_LONG_BLOB:
    case CDCH_T_JSON:
    case CDCH_T_GEOMETRY:
    case CDCH_T_VECTOR: return 4;
    default: return 0;
    }
}

/* ---- decode ----------------------------------------------------------------- */

#define DECODE_FAIL(...)                                                                                       \
    do {                                                                                                       \
        cdch_err_set(err, __VA_ARGS__);                                                                        \
        if (err)                                                                                               \
            err->offset = (int64_t)start;                                                                      \
        return -1;                                                                                             \
    } while (0)

/* Bytes of a length-prefixed value; NULL on overrun. */
static const uint8_t *get_prefixed(cdch_cursor *c, unsigned prefix, size_t *len)
{
    *len = (size_t)cdch_get_le(c, prefix);
    if (c->overrun)
        return NULL;
    return cdch_get_bytes(c, *len);
}

int cdch_value_decode(const cdch_coldef *col, cdch_cursor *c, cdch_arena *a, cdch_value *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    size_t start = cdch_cur_pos(c);
    unsigned w = int_width(col->type);
    if (w) {
        uint64_t raw = cdch_get_le(c, w);
        if (c->overrun)
            return 0;
        if (col->is_unsigned) {
            out->kind = CDCH_V_UINT;
            out->u.u = raw;
        } else {
            out->kind = CDCH_V_INT;
            out->u.i = sign_extend(raw, w * 8);
        }
        return 0;
    }

    switch (col->type) {
    case CDCH_T_FLOAT: {
        uint32_t bits = (uint32_t)cdch_get_le(c, 4);
        out->kind = CDCH_V_FLOAT;
        memcpy(&out->u.f, &bits, 4);
        return 0;
    }
    case CDCH_T_DOUBLE: {
        uint64_t bits = cdch_get_le(c, 8);
        out->kind = CDCH_V_DOUBLE;
        memcpy(&out->u.d, &bits, 8);
        return 0;
    }
    case CDCH_T_NEWDECIMAL: {
        unsigned prec = col->meta >> 8, scale = col->meta & 0xFF;
        size_t size = cdch_decimal_bin_size(prec, scale);
        if (size == 0)
            DECODE_FAIL("DECIMAL column metadata %04x (precision %u, scale %u) is invalid", col->meta, prec, scale);
        const uint8_t *b = cdch_get_bytes(c, size);
        if (!b)
            return 0;
        cdch_buf tmp = CDCH_BUF_INIT;
        if (cdch_decimal_decode(b, prec, scale, &tmp, err) < 0) {
            cdch_buf_free(&tmp);
            if (err)
                err->offset = (int64_t)start;
            return -1;
        }
        out->kind = CDCH_V_DECIMAL;
        out->u.bytes.len = tmp.len;
        out->u.bytes.ptr = cdch_arena_memdup(a, tmp.data, tmp.len);
        cdch_buf_free(&tmp);
        return 0;
    }
    case CDCH_T_DATE:
    case CDCH_T_NEWDATE:
        out->kind = CDCH_V_DATE;
        if (cdch_date_decode(c, &out->u.t, err) < 0)
            goto temporal_fail;
        return 0;
    case CDCH_T_DATETIME2:
        out->kind = CDCH_V_DATETIME;
        if (cdch_datetime2_decode(c, col->meta, &out->u.t, err) < 0)
            goto temporal_fail;
        return 0;
    case CDCH_T_TIME2:
        out->kind = CDCH_V_TIME;
        if (cdch_time2_decode(c, col->meta, &out->u.t, err) < 0)
            goto temporal_fail;
        return 0;
    case CDCH_T_TIMESTAMP2:
        out->kind = CDCH_V_TIMESTAMP;
        if (cdch_timestamp2_decode(c, col->meta, &out->u.ts.sec, &out->u.ts.usec, err) < 0)
            goto temporal_fail;
        return 0;
    case CDCH_T_TIMESTAMP: /* legacy: 4 bytes LE seconds */
        out->kind = CDCH_V_TIMESTAMP;
        out->u.ts.sec = (uint32_t)cdch_get_le(c, 4);
        return 0;
    case CDCH_T_DATETIME: { /* legacy: 8 bytes LE YYYYMMDDhhmmss */
        uint64_t v = cdch_get_le(c, 8);
        if (c->overrun)
            return 0;
        uint64_t d = v / 1000000, t = v % 1000000;
        out->kind = CDCH_V_DATETIME;
        out->u.t.year = (uint16_t)(d / 10000 > 9999 ? 9999 : d / 10000);
        out->u.t.month = (uint8_t)(d % 10000 / 100);
        out->u.t.day = (uint8_t)(d % 100);
        out->u.t.hour = (uint16_t)(t / 10000);
        out->u.t.minute = (uint8_t)(t % 10000 / 100);
        out->u.t.second = (uint8_t)(t % 100);
        if (d / 10000 > 9999 || out->u.t.month > 12 || out->u.t.day > 31 || out->u.t.hour > 23 ||
            out->u.t.minute > 59 || out->u.t.second > 59)
            DECODE_FAIL("bad legacy DATETIME value %" PRIu64 ": not a valid YYYYMMDDhhmmss", v);
        return 0;
    }
    case CDCH_T_TIME: { /* legacy: 3 bytes LE, signed HHMMSS */
        uint64_t raw = cdch_get_le(c, 3);
        if (c->overrun)
            return 0;
        int64_t v = sign_extend(raw, 24);
        out->kind = CDCH_V_TIME;
        out->u.t.neg = v < 0;
        uint64_t av = (uint64_t)(v < 0 ? -v : v);
        out->u.t.hour = (uint16_t)(av / 10000);
        out->u.t.minute = (uint8_t)(av % 10000 / 100);
        out->u.t.second = (uint8_t)(av % 100);
        if (out->u.t.hour > 838 || out->u.t.minute > 59 || out->u.t.second > 59)
            DECODE_FAIL("bad legacy TIME value %lld: not a valid HHMMSS", (long long)v);
        return 0;
    }
    case CDCH_T_YEAR: {
        uint64_t v = cdch_get_le(c, 1);
        out->kind = CDCH_V_YEAR;
        out->u.u = v ? 1900 + v : 0;
        return 0;
    }
    case CDCH_T_BIT: {
        unsigned bits = (col->meta >> 8) * 8 + (col->meta & 0xFF);
        if (bits == 0 || bits > 64 || (col->meta & 0xFF) > 7)
            DECODE_FAIL("BIT column metadata %04x is invalid (BIT(1)..BIT(64))", col->meta);
        uint64_t v = cdch_get_be(c, (bits + 7) / 8);
        out->kind = CDCH_V_BIT;
        out->u.u = v;
        if (!c->overrun && bits < 64 && (v >> bits) != 0)
            DECODE_FAIL("BIT(%u) value %" PRIu64 " has bits above bit %u set", bits, v, bits - 1);
        return 0;
    }
    case CDCH_T_VARCHAR:
    case CDCH_T_VAR_STRING: {
        size_t len;
        const uint8_t *b = get_prefixed(c, col->meta < 256 ? 1 : 2, &len);
        if (!b)
            return 0;
        out->kind = CDCH_V_STRING;
        out->u.bytes.ptr = b;
        out->u.bytes.len = len;
        if (len > col->meta && col->meta != 0)
            DECODE_FAIL("VARCHAR value of %zu bytes is longer than the column's %u bytes", len, col->meta);
        return 0;
    }
    case CDCH_T_STRING: {
        uint8_t rt;
        uint32_t length;
        string_info(col, &rt, &length);
        if (rt == CDCH_T_ENUM) {
            if (length != 1 && length != 2)
                DECODE_FAIL("ENUM pack length %u is invalid (1 or 2)", length);
            out->kind = CDCH_V_ENUM;
            out->u.u = cdch_get_le(c, length);
            return 0;
        }
        if (rt == CDCH_T_SET) {
            if (length < 1 || length > 8)
                DECODE_FAIL("SET pack length %u is invalid (1..8)", length);
            out->kind = CDCH_V_SET;
            out->u.u = cdch_get_le(c, length);
            return 0;
        }
        if (rt != CDCH_T_STRING)
            DECODE_FAIL("STRING column metadata %04x names real type %u, which is not CHAR, ENUM or SET",
                        col->meta, rt);
        size_t len;
        const uint8_t *b = get_prefixed(c, length > 255 ? 2 : 1, &len);
        if (!b)
            return 0;
        out->kind = CDCH_V_STRING;
        out->u.bytes.ptr = b;
        out->u.bytes.len = len;
        if (len > length)
            DECODE_FAIL("CHAR value of %zu bytes is longer than the column's %u bytes", len, length);
        return 0;
    }
    case CDCH_T_BLOB:
    case CDCH_T_TINY_BLOB:
    case CDCH_T_MEDIUM_BLOB:
    case CDCH_T_LONG_BLOB: {
        unsigned p = prefix_size(col);
        if (!p)
            DECODE_FAIL("BLOB column metadata %u is invalid (length-prefix size 1..4)", col->meta);
        size_t len;
        const uint8_t *b = get_prefixed(c, p, &len);
        if (!b)
            return 0;
        out->kind = CDCH_V_STRING;
        out->u.bytes.ptr = b;
        out->u.bytes.len = len;
        return 0;
    }
    case CDCH_T_JSON: {
        size_t len;
        const uint8_t *b = get_prefixed(c, prefix_size(col), &len);
        if (!b)
            return 0;
        out->kind = CDCH_V_JSON;
        if (cdch_json_decode(b, len, a, &out->u.json, err) < 0) {
            cdch_err_wrap(err, "JSON column value (%zu bytes)", len);
            if (err) /* the JSON decoder's offset is relative to the document */
                err->offset = err->offset < 0 ? (int64_t)start
                                              : (int64_t)(cdch_cur_pos(c) - len) + err->offset;
            return -1;
        }
        return 0;
    }
    case CDCH_T_GEOMETRY: {
        size_t len;
        const uint8_t *b = get_prefixed(c, prefix_size(col), &len);
        if (!b)
            return 0;
        if (len < 4)
            DECODE_FAIL("GEOMETRY value of %zu bytes is shorter than its 4-byte SRID", len);
        out->kind = CDCH_V_GEOMETRY;
        out->u.geom.srid = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        out->u.geom.wkb = b + 4;
        out->u.geom.len = len - 4;
        return 0;
    }
    case CDCH_T_VECTOR: {
        size_t len;
        const uint8_t *b = get_prefixed(c, prefix_size(col), &len);
        if (!b)
            return 0;
        if (len % 4)
            DECODE_FAIL("VECTOR value of %zu bytes is not a whole number of float32 elements", len);
        out->kind = CDCH_V_VECTOR;
        out->u.bytes.ptr = b;
        out->u.bytes.len = len;
        return 0;
    }
    default:
        DECODE_FAIL("column type %u is not supported", (unsigned)col->type);
    }

temporal_fail:
    if (err)
        err->offset = (int64_t)start;
    return -1;
}

/* ---- encode ----------------------------------------------------------------- */

static int kind_mismatch(cdch_err *err, const cdch_coldef *col, const cdch_value *v)
{
    return cdch_err_set(err, "cannot encode a %s value into a %s column (type %u)", kind_name(v->kind),
                        cdch_field_type_name(col->type), (unsigned)col->type);
}

/* Integer content of an INT/UINT (or, where allowed, YEAR/BIT/ENUM/SET)
 * value: returns false if v is not an integer kind. */
static bool value_integer(const cdch_value *v, bool *neg, uint64_t *mag)
{
    switch (v->kind) {
    case CDCH_V_INT:
        *neg = v->u.i < 0;
        *mag = *neg ? (uint64_t)0 - (uint64_t)v->u.i : (uint64_t)v->u.i;
        return true;
    case CDCH_V_UINT:
    case CDCH_V_YEAR:
    case CDCH_V_BIT:
    case CDCH_V_ENUM:
    case CDCH_V_SET:
        *neg = false;
        *mag = v->u.u;
        return true;
    default: return false;
    }
}

static void fmt_integer(char *buf, size_t cap, bool neg, uint64_t mag)
{
    snprintf(buf, cap, "%s%" PRIu64, neg ? "-" : "", mag);
}

static int check_usec_fits(const char *type, unsigned fsp, uint32_t usec, cdch_err *err)
{
    if (usec > 999999)
        return cdch_err_set(err, "microseconds %u out of range 0..999999", usec);
    if (fsp > 6)
        return cdch_err_set(err, "%s column fsp %u is out of range 0..6", type, fsp);
    if (usec % frac_div[fsp] != 0)
        return cdch_err_set(err,
                            "fraction .%06u needs more digits than %s(%u) keeps (MySQL would round it: give the "
                            "value at the column's precision)",
                            usec, type, fsp);
    return 0;
}

static int check_date(const cdch_temporal *t, const char *type, cdch_err *err)
{
    if (t->year > 9999 || t->month > 12 || t->day > 31)
        return cdch_err_set(err, "%s %04u-%02u-%02u is out of range", type, t->year, t->month, t->day);
    if (t->month && t->day && t->day > cdch_days_in_month(t->year, t->month))
        return cdch_err_set(err, "%s %04u-%02u-%02u: day out of range for the month (%u days)", type, t->year,
                            t->month, t->day, cdch_days_in_month(t->year, t->month));
    return 0;
}

static int check_time_of_day(const cdch_temporal *t, const char *type, cdch_err *err)
{
    if (t->hour > 23 || t->minute > 59 || t->second > 59)
        return cdch_err_set(err, "%s time of day %02u:%02u:%02u is out of range", type, t->hour, t->minute,
                            t->second);
    return 0;
}

static int put_prefixed(cdch_buf *out, unsigned prefix, const void *p, size_t len, const char *what,
                        cdch_err *err)
{
    if (prefix == 0 || prefix > 4)
        return cdch_err_set(err, "%s length-prefix size %u is invalid (1..4)", what, prefix);
    if (prefix < 4 && len >> (8 * prefix))
        return cdch_err_set(err, "%s of %zu bytes does not fit %s with %u-byte length", "value", len, what,
                            prefix);
    if (prefix == 4 && (uint64_t)len > 0xFFFFFFFFu)
        return cdch_err_set(err, "value of %zu bytes does not fit %s with 4-byte length", len, what);
    cdch_put_le(out, len, prefix);
    cdch_put_bytes(out, p, len);
    return 0;
}

int cdch_value_encode(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind == CDCH_V_NULL || v->kind == CDCH_V_ABSENT)
        return cdch_err_set(err, "a %s value has no bytes in a row image (it lives in the NULL bitmap)",
                            kind_name(v->kind));

    bool neg;
    uint64_t mag;
    char num[32];
    unsigned w = int_width(col->type);
    if (w) {
        if (v->kind != CDCH_V_INT && v->kind != CDCH_V_UINT)
            return kind_mismatch(err, col, v);
        value_integer(v, &neg, &mag);
        bool ok;
        if (col->is_unsigned) {
            uint64_t max = w == 8 ? UINT64_MAX : (1ULL << (8 * w)) - 1;
            ok = !neg && mag <= max;
        } else {
            uint64_t lim = 1ULL << (8 * w - 1); /* |min|; max = lim - 1 */
            ok = neg ? mag <= lim : mag <= lim - 1;
        }
        if (!ok) {
            fmt_integer(num, sizeof num, neg, mag);
            return cdch_err_set(err, "value %s out of range for %s%s", num, int_sql_name(col->type),
                                col->is_unsigned ? " UNSIGNED" : "");
        }
        uint64_t bits = neg ? (uint64_t)0 - mag : mag;
        cdch_put_le(out, bits, w);
        return 0;
    }

    switch (col->type) {
    case CDCH_T_FLOAT: {
        float f;
        if (v->kind == CDCH_V_FLOAT) {
            f = v->u.f;
        } else if (v->kind == CDCH_V_DOUBLE) {
            f = (float)v->u.d;
            if ((double)f != v->u.d && !isnan(v->u.d))
                return cdch_err_set(err, "DOUBLE value %.17g is not exactly representable in a FLOAT column",
                                    v->u.d);
        } else {
            return kind_mismatch(err, col, v);
        }
        uint32_t bits;
        memcpy(&bits, &f, 4);
        cdch_put_le(out, bits, 4);
        return 0;
    }
    case CDCH_T_DOUBLE: {
        double d;
        if (v->kind == CDCH_V_DOUBLE)
            d = v->u.d;
        else if (v->kind == CDCH_V_FLOAT)
            d = (double)v->u.f;
        else
            return kind_mismatch(err, col, v);
        uint64_t bits;
        memcpy(&bits, &d, 8);
        cdch_put_le(out, bits, 8);
        return 0;
    }
    case CDCH_T_NEWDECIMAL:
        if (v->kind != CDCH_V_DECIMAL)
            return kind_mismatch(err, col, v);
        return cdch_decimal_encode((const char *)v->u.bytes.ptr, v->u.bytes.len, col->meta >> 8, col->meta & 0xFF,
                                   out, err);
    case CDCH_T_DATE:
    case CDCH_T_NEWDATE:
        if (v->kind != CDCH_V_DATE && v->kind != CDCH_V_DATETIME)
            return kind_mismatch(err, col, v);
        if (check_date(&v->u.t, "DATE", err) < 0)
            return -1;
        if (v->kind == CDCH_V_DATETIME && (v->u.t.hour || v->u.t.minute || v->u.t.second || v->u.t.usec))
            return cdch_err_set(err, "a DATE column cannot hold a time of day (got %02u:%02u:%02u)", v->u.t.hour,
                                v->u.t.minute, v->u.t.second);
        cdch_date_encode(&v->u.t, out);
        return 0;
    case CDCH_T_DATETIME2:
        if (v->kind != CDCH_V_DATETIME && v->kind != CDCH_V_DATE)
            return kind_mismatch(err, col, v);
        if (check_date(&v->u.t, "DATETIME", err) < 0 || check_time_of_day(&v->u.t, "DATETIME", err) < 0 ||
            check_usec_fits("DATETIME", col->meta, v->u.t.usec, err) < 0)
            return -1;
        cdch_datetime2_encode(&v->u.t, col->meta, out);
        return 0;
    case CDCH_T_TIMESTAMP2:
    case CDCH_T_TIMESTAMP: {
        uint32_t sec, usec;
        if (v->kind == CDCH_V_TIMESTAMP) {
            sec = v->u.ts.sec;
            usec = v->u.ts.usec;
        } else if (v->kind == CDCH_V_DATETIME) {
            if (check_date(&v->u.t, "TIMESTAMP", err) < 0 || check_time_of_day(&v->u.t, "TIMESTAMP", err) < 0)
                return -1;
            int64_t e = cdch_civil_to_epoch(&v->u.t);
            if (e < 0 || e > INT32_MAX)
                return cdch_err_set(err,
                                    "%04u-%02u-%02u %02u:%02u:%02u is out of range for TIMESTAMP (UTC 1970-01-01 "
                                    "00:00:01 .. 2038-01-19 03:14:07)",
                                    v->u.t.year, v->u.t.month, v->u.t.day, v->u.t.hour, v->u.t.minute,
                                    v->u.t.second);
            sec = (uint32_t)e;
            usec = v->u.t.usec;
        } else {
            return kind_mismatch(err, col, v);
        }
        if (sec > INT32_MAX)
            return cdch_err_set(err, "TIMESTAMP %u seconds is after 2038-01-19 03:14:07 UTC, the TIMESTAMP maximum",
                                sec);
        if (col->type == CDCH_T_TIMESTAMP) {
            if (usec)
                return cdch_err_set(err, "legacy TIMESTAMP columns have no fractional seconds");
            cdch_put_le32(out, sec);
            return 0;
        }
        if (check_usec_fits("TIMESTAMP", col->meta, usec, err) < 0)
            return -1;
        cdch_timestamp2_encode(sec, usec, col->meta, out);
        return 0;
    }
    case CDCH_T_TIME2:
    case CDCH_T_TIME: {
        if (v->kind != CDCH_V_TIME)
            return kind_mismatch(err, col, v);
        const cdch_temporal *t = &v->u.t;
        if (t->hour > 838 || t->minute > 59 || t->second > 59)
            return cdch_err_set(err, "TIME %s%02u:%02u:%02u is out of range (-838:59:59 .. 838:59:59)",
                                t->neg ? "-" : "", t->hour, t->minute, t->second);
        if (col->type == CDCH_T_TIME) {
            if (t->usec)
                return cdch_err_set(err, "legacy TIME columns have no fractional seconds");
            int64_t hms = (int64_t)t->hour * 10000 + t->minute * 100 + t->second;
            cdch_put_le(out, (uint64_t)(t->neg ? -hms : hms), 3);
            return 0;
        }
        if (check_usec_fits("TIME", col->meta, t->usec, err) < 0)
            return -1;
        cdch_time2_encode(t, col->meta, out);
        return 0;
    }
    case CDCH_T_DATETIME: { /* legacy */
        if (v->kind != CDCH_V_DATETIME)
            return kind_mismatch(err, col, v);
        if (check_date(&v->u.t, "DATETIME", err) < 0 || check_time_of_day(&v->u.t, "DATETIME", err) < 0)
            return -1;
        if (v->u.t.usec)
            return cdch_err_set(err, "legacy DATETIME columns have no fractional seconds");
        const cdch_temporal *t = &v->u.t;
        uint64_t n = ((uint64_t)t->year * 10000 + t->month * 100 + t->day) * 1000000ULL +
                     (uint64_t)t->hour * 10000 + t->minute * 100 + t->second;
        cdch_put_le64(out, n);
        return 0;
    }
    case CDCH_T_YEAR: {
        if (!value_integer(v, &neg, &mag) || v->kind == CDCH_V_BIT || v->kind == CDCH_V_ENUM ||
            v->kind == CDCH_V_SET)
            return kind_mismatch(err, col, v);
        if (!neg && mag == 0) {
            cdch_put_u8(out, 0);
            return 0;
        }
        if (neg || mag < 1901 || mag > 2155) {
            fmt_integer(num, sizeof num, neg, mag);
            return cdch_err_set(err, "value %s out of range for YEAR (0 or 1901..2155)", num);
        }
        cdch_put_u8(out, (uint8_t)(mag - 1900));
        return 0;
    }
    case CDCH_T_BIT: {
        unsigned bits = (col->meta >> 8) * 8 + (col->meta & 0xFF);
        if (bits == 0 || bits > 64 || (col->meta & 0xFF) > 7)
            return cdch_err_set(err, "BIT column metadata %04x is invalid (BIT(1)..BIT(64))", col->meta);
        if (v->kind != CDCH_V_BIT && v->kind != CDCH_V_UINT && v->kind != CDCH_V_INT)
            return kind_mismatch(err, col, v);
        value_integer(v, &neg, &mag);
        if (neg || (bits < 64 && (mag >> bits) != 0)) {
            fmt_integer(num, sizeof num, neg, mag);
            return cdch_err_set(err, "value %s out of range for BIT(%u)", num, bits);
        }
        cdch_put_be(out, mag, (bits + 7) / 8);
        return 0;
    }
    case CDCH_T_VARCHAR:
    case CDCH_T_VAR_STRING: {
        if (v->kind != CDCH_V_STRING)
            return kind_mismatch(err, col, v);
        unsigned prefix = col->meta < 256 ? 1 : 2;
        size_t len = v->u.bytes.len;
        if (prefix == 1 && len > 255)
            return cdch_err_set(err, "string of %zu bytes does not fit VARCHAR with 1-byte length", len);
        if (len > 65535)
            return cdch_err_set(err, "string of %zu bytes does not fit VARCHAR with 2-byte length", len);
        if (len > col->meta)
            return cdch_err_set(err, "string of %zu bytes is longer than the column's maximum of %u bytes", len,
                                col->meta);
        cdch_put_le(out, len, prefix);
        cdch_put_bytes(out, v->u.bytes.ptr, len);
        return 0;
    }
    case CDCH_T_STRING: {
        uint8_t rt;
        uint32_t length;
        string_info(col, &rt, &length);
        if (rt == CDCH_T_ENUM) {
            if (length != 1 && length != 2)
                return cdch_err_set(err, "ENUM pack length %u is invalid (1 or 2)", length);
            if (v->kind != CDCH_V_ENUM && v->kind != CDCH_V_UINT && v->kind != CDCH_V_INT)
                return kind_mismatch(err, col, v);
            value_integer(v, &neg, &mag);
            uint64_t max = col->labels ? col->nlabels : (length == 1 ? 255u : 65535u);
            if (neg || mag > max || (length == 1 && mag > 255) || mag > 65535) {
                fmt_integer(num, sizeof num, neg, mag);
                return cdch_err_set(err, "ENUM index %s out of range (0..%" PRIu64 ", %u-byte ENUM)", num, max,
                                    length);
            }
            cdch_put_le(out, mag, length);
            return 0;
        }
        if (rt == CDCH_T_SET) {
            if (length < 1 || length > 8)
                return cdch_err_set(err, "SET pack length %u is invalid (1..8)", length);
            if (v->kind != CDCH_V_SET && v->kind != CDCH_V_UINT && v->kind != CDCH_V_INT)
                return kind_mismatch(err, col, v);
            value_integer(v, &neg, &mag);
            unsigned nbits = col->labels && col->nlabels < 64 ? (unsigned)col->nlabels : length * 8;
            if (nbits > length * 8)
                nbits = length * 8;
            if (neg || (nbits < 64 && (mag >> nbits) != 0)) {
                fmt_integer(num, sizeof num, neg, mag);
                return cdch_err_set(err, "SET bitmap %s has bits above the %u members of the column", num, nbits);
            }
            cdch_put_le(out, mag, length);
            return 0;
        }
        if (rt != CDCH_T_STRING)
            return cdch_err_set(err, "STRING column metadata %04x names real type %u, not CHAR, ENUM or SET",
                                col->meta, rt);
        if (v->kind != CDCH_V_STRING)
            return kind_mismatch(err, col, v);
        size_t len = v->u.bytes.len;
        if (len > length)
            return cdch_err_set(err,
                                "string of %zu bytes does not fit CHAR of %u bytes (strip trailing pad characters "
                                "first, as MySQL does)",
                                len, length);
        cdch_put_le(out, len, length > 255 ? 2 : 1);
        cdch_put_bytes(out, v->u.bytes.ptr, len);
        return 0;
    }
    case CDCH_T_BLOB:
    case CDCH_T_TINY_BLOB:
    case CDCH_T_MEDIUM_BLOB:
    case CDCH_T_LONG_BLOB:
        if (v->kind != CDCH_V_STRING)
            return kind_mismatch(err, col, v);
        return put_prefixed(out, prefix_size(col), v->u.bytes.ptr, v->u.bytes.len, "BLOB/TEXT", err);
    case CDCH_T_JSON: {
        if (v->kind == CDCH_V_JSON_DIFF) {
            if (prefix_size(col) != 4)
                return cdch_err_set(err, "a JSON diff needs a JSON column with a 4-byte length (meta is %u)",
                                    col->meta);
            cdch_json_diff_encode(&v->u.diff, out);
            return 0;
        }
        if (v->kind != CDCH_V_JSON)
            return kind_mismatch(err, col, v);
        cdch_buf tmp = CDCH_BUF_INIT;
        if (v->u.json)
            cdch_json_encode(v->u.json, &tmp);
        int r = put_prefixed(out, prefix_size(col), tmp.data, tmp.len, "JSON", err);
        cdch_buf_free(&tmp);
        return r;
    }
    case CDCH_T_GEOMETRY: {
        if (v->kind != CDCH_V_GEOMETRY)
            return kind_mismatch(err, col, v);
        unsigned p = prefix_size(col);
        size_t len = v->u.geom.len + 4;
        if (p < 4 && len >> (8 * p))
            return cdch_err_set(err, "value of %zu bytes does not fit GEOMETRY with %u-byte length", len, p);
        cdch_put_le(out, len, p);
        cdch_put_le32(out, v->u.geom.srid);
        cdch_put_bytes(out, v->u.geom.wkb, v->u.geom.len);
        return 0;
    }
    case CDCH_T_VECTOR:
        if (v->kind != CDCH_V_VECTOR)
            return kind_mismatch(err, col, v);
        if (v->u.bytes.len % 4)
            return cdch_err_set(err, "VECTOR value of %zu bytes is not a whole number of float32 elements",
                                v->u.bytes.len);
        return put_prefixed(out, prefix_size(col), v->u.bytes.ptr, v->u.bytes.len, "VECTOR", err);
    default: return cdch_err_set(err, "column type %u is not supported", (unsigned)col->type);
    }
}

/* ---- shared text helpers ------------------------------------------------------ */

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
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k;
        uint32_t cp, min;
        if ((c & 0xE0) == 0xC0) {
            k = 1;
            cp = c & 0x1F;
            min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            k = 2;
            cp = c & 0x0F;
            min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            k = 3;
            cp = c & 0x07;
            min = 0x10000;
        } else {
            return false;
        }
        for (size_t j = 1; j <= k; j++) {
            if (i + j >= n || (p[i + j] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (p[i + j] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += k + 1;
    }
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
    uint32_t bits = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* fsp for a temporal column (meta for the "2" types, 0 for legacy ones) */
static unsigned col_fsp(const cdch_coldef *col)
{
    if (col->type == CDCH_T_DATETIME2 || col->type == CDCH_T_TIMESTAMP2 || col->type == CDCH_T_TIME2)
        return col->meta > 6 ? 6 : col->meta;
    return 0;
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
        cdch_temporal_format(&v->u.t, kind, v->kind == CDCH_V_DATE ? 0 : col_fsp(col), out);
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
        cdch_temporal_format(&t, CDCH_T_DATETIME2, col_fsp(col), out);
        cdch_put_u8(out, '"');
        return;
    }
    case CDCH_V_STRING: {
        const uint8_t *p = v->u.bytes.ptr;
        size_t n = v->u.bytes.len;
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
        return;
    }
    case CDCH_V_ENUM:
        if (v->u.u == 0)
            cdch_put_str(out, "\"\"");
        else if (col->labels && v->u.u <= col->nlabels && col->labels[v->u.u - 1])
            cdch_put_json_str(out, col->labels[v->u.u - 1], strlen(col->labels[v->u.u - 1]), 0);
        else
            cdch_buf_printf(out, "%" PRIu64, v->u.u);
        return;
    case CDCH_V_SET: {
        bool labelled = col->labels != NULL;
        for (unsigned b = 0; b < 64 && labelled; b++)
            if ((v->u.u >> b) & 1)
                labelled = b < col->nlabels && col->labels[b];
        if (!labelled) {
            json_u64(out, v->u.u);
            return;
        }
        cdch_put_u8(out, '[');
        bool first = true;
        for (unsigned b = 0; b < 64; b++) {
            if (!((v->u.u >> b) & 1))
                continue;
            if (!first)
                cdch_put_u8(out, ',');
            first = false;
            cdch_put_json_str(out, col->labels[b], strlen(col->labels[b]), 0);
        }
        cdch_put_u8(out, ']');
        return;
    }
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
    case CDCH_V_VECTOR: {
        if (v->u.bytes.len % 4) {
            put_base64_object(out, v->u.bytes.ptr, v->u.bytes.len);
            return;
        }
        cdch_put_u8(out, '[');
        for (size_t i = 0; i < v->u.bytes.len; i += 4) {
            if (i)
                cdch_put_u8(out, ',');
            json_number(out, (double)float_at(v->u.bytes.ptr + i), true);
        }
        cdch_put_u8(out, ']');
        return;
    }
    }
}

/* ---- mysqlbinlog -v text ---------------------------------------------------------- */

/* my_b_write_quoted (MySQL 8.0): \b \f \n \r \t \\ \' escaped, other bytes
 * below 0x20 as \xNN, everything else (UTF-8 included) verbatim. */
static void sql_quoted(cdch_buf *out, const uint8_t *p, size_t n)
{
    cdch_put_u8(out, '\'');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t ch = p[i];
        char ebuf[8];
        const char *esc = NULL;
        switch (ch) {
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\\': esc = "\\\\"; break;
        case '\'': esc = "\\'"; break;
        default:
            if (ch < 32) {
                snprintf(ebuf, sizeof ebuf, "\\x%02x", ch);
                esc = ebuf;
            }
        }
        if (esc) {
            cdch_put_bytes(out, p + run, i - run);
            cdch_put_str(out, esc);
            run = i + 1;
        }
    }
    cdch_put_bytes(out, p + run, n - run);
    cdch_put_u8(out, '\'');
}

/* my_b_write_bit: nbits digits, most significant first, over big-endian
 * bytes. */
static void sql_bits(cdch_buf *out, const uint8_t *bytes, unsigned nbits)
{
    unsigned nbits8 = (nbits + 7) / 8 * 8, skip = nbits8 - nbits;
    cdch_put_str(out, "b'");
    for (unsigned b = skip; b < nbits8; b++)
        cdch_put_u8(out, (bytes[b / 8] >> (7 - b % 8)) & 1 ? '1' : '0');
    cdch_put_u8(out, '\'');
}

/* MySQL's my_gcvt(d, MY_GCVT_ARG_DOUBLE, 34) as used by JSON text output:
 * shortest round-trip digits, 'f' or 'e' format by MySQL's rules, exponent
 * without '+' or padding; then ".0" if neither '.' nor 'e' appears. */
static void mysql_json_double(cdch_buf *out, double x)
{
    if (!isfinite(x)) {
        cdch_put_u8(out, '0');
        return;
    }
    if (x == 0) {
        cdch_put_str(out, signbit(x) ? "-0.0" : "0.0");
        return;
    }
    char e[64];
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, x);
        if (strtod(e, NULL) == x)
            break;
    }
    /* digits and decimal exponent from "-d.ddde±XX" */
    char digits[32];
    int len = 0;
    const char *s = e;
    bool neg = false;
    if (*s == '-') {
        neg = true;
        s++;
    }
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            digits[len++] = *s;
    while (len > 1 && digits[len - 1] == '0')
        len--;
    int exp10 = atoi(s + 1);
    int decpt = exp10 + 1;
    int width = 34 - (neg ? 1 : 0);
    const int max_f = 15; /* MAX_DECPT_FOR_F_FORMAT = DBL_DIG */
    bool have_space = (decpt <= 0 ? len - decpt + 2 : (decpt < len ? len + 1 : decpt)) <= width;
    int exp_len = 1 + (decpt >= 101 || decpt <= -99) + (decpt >= 11 || decpt <= -9);
    bool force_e = decpt <= 0 && width <= 2 - decpt && width >= 3 + exp_len;
    bool use_f = (have_space || (decpt <= width && (decpt >= -1 || (decpt == -2 && (len > 1 || !force_e))) &&
                                 !force_e)) &&
                 (!have_space || (decpt >= -max_f + 1 && (decpt <= max_f || len > decpt)));
    size_t mark = out->len;
    if (neg)
        cdch_put_u8(out, '-');
    if (use_f) {
        if (decpt <= 0) {
            cdch_put_str(out, "0.");
            for (int i = decpt; i < 0; i++)
                cdch_put_u8(out, '0');
            cdch_put_bytes(out, digits, (size_t)len);
        } else {
            for (int i = 0; i < len; i++) {
                cdch_put_u8(out, (uint8_t)digits[i]);
                if (i + 1 == decpt && i + 1 < len)
                    cdch_put_u8(out, '.');
            }
            for (int i = len; i < decpt; i++)
                cdch_put_u8(out, '0');
        }
    } else {
        cdch_put_u8(out, (uint8_t)digits[0]);
        if (len > 1) {
            cdch_put_u8(out, '.');
            cdch_put_bytes(out, digits + 1, (size_t)len - 1);
        }
        int ex = decpt - 1;
        cdch_buf_printf(out, "e%s%d", ex < 0 ? "-" : "", ex < 0 ? -ex : ex);
    }
    bool has_dot_or_e = false;
    for (size_t i = mark; i < out->len; i++)
        if (out->data[i] == '.' || out->data[i] == 'e')
            has_dot_or_e = true;
    if (!has_dot_or_e)
        cdch_put_str(out, ".0");
}

/* MySQL's base64_encode: a newline after every 76 output characters. */
static void mysql_base64(cdch_buf *out, const uint8_t *p, size_t n)
{
    cdch_buf tmp = CDCH_BUF_INIT;
    cdch_base64_append(&tmp, p, n);
    for (size_t i = 0; i < tmp.len; i += 76) {
        if (i)
            cdch_put_u8(out, '\n');
        cdch_put_bytes(out, tmp.data + i, tmp.len - i < 76 ? tmp.len - i : 76);
    }
    cdch_buf_free(&tmp);
}

static int64_t le64_at(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return (int64_t)v;
}

/* Json_wrapper::to_string (json_dom.cc wrapper_to_string) with
 * pretty=false: ", " between elements, ": " after keys. */
static void mysql_json_text(const cdch_json *j, cdch_buf *out, bool quoted, int depth)
{
    if (!j || depth > CDCH_JSON_MAX_DEPTH) {
        cdch_put_str(out, "null");
        return;
    }
    switch (j->type) {
    case CDCH_JSON_NULL: cdch_put_str(out, "null"); return;
    case CDCH_JSON_TRUE: cdch_put_str(out, "true"); return;
    case CDCH_JSON_FALSE: cdch_put_str(out, "false"); return;
    case CDCH_JSON_INT: cdch_buf_printf(out, "%" PRId64, j->u.i); return;
    case CDCH_JSON_UINT: cdch_buf_printf(out, "%" PRIu64, j->u.u); return;
    case CDCH_JSON_DOUBLE: mysql_json_double(out, j->u.d); return;
    case CDCH_JSON_STRING:
        if (quoted)
            cdch_put_json_str(out, j->u.str.ptr, j->u.str.len, 0);
        else
            cdch_put_bytes(out, j->u.str.ptr, j->u.str.len);
        return;
    case CDCH_JSON_OBJECT:
        cdch_put_u8(out, '{');
        for (size_t i = 0; i < j->u.obj.count; i++) {
            if (i)
                cdch_put_str(out, ", ");
            cdch_put_json_str(out, j->u.obj.members[i].key, j->u.obj.members[i].key_len, 0);
            cdch_put_str(out, ": ");
            mysql_json_text(j->u.obj.members[i].value, out, true, depth + 1);
        }
        cdch_put_u8(out, '}');
        return;
    case CDCH_JSON_ARRAY:
        cdch_put_u8(out, '[');
        for (size_t i = 0; i < j->u.arr.count; i++) {
            if (i)
                cdch_put_str(out, ", ");
            mysql_json_text(j->u.arr.items[i], out, true, depth + 1);
        }
        cdch_put_u8(out, ']');
        return;
    case CDCH_JSON_OPAQUE: {
        uint8_t ft = j->u.opaque.field_type;
        const uint8_t *d = j->u.opaque.data;
        size_t n = j->u.opaque.len;
        if (ft == CDCH_T_NEWDECIMAL && n >= 2) {
            cdch_buf tmp = CDCH_BUF_INIT;
            size_t need = cdch_decimal_bin_size(d[0], d[1]);
            if (need && n - 2 >= need && cdch_decimal_decode(d + 2, d[0], d[1], &tmp, NULL) == 0) {
                cdch_put_bytes(out, tmp.data, tmp.len);
                cdch_buf_free(&tmp);
                return;
            }
            cdch_buf_free(&tmp);
        } else if ((ft == CDCH_T_DATE || ft == CDCH_T_TIME || ft == CDCH_T_DATETIME || ft == CDCH_T_TIMESTAMP) &&
                   n >= 8) {
            cdch_temporal t;
            cdch_temporal_from_packed(le64_at(d), ft, &t);
            int kind = ft == CDCH_T_DATE ? CDCH_T_DATE : ft == CDCH_T_TIME ? CDCH_T_TIME2 : CDCH_T_DATETIME2;
            if (quoted)
                cdch_put_u8(out, '"');
            cdch_temporal_format(&t, kind, ft == CDCH_T_DATE ? 0 : 6, out);
            if (quoted)
                cdch_put_u8(out, '"');
            return;
        } else if (ft == CDCH_T_VAR_STRING) {
            if (quoted)
                cdch_put_json_str(out, d, n, 0);
            else
                cdch_put_bytes(out, d, n);
            return;
        }
        cdch_buf tmp = CDCH_BUF_INIT;
        cdch_buf_printf(&tmp, "base64:type%u:", (unsigned)ft);
        mysql_base64(&tmp, d, n);
        if (quoted)
            cdch_put_json_str(out, tmp.data, tmp.len, 0);
        else
            cdch_put_bytes(out, tmp.data, tmp.len);
        cdch_buf_free(&tmp);
        return;
    }
    }
}

/* json_wrapper_to_string(json_type=false) in log_event.cc: scalars bare,
 * strings and temporals SQL-quoted, containers as CAST('...' AS JSON). */
static void sql_json_diff_value(cdch_buf *out, const cdch_json *j)
{
    cdch_buf tmp = CDCH_BUF_INIT;
    mysql_json_text(j, &tmp, false, 0);
    bool bare = false, cast = false;
    if (j) {
        switch (j->type) {
        case CDCH_JSON_NULL:
        case CDCH_JSON_TRUE:
        case CDCH_JSON_FALSE:
        case CDCH_JSON_INT:
        case CDCH_JSON_UINT:
        case CDCH_JSON_DOUBLE: bare = true; break;
        case CDCH_JSON_OPAQUE: bare = j->u.opaque.field_type == CDCH_T_NEWDECIMAL; break;
        case CDCH_JSON_OBJECT:
        case CDCH_JSON_ARRAY: cast = true; break;
        default: break;
        }
    } else {
        bare = true;
    }
    if (bare) {
        cdch_put_bytes(out, tmp.data, tmp.len);
    } else if (cast) {
        cdch_put_str(out, "CAST(");
        sql_quoted(out, tmp.data, tmp.len);
        cdch_put_str(out, " AS JSON)");
    } else {
        sql_quoted(out, tmp.data, tmp.len);
    }
    cdch_buf_free(&tmp);
}

static const char *diff_op_name(const cdch_json_diff_op *op)
{
    switch (op->op) {
    case CDCH_JSON_DIFF_REPLACE: return "JSON_REPLACE";
    case CDCH_JSON_DIFF_INSERT:
        return op->path_len && op->path[op->path_len - 1] == ']' ? "JSON_ARRAY_INSERT" : "JSON_INSERT";
    default: return "JSON_REMOVE";
    }
}

/* print_json_diff in log_event.cc */
static void sql_json_diff(cdch_buf *out, const cdch_coldef *col, const cdch_json_diff *d)
{
    static const char *sep = "\n###      ";
    const char *name = col->name ? col->name : "@?";
    bool printed = false;
    for (size_t k = d->count; k-- > 0;) {
        if (k == 0 || strcmp(diff_op_name(&d->ops[k - 1]), diff_op_name(&d->ops[k])) != 0) {
            if (printed)
                cdch_put_str(out, sep);
            cdch_buf_printf(out, "%s(", diff_op_name(&d->ops[k]));
            printed = true;
        }
    }
    cdch_put_str(out, name);
    if (d->count == 0)
        return;
    cdch_put_str(out, ", ");
    for (size_t k = 0; k < d->count; k++) {
        const cdch_json_diff_op *op = &d->ops[k];
        sql_quoted(out, (const uint8_t *)op->path, op->path_len);
        if (op->op != CDCH_JSON_DIFF_REMOVE) {
            cdch_put_str(out, ", ");
            sql_json_diff_value(out, op->value);
        }
        if (k + 1 == d->count || strcmp(diff_op_name(&d->ops[k + 1]), diff_op_name(op)) != 0)
            cdch_put_u8(out, ')');
        if (k + 1 != d->count) {
            cdch_put_u8(out, ',');
            cdch_put_str(out, sep);
        }
    }
}

/* mysqlbinlog 8.0 prints every integer signed, adding the unsigned reading
 * in parentheses when the signed one is negative (my_b_write_sint32_and_uint32). */
static void sql_int(cdch_buf *out, uint64_t bits, unsigned w)
{
    if (w < 8)
        bits &= (1ULL << (8 * w)) - 1;
    int64_t si = sign_extend(bits, 8 * w);
    cdch_buf_printf(out, "%" PRId64, si);
    if (si < 0)
        cdch_buf_printf(out, " (%" PRIu64 ")", bits);
}

void cdch_value_to_sql(const cdch_coldef *col, const cdch_value *v, cdch_buf *out)
{
    if (v->kind == CDCH_V_ABSENT)
        return;
    if (v->kind == CDCH_V_NULL) {
        cdch_put_str(out, "NULL");
        return;
    }
    unsigned w = int_width(col->type);
    if (w && (v->kind == CDCH_V_INT || v->kind == CDCH_V_UINT)) {
        sql_int(out, v->kind == CDCH_V_INT ? (uint64_t)v->u.i : v->u.u, w);
        return;
    }
    switch (v->kind) {
    case CDCH_V_INT: cdch_buf_printf(out, "%" PRId64, v->u.i); return;
    case CDCH_V_UINT: cdch_buf_printf(out, "%" PRIu64, v->u.u); return;
    case CDCH_V_FLOAT: cdch_buf_printf(out, "%-20g", (double)v->u.f); return;
    case CDCH_V_DOUBLE: cdch_buf_printf(out, "%-.20g", v->u.d); return;
    case CDCH_V_DECIMAL: cdch_put_bytes(out, v->u.bytes.ptr, v->u.bytes.len); return;
    case CDCH_V_DATE:
        /* mysqlbinlog prints DATE with ':' separators (copied from field.cc) */
        cdch_buf_printf(out, "'%04u:%02u:%02u'", (unsigned)v->u.t.year % 10000, (unsigned)v->u.t.month,
                        (unsigned)v->u.t.day);
        return;
    case CDCH_V_DATETIME:
        if (col->type == CDCH_T_DATETIME) { /* legacy: unquoted, no fraction */
            cdch_temporal_format(&v->u.t, CDCH_T_DATETIME, 0, out);
            return;
        }
        cdch_put_u8(out, '\'');
        cdch_temporal_format(&v->u.t, CDCH_T_DATETIME2, col_fsp(col), out);
        cdch_put_u8(out, '\'');
        return;
    case CDCH_V_TIME:
        cdch_put_u8(out, '\'');
        cdch_temporal_format(&v->u.t, CDCH_T_TIME2, col_fsp(col), out);
        cdch_put_u8(out, '\'');
        return;
    case CDCH_V_TIMESTAMP: {
        /* my_timeval_to_str: epoch seconds, unquoted, then .fraction */
        unsigned fsp = col_fsp(col);
        cdch_buf_printf(out, "%u", v->u.ts.sec);
        if (fsp)
            cdch_buf_printf(out, ".%0*u", (int)fsp, (unsigned)(v->u.ts.usec % 1000000 / frac_div[fsp]));
        return;
    }
    case CDCH_V_YEAR:
        /* mysqlbinlog prints the stored byte + 1900, so YEAR 0000 shows as 1900 */
        cdch_buf_printf(out, "%04u", (unsigned)(v->u.u ? v->u.u : 1900));
        return;
    case CDCH_V_BIT: {
        unsigned bits = (col->meta >> 8) * 8 + (col->meta & 0xFF);
        if (bits == 0 || bits > 64)
            bits = 64;
        unsigned nb = (bits + 7) / 8;
        uint8_t be[8];
        for (unsigned i = 0; i < nb; i++)
            be[i] = (uint8_t)(v->u.u >> (8 * (nb - 1 - i)));
        sql_bits(out, be, bits);
        return;
    }
    case CDCH_V_ENUM: cdch_buf_printf(out, "%d", (int)v->u.u); return;
    case CDCH_V_SET: {
        uint8_t rt;
        uint32_t length;
        string_info(col, &rt, &length);
        if (length < 1 || length > 8)
            length = 8;
        uint8_t le[8];
        for (unsigned i = 0; i < length; i++)
            le[i] = (uint8_t)(v->u.u >> (8 * i));
        sql_bits(out, le, length * 8); /* stored (little-endian) byte order, as mysqlbinlog does */
        return;
    }
    case CDCH_V_STRING:
    case CDCH_V_VECTOR: sql_quoted(out, v->u.bytes.ptr, v->u.bytes.len); return;
    case CDCH_V_JSON: {
        cdch_buf tmp = CDCH_BUF_INIT;
        mysql_json_text(v->u.json, &tmp, true, 0);
        sql_quoted(out, tmp.data, tmp.len);
        cdch_buf_free(&tmp);
        return;
    }
    case CDCH_V_JSON_DIFF: sql_json_diff(out, col, &v->u.diff); return;
    case CDCH_V_GEOMETRY: {
        /* mysqlbinlog 8.0 cannot print GEOMETRY; we print the stored bytes
         * (SRID + WKB) the way it prints a BLOB. */
        cdch_buf tmp = CDCH_BUF_INIT;
        cdch_put_le32(&tmp, v->u.geom.srid);
        cdch_put_bytes(&tmp, v->u.geom.wkb, v->u.geom.len);
        sql_quoted(out, tmp.data, tmp.len);
        cdch_buf_free(&tmp);
        return;
    }
    default: return;
    }
}

void cdch_value_type_comment(const cdch_coldef *col, const cdch_value *v, cdch_buf *out)
{
    uint8_t type = col->type;
    unsigned meta = col->meta;
    switch (type) {
    case CDCH_T_TINY: cdch_put_str(out, "TINYINT"); break;
    case CDCH_T_SHORT: cdch_put_str(out, "SHORTINT"); break;
    case CDCH_T_INT24: cdch_put_str(out, "MEDIUMINT"); break;
    case CDCH_T_LONG: cdch_put_str(out, "INT"); break;
    case CDCH_T_LONGLONG: cdch_put_str(out, "LONGINT"); break;
    case CDCH_T_NEWDECIMAL: cdch_buf_printf(out, "DECIMAL(%u,%u)", meta >> 8, meta & 0xFF); break;
    case CDCH_T_FLOAT: cdch_put_str(out, "FLOAT"); break;
    case CDCH_T_DOUBLE: cdch_put_str(out, "DOUBLE"); break;
    case CDCH_T_BIT: cdch_buf_printf(out, "BIT(%u)", (meta >> 8) * 8 + (meta & 0xFF)); break;
    case CDCH_T_TIMESTAMP: cdch_put_str(out, "TIMESTAMP"); break;
    case CDCH_T_TIMESTAMP2: cdch_buf_printf(out, "TIMESTAMP(%u)", meta); break;
    case CDCH_T_DATETIME: cdch_put_str(out, "DATETIME"); break;
    case CDCH_T_DATETIME2: cdch_buf_printf(out, "DATETIME(%u)", meta); break;
    case CDCH_T_TIME: cdch_put_str(out, "TIME"); break;
    case CDCH_T_TIME2: cdch_buf_printf(out, "TIME(%u)", meta); break;
    case CDCH_T_DATE:
    case CDCH_T_NEWDATE: cdch_put_str(out, "DATE"); break;
    case CDCH_T_YEAR: cdch_put_str(out, "YEAR"); break;
    case CDCH_T_BLOB:
    case CDCH_T_TINY_BLOB:
    case CDCH_T_MEDIUM_BLOB:
    case CDCH_T_LONG_BLOB:
        switch (prefix_size(col)) {
        case 1: cdch_put_str(out, "TINYBLOB/TINYTEXT"); break;
        case 2: cdch_put_str(out, "BLOB/TEXT"); break;
        case 3: cdch_put_str(out, "MEDIUMBLOB/MEDIUMTEXT"); break;
        default: cdch_put_str(out, "LONGBLOB/LONGTEXT"); break;
        }
        break;
    case CDCH_T_VARCHAR:
    case CDCH_T_VAR_STRING: cdch_buf_printf(out, "VARSTRING(%u)", meta); break;
    case CDCH_T_STRING: {
        uint8_t rt;
        uint32_t length;
        string_info(col, &rt, &length);
        if (rt == CDCH_T_ENUM)
            cdch_put_str(out, length == 1 ? "ENUM(1 byte)" : "ENUM(2 bytes)");
        else if (rt == CDCH_T_SET)
            cdch_buf_printf(out, "SET(%u bytes)", length);
        else
            cdch_buf_printf(out, "STRING(%u)", length);
        break;
    }
    case CDCH_T_JSON: cdch_put_str(out, "JSON"); break;
    default: cdch_put_str(out, cdch_field_type_name(type)); break;
    }
    cdch_buf_printf(out, " meta=%u nullable=%d is_null=%d", meta, col->nullable ? 1 : 0,
                    v->kind == CDCH_V_NULL ? 1 : 0);
}

/* ---- equality --------------------------------------------------------------------- */

static bool bytes_eq(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static bool temporal_eq(const cdch_temporal *a, const cdch_temporal *b)
{
    return a->neg == b->neg && a->year == b->year && a->month == b->month && a->day == b->day &&
           a->hour == b->hour && a->minute == b->minute && a->second == b->second && a->usec == b->usec;
}

static bool json_eq(const cdch_json *a, const cdch_json *b)
{
    if (!a || !b)
        return a == b;
    return cdch_json_equal(a, b) != 0;
}

bool cdch_value_equal(const cdch_value *x, const cdch_value *y)
{
    if (x->kind != y->kind)
        return false;
    switch (x->kind) {
    case CDCH_V_ABSENT:
    case CDCH_V_NULL: return true;
    case CDCH_V_INT: return x->u.i == y->u.i;
    case CDCH_V_UINT:
    case CDCH_V_YEAR:
    case CDCH_V_BIT:
    case CDCH_V_ENUM:
    case CDCH_V_SET: return x->u.u == y->u.u;
    case CDCH_V_FLOAT: return memcmp(&x->u.f, &y->u.f, sizeof x->u.f) == 0;
    case CDCH_V_DOUBLE: return memcmp(&x->u.d, &y->u.d, sizeof x->u.d) == 0;
    case CDCH_V_DECIMAL:
    case CDCH_V_STRING:
    case CDCH_V_VECTOR: return bytes_eq(x->u.bytes.ptr, x->u.bytes.len, y->u.bytes.ptr, y->u.bytes.len);
    case CDCH_V_DATE:
    case CDCH_V_DATETIME:
    case CDCH_V_TIME: return temporal_eq(&x->u.t, &y->u.t);
    case CDCH_V_TIMESTAMP: return x->u.ts.sec == y->u.ts.sec && x->u.ts.usec == y->u.ts.usec;
    case CDCH_V_JSON: return json_eq(x->u.json, y->u.json);
    case CDCH_V_JSON_DIFF:
        if (x->u.diff.count != y->u.diff.count)
            return false;
        for (size_t i = 0; i < x->u.diff.count; i++) {
            const cdch_json_diff_op *a = &x->u.diff.ops[i], *b = &y->u.diff.ops[i];
            if (a->op != b->op || !bytes_eq((const uint8_t *)a->path, a->path_len, (const uint8_t *)b->path,
                                            b->path_len) ||
                !json_eq(a->value, b->value))
                return false;
        }
        return true;
    case CDCH_V_GEOMETRY:
        return x->u.geom.srid == y->u.geom.srid &&
               bytes_eq(x->u.geom.wkb, x->u.geom.len, y->u.geom.wkb, y->u.geom.len);
    }
    return false;
}
