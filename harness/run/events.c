/* events.c — strict JSON parser keeping raw text, and canonical change
 * event lines -> cdch_change / cdch_ctl. */
#include "events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Whether 8 bytes hold one a string cannot copy as it is: '"', '\\', a
 * control character or a non-ASCII byte. Each test is exact for "any byte
 * of the word" (a borrow can only mark bytes above one that matches). */
static inline bool word_special(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t q = x ^ (ones * (uint64_t)'"'), b = x ^ (ones * (uint64_t)'\\');
    return (((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20u) & ~x) | x) & high;
}

/* The length of the run at p of bytes copied as they are (printable ASCII
 * but '"' and '\\'): a 64 MiB value's base64 is one run, read a word at a time. */
static size_t plain_run(const char *p, const char *end)
{
    const char *q = p;
    while (end - q >= 8) {
        uint64_t x;
        memcpy(&x, q, 8);
        if (word_special(x))
            break;
        q += 8;
    }
    while (q < end) {
        unsigned char c = (unsigned char)*q;
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
            break;
        q++;
    }
    return (size_t)(q - p);
}

/* Where the string whose text starts at p ends: its closing quote (the
 * first '"' after an even run of backslashes), else end. */
static const char *string_end(const char *p, const char *end)
{
    const char *q = p;
    while (q < end && (q = memchr(q, '"', (size_t)(end - q))) != NULL) {
        size_t bs = 0;
        while (q - bs > p && q[-1 - (ptrdiff_t)bs] == '\\')
            bs++;
        if (bs % 2 == 0)
            return q;
        q++;
    }
    return end;
}

