/* report.c — writing the report files; escaping; the stdout verdict table. */
#include "report.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "report_internal.h"
#include "setup.h"

/* Next code point of s; *len its byte length; -1 for an invalid byte. */
static long next_cp(const unsigned char *s, size_t *len)
{
    unsigned c = s[0];
    size_t n;
    unsigned long cp;
    if (c < 0x80) {
        *len = 1;
        return (long)c;
    }
    if ((c & 0xe0) == 0xc0) {
        n = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        cp = c & 0x07;
    } else {
        *len = 1;
        return -1;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            *len = 1;
            return -1;
        }
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const unsigned long min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        *len = 1;
        return -1;
    }
    *len = n;
    return (long)cp;
}

void rep_json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t len;
        long cp = next_cp(p, &len);
        if (cp < 0)
            fputs("\\ufffd", f);
        else if (cp == '"')
            fputs("\\\"", f);
        else if (cp == '\\')
            fputs("\\\\", f);
        else if (cp == '\n')
            fputs("\\n", f);
        else if (cp == '\r')
            fputs("\\r", f);
        else if (cp == '\t')
            fputs("\\t", f);
        else if (cp < 0x20 || cp == 0x7f)
            fprintf(f, "\\u%04lx", (unsigned long)cp);
        else
            fwrite(p, 1, len, f);
        p += len;
    }
    fputc('"', f);
}

void rep_xml_text(FILE *f, const char *s)
{
    if (!s)
        return;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t len;
        long cp = next_cp(p, &len);
        if (cp < 0)
            fputs("\xef\xbf\xbd", f);
        else if (cp == '&')
            fputs("&amp;", f);
        else if (cp == '<')
            fputs("&lt;", f);
        else if (cp == '>')
            fputs("&gt;", f);
        else if (cp == '"')
            fputs("&quot;", f);
        else if (cp == '\'')
            fputs("&apos;", f);
        else if (cp < 0x20 && cp != '\n' && cp != '\t' && cp != '\r')
            ; /* not allowed in XML 1.0 */
        else if (cp == 0xfffe || cp == 0xffff)
            ;
        else
            fwrite(p, 1, len, f);
        p += len;
    }
}

void rep_md_cell(FILE *f, const char *s, size_t max)
{
    if (!s)
        return;
    size_t n = 0;
    for (const char *p = s; *p && n < max; p++, n++) {
        if (*p == '|')
            fputs("\\|", f);
        else if (*p == '\n' || *p == '\r')
            fputc(' ', f);
        else
            fputc(*p, f);
    }
    if (strlen(s) > max)
        fputs("…", f);
}

const char *rep_consumer(const char *family, const char *version, char *buf, size_t n)
{
    snprintf(buf, n, "%s@%s", family, version);
    return buf;
}

static int write_one(const char *dir, const char *name, int (*fn)(cdch_run *, FILE *), cdch_run *r, cdch_err *err)
{
    char tmp[PATH_MAX], final[PATH_MAX];
    snprintf(final, sizeof final, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return cdch_err_set(err, "cannot write %s: %s", tmp, strerror(errno));
    int rc = fn(r, f);
    if (fclose(f) != 0 || rc != 0) {
        remove(tmp);
        return cdch_err_set(err, "cannot write %s", final);
    }
    if (rename(tmp, final) != 0) {
        int e = errno;
        remove(tmp);
        return cdch_err_set(err, "cannot rename %s to %s: %s", tmp, final, strerror(e));
    }
    return 0;
}

int cdch_report_write(cdch_run *r, const char *dir, cdch_err *err)
{
    if (cdch_mkdirs(dir, err) != 0)
        return -1;
    if (write_one(dir, "report.json", cdch_report_json, r, err) != 0 ||
        write_one(dir, "junit.xml", cdch_report_junit, r, err) != 0 ||
        write_one(dir, "summary.md", cdch_report_markdown, r, err) != 0)
        return -1;
    return 0;
}

void cdch_report_table(cdch_run *r, FILE *f)
{
    size_t wc = 8, ws = 8;
    char buf[512];
    for (size_t i = 0; i < cdch_run_ncells(r); i++) {
        cdch_cell *c = cdch_run_cell(r, i);
        size_t l = strlen(rep_consumer(c->family, c->version, buf, sizeof buf));
        if (l > wc)
            wc = l;
        if (strlen(c->scenario) > ws)
            ws = strlen(c->scenario);
    }
    fprintf(f, "%-*s %-*s %-12s %-14s %-16s %7s  %s\n", (int)wc, "consumer", (int)ws, "scenario", "mode", "verdict",
            "expected", "time", "detail");
    size_t unmet = 0, counts[CDCH_VERDICT_COUNT] = {0};
    for (size_t i = 0; i < cdch_run_ncells(r); i++) {
        cdch_cell *c = cdch_run_cell(r, i);
        char exp[64];
        snprintf(exp, sizeof exp, "%s %s", c->meets ? "ok" : "NOT", cdch_verdict_name(c->expected));
        char detail[400] = "";
        if (c->compression_regression)
            snprintf(detail, sizeof detail, "[compression-regression] ");
        if (c->verdict != CDCH_VERDICT_PASS && c->summary) {
            size_t o = strlen(detail);
            snprintf(detail + o, sizeof detail - o, "%.*s", 300, c->summary);
        }
        fprintf(f, "%-*s %-*s %-12s %-14s %-16s %6.1fs  %s\n", (int)wc,
                rep_consumer(c->family, c->version, buf, sizeof buf), (int)ws, c->scenario, c->mode,
                cdch_verdict_name(c->verdict), exp, c->seconds, detail);
        counts[c->verdict]++;
        unmet += !c->meets;
    }
    fprintf(f, "%zu cell(s):", cdch_run_ncells(r));
    for (int v = 0; v < CDCH_VERDICT_COUNT; v++)
        if (counts[v])
            fprintf(f, " %zu %s,", counts[v], cdch_verdict_name((cdch_verdict)v));
    fprintf(f, " %zu not as expected\n", unmet);
}
