/* events.c — strict JSON parser keeping raw text, and canonical change
 * event lines -> cdch_change / cdch_ctl. */
#include "events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON parser ------------------------------------------------------------ */

typedef struct jp {
    const char *s, *p, *end;
    cdch_arena *a;
    cdch_err *err;
    int depth;
} jp;

static int jp_fail(jp *j, const char *what)
{
    size_t off = (size_t)(j->p - j->s);
    if (j->p >= j->end)
        cdch_err_set(j->err, "column %zu: %s, found end of line", off + 1, what);
    else
        cdch_err_set(j->err, "column %zu: %s, found '%c'", off + 1, what,
                     (unsigned char)*j->p >= 0x20 && (unsigned char)*j->p < 0x7f ? *j->p : '?');
    if (j->err)
        j->err->offset = (int64_t)off;
    return -1;
}

static void jp_ws(jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int read_hex4(jp *j, unsigned *out)
{
    if (j->end - j->p < 4)
        return jp_fail(j, "expected 4 hex digits after \\u");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(j->p[i]);
        if (h < 0) {
            j->p += i;
            return jp_fail(j, "expected a hex digit in \\u escape");
        }
        v = v << 4 | (unsigned)h;
    }
    j->p += 4;
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Length of a valid UTF-8 sequence at p (1..4), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        n = 2;
        min = 0x80;
        c &= 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        min = 0x800;
        c &= 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        min = 0x10000;
        c &= 0x07;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    return n;
}

/* Parse a string at j->p (the opening quote); decoded copy in the arena. */
static int jp_string(jp *j, const char **out, size_t *out_len)
{
    j->p++; /* opening quote */
    /* the decoded string is never longer than its source text */
    const char *q = j->p;
    while (q < j->end && *q != '"') {
        if (*q == '\\' && q + 1 < j->end)
            q++;
        q++;
    }
    char *buf = cdch_arena_alloc(j->a, (size_t)(q - j->p) + 1);
    size_t n = 0;
    while (1) {
        if (j->p >= j->end)
            return jp_fail(j, "unterminated string");
        unsigned char c = (unsigned char)*j->p;
        if (c == '"') {
            j->p++;
            break;
        }
        if (c < 0x20)
            return jp_fail(j, "control character in string (escape it)");
        if (c == '\\') {
            j->p++;
            if (j->p >= j->end)
                return jp_fail(j, "unterminated escape");
            char e = *j->p++;
            switch (e) {
            case '"': buf[n++] = '"'; break;
            case '\\': buf[n++] = '\\'; break;
            case '/': buf[n++] = '/'; break;
            case 'b': buf[n++] = '\b'; break;
            case 'f': buf[n++] = '\f'; break;
            case 'n': buf[n++] = '\n'; break;
            case 'r': buf[n++] = '\r'; break;
            case 't': buf[n++] = '\t'; break;
            case 'u': {
                unsigned cp;
                if (read_hex4(j, &cp) != 0)
                    return -1;
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    unsigned lo;
                    if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
                        return jp_fail(j, "expected a low surrogate \\uDC00-\\uDFFF after a high surrogate");
                    j->p += 2;
                    if (read_hex4(j, &lo) != 0)
                        return -1;
                    if (lo < 0xdc00 || lo > 0xdfff)
                        return jp_fail(j, "expected a low surrogate \\uDC00-\\uDFFF after a high surrogate");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                    return jp_fail(j, "lone low surrogate in \\u escape");
                }
                n += put_utf8(buf + n, cp);
                break;
            }
            default:
                j->p--;
                return jp_fail(j, "unknown escape");
            }
            continue;
        }
        size_t l = utf8_len((const unsigned char *)j->p, (const unsigned char *)j->end);
        if (l == 0)
            return jp_fail(j, "invalid UTF-8 in string");
        memcpy(buf + n, j->p, l);
        n += l;
        j->p += l;
    }
    buf[n] = '\0';
    *out = buf;
    *out_len = n;
    return 0;
}

