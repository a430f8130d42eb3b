/* report_deploy.c — the "deployment" object of report.json (a deployment
 * file run with `matrix --pre-flip`) in summary.md and report.html: the
 * answer per consumer (SAFE / NOT SAFE / UNKNOWN) with its evidence, and per
 * capture the figures of `cdcharness estimate` (bytes, CPU, memory per
 * level; catch-up over the file's link), in HTML with inline SVG charts
 * (svgchart.h). Everything is read back from report.json's tree, so a
 * re-render or merge shows the same. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "report_internal.h"
#include "svgchart.h"

#define MAX_LV 32

static const char *answer_text(const char *a)
{
    return !a ? "?" : strcmp(a, "safe") == 0 ? "SAFE" : strcmp(a, "not-safe") == 0 ? "NOT SAFE" : "UNKNOWN";
}

static const cdch_jv *arr(const cdch_jv *o, const char *key)
{
    const cdch_jv *v = o ? cdch_jv_get(o, key) : NULL;
    return v && v->type == CDCH_JV_ARRAY ? v : NULL;
}

/* An estimate's rows: the uncompressed stream, then its levels (at most MAX_LV). */
static size_t est_rows(const cdch_jv *e, const cdch_jv **rows)
{
    size_t n = 0;
    const cdch_jv *u = cdch_jv_get(e, "uncompressed"), *lv = arr(e, "levels");
    if (u && u->type == CDCH_JV_OBJECT)
        rows[n++] = u;
    for (size_t i = 0; lv && i < lv->u.arr.n && n < MAX_LV; i++)
        if (lv->u.arr.items[i]->type == CDCH_JV_OBJECT)
            rows[n++] = lv->u.arr.items[i];
    return n;
}

static void level_label(const cdch_jv *row, char *b, size_t n)
{
    if (rep_bool(row, "compressed"))
        snprintf(b, n, "%.0f", rep_num(row, "level"));
    else
        snprintf(b, n, "off");
}

static const char *link_text(const cdch_jv *e)
{
    const cdch_jv *l = cdch_jv_get(e, "link");
    return l && l->type == CDCH_JV_OBJECT ? rep_str(l, "text") : NULL;
}

/* ---- summary.md ---------------------------------------------------------------------- */

void rep_deploy_markdown(const rep_doc *d, FILE *f)
{
    if (!d->deployment)
        return;
    const cdch_jv *pf = cdch_jv_get(d->deployment, "preflip"), *cons = arr(pf, "consumers");
    if (cons) {
        fputs("## Pre-flip: may binlog_transaction_compression be turned on?\n\n"
              "| consumer | answer | compressed/flip cells | worse than uncompressed | pre-existing |\n"
              "|---|---|---|---|---|\n", f);
        for (size_t i = 0; i < cons->u.arr.n; i++) {
            const cdch_jv *c = cons->u.arr.items[i];
            fputs("| ", f);
            rep_md_cell(f, rep_str(c, "consumer"), 200);
            fprintf(f, " | **%s** | %.0f | %.0f | %.0f |\n", answer_text(rep_str(c, "answer")), rep_num(c, "cells"),
                    rep_num(c, "worse_when_compressed"), rep_num(c, "preexisting"));
        }
        for (size_t i = 0; i < cons->u.arr.n; i++) {
            const cdch_jv *c = cons->u.arr.items[i];
            const char *ev = rep_str(c, "evidence");
            if (ev && *ev)
                fprintf(f, "\n### %s: %s\n\n%s", rep_str(c, "consumer"), answer_text(rep_str(c, "answer")), ev);
        }
        fputs("\n", f);
    }
    const cdch_jv *ests = arr(d->deployment, "estimates");
    for (size_t k = 0; ests && k < ests->u.arr.n; k++) {
        const cdch_jv *e = ests->u.arr.items[k], *rows[MAX_LV];
        size_t n = est_rows(e, rows);
        const char *lt = link_text(e);
        fprintf(f, "## Estimate: %s\n\n", rep_str(e, "capture") ? rep_str(e, "capture") : "?");
        fprintf(f, "| level | stream bytes | ratio | row bytes in | row bytes out | CPU s/GB | zstd s/GB | "
                   "decompress s/GB | peak MB |%s\n|---|---|---|---|---|---|---|---|---|%s\n",
                lt ? " catch-up s | vs off |" : "", lt ? "---|---|" : "");
        for (size_t i = 0; i < n; i++) {
            char name[16];
            level_label(rows[i], name, sizeof name);
            fprintf(f, "| %s | %.0f | %.3f | %.0f | %.0f | %.2f | %.2f | %.2f | %.1f |", name,
                    rep_num(rows[i], "stream_bytes"), rep_num(rows[i], "ratio"), rep_num(rows[i], "row_bytes_in"),
                    rep_num(rows[i], "row_bytes_out"), rep_num(rows[i], "cpu_s_per_gb"),
                    rep_num(rows[i], "zstd_cpu_s_per_gb"), rep_num(rows[i], "decompress_cpu_s_per_gb"),
                    rep_num(rows[i], "peak_rss_bytes") / 1048576.0);
            if (lt)
                fprintf(f, " %.2f | %.3f |", rep_num(rows[i], "catchup_s"), rep_num(rows[i], "catchup_vs_uncompressed"));
            fputs("\n", f);
        }
        if (lt)
            fprintf(f, "\nCatch-up over %s: the harness's replica, from its dump request to the last event.\n", lt);
        fputs("\n", f);
    }
}

