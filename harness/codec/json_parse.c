/* json_parse.c — RFC 8259 JSON text -> a JSON tree (json_binary.h):
 * strings unescaped into the arena (strict UTF-8 only), integers as
 * int64/uint64 when they fit (else doubles), object members in MySQL's key
 * order with the last of duplicate keys kept.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_binary_internal.h"
#include "jsonstr.h"
#include "xalloc.h"

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

/* After a member or element: 1 at ',' (another one follows), 0 at the
 * container's closing bracket, -1 (error naming the container) otherwise. */
static int p_next(jparse *p, char close, const char *what, size_t open)
{
    p_ws(p);
    if (p->pos < p->len && p->s[p->pos] == ',') {
        p->pos++;
        return 1;
    }
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return 0;
    }
    return p_fail(p, p->pos, "expected ',' or '%c' in the %s starting at offset %zu, found %s", close, what, open,
                  p_what(p));
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
            v = cdch_xrealloc(v, cap * sizeof *v);
        }
        v[n].m.key = key;
        v[n].m.key_len = klen;
        v[n].m.value = val;
        v[n].idx = n;
        n++;
        int more = p_next(p, '}', "object", open);
        if (more < 0) {
            free(v);
            return -1;
        }
        if (!more)
            break;
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
                v = cdch_xrealloc(v, cap * sizeof *v);
            }
            v[n++] = val;
            int more = p_next(p, ']', "array", open);
            if (more < 0) {
                free(v);
                return -1;
            }
            if (!more)
                break;
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
