/* bulk.c — bulk generators: deterministic, streaming transactions.
 *
 * Each generator derives every row from (seed, row key, version) with its
 * own PRNG (splitmix64 seeding xoshiro256**; never rand()), so nothing but
 * O(1) state (or one counter per key for random_keys) is kept between
 * transactions: the cursor's arena is reset on every cdch_bulk_next call,
 * and memory stays flat however many transactions an item expands to.
 *
 *   json_staging  UPDATE of staging rows 1..keys, round robin; row r's
 *                 version v has a wide JSON document of doc_keys members of
 *                 value_bytes each, very repetitive (compresses well); the
 *                 before image is version v-1, recomputed, not stored.
 *   random_keys   UPDATE of a random key 1..keys of a narrow table; the
 *                 first non-key integer column counts the key's versions,
 *                 other columns are random per (key, version).
 *   inserts       INSERT of random rows (every column type, valid for it);
 *                 integer primary keys count up from first_id.
 * All stop after `transactions` or once target_bytes of row data (the
 * encoded column values of the images) were generated, whichever is first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

#define NO_COL ((size_t)-1)

/* ---- PRNG ------------------------------------------------------------------------- */

uint64_t sc_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

typedef struct rng {
    uint64_t s[4];
} rng;

static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed += 0x9e3779b97f4a7c15ULL;
        r->s[i] = sc_mix64(seed);
    }
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t res = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

static uint64_t rng_below(rng *r, uint64_t n) { return n ? rng_next(r) % n : 0; }

/* PRNG for (seed, key, version): the same triple always gives the same values */
static void row_rng(rng *r, uint64_t seed, uint64_t key, uint64_t version)
{
    rng_seed(r, sc_mix64(sc_mix64(seed ^ 0x5ca1ab1eULL) ^ key) ^ (version * 0x9e3779b97f4a7c15ULL));
}

/* ---- the cursor --------------------------------------------------------------------- */

struct cdch_bulk_cursor {
    const cdch_scenario *s;
    const cdch_sc_bulk *b;
    const cdch_sc_table *t;
    cdch_arena arena;
    cdch_buf scratch;
    uint64_t txn_no;   /* transactions generated */
    uint64_t bytes;    /* row data generated */
    uint64_t seq;      /* rows generated (json_staging: updates; inserts: rows) */
    uint32_t *versions; /* random_keys: current version per key */
    rng stream;        /* random_keys: which key */
    size_t key_col;    /* the single integer primary key, or NO_COL */
    size_t counter_col; /* random_keys: first non-key integer column, or NO_COL */
    bool done;
};

static const uint32_t k_frac_div[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};

static void put_double(cdch_buf *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    cdch_put_le64(b, u);
}

static double coord(rng *r) { return (double)((int64_t)rng_below(r, 360001) - 180000) / 1000.0; }

static void wkb_point(cdch_buf *b, rng *r, bool header)
{
    if (header) {
        cdch_put_u8(b, 1);
        cdch_put_le32(b, SC_GEOM_POINT);
    }
    put_double(b, coord(r));
    put_double(b, coord(r));
}

static void wkb_geom(cdch_buf *b, rng *r, uint32_t type)
{
    cdch_put_u8(b, 1);
    cdch_put_le32(b, type == SC_GEOM_GEOMETRY ? SC_GEOM_POINT : type);
    switch (type) {
    case SC_GEOM_GEOMETRY:
    case SC_GEOM_POINT: wkb_point(b, r, false); break;
    case SC_GEOM_LINESTRING:
        cdch_put_le32(b, 2);
        wkb_point(b, r, false);
        wkb_point(b, r, false);
        break;
    case SC_GEOM_POLYGON: {
        double x = coord(r), y = coord(r);
        cdch_put_le32(b, 1);
        cdch_put_le32(b, 5);
        double pts[5][2] = {{x, y}, {x + 1, y}, {x + 1, y + 1}, {x, y + 1}, {x, y}};
        for (int i = 0; i < 5; i++) {
            put_double(b, pts[i][0]);
            put_double(b, pts[i][1]);
        }
        break;
    }
    case SC_GEOM_MULTIPOINT:
        cdch_put_le32(b, 2);
        wkb_point(b, r, true);
        wkb_point(b, r, true);
        break;
    case SC_GEOM_MULTILINESTRING:
        cdch_put_le32(b, 1);
        wkb_geom(b, r, SC_GEOM_LINESTRING);
        break;
    case SC_GEOM_MULTIPOLYGON:
        cdch_put_le32(b, 1);
        wkb_geom(b, r, SC_GEOM_POLYGON);
        break;
    default: /* geometry collection */
        cdch_put_le32(b, 2);
        wkb_geom(b, r, SC_GEOM_POINT);
        wkb_geom(b, r, SC_GEOM_LINESTRING);
        break;
    }
}

