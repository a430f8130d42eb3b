/* report_firstdiff.c — the first differing events of each cell, side by
 * side: the expected event (expected.jsonl) and the observed one (the
 * cell's observed.jsonl) at the first finding the verdict names.
 *
 * The run does not keep its streams, so the expected events are generated
 * again from the scenario (deterministic: the same bytes, the same
 * expected.jsonl) into a temporary directory, once per scenario and mode
 * that a finding points into, and read in one pass.
 *
 * Which finding is first follows verdict.c: the first missing transaction
 * that is a hole, else the first of the tail, else the first mismatch,
 * duplicate, reorder, bad checkpoint. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "setup.h"
#include "stream.h"
#include "xalloc.h"

typedef struct fd_cell {
    const char *kind;    /* NULL: no finding */
    char what[1400];
    uint64_t txn;
    bool compressed;
    const char *column, *image;
    uint64_t exp_line, obs_line; /* 0: none */
    uint64_t exp_txn;            /* expected side: the first row of this txn with the observed row's table */
    size_t stream;               /* index into streams */
    char *exp_text, *obs_text;
    char *exp_error;
} fd_cell;

typedef struct fd_stream {
    const char *scenario_path, *mode;
    const char *expected_path; /* the run's expected.jsonl, NULL: regenerate */
} fd_stream;

static char *read_line_at(const char *path, uint64_t want)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *line = NULL, *out = NULL;
    size_t cap = 0;
    ssize_t n;
    uint64_t no = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        if (++no == want) {
            while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
                line[--n] = '\0';
            out = cdch_xstrdup(line);
            break;
        }
    }
    free(line);
    fclose(f);
    return out;
}

static uint64_t line_txn(const char *line)
{
    const char *p = strstr(line, "\"txn\":");
    return p ? strtoull(p + 6, NULL, 10) : 0;
}

/* The line's op, db and table match those of obs (a JSON line). */
static bool same_table(const char *line, const cdch_jv *obs)
{
    if (!obs)
        return true;
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_jv *v;
    bool same = false;
    if (cdch_jv_parse(line, strlen(line), &a, &v, NULL) == 0) {
        same = true;
        static const char *const keys[] = {"op", "db", "table"};
        for (size_t i = 0; i < 3 && same; i++) {
            const char *x = rep_str(v, keys[i]), *y = rep_str(obs, keys[i]);
            same = x && y && strcmp(x, y) == 0;
        }
    }
    cdch_arena_free(&a);
    return same;
}

/* Generate the stream and pick the lines the cells of it want. */
static void resolve_stream(const fd_stream *st, size_t si, fd_cell *cells, size_t n)
{
    bool need = false;
    for (size_t i = 0; i < n && !need; i++)
        need = cells[i].kind && cells[i].stream == si && (cells[i].exp_line || cells[i].exp_txn);
    if (!need)
        return;
    char err_msg[CDCH_ERR_MSG_MAX + 64] = "";
    char tmp[PATH_MAX];
    const char *td = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/cdch-report-XXXXXX", td && *td ? td : "/tmp");
    cdch_err err;
    cdch_scenario *sc = NULL;
    cdch_stream_mode mode;
    FILE *f = st->expected_path ? fopen(st->expected_path, "r") : NULL;
    if (f) {
        tmp[0] = '\0'; /* the run's own expected events (a watermarked stream differs from the file's) */
    } else if (!mkdtemp(tmp)) {
        snprintf(err_msg, sizeof err_msg, "cannot create a temporary directory: %s", strerror(errno));
        tmp[0] = '\0';
    } else if (cdch_stream_mode_parse(st->mode, &mode) != 0) {
        snprintf(err_msg, sizeof err_msg, "unknown mode %s", st->mode);
    } else if (!(sc = cdch_scenario_load(st->scenario_path, &err))) {
        snprintf(err_msg, sizeof err_msg, "expected events not regenerated: %s", err.msg);
    } else {
        char out[PATH_MAX + 16];
        snprintf(out, sizeof out, "%s/s", tmp);
        if (cdch_stream_generate(sc, mode, out, NULL, &err) != 0)
            snprintf(err_msg, sizeof err_msg, "expected events not regenerated: %s", err.msg);
    }
    cdch_scenario_free(sc);
    if (!f && !err_msg[0]) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/s/expected.jsonl", tmp);
        f = fopen(path, "r");
        if (!f)
            snprintf(err_msg, sizeof err_msg, "cannot read the regenerated expected.jsonl");
    }
    if (f) {
        /* observed rows of checkpoint findings, parsed once */
        cdch_arena a = CDCH_ARENA_INIT;
        const cdch_jv **obs = cdch_xcalloc(n, sizeof *obs);
        for (size_t i = 0; i < n; i++) {
            cdch_jv *v;
            if (cells[i].kind && cells[i].stream == si && cells[i].exp_txn && cells[i].obs_text &&
                cdch_jv_parse(cells[i].obs_text, strlen(cells[i].obs_text), &a, &v, NULL) == 0)
                obs[i] = v;
        }
        char *line = NULL;
        size_t cap = 0;
        ssize_t len;
        uint64_t no = 0;
        while ((len = getline(&line, &cap, f)) >= 0) {
            no++;
            while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
                line[--len] = '\0';
            uint64_t txn = 0;
            bool txn_known = false;
            for (size_t i = 0; i < n; i++) {
                fd_cell *c = &cells[i];
                if (!c->kind || c->stream != si || c->exp_text)
                    continue;
                if (c->exp_line == no) {
                    c->exp_text = cdch_xstrdup(line);
                } else if (c->exp_txn) {
                    if (!txn_known) {
                        txn = line_txn(line);
                        txn_known = true;
                    }
                    if (txn == c->exp_txn && same_table(line, obs[i])) {
                        c->exp_text = cdch_xstrdup(line);
                        c->exp_line = no;
                    }
                }
            }
        }
        free(line);
        free(obs);
        cdch_arena_free(&a);
        fclose(f);
    }
    if (tmp[0])
        cdch_rm_tree(tmp);
    if (err_msg[0])
        for (size_t i = 0; i < n; i++)
            if (cells[i].kind && cells[i].stream == si && (cells[i].exp_line || cells[i].exp_txn))
                cells[i].exp_error = cdch_xstrdup(err_msg);
}

