/* json_binary.c — MySQL binary JSON <-> tree, JSON text in/out, and the
 * partial-update diff vector. See json_binary.h for the contract.
 *
 * Written from the format description in MySQL's sql-common/json_binary.h
 * and the behaviour of json_binary.cc / json_dom.cc / json_diff.cc (8.0):
 *
 *  - Decoding follows offsets exactly like json_binary::Value::element()
 *    and key() do, so sparse documents (holes after in-place updates)
 *    decode. Every count, size, offset and length is checked against the
 *    bytes really available; nesting is limited to CDCH_JSON_MAX_DEPTH
 *    containers (MySQL: JSON_DOCUMENT_MAX_DEPTH = 100); and the number of
 *    decoded nodes is limited by the input length, so a corrupt document
 *    whose entries all point at the same sub-document cannot expand into
 *    an exponentially large tree.
 *
 *  - Encoding mirrors json_binary::serialize(): every container is first
 *    written in the small format; if a count, offset or size does not fit
 *    16 bits it is rolled back and rewritten in the large format (a child
 *    of a small parent that overflows makes the parent overflow too, so it
 *    is the parent that switches). Inlined values are written with
 *    write_offset_or_size(), i.e. as a 2-byte (small) or 4-byte (large)
 *    little-endian field — an inlined int16 in a large container is
 *    therefore sign-extended to 4 bytes (-5 -> fb ff ff ff). Object
 *    members are written in MySQL key order even if a hand-built tree
 *    stores them otherwise (duplicates: the last one is kept), because
 *    MySQL's binary lookups binary-search the keys. Keys over 65535 bytes
 *    or documents over 4 GiB (MySQL errors) abort with a message.
 *
 *  - Text output follows Json_wrapper::to_string() except that it is
 *    compact (MySQL writes ", " and ": "): strings are escaped like
 *    double_quote() (only '"', '\\' and bytes < 0x20; \b \t \n \f \r by
 *    name, others as \u00xx: cdch_put_json_str without flags), doubles
 *    like my_gcvt(..., 34 chars) plus ".0" when the result has neither
 *    '.' nor 'e' (1.0 -> 1.0, 1e15 -> 1e15, 1e14 -> 100000000000000.0,
 *    0.1 -> 0.1, 1e-16 -> 1e-16),
 *    temporal opaques with my_TIME_to_str(..., 6) (so DATETIME/TIME/
 *    TIMESTAMP always carry six fraction digits, DATE none), DECIMAL with
 *    its own scale, VAR_STRING opaques as plain strings (MySQL does the
 *    same), and other opaques as "base64:typeNN:..." where, like MySQL's
 *    base64_encode(), a newline (escaped as \n) follows every 76 base64
 *    characters.
 */
#include "json_binary.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "decimal.h"
#include "jsonstr.h"
#include "mysql_types.h"
#include "temporal.h"
#include "value.h" /* cdch_base64_append */

/* Type bytes (json_binary.cc). */
enum {
    JB_SMALL_OBJECT = 0x00,
    JB_LARGE_OBJECT = 0x01,
    JB_SMALL_ARRAY = 0x02,
    JB_LARGE_ARRAY = 0x03,
    JB_LITERAL = 0x04,
    JB_INT16 = 0x05,
    JB_UINT16 = 0x06,
    JB_INT32 = 0x07,
    JB_UINT32 = 0x08,
    JB_INT64 = 0x09,
    JB_UINT64 = 0x0a,
    JB_DOUBLE = 0x0b,
    JB_STRING = 0x0c,
    JB_OPAQUE = 0x0f,
};

enum { JB_NULL_LITERAL = 0, JB_TRUE_LITERAL = 1, JB_FALSE_LITERAL = 2 };

static bool jb_inlined(uint8_t type, bool large)
{
    switch (type) {
    case JB_LITERAL:
    case JB_INT16:
    case JB_UINT16:
        return true;
    case JB_INT32:
    case JB_UINT32:
        return large;
    default:
        return false;
    }
}

