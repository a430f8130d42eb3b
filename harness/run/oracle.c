/* oracle.c — the differential oracle (oracle.h): a consumer's rows on one
 * stream against its own rows on the plain stream, as a cdch_diff. */
#include "oracle.h"

#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "announce.h"
#include "buf.h"
#include "jsonstr.h"
#include "watermark.h"
#include "xalloc.h"

int cdch_oracle_kind_parse(const char *s, cdch_oracle_kind *out)
{
    static const char *const names[] = {"canonical", "differential", "both"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (cdch_oracle_kind)i;
            return 0;
        }
    return -1;
}

const char *cdch_oracle_kind_name(cdch_oracle_kind k)
{
    return k == CDCH_ORACLE_DIFFERENTIAL ? "differential" : k == CDCH_ORACLE_BOTH ? "both" : "canonical";
}

/* ---- filter ---------------------------------------------------------------------- */

struct cdch_oracle_filter {
    regex_t *ignore, *normalize;
    size_t nignore, nnormalize;
};

static int compile_all(const char *opt, const char *const *src, size_t n, regex_t **out, size_t *nout,
                       cdch_err *err)
{
    *out = cdch_xcalloc(n, sizeof **out);
    for (size_t i = 0; i < n; i++) {
        int rc = regcomp(&(*out)[i], src[i], REG_EXTENDED);
        if (rc != 0) {
            char why[200];
            regerror(rc, &(*out)[i], why, sizeof why);
            return cdch_err_set(err, "%s '%s' is not a POSIX extended regular expression: %s", opt, src[i], why);
        }
        (*nout)++;
    }
    return 0;
}

cdch_oracle_filter *cdch_oracle_filter_new(const char *const *ignore, size_t nignore, const char *const *normalize,
                                           size_t nnormalize, cdch_err *err)
{
    cdch_oracle_filter *f = cdch_xcalloc(1, sizeof *f);
    if (compile_all("--ignore", ignore, nignore, &f->ignore, &f->nignore, err) != 0 ||
        compile_all("--normalize", normalize, nnormalize, &f->normalize, &f->nnormalize, err) != 0) {
        cdch_oracle_filter_free(f);
        return NULL;
    }
    return f;
}

void cdch_oracle_filter_free(cdch_oracle_filter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nignore; i++)
        regfree(&f->ignore[i]);
    for (size_t i = 0; i < f->nnormalize; i++)
        regfree(&f->normalize[i]);
    free(f->ignore);
    free(f->normalize);
    free(f);
}

/* line with every match of rx removed (an empty match removes nothing and moves on a byte) */
static char *remove_matches(const regex_t *rx, const char *line)
{
    cdch_buf b = CDCH_BUF_INIT;
    size_t len = strlen(line), off = 0;
    regmatch_t m;
    while (off <= len && regexec(rx, line + off, 1, &m, off ? REG_NOTBOL : 0) == 0) {
        cdch_put_bytes(&b, line + off, (size_t)m.rm_so);
        if (m.rm_eo == m.rm_so) {
            if (off + (size_t)m.rm_so < len)
                cdch_put_bytes(&b, line + off + m.rm_so, 1);
            off += (size_t)m.rm_so + 1;
        } else {
            off += (size_t)m.rm_eo;
        }
    }
    if (off < len)
        cdch_put_bytes(&b, line + off, len - off);
    char *out = cdch_xstrdup(cdch_buf_cstr(&b));
    cdch_buf_free(&b);
    return out;
}

/* ---- lines ----------------------------------------------------------------------- */

cdch_oracle_lines *cdch_oracle_lines_new(void) { return cdch_xcalloc(1, sizeof(cdch_oracle_lines)); }

void cdch_oracle_lines_free(cdch_oracle_lines *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        if (l->norm[i] != l->raw[i])
            free(l->norm[i]);
        free(l->raw[i]);
    }
    free(l->raw);
    free(l->norm);
    free(l);
}

