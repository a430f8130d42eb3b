/* diff.c — judge observed change events against the expected ones (paired
 * by pair.c): compare values by column type, check checkpoints, find
 * missing transactions (see diff.h). */
#include "diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "announce.h"
#include "buf.h"
#include "gtid.h"
#include "mysql_types.h"
#include "pair.h"
#include "run_internal.h"
#include "xalloc.h"

#define xcalloc cdch_xcalloc
#define xrealloc cdch_xrealloc
#define xstrdup cdch_xstrdup

#define NONE ((size_t)-1)

/* ---- hashing ------------------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t hstr(const char *s) { return run_fnv1a(RUN_FNV1A_INIT, s, strlen(s)); }

/* A GTID's text, case-insensitively (UUIDs are written in either case). */
static uint64_t gtid_hash(const char *s)
{
    uint64_t h = RUN_FNV1A_INIT;
    for (; *s; s++) {
        char ch = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
        h = run_fnv1a(h, &ch, 1);
    }
    return mix(h);
}

/* ---- schema ------------------------------------------------------------------- */

typedef struct sch_table {
    char *db, *name;
    size_t ncols;
    char **names;
    cdch_cmp_kind *kinds;
    int *scales;
    char ***labels; /* per column: ENUM/SET member names, NULL-terminated; NULL when none */
    unsigned char *pk; /* per column: part of the primary key; NULL when unknown */
} sch_table;

struct cdch_diff_schema {
    sch_table *t;
    size_t n;
    size_t *slot; /* open addressing: index into t, NONE = empty */
    size_t nslot;
};

cdch_diff_schema *cdch_diff_schema_new(void) { return xcalloc(1, sizeof(cdch_diff_schema)); }

static uint64_t table_hash(const char *db, const char *table)
{
    return mix(run_fnv1a(run_fnv1a(RUN_FNV1A_INIT, db, strlen(db) + 1), table, strlen(table)));
}

static void schema_rehash(cdch_diff_schema *s)
{
    free(s->slot);
    s->nslot = 16;
    while (s->nslot < s->n * 2)
        s->nslot *= 2;
    s->slot = xcalloc(s->nslot, sizeof *s->slot);
    for (size_t i = 0; i < s->nslot; i++)
        s->slot[i] = NONE;
    for (size_t i = 0; i < s->n; i++) {
        size_t h = (size_t)table_hash(s->t[i].db, s->t[i].name) & (s->nslot - 1);
        while (s->slot[h] != NONE)
            h = (h + 1) & (s->nslot - 1);
        s->slot[h] = i;
    }
}

void cdch_diff_schema_add_table(cdch_diff_schema *s, const char *db, const char *table, size_t ncols,
                                const char *const *names, const cdch_cmp_kind *kinds, const int *scales)
{
    s->t = xrealloc(s->t, (s->n + 1) * sizeof *s->t);
    sch_table *t = &s->t[s->n++];
    t->db = xstrdup(db);
    t->name = xstrdup(table);
    t->ncols = ncols;
    t->names = xcalloc(ncols, sizeof *t->names);
    t->kinds = xcalloc(ncols, sizeof *t->kinds);
    t->scales = xcalloc(ncols, sizeof *t->scales);
    t->labels = NULL;
    t->pk = NULL;
    for (size_t i = 0; i < ncols; i++) {
        t->names[i] = xstrdup(names[i]);
        t->kinds[i] = kinds[i];
        t->scales[i] = scales ? scales[i] : -1;
    }
    schema_rehash(s);
}

static const sch_table *schema_find(const cdch_diff_schema *s, const char *db, const char *table)
{
    if (!s || !s->n)
        return NULL;
    size_t h = (size_t)table_hash(db, table) & (s->nslot - 1);
    while (s->slot[h] != NONE) {
        const sch_table *t = &s->t[s->slot[h]];
        if (strcmp(t->db, db) == 0 && strcmp(t->name, table) == 0)
            return t;
        h = (h + 1) & (s->nslot - 1);
    }
    return NULL;
}

void cdch_diff_schema_free(cdch_diff_schema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        sch_table *t = &s->t[i];
        for (size_t c = 0; c < t->ncols; c++) {
            free(t->names[c]);
            for (size_t k = 0; t->labels && t->labels[c] && t->labels[c][k]; k++)
                free(t->labels[c][k]);
            if (t->labels)
                free(t->labels[c]);
        }
        free(t->labels);
        free(t->pk);
        free(t->names);
        free(t->kinds);
        free(t->scales);
        free(t->db);
        free(t->name);
    }
    free(s->t);
    free(s->slot);
    free(s);
}

static cdch_cmp_kind kind_of_coldef(const cdch_coldef *d, int *scale)
{
    *scale = -1;
    uint8_t rt = d->real_type ? d->real_type : d->type;
    switch (d->type) {
    case CDCH_T_TINY:
    case CDCH_T_SHORT:
    case CDCH_T_LONG:
    case CDCH_T_LONGLONG:
    case CDCH_T_INT24:
    case CDCH_T_YEAR:
    case CDCH_T_BIT:
        return CDCH_CMP_INT;
    case CDCH_T_NEWDECIMAL:
    case CDCH_T_DECIMAL:
        *scale = d->meta & 0xff;
        return CDCH_CMP_DECIMAL;
    case CDCH_T_FLOAT: return CDCH_CMP_FLOAT;
    case CDCH_T_DOUBLE: return CDCH_CMP_DOUBLE;
    case CDCH_T_DATE:
    case CDCH_T_NEWDATE:
    case CDCH_T_DATETIME:
    case CDCH_T_DATETIME2:
    case CDCH_T_TIMESTAMP:
    case CDCH_T_TIMESTAMP2:
        return CDCH_CMP_TEMPORAL;
    case CDCH_T_TIME:
    case CDCH_T_TIME2:
        return CDCH_CMP_TIME;
    case CDCH_T_JSON: return CDCH_CMP_JSON;
    case CDCH_T_GEOMETRY: return CDCH_CMP_GEOMETRY;
    case CDCH_T_VECTOR: return CDCH_CMP_VECTOR;
    case CDCH_T_SET: return CDCH_CMP_SET;
    case CDCH_T_ENUM: return CDCH_CMP_EXACT;
    default:
        if (rt == CDCH_T_SET)
            return CDCH_CMP_SET;
        return CDCH_CMP_EXACT;
    }
}

cdch_diff_schema *cdch_diff_schema_from_scenario(const cdch_scenario *sc)
{
    cdch_diff_schema *s = cdch_diff_schema_new();
    for (size_t i = 0; sc && i < sc->ntables; i++) {
        const cdch_sc_table *t = &sc->tables[i];
        const char **names = xcalloc(t->ncols, sizeof *names);
        cdch_cmp_kind *kinds = xcalloc(t->ncols, sizeof *kinds);
        int *scales = xcalloc(t->ncols, sizeof *scales);
        for (size_t c = 0; c < t->ncols; c++) {
            names[c] = t->cols[c].name;
            kinds[c] = kind_of_coldef(&t->cols[c].def, &scales[c]);
            const char *st = t->cols[c].sql_type;
            if (st && strncmp(st, "binary(", 7) == 0 && t->cols[c].char_length) {
                kinds[c] = CDCH_CMP_BINARY_FIXED;
                scales[c] = (int)t->cols[c].char_length;
            }
        }
        cdch_diff_schema_add_table(s, t->db, t->name, t->ncols, names, kinds, scales);
        sch_table *st = &s->t[s->n - 1];
        st->labels = xcalloc(t->ncols, sizeof *st->labels);
        st->pk = xcalloc(t->ncols ? t->ncols : 1, 1);
        for (size_t c = 0; c < t->ncols; c++)
            st->pk[c] = t->cols[c].primary_key;
        for (size_t c = 0; c < t->ncols; c++) {
            const cdch_coldef *d = &t->cols[c].def;
            if (!d->labels || (d->real_type != CDCH_T_ENUM && d->real_type != CDCH_T_SET))
                continue;
            st->labels[c] = xcalloc(d->nlabels + 1, sizeof *st->labels[c]);
            for (size_t k = 0; k < d->nlabels; k++)
                st->labels[c][k] = xstrdup(d->labels[k] ? d->labels[k] : "");
        }
        free(names);
        free(kinds);
        free(scales);
    }
    return s;
}

/* ---- value normalisation ------------------------------------------------------- */

/* The text of a scalar: number text or string content. */
static bool scalar_text(const cdch_jv *v, const char **p, size_t *n)
{
    if (v->type == CDCH_JV_NUMBER) {
        *p = v->raw;
        *n = v->raw_len;
        return true;
    }
    if (v->type == CDCH_JV_STRING) {
        *p = v->u.str.ptr;
        *n = v->u.str.len;
        return true;
    }
    return false;
}

/* Decimal text (plain or with exponent) -> canonical with `scale` fraction
 * digits where trailing zeros allow (scale < 0: no trailing zeros). */
