/* report_md.c — summary.md from report.json: verdict table, then the
 * findings of every cell that is not a pass or not as expected. */
#include <string.h>
#include <time.h>

#include "report.h"
#include "report_internal.h"

/* "2026-11-29T10:00:00Z" -> "2026-11-29 10:00:00 UTC" */
static void when(const char *gen, char *buf, size_t n)
{
    size_t l = gen ? strlen(gen) : 0;
    if (l == 20 && gen[10] == 'T' && gen[19] == 'Z')
        snprintf(buf, n, "%.10s %.8s UTC", gen, gen + 11);
    else
        snprintf(buf, n, "%s", gen && *gen ? gen : "(no date)");
}

/* "## Causes": every known issue the cells' expectations cite, with the
 * cells it explains; `unexplained` ones counted first. */
static void causes_section(const rep_doc *d, FILE *f)
{
    size_t unexplained = 0, nwarn = 0;
    const char *ids[512];
    const cdch_jv *first[512];
    size_t nids = 0;
    for (size_t i = 0; i < d->ncells; i++) {
        const cdch_jv *c = d->cells[i];
        unexplained += rep_cell_unexplained(c);
        nwarn += rep_cell_warned(c);
    }
    fprintf(f, "\n## Causes\n\n%zu cell(s) whose recorded expectation is `unexplained`; %zu cell(s) passed with "
               "warnings (errors the consumer reported while delivering every row).\n",
            unexplained, nwarn);
    for (size_t i = 0; i < d->ncells; i++) {
        const cdch_jv *cause = cdch_jv_get(d->cells[i], "cause");
        for (size_t k = 0; cause && cause->type == CDCH_JV_ARRAY && k < cause->u.arr.n; k++) {
            const char *con = rep_str(d->cells[i], "family");
            const char *id = rep_str(cause->u.arr.items[k], "id");
            bool seen = false;
            for (size_t q = 0; q < nids && !seen; q++)
                seen = strcmp(ids[q], id) == 0 && strcmp(rep_str(first[q], "family"), con) == 0;
            if (!seen && nids < 512) {
                ids[nids] = id;
                first[nids++] = d->cells[i];
            }
        }
    }
    for (size_t q = 0; q < nids; q++) {
        const char *fam = rep_str(first[q], "family");
        const cdch_jv *ki = NULL;
        const cdch_jv *cause = cdch_jv_get(first[q], "cause");
        for (size_t k = 0; cause && k < cause->u.arr.n; k++)
            if (strcmp(rep_str(cause->u.arr.items[k], "id"), ids[q]) == 0)
                ki = cause->u.arr.items[k];
        const char *ev = ki ? rep_str(ki, "evidence") : NULL;
        fprintf(f, "\n### %s `%s` (%s%s)\n\n%s\n\n", fam, ids[q], ki ? rep_str(ki, "kind") : "?",
                ki && rep_bool(ki, "compression") ? ", about compression" : "",
                ki && rep_str(ki, "summary") ? rep_str(ki, "summary") : "No cause found yet in the consumer's source or tracker.");
        if (ev)
            fprintf(f, "Evidence: %s\n\n", ev);
        fputs("Cells:", f);
        size_t shown = 0, total = 0;
        for (size_t i = 0; i < d->ncells; i++) {
            const cdch_jv *c = d->cells[i];
            if (strcmp(rep_str(c, "family"), fam) != 0)
                continue;
            const cdch_jv *cs = cdch_jv_get(c, "cause");
            bool has = false;
            for (size_t k = 0; cs && cs->type == CDCH_JV_ARRAY && k < cs->u.arr.n && !has; k++)
                has = strcmp(rep_str(cs->u.arr.items[k], "id"), ids[q]) == 0;
            if (!has)
                continue;
            total++;
            if (shown++ < 40)
                fprintf(f, "%s %s %s %s (%s%s)", shown > 1 ? ";" : "", rep_str(c, "consumer"), rep_str(c, "scenario"),
                        rep_str(c, "mode"), rep_str(c, "verdict"), rep_bool(c, "meets") ? "" : ", not as expected");
        }
        if (total > shown)
            fprintf(f, "; and %zu more", total - shown);
        fputs("\n", f);
    }
}

/* Whether kind `ki` is a documented requirement of the consumer (manifest.h: not-applicable). */
static bool is_requirement(const cdch_jv *ki)
{
    const char *k = rep_str(ki, "kind");
    return k && strcmp(k, "not-applicable") == 0;
}

/* The words of a JSON array of strings, comma-separated ("" when none). */
static void words(const cdch_jv *arr, char *out, size_t outsz)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t k = 0; arr && arr->type == CDCH_JV_ARRAY && k < arr->u.arr.n && o < outsz; k++)
        if (arr->u.arr.items[k]->type == CDCH_JV_STRING)
            o += (size_t)snprintf(out + o, outsz - o, "%s`%s`", o ? ", " : "", arr->u.arr.items[k]->u.str.ptr);
}

