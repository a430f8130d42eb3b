/* report_doc.c — report.json parsed: loading, checking, joining shards,
 * sorting, writing back with recomputed totals. */
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "sys.h"
#include "verdict.h"
#include "xalloc.h"

void rep_doc_init(rep_doc *d) { memset(d, 0, sizeof *d); }

void rep_doc_free(rep_doc *d)
{
    for (size_t i = 0; i < d->ntexts; i++)
        free(d->texts[i]);
    free(d->texts);
    free(d->cells);
    free(d->cell_src);
    cdch_arena_free(&d->arena);
    memset(d, 0, sizeof *d);
}

const char *rep_str(const cdch_jv *o, const char *key)
{
    const cdch_jv *v = cdch_jv_get(o, key);
    return v && v->type == CDCH_JV_STRING ? v->u.str.ptr : NULL;
}

/* What the renderers rely on in a cell: the strings that name it, and a
 * "cause" (when not null) that is an array of objects with a string "id". */
static bool cell_ok(const cdch_jv *c)
{
    if (c->type != CDCH_JV_OBJECT || !rep_str(c, "consumer") || !rep_str(c, "family") || !rep_str(c, "scenario") ||
        !rep_str(c, "mode") || !rep_str(c, "verdict"))
        return false;
    const cdch_jv *cause = cdch_jv_get(c, "cause");
    if (!cause || cause->type == CDCH_JV_NULL)
        return true;
    if (cause->type != CDCH_JV_ARRAY)
        return false;
    for (size_t k = 0; k < cause->u.arr.n; k++)
        if (!rep_str(cause->u.arr.items[k], "id"))
            return false;
    return true;
}

double rep_num(const cdch_jv *o, const char *key)
{
    const cdch_jv *v = cdch_jv_get(o, key);
    return v && v->type == CDCH_JV_NUMBER ? strtod(v->raw, NULL) : 0;
}

bool rep_has_num(const cdch_jv *o, const char *key)
{
    const cdch_jv *v = cdch_jv_get(o, key);
    return v && v->type == CDCH_JV_NUMBER;
}

bool rep_bool(const cdch_jv *o, const char *key)
{
    const cdch_jv *v = cdch_jv_get(o, key);
    return v && v->type == CDCH_JV_TRUE;
}

/* Structural equality; skip: a member name ignored in the top-level objects. */
static bool jv_equal(const cdch_jv *a, const cdch_jv *b, const char *skip)
{
    if (!a || !b)
        return a == b;
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case CDCH_JV_NUMBER: return a->raw_len == b->raw_len && memcmp(a->raw, b->raw, a->raw_len) == 0;
    case CDCH_JV_STRING: return a->u.str.len == b->u.str.len && memcmp(a->u.str.ptr, b->u.str.ptr, a->u.str.len) == 0;
    case CDCH_JV_ARRAY:
        if (a->u.arr.n != b->u.arr.n)
            return false;
        for (size_t i = 0; i < a->u.arr.n; i++)
            if (!jv_equal(a->u.arr.items[i], b->u.arr.items[i], NULL))
                return false;
        return true;
    case CDCH_JV_OBJECT: {
        size_t na = 0, nb = 0;
        for (size_t i = 0; i < a->u.obj.n; i++) {
            const char *k = a->u.obj.m[i].key;
            if (skip && strcmp(k, skip) == 0)
                continue;
            na++;
            if (!jv_equal(a->u.obj.m[i].value, cdch_jv_get(b, k), NULL))
                return false;
        }
        for (size_t i = 0; i < b->u.obj.n; i++)
            if (!skip || strcmp(b->u.obj.m[i].key, skip) != 0)
                nb++;
        return na == nb;
    }
    default: return true;
    }
}