static bool norm_decimal_text(const char *p, size_t n, int scale, char *out, size_t outsz)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (p[i] == '-' || p[i] == '+')) {
        neg = p[i] == '-';
        i++;
    }
    char digits[512];
    size_t nd = 0, nint = 0;
    bool any = false, point = false;
    for (; i < n; i++) {
        char c = p[i];
        if (c >= '0' && c <= '9') {
            if (nd + 1 >= sizeof digits)
                return false;
            digits[nd++] = c;
            if (!point)
                nint++;
            any = true;
        } else if (c == '.' && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (!any)
        return false;
    long exp = 0;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (p[i] == '+' || p[i] == '-')) {
            eneg = p[i] == '-';
            i++;
        }
        if (i == n)
            return false;
        for (; i < n; i++) {
            if (p[i] < '0' || p[i] > '9')
                return false;
            exp = exp * 10 + (p[i] - '0');
            if (exp > 400)
                return false;
        }
        if (eneg)
            exp = -exp;
    }
    if (i != n)
        return false;
    long pointpos = (long)nint + exp; /* digits before the point */
    char ip[1024], fp[1024];
    size_t ni = 0, nf = 0;
    for (long k = 0; k < pointpos; k++) {
        if (ni + 1 >= sizeof ip)
            return false;
        ip[ni++] = k < (long)nd ? digits[k] : '0';
    }
    for (long k = pointpos < 0 ? pointpos : 0; k < 0; k++) {
        if (nf + 1 >= sizeof fp)
            return false;
        fp[nf++] = '0';
    }
    for (long k = pointpos < 0 ? 0 : pointpos; k < (long)nd; k++) {
        if (nf + 1 >= sizeof fp)
            return false;
        fp[nf++] = digits[k];
    }
    size_t is = 0;
    while (is < ni && ip[is] == '0')
        is++;
    size_t keep = scale < 0 ? 0 : (size_t)scale;
    while (nf > keep && fp[nf - 1] == '0')
        nf--;
    while (nf < keep) {
        if (nf + 1 >= sizeof fp)
            return false;
        fp[nf++] = '0';
    }
    bool zero = true;
    for (size_t k = is; k < ni; k++)
        zero = zero && ip[k] == '0';
    for (size_t k = 0; k < nf; k++)
        zero = zero && fp[k] == '0';
    size_t need = 1 + (ni - is) + 1 + 1 + nf + 1;
    if (need > outsz)
        return false;
    size_t o = 0;
    if (neg && !zero)
        out[o++] = '-';
    if (is == ni)
        out[o++] = '0';
    else {
        memcpy(out + o, ip + is, ni - is);
        o += ni - is;
    }
    if (nf) {
        out[o++] = '.';
        memcpy(out + o, fp, nf);
        o += nf;
    }
    out[o] = '\0';
    return true;
}

/* An integer, by its exact value: a JSON number or a decimal string whose decimal
 * value is an integer ("10", "1E+1" as Jackson writes a BigDecimal, "10.0",
 * "100e-1") -> canonical ("-0" -> "0", no leading zeros). Compared as decimal
 * text, never through a double: BIGINT UNSIGNED exceeds 2^53. "10.5" is not
 * an integer. */
static bool norm_int(const cdch_jv *v, char *out, size_t outsz)
{
    const char *p;
    size_t n;
    if (!scalar_text(v, &p, &n) || n == 0)
        return false;
    /* a JSON number's grammar, strings too: [-]digits[.digits][(e|E)[+|-]digits] */
    size_t i = p[0] == '-';
    if (i >= n || p[i] < '0' || p[i] > '9')
        return false;
    const char *dot = memchr(p, '.', n);
    if (dot && (dot + 1 == p + n || dot[1] < '0' || dot[1] > '9'))
        return false;
    if (!norm_decimal_text(p, n, -1, out, outsz))
        return false;
    return strchr(out, '.') == NULL;
}

static bool norm_decimal(const cdch_jv *v, int scale, char *out, size_t outsz)
{
    const char *p;
    size_t n;
    if (!scalar_text(v, &p, &n))
        return false;
    return norm_decimal_text(p, n, scale, out, outsz);
}

/* Temporal string: fraction trailing zeros dropped; TIME: hour leading zeros too. */
static bool norm_temporal(const cdch_jv *v, bool is_time, cdch_buf *out)
{
    if (v->type != CDCH_JV_STRING)
        return false;
    const char *p = v->u.str.ptr;
    size_t n = v->u.str.len;
    cdch_buf_reset(out);
    size_t i = 0;
    if (is_time) {
        if (i < n && p[i] == '-') {
            cdch_put_u8(out, '-');
            i++;
        }
        while (i + 1 < n && p[i] == '0' && p[i + 1] >= '0' && p[i + 1] <= '9')
            i++;
    }
    const char *dot = memchr(p + i, '.', n - i);
    size_t end = n;
    if (dot) {
        while (end > (size_t)(dot - p) + 1 && p[end - 1] == '0')
            end--;
        if (end == (size_t)(dot - p) + 1)
            end--;
    }
    cdch_put_bytes(out, p + i, end - i);
    cdch_buf_cstr(out);
    return true;
}

static bool is_int_text(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] == '.' || p[i] == 'e' || p[i] == 'E')
            return false;
    return n > 0;
}

/* A number given as a JSON number or a decimal string ("1.5", "-2e3"):
 * never "inf", "NaN", "Infinity" or hex, which strtod would also take. A
 * value beyond the double range (1e999) reads as infinite. */
static bool num_value(const cdch_jv *v, double *out)
{
    const char *p;
    size_t n;
    if (!scalar_text(v, &p, &n) || n == 0 || n > 400)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || p[i] == '-' || p[i] == '+' || p[i] == '.' || p[i] == 'e' ||
              p[i] == 'E'))
            return false;
    char tmp[410];
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    char *end;
    double d = strtod(tmp, &end);
    if (end != tmp + n)
        return false;
    *out = d;
    return true;
}

/* Equal within rel. A non-finite value (an overflow such as 1e999) equals
 * nothing: MySQL stores no infinities or NaN, so the expected value is
 * always finite and an infinite observed one is wrong (inf - x is inf, and
 * inf <= rel * inf would otherwise pass). */
static bool close_enough(double a, double b, double rel)
{
    if (!isfinite(a) || !isfinite(b))
        return false;
    if (a == b)
        return true;
    double m = fmax(fabs(a), fabs(b));
    return fabs(a - b) <= rel * m;
}

/* ---- structural comparison ---------------------------------------------------------- */

static bool num_equal(const cdch_jv *x, const cdch_jv *y, double rel)
{
    char a[512], b[512];
    if (is_int_text(x->raw, x->raw_len) && is_int_text(y->raw, y->raw_len) && norm_int(x, a, sizeof a) &&
        norm_int(y, b, sizeof b))
        return strcmp(a, b) == 0;
    double dx, dy;
    return num_value(x, &dx) && num_value(y, &dy) && close_enough(dx, dy, rel);
}

/* Structural equality: objects by key regardless of order, numbers by value. */
static bool jv_equal(const cdch_jv *x, const cdch_jv *y)
{
    if (x->type != y->type)
        return false;
    switch (x->type) {
    case CDCH_JV_NULL:
    case CDCH_JV_TRUE:
    case CDCH_JV_FALSE:
        return true;
    case CDCH_JV_NUMBER: return num_equal(x, y, 1e-15);
    case CDCH_JV_STRING:
        return x->u.str.len == y->u.str.len && memcmp(x->u.str.ptr, y->u.str.ptr, x->u.str.len) == 0;
    case CDCH_JV_ARRAY:
        if (x->u.arr.n != y->u.arr.n)
            return false;
        for (size_t i = 0; i < x->u.arr.n; i++)
            if (!jv_equal(x->u.arr.items[i], y->u.arr.items[i]))
                return false;
        return true;
    case CDCH_JV_OBJECT:
        if (x->u.obj.n != y->u.obj.n)
            return false;
        for (size_t i = 0; i < x->u.obj.n; i++) {
            const cdch_jv_member *m = &x->u.obj.m[i];
            const cdch_jv *o = NULL;
            if (i < y->u.obj.n && y->u.obj.m[i].key_len == m->key_len &&
                memcmp(y->u.obj.m[i].key, m->key, m->key_len) == 0)
                o = y->u.obj.m[i].value;
            for (size_t k = 0; !o && k < y->u.obj.n; k++)
                if (y->u.obj.m[k].key_len == m->key_len && memcmp(y->u.obj.m[k].key, m->key, m->key_len) == 0)
                    o = y->u.obj.m[k].value;
            if (!o || !jv_equal(m->value, o))
                return false;
        }
        return true;
    }
    return false;
}

static int cmp_jv_str(const void *a, const void *b)
{
    const cdch_jv *x = *(const cdch_jv *const *)a, *y = *(const cdch_jv *const *)b;
    size_t n = x->u.str.len < y->u.str.len ? x->u.str.len : y->u.str.len;
    int c = memcmp(x->u.str.ptr, y->u.str.ptr, n);
    return c ? c : (x->u.str.len > y->u.str.len) - (x->u.str.len < y->u.str.len);
}

static bool all_strings(const cdch_jv *a)
{
    for (size_t i = 0; i < a->u.arr.n; i++)
        if (a->u.arr.items[i]->type != CDCH_JV_STRING)
            return false;
    return true;
}

static bool set_equal(const cdch_jv *x, const cdch_jv *y)
{
    if (x->type != CDCH_JV_ARRAY || y->type != CDCH_JV_ARRAY || x->u.arr.n != y->u.arr.n || !all_strings(x) ||
        !all_strings(y))
        return jv_equal(x, y);
    size_t n = x->u.arr.n;
    if (n == 0)
        return true;
    const cdch_jv **a = xcalloc(n, sizeof *a), **b = xcalloc(n, sizeof *b);
    memcpy(a, x->u.arr.items, n * sizeof *a);
    memcpy(b, y->u.arr.items, n * sizeof *b);
    qsort(a, n, sizeof *a, cmp_jv_str);
    qsort(b, n, sizeof *b, cmp_jv_str);
    bool eq = true;
    for (size_t i = 0; eq && i < n; i++)
        eq = a[i]->u.str.len == b[i]->u.str.len && memcmp(a[i]->u.str.ptr, b[i]->u.str.ptr, a[i]->u.str.len) == 0;
    free(a);
    free(b);
    return eq;
}

