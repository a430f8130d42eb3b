/* report_digest.c — the small form of a report, for committing to a
 * repository (reports/default/): summary.md (per consumer family: the
 * verdicts of each version, the known causes the cells cite, and the verdict
 * grid version x scenario) and verdicts.json (one line per cell: consumer,
 * scenario, mode, verdict, expectation, classes, cause ids; a report.json in
 * form, so `matrix --baseline` takes it). The full report.json and
 * report.html stay build artifacts. */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_internal.h"
#include "verdict.h"
#include "xalloc.h"

/* Short code of a verdict in the grid. */
static const char *code(const char *verdict)
{
    static const struct {
        const char *v, *code;
    } tab[] = {
        {"pass", "ok"},          {"hang", "HANG"},     {"no-resume", "NORES"}, {"parse-failure", "PARSE"},
        {"bad-checkpoint", "CKPT"}, {"reorder", "ORD"}, {"duplicate", "DUP"},   {"mismatch", "MIS"},
        {"announced-skip", "ASKIP"}, {"silent-skip", "SKIP"}, {"harness-error", "ERR"},
    };
    for (size_t i = 0; verdict && i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(tab[i].v, verdict) == 0)
            return tab[i].code;
    return "?";
}

/* Index of s in list[0..*n), appended when absent. */
static size_t intern(const char ***list, size_t *n, size_t *cap, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i], s) == 0)
            return i;
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *list = cdch_xrealloc(*list, *cap * sizeof **list);
    }
    (*list)[*n] = s;
    return (*n)++;
}

static const char *str_or(const cdch_jv *c, const char *key, const char *dflt)
{
    const char *s = rep_str(c, key);
    return s ? s : dflt;
}

static bool has_cause(const cdch_jv *c, const char *id)
{
    const cdch_jv *cs = cdch_jv_get(c, "cause");
    for (size_t k = 0; cs && cs->type == CDCH_JV_ARRAY && k < cs->u.arr.n; k++)
        if (strcmp(str_or(cs->u.arr.items[k], "id", ""), id) == 0)
            return true;
    return false;
}

/* The cells of one family, in report order. */
typedef struct fam_view {
    const char *family;
    const cdch_jv **cells;
    size_t n;
} fam_view;

static void family_counts(FILE *f, const fam_view *fv, const char **versions, size_t nv)
{
    fputs("| version | cells |", f);
    for (int v = 0; v < CDCH_VERDICT_COUNT; v++)
        fprintf(f, " %s |", cdch_verdict_name((cdch_verdict)v));
    fputs(" not as expected | compression regressions |\n|---|---|", f);
    for (int v = 0; v < CDCH_VERDICT_COUNT; v++)
        fputs("---|", f);
    fputs("---|---|\n", f);
    for (size_t k = 0; k < nv; k++) {
        size_t counts[CDCH_VERDICT_COUNT] = {0}, cells = 0, unmet = 0, reg = 0;
        for (size_t i = 0; i < fv->n; i++) {
            const cdch_jv *c = fv->cells[i];
            if (strcmp(str_or(c, "version", ""), versions[k]) != 0)
                continue;
            cdch_verdict v;
            if (cdch_verdict_parse(rep_str(c, "verdict"), &v) == 0)
                counts[v]++;
            cells++;
            unmet += !rep_bool(c, "meets");
            reg += rep_bool(c, "compression_regression");
        }
        fprintf(f, "| %s | %zu |", versions[k], cells);
        for (int v = 0; v < CDCH_VERDICT_COUNT; v++)
            counts[v] ? fprintf(f, " %zu |", counts[v]) : fputs(" |", f);
        if (unmet)
            fprintf(f, " **%zu** | %zu |\n", unmet, reg);
        else
            fprintf(f, " 0 | %zu |\n", reg);
    }
}