static int jp_number(jp *j)
{
    const char *p = j->p;
    if (p < j->end && *p == '-')
        p++;
    if (p >= j->end || !(*p >= '0' && *p <= '9')) {
        j->p = p;
        return jp_fail(j, "expected a digit");
    }
    if (*p == '0')
        p++;
    else
        while (p < j->end && *p >= '0' && *p <= '9')
            p++;
    if (p < j->end && *p == '.') {
        p++;
        if (p >= j->end || !(*p >= '0' && *p <= '9')) {
            j->p = p;
            return jp_fail(j, "expected a digit after '.'");
        }
        while (p < j->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < j->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < j->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= j->end || !(*p >= '0' && *p <= '9')) {
            j->p = p;
            return jp_fail(j, "expected a digit in the exponent");
        }
        while (p < j->end && *p >= '0' && *p <= '9')
            p++;
    }
    j->p = p;
    return 0;
}

static int jp_value(jp *j, cdch_jv **out);

static int jp_value(jp *j, cdch_jv **out)
{
    jp_ws(j);
    if (j->p >= j->end)
        return jp_fail(j, "expected a value");
    cdch_jv *v = cdch_arena_alloc(j->a, sizeof *v);
    v->raw = j->p;
    char c = *j->p;
    if (c == '{' || c == '[') {
        if (++j->depth > CDCH_JV_MAX_DEPTH)
            return jp_fail(j, "nesting too deep");
    }
    if (c == '{') {
        j->p++;
        v->type = CDCH_JV_OBJECT;
        size_t cap = 0;
        jp_ws(j);
        if (j->p < j->end && *j->p == '}') {
            j->p++;
        } else {
            while (1) {
                jp_ws(j);
                if (j->p >= j->end || *j->p != '"')
                    return jp_fail(j, "expected a member name (string)");
                const char *key;
                size_t klen;
                if (jp_string(j, &key, &klen) != 0)
                    return -1;
                jp_ws(j);
                if (j->p >= j->end || *j->p != ':')
                    return jp_fail(j, "expected ':'");
                j->p++;
                cdch_jv *mv;
                if (jp_value(j, &mv) != 0)
                    return -1;
                if (v->u.obj.n == cap) {
                    size_t ncap = cap ? cap * 2 : 8;
                    cdch_jv_member *m = cdch_arena_alloc(j->a, ncap * sizeof *m);
                    if (cap)
                        memcpy(m, v->u.obj.m, cap * sizeof *m);
                    v->u.obj.m = m;
                    cap = ncap;
                }
                v->u.obj.m[v->u.obj.n++] = (cdch_jv_member){key, klen, mv};
                jp_ws(j);
                if (j->p < j->end && *j->p == ',') {
                    j->p++;
                    continue;
                }
                if (j->p < j->end && *j->p == '}') {
                    j->p++;
                    break;
                }
                return jp_fail(j, "expected ',' or '}'");
            }
        }
        j->depth--;
    } else if (c == '[') {
        j->p++;
        v->type = CDCH_JV_ARRAY;
        size_t cap = 0;
        jp_ws(j);
        if (j->p < j->end && *j->p == ']') {
            j->p++;
        } else {
            while (1) {
                cdch_jv *item;
                if (jp_value(j, &item) != 0)
                    return -1;
                if (v->u.arr.n == cap) {
                    size_t ncap = cap ? cap * 2 : 8;
                    cdch_jv **it = cdch_arena_alloc(j->a, ncap * sizeof *it);
                    if (cap)
                        memcpy(it, v->u.arr.items, cap * sizeof *it);
                    v->u.arr.items = it;
                    cap = ncap;
                }
                v->u.arr.items[v->u.arr.n++] = item;
                jp_ws(j);
                if (j->p < j->end && *j->p == ',') {
                    j->p++;
                    continue;
                }
                if (j->p < j->end && *j->p == ']') {
                    j->p++;
                    break;
                }
                return jp_fail(j, "expected ',' or ']'");
            }
        }
        j->depth--;
    } else if (c == '"') {
        v->type = CDCH_JV_STRING;
        if (jp_string(j, &v->u.str.ptr, &v->u.str.len) != 0)
            return -1;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        v->type = CDCH_JV_NUMBER;
        if (jp_number(j) != 0)
            return -1;
    } else if (j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
        v->type = CDCH_JV_NULL;
        j->p += 4;
    } else if (j->end - j->p >= 4 && memcmp(j->p, "true", 4) == 0) {
        v->type = CDCH_JV_TRUE;
        j->p += 4;
    } else if (j->end - j->p >= 5 && memcmp(j->p, "false", 5) == 0) {
        v->type = CDCH_JV_FALSE;
        j->p += 5;
    } else {
        return jp_fail(j, "expected a value");
    }
    v->raw_len = (size_t)(j->p - v->raw);
    *out = v;
    return 0;
}