/* An adapter's change event as compared across modes: op, db, table, the
 * images and the GTID, in that order, as the adapter wrote them; "pos", a
 * reference adapter's "txn"/"compressed" and anything else left out (the
 * line as it is when it does not parse). */
static char *canonical_text(const char *raw, size_t len)
{
    static const char *const keys[] = {"op", "db", "table", "before", "after", "gtid"};
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_jv *v;
    cdch_err err;
    char *out;
    if (cdch_jv_parse(raw, len, &a, &v, &err) != 0 || v->type != CDCH_JV_OBJECT) {
        out = cdch_xstrdup(raw);
    } else {
        cdch_buf b = CDCH_BUF_INIT;
        cdch_put_str(&b, "{");
        for (size_t i = 0, n = 0; i < sizeof keys / sizeof keys[0]; i++) {
            const cdch_jv *x = cdch_jv_get(v, keys[i]);
            if (!x)
                continue;
            cdch_buf_printf(&b, "%s\"%s\":", n++ ? "," : "", keys[i]);
            cdch_put_bytes(&b, x->raw, x->raw_len);
        }
        cdch_put_str(&b, "}");
        out = cdch_xstrdup(cdch_buf_cstr(&b));
        cdch_buf_free(&b);
    }
    cdch_arena_free(&a);
    return out;
}

bool cdch_oracle_lines_add(cdch_oracle_lines *l, const cdch_oracle_filter *f, const char *line, size_t len,
                           bool canonical)
{
    while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    char *raw = cdch_xcalloc(len + 1, 1);
    memcpy(raw, line, len);
    bool blank = true;
    for (size_t i = 0; i < len && blank; i++)
        blank = raw[i] == ' ' || raw[i] == '\t';
    for (size_t i = 0; f && !blank && i < f->nignore; i++)
        blank = regexec(&f->ignore[i], raw, 0, NULL, 0) == 0;
    if (blank) {
        l->ignored++;
        free(raw);
        return false;
    }
    char *norm = raw;
    if (canonical)
        norm = canonical_text(raw, len);
    for (size_t i = 0; f && i < f->nnormalize; i++) {
        char *next = remove_matches(&f->normalize[i], norm);
        if (norm != raw)
            free(norm);
        norm = next;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->raw = cdch_xrealloc(l->raw, l->cap * sizeof *l->raw);
        l->norm = cdch_xrealloc(l->norm, l->cap * sizeof *l->norm);
    }
    l->raw[l->n] = raw;
    l->norm[l->n] = norm;
    l->n++;
    return true;
}

bool cdch_oracle_line_is_watermark(const char *line, size_t len)
{
    static const char t[] = CDCH_WATERMARK_TABLE;
    size_t tl = sizeof t - 1;
    for (size_t i = 0; i + tl <= len; i++)
        if (memcmp(line + i, t, tl) == 0)
            return true;
    return false;
}

/* ---- row -> transaction ------------------------------------------------------------ */

/* What the i-th base row stands for: expected row i of the cell's stream when
 * the plain run printed exactly the expected rows, else a "transaction" of
 * its own numbered by its row. */
typedef struct rowmap {
    const cdch_change_list *exp;
    const cdch_stream_index *idx;
    bool aligned;
} rowmap;

static uint64_t row_txn(const rowmap *m, size_t i) { return m->aligned ? m->exp->items[i].txn : (uint64_t)i + 1; }
static bool row_compressed(const rowmap *m, size_t i) { return m->aligned && m->exp->items[i].compressed == 1; }

