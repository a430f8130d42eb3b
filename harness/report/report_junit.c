/* report_junit.c — junit.xml: a testsuite per consumer@version, a testcase
 * per scenario × mode; failure = the cell does not meet its expectation. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_internal.h"

static void testcase(FILE *f, const cdch_cell *c)
{
    char name[600];
    snprintf(name, sizeof name, "%s [%s]", c->scenario, c->mode);
    fputs("    <testcase classname=\"cdcharness.", f);
    char buf[600];
    rep_xml_text(f, rep_consumer(c->family, c->version, buf, sizeof buf));
    fputs("\" name=\"", f);
    rep_xml_text(f, name);
    fprintf(f, "\" time=\"%.3f\">\n", c->seconds);
    if (!c->meets) {
        bool err = c->verdict == CDCH_VERDICT_HARNESS_ERROR;
        char msg[1400];
        snprintf(msg, sizeof msg, "%s%s (expected %s): %s", cdch_verdict_name(c->verdict),
                 c->compression_regression ? " [compression-regression]" : "", cdch_verdict_name(c->expected),
                 c->summary ? c->summary : "");
        fprintf(f, "      <%s message=\"", err ? "error" : "failure");
        rep_xml_text(f, msg);
        fputs("\" type=\"", f);
        rep_xml_text(f, cdch_verdict_name(c->verdict));
        fputs("\">", f);
        rep_xml_text(f, c->summary);
        fputs("\n", f);
        rep_xml_text(f, c->detail);
        fprintf(f, "</%s>\n", err ? "error" : "failure");
    }
    fputs("      <system-out>", f);
    char line[1400];
    snprintf(line, sizeof line, "verdict: %s%s; expected: %s (%s)\n%s\n", cdch_verdict_name(c->verdict),
             c->compression_regression ? " [compression-regression]" : "", cdch_verdict_name(c->expected),
             c->expect_source, c->summary ? c->summary : "");
    rep_xml_text(f, line);
    if (c->cell_dir) {
        rep_xml_text(f, "logs: ");
        rep_xml_text(f, c->cell_dir);
        fputc('\n', f);
    }
    fputs("</system-out>\n", f);
    if (c->stderr_tail && *c->stderr_tail) {
        fputs("      <system-err>", f);
        rep_xml_text(f, c->stderr_tail);
        fputs("</system-err>\n", f);
    }
    fputs("    </testcase>\n", f);
}

int cdch_report_junit(cdch_run *r, FILE *f)
{
    size_t n = cdch_run_ncells(r), fails = 0, errors = 0;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        cdch_cell *c = cdch_run_cell(r, i);
        total += c->seconds;
        if (!c->meets) {
            if (c->verdict == CDCH_VERDICT_HARNESS_ERROR)
                errors++;
            else
                fails++;
        }
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"cdcharness\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n", n,
            fails, errors, total);
    /* one suite per consumer@version, in order of first appearance */
    bool *done = calloc(n ? n : 1, sizeof *done);
    if (!done)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        cdch_cell *c0 = cdch_run_cell(r, i);
        size_t t = 0, sf = 0, se = 0;
        double secs = 0;
        for (size_t k = i; k < n; k++) {
            cdch_cell *c = cdch_run_cell(r, k);
            if (c->consumer_idx != c0->consumer_idx)
                continue;
            t++;
            secs += c->seconds;
            if (!c->meets && c->verdict == CDCH_VERDICT_HARNESS_ERROR)
                se++;
            else if (!c->meets)
                sf++;
        }
        char buf[600];
        fputs("  <testsuite name=\"", f);
        rep_xml_text(f, rep_consumer(c0->family, c0->version, buf, sizeof buf));
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n", t, sf, se, secs);
        for (size_t k = i; k < n; k++) {
            cdch_cell *c = cdch_run_cell(r, k);
            if (c->consumer_idx != c0->consumer_idx)
                continue;
            done[k] = true;
            testcase(f, c);
        }
        fputs("  </testsuite>\n", f);
    }
    free(done);
    fputs("</testsuites>\n", f);
    return ferror(f) ? -1 : 0;
}
