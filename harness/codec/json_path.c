/* json_path.c — MySQL JSON paths ($, .key, ."quoted key", [n]) and the
 * replace/insert/remove operations a PARTIAL_UPDATE_ROWS diff carries,
 * applied to a tree to get the full after value (used by scenarios to
 * build the after image, and by the reference consumer to rebuild the
 * document a partial update describes).
 *
 * Semantics follow JSON_REPLACE / JSON_SET / JSON_REMOVE as MySQL logs them:
 * replace and remove need an existing path; insert needs the parent to
 * exist and, for an object member, the member not to exist; an array
 * index at or past the end appends.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <stdbool.h>
#include <stdint.h>

#include "json_binary.h"

typedef struct leg {
    bool is_index;
    const char *key; /* unescaped, arena */
    size_t klen;
    uint64_t idx;
} leg;

#define MAX_LEGS 100

static bool ident_start(unsigned char c) { return isalpha(c) || c == '_' || c == '$' || c >= 0x80; }
static bool ident_char(unsigned char c) { return isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

static int parse_path(cdch_arena *a, const char *s, size_t len, leg *legs, size_t *nlegs, cdch_err *err)
{
    size_t i = 0, n = 0;
    while (i < len && s[i] == ' ')
        i++;
    if (i >= len || s[i] != '$')
        return cdch_err_set(err, "JSON path '%.*s' must start with '$'", (int)len, s);
    i++;
    while (i < len) {
        if (s[i] == ' ') {
            i++;
            continue;
        }
        if (n == MAX_LEGS)
            return cdch_err_set(err, "JSON path '%.*s' has more than %d legs", (int)len, s, MAX_LEGS);
        leg *l = &legs[n];
        memset(l, 0, sizeof *l);
        if (s[i] == '.') {
            i++;
            if (i < len && s[i] == '"') {
                cdch_buf b = CDCH_BUF_INIT;
                i++;
                while (i < len && s[i] != '"') {
                    if (s[i] == '\\' && i + 1 < len)
                        i++;
                    cdch_put_u8(&b, (uint8_t)s[i++]);
                }
                if (i >= len) {
                    cdch_buf_free(&b);
                    return cdch_err_set(err, "JSON path '%.*s': unterminated quoted member name", (int)len, s);
                }
                i++;
                l->key = cdch_arena_memdup(a, b.data ? (const void *)b.data : "", b.len);
                l->klen = b.len;
                cdch_buf_free(&b);
            } else {
                size_t st = i;
                if (i < len && ident_start((unsigned char)s[i]))
                    while (i < len && ident_char((unsigned char)s[i]))
                        i++;
                if (i == st)
                    return cdch_err_set(err, "JSON path '%.*s': expected a member name after '.' at character %zu",
                                        (int)len, s, st + 1);
                l->key = cdch_arena_memdup(a, s + st, i - st);
                l->klen = i - st;
            }
        } else if (s[i] == '[') {
            i++;
            while (i < len && s[i] == ' ')
                i++;
            if (i >= len || !isdigit((unsigned char)s[i]))
                return cdch_err_set(err, "JSON path '%.*s': expected an array index after '[' at character %zu",
                                    (int)len, s, i + 1);
            uint64_t v = 0;
            while (i < len && isdigit((unsigned char)s[i])) {
                if (v > UINT32_MAX)
                    return cdch_err_set(err, "JSON path '%.*s': array index too large", (int)len, s);
                v = v * 10 + (uint64_t)(s[i++] - '0');
            }
            while (i < len && s[i] == ' ')
                i++;
            if (i >= len || s[i] != ']')
                return cdch_err_set(err, "JSON path '%.*s': expected ']' at character %zu", (int)len, s, i + 1);
            i++;
            l->is_index = true;
            l->idx = v;
        } else {
            return cdch_err_set(err, "JSON path '%.*s': unexpected '%c' at character %zu (supported: $, .key, "
                                     ".\"key\", [n])",
                                (int)len, s, s[i], i + 1);
        }
        n++;
    }
    *nlegs = n;
    return 0;
}

static void print_path(cdch_buf *b, const leg *legs, size_t n)
{
    cdch_put_u8(b, '$');
    for (size_t k = 0; k < n; k++) {
        const leg *l = &legs[k];
        if (l->is_index) {
            cdch_buf_printf(b, "[%" PRIu64 "]", l->idx);
            continue;
        }
        bool plain = l->klen > 0 && ident_start((unsigned char)l->key[0]);
        for (size_t i = 0; plain && i < l->klen; i++)
            plain = ident_char((unsigned char)l->key[i]);
        cdch_put_u8(b, '.');
        if (plain) {
            cdch_put_bytes(b, l->key, l->klen);
        } else {
            cdch_put_u8(b, '"');
            for (size_t i = 0; i < l->klen; i++) {
                if (l->key[i] == '"' || l->key[i] == '\\')
                    cdch_put_u8(b, '\\');
                cdch_put_u8(b, (uint8_t)l->key[i]);
            }
            cdch_put_u8(b, '"');
        }
    }
}

cdch_json *cdch_json_copy(cdch_arena *a, const cdch_json *j)
{
    if (!j)
        return NULL;
    cdch_json *c = cdch_arena_alloc(a, sizeof *c);
    *c = *j;
    switch (j->type) {
    case CDCH_JSON_STRING:
        c->u.str.ptr = cdch_arena_memdup(a, j->u.str.ptr, j->u.str.len);
        break;
    case CDCH_JSON_OPAQUE:
        c->u.opaque.data = cdch_arena_memdup(a, j->u.opaque.data, j->u.opaque.len);
        break;
    case CDCH_JSON_OBJECT:
        c->u.obj.members = j->u.obj.count ? cdch_arena_alloc(a, j->u.obj.count * sizeof(cdch_json_member)) : NULL;
        for (size_t i = 0; i < j->u.obj.count; i++) {
            c->u.obj.members[i].key = cdch_arena_memdup(a, j->u.obj.members[i].key, j->u.obj.members[i].key_len);
            c->u.obj.members[i].key_len = j->u.obj.members[i].key_len;
            c->u.obj.members[i].value = cdch_json_copy(a, j->u.obj.members[i].value);
        }
        break;
    case CDCH_JSON_ARRAY:
        c->u.arr.items = j->u.arr.count ? cdch_arena_alloc(a, j->u.arr.count * sizeof(cdch_json *)) : NULL;
        for (size_t i = 0; i < j->u.arr.count; i++)
            c->u.arr.items[i] = cdch_json_copy(a, j->u.arr.items[i]);
        break;
    default: break;
    }
    return c;
}

/* MySQL key order: length, then bytes. */
static int key_cmp(const char *k1, size_t n1, const char *k2, size_t n2)
{
    if (n1 != n2)
        return n1 < n2 ? -1 : 1;
    return n1 ? memcmp(k1, k2, n1) : 0;
}

typedef struct apply_ctx {
    cdch_arena *a;
    int op;
    cdch_json *value;
    const char *path; /* canonical, for messages */
    cdch_err *err;
} apply_ctx;

static const char *type_name(const cdch_json *j)
{
    switch (j ? j->type : CDCH_JSON_NULL) {
    case CDCH_JSON_OBJECT: return "an object";
    case CDCH_JSON_ARRAY: return "an array";
    case CDCH_JSON_STRING: return "a string";
    case CDCH_JSON_NULL: return "null";
    default: return "a scalar";
    }
}

static cdch_json *apply(apply_ctx *x, const cdch_json *node, const leg *legs, size_t n, size_t depth);

/* A member leg: node must be an object; the copy c gets the member
 * replaced, removed or inserted (last leg) or rebuilt below (inner leg). */
static cdch_json *apply_member(apply_ctx *x, const cdch_json *node, cdch_json *c, const leg *legs, size_t n,
                               size_t depth)
{
    const leg *l = &legs[0];
    bool last = n == 1;
    if (node->type != CDCH_JSON_OBJECT) {
        cdch_err_set(x->err, "JSON path '%s' does not exist: leg %zu needs an object but the value is %s",
                     x->path, depth + 1, type_name(node));
        return NULL;
    }
    size_t cnt = node->u.obj.count, at = cnt;
    bool found = false;
    for (size_t i = 0; i < cnt; i++) {
        int k = key_cmp(node->u.obj.members[i].key, node->u.obj.members[i].key_len, l->key, l->klen);
        if (k == 0) {
            at = i;
            found = true;
            break;
        }
        if (k > 0) {
            at = i;
            break;
        }
    }
    if (!found && (!last || x->op != CDCH_JSON_DIFF_INSERT)) {
        cdch_err_set(x->err, "JSON path '%s' does not exist in the before value (no member '%.*s')%s", x->path,
                     (int)l->klen, l->key, last ? "; use op: insert to add it" : "");
        return NULL;
    }
    if (found && last && x->op == CDCH_JSON_DIFF_INSERT) {
        cdch_err_set(x->err, "JSON path '%s' already exists: use op: replace", x->path);
        return NULL;
    }
    size_t ncnt = cnt + (last && x->op == CDCH_JSON_DIFF_INSERT) - (last && x->op == CDCH_JSON_DIFF_REMOVE);
    cdch_json_member *m = ncnt ? cdch_arena_alloc(x->a, ncnt * sizeof *m) : NULL;
    size_t k = 0;
    for (size_t i = 0; i < cnt; i++) {
        if (i == at) {
            if (last && x->op == CDCH_JSON_DIFF_INSERT) {
                m[k].key = l->key;
                m[k].key_len = l->klen;
                m[k++].value = x->value;
            } else if (last && x->op == CDCH_JSON_DIFF_REMOVE) {
                continue;
            } else if (last) {
                m[k] = node->u.obj.members[i];
                m[k++].value = x->value;
                continue;
            } else {
                m[k] = node->u.obj.members[i];
                m[k].value = apply(x, node->u.obj.members[i].value, legs + 1, n - 1, depth + 1);
                if (!m[k++].value)
                    return NULL;
                continue;
            }
        }
        m[k++] = node->u.obj.members[i];
    }
    if (at == cnt && last && x->op == CDCH_JSON_DIFF_INSERT) {
        m[k].key = l->key;
        m[k].key_len = l->klen;
        m[k++].value = x->value;
    }
    c->u.obj.members = m;
    c->u.obj.count = k;
    return c;
}

/* An array-index leg: node must be an array (an insert past the end
 * appends). */
static cdch_json *apply_element(apply_ctx *x, const cdch_json *node, cdch_json *c, const leg *legs, size_t n,
                                size_t depth)
{
    const leg *l = &legs[0];
    bool last = n == 1;
    if (node->type != CDCH_JSON_ARRAY) {
        cdch_err_set(x->err, "JSON path '%s' does not exist: leg %zu needs an array but the value is %s", x->path,
                     depth + 1, type_name(node));
        return NULL;
    }
    size_t cnt = node->u.arr.count;
    uint64_t idx = l->idx;
    if (idx >= cnt && !(last && x->op == CDCH_JSON_DIFF_INSERT)) {
        cdch_err_set(x->err, "JSON path '%s' does not exist in the before value (the array has %zu elements)",
                     x->path, cnt);
        return NULL;
    }
    if (last && x->op == CDCH_JSON_DIFF_INSERT && idx > cnt)
        idx = cnt; /* past the end: append */
    size_t ncnt = cnt + (last && x->op == CDCH_JSON_DIFF_INSERT) - (last && x->op == CDCH_JSON_DIFF_REMOVE);
    cdch_json **items = ncnt ? cdch_arena_alloc(x->a, ncnt * sizeof *items) : NULL;
    size_t k = 0;
    for (size_t i = 0; i <= cnt; i++) {
        if (i == idx) {
            if (last && x->op == CDCH_JSON_DIFF_INSERT) {
                items[k++] = x->value;
            } else if (last && x->op == CDCH_JSON_DIFF_REMOVE) {
                continue;
            } else if (last) {
                items[k++] = x->value;
                continue;
            } else {
                items[k] = apply(x, node->u.arr.items[i], legs + 1, n - 1, depth + 1);
                if (!items[k++])
                    return NULL;
                continue;
            }
        }
        if (i < cnt)
            items[k++] = node->u.arr.items[i];
    }
    c->u.arr.items = items;
    c->u.arr.count = k;
    return c;
}

/* A copy of node with the path legs[0..n) changed as x says (copies
 * along the path, shares the rest); NULL with x->err set when the path
 * does not fit the document. */
static cdch_json *apply(apply_ctx *x, const cdch_json *node, const leg *legs, size_t n, size_t depth)
{
    cdch_json *c = cdch_arena_alloc(x->a, sizeof *c);
    *c = *node;
    if (!legs[0].is_index)
        return apply_member(x, node, c, legs, n, depth);
    return apply_element(x, node, c, legs, n, depth);
}

int cdch_json_path_apply(cdch_arena *a, cdch_json *root, int op, const char *path, size_t path_len, cdch_json *value,
                  cdch_json **out, const char **canon, cdch_err *err)
{
    leg legs[MAX_LEGS];
    size_t n = 0;
    if (parse_path(a, path, path_len, legs, &n, err) < 0)
        return -1;
    cdch_buf b = CDCH_BUF_INIT;
    print_path(&b, legs, n);
    *canon = cdch_arena_memdup(a, b.data, b.len);
    cdch_buf_free(&b);
    if (n == 0) {
        if (op == CDCH_JSON_DIFF_REPLACE) {
            *out = value;
            return 0;
        }
        return cdch_err_set(err, "JSON path '$' (the whole document) can only be replaced");
    }
    if (!root)
        return cdch_err_set(err, "JSON path '%s': the before value is empty", *canon);
    apply_ctx x = {a, op, value, *canon, err};
    *out = apply(&x, root, legs, n, 0);
    return *out ? 0 : -1;
}

int cdch_json_diff_apply(cdch_arena *a, const cdch_json *doc, const cdch_json_diff *diff, cdch_json **out,
                         cdch_err *err)
{
    cdch_json *cur = cdch_json_copy(a, doc);
    for (size_t i = 0; i < diff->count; i++) {
        const cdch_json_diff_op *op = &diff->ops[i];
        const char *canon;
        if (cdch_json_path_apply(a, cur, op->op, op->path, op->path_len, op->value, &cur, &canon, err) != 0)
            return -1;
    }
    *out = cur;
    return 0;
}