/* ---- report.html ------------------------------------------------------------------- */

static void html_text(cdch_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': cdch_put_str(b, "&amp;"); break;
        case '<': cdch_put_str(b, "&lt;"); break;
        case '>': cdch_put_str(b, "&gt;"); break;
        case '"': cdch_put_str(b, "&quot;"); break;
        default: cdch_put_bytes(b, s, 1);
        }
    }
}

static const char k_css[] =
    "<style>\n.deploy table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:4px 0 10px}"
    ".deploy th,.deploy td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:right}"
    ".deploy th{color:var(--muted);font-weight:600}.deploy td:first-child,.deploy th:first-child{text-align:left}"
    ".deploy td.a,.deploy th.a{text-align:center}\n"
    ".deploy .ans{display:inline-block;padding:2px 8px;border-radius:4px;color:#fff;font-weight:700;font-size:12px}"
    ".deploy .safe{background:#3aa865}.deploy .not-safe{background:#c21d3c}.deploy .unknown{background:#6b7280}\n"
    ".deploy pre.ev{white-space:pre-wrap;background:var(--soft);border-radius:6px;padding:8px 10px;margin:4px 0 12px}"
    ".deploy h3{font-size:14px;margin:14px 0 4px}.deploy p.note{color:var(--muted);margin:4px 0}\n";

static void html_preflip(cdch_buf *b, const cdch_jv *cons)
{
    cdch_put_str(b, "<section class=\"card deploy\" id=\"preflip\"><h2>Pre-flip: may "
                    "binlog_transaction_compression be turned on?</h2>\n<p class=\"note\">A consumer is SAFE when "
                    "none of its compressed (or flip) cells is worse than the same scenario uncompressed; findings "
                    "that also happen uncompressed are listed but do not block the flip.</p>\n<table><tr><th>consumer"
                    "</th><th class=\"a\">answer</th><th>compressed/flip cells</th><th>worse than uncompressed</th>"
                    "<th>pre-existing</th></tr>\n");
    for (size_t i = 0; i < cons->u.arr.n; i++) {
        const cdch_jv *c = cons->u.arr.items[i];
        const char *a = rep_str(c, "answer");
        cdch_put_str(b, "<tr><td class=\"mono\">");
        html_text(b, rep_str(c, "consumer"));
        cdch_put_str(b, "</td><td class=\"a\"><span class=\"ans ");
        html_text(b, a ? a : "unknown");
        cdch_buf_printf(b, "\">%s</span></td><td>%.0f</td><td>%.0f</td><td>%.0f</td></tr>\n", answer_text(a),
                        rep_num(c, "cells"), rep_num(c, "worse_when_compressed"), rep_num(c, "preexisting"));
    }
    cdch_put_str(b, "</table>\n");
    for (size_t i = 0; i < cons->u.arr.n; i++) {
        const cdch_jv *c = cons->u.arr.items[i];
        const char *ev = rep_str(c, "evidence");
        if (!ev || !*ev)
            continue;
        cdch_put_str(b, "<h3>");
        html_text(b, rep_str(c, "consumer"));
        cdch_buf_printf(b, ": %s</h3><pre class=\"ev\">", answer_text(rep_str(c, "answer")));
        html_text(b, ev);
        cdch_put_str(b, "</pre>\n");
    }
    cdch_put_str(b, "</section>\n");
}