int rep_doc_add(rep_doc *d, const char *text, size_t len, const char *name, const char *src_dir, cdch_err *err)
{
    char *copy = cdch_xcalloc(len + 1, 1);
    memcpy(copy, text, len);
    d->texts = cdch_xrealloc(d->texts, (d->ntexts + 1) * sizeof *d->texts);
    d->texts[d->ntexts++] = copy;
    cdch_jv *root;
    cdch_err perr;
    if (cdch_jv_parse(copy, len, &d->arena, &root, &perr) != 0)
        return cdch_err_set(err, "%s: not JSON: %s", name, perr.msg);
    const char *fmt = rep_str(root, "format");
    if (root->type != CDCH_JV_OBJECT || !fmt || strcmp(fmt, "cdcharness-report") != 0)
        return cdch_err_set(err, "%s: not a cdcharness report (no \"format\": \"cdcharness-report\")", name);
    const cdch_jv *ver = cdch_jv_get(root, "version");
    if (!ver || ver->type != CDCH_JV_NUMBER || ver->raw_len != 1 || ver->raw[0] != '1')
        return cdch_err_set(err, "%s: report format version %.*s is not 1", name, ver ? (int)ver->raw_len : 4,
                            ver ? ver->raw : "none");
    const cdch_jv *cells = cdch_jv_get(root, "cells");
    if (!cells || cells->type != CDCH_JV_ARRAY)
        return cdch_err_set(err, "%s: no \"cells\" array", name);
    const cdch_jv *matrix = cdch_jv_get(root, "matrix");
    if (matrix && matrix->type == CDCH_JV_NULL)
        matrix = NULL;
    if (matrix && matrix->type != CDCH_JV_OBJECT)
        return cdch_err_set(err, "%s: \"matrix\" is not an object", name);
    if (d->ntexts == 1) {
        d->matrix = matrix;
    } else if ((d->matrix == NULL) != (matrix == NULL) || !jv_equal(d->matrix, matrix, "shard")) {
        return cdch_err_set(err,
                            "%s is not a shard of the same matrix as the reports before it (%s); merge only the "
                            "shards of one matrix",
                            name,
                            !d->matrix && matrix   ? "it has a \"matrix\" object, they have none"
                            : d->matrix && !matrix ? "it has no \"matrix\" object"
                                                   : "their \"matrix\" objects differ");
    }
    const cdch_jv *dep = cdch_jv_get(root, "deployment");
    if (dep && dep->type != CDCH_JV_OBJECT && dep->type != CDCH_JV_NULL)
        return cdch_err_set(err, "%s: \"deployment\" is not an object", name);
    if (!d->deployment && dep && dep->type == CDCH_JV_OBJECT)
        d->deployment = dep;
    const cdch_jv *cpu = cdch_jv_get(root, "cpu");
    const cdch_jv *ch = cpu ? cdch_jv_get(cpu, "harness_seconds") : NULL, *cc = cpu ? cdch_jv_get(cpu, "children_seconds") : NULL;
    if (ch && cc && ch->type == CDCH_JV_NUMBER && cc->type == CDCH_JV_NUMBER) {
        d->cpu_harness += strtod(ch->raw, NULL);
        d->cpu_children += strtod(cc->raw, NULL);
        d->has_cpu = true;
    }
    const char *gen = rep_str(root, "generated");
    if (gen && (!d->generated || strcmp(gen, d->generated) > 0))
        d->generated = gen; /* a merge is as recent as its newest shard */
    for (size_t i = 0; i < cells->u.arr.n; i++) {
        const cdch_jv *c = cells->u.arr.items[i];
        if (!cell_ok(c))
            return cdch_err_set(err,
                                "%s: cell %zu lacks consumer, family, scenario, mode or verdict, or its \"cause\" is "
                                "not an array of objects with an \"id\"",
                                name, i + 1);
        if (d->ncells == d->cap) {
            d->cap = d->cap ? d->cap * 2 : 64;
            d->cells = cdch_xrealloc(d->cells, d->cap * sizeof *d->cells);
            d->cell_src = cdch_xrealloc(d->cell_src, d->cap * sizeof *d->cell_src);
        }
        d->cells[d->ncells] = c;
        d->cell_src[d->ncells] = src_dir ? cdch_arena_strdup(&d->arena, src_dir) : NULL;
        d->ncells++;
    }
    return 0;
}