/* Pick the first finding of a cell's diff. */
static void pick(fd_cell *fc, const cdch_diff *d)
{
    const cdch_diff_txn *hole = NULL, *tail = NULL;
    for (size_t i = 0; i < d->nmissing; i++) {
        if (d->missing[i].hole && !hole)
            hole = &d->missing[i];
        if (!d->missing[i].hole && !tail)
            tail = &d->missing[i];
    }
    const cdch_diff_txn *t = hole ? hole : tail;
    if (t) {
        char where[400];
        cdch_diff_txn_where(t, where, sizeof where);
        fc->kind = "missing";
        fc->txn = t->txn;
        fc->compressed = t->compressed;
        fc->exp_line = t->exp_line;
        snprintf(fc->what, sizeof fc->what, "txn %" PRIu64 "%s never arrived (%zu of its %zu row(s) missing, %s): %s%s%s",
                 t->txn, t->compressed ? " (compressed)" : "", t->rows_missing, t->rows_total,
                 t->hole ? "later transactions did arrive" : "nothing after it arrived", where,
                 t->reported ? "; the consumer said: " : "", t->reported ? t->reported : "");
    } else if (d->nmismatch) {
        const cdch_diff_mismatch *m = &d->mismatch[0];
        fc->kind = "mismatch";
        fc->txn = m->txn;
        fc->compressed = m->compressed;
        fc->exp_line = m->exp_line;
        fc->obs_line = m->obs_line;
        fc->column = m->column;
        fc->image = m->image;
        if (m->column)
            snprintf(fc->what, sizeof fc->what, "%s: %s%s%s: expected %.500s, observed %.500s", m->what,
                     m->image ? m->image : "", m->image ? "." : "", m->column, m->expected ? m->expected : "(absent)",
                     m->observed ? m->observed : "(absent)");
        else
            snprintf(fc->what, sizeof fc->what, "%s%s%s", m->what, m->image ? ": " : "", m->image ? m->image : "");
    } else if (d->ndup) {
        fc->kind = "duplicate";
        fc->txn = d->dup[0].txn;
        fc->compressed = d->dup[0].compressed;
        fc->exp_line = d->dup[0].exp_line;
        fc->obs_line = d->dup[0].obs_line;
        snprintf(fc->what, sizeof fc->what, "txn %" PRIu64 " again at observed line %" PRIu64
                 " (first at observed line %" PRIu64 ")",
                 d->dup[0].txn, d->dup[0].obs_line, d->dup[0].first_obs_line);
    } else if (d->nreorder) {
        fc->kind = "reorder";
        fc->txn = d->reorder[0].txn;
        fc->compressed = d->reorder[0].compressed;
        fc->exp_line = d->reorder[0].exp_line;
        fc->obs_line = d->reorder[0].obs_line;
        snprintf(fc->what, sizeof fc->what, "txn %" PRIu64 " arrived after txn %" PRIu64, d->reorder[0].txn,
                 d->reorder[0].after_txn);
    } else if (d->nckpt) {
        fc->kind = "checkpoint";
        fc->txn = d->ckpt[0].txn;
        fc->compressed = d->ckpt[0].compressed;
        fc->obs_line = d->ckpt[0].obs_line;
        fc->exp_txn = d->ckpt[0].txn;
        snprintf(fc->what, sizeof fc->what, "%s", d->ckpt[0].what ? d->ckpt[0].what : "bad checkpoint");
    }
}