static void fill_txn(cdch_diff *d, const rowmap *m, size_t i, cdch_diff_txn *t)
{
    memset(t, 0, sizeof *t);
    t->reported_ctl = SIZE_MAX;
    t->txn = row_txn(m, i);
    t->compressed = row_compressed(m, i);
    t->exp_line = (uint64_t)i + 1;
    if (!m->aligned)
        return;
    const cdch_change *c = &m->exp->items[i];
    t->gtid = c->gtid ? cdch_arena_strdup(&d->arena, c->gtid) : NULL;
    t->file = c->pos_file ? cdch_arena_strdup(&d->arena, c->pos_file) : NULL;
    t->end = c->pos >= 0 ? (uint64_t)c->pos : 0;
    const cdch_txn_loc *loc = m->idx ? cdch_stream_index_txn(m->idx, c->txn) : NULL;
    if (loc) {
        t->file = cdch_arena_strdup(&d->arena, loc->file);
        t->start = loc->start;
        t->end = loc->end;
        t->body_pos = loc->body_pos;
        t->body_type = loc->body_type;
        t->partial_rows = loc->partial_rows;
    }
}

/* Missing base rows (state 0 = never matched) grouped into transactions;
 * holes when a base row after them was matched. Also the row and
 * transaction counts. state: 0 missing, 1 matched, 2 paired with a changed row. */
static void finish(cdch_diff *d, const rowmap *m, size_t nbase, const unsigned char *state)
{
    size_t last_matched = SIZE_MAX;
    for (size_t i = 0; i < nbase; i++)
        if (state[i])
            last_matched = i;
    size_t cap = 0;
    for (size_t i = 0; i < nbase;) {
        size_t j = i;
        uint64_t txn = row_txn(m, i);
        while (j < nbase && row_txn(m, j) == txn)
            j++;
        d->expected_txns++;
        size_t miss = 0, first_miss = SIZE_MAX, bad = 0;
        for (size_t k = i; k < j; k++) {
            if (state[k] == 0) {
                miss++;
                if (first_miss == SIZE_MAX)
                    first_miss = k;
            } else {
                if (state[k] == 2)
                    bad++;
                if (txn > d->last_txn_seen)
                    d->last_txn_seen = txn;
            }
        }
        if (!miss && !bad)
            d->complete_txns++;
        if (miss) {
            if (d->nmissing == cap) {
                cap = cap ? 2 * cap : 16;
                d->missing = cdch_xrealloc(d->missing, cap * sizeof *d->missing);
            }
            cdch_diff_txn *t = &d->missing[d->nmissing++];
            fill_txn(d, m, first_miss, t);
            t->rows_total = j - i;
            t->rows_missing = miss;
            t->hole = last_matched != SIZE_MAX && last_matched > first_miss;
            if (t->hole)
                d->holes++;
            else
                d->tail++;
            d->missing_rows += miss;
        }
        i = j;
    }
}

static cdch_diff *diff_new(void) { return cdch_xcalloc(1, sizeof(cdch_diff)); }

static cdch_diff_mismatch *add_mismatch(cdch_diff *d)
{
    d->mismatch_total++;
    if (d->nmismatch >= CDCH_DIFF_KEEP)
        return NULL;
    d->mismatch = cdch_xrealloc(d->mismatch, (d->nmismatch + 1) * sizeof *d->mismatch);
    cdch_diff_mismatch *x = &d->mismatch[d->nmismatch++];
    memset(x, 0, sizeof *x);
    return x;
}

cdch_diff *cdch_oracle_count_diff(const cdch_oracle_lines *obs, const cdch_change_list *expected,
                                  const cdch_stream_index *idx)
{
    cdch_diff *d = diff_new();
    size_t ne = expected ? expected->n : 0;
    rowmap m = {expected, idx, expected != NULL};
    unsigned char *state = cdch_xcalloc(ne ? ne : 1, 1);
    for (size_t i = 0; i < ne && i < obs->n; i++)
        state[i] = 1;
    /* fewer rows, the last naming the watermark table: it is the expected last row, and the rows
     * missing came before it (holes; which ones, the count cannot tell: named by position) */
    if (obs->n > 0 && obs->n < ne && cdch_oracle_line_is_watermark(obs->raw[obs->n - 1], strlen(obs->raw[obs->n - 1]))) {
        state[obs->n - 1] = 0;
        state[ne - 1] = 1;
    }
    d->expected_rows = ne;
    d->observed_rows = obs->n;
    d->matched_rows = obs->n < ne ? obs->n : ne;
    for (size_t k = ne; k < obs->n; k++) {
        cdch_diff_mismatch *x = add_mismatch(d);
        if (!x)
            continue;
        x->obs_line = (uint64_t)k + 1;
        x->what = "unexpected line (more rows than the scenario's expected rows)";
        x->observed = cdch_arena_strdup(&d->arena, obs->raw[k]);
    }
    finish(d, &m, ne, state);
    free(state);
    return d;
}