/* Parse a string at j->p (the opening quote); decoded copy in the arena. */
static int jp_string(jp *j, const char **out, size_t *out_len)
{
    j->p++; /* opening quote */
    /* the decoded string is never longer than its source text */
    const char *q = string_end(j->p, j->end);
    char *buf = cdch_arena_alloc(j->a, (size_t)(q - j->p) + 1);
    size_t n = 0;
    while (1) {
        size_t run = plain_run(j->p, j->end);
        memcpy(buf + n, j->p, run);
        n += run;
        j->p += run;
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
        for (size_t k = 0; k < l; k++)
            buf[n + k] = j->p[k];
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

/* ---- where a list's text is ------------------------------------------------- */

#define WINDOW_BYTES (256u * 1024u)  /* a read-ahead window's size */
#define SPOOL_BUFFER (64u * 1024u)   /* a spool's write buffer */
#define LOAD_BUFFER (1024u * 1024u)  /* cdch_changes_load's read size */

typedef struct intern_slot {
    uint64_t h;
    const char *s; /* NULL: empty */
    size_t len;
} intern_slot;

struct cdch_change_src {
    cdch_arena arena;   /* interned names, gtids, control messages, lines kept in memory */
    cdch_arena scratch; /* the tree of the line being added */
    intern_slot *tab;   /* db, table and pos.file names (few distinct): open addressing */
    size_t ntab, tabcap;
    const char *last_gtid; /* consecutive rows of a transaction report the same GTID: one copy */
    int fd;             /* the file the lines are read back from; -1: none */
    char *path;         /* for messages */
    uint64_t size;      /* bytes of the file that hold lines (read back from there) */
    bool spool, spool_failed;
    char *wbuf;         /* spool: the bytes after `size`, not written yet */
    size_t wlen;
};

static void oom(void)
{
    fprintf(stderr, "cdcharness: out of memory\n");
    abort();
}

cdch_change_list *cdch_changes_new(void)
{
    cdch_change_list *l = calloc(1, sizeof *l);
    cdch_change_src *src = calloc(1, sizeof *src);
    if (!l || !src)
        oom();
    src->fd = -1;
    l->src = src;
    return l;
}

void cdch_changes_free(cdch_change_list *l)
{
    if (!l)
        return;
    cdch_change_src *src = l->src;
    if (src) {
        (void)cdch_changes_flush(l);
        if (src->fd >= 0)
            close(src->fd);
        free(src->path);
        free(src->wbuf);
        free(src->tab);
        cdch_arena_free(&src->arena);
        cdch_arena_free(&src->scratch);
        free(src);
    }
    free(l->items);
    free(l->ctl);
    free(l);
}

static void *grow(void *p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return p;
    size_t ncap = *cap ? *cap * 2 : 64;
    void *q = realloc(p, ncap * elem);
    if (!q)
        oom();
    *cap = ncap;
    return q;
}

static uint64_t str_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* One copy of each distinct name. */
static const char *intern(cdch_change_src *src, const char *s)
{
    size_t n = strlen(s);
    uint64_t h = str_hash(s, n);
    if (src->ntab * 2 >= src->tabcap) {
        size_t ncap = src->tabcap ? src->tabcap * 2 : 32;
        intern_slot *t = calloc(ncap, sizeof *t);
        if (!t)
            oom();
        for (size_t i = 0; i < src->tabcap; i++) {
            if (!src->tab[i].s)
                continue;
            size_t k = (size_t)src->tab[i].h & (ncap - 1);
            while (t[k].s)
                k = (k + 1) & (ncap - 1);
            t[k] = src->tab[i];
        }
        free(src->tab);
        src->tab = t;
        src->tabcap = ncap;
    }
    size_t k = (size_t)h & (src->tabcap - 1);
    while (src->tab[k].s) {
        if (src->tab[k].h == h && src->tab[k].len == n && memcmp(src->tab[k].s, s, n) == 0)
            return src->tab[k].s;
        k = (k + 1) & (src->tabcap - 1);
    }
    src->tab[k] = (intern_slot){h, cdch_arena_memdup(&src->arena, s, n), n};
    src->ntab++;
    return src->tab[k].s;
}

static const char *keep_gtid(cdch_change_src *src, const char *g)
{
    if (!g)
        return NULL;
    if (!src->last_gtid || strcmp(src->last_gtid, g) != 0)
        src->last_gtid = cdch_arena_strdup(&src->arena, g);
    return src->last_gtid;
}

/* write(2) all of p; the bytes written (n when all were). */
static size_t write_all(int fd, const char *p, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, p + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    return done;
}

/* pread(2) up to n bytes at off; the bytes read (fewer at the end of the file), -1 on error. */
static ssize_t pread_all(int fd, char *p, size_t n, uint64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, p + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

/* A write failed: the file holds `size` bytes of lines. Lines the file does
 * not hold whole (they are in the write buffer, which starts at old) move
 * to memory, and so do all later ones. */
static void spool_fail(cdch_change_list *l, uint64_t old)
{
    cdch_change_src *src = l->src;
    src->spool_failed = true;
    for (size_t i = l->n; i-- > 0;) {
        cdch_change *c = &l->items[i];
        if (c->flags & CDCH_CHANGE_IN_MEMORY)
            continue;
        if (c->where.off + c->text_len <= src->size)
            break;
        c->where.mem = cdch_arena_memdup(&src->arena, src->wbuf + (c->where.off - old), c->text_len);
        c->flags |= CDCH_CHANGE_IN_MEMORY;
    }
    src->wlen = 0;
}

int cdch_changes_flush(cdch_change_list *l)
{
    cdch_change_src *src = l->src;
    if (!src || !src->spool)
        return 0;
    if (src->wlen && !src->spool_failed) {
        uint64_t old = src->size;
        size_t w = write_all(src->fd, src->wbuf, src->wlen);
        src->size += w;
        if (w < src->wlen)
            spool_fail(l, old);
        src->wlen = 0;
    }
    return src->spool_failed ? -1 : 0;
}

void cdch_changes_spool(cdch_change_list *l, int fd, const char *path)
{
    cdch_change_src *src = l->src;
    (void)cdch_changes_flush(l);
    if (src->fd >= 0)
        close(src->fd);
    free(src->path);
    src->fd = fd;
    src->path = strdup(path ? path : "(spool)");
    off_t end = lseek(fd, 0, SEEK_END);
    src->size = end > 0 ? (uint64_t)end : 0;
    src->spool = true;
    src->spool_failed = end < 0;
    if (!src->wbuf && !(src->wbuf = malloc(SPOOL_BUFFER)))
        oom();
    src->wlen = 0;
}

/* Append line + '\n' to the spool: the line's offset in the file, or
 * UINT64_MAX when it is kept in memory (the spool failed). */
static uint64_t spool_append(cdch_change_list *l, const char *line, size_t len)
{
    cdch_change_src *src = l->src;
    if (src->spool_failed)
        return UINT64_MAX;
    if (src->wlen + len + 1 > SPOOL_BUFFER && cdch_changes_flush(l) != 0)
        return UINT64_MAX;
    uint64_t at = src->size + src->wlen;
    if (len + 1 > SPOOL_BUFFER) { /* a long line: written as it is (the buffer is empty) */
        size_t w = write_all(src->fd, line, len);
        if (w == len)
            w += write_all(src->fd, "\n", 1);
        src->size += w;
        if (w < len + 1) {
            spool_fail(l, at);
            return UINT64_MAX;
        }
        return at;
    }
    memcpy(src->wbuf + src->wlen, line, len);
    src->wbuf[src->wlen + len] = '\n';
    src->wlen += len + 1;
    return at;
}

/* ---- change lines ------------------------------------------------------------- */

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

/* The images of a change line's object (NULL where null or absent); a
 * reason when one is neither an object nor null. */
static const char *images_of(const cdch_jv *o, const cdch_jv **before, const cdch_jv **after)
{
    const char *img[2] = {"before", "after"};
    const cdch_jv **dst[2] = {before, after};
    for (int i = 0; i < 2; i++) {
        const cdch_jv *v = cdch_jv_get(o, img[i]);
        if (!v || v->type == CDCH_JV_NULL)
            *dst[i] = NULL;
        else if (v->type == CDCH_JV_OBJECT)
            *dst[i] = v;
        else
            return i == 0 ? "\"before\" must be an object or null" : "\"after\" must be an object or null";
    }
    return NULL;
}

/* Fill c from object o (its strings still point into o's tree); returns a
 * reason on failure. */
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
    const cdch_jv *before, *after;
    const char *why = images_of(o, &before, &after);
    if (why)
        return why;
    c->flags = (uint8_t)((before ? CDCH_CHANGE_BEFORE : 0u) | (after ? CDCH_CHANGE_AFTER : 0u));
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
    c->compressed = (int8_t)(!cm ? -1 : cm->type == CDCH_JV_TRUE ? 1 : cm->type == CDCH_JV_FALSE ? 0 : -1);
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

/* Add one line whose text is at offset `at` of the list's file (UINT64_MAX:
 * kept in memory). */
static int add_line_at(cdch_change_list *l, const char *line, size_t len, bool strict, uint64_t at, cdch_err *err)
{
    cdch_change_src *src = l->src;
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
    if (len > UINT32_MAX)
        return reject(l, line, len, "line longer than 4 GiB", strict, err);
    cdch_arena_reset(&src->scratch);
    cdch_jv *o;
    cdch_err perr;
    if (cdch_jv_parse(line, len, &src->scratch, &o, &perr) != 0) {
        char why[CDCH_ERR_MSG_MAX + 32];
        snprintf(why, sizeof why, "invalid JSON (%s)", perr.msg);
        return reject(l, line, len, why, strict, err);
    }
    bool bad = false;
    const char *kind = str_member(o, "kind", &bad);
    if (kind) {
        l->ctl = grow(l->ctl, &l->ctlcap, l->nctl, sizeof *l->ctl);
        cdch_ctl *c = &l->ctl[l->nctl++];
        c->kind = strcmp(kind, "ready") == 0          ? CDCH_CTL_READY
                  : strcmp(kind, "error") == 0        ? CDCH_CTL_ERROR
                  : strcmp(kind, "config") == 0       ? CDCH_CTL_CONFIG
                  : strcmp(kind, "config-error") == 0 ? CDCH_CTL_CONFIG_ERROR
                                                      : CDCH_CTL_OTHER;
        const char *m = str_member(o, "message", &bad);
        c->message = m && m[0] ? cdch_arena_strdup(&src->arena, m) : "";
        if (c->kind == CDCH_CTL_CONFIG) /* kept whole: the report shows the effective configuration */
            c->message = cdch_arena_memdup(&src->arena, line, len); /* NUL-terminated */
        c->at = l->n;
        c->line = l->lines;
        return 0;
    }
    cdch_change ch;
    memset(&ch, 0, sizeof ch);
    const char *why = to_change(o, &ch);
    if (why)
        return reject(l, line, len, why, strict, err);
    ch.db = intern(src, ch.db);
    ch.table = intern(src, ch.table);
    ch.pos_file = ch.pos_file ? intern(src, ch.pos_file) : NULL;
    ch.gtid = keep_gtid(src, ch.gtid);
    ch.line = l->lines;
    ch.text_len = (uint32_t)len;
    if (at == UINT64_MAX) {
        ch.where.mem = cdch_arena_memdup(&src->arena, line, len);
        ch.flags |= CDCH_CHANGE_IN_MEMORY;
    } else {
        ch.where.off = at;
    }
    l->items = grow(l->items, &l->cap, l->n, sizeof *l->items);
    l->items[l->n++] = ch;
    return 0;
}

int cdch_changes_add_line(cdch_change_list *l, const char *line, size_t len, bool strict, cdch_err *err)
{
    uint64_t at = l->src->spool ? spool_append(l, line, len) : UINT64_MAX;
    return add_line_at(l, line, len, strict, at, err);
}

cdch_change_list *cdch_changes_load(const char *path, cdch_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cdch_err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    cdch_change_list *l = cdch_changes_new();
    cdch_change_src *src = l->src;
    src->fd = fd;
    if (!(src->path = strdup(path)))
        oom();
    size_t cap = LOAD_BUFFER, have = 0, seen = 0; /* buf[0..seen): searched, no newline */
    char *buf = malloc(cap);
    if (!buf)
        oom();
    uint64_t base = 0; /* file offset of buf[0] */
    for (;;) {
        ssize_t n = read(fd, buf + have, cap - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cdch_err_set(err, "%s: read error", path);
            goto fail;
        }
        have += (size_t)n;
        size_t start = 0, from = seen;
        for (;;) {
            char *nl = memchr(buf + from, '\n', have - from);
            if (!nl)
                break;
            size_t len = (size_t)(nl - (buf + start)) + 1;
            if (add_line_at(l, buf + start, len, true, base + start, err) != 0)
                goto bad_line;
            start += len;
            from = start;
        }
        if (n == 0) { /* the end: a last line without its newline */
            if (start < have && add_line_at(l, buf + start, have - start, true, base + start, err) != 0)
                goto bad_line;
            base += have;
            break;
        }
        memmove(buf, buf + start, have - start);
        base += start;
        have -= start;
        seen = have;
        if (have == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                oom();
            buf = nb;
            cap *= 2;
        }
    }
    free(buf);
    src->size = base;
    cdch_arena_free(&src->scratch);
    return l;
bad_line:
    cdch_err_wrap(err, "%s: ", path);
fail:
    free(buf);
    cdch_changes_free(l);
    return NULL;
}

const cdch_ctl *cdch_changes_error_after(const cdch_change_list *l, size_t at)
{
    for (size_t i = 0; i < l->nctl; i++)
        if (l->ctl[i].kind == CDCH_CTL_ERROR && l->ctl[i].at >= at)
            return &l->ctl[i];
    return NULL;
}

/* ---- text and images on demand ------------------------------------------------ */

void cdch_change_window_free(cdch_change_window *w)
{
    if (!w)
        return;
    free(w->buf);
    *w = (cdch_change_window)CDCH_CHANGE_WINDOW_INIT;
}

static _Noreturn void lost_line(const cdch_change_list *l, const cdch_change *c, const char *why)
{
    fprintf(stderr, "cdcharness: line %llu of %s cannot be read back: %s\n", (unsigned long long)c->line,
            l->src && l->src->path ? l->src->path : "(a list)", why);
    abort();
}

const char *cdch_change_text(const cdch_change_list *l, const cdch_change *c, cdch_change_window *w, cdch_arena *a,
                             size_t *len)
{
    size_t n = c->text_len;
    *len = n;
    if (c->flags & CDCH_CHANGE_IN_MEMORY)
        return c->where.mem;
    const cdch_change_src *src = l->src;
    uint64_t off = c->where.off;
    if (!src || src->fd < 0)
        lost_line(l, c, "the list has no file");
    if (src->spool && off >= src->size) { /* not written out yet */
        if (off - src->size + n > src->wlen)
            lost_line(l, c, "beyond the spool");
        return cdch_arena_memdup(a, src->wbuf + (off - src->size), n);
    }
    if (off + n > src->size)
        lost_line(l, c, "beyond the end of the file");
    if (!w || n > WINDOW_BYTES) { /* a long line is read straight into a: no copy through the window */
        char *p = cdch_arena_alloc(a, n + 1);
        if (pread_all(src->fd, p, n, off) != (ssize_t)n)
            lost_line(l, c, "the file is shorter than it was");
        p[n] = '\0';
        return p;
    }
    if (w->src != src || off < w->off || off + n > w->off + w->len) {
        size_t want = WINDOW_BYTES;
        if (want > src->size - off)
            want = (size_t)(src->size - off);
        if (!w->buf) {
            w->cap = WINDOW_BYTES;
            if (!(w->buf = malloc(w->cap)))
                oom();
        }
        w->src = src;
        w->off = off;
        ssize_t r = pread_all(src->fd, w->buf, want, off);
        w->len = r > 0 ? (size_t)r : 0;
        if (w->len < n) {
            w->src = NULL;
            lost_line(l, c, "the file is shorter than it was");
        }
    }
    return cdch_arena_memdup(a, w->buf + (off - w->off), n);
}

void cdch_change_images_get(const cdch_change_list *l, const cdch_change *c, cdch_change_window *w, cdch_arena *a,
                            cdch_change_images *out)
{
    size_t n;
    const char *text = cdch_change_text(l, c, w, a, &n);
    cdch_jv *o;
    cdch_err err;
    if (cdch_jv_parse(text, n, a, &o, &err) != 0)
        lost_line(l, c, "it no longer parses");
    if (images_of(o, &out->before, &out->after) != NULL || !out->before != !cdch_change_has_before(c) ||
        !out->after != !cdch_change_has_after(c))
        lost_line(l, c, "its images are not what they were");
    out->text = text;
    out->text_len = n;
}