static bool geometry_equal(const cdch_jv *x, const cdch_jv *y)
{
    if (x->type != CDCH_JV_OBJECT || y->type != CDCH_JV_OBJECT)
        return jv_equal(x, y);
    const cdch_jv *sx = cdch_jv_get(x, "srid"), *sy = cdch_jv_get(y, "srid");
    const cdch_jv *wx = cdch_jv_get(x, "wkb"), *wy = cdch_jv_get(y, "wkb");
    if (!sx || !sy || !wx || !wy || x->u.obj.n != 2 || y->u.obj.n != 2 || wx->type != CDCH_JV_STRING ||
        wy->type != CDCH_JV_STRING)
        return jv_equal(x, y);
    char a[64], b[64];
    if (!norm_int(sx, a, sizeof a) || !norm_int(sy, b, sizeof b) || strcmp(a, b) != 0)
        return false;
    if (wx->u.str.len != wy->u.str.len)
        return false;
    for (size_t i = 0; i < wx->u.str.len; i++) {
        char c1 = wx->u.str.ptr[i], c2 = wy->u.str.ptr[i];
        if (c1 >= 'A' && c1 <= 'F')
            c1 = (char)(c1 - 'A' + 'a');
        if (c2 >= 'A' && c2 <= 'F')
            c2 = (char)(c2 - 'A' + 'a');
        if (c1 != c2)
            return false;
    }
    return true;
}

/* {"base64":"..."} -> bytes (false when v is not that shape or not base64). */
static bool b64_bytes(const cdch_jv *v, cdch_buf *out)
{
    const cdch_jv *b = v && v->type == CDCH_JV_OBJECT && v->u.obj.n == 1 ? cdch_jv_get(v, "base64") : NULL;
    if (!b || b->type != CDCH_JV_STRING)
        return false;
    cdch_buf_reset(out);
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < b->u.str.len; i++) {
        char ch = b->u.str.ptr[i];
        int d = ch >= 'A' && ch <= 'Z' ? ch - 'A' : ch >= 'a' && ch <= 'z' ? ch - 'a' + 26
              : ch >= '0' && ch <= '9' ? ch - '0' + 52 : ch == '+' ? 62 : ch == '/' ? 63 : ch == '=' ? -2 : -1;
        if (d == -2)
            break;
        if (d < 0)
            return false;
        acc = acc << 6 | (uint32_t)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            cdch_put_u8(out, (uint8_t)(acc >> bits));
        }
    }
    return true;
}

/* BINARY(n): the bytes, or the bytes right-padded with 0x00 to exactly n. */
static bool binary_fixed_equal(int n, const cdch_jv *e, const cdch_jv *o)
{
    cdch_buf be = CDCH_BUF_INIT, bo = CDCH_BUF_INIT;
    bool eq = false;
    if (b64_bytes(e, &be) && b64_bytes(o, &bo)) {
        eq = be.len == bo.len && memcmp(be.data, bo.data, be.len) == 0;
        if (!eq && n > 0 && bo.len == (size_t)n && be.len < bo.len && memcmp(be.data, bo.data, be.len) == 0) {
            eq = true;
            for (size_t i = be.len; i < bo.len; i++)
                eq = eq && bo.data[i] == 0;
        }
    } else {
        eq = jv_equal(e, o);
    }
    cdch_buf_free(&be);
    cdch_buf_free(&bo);
    return eq;
}

bool cdch_diff_value_equal(cdch_cmp_kind k, int scale, const cdch_jv *e, const cdch_jv *o)
{
    if (!e || !o)
        return e == o;
    if (e->type == CDCH_JV_NULL || o->type == CDCH_JV_NULL)
        return e->type == o->type;
    char a[1100], b[1100];
    double x, y;
    switch (k) {
    case CDCH_CMP_INT: /* by exact decimal value (norm_int) */
        if (norm_int(e, a, sizeof a))
            return norm_int(o, b, sizeof b) && strcmp(a, b) == 0;
        break;
    case CDCH_CMP_DECIMAL:
        if ((e->type == CDCH_JV_STRING || e->type == CDCH_JV_NUMBER) && norm_decimal(e, scale, a, sizeof a))
            return (o->type == CDCH_JV_STRING || o->type == CDCH_JV_NUMBER) && norm_decimal(o, scale, b, sizeof b) &&
                   strcmp(a, b) == 0;
        break;
    case CDCH_CMP_FLOAT:
    case CDCH_CMP_DOUBLE:
        if (num_value(e, &x) && num_value(o, &y))
            return close_enough(x, y, k == CDCH_CMP_FLOAT ? 1e-6 : 1e-15);
        break;
    case CDCH_CMP_TEMPORAL:
    case CDCH_CMP_TIME: {
        cdch_buf ba = CDCH_BUF_INIT, bb = CDCH_BUF_INIT;
        bool ok = norm_temporal(e, k == CDCH_CMP_TIME, &ba) && norm_temporal(o, k == CDCH_CMP_TIME, &bb);
        bool eq = ok && ba.len == bb.len && memcmp(ba.data, bb.data, ba.len) == 0;
        cdch_buf_free(&ba);
        cdch_buf_free(&bb);
        if (ok)
            return eq;
        break;
    }
    case CDCH_CMP_SET: return set_equal(e, o);
    case CDCH_CMP_GEOMETRY: return geometry_equal(e, o);
    case CDCH_CMP_BINARY_FIXED: return binary_fixed_equal(scale, e, o);
    case CDCH_CMP_VECTOR:
        if (e->type == CDCH_JV_ARRAY && o->type == CDCH_JV_ARRAY) {
            if (e->u.arr.n != o->u.arr.n)
                return false;
            for (size_t i = 0; i < e->u.arr.n; i++)
                if (!cdch_diff_value_equal(CDCH_CMP_FLOAT, -1, e->u.arr.items[i], o->u.arr.items[i]))
                    return false;
            return true;
        }
        break;
    case CDCH_CMP_JSON:
    case CDCH_CMP_EXACT:
    case CDCH_CMP_GENERIC:
        break;
    }
    return jv_equal(e, o);
}

/* ---- value hashing (for the alignment keys) ---------------------------------------------- */

static uint64_t jv_hash(const cdch_jv *v)
{
    char t[512];
    switch (v->type) {
    case CDCH_JV_NULL: return 0x6e;
    case CDCH_JV_TRUE: return 0x74;
    case CDCH_JV_FALSE: return 0x66;
    case CDCH_JV_NUMBER:
        if (is_int_text(v->raw, v->raw_len) && norm_int(v, t, sizeof t))
            return mix(hstr(t));
        return 0x7e; /* compared with a tolerance: not hashed */
    case CDCH_JV_STRING: return mix(run_fnv1a(RUN_FNV1A_INIT ^ 0x73, v->u.str.ptr, v->u.str.len));
    case CDCH_JV_ARRAY: {
        uint64_t h = 0x5b;
        for (size_t i = 0; i < v->u.arr.n; i++)
            h = mix(h ^ jv_hash(v->u.arr.items[i]));
        return h;
    }
    case CDCH_JV_OBJECT: {
        uint64_t h = 0x7b;
        for (size_t i = 0; i < v->u.obj.n; i++)
            h += mix(run_fnv1a(RUN_FNV1A_INIT, v->u.obj.m[i].key, v->u.obj.m[i].key_len) ^ jv_hash(v->u.obj.m[i].value));
        return mix(h);
    }
    }
    return 0;
}

static uint64_t value_hash(cdch_cmp_kind k, int scale, const cdch_jv *v)
{
    if (v->type == CDCH_JV_NULL)
        return 0x6e;
    char t[1100];
    switch (k) {
    case CDCH_CMP_INT:
        if (norm_int(v, t, sizeof t))
            return mix(hstr(t));
        break;
    case CDCH_CMP_DECIMAL:
        if ((v->type == CDCH_JV_STRING || v->type == CDCH_JV_NUMBER) && norm_decimal(v, scale, t, sizeof t))
            return mix(hstr(t) ^ 0x64);
        break;
    case CDCH_CMP_TEMPORAL:
    case CDCH_CMP_TIME: {
        cdch_buf b = CDCH_BUF_INIT;
        uint64_t h = 0;
        bool ok = norm_temporal(v, k == CDCH_CMP_TIME, &b);
        if (ok)
            h = mix(run_fnv1a(RUN_FNV1A_INIT ^ 0x73, b.data, b.len));
        cdch_buf_free(&b);
        if (ok)
            return h;
        break;
    }
    case CDCH_CMP_SET:
        if (v->type == CDCH_JV_ARRAY) {
            uint64_t h = 0x53;
            for (size_t i = 0; i < v->u.arr.n; i++)
                h += jv_hash(v->u.arr.items[i]);
            return mix(h);
        }
        break;
    case CDCH_CMP_BINARY_FIXED: {
        cdch_buf b = CDCH_BUF_INIT;
        uint64_t h = 0;
        bool ok = b64_bytes(v, &b);
        if (ok) {
            while (b.len && b.data[b.len - 1] == 0) /* padded or not: the same key */
                b.len--;
            h = mix(run_fnv1a(RUN_FNV1A_INIT ^ 0x62, b.data, b.len));
        }
        cdch_buf_free(&b);
        if (ok)
            return h;
        break;
    }
    case CDCH_CMP_FLOAT:
    case CDCH_CMP_DOUBLE:
    case CDCH_CMP_JSON:
    case CDCH_CMP_VECTOR:
    case CDCH_CMP_GEOMETRY:
        return 0x7e; /* present, compared with tolerance / structurally: not hashed */
    case CDCH_CMP_EXACT:
    case CDCH_CMP_GENERIC:
        break;
    }
    return jv_hash(v);
}