/* "## Predictions": the cells of versions the manifests do not pin, their
 * predicted verdict, the known issues that predicted it (and every one in
 * range), and whether it held. */
static void predictions_section(const rep_doc *d, FILE *f)
{
    size_t n = 0, held = 0;
    for (size_t i = 0; i < d->ncells; i++) {
        const cdch_jv *p = cdch_jv_get(d->cells[i], "prediction");
        if (p) {
            n++;
            held += rep_bool(p, "held");
        }
    }
    if (!n)
        return;
    fprintf(f, "\n## Predictions\n\n%zu cell(s) of versions the manifests do not pin, expected from the known issues "
               "whose `versions` range holds them (consumers/README.md \"Versions the manifest does not pin\"); %zu "
               "held, %zu did not.\n\n",
            n, held, n - held);
    fputs("| consumer | scenario | mode | observed | predicted | predicted by | in range | held |\n", f);
    fputs("|---|---|---|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < d->ncells; i++) {
        const cdch_jv *c = d->cells[i], *p = cdch_jv_get(c, "prediction");
        if (!p)
            continue;
        char by[512], in[1024];
        words(cdch_jv_get(p, "causes"), by, sizeof by);
        words(cdch_jv_get(p, "in_range"), in, sizeof in);
        fputs("| ", f);
        rep_md_cell(f, rep_str(c, "consumer"), 200);
        fputs(" | ", f);
        rep_md_cell(f, rep_str(c, "scenario"), 200);
        fprintf(f, " | %s | %s | %s | %s | %s | %s |\n", rep_str(c, "mode"), rep_str(c, "verdict"),
                rep_str(p, "verdict"), by[0] ? by : "(no known issue: pass)", in[0] ? in : "none",
                rep_bool(p, "held") ? "✓" : "✗ **did not hold**");
    }
}

/* "## Configuration": each configured consumer's file and the adapter's
 * config line (the settings the library was given, the user's settings the
 * harness kept), once per consumer. */
static void config_section(const rep_doc *d, FILE *f)
{
    bool header = false;
    for (size_t i = 0; i < d->ncells; i++) {
        const cdch_jv *c = d->cells[i], *eff = cdch_jv_get(c, "config_effective");
        const char *cfg = rep_str(c, "config"), *con = rep_str(c, "consumer");
        if (!cfg && !eff)
            continue;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(rep_str(d->cells[k], "consumer"), con) == 0 &&
                   (cdch_jv_get(d->cells[k], "config_effective") || !eff);
        if (seen)
            continue;
        if (!header) {
            fputs("\n## Configuration\n\nThe settings each consumer's library was given (the adapter's config line: "
                  "its defaults, or your file merged over them), and your settings the harness kept (host, "
                  "credentials, server id, offsets).\n",
                  f);
            header = true;
        }
        fprintf(f, "\n### %s\n\n", con);
        if (cfg)
            fprintf(f, "File: `%s`\n\n", cfg);
        const cdch_jv *e = eff ? cdch_jv_get(eff, "effective") : NULL, *kept = eff ? cdch_jv_get(eff, "kept") : NULL;
        if (!e || e->type != CDCH_JV_OBJECT) {
            fputs("(the adapter printed no config line)\n", f);
            continue;
        }
        fputs("| setting | value |\n|---|---|\n", f);
        for (size_t k = 0; k < e->u.obj.n; k++) {
            fputs("| ", f);
            rep_md_cell(f, e->u.obj.m[k].key, 200);
            fputs(" | ", f);
            const cdch_jv *v = e->u.obj.m[k].value;
            rep_md_cell(f, v->type == CDCH_JV_STRING ? v->u.str.ptr : "(not a string)", 300);
            fputs(" |\n", f);
        }
        for (size_t k = 0; kept && kept->type == CDCH_JV_OBJECT && k < kept->u.obj.n; k++) {
            const cdch_jv *v = kept->u.obj.m[k].value;
            fprintf(f, "%s`%s` kept by the harness: ", k ? "; " : "\n", kept->u.obj.m[k].key);
            rep_md_cell(f, v->type == CDCH_JV_STRING ? v->u.str.ptr : "", 300);
            if (k + 1 == kept->u.obj.n)
                fputs("\n", f);
        }
    }
}

