/* report_md.c — summary.md: verdict table, then the findings of every cell
 * that is not a pass or not as expected. */
#include <string.h>
#include <time.h>

#include "report.h"
#include "report_internal.h"

int cdch_report_markdown(cdch_run *r, FILE *f)
{
    char ts[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S UTC", &tm);
    size_t n = cdch_run_ncells(r), unmet = 0, regressions = 0;
    for (size_t i = 0; i < n; i++) {
        unmet += !cdch_run_cell(r, i)->meets;
        regressions += cdch_run_cell(r, i)->compression_regression;
    }
    fprintf(f, "# cdcharness run\n\n%s — %zu cell(s), %zu not as expected, %zu compression regression(s).\n\n", ts, n,
            unmet, regressions);
    fputs("| consumer | scenario | mode | verdict | expected | summary |\n", f);
    fputs("|---|---|---|---|---|---|\n", f);
    char buf[600];
    for (size_t i = 0; i < n; i++) {
        cdch_cell *c = cdch_run_cell(r, i);
        fputs("| ", f);
        rep_md_cell(f, rep_consumer(c->family, c->version, buf, sizeof buf), 200);
        fputs(" | ", f);
        rep_md_cell(f, c->scenario, 200);
        fprintf(f, " | %s | **%s**%s | %s %s | ", c->mode, cdch_verdict_name(c->verdict),
                c->compression_regression ? " ⚠ compression-regression" : "", c->meets ? "✓" : "✗",
                cdch_verdict_name(c->expected));
        rep_md_cell(f, c->summary, 240);
        fputs(" |\n", f);
    }
    bool header = false;
    for (size_t i = 0; i < n; i++) {
        cdch_cell *c = cdch_run_cell(r, i);
        if (c->meets && c->verdict == CDCH_VERDICT_PASS)
            continue;
        if (!header) {
            fputs("\n## Findings\n", f);
            header = true;
        }
        fprintf(f, "\n### %s — %s [%s]: %s%s\n\n", rep_consumer(c->family, c->version, buf, sizeof buf), c->scenario,
                c->mode, cdch_verdict_name(c->verdict), c->meets ? " (as expected)" : "");
        fputs("```\n", f);
        fputs(c->summary ? c->summary : "", f);
        fputs("\n", f);
        fputs(c->detail ? c->detail : "", f);
        fputs("```\n", f);
        if (c->stderr_tail && *c->stderr_tail) {
            const char *t = c->stderr_tail;
            size_t len = strlen(t);
            if (len > 2000)
                t += len - 2000;
            fputs("\nstderr (tail):\n\n```\n", f);
            fputs(t, f);
            if (len && c->stderr_tail[strlen(c->stderr_tail) - 1] != '\n')
                fputc('\n', f);
            fputs("```\n", f);
        }
        if (c->cell_dir)
            fprintf(f, "\nlogs: `%s`\n", c->cell_dir);
    }
    return ferror(f) ? -1 : 0;
}
