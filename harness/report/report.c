/* report.c — writing the report files; escaping; the stdout verdict table. */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jsonstr.h"
#include "report_internal.h"
#include "setup.h"

/* One JSON string escaper for the whole harness (jsonstr.h): strict UTF-8
 * (U+FFFD per invalid or cut byte) and DEL escaped, as report.html embeds
 * the text. Escaped into a scratch buffer, then written. */
void rep_json_strn(FILE *f, const char *s, size_t n)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_json_str(&b, s, n, CDCH_JSON_UTF8 | CDCH_JSON_DEL);
    fwrite(b.data, 1, b.len, f);
    cdch_buf_free(&b);
}

void rep_json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    rep_json_strn(f, s, strlen(s));
}

void rep_jv_write(FILE *f, const cdch_jv *v)
{
    if (!v) {
        fputs("null", f);
        return;
    }
    switch (v->type) {
    case CDCH_JV_NULL: fputs("null", f); break;
    case CDCH_JV_FALSE: fputs("false", f); break;
    case CDCH_JV_TRUE: fputs("true", f); break;
    case CDCH_JV_NUMBER: fwrite(v->raw, 1, v->raw_len, f); break;
    case CDCH_JV_STRING: rep_json_strn(f, v->u.str.ptr, v->u.str.len); break;
    case CDCH_JV_ARRAY:
        fputc('[', f);
        for (size_t i = 0; i < v->u.arr.n; i++) {
            if (i)
                fputc(',', f);
            rep_jv_write(f, v->u.arr.items[i]);
        }
        fputc(']', f);
        break;
    case CDCH_JV_OBJECT:
        fputc('{', f);
        for (size_t i = 0; i < v->u.obj.n; i++) {
            if (i)
                fputc(',', f);
            rep_json_strn(f, v->u.obj.m[i].key, v->u.obj.m[i].key_len);
            fputc(':', f);
            rep_jv_write(f, v->u.obj.m[i].value);
        }
        fputc('}', f);
        break;
    }
}

void rep_xml_text(FILE *f, const char *s)
{
    if (!s)
        return;
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n > 0) {
        size_t len = cdch_utf8_seq(p, n);
        unsigned c = p[0];
        if (len == 0) {
            fputs("\xef\xbf\xbd", f);
            len = 1;
        } else if (c == '&') {
            fputs("&amp;", f);
        } else if (c == '<') {
            fputs("&lt;", f);
        } else if (c == '>') {
            fputs("&gt;", f);
        } else if (c == '"') {
            fputs("&quot;", f);
        } else if (c == '\'') {
            fputs("&apos;", f);
        } else if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
            ; /* not allowed in XML 1.0 */
        } else if (len == 3 && c == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf)) {
            ; /* U+FFFE, U+FFFF: not allowed either */
        } else {
            fwrite(p, 1, len, f);
        }
        p += len;
        n -= len;
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

const char *rep_cell_consumer(const struct cdch_cell *c, char *buf, size_t n)
{
    if (!c->config)
        return rep_consumer(c->family, c->version, buf, n);
    const char *base = strrchr(c->config, '/');
    snprintf(buf, n, "%s@%s (config %s)", c->family, c->version, base ? base + 1 : c->config);
    return buf;
}