static void family_causes(FILE *f, const fam_view *fv)
{
    const char **ids = NULL;
    size_t nids = 0, cap = 0;
    for (size_t i = 0; i < fv->n; i++) {
        const cdch_jv *cs = cdch_jv_get(fv->cells[i], "cause");
        for (size_t k = 0; cs && cs->type == CDCH_JV_ARRAY && k < cs->u.arr.n; k++)
            intern(&ids, &nids, &cap, str_or(cs->u.arr.items[k], "id", "?"));
    }
    if (nids == 0) {
        free(ids);
        return;
    }
    fputs("\nCauses cited (known issues of the manifests):\n\n", f);
    for (size_t q = 0; q < nids; q++) {
        const cdch_jv *ki = NULL;
        size_t cells = 0;
        for (size_t i = 0; i < fv->n; i++) {
            if (!has_cause(fv->cells[i], ids[q]))
                continue;
            cells++;
            const cdch_jv *cs = cdch_jv_get(fv->cells[i], "cause");
            for (size_t k = 0; !ki && k < cs->u.arr.n; k++)
                if (strcmp(str_or(cs->u.arr.items[k], "id", ""), ids[q]) == 0)
                    ki = cs->u.arr.items[k];
        }
        fprintf(f, "- `%s` (%s, %zu cell(s)): ", ids[q], ki ? str_or(ki, "kind", "?") : "?", cells);
        rep_md_cell(f, ki ? str_or(ki, "summary", "") : "", 400);
        if (ki && rep_str(ki, "evidence")) {
            fputs(" Evidence: ", f);
            rep_md_cell(f, rep_str(ki, "evidence"), 400);
        }
        fputc('\n', f);
    }
    free(ids);
}

/* The grid: a row per version, a column per scenario, each cell the
 * verdict codes of its modes (uncompressed/compressed, or flip); '!' marks a
 * cell that is not as expected. */
static void family_grid(FILE *f, const fam_view *fv, const char **versions, size_t nv)
{
    const char **scen = NULL;
    size_t ns = 0, cap = 0;
    for (size_t i = 0; i < fv->n; i++)
        intern(&scen, &ns, &cap, str_or(fv->cells[i], "scenario", "?"));
    fputs("\n| version |", f);
    for (size_t s = 0; s < ns; s++)
        fprintf(f, " %s |", scen[s]);
    fputs("\n|---|", f);
    for (size_t s = 0; s < ns; s++)
        fputs("---|", f);
    fputc('\n', f);
    static const char *const modes[] = {"uncompressed", "compressed", "flip"};
    for (size_t k = 0; k < nv; k++) {
        fprintf(f, "| %s |", versions[k]);
        for (size_t s = 0; s < ns; s++) {
            fputc(' ', f);
            bool any = false;
            for (size_t m = 0; m < 3; m++) {
                for (size_t i = 0; i < fv->n; i++) {
                    const cdch_jv *c = fv->cells[i];
                    if (strcmp(str_or(c, "version", ""), versions[k]) || strcmp(str_or(c, "scenario", ""), scen[s]) ||
                        strcmp(str_or(c, "mode", ""), modes[m]))
                        continue;
                    fprintf(f, "%s%s%s", any ? "/" : "", code(rep_str(c, "verdict")), rep_bool(c, "meets") ? "" : "!");
                    any = true;
                    break;
                }
            }
            fputs(any ? " |" : "– |", f);
        }
        fputc('\n', f);
    }
    free(scen);
}