int cdch_jv_parse(const char *s, size_t len, cdch_arena *a, cdch_jv **out, cdch_err *err)
{
    jp j = {s, s, s + len, a, err, 0};
    if (jp_value(&j, out) != 0)
        return -1;
    jp_ws(&j);
    if (j.p != j.end)
        return jp_fail(&j, "expected end of line after the value");
    return 0;
}

const cdch_jv *cdch_jv_get(const cdch_jv *obj, const char *key)
{
    if (!obj || obj->type != CDCH_JV_OBJECT)
        return NULL;
    size_t kl = strlen(key);
    for (size_t i = 0; i < obj->u.obj.n; i++)
        if (obj->u.obj.m[i].key_len == kl && memcmp(obj->u.obj.m[i].key, key, kl) == 0)
            return obj->u.obj.m[i].value;
    return NULL;
}

/* ---- change events ---------------------------------------------------------- */

const char *cdch_op_name(cdch_op op)
{
    switch (op) {
    case CDCH_OP_INSERT: return "insert";
    case CDCH_OP_UPDATE: return "update";
    case CDCH_OP_DELETE: return "delete";
    }
    return "?";
}

cdch_change_list *cdch_changes_new(void)
{
    cdch_change_list *l = calloc(1, sizeof *l);
    if (!l) {
        fprintf(stderr, "cdcharness: out of memory\n");
        abort();
    }
    return l;
}

void cdch_changes_free(cdch_change_list *l)
{
    if (!l)
        return;
    free(l->items);
    free(l->ctl);
    cdch_arena_free(&l->arena);
    free(l);
}

static void *grow(void *p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return p;
    size_t ncap = *cap ? *cap * 2 : 64;
    void *q = realloc(p, ncap * elem);
    if (!q) {
        fprintf(stderr, "cdcharness: out of memory\n");
        abort();
    }
    *cap = ncap;
    return q;
}

/* A string member, or NULL (absent or null); -1 via *bad when of another type. */
static const char *str_member(const cdch_jv *o, const char *key, bool *bad)
{
    const cdch_jv *v = cdch_jv_get(o, key);
    if (!v || v->type == CDCH_JV_NULL)
        return NULL;
    if (v->type != CDCH_JV_STRING) {
        *bad = true;
        return NULL;
    }
    return v->u.str.ptr;
}

static int parse_uint(const cdch_jv *v, uint64_t *out)
{
    if (!v || v->type != CDCH_JV_NUMBER || v->raw[0] == '-')
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < v->raw_len; i++) {
        char c = v->raw[i];
        if (c < '0' || c > '9')
            return -1;
        if (x > (UINT64_MAX - 9) / 10)
            return -1;
        x = x * 10 + (uint64_t)(c - '0');
    }
    *out = x;
    return 0;
}

/* Fill c from object o; returns a reason on failure. */
static const char *to_change(const cdch_jv *o, cdch_change *c)
{
    bool bad = false;
    const char *op = str_member(o, "op", &bad);
    if (!op)
        return "no \"op\" (insert|update|delete) and no \"kind\"";
    if (strcmp(op, "insert") == 0)
        c->op = CDCH_OP_INSERT;
    else if (strcmp(op, "update") == 0)
        c->op = CDCH_OP_UPDATE;
    else if (strcmp(op, "delete") == 0)
        c->op = CDCH_OP_DELETE;
    else
        return "\"op\" is not insert, update or delete";
    c->db = str_member(o, "db", &bad);
    c->table = str_member(o, "table", &bad);
    if (bad || !c->db || !c->table)
        return "\"db\" and \"table\" must be strings";
    const char *img[2] = {"before", "after"};
    const cdch_jv **dst[2] = {&c->before, &c->after};
    for (int i = 0; i < 2; i++) {
        const cdch_jv *v = cdch_jv_get(o, img[i]);
        if (!v || v->type == CDCH_JV_NULL)
            *dst[i] = NULL;
        else if (v->type == CDCH_JV_OBJECT)
            *dst[i] = v;
        else
            return i == 0 ? "\"before\" must be an object or null" : "\"after\" must be an object or null";
    }
    c->gtid = str_member(o, "gtid", &bad);
    if (bad)
        return "\"gtid\" must be a string or null";
    if (c->gtid && !c->gtid[0])
        c->gtid = NULL;
    c->pos_file = NULL;
    c->pos = -1;
    const cdch_jv *pos = cdch_jv_get(o, "pos");
    if (pos && pos->type == CDCH_JV_OBJECT) {
        const char *f = str_member(pos, "file", &bad);
        const cdch_jv *pv = cdch_jv_get(pos, "pos");
        uint64_t p;
        if (bad)
            return "\"pos.file\" must be a string";
        if (pv && pv->type != CDCH_JV_NULL) {
            if (parse_uint(pv, &p) != 0 || p > INT64_MAX)
                return "\"pos.pos\" must be a non-negative integer";
            c->pos = (int64_t)p;
            c->pos_file = f ? f : "";
        }
    } else if (pos && pos->type != CDCH_JV_NULL) {
        return "\"pos\" must be an object {\"file\",\"pos\"} or null";
    }
    c->txn = 0;
    const cdch_jv *t = cdch_jv_get(o, "txn");
    if (t && t->type != CDCH_JV_NULL && parse_uint(t, &c->txn) != 0)
        return "\"txn\" must be a non-negative integer";
    const cdch_jv *cm = cdch_jv_get(o, "compressed");
    c->compressed = !cm ? -1 : cm->type == CDCH_JV_TRUE ? 1 : cm->type == CDCH_JV_FALSE ? 0 : -1;
    return NULL;
}

