/* json_binary.c — MySQL binary JSON -> tree, and tree equality. See
 * json_binary.h for the contract; the other directions live in
 * json_binary_write.c (tree -> binary), json_text.c (tree -> text),
 * json_parse.c (text -> tree) and json_diff.c (partial-update diffs).
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
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cursor.h"
#include "json_binary_internal.h"

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
        j->u.i = (int16_t)cdch_le(p, 2);
        return 0;
    case JB_INT32:
        j->type = CDCH_JSON_INT;
        j->u.i = (int32_t)cdch_le(p, 4);
        return 0;
    case JB_INT64:
        j->type = CDCH_JSON_INT;
        j->u.i = (int64_t)cdch_le(p, 8);
        return 0;
    case JB_UINT16:
        j->type = CDCH_JSON_UINT;
        j->u.u = cdch_le(p, 2);
        return 0;
    case JB_UINT32:
        j->type = CDCH_JSON_UINT;
        j->u.u = cdch_le(p, 4);
        return 0;
    case JB_UINT64:
        j->type = CDCH_JSON_UINT;
        j->u.u = cdch_le(p, 8);
        return 0;
    case JB_DOUBLE:
        j->type = CDCH_JSON_DOUBLE;
        j->u.d = jb_double_from_bits(cdch_le(p, 8));
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
    uint64_t count = cdch_le(p, osz);
    uint64_t bytes = cdch_le(p + osz, osz);
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
            uint64_t koff = cdch_le(ke, osz);
            uint64_t klen = cdch_le(ke + osz, 2);
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
            uint64_t voff = cdch_le(ve + 1, osz);
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
    *out = NULL; /* set on every path, failure included */
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
    case CDCH_JSON_DOUBLE: return x->u.d == y->u.d || jb_double_bits(x->u.d) == jb_double_bits(y->u.d);
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
