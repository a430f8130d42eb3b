/* expect.c — expectations for run cells: default, manifest, file, baseline. */
#include "expect.h"
#include "predict.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "events.h"
#include "sys.h"

typedef struct rule {
    char *consumer, *scenario, *mode; /* "*" = any */
    cdch_verdict v;
    unsigned line;
    bool baseline;
} rule;

struct cdch_expect {
    cdch_verdict def;
    bool manifests;
    rule *rules;
    size_t n;
    char *file, *baseline;
};

cdch_expect *cdch_expect_new(void)
{
    cdch_expect *e = calloc(1, sizeof *e);
    if (!e) {
        fprintf(stderr, "cdcharness: out of memory\n");
        abort();
    }
    e->def = CDCH_VERDICT_PASS;
    return e;
}

void cdch_expect_free(cdch_expect *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++) {
        free(e->rules[i].consumer);
        free(e->rules[i].scenario);
        free(e->rules[i].mode);
    }
    free(e->rules);
    free(e->file);
    free(e->baseline);
    free(e);
}

void cdch_expect_set_default(cdch_expect *e, cdch_verdict v) { e->def = v; }
void cdch_expect_use_manifests(cdch_expect *e, bool on) { e->manifests = on; }

static char *dup(const char *s)
{
    char *d = strdup(s);
    if (!d) {
        fprintf(stderr, "cdcharness: out of memory\n");
        abort();
    }
    return d;
}

static void add_rule(cdch_expect *e, const char *c, const char *s, const char *m, cdch_verdict v, unsigned line,
                     bool baseline)
{
    rule *r = realloc(e->rules, (e->n + 1) * sizeof *r);
    if (!r) {
        fprintf(stderr, "cdcharness: out of memory\n");
        abort();
    }
    e->rules = r;
    e->rules[e->n++] = (rule){dup(c), dup(s), dup(m), v, line, baseline};
}

int cdch_expect_load_file(cdch_expect *e, const char *path, cdch_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cdch_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    char line[2048];
    unsigned ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *h = strchr(line, '#');
        if (h)
            *h = '\0';
        char *tok[5];
        int nt = 0;
        for (char *t = strtok(line, " \t\r\n"); t && nt < 5; t = strtok(NULL, " \t\r\n"))
            tok[nt++] = t;
        if (nt == 0)
            continue;
        if (nt != 4) {
            fclose(f);
            return cdch_err_set(err, "%s:%u: expected 'CONSUMER SCENARIO MODE VERDICT' (4 fields), found %d", path,
                                ln, nt);
        }
        cdch_verdict v;
        if (cdch_verdict_parse(tok[3], &v) != 0) {
            fclose(f);
            return cdch_err_set(err, "%s:%u: unknown verdict '%s' (%s)", path, ln, tok[3], cdch_verdict_names());
        }
        if (strcmp(tok[2], "*") && strcmp(tok[2], "compressed") && strcmp(tok[2], "uncompressed") &&
            strcmp(tok[2], "flip")) {
            fclose(f);
            return cdch_err_set(err, "%s:%u: unknown mode '%s' (compressed, uncompressed, flip or *)", path, ln,
                                tok[2]);
        }
        add_rule(e, tok[0], tok[1], tok[2], v, ln, false);
    }
    fclose(f);
    free(e->file);
    e->file = dup(path);
    return 0;
}

int cdch_expect_load_baseline(cdch_expect *e, const char *path, cdch_err *err)
{
    size_t len;
    char *text = cdch_read_file(path, 0, &len, err);
    if (!text)
        return -1; /* "PATH: reason" */
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_jv *root;
    if (cdch_jv_parse(text, len, &a, &root, err) != 0) {
        cdch_err_wrap(err, "%s: not a JSON report", path);
        cdch_arena_free(&a);
        free(text);
        return -1;
    }
    const cdch_jv *cells = cdch_jv_get(root, "cells");
    int rc = 0;
    if (!cells || cells->type != CDCH_JV_ARRAY) {
        rc = cdch_err_set(err, "%s: no \"cells\" list (a report.json written by `cdcharness run`?)", path);
    } else {
        for (size_t i = 0; i < cells->u.arr.n; i++) {
            const cdch_jv *c = cells->u.arr.items[i];
            const cdch_jv *con = cdch_jv_get(c, "consumer"), *sc = cdch_jv_get(c, "scenario"),
                          *mo = cdch_jv_get(c, "mode"), *ve = cdch_jv_get(c, "verdict");
            cdch_verdict v;
            if (!con || !sc || !mo || !ve || con->type != CDCH_JV_STRING || sc->type != CDCH_JV_STRING ||
                mo->type != CDCH_JV_STRING || ve->type != CDCH_JV_STRING || cdch_verdict_parse(ve->u.str.ptr, &v) != 0) {
                rc = cdch_err_set(err, "%s: cell %zu lacks consumer/scenario/mode/verdict", path, i + 1);
                break;
            }
            add_rule(e, con->u.str.ptr, sc->u.str.ptr, mo->u.str.ptr, v, (unsigned)i + 1, true);
        }
    }
    cdch_arena_free(&a);
    free(text);
    if (rc == 0) {
        free(e->baseline);
        e->baseline = dup(path);
    }
    return rc;
}