/* ---- rows --------------------------------------------------------------------------------- */

/* A member resolved against the schema. */
typedef struct rcol {
    const char *name; /* canonical name */
    size_t idx;       /* column index, NONE when unknown */
    cdch_cmp_kind kind;
    int scale;
    char *const *labels; /* ENUM/SET member names, NULL-terminated, or NULL */
    const cdch_jv *v;
} rcol;

static void resolve(const sch_table *t, const cdch_jv_member *m, size_t pos, rcol *out)
{
    out->name = m->key;
    out->idx = NONE;
    out->kind = CDCH_CMP_GENERIC;
    out->scale = -1;
    out->labels = NULL;
    out->v = m->value;
    if (!t)
        return;
    size_t idx = NONE;
    if (m->key[0] == '@' && m->key[1] >= '1' && m->key[1] <= '9') {
        char *end;
        unsigned long n = strtoul(m->key + 1, &end, 10);
        if (*end == '\0' && n >= 1 && n <= t->ncols)
            idx = n - 1;
    }
    if (idx == NONE && pos < t->ncols && strcmp(t->names[pos], m->key) == 0)
        idx = pos;
    for (size_t i = 0; idx == NONE && i < t->ncols; i++)
        if (strcmp(t->names[i], m->key) == 0)
            idx = i;
    if (idx == NONE)
        return;
    out->idx = idx;
    out->name = t->names[idx];
    out->kind = t->kinds[idx];
    out->scale = t->scales[idx];
    out->labels = t->labels ? t->labels[idx] : NULL;
}

/* A consumer that has no ENUM/SET member names (MINIMAL row metadata and no
 * catalogue lookup) can only report the stored number: the 1-based ENUM
 * index or the SET bitmap. That number denotes the same member(s) and is
 * accepted when it does, by the column's member list. */
static bool member_number_equal(char *const *labels, const cdch_jv *e, const cdch_jv *o)
{
    if (!labels || !e || !o)
        return false;
    /* a number, or a decimal string for bitmaps beyond the signed 64-bit range */
    const char *txt = o->type == CDCH_JV_NUMBER ? o->raw : o->type == CDCH_JV_STRING ? o->u.str.ptr : NULL;
    size_t tlen = o->type == CDCH_JV_NUMBER ? o->raw_len : o->type == CDCH_JV_STRING ? o->u.str.len : 0;
    if (!txt || tlen == 0 || tlen > 20)
        return false;
    char num[24];
    memcpy(num, txt, tlen);
    num[tlen] = '\0';
    char *end;
    unsigned long long v = strtoull(num, &end, 10);
    if (*end != '\0' || num[0] == '-')
        return false;
    size_t n = 0;
    while (labels[n])
        n++;
    if (e->type == CDCH_JV_STRING) { /* ENUM */
        if (v == 0)
            return e->u.str.len == 0;
        return v <= n && strcmp(labels[v - 1], e->u.str.ptr) == 0;
    }
    if (e->type == CDCH_JV_ARRAY) { /* SET: the bitmap's members, in member order */
        size_t k = 0;
        for (size_t i = 0; i < n && i < 64; i++) {
            if (!(v >> i & 1))
                continue;
            if (k >= e->u.arr.n || e->u.arr.items[k]->type != CDCH_JV_STRING ||
                strcmp(e->u.arr.items[k]->u.str.ptr, labels[i]) != 0)
                return false;
            k++;
        }
        return k == e->u.arr.n && (n >= 64 || (v >> n) == 0);
    }
    return false;
}

/* The loose key of a row: its first column (usually the primary key) in the
 * image that names the row (before, else after), without op, db or table.
 * It pairs a row that arrived with a wrong op, db or table with the
 * expected row it stands for (a mismatch of that row, not a missing one). */
static uint64_t loose_key(const sch_table *t, const cdch_change_images *im)
{
    const cdch_jv *img = im->before ? im->before : im->after;
    if (!img || !img->u.obj.n)
        return 0x10053;
    /* the lowest column index the schema knows; else (a table it does not know) the first member written */
    rcol best, r;
    resolve(t, &img->u.obj.m[0], 0, &best);
    for (size_t m = 1; m < img->u.obj.n; m++) {
        resolve(t, &img->u.obj.m[m], m, &r);
        if (r.idx != NONE && (best.idx == NONE || r.idx < best.idx))
            best = r;
    }
    return mix(hstr(best.name) ^ value_hash(best.kind, best.scale, best.v) ^ 0x10053);
}

static cdch_pair_keys row_keys(const sch_table *t, const cdch_change *c, const cdch_change_images *im)
{
    uint64_t h = mix((uint64_t)c->op ^ table_hash(c->db, c->table));
    uint64_t id = h;
    const cdch_jv *img[2] = {im->before, im->after};
    for (int i = 0; i < 2; i++) {
        uint64_t tag = 0x1000 + (uint64_t)i;
        if (!img[i]) {
            h = mix(h ^ tag ^ 0xdead);
            id = mix(id ^ tag ^ 0xdead);
            continue;
        }
        uint64_t sum = 0;
        size_t best = NONE;
        const char *bestname = NULL;
        uint64_t bestval = 0;
        for (size_t m = 0; m < img[i]->u.obj.n; m++) {
            rcol r;
            resolve(t, &img[i]->u.obj.m[m], m, &r);
            uint64_t vh = value_hash(r.kind, r.scale, r.v);
            sum += mix(hstr(r.name) ^ vh);
            bool better = bestname == NULL || (r.idx != NONE && (best == NONE || r.idx < best)) ||
                          (r.idx == NONE && best == NONE && strcmp(r.name, bestname) < 0);
            if (better) {
                best = r.idx;
                bestname = r.name;
                bestval = mix(hstr(r.name) ^ vh);
            }
        }
        h = mix(h ^ tag ^ mix(sum));
        id = mix(id ^ tag ^ bestval);
    }
    return (cdch_pair_keys){h, id, loose_key(t, im)};
}

/* Whether an expected UPDATE changes its row's key: a primary-key column
 * (the first column when the schema does not say) differs between the images. */
static bool key_changes(const sch_table *t, const cdch_change *e, const cdch_change_images *im)
{
    if (e->op != CDCH_OP_UPDATE || !im->before || !im->after)
        return false;
    bool any_pk = false;
    for (size_t i = 0; t && t->pk && i < t->ncols; i++)
        any_pk = any_pk || t->pk[i];
    size_t nb = im->before->u.obj.n;
    for (size_t k = 0; k < nb; k++) {
        rcol rb;
        resolve(t, &im->before->u.obj.m[k], k, &rb);
        bool is_key = any_pk ? rb.idx != NONE && t->pk[rb.idx] : k == 0;
        if (!is_key)
            continue;
        const cdch_jv *av = cdch_jv_get(im->after, im->before->u.obj.m[k].key);
        if (!av)
            return true;
        if (!cdch_diff_value_equal(rb.kind, rb.scale, rb.v, av))
            return true;
    }
    return false;
}

/* ---- the diff ----------------------------------------------------------------------------- */

typedef struct ctx {
    cdch_diff *d;
    const cdch_change_list *E, *O;
    const cdch_change_list *Osrc; /* the observed list as given: where O's lines are (O may be merged) */
    const size_t *msrc;      /* merged O: per row, the Osrc rows of its before and after images (NONE: not merged) */
    const cdch_diff_schema *schema;
    const cdch_stream_index *idx;
    size_t *txn_of;          /* expected row -> index into txns */
    cdch_diff_txn *txns;
    size_t ntxns;
    size_t *obs_of;          /* expected row -> first observed index */
    unsigned char *matched;
    size_t *exp_of;          /* observed row -> expected row (NONE) */
    cdch_arena scratch;      /* checkpoint GTID sets (reset after each use) */
    /* The rows' images, parsed on demand (events.h) into `rows`, which is reset before each observed
     * row is paired: the working set is the rows being compared, not the lists */
    cdch_arena rows;
    cdch_change_window ewin, owin;
    size_t ecached, ocached; /* the rows whose images are in eimg / oimg (NONE: none) */
    cdch_change_images eimg, oimg;
    size_t *ckpt_txn_seen;   /* per txn: already reported a checkpoint problem */
    uint64_t *exec_hash;     /* per stream transaction k: the hash of the GTID set executed through it (lazy) */
} ctx;

static void rows_reset(ctx *c)
{
    cdch_arena_reset(&c->rows);
    c->ecached = c->ocached = NONE;
}

/* The images of expected row i (until rows_reset). */
static cdch_change_images exp_images(ctx *c, size_t i)
{
    if (c->ecached != i) {
        cdch_change_images_get(c->E, &c->E->items[i], &c->ewin, &c->rows, &c->eimg);
        c->ecached = i;
    }
    return c->eimg;
}

/* The images of observed row o (until rows_reset): a key-changing UPDATE
 * merged from a DELETE and an INSERT takes the before image of the one and
 * the after image of the other. */
static cdch_change_images obs_images(ctx *c, size_t o)
{
    if (c->ocached != o) {
        const cdch_change_list *S = c->Osrc;
        if (c->msrc && c->msrc[2 * o] != NONE) {
            cdch_change_images b;
            cdch_change_images_get(S, &S->items[c->msrc[2 * o]], &c->owin, &c->rows, &c->oimg);
            cdch_change_images_get(S, &S->items[c->msrc[2 * o + 1]], &c->owin, &c->rows, &b);
            c->oimg.after = b.after;
        } else {
            cdch_change_images_get(S, &c->O->items[o], &c->owin, &c->rows, &c->oimg);
        }
        c->ocached = o;
    }
    return c->oimg;
}

