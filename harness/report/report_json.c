/* report_json.c — report.json: every cell and every finding. */
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "mysql_types.h"
#include "report.h"
#include "report_internal.h"
#include "sys.h"

#define KV_STR(f, k, v)                                                                                                \
    do {                                                                                                               \
        fputs(",\"" k "\":", f);                                                                                      \
        rep_json_str(f, v);                                                                                            \
    } while (0)

#define REPORT_LIST_MAX 20       /* entries per finding list in report.json */
#define REPORT_DETAIL_MAX 40     /* lines of a cell's findings text */
#define REPORT_WARNINGS_MAX 20   /* lines of a cell's warnings */
#define REPORT_STDERR_MAX 16384  /* bytes of a cell's stderr tail (the whole tail is in its stderr.log) */

static void txn_json(FILE *f, const cdch_diff_txn *t)
{
    fprintf(f, "{\"txn\":%llu", (unsigned long long)t->txn);
    KV_STR(f, "gtid", t->gtid);
    KV_STR(f, "file", t->file);
    fprintf(f, ",\"start\":%llu,\"end\":%llu", (unsigned long long)t->start, (unsigned long long)t->end);
    if (t->body_type) {
        fprintf(f, ",\"event_pos\":%llu", (unsigned long long)t->body_pos);
        KV_STR(f, "event", cdch_event_type_name(t->body_type));
    }
    fprintf(f, ",\"compressed\":%s,\"rows\":%zu,\"rows_missing\":%zu,\"expected_line\":%llu,\"hole\":%s",
            t->compressed ? "true" : "false", t->rows_total, t->rows_missing, (unsigned long long)t->exp_line,
            t->hole ? "true" : "false");
    KV_STR(f, "consumer_error", t->reported);
    fputc('}', f);
}

static void diff_json(FILE *f, const cdch_diff *d)
{
    fprintf(f, ",\"rows\":{\"expected\":%zu,\"observed\":%zu,\"matched\":%zu,\"missing\":%zu}", d->expected_rows,
            d->observed_rows, d->matched_rows, d->missing_rows);
    fprintf(f, ",\"transactions\":{\"expected\":%zu,\"complete\":%zu,\"missing\":%zu,\"holes\":%zu,\"tail\":%zu}",
            d->expected_txns, d->complete_txns, d->nmissing, d->holes, d->tail);
    /* lists are capped (a cell of a 4000-transaction stream that skips them all would otherwise
     * weigh megabytes); the totals count everything */
    fputs(",\"missing\":[", f);
    for (size_t i = 0; i < d->nmissing && i < REPORT_LIST_MAX; i++) {
        if (i)
            fputc(',', f);
        txn_json(f, &d->missing[i]);
    }
    fprintf(f, "],\"mismatch_total\":%zu,\"mismatches\":[", d->mismatch_total);
    for (size_t i = 0; i < d->nmismatch && i < REPORT_LIST_MAX; i++) {
        const cdch_diff_mismatch *m = &d->mismatch[i];
        fprintf(f, "%s{\"txn\":%llu,\"expected_line\":%llu,\"observed_line\":%llu,\"compressed\":%s", i ? "," : "",
                (unsigned long long)m->txn, (unsigned long long)m->exp_line, (unsigned long long)m->obs_line,
                m->compressed ? "true" : "false");
        KV_STR(f, "what", m->what);
        KV_STR(f, "image", m->image);
        KV_STR(f, "column", m->column);
        KV_STR(f, "expected", m->expected);
        KV_STR(f, "observed", m->observed);
        fputc('}', f);
    }
    fprintf(f, "],\"duplicate_total\":%zu,\"duplicates\":[", d->dup_total);
    for (size_t i = 0; i < d->ndup && i < REPORT_LIST_MAX; i++)
        fprintf(f, "%s{\"txn\":%llu,\"compressed\":%s,\"expected_line\":%llu,\"observed_line\":%llu,\"first_observed_line\":%llu}",
                i ? "," : "", (unsigned long long)d->dup[i].txn, d->dup[i].compressed ? "true" : "false",
                (unsigned long long)d->dup[i].exp_line, (unsigned long long)d->dup[i].obs_line,
                (unsigned long long)d->dup[i].first_obs_line);
    fprintf(f, "],\"reorder_total\":%zu,\"reorders\":[", d->reorder_total);
    for (size_t i = 0; i < d->nreorder && i < REPORT_LIST_MAX; i++)
        fprintf(f, "%s{\"txn\":%llu,\"after_txn\":%llu,\"compressed\":%s,\"expected_line\":%llu,\"observed_line\":%llu}",
                i ? "," : "", (unsigned long long)d->reorder[i].txn, (unsigned long long)d->reorder[i].after_txn,
                d->reorder[i].compressed ? "true" : "false", (unsigned long long)d->reorder[i].exp_line,
                (unsigned long long)d->reorder[i].obs_line);
    fprintf(f, "],\"checkpoint_total\":%zu,\"checkpoint_rows_checked\":%zu,\"checkpoints\":[", d->ckpt_total,
            d->ckpt_rows_checked);
    for (size_t i = 0; i < d->nckpt && i < REPORT_LIST_MAX; i++) {
        fprintf(f, "%s{\"txn\":%llu,\"compressed\":%s,\"observed_line\":%llu", i ? "," : "",
                (unsigned long long)d->ckpt[i].txn, d->ckpt[i].compressed ? "true" : "false",
                (unsigned long long)d->ckpt[i].obs_line);
        KV_STR(f, "what", d->ckpt[i].what);
        fputc('}', f);
    }
    fputc(']', f);
}