static int reject(cdch_change_list *l, const char *line, size_t len, const char *why, bool strict, cdch_err *err)
{
    if (strict)
        return cdch_err_set(err, "line %llu: %s", (unsigned long long)l->lines, why);
    if (l->invalid++ == 0) {
        l->first_invalid_line = l->lines;
        snprintf(l->first_invalid, sizeof l->first_invalid, "line %llu: %s: %.*s", (unsigned long long)l->lines,
                 why, (int)(len > 120 ? 120 : len), line);
    }
    return 0;
}

int cdch_changes_add_line(cdch_change_list *l, const char *line, size_t len, bool strict, cdch_err *err)
{
    l->lines++;
    while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i == len)
        return 0;
    if (line[i] != '{')
        return reject(l, line, len, "not a JSON object", strict, err);
    char *text = cdch_arena_memdup(&l->arena, line, len);
    cdch_jv *o;
    cdch_err perr;
    if (cdch_jv_parse(text, len, &l->arena, &o, &perr) != 0) {
        char why[CDCH_ERR_MSG_MAX + 32];
        snprintf(why, sizeof why, "invalid JSON (%s)", perr.msg);
        return reject(l, line, len, why, strict, err);
    }
    bool bad = false;
    const char *kind = str_member(o, "kind", &bad);
    if (kind) {
        l->ctl = grow(l->ctl, &l->ctlcap, l->nctl, sizeof *l->ctl);
        cdch_ctl *c = &l->ctl[l->nctl++];
        c->kind = strcmp(kind, "ready") == 0 ? CDCH_CTL_READY : strcmp(kind, "error") == 0 ? CDCH_CTL_ERROR
                                                                                          : CDCH_CTL_OTHER;
        const char *m = str_member(o, "message", &bad);
        c->message = m ? m : "";
        c->at = l->n;
        c->line = l->lines;
        return 0;
    }
    cdch_change ch;
    memset(&ch, 0, sizeof ch);
    const char *why = to_change(o, &ch);
    if (why)
        return reject(l, line, len, why, strict, err);
    ch.line = l->lines;
    ch.text = text;
    ch.text_len = len;
    l->items = grow(l->items, &l->cap, l->n, sizeof *l->items);
    l->items[l->n++] = ch;
    return 0;
}

cdch_change_list *cdch_changes_load(const char *path, cdch_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cdch_err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    cdch_change_list *l = cdch_changes_new();
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        if (cdch_changes_add_line(l, line, (size_t)n, true, err) != 0) {
            cdch_err_wrap(err, "%s: ", path);
            free(line);
            fclose(f);
            cdch_changes_free(l);
            return NULL;
        }
    }
    int rerr = ferror(f);
    free(line);
    fclose(f);
    if (rerr) {
        cdch_err_set(err, "%s: read error", path);
        cdch_changes_free(l);
        return NULL;
    }
    return l;
}

const cdch_ctl *cdch_changes_error_after(const cdch_change_list *l, size_t at)
{
    for (size_t i = 0; i < l->nctl; i++)
        if (l->ctl[i].kind == CDCH_CTL_ERROR && l->ctl[i].at >= at)
            return &l->ctl[i];
    return NULL;
}