static void html_estimate(cdch_buf *b, const cdch_jv *e)
{
    const cdch_jv *rows[MAX_LV];
    size_t n = est_rows(e, rows);
    if (!n)
        return;
    const char *lt = link_text(e);
    char names[MAX_LV][16];
    const char *labels[MAX_LV];
    double vb[MAX_LV], vz[MAX_LV], vd[MAX_LV], vm[MAX_LV], vc[MAX_LV];
    for (size_t i = 0; i < n; i++) {
        level_label(rows[i], names[i], sizeof names[i]);
        labels[i] = names[i];
        vb[i] = rep_num(rows[i], "stream_bytes") / 1e6;
        vz[i] = rep_num(rows[i], "zstd_cpu_s_per_gb");
        vd[i] = rep_num(rows[i], "decompress_cpu_s_per_gb");
        vm[i] = rep_num(rows[i], "peak_rss_bytes") / 1048576.0;
        vc[i] = rep_num(rows[i], "catchup_s");
    }
    cdch_put_str(b, "<section class=\"card deploy estimate\"><h2>What compression costs and buys on ");
    html_text(b, rep_str(e, "capture"));
    cdch_put_str(b, "</h2>\n<p class=\"note\">cdcharness estimate: each level's stream is the capture rewritten as "
                    "MySQL writes it with compression ON (off: compression OFF); CPU per GB of row data (the "
                    "transactions MySQL compresses); memory: the peak resident set of the process compressing that "
                    "level.</p>\n<h3>Bytes and CPU per level</h3>\n");
    const cdch_chart_series s1[3] = {
        {"stream MB", "#5b6f95", vb, true},
        {"compression CPU s/GB of row data", "#d9573a", vz, false},
        {"decompression CPU s/GB", "#1f9e8f", vd, false},
    };
    cdch_svg_chart(b, labels, n, s1, 3, "stream MB", "CPU s per GB of row data", "zstd level");
    cdch_put_str(b, "<h3>Memory per level</h3>\n");
    const cdch_chart_series s2[1] = {{"peak MB (compressing process)", "#d68f1f", vm, true}};
    cdch_svg_chart(b, labels, n, s2, 1, "peak MB", "", "zstd level");
    if (lt) {
        cdch_put_str(b, "<h3>Catch-up over ");
        html_text(b, lt);
        cdch_put_str(b, "</h3>\n");
        const cdch_chart_series s3[1] = {{"catch-up s", "#8f63cf", vc, true}};
        cdch_svg_chart(b, labels, n, s3, 1, "seconds", "", "zstd level");
        cdch_put_str(b, "<p class=\"note\">The harness's replica (the <code>record</code> client), served through "
                        "the fake primary's link emulation: from its dump request to the last event received.</p>\n");
    }
    cdch_put_str(b, "<h3>Figures</h3>\n<table><tr><th>level</th><th>stream bytes</th><th>ratio</th><th>row bytes "
                    "in</th><th>row bytes out</th><th>row ratio</th><th>scaffolding</th><th>CPU s/GB</th><th>zstd "
                    "s/GB</th><th>decompress s/GB</th><th>peak MB</th>");
    if (lt)
        cdch_put_str(b, "<th>catch-up s</th><th>vs off</th>");
    cdch_put_str(b, "</tr>\n");
    for (size_t i = 0; i < n; i++) {
        const cdch_jv *r = rows[i];
        cdch_buf_printf(b,
                        "<tr><td>%s</td><td>%.0f</td><td>%.3f</td><td>%.0f</td><td>%.0f</td><td>%.3f</td><td>%.0f"
                        "</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.1f</td>",
                        names[i], rep_num(r, "stream_bytes"), rep_num(r, "ratio"), rep_num(r, "row_bytes_in"),
                        rep_num(r, "row_bytes_out"), rep_num(r, "row_ratio"), rep_num(r, "scaffolding_bytes"),
                        rep_num(r, "cpu_s_per_gb"), rep_num(r, "zstd_cpu_s_per_gb"),
                        rep_num(r, "decompress_cpu_s_per_gb"), vm[i]);
        if (lt)
            cdch_buf_printf(b, "<td>%.2f</td><td>%.3f</td>", rep_num(r, "catchup_s"),
                            rep_num(r, "catchup_vs_uncompressed"));
        cdch_put_str(b, "</tr>\n");
    }
    const cdch_jv *one = n > 1 ? rows[1] : rows[0];
    cdch_buf_printf(b, "</table>\n<p class=\"note\">Row data: %.0f bytes in %.0f of %.0f transactions (the ones MySQL "
                       "compresses); largest transaction %.0f bytes.</p>\n</section>\n",
                    rep_num(one, "row_data_bytes"), rep_num(one, "compressed_transactions"),
                    rep_num(one, "transactions"), rep_num(e, "max_transaction_bytes"));
}

void rep_deploy_html(const rep_doc *d, FILE *f)
{
    if (!d->deployment)
        return;
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, k_css);
    cdch_put_str(&b, cdch_svgchart_css);
    cdch_put_str(&b, "</style>\n");
    const cdch_jv *cons = arr(cdch_jv_get(d->deployment, "preflip"), "consumers");
    if (cons)
        html_preflip(&b, cons);
    const cdch_jv *ests = arr(d->deployment, "estimates");
    for (size_t k = 0; ests && k < ests->u.arr.n; k++)
        if (ests->u.arr.items[k]->type == CDCH_JV_OBJECT)
            html_estimate(&b, ests->u.arr.items[k]);
    fwrite(b.data, 1, b.len, f);
    cdch_buf_free(&b);
}