/* Random text of n characters in the column's charset. */
static void gen_text(cdch_arena *a, rng *r, const cdch_sc_column *col, size_t n, cdch_value *out)
{
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    sc_cs cs = sc_charset_kind(col->charset);
    bool latin = cs == SC_CS_LATIN1, bmp = cs == SC_CS_UTF8MB3 || cs == SC_CS_UCS2;
    bool uni = cs == SC_CS_UTF8MB4 || cs == SC_CS_UTF16 || cs == SC_CS_UTF16LE || cs == SC_CS_UTF32 || bmp;
    cdch_buf b = CDCH_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng_next(r);
        uint32_t cp = (uint32_t)alnum[x % 62];
        if ((latin || uni) && (x >> 32) % 8 == 0) {
            static const uint32_t extra[] = {0xE9, 0xFC, 0xDF, 0x4E2D, 0x6587, 0x1F600};
            unsigned k = (unsigned)((x >> 40) % (latin ? 3 : bmp ? 5 : 6));
            cp = extra[k];
        }
        sc_utf8_put(&b, cp);
    }
    const uint8_t *p;
    size_t len, nch;
    if (sc_charset_encode(cs, col->charset, b.data ? (const char *)b.data : "", b.len, a, &p, &len, &nch, NULL) < 0) {
        p = (const uint8_t *)"";
        len = 0;
    }
    cdch_buf_free(&b);
    out->kind = CDCH_V_STRING;
    out->u.bytes.ptr = p;
    out->u.bytes.len = len;
}

static cdch_json *jstr(cdch_arena *a, const char *s, size_t n)
{
    cdch_json *j = cdch_arena_alloc(a, sizeof *j);
    j->type = CDCH_JSON_STRING;
    j->u.str.ptr = cdch_arena_memdup(a, s, n);
    j->u.str.len = n;
    return j;
}

static cdch_json *jint(cdch_arena *a, int64_t v)
{
    cdch_json *j = cdch_arena_alloc(a, sizeof *j);
    j->type = CDCH_JSON_INT;
    j->u.i = v;
    return j;
}

/* A random small JSON object: {"id":..,"ok":..,"name":"..","tags":[..]} (MySQL key order). */
static cdch_json *gen_json(cdch_arena *a, rng *r, uint32_t value_bytes)
{
    cdch_json *o = cdch_arena_alloc(a, sizeof *o);
    o->type = CDCH_JSON_OBJECT;
    o->u.obj.count = 4;
    o->u.obj.members = cdch_arena_alloc(a, 4 * sizeof(cdch_json_member));
    static const char *const keys[] = {"id", "ok", "name", "tags"};
    char s[64];
    size_t n = value_bytes < sizeof s ? value_bytes : sizeof s - 1;
    for (size_t i = 0; i < n; i++)
        s[i] = (char)('a' + rng_below(r, 26));
    cdch_json *tags = cdch_arena_alloc(a, sizeof *tags);
    tags->type = CDCH_JSON_ARRAY;
    tags->u.arr.count = (size_t)rng_below(r, 4);
    tags->u.arr.items = cdch_arena_alloc(a, 4 * sizeof(cdch_json *));
    for (size_t i = 0; i < tags->u.arr.count; i++)
        tags->u.arr.items[i] = jint(a, (int64_t)rng_below(r, 1000));
    cdch_json *ok = cdch_arena_alloc(a, sizeof *ok);
    ok->type = rng_below(r, 2) ? CDCH_JSON_TRUE : CDCH_JSON_FALSE;
    cdch_json *vals[4] = {jint(a, (int64_t)(rng_next(r) >> 1)), ok, jstr(a, s, n), tags};
    for (int i = 0; i < 4; i++) {
        o->u.obj.members[i].key = keys[i];
        o->u.obj.members[i].key_len = strlen(keys[i]);
        o->u.obj.members[i].value = vals[i];
    }
    return o;
}