static const char *adup(cdch_diff *d, const char *s, size_t n)
{
    if (!s)
        return NULL;
    if (n > 400) {
        char *p = cdch_arena_alloc(&d->arena, 400 + 8);
        memcpy(p, s, 400);
        memcpy(p + 400, "...", 4);
        return p;
    }
    return cdch_arena_memdup(&d->arena, s, n);
}

static cdch_diff_mismatch *add_mismatch(ctx *c, size_t erow, size_t orow, const char *what)
{
    cdch_diff *d = c->d;
    d->mismatch_total++;
    if (d->nmismatch >= CDCH_DIFF_KEEP)
        return NULL;
    d->mismatch = xrealloc(d->mismatch, (d->nmismatch + 1) * sizeof *d->mismatch);
    cdch_diff_mismatch *m = &d->mismatch[d->nmismatch++];
    memset(m, 0, sizeof *m);
    m->what = what;
    if (erow != NONE) {
        const cdch_diff_txn *t = &c->txns[c->txn_of[erow]];
        m->txn = t->txn;
        m->exp_line = c->E->items[erow].line;
        m->compressed = t->compressed;
    }
    if (orow != NONE)
        m->obs_line = c->O->items[orow].line;
    return m;
}

/* Compare two rows; record findings when rec. Returns the number of differences. */
static size_t compare_rows(ctx *c, size_t erow, size_t orow, bool rec)
{
    const cdch_change *e = &c->E->items[erow], *o = &c->O->items[orow];
    const sch_table *t = schema_find(c->schema, e->db, e->table);
    size_t ndiff = 0;
    /* the row arrived as another op, or under another db/table name: a mismatch naming the field */
    const char *fe[3] = {cdch_op_name(e->op), e->db, e->table}, *fo[3] = {cdch_op_name(o->op), o->db, o->table};
    static const char *const fwhat[3] = {"op differs", "db differs", "table differs"};
    bool op_differs = e->op != o->op;
    for (int f = 0; f < 3; f++) {
        if (strcmp(fe[f], fo[f]) == 0)
            continue;
        ndiff++;
        if (rec) {
            cdch_diff_mismatch *m = add_mismatch(c, erow, orow, fwhat[f]);
            if (m) {
                char a[600], b[600];
                snprintf(a, sizeof a, "\"%s\"", fe[f]);
                snprintf(b, sizeof b, "\"%s\"", fo[f]);
                m->expected = adup(c->d, a, strlen(a));
                m->observed = adup(c->d, b, strlen(b));
            }
        }
    }
    if (op_differs) /* the images of another op differ by nature: the op finding says it */
        return ndiff;
    cdch_change_images eim = exp_images(c, erow), oim = obs_images(c, orow);
    const cdch_jv *ei[2] = {eim.before, eim.after}, *oi[2] = {oim.before, oim.after};
    static const char *const names[2] = {"before", "after"};
    for (int i = 0; i < 2; i++) {
        if (!ei[i] && !oi[i])
            continue;
        if (!ei[i] || !oi[i]) {
            ndiff++;
            if (rec) {
                cdch_diff_mismatch *m = add_mismatch(c, erow, orow, "image differs");
                if (m) {
                    m->image = names[i];
                    m->expected = ei[i] ? adup(c->d, ei[i]->raw, ei[i]->raw_len) : "null";
                    m->observed = oi[i] ? adup(c->d, oi[i]->raw, oi[i]->raw_len) : "null";
                }
            }
            continue;
        }
        size_t no = oi[i]->u.obj.n, ne = ei[i]->u.obj.n;
        rcol *orc = cdch_arena_alloc(&c->rows, (no ? no : 1) * sizeof *orc);
        unsigned char *used = cdch_arena_alloc(&c->rows, no ? no : 1);
        for (size_t k = 0; k < no; k++)
            resolve(t, &oi[i]->u.obj.m[k], k, &orc[k]);
        for (size_t k = 0; k < ne; k++) {
            rcol er;
            resolve(t, &ei[i]->u.obj.m[k], k, &er);
            size_t f = NONE;
            if (k < no && !used[k] && strcmp(orc[k].name, er.name) == 0)
                f = k;
            for (size_t q = 0; f == NONE && q < no; q++)
                if (!used[q] && strcmp(orc[q].name, er.name) == 0)
                    f = q;
            if (f == NONE) {
                ndiff++;
                if (rec) {
                    cdch_diff_mismatch *m = add_mismatch(c, erow, orow, "column missing");
                    if (m) {
                        m->image = names[i];
                        m->column = adup(c->d, er.name, strlen(er.name));
                        m->expected = adup(c->d, er.v->raw, er.v->raw_len);
                    }
                }
                continue;
            }
            used[f] = 1;
            if (!cdch_diff_value_equal(er.kind, er.scale, er.v, orc[f].v) &&
                !member_number_equal(er.labels, er.v, orc[f].v)) {
                ndiff++;
                if (rec) {
                    cdch_diff_mismatch *m = add_mismatch(c, erow, orow, "value differs");
                    if (m) {
                        m->image = names[i];
                        m->column = adup(c->d, er.name, strlen(er.name));
                        m->expected = adup(c->d, er.v->raw, er.v->raw_len);
                        m->observed = adup(c->d, orc[f].v->raw, orc[f].v->raw_len);
                    }
                }
            }
        }
        for (size_t q = 0; q < no; q++) {
            if (used[q])
                continue;
            ndiff++;
            if (rec) {
                cdch_diff_mismatch *m = add_mismatch(c, erow, orow, "unexpected column");
                if (m) {
                    m->image = names[i];
                    m->column = adup(c->d, orc[q].name, strlen(orc[q].name));
                    m->observed = adup(c->d, orc[q].v->raw, orc[q].v->raw_len);
                }
            }
        }
    }
    return ndiff;
}

static void ckpt_fail(ctx *c, size_t ti, size_t orow, const char *msg)
{
    cdch_diff *d = c->d;
    d->ckpt_total++;
    if (c->ckpt_txn_seen[ti] || d->nckpt >= CDCH_DIFF_KEEP)
        return;
    c->ckpt_txn_seen[ti] = 1;
    d->ckpt = xrealloc(d->ckpt, (d->nckpt + 1) * sizeof *d->ckpt);
    cdch_diff_ckpt *k = &d->ckpt[d->nckpt++];
    k->txn = c->txns[ti].txn;
    k->obs_line = c->O->items[orow].line;
    k->compressed = c->txns[ti].compressed;
    k->what = adup(d, msg, strlen(msg));
}

/* A GTID set's hash, whatever the order its servers are listed in (a sum over them) and
 * the case of their UUIDs (parsed to bytes). Empty servers count as absent. */
static uint64_t set_hash(const cdch_gtid_set *s)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < s->n_sids; i++) {
        const cdch_gtid_sid *sid = &s->sids[i];
        if (!sid->n_intervals)
            continue;
        uint64_t h = run_fnv1a(run_fnv1a(RUN_FNV1A_INIT, sid->uuid, 16), sid->tag, strlen(sid->tag) + 1);
        for (size_t k = 0; k < sid->n_intervals; k++)
            h = mix(h ^ mix((uint64_t)sid->intervals[k].start) ^ ((uint64_t)sid->intervals[k].end << 1));
        sum += mix(h);
    }
    return sum;
}

/* The GTID set executed through transaction k of the stream (k = 0: before it, the first file's
 * PREVIOUS_GTIDS) into set (in arena a); false when the stream index does not know it. */
static bool executed_through(const cdch_stream_index *idx, uint64_t k, cdch_arena *a, cdch_gtid_set *set)
{
    memset(set, 0, sizeof *set);
    cdch_err err;
    if (!idx || k > idx->ntxn || (idx->prev_gtids && cdch_gtid_set_parse(idx->prev_gtids, a, set, &err) != 0))
        return false;
    for (uint64_t t = 0; t < k; t++)
        if (idx->txn[t].sid != CDCH_TXN_NO_GTID && idx->txn[t].gno >= 1)
            cdch_gtid_set_add(set, a, idx->sids[idx->txn[t].sid].uuid, idx->sids[idx->txn[t].sid].tag,
                              idx->txn[t].gno);
    return true;
}

/* The hashes of the sets executed through each transaction of the stream: exec_hash[k] for
 * k = 0..ntxn (made at the first GTID set a consumer reports). */
static void exec_hashes(ctx *c)
{
    if (c->exec_hash || !c->idx || !c->idx->ntxn || !c->idx->nsids)
        return;
    const cdch_stream_index *idx = c->idx;
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set set;
    if (!executed_through(idx, 0, &a, &set)) {
        cdch_arena_free(&a);
        return;
    }
    c->exec_hash = xcalloc(idx->ntxn + 1, sizeof *c->exec_hash);
    c->exec_hash[0] = set_hash(&set);
    for (size_t t = 0; t < idx->ntxn; t++) {
        if (idx->txn[t].sid != CDCH_TXN_NO_GTID && idx->txn[t].gno >= 1)
            cdch_gtid_set_add(&set, &a, idx->sids[idx->txn[t].sid].uuid, idx->sids[idx->txn[t].sid].tag,
                              idx->txn[t].gno);
        c->exec_hash[t + 1] = set_hash(&set);
    }
    cdch_arena_free(&a);
}

/* A reported GTID set is one a restart can resume from, neither replaying nor skipping a
 * transaction: exactly the set executed through the row's transaction k, or through the one before
 * it. Without the stream's GTIDs (no index): the set holds the transaction's server as one interval
 * (no hole) ending at its GNO or the one before. Fills why (for the finding) when not. */
