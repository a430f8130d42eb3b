/* geometry.c — GEOMETRY values for scenarios: WKT -> WKB and WKB checks.
 *
 * MySQL stores a geometry as a 4-byte SRID followed by little-endian WKB
 * (OGC types 1..7, 2-D points only); that is what row images carry.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scenario_internal.h"
#include "cursor.h"

#define MAX_GEOM_DEPTH 32

static const char *const k_geom_names[] = {"geometry",        "point",        "linestring",
                                           "polygon",         "multipoint",   "multilinestring",
                                           "multipolygon",    "geometrycollection"};

const char *sc_geom_name(uint32_t subtype)
{
    return subtype < 8 ? k_geom_names[subtype] : "geometry";
}

/* ---- WKT ------------------------------------------------------------------------ */

typedef struct wkt {
    const char *s;
    size_t len, pos;
    cdch_buf *out;
    cdch_err *err;
} wkt;

static void w_ws(wkt *w)
{
    while (w->pos < w->len && isspace((unsigned char)w->s[w->pos]))
        w->pos++;
}

static bool w_char(wkt *w, char c)
{
    w_ws(w);
    if (w->pos < w->len && w->s[w->pos] == c) {
        w->pos++;
        return true;
    }
    return false;
}

static int w_fail(wkt *w, const char *what)
{
    return cdch_err_set(w->err, "bad WKT at character %zu: expected %s", w->pos + 1, what);
}

static int w_expect(wkt *w, char c)
{
    char what[4] = {'\'', c, '\'', 0};
    return w_char(w, c) ? 0 : w_fail(w, what);
}

static int w_number(wkt *w, double *out)
{
    w_ws(w);
    char buf[64];
    size_t n = 0;
    while (w->pos + n < w->len && n + 1 < sizeof buf &&
           (isdigit((unsigned char)w->s[w->pos + n]) || strchr("+-.eE", w->s[w->pos + n])))
    {
        buf[n] = w->s[w->pos + n];
        n++;
    }
    buf[n] = '\0';
    char *end;
    double d = n ? strtod(buf, &end) : 0;
    if (n == 0 || *end || !isfinite(d))
        return w_fail(w, "a number");
    w->pos += n;
    *out = d;
    return 0;
}

static int w_coord(wkt *w)
{
    double x, y;
    if (w_number(w, &x) < 0 || w_number(w, &y) < 0)
        return -1;
    uint64_t bx, by;
    memcpy(&bx, &x, 8);
    memcpy(&by, &y, 8);
    cdch_put_le64(w->out, bx);
    cdch_put_le64(w->out, by);
    return 0;
}

/* "(item, item, ...)" -> a little-endian count, then the items item() writes;
 * *count (when not NULL) = their number. */
static int w_list(wkt *w, int (*item)(wkt *w, const void *arg), const void *arg, uint32_t *count)
{
    if (w_expect(w, '(') < 0)
        return -1;
    size_t count_at = w->out->len;
    cdch_put_le32(w->out, 0);
    uint32_t n = 0;
    do {
        if (item(w, arg) < 0)
            return -1;
        n++;
    } while (w_char(w, ','));
    if (w_expect(w, ')') < 0)
        return -1;
    cdch_buf_patch_le(w->out, count_at, n, 4);
    if (count)
        *count = n;
    return 0;
}

static int w_coord_item(wkt *w, const void *arg)
{
    (void)arg;
    return w_coord(w);
}

/* "(x y, x y, ...)" -> count + points; min points, ring closure */
static int w_points(wkt *w, uint32_t min, bool ring)
{
    size_t first = w->out->len + 4; /* after the count */
    uint32_t n;
    if (w_list(w, w_coord_item, NULL, &n) < 0)
        return -1;
    if (n < min)
        return cdch_err_set(w->err, "bad WKT: a %s needs at least %u points, got %u", ring ? "polygon ring" : "linestring",
                            min, n);
    if (ring && memcmp(w->out->data + first, w->out->data + w->out->len - 16, 16) != 0)
        return cdch_err_set(w->err, "bad WKT: polygon ring is not closed (last point must equal the first)");
    return 0;
}