/* ---- a random valid value per type family (x: the value's first draw) ------------- */

static void gen_int(rng *r, const cdch_coldef *d, uint64_t x, cdch_value *out)
{
    unsigned bits = d->type == CDCH_T_TINY ? 8 : d->type == CDCH_T_SHORT ? 16 : d->type == CDCH_T_INT24 ? 24
                    : d->type == CDCH_T_LONG ? 32 : 64;
    /* mostly small numbers, sometimes the whole range */
    if (rng_below(r, 4))
        bits = bits < 16 ? bits : 16;
    if (d->is_unsigned) {
        out->kind = CDCH_V_UINT;
        out->u.u = bits == 64 ? x : x & ((1ULL << bits) - 1);
    } else {
        out->kind = CDCH_V_INT;
        uint64_t m = bits == 64 ? x : x & ((1ULL << bits) - 1);
        if (bits < 64 && (m >> (bits - 1)))
            m |= ~((1ULL << bits) - 1);
        out->u.i = (int64_t)m;
    }
}

static void gen_decimal(cdch_arena *a, rng *r, const cdch_coldef *d, uint64_t x, cdch_value *out)
{
    unsigned prec = d->meta >> 8, scale = d->meta & 0xFF, intg = prec - scale;
    char buf[80];
    size_t k = 0;
    bool neg = !d->is_unsigned && (x & 1);
    size_t nint = (size_t)rng_below(r, intg + 1);
    bool nonzero = false;
    if (neg)
        buf[k++] = '-';
    size_t start = k;
    if (nint == 0) {
        buf[k++] = '0';
    } else {
        buf[k++] = (char)('1' + rng_below(r, 9));
        nonzero = true;
        for (size_t i = 1; i < nint; i++)
            buf[k++] = (char)('0' + rng_below(r, 10));
    }
    if (scale) {
        buf[k++] = '.';
        for (unsigned i = 0; i < scale; i++) {
            char ch = (char)('0' + rng_below(r, 10));
            nonzero = nonzero || ch != '0';
            buf[k++] = ch;
        }
    }
    const char *p = buf;
    if (neg && !nonzero) { /* MySQL prints -0 as 0 */
        p = buf + start;
        k -= start;
    }
    out->kind = CDCH_V_DECIMAL;
    out->u.bytes.ptr = cdch_arena_memdup(a, p, k);
    out->u.bytes.len = k;
}

/* DATE, DATETIME, TIME (TIMESTAMP is seconds since the epoch: gen_timestamp). */
static void gen_temporal(rng *r, const cdch_coldef *d, cdch_value *out)
{
    cdch_temporal t;
    memset(&t, 0, sizeof t);
    if (d->type == CDCH_T_TIME2) {
        t.hour = (uint16_t)rng_below(r, 839);
        t.neg = rng_below(r, 2);
        out->kind = CDCH_V_TIME;
    } else {
        t.year = (uint16_t)(1970 + rng_below(r, 68));
        t.month = (uint8_t)(1 + rng_below(r, 12));
        t.day = (uint8_t)(1 + rng_below(r, 28));
        out->kind = d->type == CDCH_T_DATETIME2 ? CDCH_V_DATETIME : CDCH_V_DATE;
        if (d->type == CDCH_T_DATETIME2)
            t.hour = (uint16_t)rng_below(r, 24);
    }
    if (d->type != CDCH_T_DATE && d->type != CDCH_T_NEWDATE) {
        t.minute = (uint8_t)rng_below(r, 60);
        t.second = (uint8_t)rng_below(r, 60);
        unsigned fsp = d->meta <= 6 ? d->meta : 0;
        t.usec = (uint32_t)rng_below(r, 1000000);
        t.usec -= t.usec % k_frac_div[fsp];
    }
    if (t.neg && !t.hour && !t.minute && !t.second && !t.usec)
        t.neg = false;
    out->u.t = t;
}