static uint64_t rd_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static double u64_to_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static uint64_t double_to_u64(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

/* Read a json_binary var-length (7 bits per byte, LSB group first, high
 * bit = more follows, at most 5 bytes, value <= UINT32_MAX). Returns the
 * number of bytes used, 0 if ill-formed or truncated. */
static size_t rd_varlen(const uint8_t *p, size_t avail, uint64_t *out)
{
    uint64_t v = 0;
    size_t max = avail < 5 ? avail : 5;
    for (size_t i = 0; i < max; i++) {
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            if (v > UINT32_MAX)
                return 0;
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

static void put_varlen(cdch_buf *b, uint64_t n)
{
    do {
        uint8_t ch = (uint8_t)(n & 0x7f);
        n >>= 7;
        if (n)
            ch |= 0x80;
        cdch_put_u8(b, ch);
    } while (n);
}

static const char *jb_type_name(uint8_t t)
{
    switch (t) {
    case JB_SMALL_OBJECT: return "small object";
    case JB_LARGE_OBJECT: return "large object";
    case JB_SMALL_ARRAY: return "small array";
    case JB_LARGE_ARRAY: return "large array";
    case JB_LITERAL: return "literal";
    case JB_INT16: return "int16";
    case JB_UINT16: return "uint16";
    case JB_INT32: return "int32";
    case JB_UINT32: return "uint32";
    case JB_INT64: return "int64";
    case JB_UINT64: return "uint64";
    case JB_DOUBLE: return "double";
    case JB_STRING: return "string";
    case JB_OPAQUE: return "opaque";
    default: return "unknown";
    }
}

/* ======================================================================
 * Decoder
 * ==================================================================== */

typedef struct jdec {
    const uint8_t *base; /* first byte of the document (offsets in errors) */
    cdch_arena *a;
    cdch_err *err;
    size_t budget; /* nodes still allowed */
} jdec;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int dec_fail(jdec *d, const uint8_t *at, const char *fmt, ...)
{
    char msg[CDCH_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cdch_err_set(d->err, "JSON binary: %s", msg);
    if (d->err)
        d->err->offset = (int64_t)(at - d->base);
    return -1;
}

static int dec_value(jdec *d, uint8_t type, const uint8_t *p, size_t avail, unsigned depth, cdch_json **out);

/* A scalar of `type` at p with `avail` readable bytes into j. */
static int dec_scalar(jdec *d, uint8_t type, const uint8_t *p, size_t avail, cdch_json *j)
{
    static const unsigned fixed[] = {
        [JB_LITERAL] = 1, [JB_INT16] = 2, [JB_UINT16] = 2, [JB_INT32] = 4, [JB_UINT32] = 4,
        [JB_INT64] = 8, [JB_UINT64] = 8, [JB_DOUBLE] = 8,
    };
    if (type >= JB_LITERAL && type <= JB_DOUBLE && avail < fixed[type])
        return dec_fail(d, p, "%s value needs %u bytes but only %zu remain (document truncated?)",
                        jb_type_name(type), fixed[type], avail);
    switch (type) {
    case JB_LITERAL:
        switch (p[0]) {
        case JB_NULL_LITERAL: j->type = CDCH_JSON_NULL; return 0;
        case JB_TRUE_LITERAL: j->type = CDCH_JSON_TRUE; return 0;
        case JB_FALSE_LITERAL: j->type = CDCH_JSON_FALSE; return 0;
        default:
            return dec_fail(d, p, "bad literal byte 0x%02x (expected 00 null, 01 true or 02 false)", p[0]);
        }
    case JB_INT16:
        j->type = CDCH_JSON_INT;
        j->u.i = (int16_t)rd_le(p, 2);
        return 0;
    case JB_INT32:
        j->type = CDCH_JSON_INT;
        j->u.i = (int32_t)rd_le(p, 4);
        return 0;
    case JB_INT64:
        j->type = CDCH_JSON_INT;
        j->u.i = (int64_t)rd_le(p, 8);
        return 0;
    case JB_UINT16:
        j->type = CDCH_JSON_UINT;
        j->u.u = rd_le(p, 2);
        return 0;
    case JB_UINT32:
        j->type = CDCH_JSON_UINT;
        j->u.u = rd_le(p, 4);
        return 0;
    case JB_UINT64:
        j->type = CDCH_JSON_UINT;
        j->u.u = rd_le(p, 8);
        return 0;
    case JB_DOUBLE:
        j->type = CDCH_JSON_DOUBLE;
        j->u.d = u64_to_double(rd_le(p, 8));
        return 0;
    case JB_STRING: {
        uint64_t n;
        size_t vl = rd_varlen(p, avail, &n);
        if (!vl)
            return dec_fail(d, p, "string length is truncated or not a valid var-length (max 5 bytes, < 2^32)");
        if (n > avail - vl)
            return dec_fail(d, p, "string of %llu bytes but only %zu bytes remain (document truncated?)",
                            (unsigned long long)n, avail - vl);
        j->type = CDCH_JSON_STRING;
        j->u.str.ptr = (const char *)(p + vl);
        j->u.str.len = (size_t)n;
        return 0;
    }
    case JB_OPAQUE: {
        uint64_t n;
        if (avail < 1)
            return dec_fail(d, p, "opaque value has no field type byte (document truncated?)");
        size_t vl = rd_varlen(p + 1, avail - 1, &n);
        if (!vl)
            return dec_fail(d, p, "opaque length is truncated or not a valid var-length (max 5 bytes, < 2^32)");
        if (n > avail - 1 - vl)
            return dec_fail(d, p, "opaque value of %llu bytes but only %zu bytes remain (document truncated?)",
                            (unsigned long long)n, avail - 1 - vl);
        j->type = CDCH_JSON_OPAQUE;
        j->u.opaque.field_type = p[0];
        j->u.opaque.data = p + 1 + vl;
        j->u.opaque.len = (size_t)n;
        return 0;
    }
    default:
        return dec_fail(d, p, "unknown value type 0x%02x (valid: 00-0c, 0f)", type);
    }
}

static int dec_container(jdec *d, bool is_obj, bool large, const uint8_t *p, size_t avail, unsigned depth,
                         cdch_json *j)
{
    const char *what = is_obj ? "object" : "array";
    if (depth > CDCH_JSON_MAX_DEPTH)
        return dec_fail(d, p, "%s nested deeper than %d levels", what, CDCH_JSON_MAX_DEPTH);
    const unsigned osz = large ? 4 : 2;
    const unsigned kesz = large ? 6 : 4;
    const unsigned vesz = large ? 5 : 3;
    if (avail < 2u * osz)
        return dec_fail(d, p, "%s %s header needs %u bytes but only %zu remain (document truncated?)",
                        large ? "large" : "small", what, 2u * osz, avail);
    uint64_t count = rd_le(p, osz);
    uint64_t bytes = rd_le(p + osz, osz);
    if (bytes > avail)
        return dec_fail(d, p, "%s declares %llu bytes but only %zu remain (document truncated or size corrupt)",
                        what, (unsigned long long)bytes, avail);
    uint64_t hdr = 2u * osz + count * ((is_obj ? kesz : 0) + vesz);
    if (hdr > bytes)
        return dec_fail(d, p, "%s of %llu elements needs a %llu-byte header but its size is only %llu bytes",
                        what, (unsigned long long)count, (unsigned long long)hdr, (unsigned long long)bytes);
    if (count > d->budget)
        return dec_fail(d, p, "%s element count %llu exceeds what the document can hold (entries shared "
                        "between containers? corrupt document)", what, (unsigned long long)count);

    const size_t n = (size_t)count;
    const size_t vbase = 2u * osz + (is_obj ? n * kesz : 0);
    if (is_obj) {
        j->type = CDCH_JSON_OBJECT;
        j->u.obj.count = n;
        j->u.obj.members = n ? cdch_arena_alloc(d->a, n * sizeof(cdch_json_member)) : NULL;
    } else {
        j->type = CDCH_JSON_ARRAY;
        j->u.arr.count = n;
        j->u.arr.items = n ? cdch_arena_alloc(d->a, n * sizeof(cdch_json *)) : NULL;
    }

    for (size_t i = 0; i < n; i++) {
        if (is_obj) {
            const uint8_t *ke = p + 2u * osz + i * kesz;
            uint64_t koff = rd_le(ke, osz);
            uint64_t klen = rd_le(ke + osz, 2);
            if (koff < hdr || koff + klen > bytes)
                return dec_fail(d, ke, "key %zu of object points outside it (offset %llu, length %llu; keys must "
                                "lie between the %llu-byte header and the object size %llu)",
                                i, (unsigned long long)koff, (unsigned long long)klen, (unsigned long long)hdr,
                                (unsigned long long)bytes);
            j->u.obj.members[i].key = (const char *)(p + koff);
            j->u.obj.members[i].key_len = (size_t)klen;
        }
        const uint8_t *ve = p + vbase + i * vesz;
        uint8_t vt = ve[0];
        cdch_json *child;
        if (jb_inlined(vt, large)) {
            if (d->budget == 0)
                return dec_fail(d, ve, "too many values for the document size (corrupt document)");
            d->budget--;
            child = cdch_arena_alloc(d->a, sizeof *child);
            if (dec_scalar(d, vt, ve + 1, vesz - 1u, child) < 0)
                return -1;
        } else {
            uint64_t voff = rd_le(ve + 1, osz);
            if (voff < hdr || voff >= bytes)
                return dec_fail(d, ve, "value %zu (%s) of %s points outside it (offset %llu; values must lie "
                                "between the %llu-byte header and the size %llu)",
                                i, jb_type_name(vt), what, (unsigned long long)voff, (unsigned long long)hdr,
                                (unsigned long long)bytes);
            if (dec_value(d, vt, p + voff, (size_t)(bytes - voff), depth, &child) < 0)
                return -1;
        }
        if (is_obj)
            j->u.obj.members[i].value = child;
        else
            j->u.arr.items[i] = child;
    }
    return 0;
}

/* depth = number of containers enclosing this value. */
static int dec_value(jdec *d, uint8_t type, const uint8_t *p, size_t avail, unsigned depth, cdch_json **out)
{
    if (d->budget == 0)
        return dec_fail(d, p, "too many values for the document size (entries shared between containers? "
                        "corrupt document)");
    d->budget--;
    cdch_json *j = cdch_arena_alloc(d->a, sizeof *j);
    *out = j;
    switch (type) {
    case JB_SMALL_OBJECT: return dec_container(d, true, false, p, avail, depth + 1, j);
    case JB_LARGE_OBJECT: return dec_container(d, true, true, p, avail, depth + 1, j);
    case JB_SMALL_ARRAY: return dec_container(d, false, false, p, avail, depth + 1, j);
    case JB_LARGE_ARRAY: return dec_container(d, false, true, p, avail, depth + 1, j);
    default: return dec_scalar(d, type, p, avail, j);
    }
}

int cdch_json_decode(const uint8_t *p, size_t len, cdch_arena *a, cdch_json **out, cdch_err *err)
{
    *out = NULL;
    if (len == 0) {
        /* MySQL (parse_binary) reads an empty value as the JSON null literal. */
        cdch_json *j = cdch_arena_alloc(a, sizeof *j);
        j->type = CDCH_JSON_NULL;
        *out = j;
        return 0;
    }
    jdec d = {p, a, err, len + 1};
    cdch_json *j = NULL;
    if (dec_value(&d, p[0], p + 1, len - 1, 0, &j) < 0)
        return -1;
    *out = j;
    return 0;
}

/* ======================================================================
 * Encoder
 * ==================================================================== */

enum { ENC_OK = 0, ENC_TOO_BIG = 1 };

static void enc_fatal(const char *what)
{
    fprintf(stderr, "cdcharness: cdch_json_encode: %s\n", what);
    abort();
}

static bool too_big(uint64_t v, bool large)
{
    if (v <= UINT16_MAX)
        return false;
    if (!large)
        return true;
    if (v > UINT32_MAX)
        enc_fatal("document exceeds MySQL's 4 GiB JSON limit");
    return false;
}

static const cdch_json_member *j_member(const cdch_json *j, const cdch_json_member **order, size_t i)
{
    return order ? order[i] : &j->u.obj.members[i];
}

/* attempt_inline_value(): write type + inlined value at entry_pos. */
static bool enc_inline(cdch_buf *b, const cdch_json *v, size_t entry_pos, bool large)
{
    uint8_t t;
    int32_t val;
    switch (v->type) {
    case CDCH_JSON_NULL: t = JB_LITERAL; val = JB_NULL_LITERAL; break;
    case CDCH_JSON_TRUE: t = JB_LITERAL; val = JB_TRUE_LITERAL; break;
    case CDCH_JSON_FALSE: t = JB_LITERAL; val = JB_FALSE_LITERAL; break;
    case CDCH_JSON_INT:
        if (v->u.i >= INT16_MIN && v->u.i <= INT16_MAX)
            t = JB_INT16;
        else if (large && v->u.i >= INT32_MIN && v->u.i <= INT32_MAX)
            t = JB_INT32;
        else
            return false;
        val = (int32_t)v->u.i;
        break;
    case CDCH_JSON_UINT:
        if (v->u.u <= UINT16_MAX)
            t = JB_UINT16;
        else if (large && v->u.u <= UINT32_MAX)
            t = JB_UINT32;
        else
            return false;
        val = (int32_t)(uint32_t)v->u.u;
        break;
    default:
        return false;
    }
    b->data[entry_pos] = t;
    if (large)
        cdch_buf_patch_le(b, entry_pos + 1, (uint32_t)val, 4);
    else
        cdch_buf_patch_le(b, entry_pos + 1, (uint16_t)val, 2);
    return true;
}

/* MySQL key order: shorter keys first, then memcmp. */
static int key_cmp(const cdch_json_member *x, const cdch_json_member *y)
{
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    return x->key_len ? memcmp(x->key, y->key, x->key_len) : 0;
}

typedef struct morder {
    const cdch_json_member *m;
    size_t idx;
} morder;

static int morder_cmp(const void *a, const void *b)
{
    const morder *x = a, *y = b;
    int c = key_cmp(x->m, y->m);
    if (c)
        return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* MySQL's DOM keeps object members sorted and unique, and its binary
 * lookups rely on it. Trees from the decoder or the parser already are;
 * for a hand-built tree that is not, return the members in MySQL order
 * with duplicate keys reduced to the last one (malloc'd; NULL when the
 * stored order is already right). */
static const cdch_json_member **obj_order(const cdch_json *j, size_t *n_out)
{
    const size_t cnt = j->u.obj.count;
    const cdch_json_member *m = j->u.obj.members;
    *n_out = cnt;
    size_t i = 1;
    while (i < cnt && key_cmp(&m[i - 1], &m[i]) < 0)
        i++;
    if (i >= cnt)
        return NULL;
    morder *tmp = malloc(cnt * sizeof *tmp);
    const cdch_json_member **out = malloc(cnt * sizeof *out);
    if (!tmp || !out)
        enc_fatal("out of memory sorting object keys");
    for (i = 0; i < cnt; i++) {
        tmp[i].m = &m[i];
        tmp[i].idx = i;
    }
    qsort(tmp, cnt, sizeof *tmp, morder_cmp);
    size_t k = 0;
    for (i = 0; i < cnt; i++)
        if (i + 1 == cnt || key_cmp(tmp[i].m, tmp[i + 1].m) != 0)
            out[k++] = tmp[i].m;
    free(tmp);
    *n_out = k;
    return out;
}

static int enc_value(cdch_buf *b, const cdch_json *j, size_t type_pos, bool small_parent);

/* order: object members in MySQL order (NULL = as stored); n: their number. */
static int enc_container(cdch_buf *b, const cdch_json *j, bool large, const cdch_json_member **order, size_t n)
{
    const bool is_obj = j->type == CDCH_JSON_OBJECT;
    const size_t start = b->len;
    const unsigned osz = large ? 4 : 2;
    const unsigned kesz = large ? 6 : 4;
    const unsigned vesz = large ? 5 : 3;

    if (too_big(n, large))
        return ENC_TOO_BIG;
    cdch_put_le(b, n, osz);
    const size_t size_pos = b->len;
    cdch_put_le(b, 0, osz);

    if (is_obj) {
        uint64_t off = 2u * osz + (uint64_t)n * (kesz + vesz);
        for (size_t i = 0; i < n; i++) {
            size_t kl = j_member(j, order, i)->key_len;
            if (kl > UINT16_MAX)
                enc_fatal("object key longer than 65535 bytes (MySQL: JSON key too big)");
            if (too_big(off, large))
                return ENC_TOO_BIG;
            cdch_put_le(b, off, osz);
            cdch_put_le16(b, (uint16_t)kl);
            off += kl;
        }
    }
    const size_t entries = b->len;
    cdch_put_zero(b, n * vesz);
    if (is_obj)
        for (size_t i = 0; i < n; i++)
            cdch_put_bytes(b, j_member(j, order, i)->key, j_member(j, order, i)->key_len);

    for (size_t i = 0; i < n; i++) {
        const cdch_json *c = is_obj ? j_member(j, order, i)->value : j->u.arr.items[i];
        size_t entry_pos = entries + i * vesz;
        if (enc_inline(b, c, entry_pos, large))
            continue;
        size_t off = b->len - start;
        if (too_big(off, large))
            return ENC_TOO_BIG;
        cdch_buf_patch_le(b, entry_pos + 1, off, osz);
        int r = enc_value(b, c, entry_pos, !large);
        if (r != ENC_OK)
            return r;
    }
    size_t bytes = b->len - start;
    if (too_big(bytes, large))
        return ENC_TOO_BIG;
    cdch_buf_patch_le(b, size_pos, bytes, osz);
    return ENC_OK;
}

/* serialize_json_value(): append the value, set the type byte at type_pos. */
static int enc_value(cdch_buf *b, const cdch_json *j, size_t type_pos, bool small_parent)
{
    const size_t start = b->len;
    switch (j->type) {
    case CDCH_JSON_OBJECT:
    case CDCH_JSON_ARRAY: {
        const bool is_obj = j->type == CDCH_JSON_OBJECT;
        size_t n = is_obj ? j->u.obj.count : j->u.arr.count;
        const cdch_json_member **order = is_obj ? obj_order(j, &n) : NULL;
        b->data[type_pos] = is_obj ? JB_SMALL_OBJECT : JB_SMALL_ARRAY;
        int r = enc_container(b, j, false, order, n);
        if (r == ENC_TOO_BIG && !small_parent) {
            b->len = start;
            b->data[type_pos] = is_obj ? JB_LARGE_OBJECT : JB_LARGE_ARRAY;
            r = enc_container(b, j, true, order, n);
        }
        /* else: a small parent must switch to large first (MySQL does the same) */
        free(order);
        return r;
    }
    case CDCH_JSON_NULL:
        b->data[type_pos] = JB_LITERAL;
        cdch_put_u8(b, JB_NULL_LITERAL);
        return ENC_OK;
    case CDCH_JSON_TRUE:
        b->data[type_pos] = JB_LITERAL;
        cdch_put_u8(b, JB_TRUE_LITERAL);
        return ENC_OK;
    case CDCH_JSON_FALSE:
        b->data[type_pos] = JB_LITERAL;
        cdch_put_u8(b, JB_FALSE_LITERAL);
        return ENC_OK;
    case CDCH_JSON_INT: {
        int64_t v = j->u.i;
        if (v >= INT16_MIN && v <= INT16_MAX) {
            b->data[type_pos] = JB_INT16;
            cdch_put_le16(b, (uint16_t)v);
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            b->data[type_pos] = JB_INT32;
            cdch_put_le32(b, (uint32_t)v);
        } else {
            b->data[type_pos] = JB_INT64;
            cdch_put_le64(b, (uint64_t)v);
        }
        return ENC_OK;
    }
    case CDCH_JSON_UINT: {
        uint64_t v = j->u.u;
        if (v <= UINT16_MAX) {
            b->data[type_pos] = JB_UINT16;
            cdch_put_le16(b, (uint16_t)v);
        } else if (v <= UINT32_MAX) {
            b->data[type_pos] = JB_UINT32;
            cdch_put_le32(b, (uint32_t)v);
        } else {
            b->data[type_pos] = JB_UINT64;
            cdch_put_le64(b, v);
        }
        return ENC_OK;
    }
    case CDCH_JSON_DOUBLE:
        b->data[type_pos] = JB_DOUBLE;
        cdch_put_le64(b, double_to_u64(j->u.d));
        return ENC_OK;
    case CDCH_JSON_STRING:
        b->data[type_pos] = JB_STRING;
        put_varlen(b, j->u.str.len);
        cdch_put_bytes(b, j->u.str.ptr, j->u.str.len);
        return ENC_OK;
    case CDCH_JSON_OPAQUE:
        b->data[type_pos] = JB_OPAQUE;
        cdch_put_u8(b, j->u.opaque.field_type);
        put_varlen(b, j->u.opaque.len);
        cdch_put_bytes(b, j->u.opaque.data, j->u.opaque.len);
        return ENC_OK;
    }
    enc_fatal("tree node has an invalid type");
    return ENC_OK;
}

void cdch_json_encode(const cdch_json *j, cdch_buf *out)
{
    size_t type_pos = out->len;
    cdch_put_u8(out, 0);
    (void)enc_value(out, j, type_pos, false); /* never TOO_BIG at the top */
}

/* ======================================================================
 * Text output
 * ==================================================================== */

/* Parse the output of "%.*e" into its significant digits and a
 * dtoa-style decimal point position (value = 0.DIGITS * 10^decpt). */
static int sci_to_digits(const char *s, char *dig, int *decpt)
{
    int n = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            dig[n++] = *s;
    dig[n] = '\0';
    *decpt = (*s == 'e' ? atoi(s + 1) : 0) + 1;
    return n;
}

static int strip_zeros(char *dig, int n)
{
    while (n > 1 && dig[n - 1] == '0')
        n--;
    dig[n] = '\0';
    return n;
}

static bool digits_roundtrip(const char *dig, int n, int decpt, double v)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%.*se%d", n, dig, decpt - n);
    return strtod(buf, NULL) == v;
}

/* Add delta (+1/-1) to the last digit of dig[0..n) (n digits, no sign);
 * renormalises so there is no leading or trailing zero. */
static int digits_step(char *dig, int n, int *decpt, int delta)
{
    int i = n - 1;
    if (delta > 0) {
        while (i >= 0 && dig[i] == '9')
            dig[i--] = '0';
        if (i < 0) {
            memmove(dig + 1, dig, (size_t)n);
            dig[0] = '1';
            n++;
            (*decpt)++;
        } else {
            dig[i]++;
        }
    } else {
        while (i >= 0 && dig[i] == '0')
            dig[i--] = '9';
        if (i < 0)
            return 0;
        dig[i]--;
        if (dig[0] == '0') {
            memmove(dig, dig + 1, (size_t)n - 1);
            n--;
            (*decpt)--;
        }
    }
    while (n > 1 && dig[n - 1] == '0')
        n--;
    dig[n] = '\0';
    return n;
}

/* Shortest digit string that reads back as v (v finite, > 0): what dtoa
 * mode 0 (and so my_gcvt with a 34-character field) produces. */
static int shortest_digits(double v, char dig[24], int *decpt)
{
    char buf[48];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, v);
        int dp;
        int n = sci_to_digits(buf, dig, &dp);
        if (digits_roundtrip(dig, n, dp, v)) {
            *decpt = dp;
            return strip_zeros(dig, n);
        }
        /* Near powers of two the rounding interval is asymmetric: the
         * nearest p-digit decimal may miss while its neighbour hits. */
        for (int delta = -1; delta <= 1; delta += 2) {
            char alt[24];
            memcpy(alt, dig, (size_t)n + 1);
            int adp = dp;
            int an = digits_step(alt, n, &adp, delta);
            if (an > 0 && an <= p && digits_roundtrip(alt, an, adp, v)) {
                memcpy(dig, alt, (size_t)an + 1);
                *decpt = adp;
                return an;
            }
        }
    }
    snprintf(buf, sizeof buf, "%.16e", v);
    return strip_zeros(dig, sci_to_digits(buf, dig, decpt));
}

/* my_gcvt(d, MY_GCVT_ARG_DOUBLE, MY_GCVT_MAX_FIELD_WIDTH = 34) followed by
 * Json_wrapper's ".0" rule. Non-finite values cannot be stored by MySQL;
 * they are printed as null. */
static void txt_double(cdch_buf *o, double v)
{
    if (!isfinite(v)) {
        cdch_put_str(o, "null");
        return;
    }
    char dig[24];
    int decpt, len;
    bool neg = signbit(v) != 0;
    int width = 34;
    if (v < 0)
        width--;
    if (v == 0) {
        dig[0] = '0';
        dig[1] = '\0';
        len = 1;
        decpt = 1;
    } else {
        len = shortest_digits(neg ? -v : v, dig, &decpt);
    }
    int exp_len = 1 + (decpt >= 101 || decpt <= -99) + (decpt >= 11 || decpt <= -9);
    int f_len = decpt <= 0 ? len - decpt + 2 : (decpt < len ? len + 1 : decpt);
    bool have_space = f_len <= width;
    bool force_e = decpt <= 0 && width <= 2 - decpt && width >= 3 + exp_len;
    bool use_f = (have_space ||
                  ((decpt <= width && (decpt >= -1 || (decpt == -2 && (len > 1 || !force_e)))) && !force_e)) &&
                 (!have_space || (decpt >= -15 + 1 && (decpt <= 15 || len > decpt)));
    char s[64];
    size_t k = 0;
    if (neg)
        s[k++] = '-';
    if (use_f) {
        if (decpt <= 0) {
            s[k++] = '0';
            s[k++] = '.';
            for (int z = decpt; z < 0; z++)
                s[k++] = '0';
            for (int i = 0; i < len; i++)
                s[k++] = dig[i];
        } else {
            for (int i = 0; i < len; i++) {
                s[k++] = dig[i];
                if (i + 1 == decpt && i + 1 < len)
                    s[k++] = '.';
            }
            for (int i = len; i < decpt; i++)
                s[k++] = '0';
        }
    } else {
        s[k++] = dig[0];
        if (len > 1) {
            s[k++] = '.';
            for (int i = 1; i < len; i++)
                s[k++] = dig[i];
        }
        k += (size_t)snprintf(s + k, sizeof s - k, "e%d", decpt - 1);
    }
    s[k] = '\0';
    cdch_put_str(o, s);
    if (!strchr(s, '.') && !strchr(s, 'e'))
        cdch_put_str(o, ".0");
}

static void txt_base64(cdch_buf *o, const cdch_json *j)
{
    /* MySQL's base64_encode() breaks the output every 76 characters (57
     * input bytes); double_quote() then escapes the newline as \n. */
    char pre[32];
    snprintf(pre, sizeof pre, "\"base64:type%u:", (unsigned)j->u.opaque.field_type);
    cdch_put_str(o, pre);
    const uint8_t *p = j->u.opaque.data;
    size_t n = j->u.opaque.len;
    for (size_t off = 0; off < n; off += 57) {
        if (off)
            cdch_put_str(o, "\\n");
        cdch_base64_append(o, p + off, n - off < 57 ? n - off : 57);
    }
    cdch_put_u8(o, '"');
}

static bool txt_opaque_decimal(cdch_buf *o, const cdch_json *j)
{
    const uint8_t *p = j->u.opaque.data;
    size_t n = j->u.opaque.len;
    if (n < 2)
        return false;
    unsigned prec = p[0], scale = p[1];
    if (prec < 1 || prec > CDCH_DECIMAL_MAX_PRECISION || scale > CDCH_DECIMAL_MAX_SCALE || scale > prec)
        return false;
    if (cdch_decimal_bin_size(prec, scale) != n - 2)
        return false;
    size_t mark = o->len;
    cdch_err e;
    cdch_err_clear(&e);
    if (cdch_decimal_decode(p + 2, prec, scale, o, &e) < 0) {
        o->len = mark;
        return false;
    }
    return true;
}

static void txt_opaque(cdch_buf *o, const cdch_json *j)
{
    const uint8_t ft = j->u.opaque.field_type;
    switch (ft) {
    case CDCH_T_DATE:
    case CDCH_T_TIME:
    case CDCH_T_DATETIME:
    case CDCH_T_TIMESTAMP:
        if (j->u.opaque.len == 8) {
            cdch_temporal t;
            memset(&t, 0, sizeof t);
            cdch_temporal_from_packed((int64_t)rd_le(j->u.opaque.data, 8), ft, &t);
            int kind = ft == CDCH_T_DATE ? CDCH_T_DATE : ft == CDCH_T_TIME ? CDCH_T_TIME2 : CDCH_T_DATETIME2;
            cdch_put_u8(o, '"');
            cdch_temporal_format(&t, kind, ft == CDCH_T_DATE ? 0 : 6, o);
            cdch_put_u8(o, '"');
            return;
        }
        break;
    case CDCH_T_NEWDECIMAL:
        if (txt_opaque_decimal(o, j))
            return;
        break;
    case CDCH_T_VAR_STRING:
        /* wrapper_to_string(): "Treat strings saved in opaque as plain
         * json strings". */
        cdch_put_json_str(o, j->u.opaque.data, j->u.opaque.len, 0);
        return;
    default:
        break;
    }
    txt_base64(o, j);
}

static void txt_value(cdch_buf *o, const cdch_json *j)
{
    char num[32];
    switch (j->type) {
    case CDCH_JSON_NULL: cdch_put_str(o, "null"); return;
    case CDCH_JSON_TRUE: cdch_put_str(o, "true"); return;
    case CDCH_JSON_FALSE: cdch_put_str(o, "false"); return;
    case CDCH_JSON_INT:
        snprintf(num, sizeof num, "%lld", (long long)j->u.i);
        cdch_put_str(o, num);
        return;
    case CDCH_JSON_UINT:
        snprintf(num, sizeof num, "%llu", (unsigned long long)j->u.u);
        cdch_put_str(o, num);
        return;
    case CDCH_JSON_DOUBLE: txt_double(o, j->u.d); return;
    case CDCH_JSON_STRING: cdch_put_json_str(o, j->u.str.ptr, j->u.str.len, 0); return;
    case CDCH_JSON_OPAQUE: txt_opaque(o, j); return;
    case CDCH_JSON_OBJECT:
        cdch_put_u8(o, '{');
        for (size_t i = 0; i < j->u.obj.count; i++) {
            if (i)
                cdch_put_u8(o, ',');
            cdch_put_json_str(o, j->u.obj.members[i].key, j->u.obj.members[i].key_len, 0);
            cdch_put_u8(o, ':');
            txt_value(o, j->u.obj.members[i].value);
        }
        cdch_put_u8(o, '}');
        return;
    case CDCH_JSON_ARRAY:
        cdch_put_u8(o, '[');
        for (size_t i = 0; i < j->u.arr.count; i++) {
            if (i)
                cdch_put_u8(o, ',');
            txt_value(o, j->u.arr.items[i]);
        }
        cdch_put_u8(o, ']');
        return;
    }
    cdch_put_str(o, "null");
}

void cdch_json_to_text(const cdch_json *j, cdch_buf *out)
{
    if (!j) {
        cdch_put_str(out, "null");
        return;
    }
    txt_value(out, j);
}

/* ======================================================================
 * Text parser (RFC 8259)
 * ==================================================================== */

typedef struct jparse {
    const char *s;
    size_t len, pos;
    cdch_arena *a;
    cdch_err *err;
} jparse;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int p_fail(jparse *p, size_t at, const char *fmt, ...)
{
    char msg[CDCH_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cdch_err_set(p->err, "JSON text at offset %zu: %s", at, msg);
    if (p->err)
        p->err->offset = (int64_t)at;
    return -1;
}

static void p_ws(jparse *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static const char *p_what(jparse *p)
{
    return p->pos >= p->len ? "end of input" : "this character";
}

static void put_utf8(cdch_buf *b, uint32_t cp)
{
    if (cp < 0x80) {
        cdch_put_u8(b, (uint8_t)cp);
    } else if (cp < 0x800) {
        cdch_put_u8(b, (uint8_t)(0xc0 | (cp >> 6)));
        cdch_put_u8(b, (uint8_t)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        cdch_put_u8(b, (uint8_t)(0xe0 | (cp >> 12)));
        cdch_put_u8(b, (uint8_t)(0x80 | ((cp >> 6) & 0x3f)));
        cdch_put_u8(b, (uint8_t)(0x80 | (cp & 0x3f)));
    } else {
        cdch_put_u8(b, (uint8_t)(0xf0 | (cp >> 18)));
        cdch_put_u8(b, (uint8_t)(0x80 | ((cp >> 12) & 0x3f)));
        cdch_put_u8(b, (uint8_t)(0x80 | ((cp >> 6) & 0x3f)));
        cdch_put_u8(b, (uint8_t)(0x80 | (cp & 0x3f)));
    }
}

static int hex4(const char *s, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return 0;
}

/* p->pos is at the opening quote. The unescaped string is copied into the
 * arena (NUL-terminated, may contain NUL bytes from \u0000). */
static int p_string(jparse *p, const char **out, size_t *out_len)
{
    size_t open = p->pos++;
    cdch_buf tmp = CDCH_BUF_INIT;
    size_t run = p->pos;
    for (;;) {
        if (p->pos >= p->len) {
            cdch_buf_free(&tmp);
            return p_fail(p, open, "string starting here is not terminated (missing '\"')");
        }
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            cdch_put_bytes(&tmp, p->s + run, p->pos - run);
            p->pos++;
            break;
        }
        if (c < 0x20) {
            cdch_buf_free(&tmp);
            return p_fail(p, p->pos, "control character 0x%02x in a string must be escaped (e.g. \\n or \\u%04x)",
                          c, c);
        }
        if (c >= 0x80) {
            size_t sl = cdch_utf8_seq((const uint8_t *)p->s + p->pos, p->len - p->pos);
            if (!sl) {
                cdch_buf_free(&tmp);
                return p_fail(p, p->pos, "invalid UTF-8 byte sequence in a string (JSON text must be UTF-8)");
            }
            p->pos += sl;
            continue;
        }
        if (c != '\\') {
            p->pos++;
            continue;
        }
        /* escape */
        cdch_put_bytes(&tmp, p->s + run, p->pos - run);
        size_t esc = p->pos;
        if (p->pos + 1 >= p->len) {
            cdch_buf_free(&tmp);
            return p_fail(p, esc, "string ends inside an escape sequence");
        }
        char e = p->s[p->pos + 1];
        p->pos += 2;
        switch (e) {
        case '"': cdch_put_u8(&tmp, '"'); break;
        case '\\': cdch_put_u8(&tmp, '\\'); break;
        case '/': cdch_put_u8(&tmp, '/'); break;
        case 'b': cdch_put_u8(&tmp, '\b'); break;
        case 'f': cdch_put_u8(&tmp, '\f'); break;
        case 'n': cdch_put_u8(&tmp, '\n'); break;
        case 'r': cdch_put_u8(&tmp, '\r'); break;
        case 't': cdch_put_u8(&tmp, '\t'); break;
        case 'u': {
            uint32_t cp;
            if (p->len - p->pos < 4 || hex4(p->s + p->pos, &cp) < 0) {
                cdch_buf_free(&tmp);
                return p_fail(p, esc, "\\u must be followed by 4 hex digits");
            }
            p->pos += 4;
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                cdch_buf_free(&tmp);
                return p_fail(p, esc, "lone low surrogate \\u%04x (must follow a high surrogate \\ud800-\\udbff)",
                              cp);
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                uint32_t lo;
                if (p->len - p->pos < 6 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u' ||
                    hex4(p->s + p->pos + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
                    cdch_buf_free(&tmp);
                    return p_fail(p, esc, "high surrogate \\u%04x must be followed by a low surrogate \\udc00-\\udfff",
                                  cp);
                }
                p->pos += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            put_utf8(&tmp, cp);
            break;
        }
        default:
            cdch_buf_free(&tmp);
            return p_fail(p, esc, "invalid escape '\\%c' (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                          (e >= 0x20 && e < 0x7f) ? e : '?');
        }
        run = p->pos;
    }
    *out_len = tmp.len;
    *out = cdch_arena_memdup(p->a, tmp.data ? (const void *)tmp.data : (const void *)"", tmp.len);
    cdch_buf_free(&tmp);
    return 0;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static int p_number(jparse *p, cdch_json *j)
{
    const char *s = p->s;
    size_t start = p->pos, i = p->pos;
    bool neg = false, is_int = true;
    if (i < p->len && s[i] == '-') {
        neg = true;
        i++;
    }
    if (i >= p->len || !is_digit(s[i]))
        return p_fail(p, i, "a digit must follow '-'");
    if (s[i] == '0') {
        i++;
        if (i < p->len && is_digit(s[i]))
            return p_fail(p, i, "leading zeros are not allowed in numbers");
    } else {
        while (i < p->len && is_digit(s[i]))
            i++;
    }
    if (i < p->len && s[i] == '.') {
        is_int = false;
        i++;
        if (i >= p->len || !is_digit(s[i]))
            return p_fail(p, i, "a digit must follow the decimal point");
        while (i < p->len && is_digit(s[i]))
            i++;
    }
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        is_int = false;
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= p->len || !is_digit(s[i]))
            return p_fail(p, i, "a digit must follow the exponent marker");
        while (i < p->len && is_digit(s[i]))
            i++;
    }
    p->pos = i;
    if (is_int) {
        uint64_t mag = 0;
        bool ovf = false;
        for (size_t k = start + (neg ? 1 : 0); k < i; k++) {
            unsigned dgt = (unsigned)(s[k] - '0');
            if (mag > (UINT64_MAX - dgt) / 10) {
                ovf = true;
                break;
            }
            mag = mag * 10 + dgt;
        }
        if (!ovf) {
            if (!neg && mag <= (uint64_t)INT64_MAX) {
                j->type = CDCH_JSON_INT;
                j->u.i = (int64_t)mag;
                return 0;
            }
            if (!neg) {
                j->type = CDCH_JSON_UINT;
                j->u.u = mag;
                return 0;
            }
            if (mag <= (uint64_t)INT64_MAX + 1) {
                j->type = CDCH_JSON_INT;
                j->u.i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
                return 0;
            }
        }
        /* beyond 64 bits: a double, as rapidjson does */
    }
    size_t n = i - start;
    char small[64];
    char *txt = n < sizeof small ? small : cdch_arena_alloc(p->a, n + 1);
    memcpy(txt, s + start, n);
    txt[n] = '\0';
    double d = strtod(txt, NULL);
    if (!isfinite(d))
        return p_fail(p, start, "number %.40s%s is too big for a double", txt, n > 40 ? "..." : "");
    j->type = CDCH_JSON_DOUBLE;
    j->u.d = d;
    return 0;
}

static int p_value(jparse *p, unsigned depth, cdch_json **out);

typedef struct pmember {
    cdch_json_member m;
    size_t idx;
} pmember;

static int pmember_cmp(const void *a, const void *b)
{
    const pmember *x = a, *y = b;
    if (x->m.key_len != y->m.key_len)
        return x->m.key_len < y->m.key_len ? -1 : 1;
    int c = x->m.key_len ? memcmp(x->m.key, y->m.key, x->m.key_len) : 0;
    if (c)
        return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int p_object(jparse *p, unsigned depth, cdch_json *j)
{
    size_t open = p->pos++;
    if (depth > CDCH_JSON_MAX_DEPTH)
        return p_fail(p, open, "document nested deeper than %d levels", CDCH_JSON_MAX_DEPTH);
    pmember *v = NULL;
    size_t n = 0, cap = 0;
    p_ws(p);
    if (p->pos < p->len && p->s[p->pos] == '}') {
        p->pos++;
        goto done;
    }
    for (;;) {
        p_ws(p);
        if (p->pos >= p->len || p->s[p->pos] != '"') {
            free(v);
            return p_fail(p, p->pos, "expected a member name in double quotes, found %s", p_what(p));
        }
        size_t kpos = p->pos;
        const char *key;
        size_t klen;
        if (p_string(p, &key, &klen) < 0) {
            free(v);
            return -1;
        }
        if (klen > UINT16_MAX) {
            free(v);
            return p_fail(p, kpos, "member name of %zu bytes exceeds MySQL's 65535-byte key limit", klen);
        }
        p_ws(p);
        if (p->pos >= p->len || p->s[p->pos] != ':') {
            free(v);
            return p_fail(p, p->pos, "expected ':' after the member name, found %s", p_what(p));
        }
        p->pos++;
        p_ws(p);
        cdch_json *val;
        if (p_value(p, depth, &val) < 0) {
            free(v);
            return -1;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            pmember *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                fprintf(stderr, "cdcharness: out of memory parsing JSON\n");
                abort();
            }
            v = nv;
        }
        v[n].m.key = key;
        v[n].m.key_len = klen;
        v[n].m.value = val;
        v[n].idx = n;
        n++;
        p_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == '}') {
            p->pos++;
            break;
        }
        free(v);
        return p_fail(p, p->pos, "expected ',' or '}' in the object starting at offset %zu, found %s", open,
                      p_what(p));
    }
done:
    /* MySQL key order (length, then bytes); duplicates: last one wins
     * (Json_object::add_alias replaces the old value). */
    if (n > 1)
        qsort(v, n, sizeof *v, pmember_cmp);
    j->type = CDCH_JSON_OBJECT;
    j->u.obj.members = n ? cdch_arena_alloc(p->a, n * sizeof(cdch_json_member)) : NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && v[i].m.key_len == v[i + 1].m.key_len &&
            (v[i].m.key_len == 0 || memcmp(v[i].m.key, v[i + 1].m.key, v[i].m.key_len) == 0))
            continue; /* a later duplicate follows */
        j->u.obj.members[k++] = v[i].m;
    }
    j->u.obj.count = k;
    free(v);
    return 0;
}

static int p_array(jparse *p, unsigned depth, cdch_json *j)
{
    size_t open = p->pos++;
    if (depth > CDCH_JSON_MAX_DEPTH)
        return p_fail(p, open, "document nested deeper than %d levels", CDCH_JSON_MAX_DEPTH);
    cdch_json **v = NULL;
    size_t n = 0, cap = 0;
    p_ws(p);
    if (p->pos < p->len && p->s[p->pos] == ']') {
        p->pos++;
    } else {
        for (;;) {
            p_ws(p);
            cdch_json *val;
            if (p_value(p, depth, &val) < 0) {
                free(v);
                return -1;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                cdch_json **nv = realloc(v, cap * sizeof *v);
                if (!nv) {
                    fprintf(stderr, "cdcharness: out of memory parsing JSON\n");
                    abort();
                }
                v = nv;
            }
            v[n++] = val;
            p_ws(p);
            if (p->pos < p->len && p->s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            if (p->pos < p->len && p->s[p->pos] == ']') {
                p->pos++;
                break;
            }
            free(v);
            return p_fail(p, p->pos, "expected ',' or ']' in the array starting at offset %zu, found %s", open,
                          p_what(p));
        }
    }
    j->type = CDCH_JSON_ARRAY;
    j->u.arr.count = n;
    j->u.arr.items = n ? cdch_arena_alloc(p->a, n * sizeof(cdch_json *)) : NULL;
    if (n)
        memcpy(j->u.arr.items, v, n * sizeof(cdch_json *));
    free(v);
    return 0;
}

static bool p_word(jparse *p, const char *w)
{
    size_t n = strlen(w);
    if (p->len - p->pos >= n && memcmp(p->s + p->pos, w, n) == 0) {
        p->pos += n;
        return true;
    }
    return false;
}

/* depth = number of containers enclosing this value. */
static int p_value(jparse *p, unsigned depth, cdch_json **out)
{
    cdch_json *j = cdch_arena_alloc(p->a, sizeof *j);
    *out = j;
    if (p->pos >= p->len)
        return p_fail(p, p->pos, "expected a value, found end of input");
    char c = p->s[p->pos];
    switch (c) {
    case '{': return p_object(p, depth + 1, j);
    case '[': return p_array(p, depth + 1, j);
    case '"': {
        const char *s;
        size_t n;
        if (p_string(p, &s, &n) < 0)
            return -1;
        j->type = CDCH_JSON_STRING;
        j->u.str.ptr = s;
        j->u.str.len = n;
        return 0;
    }
    case 't':
        if (p_word(p, "true")) {
            j->type = CDCH_JSON_TRUE;
            return 0;
        }
        break;
    case 'f':
        if (p_word(p, "false")) {
            j->type = CDCH_JSON_FALSE;
            return 0;
        }
        break;
    case 'n':
        if (p_word(p, "null")) {
            j->type = CDCH_JSON_NULL;
            return 0;
        }
        break;
    default:
        if (c == '-' || is_digit(c))
            return p_number(p, j);
        break;
    }
    return p_fail(p, p->pos, "expected a value (object, array, string, number, true, false or null)");
}

int cdch_json_parse_text(const char *s, size_t len, cdch_arena *a, cdch_json **out, cdch_err *err)
{
    jparse p = {s, len, 0, a, err};
    *out = NULL;
    p_ws(&p);
    if (p.pos >= p.len)
        return p_fail(&p, p.pos, "the document is empty");
    cdch_json *j;
    if (p_value(&p, 0, &j) < 0)
        return -1;
    p_ws(&p);
    if (p.pos < p.len)
        return p_fail(&p, p.pos, "unexpected text after the end of the document");
    *out = j;
    return 0;
}

/* ======================================================================
 * Equality
 * ==================================================================== */

static bool key_eq(const cdch_json_member *x, const cdch_json_member *y)
{
    return x->key_len == y->key_len && (x->key_len == 0 || memcmp(x->key, y->key, x->key_len) == 0);
}

int cdch_json_equal(const cdch_json *x, const cdch_json *y)
{
    if (!x || !y)
        return x == y;
    if (x->type == CDCH_JSON_INT && y->type == CDCH_JSON_UINT)
        return x->u.i >= 0 && (uint64_t)x->u.i == y->u.u;
    if (x->type == CDCH_JSON_UINT && y->type == CDCH_JSON_INT)
        return y->u.i >= 0 && (uint64_t)y->u.i == x->u.u;
    if (x->type != y->type)
        return 0;
    switch (x->type) {
    case CDCH_JSON_NULL:
    case CDCH_JSON_TRUE:
    case CDCH_JSON_FALSE:
        return 1;
    case CDCH_JSON_INT: return x->u.i == y->u.i;
    case CDCH_JSON_UINT: return x->u.u == y->u.u;
    case CDCH_JSON_DOUBLE: return x->u.d == y->u.d || double_to_u64(x->u.d) == double_to_u64(y->u.d);
    case CDCH_JSON_STRING:
        return x->u.str.len == y->u.str.len &&
               (x->u.str.len == 0 || memcmp(x->u.str.ptr, y->u.str.ptr, x->u.str.len) == 0);
    case CDCH_JSON_OPAQUE:
        return x->u.opaque.field_type == y->u.opaque.field_type && x->u.opaque.len == y->u.opaque.len &&
               (x->u.opaque.len == 0 || memcmp(x->u.opaque.data, y->u.opaque.data, x->u.opaque.len) == 0);
    case CDCH_JSON_ARRAY:
        if (x->u.arr.count != y->u.arr.count)
            return 0;
        for (size_t i = 0; i < x->u.arr.count; i++)
            if (!cdch_json_equal(x->u.arr.items[i], y->u.arr.items[i]))
                return 0;
        return 1;
    case CDCH_JSON_OBJECT: {
        size_t n = x->u.obj.count;
        if (n != y->u.obj.count)
            return 0;
        for (size_t i = 0; i < n; i++) {
            const cdch_json_member *xm = &x->u.obj.members[i];
            const cdch_json_member *ym = NULL;
            if (key_eq(xm, &y->u.obj.members[i])) {
                ym = &y->u.obj.members[i]; /* same order: the usual case */
            } else {
                for (size_t k = 0; k < n; k++)
                    if (key_eq(xm, &y->u.obj.members[k])) {
                        ym = &y->u.obj.members[k];
                        break;
                    }
            }
            if (!ym || !cdch_json_equal(xm->value, ym->value))
                return 0;
        }
        return 1;
    }
    }
    return 0;
}

/* ======================================================================
 * Partial update diffs (Json_diff_vector::write_binary / read_binary)
 * ==================================================================== */

static const char *diff_op_name(uint8_t op)
{
    switch (op) {
    case CDCH_JSON_DIFF_REPLACE: return "replace";
    case CDCH_JSON_DIFF_INSERT: return "insert";
    case CDCH_JSON_DIFF_REMOVE: return "remove";
    default: return NULL;
    }
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int diff_fail(cdch_err *err, int64_t at, const char *fmt, ...)
{
    char msg[CDCH_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cdch_err_set(err, "JSON diff: %s", msg);
    if (err)
        err->offset = at;
    return -1;
}

int cdch_json_diff_decode(struct cdch_cursor *c, cdch_arena *a, cdch_json_diff *out, cdch_err *err)
{
    out->count = 0;
    out->ops = NULL;
    int64_t at0 = (int64_t)cdch_cur_pos(c);
    if (cdch_cur_left(c) < 4) {
        c->overrun = true;
        return diff_fail(err, at0, "need 4 bytes for the diff vector length, only %zu left", cdch_cur_left(c));
    }
    uint32_t total = cdch_get_le32(c);
    if (total > cdch_cur_left(c)) {
        size_t left = cdch_cur_left(c);
        c->overrun = true;
        return diff_fail(err, at0, "diff vector declares %u bytes but only %zu remain (row image truncated?)",
                         total, left);
    }
    cdch_cursor s = cdch_get_sub(c, total);

    /* count the operations first so the array is allocated once */
    cdch_json_diff_op *ops = NULL;
    size_t n = 0, cap = 0;
    while (cdch_cur_left(&s) > 0) {
        int64_t at = (int64_t)cdch_cur_pos(&s);
        uint8_t op = cdch_get_u8(&s);
        const char *name = diff_op_name(op);
        if (!name) {
            free(ops);
            return diff_fail(err, at, "operation %zu has unknown type %u (0 replace, 1 insert, 2 remove)", n, op);
        }
        bool bad = false;
        uint64_t plen = cdch_get_lenenc(&s, &bad);
        if (bad || s.overrun) {
            free(ops);
            return diff_fail(err, at, "operation %zu (%s): path length is truncated or invalid", n, name);
        }
        if (plen > cdch_cur_left(&s)) {
            free(ops);
            return diff_fail(err, at, "operation %zu (%s): path of %llu bytes but only %zu remain", n, name,
                             (unsigned long long)plen, cdch_cur_left(&s));
        }
        const char *path = (const char *)cdch_get_bytes(&s, (size_t)plen);
        if (plen == 0 || path[0] != '$') {
            free(ops);
            return diff_fail(err, at, "operation %zu (%s): path '%.*s' does not start with '$'", n, name,
                             (int)(plen > 64 ? 64 : plen), plen ? path : "");
        }
        cdch_json *val = NULL;
        if (op != CDCH_JSON_DIFF_REMOVE) {
            int64_t vat = (int64_t)cdch_cur_pos(&s);
            uint64_t vlen = cdch_get_lenenc(&s, &bad);
            if (bad || s.overrun) {
                free(ops);
                return diff_fail(err, vat, "operation %zu (%s %.*s): value length is truncated or invalid", n,
                                 name, (int)(plen > 64 ? 64 : plen), path);
            }
            if (vlen > cdch_cur_left(&s)) {
                free(ops);
                return diff_fail(err, vat, "operation %zu (%s %.*s): value of %llu bytes but only %zu remain", n,
                                 name, (int)(plen > 64 ? 64 : plen), path, (unsigned long long)vlen,
                                 cdch_cur_left(&s));
            }
            int64_t doc_at = (int64_t)cdch_cur_pos(&s);
            const uint8_t *doc = cdch_get_bytes(&s, (size_t)vlen);
            if (cdch_json_decode(doc, (size_t)vlen, a, &val, err) < 0) {
                free(ops);
                if (err) {
                    int64_t inner = err->offset;
                    cdch_err_wrap(err, "JSON diff: operation %zu (%s %.*s) value", n, name,
                                  (int)(plen > 64 ? 64 : plen), path);
                    err->offset = inner >= 0 ? doc_at + inner : doc_at;
                }
                return -1;
            }
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 4;
            cdch_json_diff_op *nv = realloc(ops, cap * sizeof *ops);
            if (!nv) {
                fprintf(stderr, "cdcharness: out of memory decoding a JSON diff\n");
                abort();
            }
            ops = nv;
        }
        ops[n].op = op;
        ops[n].path = path;
        ops[n].path_len = (size_t)plen;
        ops[n].value = val;
        n++;
    }
    if (n) {
        out->ops = cdch_arena_alloc(a, n * sizeof *ops);
        memcpy(out->ops, ops, n * sizeof *ops);
    }
    out->count = n;
    free(ops);
    return 0;
}

void cdch_json_diff_encode(const cdch_json_diff *d, cdch_buf *out)
{
    size_t len_pos = out->len;
    cdch_put_le32(out, 0);
    cdch_buf tmp = CDCH_BUF_INIT;
    for (size_t i = 0; i < d->count; i++) {
        const cdch_json_diff_op *o = &d->ops[i];
        cdch_put_u8(out, o->op);
        cdch_put_lenenc(out, o->path_len);
        cdch_put_bytes(out, o->path, o->path_len);
        if (o->op == CDCH_JSON_DIFF_REMOVE)
            continue;
        cdch_buf_reset(&tmp);
        if (o->value) {
            cdch_json_encode(o->value, &tmp);
        } else {
            cdch_json null_node;
            memset(&null_node, 0, sizeof null_node);
            null_node.type = CDCH_JSON_NULL;
            cdch_json_encode(&null_node, &tmp);
        }
        cdch_put_lenenc(out, tmp.len);
        cdch_put_bytes(out, tmp.data, tmp.len);
    }
    cdch_buf_free(&tmp);
    cdch_buf_patch_le(out, len_pos, out->len - len_pos - 4, 4);
}

void cdch_json_diff_to_text(const cdch_json_diff *d, cdch_buf *out)
{
    cdch_put_u8(out, '[');
    for (size_t i = 0; i < d->count; i++) {
        const cdch_json_diff_op *o = &d->ops[i];
        const char *name = diff_op_name(o->op);
        if (i)
            cdch_put_u8(out, ',');
        cdch_put_str(out, "{\"op\":");
        if (name) {
            cdch_put_u8(out, '"');
            cdch_put_str(out, name);
            cdch_put_u8(out, '"');
        } else {
            cdch_buf_printf(out, "%u", (unsigned)o->op);
        }
        cdch_put_str(out, ",\"path\":");
        cdch_put_json_str(out, o->path, o->path_len, 0);
        if (o->op != CDCH_JSON_DIFF_REMOVE) {
            cdch_put_str(out, ",\"value\":");
            cdch_json_to_text(o->value, out);
        }
        cdch_put_u8(out, '}');
    }
    cdch_put_u8(out, ']');
}
