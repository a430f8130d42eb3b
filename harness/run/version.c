/* version.c — version order and ranges (version.h). */
#include "version.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* One part of a version: a number (digits, leading zeros skipped) or a
 * qualifier word; [p, p+n) in the string. */
typedef struct vpart {
    const char *p;
    size_t n;
    bool num;
    bool present;
} vpart;

typedef struct vscan {
    const char *s, *end; /* end: the '+' of a variant, or the string's end */
} vscan;

static void vscan_init(vscan *v, const char *s)
{
    if ((s[0] == 'v' || s[0] == 'V') && isdigit((unsigned char)s[1]))
        s++;
    v->s = s;
    const char *plus = strchr(s, '+');
    v->end = plus ? plus : s + strlen(s);
}

static vpart vscan_next(vscan *v)
{
    vpart r = {NULL, 0, false, false};
    while (v->s < v->end && (*v->s == '.' || *v->s == '-' || *v->s == '_'))
        v->s++;
    if (v->s >= v->end)
        return r;
    r.present = true;
    r.p = v->s;
    r.num = isdigit((unsigned char)*v->s) != 0;
    while (v->s < v->end && *v->s != '.' && *v->s != '-' && *v->s != '_' &&
           (isdigit((unsigned char)*v->s) != 0) == r.num)
        v->s++;
    r.n = (size_t)(v->s - r.p);
    if (r.num)
        while (r.n > 1 && r.p[0] == '0')
            r.p++, r.n--;
    return r;
}

static bool word_is(const vpart *q, const char *w)
{
    size_t n = strlen(w);
    if (q->n != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)q->p[i]) != w[i])
            return false;
    return true;
}

enum { RANK_RELEASE = 6, RANK_OTHER = 8 };