/* cell_dir relative to the report directory when it lies under it. */
static const char *rel_dir(const char *cell_dir, const char *dir)
{
    if (!cell_dir || !dir)
        return cell_dir;
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (strncmp(cell_dir, dir, n) != 0 || cell_dir[n] != '/')
        return cell_dir;
    const char *p = cell_dir + n;
    while (*p == '/')
        p++;
    return *p ? p : cell_dir;
}

/* The lines of text as JSON strings, comma-separated: at most max, then
 * "... and N more <what> line(s) (report.json keeps max)". */
static void lines_json(FILE *f, const char *text, size_t max, const char *what)
{
    const char *p = text ? text : "";
    size_t nlines = 0;
    while (*p) {
        if (++nlines > max) {
            size_t more = 1;
            for (const char *q = p; *q; q++)
                more += *q == '\n' && q[1];
            char line[128];
            snprintf(line, sizeof line, "... and %zu more %s line(s) (report.json keeps %zu)", more, what, max);
            fputc(',', f);
            rep_json_str(f, line);
            return;
        }
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), p);
        if (nlines > 1)
            fputc(',', f);
        rep_json_str(f, line);
        p += n + (nl ? 1 : 0);
    }
}

/* "cause": the known issues the expectation cites, resolved from the
 * consumer's manifest: [{id, kind, compression, summary, evidence}];
 * `unexplained` as {"id":"unexplained"}. Absent when the expectation names none. */
static void cause_json(FILE *f, cdch_run *r, const cdch_cell *c, size_t *unexplained)
{
    if (!c->expect_cause[0])
        return;
    const cdch_manifest *m = cdch_run_cell_manifest(r, c);
    char buf[sizeof c->expect_cause];
    snprintf(buf, sizeof buf, "%s", c->expect_cause);
    fputs(",\"cause\":[", f);
    bool first = true, unexp = false;
    char *save = NULL;
    for (char *id = strtok_r(buf, " ", &save); id; id = strtok_r(NULL, " ", &save)) {
        fputs(first ? "{" : ",{", f);
        first = false;
        fputs("\"id\":", f);
        rep_json_str(f, id);
        const cdch_known_issue *ki = cdch_manifest_issue(m, id);
        if (ki) {
            KV_STR(f, "kind", cdch_issue_kind_name(ki->kind));
            fprintf(f, ",\"compression\":%s", ki->compression ? "true" : "false");
            KV_STR(f, "summary", ki->summary);
            KV_STR(f, "evidence", ki->evidence);
            if (ki->versions)
                KV_STR(f, "versions", ki->versions);
        } else {
            unexp = true;
            KV_STR(f, "kind", "unexplained");
        }
        fputc('}', f);
    }
    fputc(']', f);
    *unexplained += unexp;
}

/* "id id" as a JSON array of strings. */
static void words_json(FILE *f, const char *words)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", words ? words : "");
    fputc('[', f);
    char *save = NULL;
    bool first = true;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (!first)
            fputc(',', f);
        first = false;
        rep_json_str(f, w);
    }
    fputc(']', f);
}