int rep_write_file(const char *dir, const char *name, int (*fn)(const void *ctx, FILE *f), const void *ctx,
                   cdch_err *err)
{
    char tmp[PATH_MAX], final[PATH_MAX];
    snprintf(final, sizeof final, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return cdch_err_set(err, "cannot write %s: %s", tmp, strerror(errno));
    int rc = fn(ctx, f);
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

static int w_json(const void *d, FILE *f) { return rep_doc_write_json(d, f); }
static int w_junit(const void *d, FILE *f) { return rep_render_junit(d, f); }
static int w_md(const void *d, FILE *f) { return rep_render_markdown(d, f); }
static int w_html(const void *d, FILE *f) { return rep_render_html(d, f); }

int cdch_report_render(const char *dir, cdch_err *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/report.json", dir);
    rep_doc d;
    rep_doc_init(&d);
    int rc = -1;
    if (rep_doc_load(&d, path, dir, err) == 0 && rep_write_file(dir, "junit.xml", w_junit, &d, err) == 0 &&
        rep_write_file(dir, "summary.md", w_md, &d, err) == 0 && rep_write_file(dir, "report.html", w_html, &d, err) == 0)
        rc = 0;
    rep_doc_free(&d);
    return rc;
}

int cdch_report_write_meta(cdch_run *r, const char *dir, const cdch_report_meta *meta, cdch_err *err)
{
    if (cdch_mkdirs(dir, err) != 0)
        return -1;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return cdch_err_set(err, "out of memory");
    int jrc = cdch_report_json(r, dir, meta, f);
    if (fclose(f) != 0 || jrc != 0) {
        free(text);
        return cdch_err_set(err, "cannot build report.json");
    }
    rep_doc d;
    rep_doc_init(&d);
    int rc = -1;
    if (rep_doc_add(&d, text, len, "report.json", dir, err) == 0 && rep_doc_sort(&d, false, err) == 0 &&
        rep_write_file(dir, "report.json", w_json, &d, err) == 0)
        rc = 0;
    rep_doc_free(&d);
    free(text);
    if (rc != 0)
        return -1;
    return cdch_report_render(dir, err);
}

int cdch_report_write(cdch_run *r, const char *dir, cdch_err *err)
{
    return cdch_report_write_meta(r, dir, NULL, err);
}

/* ---- merge ------------------------------------------------------------------------ */

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int copy_file(const char *from, const char *to, cdch_err *err)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return cdch_err_set(err, "cannot read %s: %s", from, strerror(errno));
    FILE *out = fopen(to, "wb");
    if (!out) {
        int e = errno;
        fclose(in);
        return cdch_err_set(err, "cannot write %s: %s", to, strerror(e));
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            break;
    bool bad = ferror(in) || ferror(out);
    fclose(in);
    if (fclose(out) != 0 || bad)
        return cdch_err_set(err, "cannot copy %s to %s", from, to);
    return 0;
}

/* Copy the regular files of src_dir/rel to out_dir/rel (a cell's logs). */
static int copy_logs(const char *src_dir, const char *rel, const char *out_dir, cdch_err *err)
{
    char from[PATH_MAX], to[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
    snprintf(from, sizeof from, "%s/%s", src_dir, rel);
    snprintf(to, sizeof to, "%s/%s", out_dir, rel);
    if (!is_dir(from))
        return 0; /* a report without its logs */
    if (cdch_mkdirs(to, err) != 0)
        return -1;
    if (realpath(from, a) && realpath(to, b) && strcmp(a, b) == 0)
        return 0; /* merging into one of the inputs */
    DIR *dh = opendir(from);
    if (!dh)
        return cdch_err_set(err, "cannot open %s: %s", from, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(dh)) != NULL) {
        char f1[PATH_MAX + 256], f2[PATH_MAX + 256];
        snprintf(f1, sizeof f1, "%s/%s", from, e->d_name);
        snprintf(f2, sizeof f2, "%s/%s", to, e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || stat(f1, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        rc = copy_file(f1, f2, err);
    }
    closedir(dh);
    return rc;
}

int cdch_report_merge(const char *out_dir, const char *const *inputs, size_t n, cdch_err *err)
{
    rep_doc d;
    rep_doc_init(&d);
    d.merged = true;
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX], dir[PATH_MAX];
        if (is_dir(inputs[i])) {
            snprintf(path, sizeof path, "%s/report.json", inputs[i]);
            snprintf(dir, sizeof dir, "%s", inputs[i]);
        } else {
            snprintf(path, sizeof path, "%s", inputs[i]);
            snprintf(dir, sizeof dir, "%s", inputs[i]);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
            else
                snprintf(dir, sizeof dir, ".");
        }
        if (rep_doc_load(&d, path, dir, err) != 0)
            goto out;
    }
    if (rep_doc_sort(&d, true, err) != 0 || cdch_mkdirs(out_dir, err) != 0)
        goto out;
    for (size_t i = 0; i < d.ncells; i++) {
        const char *rel = rep_str(d.cells[i], "cell_dir");
        if (rel && rel[0] != '/' && d.cell_src[i] && strstr(rel, "..") == NULL &&
            copy_logs(d.cell_src[i], rel, out_dir, err) != 0)
            goto out;
    }
    if (rep_write_file(out_dir, "report.json", w_json, &d, err) != 0)
        goto out;
    rc = cdch_report_render(out_dir, err);
out:
    rep_doc_free(&d);
    return rc;
}

void cdch_report_table(cdch_run *r, FILE *f)
{
    size_t wc = 8, ws = 8;
    char buf[512];
    for (size_t i = 0; i < cdch_run_ncells(r); i++) {
        cdch_cell *c = cdch_run_cell(r, i);
        size_t l = strlen(rep_cell_consumer(c, buf, sizeof buf));
        if (l > wc)
            wc = l;
        if (strlen(c->scenario) > ws)
            ws = strlen(c->scenario);
    }
    fprintf(f, "%-*s %-*s %-12s %-14s %-17s %7s  %s\n", (int)wc, "consumer", (int)ws, "scenario", "mode", "verdict",
            "expected", "time", "detail");
    size_t unmet = 0, counts[CDCH_VERDICT_COUNT] = {0};
    for (size_t i = 0; i < cdch_run_ncells(r); i++) {
        cdch_cell *c = cdch_run_cell(r, i);
        char exp[64];
        /* a predicted expectation (a version the manifest does not pin, predict.h) is marked '~' */
        snprintf(exp, sizeof exp, "%s %s%s%s%s", c->meets ? "ok" : "NOT",
                 strcmp(c->expect_source, "predicted") == 0 ? "~" : "", cdch_verdict_name(c->expected),
                 c->expected_racy ? "|" : "", c->expected_racy ? cdch_verdict_name(c->expected_other) : "");
        char detail[400] = "";
        if (c->compression_regression)
            snprintf(detail, sizeof detail, "[compression-regression] ");
        if (c->verdict != CDCH_VERDICT_PASS && c->summary) {
            size_t o = strlen(detail);
            snprintf(detail + o, sizeof detail - o, "%.*s", 300, c->summary);
        }
        fprintf(f, "%-*s %-*s %-12s %-14s %-17s %6.1fs  %s\n", (int)wc,
                rep_cell_consumer(c, buf, sizeof buf), (int)ws, c->scenario, c->mode,
                cdch_verdict_name(c->verdict), exp, c->seconds, detail);
        counts[c->verdict]++;
        unmet += !c->meets;
    }
    bool predicted = false;
    for (size_t i = 0; i < cdch_run_ncells(r) && !predicted; i++)
        predicted = strcmp(cdch_run_cell(r, i)->expect_source, "predicted") == 0;
    if (predicted)
        fprintf(f, "~ a predicted expectation: the version is not pinned; the known issues whose range holds it "
                   "predict it (report.json \"prediction\")\n");
    fprintf(f, "%zu cell(s):", cdch_run_ncells(r));
    for (int v = 0; v < CDCH_VERDICT_COUNT; v++)
        if (counts[v])
            fprintf(f, " %zu %s,", counts[v], cdch_verdict_name((cdch_verdict)v));
    fprintf(f, " %zu not as expected\n", unmet);
}