static void gen_timestamp(rng *r, const cdch_coldef *d, cdch_value *out)
{
    unsigned fsp = d->meta <= 6 ? d->meta : 0;
    out->kind = CDCH_V_TIMESTAMP;
    out->u.ts.sec = (uint32_t)(1 + rng_below(r, INT32_MAX));
    out->u.ts.usec = (uint32_t)rng_below(r, 1000000);
    out->u.ts.usec -= out->u.ts.usec % k_frac_div[fsp];
}

/* CHAR, VARCHAR, TEXT (text in the column's charset), BINARY, VARBINARY,
 * BLOB (random bytes); ENUM and SET (a member index, a member bitmap). */
static void gen_string(cdch_arena *a, rng *r, const cdch_sc_column *col, uint64_t x, uint32_t value_bytes,
                       cdch_value *out)
{
    const cdch_coldef *d = &col->def;
    if (d->type == CDCH_T_STRING && d->real_type == CDCH_T_ENUM) {
        out->kind = CDCH_V_ENUM;
        out->u.u = 1 + rng_below(r, d->nlabels ? d->nlabels : 1);
        return;
    }
    if (d->type == CDCH_T_STRING && d->real_type == CDCH_T_SET) {
        out->kind = CDCH_V_SET;
        out->u.u = d->nlabels >= 64 ? x : x & ((1ULL << d->nlabels) - 1);
        return;
    }
    uint64_t maxb = sc_col_max_bytes(col);
    if (d->collation == CDCH_COLLATION_BINARY) {
        size_t n = value_bytes < maxb ? value_bytes : (size_t)maxb;
        uint8_t *p = cdch_arena_alloc(a, n + 1);
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)rng_next(r);
        if (d->type == CDCH_T_STRING)
            n = sc_charset_strip_pad(SC_CS_BINARY, p, n);
        out->kind = CDCH_V_STRING;
        out->u.bytes.ptr = p;
        out->u.bytes.len = n;
        return;
    }
    uint64_t cap = d->type == CDCH_T_BLOB ? maxb / (col->mbmaxlen ? col->mbmaxlen : 1) : col->char_length;
    gen_text(a, r, col, value_bytes < cap ? value_bytes : (size_t)cap, out);
}

static void gen_geometry(cdch_arena *a, rng *r, const cdch_coldef *d, cdch_value *out)
{
    cdch_buf b = CDCH_BUF_INIT;
    wkb_geom(&b, r, d->geometry_type);
    out->kind = CDCH_V_GEOMETRY;
    out->u.geom.srid = 0;
    out->u.geom.wkb = cdch_arena_memdup(a, b.data, b.len);
    out->u.geom.len = b.len;
    cdch_buf_free(&b);
}

static void gen_vector(cdch_arena *a, rng *r, const cdch_sc_column *col, cdch_value *out)
{
    size_t n = col->char_length ? col->char_length : 1;
    uint8_t *p = cdch_arena_alloc(a, 4 * n);
    for (size_t i = 0; i < n; i++) {
        float f = (float)((int64_t)rng_below(r, 2001) - 1000) / 256.0f;
        memcpy(p + 4 * i, &f, 4);
    }
    out->kind = CDCH_V_VECTOR;
    out->u.bytes.ptr = p;
    out->u.bytes.len = 4 * n;
}

/* A random valid value of col; value_bytes sizes strings. Every value (NULL
 * aside) first draws x, whether its family uses it or not: the streams of a
 * seed stay what they were. */