/* What ran: "unpinned", "local" {path, fingerprint, version}, "config" (the
 * user's file) and "config_effective" (the adapter's config line: the
 * settings the library was given, and the user's settings the harness kept). */
static void consumer_json(FILE *f, const cdch_cell *c)
{
    if (c->unpinned)
        fputs(",\"unpinned\":true", f);
    if (c->local_path) {
        fputs(",\"local\":{\"path\":", f);
        rep_json_str(f, c->local_path);
        KV_STR(f, "fingerprint", c->local_fp ? c->local_fp : "");
        KV_STR(f, "version", c->local_version ? c->local_version : "");
        fputc('}', f);
    }
    if (c->config)
        KV_STR(f, "config", c->config);
    if (c->config_line) /* a JSON object the harness parsed when the adapter printed it */
        fprintf(f, ",\"config_effective\":%s", c->config_line);
    if (c->command)
        fputs(",\"command\":true", f);
}

/* "oracle": the differential judgement (oracle.h): its verdict, classes,
 * summary and the first differing rows of the plain run and this one. */
static void oracle_json(FILE *f, const cdch_cell *c)
{
    if (!c->oracle_judged)
        return;
    fputs(",\"oracle\":{\"kind\":", f);
    rep_json_str(f, cdch_oracle_kind_name(c->oracle));
    KV_STR(f, "verdict", cdch_verdict_name(c->oracle_verdict));
    char cls[300];
    cdch_verdict_classes_str(c->oracle_classes, cls, sizeof cls);
    KV_STR(f, "classes", cls);
    KV_STR(f, "summary", c->oracle_summary ? c->oracle_summary : "");
    fprintf(f, ",\"first_rows\":%s}", c->oracle_side ? c->oracle_side : "null");
}

/* "prediction": for a version the manifest does not pin (predict.h): the
 * predicted verdict, the known issues that predict it, every known issue in
 * range, and whether the observed verdict is the predicted one. */
static void prediction_json(FILE *f, const cdch_cell *c)
{
    if (strcmp(c->expect_source, "predicted") != 0)
        return;
    fputs(",\"prediction\":{\"verdict\":", f);
    rep_json_str(f, cdch_verdict_name(c->expected));
    fputs(",\"causes\":", f);
    words_json(f, c->expect_cause);
    fputs(",\"in_range\":", f);
    words_json(f, c->predict_in_range);
    fprintf(f, ",\"held\":%s}", c->verdict == c->expected ? "true" : "false");
}

