/* json_diff.c — the partial-update diff vector of a JSON column
 * (json_binary.h; Json_diff_vector::write_binary / read_binary in MySQL's
 * sql/json_diff.cc): decode, encode, and JSON text.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "json_binary_internal.h"
#include "jsonstr.h"
#include "xalloc.h"

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
            ops = cdch_xrealloc(ops, cap * sizeof *ops);
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