static bool gtid_set_resumable(ctx *c, const cdch_diff_txn *t, const cdch_gtid_set *os, const cdch_gtid_sid *esid,
                               char *why, size_t whysz)
{
    int64_t g = esid->intervals[0].start;
    const cdch_txn_loc *loc = cdch_stream_index_txn(c->idx, t->txn);
    if (loc && loc->sid != CDCH_TXN_NO_GTID && loc->gno == g && t->start == loc->start) {
        exec_hashes(c);
        if (c->exec_hash) {
            uint64_t h = set_hash(os);
            if (h == c->exec_hash[t->txn] || h == c->exec_hash[t->txn - 1])
                return true;
            cdch_buf b1 = CDCH_BUF_INIT, b2 = CDCH_BUF_INIT;
            if (c->d->nckpt < 20) { /* named for the findings that are kept in detail */
                cdch_arena a = CDCH_ARENA_INIT;
                cdch_gtid_set x;
                if (executed_through(c->idx, t->txn, &a, &x))
                    cdch_gtid_set_to_text(&x, &b1);
                if (executed_through(c->idx, t->txn - 1, &a, &x))
                    cdch_gtid_set_to_text(&x, &b2);
                cdch_arena_free(&a);
            }
            snprintf(why, whysz, "the set executed through it is '%.150s', through the one before '%.150s'",
                     b1.len ? cdch_buf_cstr(&b1) : "...", b2.len ? cdch_buf_cstr(&b2) : "...");
            cdch_buf_free(&b1);
            cdch_buf_free(&b2);
            return false;
        }
    }
    for (size_t i = 0; i < os->n_sids; i++) {
        const cdch_gtid_sid *sid = &os->sids[i];
        if (memcmp(sid->uuid, esid->uuid, 16) != 0 || strcmp(sid->tag, esid->tag) != 0 || !sid->n_intervals)
            continue;
        int64_t m = sid->intervals[sid->n_intervals - 1].end - 1;
        if (sid->n_intervals == 1 && (m == g || m == g - 1))
            return true;
        snprintf(why, whysz, "%s", sid->n_intervals > 1 ? "it has a hole" : "it does not end there");
        return false;
    }
    snprintf(why, whysz, "it lacks the transaction's server");
    return false;
}

static void check_checkpoint(ctx *c, size_t erow, size_t orow)
{
    const cdch_change *o = &c->O->items[orow];
    const cdch_change *e = &c->E->items[erow];
    size_t ti = c->txn_of[erow];
    const cdch_diff_txn *t = &c->txns[ti];
    if (!o->pos_file && !o->gtid)
        return;
    c->d->ckpt_rows_checked++;
    char msg[1000];
    if (o->pos_file && e->pos_file && e->pos >= 0) {
        uint64_t lo = t->start, hi = (uint64_t)e->pos;
        if (!lo) {
            lo = 4;
            if (ti > 0 && c->txns[ti - 1].file && t->file && strcmp(c->txns[ti - 1].file, t->file) == 0)
                lo = c->txns[ti - 1].end;
        }
        bool file_ok = !o->pos_file[0] || strcmp(o->pos_file, e->pos_file) == 0;
        if (!file_ok || o->pos < 0 || (uint64_t)o->pos < lo || (uint64_t)o->pos > hi) {
            snprintf(msg, sizeof msg, "reported pos %s:%lld is outside txn %llu (%s:%llu..%llu)",
                     o->pos_file[0] ? o->pos_file : "?", (long long)o->pos, (unsigned long long)t->txn,
                     e->pos_file, (unsigned long long)lo, (unsigned long long)hi);
            ckpt_fail(c, ti, orow, msg);
            return;
        }
    }
    if (o->gtid && e->gtid) {
        cdch_gtid_set es, os;
        cdch_err err;
        memset(&es, 0, sizeof es);
        memset(&os, 0, sizeof os);
        if (cdch_gtid_set_parse(e->gtid, &c->scratch, &es, &err) != 0 || es.n_sids != 1 ||
            es.sids[0].n_intervals != 1) {
            cdch_arena_reset(&c->scratch);
            return; /* expected GTID we cannot read: nothing to check against */
        }
        const cdch_gtid_sid *esid = &es.sids[0];
        int64_t g = esid->intervals[0].start;
        bool ok, set = false;
        char why[400] = "";
        if (cdch_gtid_set_parse(o->gtid, &c->scratch, &os, &err) != 0) {
            ok = false;
        } else if (os.n_sids == 1 && os.sids[0].n_intervals == 1 &&
                   os.sids[0].intervals[0].end - os.sids[0].intervals[0].start == 1 &&
                   strrchr(o->gtid, ':') && strchr(strrchr(o->gtid, ':'), '-') == NULL) {
            ok = memcmp(os.sids[0].uuid, esid->uuid, 16) == 0 && strcmp(os.sids[0].tag, esid->tag) == 0 &&
                 os.sids[0].intervals[0].start == g;
        } else {
            set = true;
            ok = gtid_set_resumable(c, t, &os, esid, why, sizeof why);
        }
        cdch_arena_reset(&c->scratch);
        if (!ok && set)
            snprintf(msg, sizeof msg, "reported gtid set '%.200s' is not one to resume from after txn %llu (%s): %s; a "
                     "restart from it replays or skips transactions", o->gtid, (unsigned long long)t->txn, e->gtid, why);
        else if (!ok)
            snprintf(msg, sizeof msg, "reported gtid '%.200s' is not txn %llu's (%s)", o->gtid,
                     (unsigned long long)t->txn, e->gtid);
        if (!ok)
            ckpt_fail(c, ti, orow, msg);
    }
}

static void match(ctx *c, size_t erow, size_t orow)
{
    c->exp_of[orow] = erow;
    if (!c->matched[erow]) {
        c->matched[erow] = 1;
        c->obs_of[erow] = orow;
        c->d->matched_rows++;
    }
    compare_rows(c, erow, orow, true);
    check_checkpoint(c, erow, orow);
}

static void build_txns(ctx *c)
{
    const cdch_change_list *E = c->E;
    c->txn_of = xcalloc(E->n, sizeof *c->txn_of);
    c->txns = xcalloc(E->n ? E->n : 1, sizeof *c->txns);
    for (size_t i = 0; i < E->n; i++) {
        const cdch_change *e = &E->items[i];
        bool same = false;
        if (c->ntxns) {
            const cdch_change *p = &E->items[i - 1];
            if (e->txn || p->txn)
                same = e->txn == p->txn;
            else
                same = p->pos == e->pos && ((!p->gtid && !e->gtid) || (p->gtid && e->gtid && !strcmp(p->gtid, e->gtid))) &&
                       ((!p->pos_file && !e->pos_file) || (p->pos_file && e->pos_file && !strcmp(p->pos_file, e->pos_file)));
        }
        if (!same) {
            cdch_diff_txn *t = &c->txns[c->ntxns++];
            t->txn = e->txn ? e->txn : c->ntxns;
            t->gtid = e->gtid ? adup(c->d, e->gtid, strlen(e->gtid)) : NULL;
            t->file = e->pos_file ? adup(c->d, e->pos_file, strlen(e->pos_file)) : NULL;
            t->end = e->pos >= 0 ? (uint64_t)e->pos : 0;
            t->compressed = e->compressed == 1;
            t->exp_line = e->line;
            const cdch_txn_loc *loc = e->txn ? cdch_stream_index_txn(c->idx, e->txn) : NULL;
            if (loc && (!t->file || strcmp(loc->file, t->file) == 0)) {
                t->start = loc->start;
                t->body_pos = loc->body_pos;
                t->body_type = loc->body_type;
                t->partial_rows = loc->partial_rows;
            }
        }
        c->txn_of[i] = c->ntxns - 1;
        c->txns[c->ntxns - 1].rows_total++;
    }
    c->d->expected_txns = c->ntxns;
}

static void add_dup(ctx *c, size_t cand, size_t orow)
{
    cdch_diff *d = c->d;
    d->dup_total++;
    if (d->ndup >= CDCH_DIFF_KEEP)
        return;
    d->dup = xrealloc(d->dup, (d->ndup + 1) * sizeof *d->dup);
    cdch_diff_dup *x = &d->dup[d->ndup++];
    const cdch_diff_txn *t = &c->txns[c->txn_of[cand]];
    x->txn = t->txn;
    x->compressed = t->compressed;
    x->exp_line = c->E->items[cand].line;
    x->obs_line = c->O->items[orow].line;
    x->first_obs_line = c->obs_of[cand] != NONE ? c->O->items[c->obs_of[cand]].line : 0;
}

static void add_reorder(ctx *c, size_t erow, size_t orow, uint64_t after_txn)
{
    cdch_diff *d = c->d;
    d->reorder_total++;
    if (d->nreorder >= CDCH_DIFF_KEEP)
        return;
    d->reorder = xrealloc(d->reorder, (d->nreorder + 1) * sizeof *d->reorder);
    cdch_diff_reorder *r = &d->reorder[d->nreorder++];
    const cdch_diff_txn *t = &c->txns[c->txn_of[erow]];
    r->txn = t->txn;
    r->compressed = t->compressed;
    r->after_txn = after_txn;
    r->exp_line = c->E->items[erow].line;
    r->obs_line = c->O->items[orow].line;
}