/* "family@version[+variant]" recorded in a baseline names the same family
 * and variant as the cell (another version): the connector-upgrade case. */
static bool match_family_variant(const char *pat, const cdch_cell *c)
{
    const char *at = strchr(pat, '@');
    size_t fl = strlen(c->family);
    if (!at || (size_t)(at - pat) != fl || strncmp(pat, c->family, fl) != 0)
        return false;
    const char *pv = strchr(at + 1, '+'), *cv = strchr(c->version, '+');
    if (!pv || !cv)
        return !pv && !cv;
    return strcmp(pv, cv) == 0;
}

bool cdch_expect_cell(const cdch_expect *e, const cdch_run *r, cdch_cell *c)
{
    c->expected_racy = false;
    {
        const rule *base = NULL, *file = NULL, *fam = NULL;
        for (size_t k = 0; k < e->n; k++) {
            const rule *ru = &e->rules[k];
            if (ru->baseline && cdch_cell_match_scenario(ru->scenario, c) && strcmp(ru->mode, c->mode) == 0 &&
                match_family_variant(ru->consumer, c) && (!fam || cdch_verdict_worse(fam->v, ru->v)))
                fam = ru; /* the best row of another version of this consumer */
            if (!cdch_cell_match_consumer(ru->consumer, c) || !cdch_cell_match_scenario(ru->scenario, c) ||
                (strcmp(ru->mode, "*") != 0 && strcmp(ru->mode, c->mode) != 0))
                continue;
            if (ru->baseline && !base)
                base = ru;
            else if (!ru->baseline && !file)
                file = ru;
        }
        if (e->baseline) {
            if (!base && fam) {
                c->expected = fam->v;
                snprintf(c->expect_source, sizeof c->expect_source, "baseline (%s)", fam->consumer);
            } else {
                c->expected = base ? base->v : CDCH_VERDICT_PASS;
                snprintf(c->expect_source, sizeof c->expect_source, "baseline%s", base ? "" : " (new cell)");
            }
            c->meets = !cdch_verdict_worse(c->verdict, c->expected);
        } else if (file) {
            c->expected = file->v;
            snprintf(c->expect_source, sizeof c->expect_source, "%s:%u", e->file, file->line);
            c->meets = c->verdict == file->v;
        } else {
            const cdch_manifest_version *mv = e->manifests ? cdch_run_cell_version(r, c) : NULL;
            const char *mexp = mv ? cdch_manifest_expect_for(cdch_run_cell_manifest(r, c), mv, c->scenario, c->mode)
                                  : NULL;
            cdch_verdict v, other;
            if (mv && mv->unpinned) {
                /* not pinned: the verdict the known issues whose range holds it predict (predict.h); a
                 * local build by the library version its setup found */
                char ver[320];
                if (mv->local_path)
                    snprintf(ver, sizeof ver, "%s%s%s", c->local_version && *c->local_version ? c->local_version : "0-unknown",
                             *cdch_version_variant(mv->version) ? "+" : "", cdch_version_variant(mv->version));
                else
                    snprintf(ver, sizeof ver, "%s", mv->version);
                cdch_prediction pr;
                cdch_predict(cdch_run_cell_manifest(r, c), ver, c->scenario, c->mode, &pr);
                c->expected = pr.verdict;
                snprintf(c->expect_source, sizeof c->expect_source, "predicted");
                snprintf(c->expect_cause, sizeof c->expect_cause, "%s", pr.causes);
                free(c->predict_in_range);
                c->predict_in_range = cdch_xstrdup(pr.in_range);
            } else if (mexp && cdch_verdict_parse_any(mexp, &v, &other) == 0) {
                /* VERDICT|VERDICT: either meets; `expected` is the one the cell gave, when it gave one */
                c->expected_racy = other != v;
                c->expected = c->expected_racy && c->verdict == other ? other : v;
                c->expected_other = c->expected == v ? other : v;
                snprintf(c->expect_source, sizeof c->expect_source, "manifest");
                const char *cause = cdch_manifest_cause_for(cdch_run_cell_manifest(r, c), mv, c->scenario, c->mode);
                snprintf(c->expect_cause, sizeof c->expect_cause, "%s", cause ? cause : "");
            } else {
                c->expected = e->def;
                snprintf(c->expect_source, sizeof c->expect_source, "default");
            }
            c->meets = c->verdict == c->expected;
        }
    }
    return c->meets;
}

size_t cdch_expect_apply(const cdch_expect *e, cdch_run *r)
{
    size_t bad = 0;
    for (size_t i = 0; i < cdch_run_ncells(r); i++)
        if (!cdch_expect_cell(e, r, cdch_run_cell(r, i)))
            bad++;
    return bad;
}