static int qual_rank(const vpart *q)
{
    static const struct {
        const char *w;
        int rank;
    } k[] = {{"dev", 0},  {"alpha", 1}, {"a", 1},       {"beta", 2},     {"b", 2},     {"milestone", 3},
             {"m", 3},    {"rc", 4},    {"cr", 4},      {"c", 4},        {"pre", 4},   {"preview", 4},
             {"snapshot", 5}, {"final", 6}, {"ga", 6},  {"release", 6},  {"r", 6},     {"sp", 7},
             {"post", 7}, {"p", 7}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (word_is(q, k[i].w))
            return k[i].rank;
    return RANK_OTHER;
}

static int cmp_num(const vpart *a, const vpart *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    int c = memcmp(a->p, b->p, a->n);
    return c < 0 ? -1 : c > 0;
}

static bool num_zero(const vpart *a) { return a->n == 1 && a->p[0] == '0'; }

static int cmp_qual(const vpart *a, const vpart *b)
{
    int ra = qual_rank(a), rb = qual_rank(b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (ra != RANK_OTHER)
        return 0;
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++) {
        int ca = tolower((unsigned char)a->p[i]), cb = tolower((unsigned char)b->p[i]);
        if (ca != cb)
            return ca < cb ? -1 : 1;
    }
    return a->n == b->n ? 0 : a->n < b->n ? -1 : 1;
}

/* A part against a missing one (the other version ended). */
static int cmp_missing(const vpart *a)
{
    if (a->num)
        return num_zero(a) ? 0 : 1;
    int r = qual_rank(a);
    return r == RANK_RELEASE ? 0 : r < RANK_RELEASE ? -1 : 1;
}

/* A number against a qualifier: a pre-release word is before any number; a
 * release word stands for 0; later words are after 0 but before 1. */
static int cmp_num_qual(const vpart *num, const vpart *q)
{
    int r = qual_rank(q);
    if (r < RANK_RELEASE)
        return 1;
    if (r == RANK_RELEASE)
        return num_zero(num) ? 0 : 1;
    return num_zero(num) ? -1 : 1;
}

int cdch_version_cmp(const char *a, const char *b)
{
    vscan sa, sb;
    vscan_init(&sa, a);
    vscan_init(&sb, b);
    for (;;) {
        vpart pa = vscan_next(&sa), pb = vscan_next(&sb);
        if (!pa.present && !pb.present)
            return 0;
        int c;
        if (!pb.present)
            c = cmp_missing(&pa);
        else if (!pa.present)
            c = -cmp_missing(&pb);
        else if (pa.num && pb.num)
            c = cmp_num(&pa, &pb);
        else if (!pa.num && !pb.num)
            c = cmp_qual(&pa, &pb);
        else if (pa.num)
            c = cmp_num_qual(&pa, &pb);
        else
            c = -cmp_num_qual(&pb, &pa);
        if (c)
            return c;
    }
}

size_t cdch_version_common(const char *a, const char *b)
{
    vscan sa, sb;
    vscan_init(&sa, a);
    vscan_init(&sb, b);
    size_t n = 0;
    for (;;) {
        vpart pa = vscan_next(&sa), pb = vscan_next(&sb);
        if (!pa.present || !pb.present || pa.num != pb.num)
            return n;
        if (pa.num ? cmp_num(&pa, &pb) != 0 : cmp_qual(&pa, &pb) != 0)
            return n;
        n++;
    }
}

bool cdch_version_valid(const char *s)
{
    if (!s || !*s)
        return false;
    vscan v;
    vscan_init(&v, s);
    bool digit = false;
    for (const char *p = v.s; p < v.end; p++) {
        if (isdigit((unsigned char)*p))
            digit = true;
        else if (!isalpha((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_')
            return false;
    }
    if (*v.end == '+' && !v.end[1])
        return false;
    return digit && v.end > v.s;
}

const char *cdch_version_variant(const char *version)
{
    const char *plus = strchr(version, '+');
    return plus ? plus + 1 : version + strlen(version);
}

void cdch_vrange_free(cdch_vrange *r)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->items[i].hi != r->items[i].lo)
            free(r->items[i].hi);
        free(r->items[i].lo);
    }
    free(r->items);
    r->items = NULL;
    r->n = 0;
    r->any = false;
}

static cdch_vrange_item *add_item(cdch_vrange *r)
{
    r->items = cdch_xrealloc(r->items, (r->n + 1) * sizeof *r->items);
    cdch_vrange_item *it = &r->items[r->n++];
    memset(it, 0, sizeof *it);
    return it;
}

int cdch_vrange_parse(const char *text, cdch_vrange *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return cdch_err_set(err, "no version range");
    char *copy = cdch_xstrdup(text), *next = copy;
    cdch_vrange_item *open = NULL; /* an interval whose lower bound waits for its upper */
    size_t nitems = 0;
    int rc = 0;
    bool blank = true;
    for (const char *p = text; *p; p++)
        blank = blank && isspace((unsigned char)*p);
    while (!blank && next) {
        char *tok = next, *comma = strchr(next, ',');
        if (comma)
            *comma = '\0';
        next = comma ? comma + 1 : NULL;
        while (isspace((unsigned char)*tok))
            tok++;
        char *e = tok + strlen(tok);
        while (e > tok && isspace((unsigned char)e[-1]))
            *--e = '\0';
        nitems++;
        if (!*tok) {
            rc = cdch_err_set(err, "empty item in version range '%s' (items are separated by ',')", text);
            break;
        }
        if (strcmp(tok, "*") == 0) {
            out->any = true;
            continue;
        }
        const char *op = "";
        if (tok[0] == '>' || tok[0] == '<') {
            op = tok[1] == '=' ? (tok[0] == '>' ? ">=" : "<=") : (tok[0] == '>' ? ">" : "<");
            tok += strlen(op);
            while (isspace((unsigned char)*tok))
                tok++;
        } else if (tok[0] == '=') {
            tok += tok[1] == '=' ? 2 : 1;
            while (isspace((unsigned char)*tok))
                tok++;
        }
        if (!cdch_version_valid(tok) || strchr(tok, '+') || strchr(tok, ' ')) {
            rc = cdch_err_set(err,
                              "bad item '%s%s%s' in version range '%s': expected a version (e.g. 2.4.0.Final, "
                              "v1.16.0, 1.0.17; no '+variant': use the issue's 'variants'), a bound '>= V', "
                              "'> V', '<= V', '< V', or '*'",
                              op, *op ? " " : "", tok, text);
            break;
        }
        if (!*op) {
            cdch_vrange_item *it = add_item(out);
            it->lo = cdch_xstrdup(tok);
            it->hi = it->lo;
            it->lo_incl = it->hi_incl = true;
            open = NULL;
        } else if (op[0] == '>') {
            if (open) {
                rc = cdch_err_set(err,
                                  "version range '%s': '%s %s' follows a lower bound that no upper bound closed "
                                  "(write '>= A, < B' pairs)",
                                  text, op, tok);
                break;
            }
            open = add_item(out);
            open->lo = cdch_xstrdup(tok);
            open->lo_incl = op[1] == '=';
        } else {
            cdch_vrange_item *it = open ? open : add_item(out);
            it->hi = cdch_xstrdup(tok);
            it->hi_incl = op[1] == '=';
            if (it->lo && cdch_version_cmp(it->lo, it->hi) > 0) {
                rc = cdch_err_set(err, "version range '%s': the interval from %s to %s is empty (%s is after %s)",
                                  text, it->lo, it->hi, it->lo, it->hi);
                break;
            }
            open = NULL;
        }
    }
    free(copy);
    if (rc == 0 && nitems == 0)
        rc = cdch_err_set(err, "empty version range (write '*' for every version)");
    if (rc != 0)
        cdch_vrange_free(out);
    return rc;
}

bool cdch_vrange_holds(const cdch_vrange *r, const char *version)
{
    if (r->any)
        return true;
    for (size_t i = 0; i < r->n; i++) {
        const cdch_vrange_item *it = &r->items[i];
        if (it->lo) {
            int c = cdch_version_cmp(version, it->lo);
            if (c < 0 || (c == 0 && !it->lo_incl))
                continue;
        }
        if (it->hi) {
            int c = cdch_version_cmp(version, it->hi);
            if (c > 0 || (c == 0 && !it->hi_incl))
                continue;
        }
        return true;
    }
    return false;
}