int cdch_report_json(cdch_run *r, const char *dir, const cdch_report_meta *meta, FILE *f)
{
    char ts[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    size_t counts[CDCH_VERDICT_COUNT] = {0}, unmet = 0, regressions = 0, unexplained = 0, nwarn = 0;
    fprintf(f, "{\"format\":\"cdcharness-report\",\"version\":1,\"generated\":\"%s\"", ts);
    if (meta && meta->matrix_json)
        fprintf(f, ",\"matrix\":%s", meta->matrix_json);
    if (meta && meta->deployment_json)
        fprintf(f, ",\"deployment\":%s", meta->deployment_json);
    fputs(",\"cells\":[\n", f);
    char **fd = rep_firstdiff_collect(r);
    char buf[600];
    for (size_t i = 0; i < cdch_run_ncells(r); i++) {
        cdch_cell *c = cdch_run_cell(r, i);
        counts[c->verdict]++;
        unmet += !c->meets;
        regressions += c->compression_regression;
        fputs(i ? ",\n{" : "{", f);
        if (meta && meta->cell_index)
            fprintf(f, "\"index\":%zu,", meta->cell_index[i]);
        fputs("\"consumer\":", f);
        rep_json_str(f, rep_cell_consumer(c, buf, sizeof buf));
        KV_STR(f, "family", c->family);
        KV_STR(f, "version", c->version);
        consumer_json(f, c);
        KV_STR(f, "scenario", c->scenario);
        KV_STR(f, "scenario_path", c->scenario_path);
        KV_STR(f, "mode", c->mode);
        fprintf(f, ",\"attach\":%s", c->attach ? "true" : "false");
        KV_STR(f, "verdict", cdch_verdict_name(c->verdict));
        fprintf(f, ",\"compression_regression\":%s", c->compression_regression ? "true" : "false");
        KV_STR(f, "expected", cdch_verdict_name(c->expected));
        if (c->expected_racy) /* the manifest records two: a race inside the consumer decides (expect_cause) */
            KV_STR(f, "expected_also", cdch_verdict_name(c->expected_other));
        KV_STR(f, "expect_source", c->expect_source);
        fprintf(f, ",\"meets\":%s", c->meets ? "true" : "false");
        char cls[300];
        cdch_verdict_classes_str(c->classes, cls, sizeof cls);
        KV_STR(f, "classes", cls);
        cause_json(f, r, c, &unexplained);
        prediction_json(f, c);
        oracle_json(f, c);
        KV_STR(f, "summary", c->summary);
        fputs(",\"warnings\":[", f);
        lines_json(f, c->warnings, REPORT_WARNINGS_MAX, "warning");
        fputc(']', f);
        nwarn += c->nwarnings > 0;
        fputs(",\"detail\":[", f);
        lines_json(f, c->detail, REPORT_DETAIL_MAX, "finding");
        fputc(']', f);
        fprintf(f, ",\"seconds\":%.3f,\"startup_seconds\":%.3f,\"wait_seconds\":%.3f,\"launched\":%s,\"cpu_seconds\":%.2f",
                c->seconds, c->startup_seconds, c->wait_seconds, c->launched ? "true" : "false", c->cpu_seconds);
        if (c->stop != CDCH_STOP_EXITED && c->stop != CDCH_STOP_NONE)
            fprintf(f, ",\"stop_seconds\":%.3f,\"stop_forced\":%s", c->stop_seconds, c->stop_forced ? "true" : "false");
        KV_STR(f, "stop", cdch_stop_reason_name(c->stop));
        fprintf(f, ",\"exit_status\":%d,\"exit_signal\":%d,\"ready\":%s", c->exit_status, c->exit_signal,
                c->got_ready ? "true" : "false");
        fprintf(f, ",\"expected_rows\":%zu,\"observed_rows\":%zu", c->expected_rows, c->observed_rows);
        fprintf(f, ",\"stream_bytes\":%llu,\"stream_events\":%llu,\"stream_transactions\":%llu,"
                   "\"stream_compressed_transactions\":%llu",
                (unsigned long long)c->stream_bytes, (unsigned long long)c->stream_events,
                (unsigned long long)c->stream_transactions, (unsigned long long)c->stream_compressed_transactions);
        if (c->diff)
            diff_json(f, c->diff);
        fputs(",\"first_difference\":", f);
        fputs(fd && fd[i] ? fd[i] : "null", f);
        const char *tail = c->stderr_tail;
        if (tail && strlen(tail) > REPORT_STDERR_MAX) {
            tail += strlen(tail) - REPORT_STDERR_MAX;
            while ((*tail & 0xC0) == 0x80) /* not in the middle of a UTF-8 sequence */
                tail++;
        }
        KV_STR(f, "stderr_tail", tail);
        KV_STR(f, "cell_dir", rel_dir(c->cell_dir, dir));
        if (c->cell_dir) /* a passing cell's large observed.jsonl is not kept (runner.h keep_observed) */
            fprintf(f, ",\"observed_bytes\":%llu,\"observed_kept\":%s", (unsigned long long)c->observed_bytes,
                    c->observed_dropped ? "false" : "true");
        fputc('}', f);
    }
    rep_firstdiff_free(fd, cdch_run_ncells(r));
    fprintf(f, "\n],\"totals\":{\"cells\":%zu,\"not_as_expected\":%zu,\"compression_regressions\":%zu,"
               "\"unexplained\":%zu,\"with_warnings\":%zu",
            cdch_run_ncells(r), unmet, regressions, unexplained, nwarn);
    for (int v = 0; v < CDCH_VERDICT_COUNT; v++)
        fprintf(f, ",\"%s\":%zu", cdch_verdict_name((cdch_verdict)v), counts[v]);
    /* where the CPU went: this process (fake primaries, diffs) and every child it reaped (adapters,
     * sessions, setups) */
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    fprintf(f, "},\"cpu\":{\"harness_seconds\":%.1f,\"children_seconds\":%.1f}}\n", cdch_rusage_seconds(&self),
            cdch_rusage_seconds(&kids));
    return ferror(f) ? -1 : 0;
}