static void find_missing(ctx *c)
{
    cdch_diff *d = c->d;
    size_t n = c->E->n, nt = c->ntxns;
    size_t last = NONE; /* last matched expected row */
    for (size_t i = n; i-- > 0;)
        if (c->matched[i]) {
            last = i;
            break;
        }
    if (last != NONE)
        d->last_txn_seen = c->txns[c->txn_of[last]].txn;
    size_t *first = xcalloc(nt + 1, sizeof *first);  /* first expected row of each txn */
    size_t *tmin = xcalloc(nt + 1, sizeof *tmin);    /* min / max observed index of its rows */
    size_t *tmax = xcalloc(nt + 1, sizeof *tmax);
    size_t *tmiss = xcalloc(nt + 1, sizeof *tmiss);
    size_t *after_min = xcalloc(nt + 1, sizeof *after_min); /* min observed index of txns > t */
    for (size_t t = 0; t <= nt; t++)
        tmin[t] = tmax[t] = after_min[t] = NONE;
    for (size_t i = n; i-- > 0;)
        first[c->txn_of[i]] = i;
    for (size_t i = 0; i < n; i++) {
        size_t t = c->txn_of[i];
        if (!c->matched[i]) {
            tmiss[t]++;
            continue;
        }
        size_t o = c->obs_of[i];
        if (tmin[t] == NONE || o < tmin[t])
            tmin[t] = o;
        if (tmax[t] == NONE || o > tmax[t])
            tmax[t] = o;
    }
    for (size_t t = nt; t-- > 1;) { /* after_min[t-1] = min(after_min[t], tmin[t]) */
        size_t m = after_min[t];
        if (tmin[t] != NONE && (m == NONE || tmin[t] < m))
            m = tmin[t];
        after_min[t - 1] = m;
    }
    size_t before_max = NONE; /* max observed index of txns < t */
    size_t *hole_hi = NULL;   /* per missing entry: the first observed row after it (holes), else NONE */
    for (size_t t = 0; t < nt; t++) {
        if (!tmiss[t]) {
            d->complete_txns++;
        } else {
            cdch_diff_txn x = c->txns[t];
            x.rows_missing = tmiss[t];
            x.reported = NULL;
            x.reported_ctl = SIZE_MAX;
            size_t later = after_min[t];
            bool inner = false; /* a matched row after a missing one inside this txn */
            bool seen_missing = false;
            size_t inner_at = NONE;
            for (size_t i = first[t]; i < n && c->txn_of[i] == t; i++) {
                if (!c->matched[i])
                    seen_missing = true;
                else if (seen_missing) {
                    inner = true;
                    if (inner_at == NONE || c->obs_of[i] < inner_at)
                        inner_at = c->obs_of[i];
                }
            }
            x.hole = later != NONE || inner;
            /* holes and the tail are matched with error lines below */
            size_t hi = NONE;
            if (x.hole)
                hi = later != NONE && (inner_at == NONE || later < inner_at) ? later : inner_at;
            hole_hi = xrealloc(hole_hi, (d->nmissing + 1) * sizeof *hole_hi);
            hole_hi[d->nmissing] = hi;
            if (x.hole)
                d->holes++;
            else
                d->tail++;
            d->missing_rows += tmiss[t];
            d->missing = xrealloc(d->missing, (d->nmissing + 1) * sizeof *d->missing);
            d->missing[d->nmissing++] = x;
        }
        if (tmax[t] != NONE && (before_max == NONE || tmax[t] > before_max))
            before_max = tmax[t];
    }
    /* Holes and error lines: a missing transaction after which a later one arrived is announced when the
     * consumer printed an error line before the first row that followed it. Each error line announces one
     * missing transaction, in order: one warning at start-up (or one connection error) does not excuse
     * every later loss, and a consumer whose log lines overtake its rows (Debezium, Canal: the logger and
     * the records are separate paths) still gets each of its errors counted. A hole no such line
     * announces is announced by an earlier error line that names its event (announce.h: "type 40",
     * TRANSACTION_PAYLOAD_EVENT, ...): libraries say that once and go on. Where the consumer stopped
     * (the tail), any error line it printed that announces no hole says why: a logger may report the
     * failure before the rows emitted ahead of it. */
    size_t e = 0;
    unsigned char *used = xcalloc(c->O->nctl ? c->O->nctl : 1, 1);
    for (size_t i = 0; i < d->nmissing; i++) {
        cdch_diff_txn *x = &d->missing[i];
        if (!x->hole)
            continue;
        while (e < c->O->nctl && c->O->ctl[e].kind != CDCH_CTL_ERROR)
            e++;
        if (e < c->O->nctl && c->O->ctl[e].at <= hole_hi[i]) {
            x->reported = adup(d, c->O->ctl[e].message, strlen(c->O->ctl[e].message));
            x->reported_ctl = e;
            used[e++] = 1;
            continue;
        }
        for (size_t k = 0; k < c->O->nctl && c->O->ctl[k].at <= hole_hi[i]; k++)
            if (c->O->ctl[k].kind == CDCH_CTL_ERROR &&
                cdch_announce_names_event(c->O->ctl[k].message, x->compressed, x->partial_rows > 0)) {
                x->reported = adup(d, c->O->ctl[k].message, strlen(c->O->ctl[k].message));
                x->reported_ctl = k;
                used[k] = 1;
                break;
            }
    }
    const char *stop_msg = NULL;
    size_t stop_k = SIZE_MAX;
    for (size_t k = 0; k < c->O->nctl && !stop_msg; k++)
        if (c->O->ctl[k].kind == CDCH_CTL_ERROR && !used[k]) {
            stop_msg = adup(d, c->O->ctl[k].message, strlen(c->O->ctl[k].message));
            stop_k = k;
        }
    for (size_t i = 0; i < d->nmissing; i++)
        if (!d->missing[i].hole) {
            d->missing[i].reported = stop_msg;
            d->missing[i].reported_ctl = stop_k;
        }
    free(used);
    free(hole_hi);
    free(first);
    free(tmin);
    free(tmax);
    free(tmiss);
    free(after_min);
}

/* Same transaction as far as the consumer says: the same GTID when both
 * report one, else the same file when both report a position. */
static bool same_txn_reported(const cdch_change *a, const cdch_change *b)
{
    if (a->gtid && b->gtid)
        return strcmp(a->gtid, b->gtid) == 0;
    if (a->pos_file && b->pos_file)
        return strcmp(a->pos_file, b->pos_file) == 0;
    return true;
}

/* key-update-as-delete-insert: an observed DELETE immediately followed by an
 * INSERT of the same table in the same transaction, whose before and after
 * images are exactly those of an expected key-changing UPDATE, is that
 * UPDATE. Returns the observed list with such pairs merged (a copy of the
 * rows; *msrc_out: per row, the rows of c->Osrc giving its before and after
 * images, NONE for a row not merged; *merged counts them), or c->Osrc itself
 * when none. */
static cdch_change_list *merge_key_updates(ctx *c, const cdch_pair_index *keys, size_t **msrc_out, size_t *merged)
{
    const cdch_change_list *E = c->E, *O = c->Osrc;
    *merged = 0;
    *msrc_out = NULL;
    cdch_change_list *M = NULL;
    size_t *msrc = NULL;
    for (size_t i = 0; i + 1 < O->n; i++) {
        const cdch_change *a = &O->items[i], *b = &O->items[i + 1];
        if (a->op != CDCH_OP_DELETE || b->op != CDCH_OP_INSERT || strcmp(a->db, b->db) != 0 ||
            strcmp(a->table, b->table) != 0 || !cdch_change_has_before(a) || !cdch_change_has_after(b) ||
            !same_txn_reported(a, b))
            continue;
        cdch_change u = *a;
        u.op = CDCH_OP_UPDATE;
        u.flags = (uint8_t)(a->flags | CDCH_CHANGE_AFTER);
        rows_reset(c);
        cdch_change_images ai, bi;
        cdch_change_images_get(O, a, &c->owin, &c->rows, &ai);
        cdch_change_images_get(O, b, &c->owin, &c->rows, &bi);
        cdch_change_images ui = {ai.before, bi.after, ai.text, ai.text_len};
        /* rows with one key are the same row: the first of its chain says whether it is a key-changing UPDATE */
        const sch_table *t = schema_find(c->schema, u.db, u.table);
        size_t first = cdch_pair_index_first(keys, row_keys(t, &u, &ui).key);
        if (first == NONE)
            continue;
        cdch_change_images ei = exp_images(c, first);
        if (!key_changes(t, &E->items[first], &ei))
            continue;
        /* a control line between the two rows stays where it was relative to the others */
        bool ctl_between = false;
        for (size_t q = 0; q < O->nctl; q++)
            ctl_between = ctl_between || O->ctl[q].at == i + 1;
        if (ctl_between)
            continue;
        if (!M) {
            M = xcalloc(1, sizeof *M);
            M->items = xcalloc(O->n, sizeof *M->items);
            memcpy(M->items, O->items, O->n * sizeof *M->items);
            M->n = O->n;
            M->ctl = xcalloc(O->nctl ? O->nctl : 1, sizeof *M->ctl);
            if (O->nctl)
                memcpy(M->ctl, O->ctl, O->nctl * sizeof *M->ctl);
            M->nctl = O->nctl;
            M->invalid = O->invalid;
            msrc = xcalloc(2 * O->n, sizeof *msrc);
            for (size_t k = 0; k < O->n; k++)
                msrc[2 * k] = msrc[2 * k + 1] = NONE;
        }
        size_t at = i - *merged;
        M->items[at] = u;
        memmove(&M->items[at + 1], &M->items[at + 2], (M->n - (at + 2)) * sizeof *M->items);
        memmove(&msrc[2 * (at + 1)], &msrc[2 * (at + 2)], 2 * (M->n - (at + 2)) * sizeof *msrc);
        msrc[2 * at] = i;
        msrc[2 * at + 1] = i + 1;
        M->n--;
        for (size_t q = 0; q < M->nctl; q++)
            if (O->ctl[q].at > i + 1)
                M->ctl[q].at--;
        (*merged)++;
        i++; /* the insert is consumed */
    }
    rows_reset(c);
    *msrc_out = msrc;
    return M ? M : (cdch_change_list *)O;
}