/* ---- the comparison ------------------------------------------------------------------ */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* base rows by text: per distinct text a chain of its rows in order */
typedef struct index {
    size_t nb;          /* buckets (power of two) */
    size_t *head;       /* first row of the text in the bucket chain, SIZE_MAX: empty */
    size_t *next_same;  /* next row with the same text */
    size_t *next_key;   /* bucket chain: next distinct text's first row */
} index_t;

static void index_build(index_t *x, const cdch_oracle_lines *base)
{
    x->nb = 16;
    while (x->nb < 2 * base->n)
        x->nb *= 2;
    x->head = cdch_xcalloc(x->nb, sizeof *x->head);
    for (size_t i = 0; i < x->nb; i++)
        x->head[i] = SIZE_MAX;
    x->next_same = cdch_xcalloc(base->n + 1, sizeof *x->next_same);
    x->next_key = cdch_xcalloc(base->n + 1, sizeof *x->next_key);
    size_t *tail = cdch_xcalloc(base->n + 1, sizeof *tail); /* per first row: last row of its text */
    for (size_t i = 0; i < base->n; i++) {
        x->next_same[i] = x->next_key[i] = SIZE_MAX;
        size_t b = hash_str(base->norm[i]) & (x->nb - 1);
        size_t k = x->head[b];
        while (k != SIZE_MAX && strcmp(base->norm[k], base->norm[i]) != 0)
            k = x->next_key[k];
        if (k == SIZE_MAX) {
            x->next_key[i] = x->head[b];
            x->head[b] = i;
            tail[i] = i;
        } else {
            x->next_same[tail[k]] = i;
            tail[k] = i;
        }
    }
    free(tail);
}

/* the first row of text s, SIZE_MAX when no base row has it */
static size_t index_find(const index_t *x, const cdch_oracle_lines *base, const char *s)
{
    size_t k = x->head[hash_str(s) & (x->nb - 1)];
    while (k != SIZE_MAX && strcmp(base->norm[k], s) != 0)
        k = x->next_key[k];
    return k;
}

static void index_free(index_t *x)
{
    free(x->head);
    free(x->next_same);
    free(x->next_key);
}