static void gen_value(cdch_arena *a, rng *r, const cdch_sc_column *col, uint32_t value_bytes, bool allow_null,
                      cdch_value *out)
{
    memset(out, 0, sizeof *out);
    const cdch_coldef *d = &col->def;
    if (allow_null && d->nullable && rng_below(r, 16) == 0) {
        out->kind = CDCH_V_NULL;
        return;
    }
    uint64_t x = rng_next(r);
    switch (d->type) {
    case CDCH_T_TINY:
    case CDCH_T_SHORT:
    case CDCH_T_INT24:
    case CDCH_T_LONG:
    case CDCH_T_LONGLONG: gen_int(r, d, x, out); return;
    case CDCH_T_NEWDECIMAL: gen_decimal(a, r, d, x, out); return;
    case CDCH_T_FLOAT: {
        float f = (float)((int64_t)(x % 2000001) - 1000000) / 64.0f;
        out->kind = CDCH_V_FLOAT;
        out->u.f = d->is_unsigned ? fabsf(f) : f;
        return;
    }
    case CDCH_T_DOUBLE: {
        double v = (double)((int64_t)(x >> 12) - (1LL << 51)) / 4096.0;
        out->kind = CDCH_V_DOUBLE;
        out->u.d = d->is_unsigned ? fabs(v) : v;
        return;
    }
    case CDCH_T_DATE:
    case CDCH_T_NEWDATE:
    case CDCH_T_DATETIME2:
    case CDCH_T_TIME2: gen_temporal(r, d, out); return;
    case CDCH_T_TIMESTAMP2: gen_timestamp(r, d, out); return;
    case CDCH_T_YEAR:
        out->kind = CDCH_V_YEAR;
        out->u.u = 1901 + rng_below(r, 255);
        return;
    case CDCH_T_BIT: {
        unsigned bits = (d->meta >> 8) * 8 + (d->meta & 0xFF);
        out->kind = CDCH_V_BIT;
        out->u.u = bits >= 64 ? x : x & ((1ULL << bits) - 1);
        return;
    }
    case CDCH_T_STRING:
    case CDCH_T_VARCHAR:
    case CDCH_T_BLOB: gen_string(a, r, col, x, value_bytes, out); return;
    case CDCH_T_JSON:
        out->kind = CDCH_V_JSON;
        out->u.json = gen_json(a, r, value_bytes);
        return;
    case CDCH_T_GEOMETRY: gen_geometry(a, r, d, out); return;
    case CDCH_T_VECTOR: gen_vector(a, r, col, out); return;
    default: out->kind = CDCH_V_NULL; return;
    }
}

static void set_int(const cdch_sc_column *col, uint64_t v, cdch_value *out)
{
    memset(out, 0, sizeof *out);
    out->kind = col->def.is_unsigned ? CDCH_V_UINT : CDCH_V_INT;
    out->u.u = v;
}

/* ---- json_staging ---------------------------------------------------------------- */

static cdch_json *staging_doc(cdch_bulk_cursor *c, uint64_t row, uint64_t version)
{
    static const char *const words[] = {"pending", "loaded", "staged", "validated",
                                        "merged",  "queued", "synced", "archived"};
    const cdch_sc_bulk *b = c->b;
    cdch_arena *a = &c->arena;
    size_t n = (size_t)b->doc_keys + 2;
    cdch_json *o = cdch_arena_alloc(a, sizeof *o);
    o->type = CDCH_JSON_OBJECT;
    o->u.obj.count = n;
    o->u.obj.members = cdch_arena_alloc(a, n * sizeof(cdch_json_member));
    /* MySQL key order: "id" (2) < "batch" (5) < "attr_NNNNN" (10), attrs ascending */
    o->u.obj.members[0].key = "id";
    o->u.obj.members[0].key_len = 2;
    o->u.obj.members[0].value = jint(a, (int64_t)row);
    o->u.obj.members[1].key = "batch";
    o->u.obj.members[1].key_len = 5;
    o->u.obj.members[1].value = jint(a, (int64_t)version);
    for (uint32_t k = 0; k < b->doc_keys; k++) {
        char *key = cdch_arena_alloc(a, 16);
        snprintf(key, 16, "attr_%05u", (unsigned)k);
        /* most members keep their word across versions; every 4th follows the batch */
        uint64_t h = sc_mix64(b->seed ^ sc_mix64(row * 131 + k));
        const char *w = words[(h + (k % 4 == 0 ? version : 0)) % 8];
        char unit[48];
        int ul = snprintf(unit, sizeof unit, "%s-%u;", w, (unsigned)(k % 4 == 0 ? version % 1000 : k % 10));
        char *v = cdch_arena_alloc(a, b->value_bytes + 1);
        for (uint32_t i = 0; i < b->value_bytes; i++)
            v[i] = unit[i % (uint32_t)ul];
        o->u.obj.members[k + 2].key = key;
        o->u.obj.members[k + 2].key_len = 10;
        cdch_json *s = cdch_arena_alloc(a, sizeof *s);
        s->type = CDCH_JSON_STRING;
        s->u.str.ptr = v;
        s->u.str.len = b->value_bytes;
        o->u.obj.members[k + 2].value = s;
    }
    return o;
}