/* ---- the expected rows' keys, computed once per list ------------------------------------------ */

struct cdch_diff_expected {
    const cdch_change_list *E;      /* what they were computed for (not owned; checked at each run) */
    const cdch_diff_schema *schema;
    size_t n;                       /* E->n then */
    cdch_pair_keys *ek;             /* per expected row: its key, identity and loose key */
};

/* One pass over the expected rows, each line parsed once (in file order: the
 * lines are read ahead), into a scratch arena reset per row. */
static void expected_keys(const cdch_change_list *E, const cdch_diff_schema *schema, cdch_pair_keys *ek)
{
    cdch_arena rows = CDCH_ARENA_INIT;
    cdch_change_window win = CDCH_CHANGE_WINDOW_INIT;
    for (size_t i = 0; i < E->n; i++) {
        const cdch_change *e = &E->items[i];
        const sch_table *t = schema_find(schema, e->db, e->table);
        cdch_arena_reset(&rows);
        cdch_change_images im;
        cdch_change_images_get(E, e, &win, &rows, &im);
        ek[i] = row_keys(t, e, &im);
    }
    cdch_arena_free(&rows);
    cdch_change_window_free(&win);
}

cdch_diff_expected *cdch_diff_expected_new(const cdch_change_list *E, const cdch_diff_schema *schema)
{
    cdch_diff_expected *x = xcalloc(1, sizeof *x);
    x->E = E;
    x->schema = schema;
    x->n = E->n;
    x->ek = xcalloc(E->n ? E->n : 1, sizeof *x->ek);
    expected_keys(E, schema, x->ek);
    return x;
}

void cdch_diff_expected_free(cdch_diff_expected *x)
{
    if (!x)
        return;
    free(x->ek);
    free(x);
}

/* The transaction an observed row's own checkpoint names: a single GTID equal to that transaction's
 * (UUIDs in either case), else NONE. */
static size_t *places(ctx *c)
{
    size_t nt = c->ntxns, nslot = 16;
    while (nslot < 2 * nt)
        nslot *= 2;
    size_t *slot = xcalloc(nslot, sizeof *slot);
    for (size_t i = 0; i < nslot; i++)
        slot[i] = NONE;
    for (size_t t = 0; t < nt; t++) {
        if (!c->txns[t].gtid)
            continue;
        size_t h = (size_t)gtid_hash(c->txns[t].gtid) & (nslot - 1);
        while (slot[h] != NONE)
            h = (h + 1) & (nslot - 1);
        slot[h] = t;
    }
    size_t *place = xcalloc(c->O->n ? c->O->n : 1, sizeof *place);
    for (size_t o = 0; o < c->O->n; o++) {
        const char *g = c->O->items[o].gtid;
        place[o] = NONE;
        if (!g || strchr(g, ',') || !strrchr(g, ':') || strchr(strrchr(g, ':'), '-'))
            continue;
        for (size_t h = (size_t)gtid_hash(g) & (nslot - 1); slot[h] != NONE; h = (h + 1) & (nslot - 1))
            if (strcasecmp(c->txns[slot[h]].gtid, g) == 0) {
                place[o] = slot[h];
                break;
            }
    }
    free(slot);
    return place;
}

/* Pair every observed row (pair.h), then judge each pair in the order the rows arrived: a row paired
 * with a transaction before one an earlier row was paired with came late (a reorder). */
static void pair_and_compare(ctx *c, cdch_pair_index *x, const cdch_pair_keys *ek)
{
    const cdch_change_list *O = c->O;
    cdch_pair_keys *ok = xcalloc(O->n ? O->n : 1, sizeof *ok);
    for (size_t o = 0; o < O->n; o++) {
        rows_reset(c);
        cdch_change_images oim = obs_images(c, o);
        ok[o] = row_keys(schema_find(c->schema, O->items[o].db, O->items[o].table), &O->items[o], &oim);
    }
    size_t *place = places(c);
    cdch_pair *pairs = xcalloc(O->n ? O->n : 1, sizeof *pairs);
    cdch_pair_in in = {c->E, O, ek, ok, c->txn_of, place};
    cdch_pair_rows(x, &in, pairs);
    size_t latest = NONE; /* the latest transaction a row was paired with so far */
    for (size_t o = 0; o < O->n; o++) {
        rows_reset(c);
        c->exp_of[o] = NONE;
        size_t e = pairs[o].erow;
        switch (pairs[o].kind) {
        case CDCH_PAIR_ROW: {
            size_t t = c->txn_of[e];
            if (latest != NONE && t < latest)
                add_reorder(c, e, o, c->txns[latest].txn);
            else
                latest = t;
            match(c, e, o);
            break;
        }
        case CDCH_PAIR_DUP:
            add_dup(c, e, o);
            c->exp_of[o] = e;
            break;
        case CDCH_PAIR_EXTRA:
        default: {
            cdch_diff_mismatch *m = add_mismatch(c, NONE, o, "unexpected event");
            if (m) {
                cdch_change_images oim = obs_images(c, o);
                m->observed = adup(c->d, oim.text, oim.text_len);
            }
            break;
        }
        }
    }
    free(pairs);
    free(place);
    free(ok);
}

cdch_diff *cdch_diff_run(const cdch_change_list *E, const cdch_change_list *O0, const cdch_diff_schema *schema,
                         const cdch_stream_index *idx, unsigned representations)
{
    return cdch_diff_run_prepared(E, NULL, O0, schema, idx, representations);
}

cdch_diff *cdch_diff_run_prepared(const cdch_change_list *E, const cdch_diff_expected *prep,
                                  const cdch_change_list *O0, const cdch_diff_schema *schema,
                                  const cdch_stream_index *idx, unsigned representations)
{
    if (prep && (prep->E != E || prep->schema != schema || prep->n != E->n)) {
        fprintf(stderr, "cdcharness: internal error: the expected keys given to the diff were computed for %s "
                        "(%zu rows), not for this expected list and schema (%zu rows); report this bug\n",
                prep->E != E ? "another list" : prep->schema != schema ? "another schema" : "the list before it changed",
                prep->n, E->n);
        abort();
    }
    cdch_diff *d = xcalloc(1, sizeof *d);
    ctx c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.E = E;
    c.Osrc = O0;
    c.schema = schema;
    c.idx = idx;
    c.ewin = (cdch_change_window)CDCH_CHANGE_WINDOW_INIT;
    c.owin = (cdch_change_window)CDCH_CHANGE_WINDOW_INIT;
    c.ecached = c.ocached = NONE;
    d->expected_rows = E->n;
    build_txns(&c);

    cdch_diff_expected *own = prep ? NULL : cdch_diff_expected_new(E, schema);
    const cdch_pair_keys *ek = (prep ? prep : own)->ek;
    cdch_pair_index *x = cdch_pair_index_new(ek, E->n);
    cdch_change_list *O = (cdch_change_list *)O0;
    size_t *msrc = NULL;
    if (representations & CDCH_REPR_KEY_UPDATE_AS_DELETE_INSERT)
        O = merge_key_updates(&c, x, &msrc, &d->merged_key_updates);
    c.O = O;
    c.msrc = msrc;
    d->observed_rows = O->n;
    c.obs_of = xcalloc(E->n ? E->n : 1, sizeof *c.obs_of);
    c.matched = xcalloc(E->n ? E->n : 1, 1);
    c.exp_of = xcalloc(O->n ? O->n : 1, sizeof *c.exp_of);
    c.ckpt_txn_seen = xcalloc(c.ntxns ? c.ntxns : 1, sizeof *c.ckpt_txn_seen);
    for (size_t i = 0; i < E->n; i++)
        c.obs_of[i] = NONE;

    pair_and_compare(&c, x, ek);
    find_missing(&c);

    cdch_pair_index_free(x);
    cdch_diff_expected_free(own);
    if (O != O0) {
        free(O->items);
        free(O->ctl);
        free(O);
    }
    free(msrc);
    free(c.txn_of);
    free(c.txns);
    free(c.obs_of);
    free(c.matched);
    free(c.exp_of);
    free(c.ckpt_txn_seen);
    free(c.exec_hash);
    cdch_arena_free(&c.scratch);
    cdch_arena_free(&c.rows);
    cdch_change_window_free(&c.ewin);
    cdch_change_window_free(&c.owin);
    return d;
}

void cdch_diff_free(cdch_diff *d)
{
    if (!d)
        return;
    free(d->missing);
    free(d->mismatch);
    free(d->dup);
    free(d->reorder);
    free(d->ckpt);
    cdch_arena_free(&d->arena);
    free(d);
}

void cdch_diff_txn_where(const cdch_diff_txn *t, char *buf, size_t bufsz)
{
    int n;
    if (t->body_type)
        n = snprintf(buf, bufsz, "%s at %s:%llu, txn %llu..%llu", cdch_event_type_name(t->body_type),
                     t->file ? t->file : "?", (unsigned long long)t->body_pos, (unsigned long long)t->start,
                     (unsigned long long)t->end);
    else
        n = snprintf(buf, bufsz, "ending at %s:%llu", t->file ? t->file : "?", (unsigned long long)t->end);
    if (t->partial_rows && n > 0 && (size_t)n < bufsz)
        snprintf(buf + n, bufsz - (size_t)n, ", with %u PARTIAL_UPDATE_ROWS event%s (type 39, PARTIAL_JSON)",
                 (unsigned)t->partial_rows, t->partial_rows == 1 ? "" : "s");
}