cdch_diff *cdch_oracle_diff(const cdch_oracle_lines *base, const cdch_oracle_lines *obs,
                            const cdch_change_list *expected, const cdch_stream_index *idx)
{
    cdch_diff *d = diff_new();
    rowmap m = {expected, idx, expected && expected->n == base->n};
    unsigned char *state = cdch_xcalloc(base->n ? base->n : 1, 1);
    size_t *first_obs = cdch_xcalloc(base->n ? base->n : 1, sizeof *first_obs); /* observed row that matched it */
    index_t x;
    index_build(&x, base);
    d->expected_rows = base->n;
    d->observed_rows = obs->n;
    size_t cursor = 0;                 /* first base row not matched yet */
    size_t maxmatched = SIZE_MAX;      /* the furthest base row matched so far */
    for (size_t k = 0; k < obs->n; k++) {
        while (cursor < base->n && state[cursor])
            cursor++;
        const char *s = obs->norm[k];
        size_t j = SIZE_MAX;
        if (cursor < base->n && strcmp(base->norm[cursor], s) == 0) {
            j = cursor;
        } else {
            size_t first = index_find(&x, base, s);
            for (size_t r = first; r != SIZE_MAX; r = x.next_same[r])
                if (!state[r]) {
                    j = r;
                    break;
                }
            if (j == SIZE_MAX && first != SIZE_MAX) { /* every base row of this text matched: a repeat */
                size_t r = first;
                d->dup_total++;
                if (d->ndup < CDCH_DIFF_KEEP) {
                    d->dup = cdch_xrealloc(d->dup, (d->ndup + 1) * sizeof *d->dup);
                    cdch_diff_dup *u = &d->dup[d->ndup++];
                    u->txn = row_txn(&m, r);
                    u->exp_line = (uint64_t)r + 1;
                    u->obs_line = (uint64_t)k + 1;
                    u->first_obs_line = (uint64_t)first_obs[r] + 1;
                    u->compressed = row_compressed(&m, r);
                }
                continue;
            }
            if (j == SIZE_MAX) { /* no base row has this text: changed, or an extra row */
                bool extra = cursor >= base->n ||
                             (k + 1 < obs->n && strcmp(obs->norm[k + 1], base->norm[cursor]) == 0);
                cdch_diff_mismatch *mm = add_mismatch(d);
                if (extra) {
                    if (mm) {
                        mm->obs_line = (uint64_t)k + 1;
                        mm->what = "unexpected line (not in the plain run's output)";
                        mm->observed = cdch_arena_strdup(&d->arena, obs->raw[k]);
                    }
                } else {
                    state[cursor] = 2;
                    first_obs[cursor] = k;
                    if (mm) {
                        mm->txn = row_txn(&m, cursor);
                        mm->exp_line = (uint64_t)cursor + 1;
                        mm->obs_line = (uint64_t)k + 1;
                        mm->what = "line differs from the plain run's";
                        mm->expected = cdch_arena_strdup(&d->arena, base->raw[cursor]);
                        mm->observed = cdch_arena_strdup(&d->arena, obs->raw[k]);
                        mm->compressed = row_compressed(&m, cursor);
                    }
                    if (maxmatched == SIZE_MAX || cursor > maxmatched)
                        maxmatched = cursor;
                }
                continue;
            }
        }
        state[j] = 1;
        first_obs[j] = k;
        d->matched_rows++;
        if (maxmatched != SIZE_MAX && j < maxmatched) {
            d->reorder_total++;
            if (d->nreorder < CDCH_DIFF_KEEP) {
                d->reorder = cdch_xrealloc(d->reorder, (d->nreorder + 1) * sizeof *d->reorder);
                cdch_diff_reorder *o = &d->reorder[d->nreorder++];
                o->txn = row_txn(&m, j);
                o->after_txn = row_txn(&m, maxmatched);
                o->exp_line = (uint64_t)j + 1;
                o->obs_line = (uint64_t)k + 1;
                o->compressed = row_compressed(&m, j);
            }
        } else {
            maxmatched = j;
        }
    }
    /* a row that arrived late is not missing (state set), so only rows never seen are */
    finish(d, &m, base->n, state);
    index_free(&x);
    free(state);
    free(first_obs);
    return d;
}

/* ---- side by side ---------------------------------------------------------------------- */

static void put_side(cdch_buf *b, const char *key, const cdch_oracle_lines *l, size_t i)
{
    if (l && i < l->n) {
        cdch_buf_printf(b, "\"%s_line\":%zu,\"%s\":", key, i + 1, key);
        cdch_put_json_str(b, l->raw[i], strlen(l->raw[i]), 0);
    } else {
        cdch_buf_printf(b, "\"%s_line\":null,\"%s\":null", key, key);
    }
}