static int w_ring_item(wkt *w, const void *arg)
{
    (void)arg;
    return w_points(w, 4, true);
}

static int w_polygon_body(wkt *w) { return w_list(w, w_ring_item, NULL, NULL); }

static int w_geometry(wkt *w, unsigned depth);

static void w_header(wkt *w, uint32_t type)
{
    cdch_put_u8(w->out, 1);
    cdch_put_le32(w->out, type);
}

/* A member of a MULTI* or GEOMETRYCOLLECTION body. */
typedef struct w_member {
    uint32_t type; /* of the collection */
    unsigned depth;
} w_member;

static int w_member_item(wkt *w, const void *arg)
{
    const w_member *m = arg;
    switch (m->type) {
    case SC_GEOM_MULTIPOINT: {
        w_header(w, SC_GEOM_POINT);
        bool paren = w_char(w, '(');
        if (w_coord(w) < 0 || (paren && w_expect(w, ')') < 0))
            return -1;
        return 0;
    }
    case SC_GEOM_MULTILINESTRING: w_header(w, SC_GEOM_LINESTRING); return w_points(w, 2, false);
    case SC_GEOM_MULTIPOLYGON: w_header(w, SC_GEOM_POLYGON); return w_polygon_body(w);
    default: return w_geometry(w, m->depth + 1);
    }
}

static int w_body(wkt *w, uint32_t type, unsigned depth)
{
    switch (type) {
    case SC_GEOM_POINT:
        if (w_expect(w, '(') < 0 || w_coord(w) < 0 || w_expect(w, ')') < 0)
            return -1;
        return 0;
    case SC_GEOM_LINESTRING: return w_points(w, 2, false);
    case SC_GEOM_POLYGON: return w_polygon_body(w);
    default: break;
    }
    if (type == SC_GEOM_GEOMETRYCOLLECTION) {
        w_ws(w);
        if (w->len - w->pos >= 5 && strncasecmp(w->s + w->pos, "empty", 5) == 0) {
            w->pos += 5;
            cdch_put_le32(w->out, 0);
            return 0;
        }
    }
    w_member m = {type, depth};
    return w_list(w, w_member_item, &m, NULL);
}

static int w_geometry(wkt *w, unsigned depth)
{
    if (depth > MAX_GEOM_DEPTH)
        return cdch_err_set(w->err, "bad WKT: geometry collections nested deeper than %d", MAX_GEOM_DEPTH);
    w_ws(w);
    size_t start = w->pos;
    while (w->pos < w->len && isalpha((unsigned char)w->s[w->pos]))
        w->pos++;
    size_t n = w->pos - start;
    uint32_t type = 0;
    for (uint32_t i = 1; i < 8; i++)
        if (strlen(k_geom_names[i]) == n && strncasecmp(k_geom_names[i], w->s + start, n) == 0)
            type = i;
    if (n == 14 && strncasecmp("geomcollection", w->s + start, n) == 0)
        type = SC_GEOM_GEOMETRYCOLLECTION;
    if (!type) {
        w->pos = start;
        return w_fail(w, "a geometry type (POINT, LINESTRING, POLYGON, MULTIPOINT, MULTILINESTRING, MULTIPOLYGON, "
                         "GEOMETRYCOLLECTION)");
    }
    w_header(w, type);
    return w_body(w, type, depth);
}

int sc_wkt_to_wkb(const char *text, size_t len, cdch_buf *out, cdch_err *err)
{
    wkt w = {text, len, 0, out, err};
    if (w_geometry(&w, 0) < 0)
        return -1;
    w_ws(&w);
    if (w.pos != w.len)
        return w_fail(&w, "the end of the text");
    return 0;
}

/* ---- WKB check ------------------------------------------------------------------- */

typedef struct wkbr {
    const uint8_t *p;
    size_t len, pos;
    cdch_err *err;
} wkbr;

