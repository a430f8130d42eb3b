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
        fprintf(f, " | **%s**%s | %s %s | ", rep_str(c, "verdict"),
                rep_bool(c, "compression_regression") ? " ⚠ compression-regression" : "",
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
    return ferror(f) ? -1 : 0;
}