int rep_doc_load(rep_doc *d, const char *path, const char *src_dir, cdch_err *err)
{
    size_t len;
    char *text = cdch_read_file(path, 0, &len, err);
    if (!text)
        return -1; /* "PATH: reason" */
    int rc = rep_doc_add(d, text, len, path, src_dir, err);
    free(text);
    return rc;
}

/* ---- order ------------------------------------------------------------------------ */

/* "0.9.2" < "0.10.0": digit runs compare as numbers. */
static int vercmp(const char *a, const char *b)
{
    while (*a && *b) {
        if ((*a >= '0' && *a <= '9') && (*b >= '0' && *b <= '9')) {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            size_t la = 0, lb = 0;
            while (a[la] >= '0' && a[la] <= '9')
                la++;
            while (b[lb] >= '0' && b[lb] <= '9')
                lb++;
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = memcmp(a, b, la);
            if (c)
                return c;
            a += la;
            b += lb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int mode_rank(const char *m)
{
    return strcmp(m, "uncompressed") == 0 ? 0 : strcmp(m, "compressed") == 0 ? 1 : strcmp(m, "flip") == 0 ? 2 : 3;
}

static const char *family_of(const cdch_jv *c)
{
    const char *f = rep_str(c, "family");
    return f ? f : rep_str(c, "consumer");
}

static const char *version_of(const cdch_jv *c)
{
    const char *v = rep_str(c, "version");
    return v ? v : "";
}

static int key_cmp(const cdch_jv *a, const cdch_jv *b)
{
    int r = strcmp(family_of(a), family_of(b));
    if (!r)
        r = vercmp(version_of(a), version_of(b));
    if (!r)
        r = strcmp(rep_str(a, "consumer"), rep_str(b, "consumer"));
    if (!r)
        r = strcmp(rep_str(a, "scenario"), rep_str(b, "scenario"));
    if (!r)
        r = mode_rank(rep_str(a, "mode")) - mode_rank(rep_str(b, "mode"));
    if (!r)
        r = strcmp(rep_str(a, "mode"), rep_str(b, "mode"));
    return r;
}

typedef struct sorted {
    const cdch_jv *c;
    const char *src;
    double index;
    size_t pos; /* stable */
} sorted;

static int by_index(const void *pa, const void *pb)
{
    const sorted *a = pa, *b = pb;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int by_key(const void *pa, const void *pb)
{
    const sorted *a = pa, *b = pb;
    int r = key_cmp(a->c, b->c);
    if (r)
        return r;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

int rep_doc_sort(rep_doc *d, bool reject_overlap, cdch_err *err)
{
    size_t n = d->ncells;
    if (n == 0)
        return 0;
    sorted *s = cdch_xcalloc(n, sizeof *s);
    bool all_index = true;
    for (size_t i = 0; i < n; i++) {
        s[i].c = d->cells[i];
        s[i].src = d->cell_src[i];
        s[i].pos = i;
        all_index = all_index && rep_has_num(d->cells[i], "index");
        s[i].index = rep_num(d->cells[i], "index");
    }
    /* duplicates: by key (always), by index (when every cell has one) */
    qsort(s, n, sizeof *s, by_key);
    int rc = 0;
    for (size_t i = 1; i < n && rc == 0 && reject_overlap; i++)
        if (key_cmp(s[i - 1].c, s[i].c) == 0)
            rc = cdch_err_set(err, "cell %s %s [%s] is twice in the input%s%s%s%s: overlapping shards",
                              rep_str(s[i].c, "consumer"), rep_str(s[i].c, "scenario"), rep_str(s[i].c, "mode"),
                              s[i - 1].src ? " (" : "", s[i - 1].src ? s[i - 1].src : "", s[i].src ? " and " : "",
                              s[i].src ? s[i].src : "");
    if (rc == 0 && all_index) {
        qsort(s, n, sizeof *s, by_index);
        for (size_t i = 1; i < n && rc == 0; i++)
            if (reject_overlap && s[i - 1].index == s[i].index)
                rc = cdch_err_set(err, "two cells have index %.0f (%s %s [%s] and %s %s [%s]): overlapping shards",
                                  s[i].index, rep_str(s[i - 1].c, "consumer"), rep_str(s[i - 1].c, "scenario"),
                                  rep_str(s[i - 1].c, "mode"), rep_str(s[i].c, "consumer"),
                                  rep_str(s[i].c, "scenario"), rep_str(s[i].c, "mode"));
    }
    for (size_t i = 0; i < n; i++) {
        d->cells[i] = s[i].c;
        d->cell_src[i] = s[i].src;
    }
    free(s);
    return rc;
}

/* ---- writing ---------------------------------------------------------------------- */

int rep_doc_write_json(const rep_doc *d, FILE *f)
{
    fputs("{\"format\":\"cdcharness-report\",\"version\":1,\"generated\":", f);
    rep_json_str(f, d->generated ? d->generated : "");
    if (d->matrix) {
        /* a shard's position is not the merged report's */
        fputs(",\"matrix\":{", f);
        bool first = true;
        for (size_t i = 0; i < d->matrix->u.obj.n; i++) {
            const cdch_jv_member *m = &d->matrix->u.obj.m[i];
            if (strcmp(m->key, "shard") == 0 && d->merged)
                continue;
            if (!first)
                fputc(',', f);
            first = false;
            rep_json_strn(f, m->key, m->key_len);
            fputc(':', f);
            rep_jv_write(f, m->value);
        }
        fputc('}', f);
    }
    if (d->deployment) {
        fputs(",\"deployment\":", f);
        rep_jv_write(f, d->deployment);
    }
    fputs(",\"cells\":[\n", f);
    size_t counts[CDCH_VERDICT_COUNT] = {0}, unmet = 0, regressions = 0, unknown = 0, unexplained = 0, nwarn = 0;
    for (size_t i = 0; i < d->ncells; i++) {
        const cdch_jv *c = d->cells[i];
        unexplained += rep_cell_unexplained(c);
        nwarn += rep_cell_warned(c);
        cdch_verdict v;
        if (cdch_verdict_parse(rep_str(c, "verdict"), &v) == 0)
            counts[v]++;
        else
            unknown++;
        unmet += !rep_bool(c, "meets");
        regressions += rep_bool(c, "compression_regression");
        if (i)
            fputs(",\n", f);
        rep_jv_write(f, c);
    }
    fprintf(f, "\n],\"totals\":{\"cells\":%zu,\"not_as_expected\":%zu,\"compression_regressions\":%zu,"
               "\"unexplained\":%zu,\"with_warnings\":%zu",
            d->ncells, unmet, regressions, unexplained, nwarn);
    for (int v = 0; v < CDCH_VERDICT_COUNT; v++)
        fprintf(f, ",\"%s\":%zu", cdch_verdict_name((cdch_verdict)v), counts[v]);
    if (unknown)
        fprintf(f, ",\"unknown\":%zu", unknown);
    fputc('}', f);
    if (d->has_cpu)
        fprintf(f, ",\"cpu\":{\"harness_seconds\":%.1f,\"children_seconds\":%.1f}", d->cpu_harness, d->cpu_children);
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}

bool rep_cell_unexplained(const cdch_jv *c)
{
    const cdch_jv *cause = cdch_jv_get(c, "cause");
    for (size_t k = 0; cause && cause->type == CDCH_JV_ARRAY && k < cause->u.arr.n; k++) {
        const char *id = rep_str(cause->u.arr.items[k], "id");
        if (id && strcmp(id, "unexplained") == 0)
            return true;
    }
    return false;
}

bool rep_cell_warned(const cdch_jv *c)
{
    const cdch_jv *w = cdch_jv_get(c, "warnings");
    return w && w->type == CDCH_JV_ARRAY && w->u.arr.n > 0;
}