static int r_u32(wkbr *r, uint32_t *v)
{
    if (r->len - r->pos < 4)
        return cdch_err_set(r->err, "bad WKB: truncated at byte %zu", r->pos);
    const uint8_t *q = r->p + r->pos;
    *v = cdch_le32(q);
    r->pos += 4;
    return 0;
}

static int r_points(wkbr *r, uint32_t n, bool ring)
{
    if ((r->len - r->pos) / 16 < n)
        return cdch_err_set(r->err, "bad WKB: %u points do not fit the remaining %zu bytes", n, r->len - r->pos);
    for (uint32_t i = 0; i < n; i++) {
        double x, y;
        memcpy(&x, r->p + r->pos + 16 * (size_t)i, 8);
        memcpy(&y, r->p + r->pos + 16 * (size_t)i + 8, 8);
        if (!isfinite(x) || !isfinite(y))
            return cdch_err_set(r->err, "bad WKB: coordinate is not a finite number");
    }
    if (ring && n > 0 && memcmp(r->p + r->pos, r->p + r->pos + 16 * (size_t)(n - 1), 16) != 0)
        return cdch_err_set(r->err, "bad WKB: polygon ring is not closed");
    r->pos += 16 * (size_t)n;
    return 0;
}

static int r_geom(wkbr *r, uint32_t want, unsigned depth)
{
    if (depth > MAX_GEOM_DEPTH)
        return cdch_err_set(r->err, "bad WKB: nested deeper than %d", MAX_GEOM_DEPTH);
    if (r->pos >= r->len)
        return cdch_err_set(r->err, "bad WKB: truncated at byte %zu", r->pos);
    uint8_t order = r->p[r->pos++];
    if (order != 1)
        return cdch_err_set(r->err, "bad WKB: byte order %u at byte %zu (MySQL stores little-endian WKB, 01)", order,
                            r->pos - 1);
    uint32_t type = 0, n = 0;
    if (r_u32(r, &type) < 0)
        return -1;
    if (type < 1 || type > 7)
        return cdch_err_set(r->err, "bad WKB: geometry type %u is not 1..7 (2-D OGC types)", type);
    if (want != SC_GEOM_GEOMETRY && type != want)
        return cdch_err_set(r->err, "a %s value does not fit a %s column", sc_geom_name(type), sc_geom_name(want));
    switch (type) {
    case SC_GEOM_POINT: return r_points(r, 1, false);
    case SC_GEOM_LINESTRING:
        if (r_u32(r, &n) < 0)
            return -1;
        if (n < 2)
            return cdch_err_set(r->err, "bad WKB: a linestring needs at least 2 points");
        return r_points(r, n, false);
    case SC_GEOM_POLYGON:
        if (r_u32(r, &n) < 0)
            return -1;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t m = 0;
            if (r_u32(r, &m) < 0)
                return -1;
            if (m < 4)
                return cdch_err_set(r->err, "bad WKB: a polygon ring needs at least 4 points");
            if (r_points(r, m, true) < 0)
                return -1;
        }
        return 0;
    default: {
        uint32_t inner = type == SC_GEOM_MULTIPOINT        ? SC_GEOM_POINT
                         : type == SC_GEOM_MULTILINESTRING ? SC_GEOM_LINESTRING
                         : type == SC_GEOM_MULTIPOLYGON    ? SC_GEOM_POLYGON
                                                           : SC_GEOM_GEOMETRY;
        if (r_u32(r, &n) < 0)
            return -1;
        for (uint32_t i = 0; i < n; i++)
            if (r_geom(r, inner, depth + 1) < 0)
                return -1;
        return 0;
    }
    }
}

int sc_wkb_check(const uint8_t *p, size_t len, uint32_t want, cdch_err *err)
{
    wkbr r = {p, len, 0, err};
    if (r_geom(&r, want, 0) < 0)
        return -1;
    if (r.pos != len)
        return cdch_err_set(err, "bad WKB: %zu bytes left over after the geometry", len - r.pos);
    return 0;
}