char *cdch_oracle_side_json(const cdch_oracle_lines *base, const cdch_oracle_lines *obs, size_t max)
{
    size_t nb = base ? base->n : 0, no = obs ? obs->n : 0;
    size_t i = 0;
    while (i < nb && i < no && strcmp(base->norm[i], obs->norm[i]) == 0)
        i++;
    if (i == nb && i == no)
        return NULL;
    size_t from = i > 0 ? i - 1 : 0;
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, "[");
    for (size_t k = from; k < from + max && (k < nb || k < no); k++) {
        if (k > from)
            cdch_put_str(&b, ",");
        cdch_put_str(&b, "{");
        put_side(&b, "plain", base, k);
        cdch_put_str(&b, ",");
        put_side(&b, "this", obs, k);
        bool same = k < nb && k < no && strcmp(base->norm[k], obs->norm[k]) == 0;
        cdch_buf_printf(&b, ",\"same\":%s}", same ? "true" : "false");
    }
    cdch_put_str(&b, "]");
    char *out = cdch_xstrdup(cdch_buf_cstr(&b));
    cdch_buf_free(&b);
    return out;
}

/* ---- the judgement ------------------------------------------------------------------- */

/* The adapter's error lines on the missing transactions (diff.c does the same
 * with the rows' positions; here rows are lines, so by what the lines say): a
 * hole is reported by a line naming its event, the tail by the first line. */
static void mark_reported(cdch_diff *d, const cdch_change_list *said)
{
    size_t first = SIZE_MAX;
    for (size_t k = 0; k < said->nctl && first == SIZE_MAX; k++)
        if (said->ctl[k].kind == CDCH_CTL_ERROR)
            first = k;
    for (size_t i = 0; i < d->nmissing; i++) {
        cdch_diff_txn *x = &d->missing[i];
        size_t at = x->hole ? SIZE_MAX : first;
        for (size_t k = 0; x->hole && k < said->nctl && at == SIZE_MAX; k++)
            if (said->ctl[k].kind == CDCH_CTL_ERROR &&
                cdch_announce_names_event(said->ctl[k].message, x->compressed, x->partial_rows > 0))
                at = k;
        if (at != SIZE_MAX) {
            x->reported = cdch_arena_strdup(&d->arena, said->ctl[at].message);
            x->reported_ctl = at;
        }
    }
}

void cdch_oracle_judge(const cdch_oracle_lines *base, const cdch_oracle_lines *rows, const cdch_change_list *expected,
                       const cdch_stream_index *idx, const cdch_outcome *oc, cdch_oracle_result *out)
{
    cdch_oracle_judge_said(base, rows, expected, idx, NULL, oc, out);
}

void cdch_oracle_judge_said(const cdch_oracle_lines *base, const cdch_oracle_lines *rows,
                            const cdch_change_list *expected, const cdch_stream_index *idx,
                            const cdch_change_list *said, const cdch_outcome *oc, cdch_oracle_result *out)
{
    memset(out, 0, sizeof *out);
    static const cdch_oracle_lines none = {0};
    if (!rows)
        rows = &none;
    /* a command's cell (no said list): whether it printed is its stdout lines */
    cdch_outcome not_run;
    char msg[600];
    if (!said && !oc->harness_error && cdch_outcome_not_run(oc, rows->n || rows->ignored, msg, sizeof msg)) {
        not_run = *oc;
        not_run.harness_error = msg;
        oc = &not_run;
    }
    if (!oc->harness_error)
        out->diff = base ? cdch_oracle_diff(base, rows, expected, idx) : cdch_oracle_count_diff(rows, expected, idx);
    if (out->diff && said)
        mark_reported(out->diff, said);
    cdch_judgement j;
    cdch_verdict_judge(out->diff, said, oc, &j);
    out->verdict = j.verdict;
    out->classes = j.classes;
    size_t sl = strlen(j.summary) + 64;
    out->summary = cdch_xcalloc(sl, 1);
    snprintf(out->summary, sl, "%s%s", oc->harness_error ? "" : base ? "against its plain run: " : "row count: ",
             j.summary);
    out->detail = cdch_xstrdup(cdch_buf_cstr(&j.detail));
    out->nwarnings = j.nwarnings;
    out->warnings = j.nwarnings ? cdch_xstrdup(cdch_buf_cstr(&j.warnings)) : NULL;
    cdch_judgement_free(&j);
    if (base && out->diff)
        out->side = cdch_oracle_side_json(base, rows, 12);
}