int rep_render_markdown(const rep_doc *d, FILE *f)
{
    char ts[64];
    when(d->generated, ts, sizeof ts);
    size_t n = d->ncells, unmet = 0, regressions = 0;
    for (size_t i = 0; i < n; i++) {
        unmet += !rep_bool(d->cells[i], "meets");
        regressions += rep_bool(d->cells[i], "compression_regression");
    }
    fprintf(f, "# cdcharness run\n\n%s — %zu cell(s), %zu not as expected, %zu compression regression(s).\n\n", ts, n,
            unmet, regressions);
    rep_deploy_markdown(d, f);
    fputs("| consumer | scenario | mode | verdict | expected | summary |\n", f);
    fputs("|---|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < n; i++) {
        const cdch_jv *c = d->cells[i];
        const char *exp = rep_str(c, "expected");
        fputs("| ", f);
        rep_md_cell(f, rep_str(c, "consumer"), 200);
        fputs(" | ", f);
        rep_md_cell(f, rep_str(c, "scenario"), 200);
        fputs(" | ", f);
        rep_md_cell(f, rep_str(c, "mode"), 40);
        fprintf(f, " | **%s**%s", rep_str(c, "verdict"),
                rep_bool(c, "compression_regression") ? " ⚠ compression-regression" : "");
        /* a documented requirement of the consumer beside its verdict, in the documentation's terms */
        const cdch_jv *cs = cdch_jv_get(c, "cause");
        for (size_t k = 0; strcmp(rep_str(c, "verdict"), "pass") != 0 && cs && cs->type == CDCH_JV_ARRAY &&
                           k < cs->u.arr.n; k++)
            if (is_requirement(cs->u.arr.items[k])) {
                fputs(" — documented requirement, not a defect: ", f);
                rep_md_cell(f, rep_str(cs->u.arr.items[k], "summary") ? rep_str(cs->u.arr.items[k], "summary")
                                                                       : rep_str(cs->u.arr.items[k], "id"), 240);
            }
        fprintf(f, " | %s %s | ",
                rep_bool(c, "meets") ? "✓" : "✗", exp ? exp : "");
        rep_md_cell(f, rep_str(c, "summary"), 240);
        fputs(" |\n", f);
    }
    bool header = false;
    for (size_t i = 0; i < n; i++) {
        const cdch_jv *c = d->cells[i];
        bool meets = rep_bool(c, "meets");
        if (meets && strcmp(rep_str(c, "verdict"), "pass") == 0)
            continue;
        if (!header) {
            fputs("\n## Findings\n", f);
            header = true;
        }
        fprintf(f, "\n### %s — %s [%s]: %s%s\n\n", rep_str(c, "consumer"), rep_str(c, "scenario"), rep_str(c, "mode"),
                rep_str(c, "verdict"), meets ? " (as expected)" : "");
        fputs("```\n", f);
        const char *summary = rep_str(c, "summary");
        fputs(summary ? summary : "", f);
        fputs("\n", f);
        const cdch_jv *det = cdch_jv_get(c, "detail");
        for (size_t k = 0; det && det->type == CDCH_JV_ARRAY && k < det->u.arr.n; k++) {
            if (det->u.arr.items[k]->type == CDCH_JV_STRING) {
                fputs(det->u.arr.items[k]->u.str.ptr, f);
                fputc('\n', f);
            }
        }
        fputs("```\n", f);
        const cdch_jv *cause = cdch_jv_get(c, "cause");
        for (size_t k = 0; cause && cause->type == CDCH_JV_ARRAY && k < cause->u.arr.n; k++) {
            const cdch_jv *ki = cause->u.arr.items[k];
            const char *ev = rep_str(ki, "evidence");
            fprintf(f, "\ncause `%s` (%s%s): %s%s%s\n", rep_str(ki, "id"), rep_str(ki, "kind"),
                    rep_bool(ki, "compression") ? ", compression" : "",
                    rep_str(ki, "summary") ? rep_str(ki, "summary") : "not found in the consumer's source or tracker",
                    ev ? " — evidence: " : "", ev ? ev : "");
        }
        const cdch_jv *warn = cdch_jv_get(c, "warnings");
        for (size_t k = 0; warn && warn->type == CDCH_JV_ARRAY && k < warn->u.arr.n; k++)
            if (warn->u.arr.items[k]->type == CDCH_JV_STRING)
                fprintf(f, "%swarning: %s\n", k ? "" : "\n", warn->u.arr.items[k]->u.str.ptr);
        const char *tail = rep_str(c, "stderr_tail");
        if (tail && *tail) {
            const char *t = tail;
            size_t len = strlen(t);
            if (len > 2000)
                t += len - 2000;
            fputs("\nstderr (tail):\n\n```\n", f);
            fputs(t, f);
            if (tail[len - 1] != '\n')
                fputc('\n', f);
            fputs("```\n", f);
        }
        const char *dir = rep_str(c, "cell_dir");
        if (dir)
            fprintf(f, "\nlogs: `%s`\n", dir);
    }
    causes_section(d, f);
    predictions_section(d, f);
    config_section(d, f);
    return ferror(f) ? -1 : 0;
}
