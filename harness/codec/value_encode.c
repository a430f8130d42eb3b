/* value_encode.c — cdch_value -> the exact row-image bytes MySQL writes,
 * one encoder per column type family, chosen from a table by the column's
 * type byte. Every encoder checks that the value kind fits the column and
 * that the value is in range, with a message naming both. See value.h for
 * the contract and value.c for the sources of truth.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decimal.h"
#include "value_internal.h"

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

static int kind_mismatch(cdch_err *err, const cdch_coldef *col, const cdch_value *v)
{
    return cdch_err_set(err, "cannot encode a %s value into a %s column (type %u)", kind_name(v->kind),
                        cdch_field_type_name(col->type), (unsigned)col->type);
}

/* Integer content of an INT/UINT (or, where allowed, YEAR/BIT/ENUM/SET)
 * value: returns false (with *neg false, *mag 0) if v is not an integer kind. */
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
    default:
        *neg = false;
        *mag = 0;
        return false;
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
    if (usec % val_frac_div[fsp] != 0)
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

/* TINY, SHORT, INT24, LONG, LONGLONG */
static int enc_int(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind != CDCH_V_INT && v->kind != CDCH_V_UINT)
        return kind_mismatch(err, col, v);
    unsigned w = val_int_width(col->type);
    bool neg;
    uint64_t mag;
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
        char num[32];
        fmt_integer(num, sizeof num, neg, mag);
        return cdch_err_set(err, "value %s out of range for %s%s", num, int_sql_name(col->type),
                            col->is_unsigned ? " UNSIGNED" : "");
    }
    uint64_t bits = neg ? (uint64_t)0 - mag : mag;
    cdch_put_le(out, bits, w);
    return 0;
}

static int enc_float(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    float f;
    if (v->kind == CDCH_V_FLOAT) {
        f = v->u.f;
    } else if (v->kind == CDCH_V_DOUBLE) {
        f = (float)v->u.d;
        if ((double)f != v->u.d && !isnan(v->u.d))
            return cdch_err_set(err, "DOUBLE value %.17g is not exactly representable in a FLOAT column", v->u.d);
    } else {
        return kind_mismatch(err, col, v);
    }
    uint32_t bits;
    memcpy(&bits, &f, 4);
    cdch_put_le(out, bits, 4);
    return 0;
}

static int enc_double(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
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

static int enc_decimal(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind != CDCH_V_DECIMAL)
        return kind_mismatch(err, col, v);
    return cdch_decimal_encode((const char *)v->u.bytes.ptr, v->u.bytes.len, col->meta >> 8, col->meta & 0xFF, out,
                               err);
}

/* DATE, NEWDATE */
static int enc_date(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind != CDCH_V_DATE && v->kind != CDCH_V_DATETIME)
        return kind_mismatch(err, col, v);
    if (check_date(&v->u.t, "DATE", err) < 0)
        return -1;
    if (v->kind == CDCH_V_DATETIME && (v->u.t.hour || v->u.t.minute || v->u.t.second || v->u.t.usec))
        return cdch_err_set(err, "a DATE column cannot hold a time of day (got %02u:%02u:%02u)", v->u.t.hour,
                            v->u.t.minute, v->u.t.second);
    cdch_date_encode(&v->u.t, out);
    return 0;
}

static int enc_datetime2(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind != CDCH_V_DATETIME && v->kind != CDCH_V_DATE)
        return kind_mismatch(err, col, v);
    if (check_date(&v->u.t, "DATETIME", err) < 0 || check_time_of_day(&v->u.t, "DATETIME", err) < 0 ||
        check_usec_fits("DATETIME", col->meta, v->u.t.usec, err) < 0)
        return -1;
    cdch_datetime2_encode(&v->u.t, col->meta, out);
    return 0;
}

/* TIMESTAMP2, legacy TIMESTAMP: from a TIMESTAMP value or a UTC DATETIME */
static int enc_timestamp(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
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
                                v->u.t.year, v->u.t.month, v->u.t.day, v->u.t.hour, v->u.t.minute, v->u.t.second);
        sec = (uint32_t)e;
        usec = v->u.t.usec;
    } else {
        return kind_mismatch(err, col, v);
    }
    if (sec > INT32_MAX)
        return cdch_err_set(err, "TIMESTAMP %u seconds is after 2038-01-19 03:14:07 UTC, the TIMESTAMP maximum", sec);
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

