/* report_html.c — report.html: one self-contained page (inline CSS and
 * JavaScript, report.json embedded, nothing fetched) from
 * report_template.html, built into the binary by embed.cmake.
 *
 * The template holds three markers: @CDCH_TITLE@ (the page title, HTML
 * escaped), @CDCH_DEPLOYMENT@ (the pre-flip answers and estimate figures of
 * a deployment file, static HTML and SVG: report_deploy.c) and
 * @CDCH_REPORT_JSON@ (inside <script type="application/json">:
 * the report as report.json writes it, every '<' written as \u003c so no
 * "</script>" or "<!--" can end or confuse the element — '<' only ever
 * appears inside JSON strings, where the escape means the same). */
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

extern const unsigned char cdch_report_template[];
extern const size_t cdch_report_template_len;

static void html_json(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '<')
            fputs("\\u003c", f);
        else
            fputc(s[i], f);
    }
}

int rep_render_html(const rep_doc *d, FILE *f)
{
    char *json = NULL;
    size_t jlen = 0;
    FILE *m = open_memstream(&json, &jlen);
    if (!m)
        return -1;
    int rc = rep_doc_write_json(d, m);
    if (fclose(m) != 0 || rc != 0) {
        free(json);
        return -1;
    }
    size_t unmet = 0;
    for (size_t i = 0; i < d->ncells; i++)
        unmet += !rep_bool(d->cells[i], "meets");
    char title[200];
    snprintf(title, sizeof title, "cdcharness report — %zu cell(s), %zu not as expected", d->ncells, unmet);

    const char *t = (const char *)cdch_report_template, *end = t + cdch_report_template_len;
    static const char k_title[] = "@CDCH_TITLE@", k_json[] = "@CDCH_REPORT_JSON@", k_dep[] = "@CDCH_DEPLOYMENT@";
    while (t < end) {
        const char *at = memchr(t, '@', (size_t)(end - t));
        if (!at) {
            fwrite(t, 1, (size_t)(end - t), f);
            break;
        }
        fwrite(t, 1, (size_t)(at - t), f);
        size_t left = (size_t)(end - at);
        if (left >= sizeof k_title - 1 && memcmp(at, k_title, sizeof k_title - 1) == 0) {
            rep_xml_text(f, title);
            t = at + sizeof k_title - 1;
        } else if (left >= sizeof k_json - 1 && memcmp(at, k_json, sizeof k_json - 1) == 0) {
            html_json(f, json, jlen);
            t = at + sizeof k_json - 1;
        } else if (left >= sizeof k_dep - 1 && memcmp(at, k_dep, sizeof k_dep - 1) == 0) {
            rep_deploy_html(d, f);
            t = at + sizeof k_dep - 1;
        } else {
            fputc('@', f);
            t = at + 1;
        }
    }
    free(json);
    return ferror(f) ? -1 : 0;
}
