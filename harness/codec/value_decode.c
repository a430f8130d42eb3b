/* value_decode.c — row-image bytes -> cdch_value, one decoder per column
 * type family, chosen from a table by the column's type byte. See value.h
 * for the contract and value.c for the sources of truth.
 */
#include <inttypes.h>
#include <string.h>

#include "decimal.h"
#include "value_internal.h"

/* One value being decoded: the column, the image cursor, where the value
 * starts (the offset every error names) and where errors go. */
typedef struct vdec {
    const cdch_coldef *col;
    cdch_cursor *c;
    cdch_arena *a;
    cdch_err *err;
    size_t start;
} vdec;

#define DECODE_FAIL(...)                                                                                       \
    do {                                                                                                       \
        cdch_err_set(d->err, __VA_ARGS__);                                                                     \
        if (d->err)                                                                                            \
            d->err->offset = (int64_t)d->start;                                                                \
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

/* TINY, SHORT, INT24, LONG, LONGLONG */
static int dec_int(vdec *d, cdch_value *out)
{
    unsigned w = val_int_width(d->col->type);
    uint64_t raw = cdch_get_le(d->c, w);
    if (d->c->overrun)
        return 0;
    if (d->col->is_unsigned) {
        out->kind = CDCH_V_UINT;
        out->u.u = raw;
    } else {
        out->kind = CDCH_V_INT;
        out->u.i = val_sign_extend(raw, w * 8);
    }
    return 0;
}

/* FLOAT, DOUBLE */
static int dec_real(vdec *d, cdch_value *out)
{
    if (d->col->type == CDCH_T_FLOAT) {
        uint32_t bits = (uint32_t)cdch_get_le(d->c, 4);
        out->kind = CDCH_V_FLOAT;
        memcpy(&out->u.f, &bits, 4);
    } else {
        uint64_t bits = cdch_get_le(d->c, 8);
        out->kind = CDCH_V_DOUBLE;
        memcpy(&out->u.d, &bits, 8);
    }
    return 0;
}

static int dec_decimal(vdec *d, cdch_value *out)
{
    unsigned prec = d->col->meta >> 8, scale = d->col->meta & 0xFF;
    size_t size = cdch_decimal_bin_size(prec, scale);
    if (size == 0)
        DECODE_FAIL("DECIMAL column metadata %04x (precision %u, scale %u) is invalid", d->col->meta, prec, scale);
    const uint8_t *b = cdch_get_bytes(d->c, size);
    if (!b)
        return 0;
    cdch_buf tmp = CDCH_BUF_INIT;
    if (cdch_decimal_decode(b, prec, scale, &tmp, d->err) < 0) {
        cdch_buf_free(&tmp);
        if (d->err)
            d->err->offset = (int64_t)d->start;
        return -1;
    }
    out->kind = CDCH_V_DECIMAL;
    out->u.bytes.len = tmp.len;
    out->u.bytes.ptr = cdch_arena_memdup(d->a, tmp.data, tmp.len);
    cdch_buf_free(&tmp);
    return 0;
}

/* DATE, NEWDATE, DATETIME2, TIME2, TIMESTAMP2: temporal.c's codecs */
static int dec_temporal(vdec *d, cdch_value *out)
{
    int r;
    switch (d->col->type) {
    case CDCH_T_DATE:
    case CDCH_T_NEWDATE:
        out->kind = CDCH_V_DATE;
        r = cdch_date_decode(d->c, &out->u.t, d->err);
        break;
    case CDCH_T_DATETIME2:
        out->kind = CDCH_V_DATETIME;
        r = cdch_datetime2_decode(d->c, d->col->meta, &out->u.t, d->err);
        break;
    case CDCH_T_TIME2:
        out->kind = CDCH_V_TIME;
        r = cdch_time2_decode(d->c, d->col->meta, &out->u.t, d->err);
        break;
    default: /* CDCH_T_TIMESTAMP2 */
        out->kind = CDCH_V_TIMESTAMP;
        r = cdch_timestamp2_decode(d->c, d->col->meta, &out->u.ts.sec, &out->u.ts.usec, d->err);
        break;
    }
    if (r < 0) {
        if (d->err)
            d->err->offset = (int64_t)d->start;
        return -1;
    }
    return 0;
}

/* legacy TIMESTAMP: 4 bytes LE seconds */
static int dec_timestamp_legacy(vdec *d, cdch_value *out)
{
    out->kind = CDCH_V_TIMESTAMP;
    out->u.ts.sec = (uint32_t)cdch_get_le(d->c, 4);
    return 0;
}

/* legacy DATETIME: 8 bytes LE YYYYMMDDhhmmss */
static int dec_datetime_legacy(vdec *d, cdch_value *out)
{
    uint64_t v = cdch_get_le(d->c, 8);
    if (d->c->overrun)
        return 0;
    uint64_t day = v / 1000000, t = v % 1000000;
    out->kind = CDCH_V_DATETIME;
    out->u.t.year = (uint16_t)(day / 10000 > 9999 ? 9999 : day / 10000);
    out->u.t.month = (uint8_t)(day % 10000 / 100);
    out->u.t.day = (uint8_t)(day % 100);
    out->u.t.hour = (uint16_t)(t / 10000);
    out->u.t.minute = (uint8_t)(t % 10000 / 100);
    out->u.t.second = (uint8_t)(t % 100);
    if (day / 10000 > 9999 || out->u.t.month > 12 || out->u.t.day > 31 || out->u.t.hour > 23 ||
        out->u.t.minute > 59 || out->u.t.second > 59)
        DECODE_FAIL("bad legacy DATETIME value %" PRIu64 ": not a valid YYYYMMDDhhmmss", v);
    return 0;
}

/* legacy TIME: 3 bytes LE, signed HHMMSS */
static int dec_time_legacy(vdec *d, cdch_value *out)
{
    uint64_t raw = cdch_get_le(d->c, 3);
    if (d->c->overrun)
        return 0;
    int64_t v = val_sign_extend(raw, 24);
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

static int dec_year(vdec *d, cdch_value *out)
{
    uint64_t v = cdch_get_le(d->c, 1);
    out->kind = CDCH_V_YEAR;
    out->u.u = v ? 1900 + v : 0;
    return 0;
}

static int dec_bit(vdec *d, cdch_value *out)
{
    unsigned meta = d->col->meta;
    unsigned bits = (meta >> 8) * 8 + (meta & 0xFF);
    if (bits == 0 || bits > 64 || (meta & 0xFF) > 7)
        DECODE_FAIL("BIT column metadata %04x is invalid (BIT(1)..BIT(64))", meta);
    uint64_t v = cdch_get_be(d->c, (bits + 7) / 8);
    out->kind = CDCH_V_BIT;
    out->u.u = v;
    if (!d->c->overrun && bits < 64 && (v >> bits) != 0)
        DECODE_FAIL("BIT(%u) value %" PRIu64 " has bits above bit %u set", bits, v, bits - 1);
    return 0;
}

/* VARCHAR, VAR_STRING */
static int dec_varchar(vdec *d, cdch_value *out)
{
    size_t len;
    const uint8_t *b = get_prefixed(d->c, d->col->meta < 256 ? 1 : 2, &len);
    if (!b)
        return 0;
    out->kind = CDCH_V_STRING;
    out->u.bytes.ptr = b;
    out->u.bytes.len = len;
    if (len > d->col->meta && d->col->meta != 0)
        DECODE_FAIL("VARCHAR value of %zu bytes is longer than the column's %u bytes", len, d->col->meta);
    return 0;
}

/* STRING: CHAR, ENUM or SET by the column's real type */
static int dec_string(vdec *d, cdch_value *out)
{
    uint8_t rt;
    uint32_t length;
    val_string_info(d->col, &rt, &length);
    if (rt == CDCH_T_ENUM) {
        if (length != 1 && length != 2)
            DECODE_FAIL("ENUM pack length %u is invalid (1 or 2)", length);
        out->kind = CDCH_V_ENUM;
        out->u.u = cdch_get_le(d->c, length);
        return 0;
    }
    if (rt == CDCH_T_SET) {
        if (length < 1 || length > 8)
            DECODE_FAIL("SET pack length %u is invalid (1..8)", length);
        out->kind = CDCH_V_SET;
        out->u.u = cdch_get_le(d->c, length);
        return 0;
    }
    if (rt != CDCH_T_STRING)
        DECODE_FAIL("STRING column metadata %04x names real type %u, which is not CHAR, ENUM or SET", d->col->meta,
                    rt);
    size_t len;
    const uint8_t *b = get_prefixed(d->c, length > 255 ? 2 : 1, &len);
    if (!b)
        return 0;
    out->kind = CDCH_V_STRING;
    out->u.bytes.ptr = b;
    out->u.bytes.len = len;
    if (len > length)
        DECODE_FAIL("CHAR value of %zu bytes is longer than the column's %u bytes", len, length);
    return 0;
}

/* BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB (and TEXT) */
static int dec_blob(vdec *d, cdch_value *out)
{
    unsigned p = val_prefix_size(d->col);
    if (!p)
        DECODE_FAIL("BLOB column metadata %u is invalid (length-prefix size 1..4)", d->col->meta);
    size_t len;
    const uint8_t *b = get_prefixed(d->c, p, &len);
    if (!b)
        return 0;
    out->kind = CDCH_V_STRING;
    out->u.bytes.ptr = b;
    out->u.bytes.len = len;
    return 0;
}

static int dec_json(vdec *d, cdch_value *out)
{
    size_t len;
    const uint8_t *b = get_prefixed(d->c, val_prefix_size(d->col), &len);
    if (!b)
        return 0;
    out->kind = CDCH_V_JSON;
    if (cdch_json_decode(b, len, d->a, &out->u.json, d->err) < 0) {
        cdch_err *err = d->err;
        cdch_err_wrap(err, "JSON column value (%zu bytes)", len);
        if (err) /* the JSON decoder's offset is relative to the document */
            err->offset = err->offset < 0 ? (int64_t)d->start : (int64_t)(cdch_cur_pos(d->c) - len) + err->offset;
        return -1;
    }
    return 0;
}

static int dec_geometry(vdec *d, cdch_value *out)
{
    size_t len;
    const uint8_t *b = get_prefixed(d->c, val_prefix_size(d->col), &len);
    if (!b)
        return 0;
    if (len < 4)
        DECODE_FAIL("GEOMETRY value of %zu bytes is shorter than its 4-byte SRID", len);
    out->kind = CDCH_V_GEOMETRY;
    out->u.geom.srid = cdch_le32(b);
    out->u.geom.wkb = b + 4;
    out->u.geom.len = len - 4;
    return 0;
}

static int dec_vector(vdec *d, cdch_value *out)
{
    size_t len;
    const uint8_t *b = get_prefixed(d->c, val_prefix_size(d->col), &len);
    if (!b)
        return 0;
    if (len % 4)
        DECODE_FAIL("VECTOR value of %zu bytes is not a whole number of float32 elements", len);
    out->kind = CDCH_V_VECTOR;
    out->u.bytes.ptr = b;
    out->u.bytes.len = len;
    return 0;
}

typedef int (*val_decoder)(vdec *d, cdch_value *out);

static const val_decoder decoders[256] = {
    [CDCH_T_TINY] = dec_int,
    [CDCH_T_SHORT] = dec_int,
    [CDCH_T_INT24] = dec_int,
    [CDCH_T_LONG] = dec_int,
    [CDCH_T_LONGLONG] = dec_int,
    [CDCH_T_FLOAT] = dec_real,
    [CDCH_T_DOUBLE] = dec_real,
    [CDCH_T_NEWDECIMAL] = dec_decimal,
    [CDCH_T_DATE] = dec_temporal,
    [CDCH_T_NEWDATE] = dec_temporal,
    [CDCH_T_DATETIME2] = dec_temporal,
    [CDCH_T_TIME2] = dec_temporal,
    [CDCH_T_TIMESTAMP2] = dec_temporal,
    [CDCH_T_TIMESTAMP] = dec_timestamp_legacy,
    [CDCH_T_DATETIME] = dec_datetime_legacy,
    [CDCH_T_TIME] = dec_time_legacy,
    [CDCH_T_YEAR] = dec_year,
    [CDCH_T_BIT] = dec_bit,
    [CDCH_T_VARCHAR] = dec_varchar,
    [CDCH_T_VAR_STRING] = dec_varchar,
    [CDCH_T_STRING] = dec_string,
    [CDCH_T_BLOB] = dec_blob,
    [CDCH_T_TINY_BLOB] = dec_blob,
    [CDCH_T_MEDIUM_BLOB] = dec_blob,
    [CDCH_T_LONG_BLOB] = dec_blob,
    [CDCH_T_JSON] = dec_json,
    [CDCH_T_GEOMETRY] = dec_geometry,
    [CDCH_T_VECTOR] = dec_vector,
};

int cdch_value_decode(const cdch_coldef *col, cdch_cursor *c, cdch_arena *a, cdch_value *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    vdec d = {col, c, a, err, cdch_cur_pos(c)};
    val_decoder fn = decoders[col->type];
    if (!fn) {
        cdch_err_set(err, "column type %u is not supported", (unsigned)col->type);
        if (err)
            err->offset = (int64_t)d.start;
        return -1;
    }
    return fn(&d, out);
}