/* TIME2, legacy TIME */
static int enc_time(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
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

/* legacy DATETIME: 8 bytes LE YYYYMMDDhhmmss */
static int enc_datetime_legacy(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind != CDCH_V_DATETIME)
        return kind_mismatch(err, col, v);
    if (check_date(&v->u.t, "DATETIME", err) < 0 || check_time_of_day(&v->u.t, "DATETIME", err) < 0)
        return -1;
    if (v->u.t.usec)
        return cdch_err_set(err, "legacy DATETIME columns have no fractional seconds");
    const cdch_temporal *t = &v->u.t;
    uint64_t n = ((uint64_t)t->year * 10000 + t->month * 100 + t->day) * 1000000ULL + (uint64_t)t->hour * 10000 +
                 t->minute * 100 + t->second;
    cdch_put_le64(out, n);
    return 0;
}

static int enc_year(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    bool neg;
    uint64_t mag;
    if (!value_integer(v, &neg, &mag) || v->kind == CDCH_V_BIT || v->kind == CDCH_V_ENUM || v->kind == CDCH_V_SET)
        return kind_mismatch(err, col, v);
    if (!neg && mag == 0) {
        cdch_put_u8(out, 0);
        return 0;
    }
    if (neg || mag < 1901 || mag > 2155) {
        char num[32];
        fmt_integer(num, sizeof num, neg, mag);
        return cdch_err_set(err, "value %s out of range for YEAR (0 or 1901..2155)", num);
    }
    cdch_put_u8(out, (uint8_t)(mag - 1900));
    return 0;
}

static int enc_bit(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    unsigned bits = (col->meta >> 8) * 8 + (col->meta & 0xFF);
    if (bits == 0 || bits > 64 || (col->meta & 0xFF) > 7)
        return cdch_err_set(err, "BIT column metadata %04x is invalid (BIT(1)..BIT(64))", col->meta);
    if (v->kind != CDCH_V_BIT && v->kind != CDCH_V_UINT && v->kind != CDCH_V_INT)
        return kind_mismatch(err, col, v);
    bool neg;
    uint64_t mag;
    value_integer(v, &neg, &mag);
    if (neg || (bits < 64 && (mag >> bits) != 0)) {
        char num[32];
        fmt_integer(num, sizeof num, neg, mag);
        return cdch_err_set(err, "value %s out of range for BIT(%u)", num, bits);
    }
    cdch_put_be(out, mag, (bits + 7) / 8);
    return 0;
}

/* VARCHAR, VAR_STRING */
static int enc_varchar(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
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

/* STRING with real type ENUM, pack length 1 or 2 */
static int enc_enum(const cdch_coldef *col, uint32_t length, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (length != 1 && length != 2)
        return cdch_err_set(err, "ENUM pack length %u is invalid (1 or 2)", length);
    if (v->kind != CDCH_V_ENUM && v->kind != CDCH_V_UINT && v->kind != CDCH_V_INT)
        return kind_mismatch(err, col, v);
    bool neg;
    uint64_t mag;
    value_integer(v, &neg, &mag);
    uint64_t max = col->labels ? col->nlabels : (length == 1 ? 255u : 65535u);
    if (neg || mag > max || (length == 1 && mag > 255) || mag > 65535) {
        char num[32];
        fmt_integer(num, sizeof num, neg, mag);
        return cdch_err_set(err, "ENUM index %s out of range (0..%" PRIu64 ", %u-byte ENUM)", num, max, length);
    }
    cdch_put_le(out, mag, length);
    return 0;
}

/* STRING with real type SET, pack length 1..8 */
static int enc_set(const cdch_coldef *col, uint32_t length, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (length < 1 || length > 8)
        return cdch_err_set(err, "SET pack length %u is invalid (1..8)", length);
    if (v->kind != CDCH_V_SET && v->kind != CDCH_V_UINT && v->kind != CDCH_V_INT)
        return kind_mismatch(err, col, v);
    bool neg;
    uint64_t mag;
    value_integer(v, &neg, &mag);
    unsigned nbits = col->labels && col->nlabels < 64 ? (unsigned)col->nlabels : length * 8;
    if (nbits > length * 8)
        nbits = length * 8;
    if (neg || (nbits < 64 && (mag >> nbits) != 0)) {
        char num[32];
        fmt_integer(num, sizeof num, neg, mag);
        return cdch_err_set(err, "SET bitmap %s has bits above the %u members of the column", num, nbits);
    }
    cdch_put_le(out, mag, length);
    return 0;
}

/* STRING: CHAR, ENUM or SET by the column's real type */
static int enc_string(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    uint8_t rt;
    uint32_t length;
    val_string_info(col, &rt, &length);
    if (rt == CDCH_T_ENUM)
        return enc_enum(col, length, v, out, err);
    if (rt == CDCH_T_SET)
        return enc_set(col, length, v, out, err);
    if (rt != CDCH_T_STRING)
        return cdch_err_set(err, "STRING column metadata %04x names real type %u, not CHAR, ENUM or SET", col->meta,
                            rt);
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

/* BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB (and TEXT) */
static int enc_blob(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind != CDCH_V_STRING)
        return kind_mismatch(err, col, v);
    return put_prefixed(out, val_prefix_size(col), v->u.bytes.ptr, v->u.bytes.len, "BLOB/TEXT", err);
}

/* JSON: a whole document in MySQL's binary form, or a partial-update diff */
static int enc_json(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind == CDCH_V_JSON_DIFF) {
        if (val_prefix_size(col) != 4)
            return cdch_err_set(err, "a JSON diff needs a JSON column with a 4-byte length (meta is %u)", col->meta);
        cdch_json_diff_encode(&v->u.diff, out);
        return 0;
    }
    if (v->kind != CDCH_V_JSON)
        return kind_mismatch(err, col, v);
    cdch_buf tmp = CDCH_BUF_INIT;
    if (v->u.json)
        cdch_json_encode(v->u.json, &tmp);
    int r = put_prefixed(out, val_prefix_size(col), tmp.data, tmp.len, "JSON", err);
    cdch_buf_free(&tmp);
    return r;
}

