/* json_binary_write.c — tree -> MySQL binary JSON (json_binary.h).
 *
 * Encoding mirrors json_binary::serialize(): every container is first
 * written in the small format; if a count, offset or size does not fit
 * 16 bits it is rolled back and rewritten in the large format (a child
 * of a small parent that overflows makes the parent overflow too, so it
 * is the parent that switches). Inlined values are written with
 * write_offset_or_size(), i.e. as a 2-byte (small) or 4-byte (large)
 * little-endian field — an inlined int16 in a large container is
 * therefore sign-extended to 4 bytes (-5 -> fb ff ff ff). Object
 * members are written in MySQL key order even if a hand-built tree
 * stores them otherwise (duplicates: the last one is kept), because
 * MySQL's binary lookups binary-search the keys. Keys over 65535 bytes
 * or documents over 4 GiB (MySQL errors) abort with a message.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_binary_internal.h"

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
        cdch_put_le64(b, jb_double_bits(j->u.d));
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