/* An event line as JSON: the parsed object, or (not JSON) the text. */
static void event_json(FILE *f, const char *text)
{
    if (!text) {
        fputs("null", f);
        return;
    }
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_jv *v;
    if (cdch_jv_parse(text, strlen(text), &a, &v, NULL) == 0)
        rep_jv_write(f, v);
    else
        rep_json_str(f, text);
    cdch_arena_free(&a);
}

static char *cell_json(const fd_cell *c)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    fputs("{\"kind\":", f);
    rep_json_str(f, c->kind);
    fprintf(f, ",\"txn\":%" PRIu64 ",\"compressed\":%s,\"what\":", c->txn, c->compressed ? "true" : "false");
    rep_json_str(f, c->what);
    fputs(",\"image\":", f);
    rep_json_str(f, c->image);
    fputs(",\"column\":", f);
    rep_json_str(f, c->column);
    if (c->exp_line)
        fprintf(f, ",\"expected_line\":%" PRIu64, c->exp_line);
    else
        fputs(",\"expected_line\":null", f);
    if (c->obs_line)
        fprintf(f, ",\"observed_line\":%" PRIu64, c->obs_line);
    else
        fputs(",\"observed_line\":null", f);
    fputs(",\"expected\":", f);
    event_json(f, c->exp_text);
    fputs(",\"observed\":", f);
    event_json(f, c->obs_text);
    if (c->exp_error) {
        fputs(",\"expected_error\":", f);
        rep_json_str(f, c->exp_error);
    }
    fputc('}', f);
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

char **rep_firstdiff_collect(cdch_run *r)
{
    size_t n = cdch_run_ncells(r);
    if (n == 0)
        return NULL;
    fd_cell *cells = cdch_xcalloc(n, sizeof *cells);
    fd_stream *streams = cdch_xcalloc(n, sizeof *streams);
    size_t nstreams = 0;
    for (size_t i = 0; i < n; i++) {
        const cdch_cell *c = cdch_run_cell(r, i);
        if (!c->diff || c->verdict == CDCH_VERDICT_PASS || c->verdict == CDCH_VERDICT_HARNESS_ERROR ||
            c->oracle == CDCH_ORACLE_DIFFERENTIAL) /* against its own plain run: report.json "oracle" */
            continue;
        pick(&cells[i], c->diff);
        if (!cells[i].kind)
            continue;
        if (cells[i].obs_line && c->cell_dir) {
            char path[PATH_MAX + 32];
            snprintf(path, sizeof path, "%s/observed.jsonl", c->cell_dir);
            cells[i].obs_text = read_line_at(path, cells[i].obs_line);
        }
        size_t s = 0;
        while (s < nstreams && !(strcmp(streams[s].scenario_path, c->scenario_path) == 0 &&
                                 strcmp(streams[s].mode, c->mode) == 0))
            s++;
        if (s == nstreams) {
            streams[s].scenario_path = c->scenario_path;
            streams[s].mode = c->mode;
            streams[s].expected_path = cdch_run_cell_expected_path(r, c);
            nstreams++;
        }
        cells[i].stream = s;
    }
    for (size_t s = 0; s < nstreams; s++)
        resolve_stream(&streams[s], s, cells, n);
    char **out = cdch_xcalloc(n, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        if (cells[i].kind)
            out[i] = cell_json(&cells[i]);
        free(cells[i].exp_text);
        free(cells[i].obs_text);
        free(cells[i].exp_error);
    }
    free(cells);
    free(streams);
    return out;
}

void rep_firstdiff_free(char **fd, size_t n)
{
    if (!fd)
        return;
    for (size_t i = 0; i < n; i++)
        free(fd[i]);
    free(fd);
}