static int render_summary(const void *ctx, FILE *f)
{
    const rep_doc *d = ctx;
    size_t unmet = 0, reg = 0, counts[CDCH_VERDICT_COUNT] = {0};
    for (size_t i = 0; i < d->ncells; i++) {
        cdch_verdict v;
        if (cdch_verdict_parse(rep_str(d->cells[i], "verdict"), &v) == 0)
            counts[v]++;
        unmet += !rep_bool(d->cells[i], "meets");
        reg += rep_bool(d->cells[i], "compression_regression");
    }
    fprintf(f, "# cdcharness report digest\n\nGenerated %s: %zu cell(s), %zu not as expected, %zu compression "
               "regression(s).",
            d->generated && *d->generated ? d->generated : "(no date)", d->ncells, unmet, reg);
    for (int v = 0; v < CDCH_VERDICT_COUNT; v++)
        if (counts[v])
            fprintf(f, " %s: %zu.", cdch_verdict_name((cdch_verdict)v), counts[v]);
    fputs("\n\nGrid codes: ok pass, SKIP silent-skip, MIS mismatch, DUP duplicate, ORD reorder, CKPT bad-checkpoint, "
          "PARSE parse-failure, NORES no-resume, HANG hang, ERR harness-error; `a/b` = uncompressed/compressed "
          "(one code: flip); `!` = not as expected. Every cell's findings are in the full report (report.json, "
          "report.html) that `scripts/main.sh` writes.\n",
          f);
    const char **fams = NULL;
    size_t nf = 0, capf = 0;
    for (size_t i = 0; i < d->ncells; i++)
        intern(&fams, &nf, &capf, str_or(d->cells[i], "family", "?"));
    const cdch_jv **cells = cdch_xcalloc(d->ncells ? d->ncells : 1, sizeof *cells);
    for (size_t q = 0; q < nf; q++) {
        fam_view fv = {fams[q], cells, 0};
        const char **versions = NULL;
        size_t nv = 0, capv = 0;
        for (size_t i = 0; i < d->ncells; i++) {
            if (strcmp(str_or(d->cells[i], "family", "?"), fams[q]) != 0)
                continue;
            cells[fv.n++] = d->cells[i];
            intern(&versions, &nv, &capv, str_or(d->cells[i], "version", "?"));
        }
        fprintf(f, "\n## %s\n\n", fams[q]);
        family_counts(f, &fv, versions, nv);
        family_causes(f, &fv);
        family_grid(f, &fv, versions, nv);
        free(versions);
    }
    free(cells);
    free(fams);
    return ferror(f) ? -1 : 0;
}

static int render_verdicts(const void *ctx, FILE *f)
{
    const rep_doc *d = ctx;
    fputs("{\"format\":\"cdcharness-report\",\"version\":1,\"digest\":true,\"generated\":", f);
    rep_json_str(f, d->generated ? d->generated : "");
    fputs(",\"cells\":[\n", f);
    for (size_t i = 0; i < d->ncells; i++) {
        const cdch_jv *c = d->cells[i];
        static const char *const keys[] = {"consumer", "scenario", "mode", "verdict", "expected", "classes"};
        fputc('{', f);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            fprintf(f, "%s\"%s\":", k ? "," : "", keys[k]);
            rep_json_str(f, rep_str(c, keys[k]));
        }
        fprintf(f, ",\"meets\":%s,\"compression_regression\":%s,\"cause\":[", rep_bool(c, "meets") ? "true" : "false",
                rep_bool(c, "compression_regression") ? "true" : "false");
        const cdch_jv *cs = cdch_jv_get(c, "cause");
        for (size_t k = 0; cs && cs->type == CDCH_JV_ARRAY && k < cs->u.arr.n; k++) {
            if (k)
                fputc(',', f);
            rep_json_str(f, str_or(cs->u.arr.items[k], "id", "?"));
        }
        fprintf(f, "]}%s\n", i + 1 < d->ncells ? "," : "");
    }
    fputs("]}\n", f);
    return ferror(f) ? -1 : 0;
}

int cdch_report_digest(const char *report, const char *out_dir, cdch_err *err)
{
    char path[4096];
    size_t l = strlen(report);
    if (l > 5 && strcmp(report + l - 5, ".json") == 0)
        snprintf(path, sizeof path, "%s", report);
    else
        snprintf(path, sizeof path, "%s/report.json", report);
    rep_doc d;
    rep_doc_init(&d);
    int rc = rep_doc_load(&d, path, NULL, err);
    if (rc == 0)
        rc = rep_doc_sort(&d, false, err);
    if (rc == 0)
        rc = rep_write_file(out_dir, "summary.md", render_summary, &d, err);
    if (rc == 0)
        rc = rep_write_file(out_dir, "verdicts.json", render_verdicts, &d, err);
    rep_doc_free(&d);
    return rc;
}
