/* report_junit.c — junit.xml from report.json: a testsuite per
 * consumer@version, a testcase per scenario × mode; failure = the cell does
 * not meet its expectation. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_internal.h"

static bool is_harness_error(const cdch_jv *c) { return strcmp(rep_str(c, "verdict"), "harness-error") == 0; }

/* The detail lines, each ending with a newline. */
static void detail_text(FILE *f, const cdch_jv *c)
{
    const cdch_jv *d = cdch_jv_get(c, "detail");
    if (!d || d->type != CDCH_JV_ARRAY)
        return;
    for (size_t i = 0; i < d->u.arr.n; i++) {
        if (d->u.arr.items[i]->type != CDCH_JV_STRING)
            continue;
        rep_xml_text(f, d->u.arr.items[i]->u.str.ptr);
        fputc('\n', f);
    }
}

static const char *or_empty(const char *s) { return s ? s : ""; }

static void testcase(FILE *f, const cdch_jv *c)
{
    const char *verdict = rep_str(c, "verdict"), *expected = or_empty(rep_str(c, "expected"));
    const char *summary = rep_str(c, "summary");
    bool reg = rep_bool(c, "compression_regression");
    char name[600];
    snprintf(name, sizeof name, "%s [%s]", rep_str(c, "scenario"), rep_str(c, "mode"));
    fputs("    <testcase classname=\"cdcharness.", f);
    rep_xml_text(f, rep_str(c, "consumer"));
    fputs("\" name=\"", f);
    rep_xml_text(f, name);
    fprintf(f, "\" time=\"%.3f\">\n", rep_num(c, "seconds"));
    if (!rep_bool(c, "meets")) {
        bool err = is_harness_error(c);
        char msg[1400];
        snprintf(msg, sizeof msg, "%s%s (expected %s): %s", verdict, reg ? " [compression-regression]" : "", expected,
                 or_empty(summary));
        fprintf(f, "      <%s message=\"", err ? "error" : "failure");
        rep_xml_text(f, msg);
        fputs("\" type=\"", f);
        rep_xml_text(f, verdict);
        fputs("\">", f);
        rep_xml_text(f, summary);
        fputs("\n", f);
        detail_text(f, c);
        fprintf(f, "</%s>\n", err ? "error" : "failure");
    }
    fputs("      <system-out>", f);
    char line[1400];
    snprintf(line, sizeof line, "verdict: %s%s; expected: %s (%s)\n%s\n", verdict,
             reg ? " [compression-regression]" : "", expected, or_empty(rep_str(c, "expect_source")),
             or_empty(summary));
    rep_xml_text(f, line);
    const cdch_jv *cause = cdch_jv_get(c, "cause");
    for (size_t k = 0; cause && cause->type == CDCH_JV_ARRAY && k < cause->u.arr.n; k++) {
        const cdch_jv *ki = cause->u.arr.items[k];
        snprintf(line, sizeof line, "cause %s (%s): %s; evidence: %s\n", or_empty(rep_str(ki, "id")),
                 or_empty(rep_str(ki, "kind")), or_empty(rep_str(ki, "summary")), or_empty(rep_str(ki, "evidence")));
        rep_xml_text(f, line);
    }
    const cdch_jv *pred = cdch_jv_get(c, "prediction");
    if (pred) {
        snprintf(line, sizeof line, "predicted %s (a version the manifest does not pin): %s\n",
                 or_empty(rep_str(pred, "verdict")), rep_bool(pred, "held") ? "held" : "did NOT hold");
        rep_xml_text(f, line);
    }
    const char *cfg = rep_str(c, "config");
    const cdch_jv *eff = cdch_jv_get(c, "config_effective");
    const cdch_jv *e = eff ? cdch_jv_get(eff, "effective") : NULL, *kept = eff ? cdch_jv_get(eff, "kept") : NULL;
    if (cfg) {
        rep_xml_text(f, "config file: ");
        rep_xml_text(f, cfg);
        fputc('\n', f);
    }
    for (size_t k = 0; e && e->type == CDCH_JV_OBJECT && k < e->u.obj.n; k++) { /* the effective configuration */
        const cdch_jv *v = e->u.obj.m[k].value;
        snprintf(line, sizeof line, "config %s = %s\n", e->u.obj.m[k].key,
                 v->type == CDCH_JV_STRING ? v->u.str.ptr : "(not a string)");
        rep_xml_text(f, line);
    }
    for (size_t k = 0; kept && kept->type == CDCH_JV_OBJECT && k < kept->u.obj.n; k++) {
        const cdch_jv *v = kept->u.obj.m[k].value;
        snprintf(line, sizeof line, "config %s: kept by the harness (%s)\n", kept->u.obj.m[k].key,
                 v->type == CDCH_JV_STRING ? v->u.str.ptr : "");
        rep_xml_text(f, line);
    }
    const cdch_jv *warn = cdch_jv_get(c, "warnings");
    for (size_t k = 0; warn && warn->type == CDCH_JV_ARRAY && k < warn->u.arr.n; k++)
        if (warn->u.arr.items[k]->type == CDCH_JV_STRING) {
            rep_xml_text(f, "warning: ");
            rep_xml_text(f, warn->u.arr.items[k]->u.str.ptr);
            rep_xml_text(f, "\n");
        }
    const char *dir = rep_str(c, "cell_dir");
    if (dir) {
        rep_xml_text(f, "logs: ");
        rep_xml_text(f, dir);
        fputc('\n', f);
    }
    fputs("</system-out>\n", f);
    const char *tail = rep_str(c, "stderr_tail");
    if (tail && *tail) {
        fputs("      <system-err>", f);
        rep_xml_text(f, tail);
        fputs("</system-err>\n", f);
    }
    fputs("    </testcase>\n", f);
}

int rep_render_junit(const rep_doc *d, FILE *f)
{
    size_t n = d->ncells, fails = 0, errors = 0;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        const cdch_jv *c = d->cells[i];
        total += rep_num(c, "seconds");
        if (!rep_bool(c, "meets")) {
            if (is_harness_error(c))
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
        const char *con = rep_str(d->cells[i], "consumer");
        size_t t = 0, sf = 0, se = 0;
        double secs = 0;
        for (size_t k = i; k < n; k++) {
            const cdch_jv *c = d->cells[k];
            if (strcmp(rep_str(c, "consumer"), con) != 0)
                continue;
            t++;
            secs += rep_num(c, "seconds");
            if (!rep_bool(c, "meets") && is_harness_error(c))
                se++;
            else if (!rep_bool(c, "meets"))
                sf++;
        }
        fputs("  <testsuite name=\"", f);
        rep_xml_text(f, con);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n", t, sf, se, secs);
        for (size_t k = i; k < n; k++) {
            if (strcmp(rep_str(d->cells[k], "consumer"), con) != 0)
                continue;
            done[k] = true;
            testcase(f, d->cells[k]);
        }
        fputs("  </testsuite>\n", f);
    }
    free(done);
    fputs("</testsuites>\n", f);
    return ferror(f) ? -1 : 0;
}