/* Row r of the table at a version (json_staging, random_keys). */
static cdch_value *versioned_row(cdch_bulk_cursor *c, uint64_t key, uint64_t version)
{
    const cdch_sc_table *t = c->t;
    cdch_value *row = cdch_arena_alloc(&c->arena, t->ncols * sizeof *row);
    rng r;
    row_rng(&r, c->b->seed, key, version);
    for (size_t j = 0; j < t->ncols; j++) {
        const cdch_sc_column *col = &t->cols[j];
        if (j == c->key_col) {
            set_int(col, key, &row[j]);
        } else if (c->b->kind == CDCH_BULK_JSON_STAGING && col->def.type == CDCH_T_JSON) {
            row[j].kind = CDCH_V_JSON;
            row[j].u.json = staging_doc(c, key, version);
        } else if (j == c->counter_col) {
            int64_t min;
            uint64_t max;
            sc_int_range(col, &min, &max);
            set_int(col, max == UINT64_MAX ? version : version % (max + 1), &row[j]);
        } else {
            gen_value(&c->arena, &r, col, c->b->value_bytes, true, &row[j]);
        }
    }
    return row;
}

/* ---- inserts ------------------------------------------------------------------------ */

static bool insert_row(cdch_bulk_cursor *c, cdch_value **out)
{
    const cdch_sc_table *t = c->t;
    uint64_t id = c->b->first_id + c->seq;
    if (c->key_col != NO_COL) {
        int64_t min;
        uint64_t max;
        sc_int_range(&t->cols[c->key_col], &min, &max);
        if (id < c->b->first_id || id > max)
            return false; /* key range exhausted */
    }
    cdch_value *row = cdch_arena_alloc(&c->arena, t->ncols * sizeof *row);
    rng r;
    row_rng(&r, c->b->seed, c->seq, 0);
    for (size_t j = 0; j < t->ncols; j++) {
        const cdch_sc_column *col = &t->cols[j];
        if (j == c->key_col) {
            set_int(col, id, &row[j]);
            continue;
        }
        if (col->primary_key && sc_col_is_chartext(col) && col->char_length >= 8) {
            char k[24];
            int n = snprintf(k, sizeof k, "k%llu", (unsigned long long)c->seq);
            const uint8_t *p;
            size_t len, nch;
            if ((size_t)n <= col->char_length &&
                sc_charset_encode(sc_charset_kind(col->charset), col->charset, k, (size_t)n, &c->arena, &p, &len, &nch,
                                  NULL) == 0) {
                row[j].kind = CDCH_V_STRING;
                row[j].u.bytes.ptr = p;
                row[j].u.bytes.len = len;
                continue;
            }
        }
        gen_value(&c->arena, &r, col, c->b->value_bytes, !col->primary_key, &row[j]);
    }
    *out = row;
    return true;
}

/* ---- public ---------------------------------------------------------------------------- */