static int enc_geometry(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind != CDCH_V_GEOMETRY)
        return kind_mismatch(err, col, v);
    unsigned p = val_prefix_size(col);
    size_t len = v->u.geom.len + 4;
    if (p < 4 && len >> (8 * p))
        return cdch_err_set(err, "value of %zu bytes does not fit GEOMETRY with %u-byte length", len, p);
    cdch_put_le(out, len, p);
    cdch_put_le32(out, v->u.geom.srid);
    cdch_put_bytes(out, v->u.geom.wkb, v->u.geom.len);
    return 0;
}

static int enc_vector(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind != CDCH_V_VECTOR)
        return kind_mismatch(err, col, v);
    if (v->u.bytes.len % 4)
        return cdch_err_set(err, "VECTOR value of %zu bytes is not a whole number of float32 elements",
                            v->u.bytes.len);
    return put_prefixed(out, val_prefix_size(col), v->u.bytes.ptr, v->u.bytes.len, "VECTOR", err);
}

typedef int (*val_encoder)(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err);

static const val_encoder encoders[256] = {
    [CDCH_T_TINY] = enc_int,
    [CDCH_T_SHORT] = enc_int,
    [CDCH_T_INT24] = enc_int,
    [CDCH_T_LONG] = enc_int,
    [CDCH_T_LONGLONG] = enc_int,
    [CDCH_T_FLOAT] = enc_float,
    [CDCH_T_DOUBLE] = enc_double,
    [CDCH_T_NEWDECIMAL] = enc_decimal,
    [CDCH_T_DATE] = enc_date,
    [CDCH_T_NEWDATE] = enc_date,
    [CDCH_T_DATETIME2] = enc_datetime2,
    [CDCH_T_TIMESTAMP2] = enc_timestamp,
    [CDCH_T_TIMESTAMP] = enc_timestamp,
    [CDCH_T_TIME2] = enc_time,
    [CDCH_T_TIME] = enc_time,
    [CDCH_T_DATETIME] = enc_datetime_legacy,
    [CDCH_T_YEAR] = enc_year,
    [CDCH_T_BIT] = enc_bit,
    [CDCH_T_VARCHAR] = enc_varchar,
    [CDCH_T_VAR_STRING] = enc_varchar,
    [CDCH_T_STRING] = enc_string,
    [CDCH_T_BLOB] = enc_blob,
    [CDCH_T_TINY_BLOB] = enc_blob,
    [CDCH_T_MEDIUM_BLOB] = enc_blob,
    [CDCH_T_LONG_BLOB] = enc_blob,
    [CDCH_T_JSON] = enc_json,
    [CDCH_T_GEOMETRY] = enc_geometry,
    [CDCH_T_VECTOR] = enc_vector,
};

int cdch_value_encode(const cdch_coldef *col, const cdch_value *v, cdch_buf *out, cdch_err *err)
{
    if (v->kind == CDCH_V_NULL || v->kind == CDCH_V_ABSENT)
        return cdch_err_set(err, "a %s value has no bytes in a row image (it lives in the NULL bitmap)",
                            kind_name(v->kind));
    val_encoder fn = encoders[col->type];
    if (!fn)
        return cdch_err_set(err, "column type %u is not supported", (unsigned)col->type);
    return fn(col, v, out, err);
}