cdch_bulk_cursor *cdch_bulk_start(const cdch_scenario *s, const cdch_sc_bulk *b)
{
    if (!s || !b || !b->table)
        return NULL;
    cdch_bulk_cursor *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->s = s;
    c->b = b;
    c->t = b->table;
    c->key_col = c->counter_col = NO_COL;
    size_t npk = 0;
    for (size_t j = 0; j < c->t->ncols; j++)
        if (c->t->cols[j].primary_key) {
            npk++;
            c->key_col = j;
        }
    if (npk != 1 || !sc_col_is_int(&c->t->cols[c->key_col]))
        c->key_col = NO_COL;
    if (b->kind == CDCH_BULK_RANDOM_KEYS) {
        for (size_t j = 0; j < c->t->ncols && c->counter_col == NO_COL; j++)
            if (j != c->key_col && sc_col_is_int(&c->t->cols[j]))
                c->counter_col = j;
        c->versions = calloc(b->keys ? b->keys : 1, sizeof *c->versions);
        if (!c->versions) {
            free(c);
            return NULL;
        }
        rng_seed(&c->stream, sc_mix64(b->seed ^ 0x6b657973ULL));
    }
    return c;
}

static uint64_t row_bytes(cdch_bulk_cursor *c, const cdch_value *row)
{
    uint64_t n = 0;
    if (!row)
        return 0;
    for (size_t j = 0; j < c->t->ncols; j++) {
        if (row[j].kind == CDCH_V_NULL)
            continue;
        cdch_buf_reset(&c->scratch);
        if (cdch_value_encode(&c->t->cols[j].def, &row[j], &c->scratch, NULL) == 0)
            n += c->scratch.len;
    }
    return n;
}

int cdch_bulk_next(cdch_bulk_cursor *c, cdch_sc_txn *txn)
{
    if (!c || c->done)
        return 0;
    const cdch_sc_bulk *b = c->b;
    if ((b->transactions && c->txn_no >= b->transactions) || (b->target_bytes && c->bytes >= b->target_bytes)) {
        c->done = true;
        return 0;
    }
    cdch_arena_reset(&c->arena);
    memset(txn, 0, sizeof *txn);
    cdch_sc_stmt *st = cdch_arena_alloc(&c->arena, sizeof *st);
    st->table = c->t;
    st->mark = b->mark;
    st->op = b->kind == CDCH_BULK_INSERTS ? CDCH_SC_INSERT : CDCH_SC_UPDATE;
    st->rows = cdch_arena_alloc(&c->arena, b->rows_per_txn * sizeof *st->rows);
    for (uint64_t i = 0; i < b->rows_per_txn; i++) {
        cdch_sc_row *r = &st->rows[st->nrows];
        r->mark = b->mark;
        if (b->kind == CDCH_BULK_JSON_STAGING) {
            uint64_t u = c->seq++;
            uint64_t key = u % b->keys + 1, version = u / b->keys + 1;
            r->before = versioned_row(c, key, version - 1);
            r->after = versioned_row(c, key, version);
        } else if (b->kind == CDCH_BULK_RANDOM_KEYS) {
            uint64_t key = rng_below(&c->stream, b->keys) + 1;
            uint32_t v = c->versions[key - 1]++;
            r->before = versioned_row(c, key, v);
            r->after = versioned_row(c, key, (uint64_t)v + 1);
        } else {
            if (!insert_row(c, &r->after))
                break;
            c->seq++;
        }
        c->bytes += row_bytes(c, r->before) + row_bytes(c, r->after);
        st->nrows++;
    }
    if (st->nrows == 0) {
        c->done = true;
        return 0;
    }
    txn->kind = CDCH_SC_TXN_DML;
    txn->nstmts = 1;
    txn->stmts = st;
    txn->mark = b->mark;
    txn->compress = c->txn_no == 0 ? b->compress : CDCH_SC_COMPRESS_DEFAULT;
    c->txn_no++;
    return 1;
}

void cdch_bulk_free(cdch_bulk_cursor *c)
{
    if (!c)
        return;
    cdch_arena_free(&c->arena);
    cdch_buf_free(&c->scratch);
    free(c->versions);
    free(c);
}
