/* query.c — the fake primary's query responder.
 *
 * Owns: the pattern table k_patterns (POSIX extended regex, matched
 * case-insensitively against the statement with comments stripped and
 * the trailing ';' removed; first match wins; a handler may decline and
 * let the next pattern try) and the handlers behind it. To answer a new
 * statement, add a line to k_patterns and a handler that fills the
 * srv_result: rows (srv_rs), OK or ERR. Patterns use "\s" for
 * [[:space:]] and "\w" for [[:alnum:]_] (expanded before regcomp).
 *
 * A statement nothing matches gets ER_PARSE_ERROR 1064 naming it, is
 * counted in stats.unknown_queries and printed on stderr; with
 * opts.log_queries every statement is printed.
 */
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ddl.h"
#include "event.h"
#include "gtid.h"
#include "mysql_types.h"
#include "query_internal.h"
#include "xalloc.h"

typedef struct qstmt {
    const char *sql;   /* the statement, comments stripped */
    regmatch_t m[10];
    bool describe;     /* COM_STMT_PREPARE: columns only, no side effects */
    cdch_arena *a;
    sql_lex lx;        /* the statement's tokens, for the handlers whose pattern says `lexed` */
} qstmt;

typedef int (*qhandler)(srv_conn *c, qstmt *q, srv_result *res); /* 0 handled, 1 declined */

/* ---- results ------------------------------------------------------------------------- */

void srv_result_init(srv_result *r)
{
    memset(r, 0, sizeof *r);
    srv_rs_init(&r->rs);
}

void srv_result_free(srv_result *r) { srv_rs_free(&r->rs); }

static int res_ok(srv_result *r)
{
    r->kind = SRV_RES_OK;
    return 0;
}

static int res_err(srv_result *r, uint16_t code, const char *state, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int res_err(srv_result *r, uint16_t code, const char *state, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
    r->kind = SRV_RES_ERR;
    r->err_code = code;
    snprintf(r->sqlstate, sizeof r->sqlstate, "%s", state);
    return 0;
}

static int res_cx(srv_result *r, const sql_ctx *cx)
{
    return res_err(r, cx->err_code ? cx->err_code : 1064, cx->sqlstate[0] ? cx->sqlstate : "42000", "%s",
                   cx->err);
}

static srv_rs *res_rows(srv_result *r)
{
    r->kind = SRV_RES_ROWS;
    return &r->rs;
}

int srv_result_send(srv_conn *c, srv_result *r, bool binary)
{
    switch (r->kind) {
    case SRV_RES_OK: return conn_ok(c, r->affected, r->insert_id, (uint16_t)(c->status | c->extra_status), r->warnings);
    case SRV_RES_ERR: return conn_err(c, r->err_code, r->sqlstate, "%s", r->msg);
    case SRV_RES_ROWS: return srv_rs_send(c, &r->rs, binary);
    }
    return -1;
}

static void ctx_init(sql_ctx *cx, srv_conn *c, cdch_arena *a)
{
    memset(cx, 0, sizeof *cx);
    cx->c = c;
    cx->a = a;
}

static int lex(qstmt *q, sql_lex *lx, srv_result *res)
{
    char err[256];
    if (sql_lex_init(lx, q->sql, q->a, err, sizeof err) != 0)
        return res_err(res, 1064, "42000", "You have an error in your SQL syntax: %s", err), -1;
    return 0;
}

/* ER_PARSE_ERROR at `near` in stmt (sql_syntax_near's text). */
static int parse_error(srv_result *res, const char *stmt, const char *near)
{
    res_err(res, 1064, "42000", "%s", "");
    sql_syntax_near(res->msg, sizeof res->msg, stmt, near);
    return 0;
}

static int syntax_near(srv_result *res, const sql_lex *lx)
{
    const sql_tok *t = lx_peek(lx, 0);
    return parse_error(res, lx->sql ? lx->sql : "", t->kind == TK_END ? "" : t->src);
}

static void copy_cols(srv_rs *dst, const srv_rs *src)
{
    for (size_t i = 0; i < src->ncols; i++)
        srv_rs_col_copy(dst, &src->cols[i], NULL, NULL, NULL, NULL);
}

static void copy_row(srv_rs *dst, const srv_rs *src, size_t row)
{
    for (size_t k = 0; k < src->ncols; k++) {
        size_t n;
        const char *s = srv_rs_get(src, row, k, &n);
        srv_rs_cell(dst, s, n);
    }
}

/* Clear a half-filled result set before an error replaces it. */
static void rows_drop(srv_rs *out)
{
    srv_rs_free(out);
    srv_rs_init(out);
}

/* Optional "LIKE 'pattern'" (on the first column) or "WHERE expr" after a
 * SHOW, read from q->lx: the rows of `in` that pass go to res. */
static int show_filter(srv_conn *c, qstmt *q, const srv_rs *in, srv_result *res)
{
    sql_lex *lx = &q->lx;
    sql_ctx cx;
    ctx_init(&cx, c, q->a);
    const char *like = NULL;
    size_t like_n = 0;
    sql_expr *where = NULL;
    if (lx_kw(lx, "LIKE")) {
        const sql_tok *t = lx_peek(lx, 0);
        if (t->kind != TK_STRING)
            return syntax_near(res, lx);
        like = t->text;
        like_n = t->len;
        lx->i++;
    } else if (lx_kw(lx, "WHERE")) {
        if (!(where = sql_parse_expr(lx, &cx)))
            return res_cx(res, &cx);
    }
    if (!lx_at_end(lx))
        return syntax_near(res, lx);
    srv_rs *out = res_rows(res);
    copy_cols(out, in);
    for (size_t r = 0; r < srv_rs_nrows(in); r++) {
        if (like) {
            size_t n;
            const char *s = srv_rs_get(in, r, 0, &n);
            if (!s || !sql_like(s, n, like, like_n))
                continue;
        } else if (where) {
            cx.rs = in;
            cx.row = r;
            qval v;
            if (sql_eval(where, &cx, &v) != 0) {
                rows_drop(out);
                return res_cx(res, &cx);
            }
            if (!qv_true(&v))
                continue;
        }
        copy_row(out, in, r);
    }
    return 0;
}

/* A SHOW's rows through show_filter; frees all. */
static int show_rows(srv_conn *c, qstmt *q, srv_rs *all, srv_result *res)
{
    show_filter(c, q, all, res);
    srv_rs_free(all);
    return 0;
}

static uint32_t version_product(const srv_conn *c) { return cdch_version_product(c->srv->version); }

/* [db.]name from the lexer; db defaults to the connection's. */
static int table_ref(srv_conn *c, sql_lex *lx, const char **db, const char **name, srv_result *res)
{
    const char *a = lx_name(lx);
    if (!a)
        return syntax_near(res, lx), -1;
    if (lx_op(lx, ".")) {
        const char *b = lx_name(lx);
        if (!b)
            return syntax_near(res, lx), -1;
        *db = a;
        *name = b;
    } else {
        *db = c->db[0] ? c->db : NULL;
        *name = a;
    }
    return 0;
}

/* ---- SELECT -------------------------------------------------------------------------- */

typedef struct sel_item {
    sql_expr *e;
    bool star;
    const char *label;
} sel_item;

typedef struct order_item {
    sql_expr *e;
    bool desc;
} order_item;

static const char *const k_clause_words[] = {"FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "FOR", "LOCK",
                                             "INTO", "UNION", "PROCEDURE", "WINDOW"};

static bool is_clause_word(const sql_lex *lx)
{
    for (size_t i = 0; i < sizeof k_clause_words / sizeof k_clause_words[0]; i++)
        if (lx_is_kw(lx, 0, k_clause_words[i]))
            return true;
    return false;
}

typedef struct sort_ctx {
    order_item *ord;
    size_t nord;
    qval *keys; /* nrows * nord */
} sort_ctx;

static sort_ctx *g_sort; /* qsort has no context argument; protected by g_sort_mu */
static pthread_mutex_t g_sort_mu = PTHREAD_MUTEX_INITIALIZER;

static int cmp_rows(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    for (size_t k = 0; k < g_sort->nord; k++) {
        const qval *vx = &g_sort->keys[x * g_sort->nord + k], *vy = &g_sort->keys[y * g_sort->nord + k];
        int r;
        if (vx->k == QV_NULL || vy->k == QV_NULL)
            r = vx->k == vy->k ? 0 : vx->k == QV_NULL ? -1 : 1; /* NULLs sort first */
        else
            r = qv_cmp(vx, vy);
        if (g_sort->ord[k].desc)
            r = -r;
        if (r)
            return r;
    }
    return x < y ? -1 : x > y;
}

/* A SELECT as h_select's phases hand it on: parsed (select list, FROM,
 * WHERE, ORDER BY, LIMIT), then executed (filter, sort, project). */
typedef struct select_q {
    sel_item *items;
    size_t nitems;
    bool aggregate;         /* COUNT(...) in the select list: one row */
    const char *db, *tname; /* FROM db.tname */
    bool has_from;
    srv_rs src;             /* the FROM table (owned) */
    size_t nvisible;        /* its columns SELECT * shows; (size_t)-1 = all */
    bool upper;             /* information_schema: labels are the table's own names */
    sql_expr *where;
    order_item ord[16];
    size_t nord;
    uint64_t limit, offset;
} select_q;

/* The label MySQL gives a select item that has no AS. */
static const char *item_label(sql_lex *lx, const sel_item *it, size_t start, size_t end)
{
    const sql_tok *t0 = &lx->t[start];
    if (!is_clause_word(lx) && (lx_peek(lx, 0)->kind == TK_IDENT || lx_peek(lx, 0)->kind == TK_QIDENT ||
                                lx_peek(lx, 0)->kind == TK_STRING))
        return lx_name(lx); /* SELECT x alias */
    if (t0->kind == TK_STRING && end == start + 1)
        return t0->text; /* SELECT 'abc' is labelled abc */
    if (sql_expr_colname(it->e))
        return sql_expr_colname(it->e); /* t.col is labelled col */
    return lx_source(lx, start, end);
}

/* SELECT [options] item [[AS] label], ... */
static int parse_select_list(sql_lex *lx, sql_ctx *cx, qstmt *q, select_q *s, srv_result *res)
{
    lx_kw(lx, "SELECT");
    while (lx_kw(lx, "DISTINCT") || lx_kw(lx, "ALL") || lx_kw(lx, "SQL_NO_CACHE") || lx_kw(lx, "SQL_CACHE") ||
           lx_kw(lx, "SQL_CALC_FOUND_ROWS") || lx_kw(lx, "HIGH_PRIORITY") || lx_kw(lx, "STRAIGHT_JOIN") ||
           lx_kw(lx, "SQL_BUFFER_RESULT") || lx_kw(lx, "SQL_SMALL_RESULT") || lx_kw(lx, "SQL_BIG_RESULT")) {
    }
    size_t cap = 8;
    s->items = cdch_arena_alloc(q->a, cap * sizeof *s->items);
    for (;;) {
        if (s->nitems == cap) {
            sel_item *bigger = cdch_arena_alloc(q->a, cap * 2 * sizeof *s->items);
            memcpy(bigger, s->items, cap * sizeof *s->items);
            s->items = bigger;
            cap *= 2;
        }
        sel_item *it = &s->items[s->nitems++];
        size_t start = lx->i;
        it->e = sql_parse_expr(lx, cx);
        if (!it->e)
            return res_cx(res, cx), -1;
        size_t end = lx->i;
        if (sql_expr_is_count(it->e))
            s->aggregate = true;
        const sql_tok *t0 = &lx->t[start];
        it->star = end == start + 1 && t0->kind == TK_OP && !strcmp(t0->text, "*");
        if (end >= start + 3 && lx->t[end - 1].kind == TK_OP && !strcmp(lx->t[end - 1].text, "*") &&
            lx->t[end - 2].kind == TK_OP && !strcmp(lx->t[end - 2].text, "."))
            it->star = true;
        if (lx_kw(lx, "AS")) {
            if (!(it->label = lx_name(lx)))
                return syntax_near(res, lx), -1;
        } else {
            it->label = item_label(lx, it, start, end);
        }
        if (!lx_op(lx, ","))
            return 0;
    }
}

/* FROM [DUAL | db.table [[AS] alias] [joins]]: fills s->src. */
static int parse_from(srv_conn *c, qstmt *q, sql_lex *lx, sql_ctx *cx, select_q *s, srv_result *res)
{
    if (!lx_kw(lx, "FROM") || lx_kw(lx, "DUAL"))
        return 0;
    if (lx_op(lx, "("))
        return res_err(res, 1235, "42000", "This version of the fake primary doesn't yet support "
                                           "'derived tables' in: %.200s", q->sql), -1;
    if (table_ref(c, lx, &s->db, &s->tname, res) != 0)
        return -1;
    if (!s->db)
        return res_err(res, 1046, "3D000", "No database selected"), -1;
    s->has_from = true;
    if (lx_kw(lx, "AS"))
        lx_name(lx);
    else if (!is_clause_word(lx) && (lx_peek(lx, 0)->kind == TK_IDENT || lx_peek(lx, 0)->kind == TK_QIDENT) &&
             !lx_is_kw(lx, 0, "LEFT") && !lx_is_kw(lx, 0, "RIGHT") && !lx_is_kw(lx, 0, "INNER") &&
             !lx_is_kw(lx, 0, "JOIN") && !lx_is_kw(lx, 0, "CROSS") && !lx_is_kw(lx, 0, "NATURAL"))
        lx_name(lx);
    /* joins: the columns the fake primary needs from joined tables are
     * provided by the first table (see schema.c), so skip them */
    while (!lx_at_end(lx) && !lx_is_kw(lx, 0, "WHERE") && !lx_is_kw(lx, 0, "GROUP") && !lx_is_kw(lx, 0, "ORDER") &&
           !lx_is_kw(lx, 0, "LIMIT") && !lx_is_kw(lx, 0, "HAVING") && !lx_is_kw(lx, 0, "FOR") &&
           !lx_is_kw(lx, 0, "LOCK"))
        lx->i++;
    if (srv_vtable(c, s->db, s->tname, &s->src, &s->nvisible, &s->upper, cx) != 0)
        return res_cx(res, cx), -1;
    return 0;
}

/* ORDER BY expr [ASC|DESC], ... (at most 16 keys) */
static int parse_order_by(sql_lex *lx, sql_ctx *cx, select_q *s, srv_result *res)
{
    if (!lx_kws(lx, "ORDER BY"))
        return 0;
    do {
        if (s->nord == 16)
            return res_err(res, 1064, "42000", "ORDER BY with more than 16 keys"), -1;
        order_item *o = &s->ord[s->nord];
        if (!(o->e = sql_parse_expr(lx, cx)))
            return res_cx(res, cx), -1;
        o->desc = lx_kw(lx, "DESC");
        if (!o->desc)
            lx_kw(lx, "ASC");
        s->nord++;
    } while (lx_op(lx, ","));
    return 0;
}

/* LIMIT n | LIMIT offset, n | LIMIT n OFFSET offset (a '?' count: no limit) */
static int parse_limit(sql_lex *lx, select_q *s, srv_result *res)
{
    if (!lx_kw(lx, "LIMIT"))
        return 0;
    const sql_tok *t = lx_peek(lx, 0);
    if (t->kind != TK_NUMBER && t->kind != TK_PARAM)
        return syntax_near(res, lx), -1;
    s->limit = t->kind == TK_NUMBER ? strtoull(t->text, NULL, 10) : UINT64_MAX;
    lx->i++;
    if (lx_op(lx, ",") || lx_kw(lx, "OFFSET")) {
        const sql_tok *u = lx_peek(lx, 0);
        if (u->kind != TK_NUMBER)
            return syntax_near(res, lx), -1;
        if (!strcmp(lx->t[lx->i - 1].text, ",")) {
            s->offset = s->limit;
            s->limit = strtoull(u->text, NULL, 10);
        } else {
            s->offset = strtoull(u->text, NULL, 10);
        }
        lx->i++;
    }
    return 0;
}

/* WHERE, GROUP BY / HAVING (accepted, not modelled), ORDER BY, LIMIT,
 * locking clauses, then the end of the statement. */
static int parse_select_tail(qstmt *q, sql_lex *lx, sql_ctx *cx, select_q *s, srv_result *res)
{
    if (lx_kw(lx, "WHERE") && !(s->where = sql_parse_expr(lx, cx)))
        return res_cx(res, cx), -1;
    if (lx_kws(lx, "GROUP BY")) {
        while (!lx_at_end(lx) && !lx_is_kw(lx, 0, "ORDER") && !lx_is_kw(lx, 0, "LIMIT") &&
               !lx_is_kw(lx, 0, "HAVING"))
            lx->i++;
    }
    if (lx_kw(lx, "HAVING")) {
        while (!lx_at_end(lx) && !lx_is_kw(lx, 0, "ORDER") && !lx_is_kw(lx, 0, "LIMIT"))
            lx->i++;
    }
    if (parse_order_by(lx, cx, s, res) != 0 || parse_limit(lx, s, res) != 0)
        return -1;
    if (lx_kws(lx, "FOR UPDATE") || lx_kws(lx, "FOR SHARE") || lx_kws(lx, "LOCK IN SHARE MODE")) {
        lx_kws(lx, "SKIP LOCKED");
        lx_kw(lx, "NOWAIT");
    }
    if (lx_at_end(lx))
        return 0;
    if (lx_is_kw(lx, 0, "UNION") || lx_is_kw(lx, 0, "INTO"))
        return res_err(res, 1235, "42000", "This version of the fake primary doesn't yet support '%s' in: %.200s",
                       lx_peek(lx, 0)->text, q->sql), -1;
    return syntax_near(res, lx), -1;
}

/* The rows of the FROM table (or the one row of a SELECT without FROM)
 * that pass WHERE, into rows[] (nsrc entries, the caller frees it). */
static int filter_rows(sql_ctx *cx, const select_q *s, size_t *rows, size_t nsrc, size_t *nrows, srv_result *res)
{
    *nrows = 0;
    for (size_t r = 0; r < nsrc; r++) {
        if (s->where) {
            cx->rs = s->has_from ? &s->src : NULL;
            cx->row = r;
            qval v;
            if (sql_eval(s->where, cx, &v) != 0)
                return res_cx(res, cx), -1;
            if (!qv_true(&v))
                continue;
        }
        rows[(*nrows)++] = r;
    }
    return 0;
}

/* ORDER BY: a key may name a select item by position (ORDER BY 2) or by
 * its alias; keys that fail to evaluate sort as NULL. */
static void sort_rows(qstmt *q, sql_ctx *cx, select_q *s, size_t *rows, size_t nrows, size_t nsrc)
{
    if (!s->nord || nrows <= 1 || !s->has_from)
        return;
    size_t nord = s->nord;
    qval *keys = cdch_arena_alloc(q->a, nsrc * nord * sizeof *keys);
    for (size_t k = 0; k < nrows; k++)
        for (size_t o = 0; o < nord; o++) {
            cx->rs = &s->src;
            cx->row = rows[k];
            const sql_expr *e = s->ord[o].e;
            int64_t pos;
            const char *alias = sql_expr_colname(e);
            if (sql_expr_int_literal(e, &pos) && pos >= 1 && (size_t)pos <= s->nitems && !s->items[pos - 1].star)
                e = s->items[pos - 1].e; /* ORDER BY 2: the second select item */
            else if (alias && srv_rs_find_col(&s->src, alias) < 0)
                for (size_t i = 0; i < s->nitems; i++)
                    if (!s->items[i].star && s->items[i].label && strcasecmp(s->items[i].label, alias) == 0)
                        e = s->items[i].e; /* ORDER BY an alias */
            if (sql_eval(e, cx, &keys[rows[k] * nord + o]) != 0) {
                cx->err_code = 0;
                keys[rows[k] * nord + o] = (qval){0};
            }
        }
    sort_ctx sc = {s->ord, nord, keys};
    pthread_mutex_lock(&g_sort_mu);
    g_sort = &sc;
    qsort(rows, nrows, sizeof *rows, cmp_rows);
    g_sort = NULL;
    pthread_mutex_unlock(&g_sort_mu);
}

/* An output column: an expression, or a column of the FROM table (e NULL for SELECT *). */
typedef struct outcol {
    sql_expr *e;
    int src_col;
} outcol;

/* The result's column definitions; oc[] says where each column's cells
 * come from. -1 for SELECT * without FROM. */
static int select_columns(sql_ctx *cx, const select_q *s, srv_rs *out, outcol *oc, size_t *noc)
{
    size_t ncols_src = s->nvisible == (size_t)-1 ? s->src.ncols : s->nvisible;
    *noc = 0;
    for (size_t i = 0; i < s->nitems; i++) {
        const sel_item *it = &s->items[i];
        if (it->star) {
            if (!s->has_from)
                return -1;
            for (size_t k = 0; k < ncols_src; k++) {
                srv_rs_col_copy(out, &s->src.cols[k], NULL, s->src.cols[k].name, s->tname, s->db);
                oc[(*noc)++] = (outcol){NULL, (int)k};
            }
            continue;
        }
        int sc_col = -1;
        uint8_t type = sql_expr_type(it->e, cx, s->has_from ? &s->src : NULL, &sc_col);
        const char *label = it->label;
        const char *cn = sql_expr_colname(it->e);
        if (cn && sc_col >= 0 && s->upper && strcasecmp(label, cn) == 0)
            label = s->src.cols[sc_col].name; /* information_schema labels: the table's own names */
        srv_col *d;
        if (sc_col >= 0 && cn)
            d = srv_rs_col_copy(out, &s->src.cols[sc_col], label, s->src.cols[sc_col].name, s->tname, s->db);
        else
            d = srv_rs_col(out, label, type);
        if (type == CDCH_T_LONGLONG && it->e && sql_expr_is_count(it->e))
            d->flags |= SRV_COLF_NOT_NULL;
        oc[(*noc)++] = (outcol){it->e, sc_col};
    }
    return 0;
}

/* The projection: columns, then the rows in [offset, offset + limit). */
static int project(qstmt *q, sql_ctx *cx, const select_q *s, const size_t *rows, size_t nrows, srv_result *res)
{
    uint64_t count = nrows;
    if (s->aggregate) /* COUNT(*): one row, even over no rows */
        nrows = 1;
    srv_rs *out = res_rows(res);
    size_t ncols_src = s->nvisible == (size_t)-1 ? s->src.ncols : s->nvisible;
    outcol *oc = cdch_arena_alloc(q->a, (s->nitems * (ncols_src + 1) + 1) * sizeof *oc);
    size_t noc;
    if (select_columns(cx, s, out, oc, &noc) != 0) {
        rows_drop(out);
        return res_err(res, 1096, "HY000", "No tables used"), -1;
    }
    cx->count = count;
    uint64_t emitted = 0, skipped = 0;
    for (size_t k = 0; k < nrows && emitted < s->limit; k++) {
        if (skipped < s->offset) {
            skipped++;
            continue;
        }
        size_t r = s->aggregate ? (count ? rows[0] : (size_t)-1) : rows[k];
        for (size_t j = 0; j < noc; j++) {
            if (!oc[j].e || (oc[j].src_col >= 0 && sql_expr_colname(oc[j].e))) {
                if (r == (size_t)-1 || !s->has_from) {
                    srv_rs_str(out, NULL);
                } else {
                    size_t n;
                    const char *v = srv_rs_get(&s->src, r, (size_t)oc[j].src_col, &n);
                    srv_rs_cell(out, v, n);
                }
                continue;
            }
            cx->rs = s->has_from && r != (size_t)-1 ? &s->src : NULL;
            cx->row = r;
            qval v;
            if (q->describe) {
                v = (qval){0};
            } else if (sql_eval(oc[j].e, cx, &v) != 0) {
                rows_drop(out);
                return res_cx(res, cx), -1;
            }
            size_t n;
            const char *text = qv_text(&v, q->a, &n);
            srv_rs_cell(out, text, n);
        }
        emitted++;
    }
    return 0;
}

static int h_select(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    sql_ctx cx;
    ctx_init(&cx, c, q->a);
    select_q s;
    memset(&s, 0, sizeof s);
    srv_rs_init(&s.src);
    s.nvisible = (size_t)-1;
    s.limit = UINT64_MAX;
    if (parse_select_list(lx, &cx, q, &s, res) != 0 || parse_from(c, q, lx, &cx, &s, res) != 0 ||
        parse_select_tail(q, lx, &cx, &s, res) != 0) {
        srv_rs_free(&s.src);
        return 0;
    }
    size_t nsrc = s.has_from ? srv_rs_nrows(&s.src) : 1;
    size_t *rows = cdch_xcalloc(nsrc, sizeof *rows);
    size_t nrows;
    if (filter_rows(&cx, &s, rows, nsrc, &nrows, res) == 0) {
        sort_rows(q, &cx, &s, rows, nrows, nsrc);
        project(q, &cx, &s, rows, nrows, res);
    }
    free(rows);
    srv_rs_free(&s.src);
    return 0;
}

/* ---- SHOW VARIABLES / STATUS ----------------------------------------------------------- */

static int h_show_vars(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    lx_kw(lx, "SHOW");
    bool global = lx_kw(lx, "GLOBAL");
    if (!global && !lx_kw(lx, "SESSION"))
        lx_kw(lx, "LOCAL");
    bool status = false;
    if (!lx_kw(lx, "VARIABLES")) {
        lx_kw(lx, "STATUS");
        status = true;
    }
    srv_rs all;
    srv_rs_init(&all);
    if (status)
        srv_status_rs(c, global, &all);
    else
        srv_sysvars_rs(c, global, &all);
    return show_rows(c, q, &all, res);
}

/* ---- binlog SHOW statements -------------------------------------------------------------- */

static void binlog_status_rs(srv_conn *c, srv_rs *rs)
{
    srv_rs_col(rs, "File", CDCH_T_VAR_STRING);
    srv_rs_col(rs, "Position", CDCH_T_LONGLONG)->flags |= SRV_COLF_UNSIGNED;
    srv_rs_col(rs, "Binlog_Do_DB", CDCH_T_VAR_STRING);
    srv_rs_col(rs, "Binlog_Ignore_DB", CDCH_T_VAR_STRING);
    srv_rs_col(rs, "Executed_Gtid_Set", CDCH_T_VAR_STRING);
    const srv_catalog *cat = c->srv->cat;
    const char *file = NULL;
    uint64_t pos = 0;
    srv_catalog_master_status(cat, &file, &pos);
    if (!file)
        return;
    srv_rs_str(rs, file);
    srv_rs_uint(rs, pos);
    srv_rs_str(rs, "");
    srv_rs_str(rs, "");
    srv_rs_str(rs, srv_catalog_gtid_executed(cat));
}

static int h_master_status(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)q;
    if (version_product(c) >= 80400)
        return res_err(res, 1064, "42000",
                       "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server "
                       "version for the right syntax to use near 'MASTER STATUS' at line 1 (removed in 8.4: use "
                       "SHOW BINARY LOG STATUS)");
    binlog_status_rs(c, res_rows(res));
    return 0;
}

static int h_binlog_status(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)q;
    if (version_product(c) < 80200)
        return res_err(res, 1064, "42000",
                       "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server "
                       "version for the right syntax to use near 'BINARY LOG STATUS' at line 1 (added in 8.2.0; "
                       "this server is %s)",
                       c->srv->version);
    binlog_status_rs(c, res_rows(res));
    return 0;
}

/* Statements a version does not have yet, or no longer: the ER_PARSE_ERROR MySQL's grammar gives,
 * near the word after the first one ("You have an error in your SQL syntax; ... near 'SLAVE STATUS'
 * at line 1"); on the versions that have them the handler declines and the next pattern answers.
 *
 * Removed in 8.4.0: START SLAVE, STOP SLAVE, SHOW SLAVE STATUS, SHOW SLAVE HOSTS, RESET SLAVE,
 * CHANGE MASTER TO, RESET MASTER, SHOW MASTER STATUS (its own handler), PURGE MASTER LOGS,
 * SHOW MASTER LOGS ("Changes in MySQL 8.4.0", https://dev.mysql.com/doc/relnotes/mysql/8.4/en/news-8-4-0.html,
 * "SQL statements removed", with their replacements START/STOP REPLICA, SHOW REPLICA STATUS,
 * SHOW REPLICAS, RESET REPLICA, CHANGE REPLICATION SOURCE TO, RESET BINARY LOGS AND GTIDS,
 * SHOW BINARY LOG STATUS, PURGE BINARY LOGS, SHOW BINARY LOGS).
 * Added in 8.0.22: SHOW REPLICA STATUS, SHOW REPLICAS, START/STOP REPLICA ("Changes in MySQL
 * 8.0.22": the REPLICA aliases of WL#14171). */
static int h_version_gate(srv_conn *c, qstmt *q, srv_result *res)
{
    uint32_t v = version_product(c);
    const char *near = q->sql;
    while (*near && *near != ' ' && *near != '\t' && *near != '\n' && *near != '\r')
        near++;
    while (*near == ' ' || *near == '\t' || *near == '\n' || *near == '\r')
        near++;
    bool slave_word = strncasecmp(near, "SLAVE", 5) == 0 || strncasecmp(near, "MASTER", 6) == 0;
    if (slave_word ? v < 80400 : v >= 80022)
        return 1; /* this version has it */
    parse_error(res, q->sql, near);
    if (slave_word)
        snprintf(res->msg + strlen(res->msg), sizeof res->msg - strlen(res->msg),
                 " (removed in MySQL 8.4.0; this server is %s)", c->srv->version);
    else
        snprintf(res->msg + strlen(res->msg), sizeof res->msg - strlen(res->msg),
                 " (added in MySQL 8.0.22; this server is %s)", c->srv->version);
    return 0;
}

static int h_binary_logs(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)q;
    srv_rs *rs = res_rows(res);
    srv_rs_col(rs, "Log_name", CDCH_T_VAR_STRING);
    srv_rs_col(rs, "File_size", CDCH_T_LONGLONG)->flags |= SRV_COLF_UNSIGNED;
    srv_rs_col(rs, "Encrypted", CDCH_T_VAR_STRING);
    const srv_catalog *cat = c->srv->cat;
    for (size_t i = 0; i < srv_catalog_nfiles(cat); i++) {
        const srv_binlog_file *f = srv_catalog_file(cat, i);
        srv_rs_str(rs, f->name);
        srv_rs_uint(rs, f->size);
        srv_rs_str(rs, "No");
    }
    return 0;
}

static int binlog_event_cb(void *ctx, const srv_binlog_event_row *row)
{
    srv_rs *rs = ctx;
    srv_rs_str(rs, row->log_name);
    srv_rs_uint(rs, row->pos);
    srv_rs_str(rs, row->event_type);
    srv_rs_uint(rs, row->server_id);
    srv_rs_uint(rs, row->end_log_pos);
    srv_rs_str(rs, row->info ? row->info : "");
    return 0;
}

static int h_binlog_events(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    lx_kws(lx, "SHOW BINLOG EVENTS");
    const char *file = NULL;
    uint64_t from = 4, limit = UINT64_MAX, offset = 0;
    if (lx_kw(lx, "IN")) {
        if (lx_peek(lx, 0)->kind != TK_STRING)
            return syntax_near(res, lx);
        file = lx_name(lx);
    }
    if (lx_kw(lx, "FROM")) {
        if (lx_peek(lx, 0)->kind != TK_NUMBER)
            return syntax_near(res, lx);
        from = strtoull(lx_peek(lx, 0)->text, NULL, 10);
        lx->i++;
    }
    if (lx_kw(lx, "LIMIT")) {
        if (lx_peek(lx, 0)->kind != TK_NUMBER)
            return syntax_near(res, lx);
        limit = strtoull(lx_peek(lx, 0)->text, NULL, 10);
        lx->i++;
        if (lx_op(lx, ",")) {
            if (lx_peek(lx, 0)->kind != TK_NUMBER)
                return syntax_near(res, lx);
            offset = limit;
            limit = strtoull(lx_peek(lx, 0)->text, NULL, 10);
            lx->i++;
        }
    }
    if (!lx_at_end(lx))
        return syntax_near(res, lx);
    if (q->describe)
        limit = 0;
    srv_rs *rs = res_rows(res);
    srv_rs_col(rs, "Log_name", CDCH_T_VAR_STRING);
    srv_rs_col(rs, "Pos", CDCH_T_LONGLONG)->flags |= SRV_COLF_UNSIGNED;
    srv_rs_col(rs, "Event_type", CDCH_T_VAR_STRING);
    srv_rs_col(rs, "Server_id", CDCH_T_LONGLONG)->flags |= SRV_COLF_UNSIGNED;
    srv_rs_col(rs, "End_log_pos", CDCH_T_LONGLONG)->flags |= SRV_COLF_UNSIGNED;
    srv_rs_col(rs, "Info", CDCH_T_VAR_STRING);
    uint16_t code = 1220;
    cdch_err err;
    if (srv_catalog_binlog_events(c->srv->cat, file, from, offset, limit, binlog_event_cb, rs, &code, &err) != 0) {
        rows_drop(rs);
        return res_err(res, code, "HY000", "%s", err.msg);
    }
    return 0;
}

/* ---- catalogue SHOW statements ------------------------------------------------------------- */

static int h_show_databases(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    lx_kw(lx, "SHOW");
    if (!lx_kw(lx, "DATABASES"))
        lx_kw(lx, "SCHEMAS");
    srv_rs all;
    srv_rs_init(&all);
    srv_rs_col(&all, "Database", CDCH_T_VAR_STRING);
    for (size_t i = 0; i < srv_schema_ndbs(c->srv); i++)
        srv_rs_str(&all, srv_schema_db(c->srv, i));
    return show_rows(c, q, &all, res);
}

static int cmp_tables(const void *a, const void *b)
{
    return strcmp((*(const cdch_sc_table *const *)a)->name, (*(const cdch_sc_table *const *)b)->name);
}

/* SHOW TABLES / TABLE STATUS [FROM | IN db]: the database (the connection's
 * by default), or NULL with the error in res. */
static const char *show_db(srv_conn *c, sql_lex *lx, srv_result *res)
{
    const char *db = c->db[0] ? c->db : NULL;
    if ((lx_kw(lx, "FROM") || lx_kw(lx, "IN")) && !(db = lx_name(lx)))
        return syntax_near(res, lx), NULL;
    if (!db)
        return res_err(res, 1046, "3D000", "No database selected"), NULL;
    if (!srv_db_exists(c->srv, db))
        return res_err(res, 1049, "42000", "Unknown database '%s'", db), NULL;
    return db;
}

static int h_show_tables(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    lx_kw(lx, "SHOW");
    bool full = lx_kw(lx, "FULL");
    lx_kw(lx, "TABLES");
    const char *db = show_db(c, lx, res);
    if (!db)
        return 0;
    srv_rs all;
    srv_rs_init(&all);
    char cname[128];
    snprintf(cname, sizeof cname, "Tables_in_%s", db);
    srv_rs_col(&all, cname, CDCH_T_VAR_STRING);
    if (full)
        srv_rs_col(&all, "Table_type", CDCH_T_VAR_STRING);
    const cdch_scenario *s = c->srv->s;
    const cdch_sc_table **ts = cdch_xcalloc(s->ntables, sizeof *ts);
    size_t n = 0;
    for (size_t i = 0; i < s->ntables; i++)
        if (strcmp(s->tables[i].db, db) == 0)
            ts[n++] = &s->tables[i];
    qsort(ts, n, sizeof *ts, cmp_tables);
    for (size_t i = 0; i < n; i++) {
        srv_rs_str(&all, ts[i]->name);
        if (full)
            srv_rs_str(&all, "BASE TABLE");
    }
    free(ts);
    return show_rows(c, q, &all, res);
}

static int h_table_status(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    lx_kws(lx, "SHOW TABLE STATUS");
    const char *db = show_db(c, lx, res);
    if (!db)
        return 0;
    srv_rs all;
    srv_rs_init(&all);
    srv_schema_table_status_rs(c->srv, db, &all);
    return show_rows(c, q, &all, res);
}

static const cdch_sc_table *find_table(srv_conn *c, sql_lex *lx, srv_result *res)
{
    const char *db, *name;
    if (table_ref(c, lx, &db, &name, res) != 0)
        return NULL;
    if (lx_kw(lx, "FROM") || lx_kw(lx, "IN")) {
        if (!(db = lx_name(lx))) {
            syntax_near(res, lx);
            return NULL;
        }
    }
    if (!db) {
        res_err(res, 1046, "3D000", "No database selected");
        return NULL;
    }
    const cdch_sc_table *t = srv_schema_table(c->srv, db, name);
    if (!t)
        res_err(res, 1146, "42S02", "Table '%s.%s' doesn't exist", db, name);
    return t;
}

static int h_show_create_table(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    lx_kws(lx, "SHOW CREATE TABLE");
    const cdch_sc_table *t = find_table(c, lx, res);
    if (!t)
        return 0;
    if (!lx_at_end(lx))
        return syntax_near(res, lx);
    srv_rs *rs = res_rows(res);
    srv_rs_col(rs, "Table", CDCH_T_VAR_STRING);
    srv_rs_col(rs, "Create Table", CDCH_T_VAR_STRING)->length = 1024 * 4;
    cdch_buf b = CDCH_BUF_INIT;
    if (t->create_sql) /* a capture's schema.sql, as the real server answered */
        cdch_put_str(&b, t->create_sql);
    else
        cdch_ddl_create_table(t, &b);
    srv_rs_str(rs, t->name);
    srv_rs_cell(rs, (const char *)b.data, b.len);
    cdch_buf_free(&b);
    return 0;
}

static int h_show_create_db(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    lx_kws(lx, "SHOW CREATE");
    if (!lx_kw(lx, "DATABASE"))
        lx_kw(lx, "SCHEMA");
    lx_kws(lx, "IF NOT EXISTS");
    const char *db = lx_name(lx);
    if (!db || !lx_at_end(lx))
        return syntax_near(res, lx);
    const cdch_sc_database *d = srv_schema_sc_db(c->srv, db);
    cdch_buf b = CDCH_BUF_INIT;
    if (d) {
        cdch_ddl_create_database(d, &b);
    } else if (srv_schema_is_system(db)) {
        cdch_sc_database sys = {db, "utf8mb3", "utf8mb3_general_ci"};
        cdch_ddl_create_database(&sys, &b);
    } else {
        return res_err(res, 1049, "42000", "Unknown database '%s'", db);
    }
    srv_rs *rs = res_rows(res);
    srv_rs_col(rs, "Database", CDCH_T_VAR_STRING);
    srv_rs_col(rs, "Create Database", CDCH_T_VAR_STRING);
    srv_rs_str(rs, db);
    srv_rs_cell(rs, (const char *)b.data, b.len);
    cdch_buf_free(&b);
    return 0;
}

static int h_show_columns(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    bool full = false;
    if (lx_kw(lx, "SHOW")) {
        full = lx_kw(lx, "FULL");
        if (!lx_kw(lx, "COLUMNS"))
            lx_kw(lx, "FIELDS");
        if (!lx_kw(lx, "FROM"))
            lx_kw(lx, "IN");
    } else if (!lx_kw(lx, "DESCRIBE") && !lx_kw(lx, "DESC") && !lx_kw(lx, "EXPLAIN")) {
        return 1;
    }
    if (lx_is_kw(lx, 0, "SELECT") || lx_is_kw(lx, 0, "FORMAT") || lx_is_kw(lx, 0, "ANALYZE"))
        return 1; /* EXPLAIN SELECT: not a table description */
    const cdch_sc_table *t = find_table(c, lx, res);
    if (!t)
        return 0;
    srv_rs all;
    srv_rs_init(&all);
    srv_schema_columns_rs(t, full, &all);
    if (lx_peek(lx, 0)->kind == TK_IDENT && !lx_is_kw(lx, 0, "LIKE") && !lx_is_kw(lx, 0, "WHERE")) {
        /* DESCRIBE t col */
        const char *col = lx_name(lx);
        srv_rs *out = res_rows(res);
        copy_cols(out, &all);
        for (size_t r = 0; r < srv_rs_nrows(&all); r++) {
            size_t n;
            const char *s = srv_rs_get(&all, r, 0, &n);
            if (s && sql_like(s, n, col, strlen(col)))
                copy_row(out, &all, r);
        }
    } else {
        show_filter(c, q, &all, res);
    }
    srv_rs_free(&all);
    return 0;
}

static int h_show_index(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    lx_kw(lx, "SHOW");
    lx_kw(lx, "EXTENDED");
    if (!lx_kw(lx, "INDEX") && !lx_kw(lx, "INDEXES"))
        lx_kw(lx, "KEYS");
    if (!lx_kw(lx, "FROM"))
        lx_kw(lx, "IN");
    const cdch_sc_table *t = find_table(c, lx, res);
    if (!t)
        return 0;
    srv_rs all;
    srv_rs_init(&all);
    srv_schema_index_rs(t, &all);
    return show_rows(c, q, &all, res);
}

static int h_show_grants(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)q;
    char label[160], row[2048];
    snprintf(label, sizeof label, "Grants for %s@%%", c->user);
    srv_rs *rs = res_rows(res);
    srv_rs_col(rs, label, CDCH_T_VAR_STRING)->length = 1024 * 4;
    snprintf(row, sizeof row,
             "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, RELOAD, SHUTDOWN, PROCESS, FILE, REFERENCES, "
             "INDEX, ALTER, SHOW DATABASES, SUPER, CREATE TEMPORARY TABLES, LOCK TABLES, EXECUTE, REPLICATION "
             "SLAVE, REPLICATION CLIENT, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE, CREATE USER, EVENT, "
             "TRIGGER, CREATE TABLESPACE, CREATE ROLE, DROP ROLE ON *.* TO `%s`@`%%` WITH GRANT OPTION",
             c->user);
    srv_rs_str(rs, row);
    snprintf(row, sizeof row,
             "GRANT BACKUP_ADMIN,BINLOG_ADMIN,CONNECTION_ADMIN,REPLICATION_APPLIER,REPLICATION_SLAVE_ADMIN,"
             "SYSTEM_VARIABLES_ADMIN ON *.* TO `%s`@`%%` WITH GRANT OPTION",
             c->user);
    srv_rs_str(rs, row);
    return 0;
}

static int h_processlist(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)q;
    srv_processlist_rs(c->srv, res_rows(res), false);
    return 0;
}

static int h_show_warnings(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)c;
    if (srv_ci_contains(q->sql, "COUNT(")) {
        srv_rs *rs = res_rows(res);
        srv_rs_col(rs, srv_ci_contains(q->sql, "ERRORS") ? "@@session.error_count" : "@@session.warning_count",
                   CDCH_T_LONGLONG);
        srv_rs_uint(rs, 0);
        return 0;
    }
    srv_rs *rs = res_rows(res);
    srv_rs_col(rs, "Level", CDCH_T_VAR_STRING);
    srv_rs_col(rs, "Code", CDCH_T_LONG);
    srv_rs_col(rs, "Message", CDCH_T_VAR_STRING);
    return 0;
}

static int h_replica_status(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)c;
    bool replica = srv_ci_contains(q->sql, "REPLICA");
    static const char *const slave_cols[] = {"Slave_IO_State", "Master_Host", "Master_User", "Master_Port",
                                             "Connect_Retry", "Master_Log_File", "Read_Master_Log_Pos",
                                             "Relay_Log_File", "Relay_Log_Pos", "Relay_Master_Log_File",
                                             "Slave_IO_Running", "Slave_SQL_Running", "Exec_Master_Log_Pos",
                                             "Seconds_Behind_Master", "Executed_Gtid_Set", "Auto_Position"};
    static const char *const replica_cols[] = {"Replica_IO_State", "Source_Host", "Source_User", "Source_Port",
                                               "Connect_Retry", "Source_Log_File", "Read_Source_Log_Pos",
                                               "Relay_Log_File", "Relay_Log_Pos", "Relay_Source_Log_File",
                                               "Replica_IO_Running", "Replica_SQL_Running", "Exec_Source_Log_Pos",
                                               "Seconds_Behind_Source", "Executed_Gtid_Set", "Auto_Position"};
    srv_rs *rs = res_rows(res);
    for (size_t i = 0; i < 16; i++)
        srv_rs_col(rs, replica ? replica_cols[i] : slave_cols[i], CDCH_T_VAR_STRING);
    return 0;
}

static int h_replicas(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)c;
    bool replica = srv_ci_contains(q->sql, "REPLICAS");
    srv_rs *rs = res_rows(res);
    srv_rs_col(rs, "Server_id", CDCH_T_LONGLONG);
    srv_rs_col(rs, "Host", CDCH_T_VAR_STRING);
    srv_rs_col(rs, "Port", CDCH_T_LONGLONG);
    srv_rs_col(rs, replica ? "Source_id" : "Master_id", CDCH_T_LONGLONG);
    srv_rs_col(rs, replica ? "Replica_UUID" : "Slave_UUID", CDCH_T_VAR_STRING);
    return 0;
}

static int h_show_charset(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    bool collation = srv_ci_contains(q->sql, "COLLATION") && !srv_ci_contains(q->sql, "CHARACTER SET") &&
                     !srv_ci_contains(q->sql, "CHARSET");
    lx_kw(lx, "SHOW");
    if (!lx_kws(lx, "CHARACTER SET") && !lx_kw(lx, "CHARSET"))
        lx_kw(lx, "COLLATION");
    srv_rs src, all;
    srv_rs_init(&src);
    srv_rs_init(&all);
    sql_ctx cx;
    ctx_init(&cx, c, q->a);
    size_t nv;
    bool upper;
    srv_vtable(c, "information_schema", collation ? "COLLATIONS" : "CHARACTER_SETS", &src, &nv, &upper, &cx);
    if (collation) {
        const char *names[] = {"Collation", "Charset", "Id", "Default", "Compiled", "Sortlen", "Pad_attribute"};
        for (size_t i = 0; i < 7; i++)
            srv_rs_col(&all, names[i], src.cols[i].type);
    } else {
        const char *names[] = {"Charset", "Default collation", "Description", "Maxlen"};
        for (size_t i = 0; i < 4; i++)
            srv_rs_col(&all, names[i], src.cols[i].type);
    }
    for (size_t r = 0; r < srv_rs_nrows(&src); r++)
        copy_row(&all, &src, r);
    srv_rs_free(&src);
    return show_rows(c, q, &all, res);
}

static int h_show_engines(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_ctx cx;
    ctx_init(&cx, c, q->a);
    size_t nv;
    bool upper;
    srv_rs src;
    srv_rs_init(&src);
    srv_vtable(c, "information_schema", "ENGINES", &src, &nv, &upper, &cx);
    srv_rs *rs = res_rows(res);
    const char *names[] = {"Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"};
    for (size_t i = 0; i < 6; i++)
        srv_rs_col(rs, names[i], CDCH_T_VAR_STRING);
    for (size_t r = 0; r < srv_rs_nrows(&src); r++)
        copy_row(rs, &src, r);
    srv_rs_free(&src);
    return 0;
}

static int h_show_plugins(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)c;
    (void)q;
    srv_rs *rs = res_rows(res);
    const char *names[] = {"Name", "Status", "Type", "Library", "License"};
    for (size_t i = 0; i < 5; i++)
        srv_rs_col(rs, names[i], CDCH_T_VAR_STRING);
    /* mysql_native_password: ACTIVE before 8.4.0; DISABLED on 8.4 unless the server runs with
     * --mysql-native-password=ON (scenario server.mysql_native_password); gone from 9.0.0 (see
     * srv_native_password_loaded). */
    const char *native = srv_native_password_loaded(c->srv) ? "ACTIVE" : "DISABLED";
    static const char *const rows[][5] = {
        {"binlog", "ACTIVE", "STORAGE ENGINE", NULL, "GPL"},
        {"mysql_native_password", NULL, "AUTHENTICATION", NULL, "GPL"},
        {"caching_sha2_password", "ACTIVE", "AUTHENTICATION", NULL, "GPL"},
        {"InnoDB", "ACTIVE", "STORAGE ENGINE", NULL, "GPL"},
    };
    for (size_t i = 0; i < 4; i++) {
        if (i == 1 && version_product(c) >= 90000)
            continue;
        for (size_t j = 0; j < 5; j++)
            srv_rs_str(rs, i == 1 && j == 1 ? native : rows[i][j]);
    }
    return 0;
}

/* ---- SET ------------------------------------------------------------------------------------ */

static int set_charset(srv_conn *c, const char *cs, const char *coll, sql_ctx *cx)
{
    if (!strcasecmp(cs, "DEFAULT"))
        cs = "utf8mb4";
    if (!coll) {
        coll = cdch_default_collation(cs);
        if (!coll && strcasecmp(cs, "binary") == 0)
            coll = "binary";
        if (!coll)
            return sql_fail(cx, 1115, "42000", "Unknown character set: '%s'", cs);
    }
    if (srv_sysvar_set(c, "character_set_client", cs, false, false, cx) ||
        srv_sysvar_set(c, "character_set_connection", cs, false, false, cx) ||
        srv_sysvar_set(c, "character_set_results", cs, false, false, cx) ||
        srv_sysvar_set(c, "collation_connection", coll, false, false, cx))
        return -1;
    return 0;
}

/* SET NAMES cs [COLLATE coll] (names) or SET CHARACTER SET | CHARSET cs. */
static int set_names(srv_conn *c, qstmt *q, sql_lex *lx, sql_ctx *cx, bool names, srv_result *res)
{
    const char *cs = lx_name(lx), *coll = NULL;
    if (!cs)
        return syntax_near(res, lx);
    if (names && lx_kw(lx, "COLLATE") && !(coll = lx_name(lx)))
        return syntax_near(res, lx);
    if (!lx_at_end(lx))
        return syntax_near(res, lx);
    if (!q->describe && set_charset(c, cs, coll, cx) != 0)
        return res_cx(res, cx);
    return res_ok(res);
}

/* The variable an assignment of SET names: [GLOBAL|SESSION|...] name,
 * @user or @@[scope.]name. NULL (syntax error sent) if none. */
static const char *set_target(sql_lex *lx, bool *global, bool *user, srv_result *res)
{
    *global = *user = false;
    if (lx_kw(lx, "GLOBAL") || lx_kw(lx, "PERSIST") || lx_kw(lx, "PERSIST_ONLY"))
        *global = true;
    else if (lx_kw(lx, "SESSION") || lx_kw(lx, "LOCAL"))
        *global = false;
    const sql_tok *t = lx_peek(lx, 0);
    const char *name = t->text;
    if (t->kind == TK_USERVAR) {
        if (!sql_uservar_name_ok(name))
            return res_err(res, 3061, "42000", SQL_ER_ILLEGAL_USER_VAR, name), NULL;
        *user = true;
        lx->i++;
    } else if (t->kind == TK_SYSVAR) {
        *global = t->scope == 'g';
        lx->i++;
    } else if (t->kind == TK_IDENT || t->kind == TK_QIDENT) {
        lx->i++;
        while (lx_op(lx, ".")) { /* structured variable a.b */
            if (!(name = lx_name(lx)))
                return syntax_near(res, lx), NULL;
        }
    } else {
        return syntax_near(res, lx), NULL;
    }
    return name;
}

/* One assignment: target = expr | DEFAULT. 0, or -1 with the response set. */
static int set_assignment(srv_conn *c, qstmt *q, sql_lex *lx, sql_ctx *cx, srv_result *res)
{
    bool global, user;
    const char *name = set_target(lx, &global, &user, res);
    if (!name)
        return -1;
    if (!lx_op(lx, "=") && !lx_op(lx, ":="))
        return syntax_near(res, lx), -1;
    qval v = {0};
    bool is_default = false;
    if (lx_is_kw(lx, 0, "DEFAULT") &&
        (lx_peek(lx, 1)->kind == TK_END || (lx_peek(lx, 1)->kind == TK_OP && !strcmp(lx_peek(lx, 1)->text, ",")))) {
        lx->i++;
        is_default = true;
    } else {
        cx->ident_as_string = !user;
        sql_expr *e = sql_parse_expr(lx, cx);
        cx->ident_as_string = false;
        if (!e || (!q->describe && sql_eval(e, cx, &v) != 0))
            return res_cx(res, cx), -1;
    }
    if (q->describe)
        return 0;
    size_t n;
    const char *text = qv_text(&v, q->a, &n);
    if (user) {
        conn_set_uservar(c, name, text, text == NULL);
    } else if (is_default) {
        size_t i = srv_var_index(c->sysvars, c->nsysvars, name);
        if (i < c->nsysvars) {
            free(c->sysvars[i].value);
            c->sysvars[i] = c->sysvars[--c->nsysvars];
        }
        if (!strcasecmp(name, "autocommit"))
            c->status |= SERVER_STATUS_AUTOCOMMIT;
    } else if (srv_sysvar_set(c, name, text, text == NULL, global, cx) != 0) {
        return res_cx(res, cx), -1;
    }
    return 0;
}

static int h_set(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    sql_ctx cx;
    ctx_init(&cx, c, q->a);
    lx_kw(lx, "SET");
    if (lx_kw(lx, "NAMES"))
        return set_names(c, q, lx, &cx, true, res);
    if (lx_kws(lx, "CHARACTER SET") || lx_kw(lx, "CHARSET"))
        return set_names(c, q, lx, &cx, false, res);
    size_t save = lx->i;
    (void)(lx_kw(lx, "GLOBAL") || lx_kw(lx, "SESSION") || lx_kw(lx, "LOCAL") || lx_kw(lx, "PERSIST"));
    if (lx_kw(lx, "TRANSACTION"))
        return res_ok(res); /* isolation level / access mode: accepted */
    lx->i = save;
    do {
        if (set_assignment(c, q, lx, &cx, res) != 0)
            return 0;
    } while (lx_op(lx, ","));
    if (!lx_at_end(lx))
        return syntax_near(res, lx);
    return res_ok(res);
}

/* ---- transactions, locks, session ------------------------------------------------------------- */

static int h_begin(srv_conn *c, qstmt *q, srv_result *res)
{
    if (!q->describe)
        c->status |= SERVER_STATUS_IN_TRANS;
    return res_ok(res);
}

static int h_commit(srv_conn *c, qstmt *q, srv_result *res)
{
    if (!q->describe)
        c->status &= (uint16_t)~SERVER_STATUS_IN_TRANS;
    return res_ok(res);
}

static int h_ok(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)c;
    (void)q;
    return res_ok(res);
}

static int h_flush_privileges(srv_conn *c, qstmt *q, srv_result *res)
{
    if (!q->describe) { /* like MySQL: empties the caching_sha2_password cache */
        pthread_mutex_lock(&c->srv->mu);
        c->srv->sha2_cached = false;
        pthread_mutex_unlock(&c->srv->mu);
    }
    return res_ok(res);
}

static int h_use(srv_conn *c, qstmt *q, srv_result *res)
{
    sql_lex *lx = &q->lx;
    lx_kw(lx, "USE");
    const char *db = lx_name(lx);
    if (!db || !lx_at_end(lx))
        return syntax_near(res, lx);
    if (srv_utf8_chars(db, strlen(db)) > SRV_NAME_CHARS)
        return res_err(res, 1059, "42000", SRV_ER_TOO_LONG_IDENT, (int)(strlen(db) > 100 ? 100 : strlen(db)), db);
    if (!srv_db_exists(c->srv, db))
        return res_err(res, 1049, "42000", "Unknown database '%s'", db);
    if (!q->describe)
        snprintf(c->db, sizeof c->db, "%s", db);
    return res_ok(res);
}

static int h_kill(srv_conn *c, qstmt *q, srv_result *res)
{
    const char *num = q->sql + q->m[3].rm_so;
    unsigned long id = strtoul(num, NULL, 10);
    bool query_only = q->m[2].rm_so >= 0 && strncasecmp(q->sql + q->m[2].rm_so, "QUERY", 5) == 0;
    if (q->describe)
        return res_ok(res);
    pthread_mutex_lock(&c->srv->mu);
    bool found = false, dumping = false;
    for (size_t i = 0; i < c->srv->nconns; i++)
        if (c->srv->conns[i]->id == id) {
            found = true;
            dumping = __atomic_load_n(&c->srv->conns[i]->dumping, __ATOMIC_RELAXED);
        }
    pthread_mutex_unlock(&c->srv->mu);
    if (!found)
        return res_err(res, 1094, "HY000", "Unknown thread id: %lu", id);
    if (query_only && !dumping)
        return res_ok(res);
    if (id == c->id)
        return res_err(res, 1317, "70100", "Query execution was interrupted");
    srv_kill(c->srv, (uint32_t)id);
    return res_ok(res);
}

static int h_read_only(srv_conn *c, qstmt *q, srv_result *res)
{
    (void)c;
    return res_err(res, 1290, "HY000",
                   "The MySQL server is running with the --read-only option so it cannot execute this statement "
                   "(cdcharness's fake primary serves a fixed binlog stream): %.200s",
                   q->sql);
}

/* ---- the pattern table ------------------------------------------------------------------------ */

typedef struct qpattern {
    const char *re;
    qhandler h;
    bool lexed; /* tokenise the statement into q->lx first (a lexer error answers it) */
} qpattern;

static const qpattern k_patterns[] = {
    {"^SELECT\\s", h_select, true},
    {"^SHOW\\s+((GLOBAL|SESSION|LOCAL)\\s+)?(VARIABLES|STATUS)(\\s.*)?$", h_show_vars, true},
    /* version gates first (h_version_gate declines where the version has the statement) */
    {"^SHOW\\s+(SLAVE\\s+(STATUS|HOSTS)|MASTER\\s+LOGS|REPLICA\\s+STATUS|REPLICAS)(\\s.*)?$", h_version_gate, false},
    {"^((START|STOP|RESET)\\s+SLAVE|CHANGE\\s+MASTER|RESET\\s+MASTER|PURGE\\s+MASTER)(\\s.*)?$", h_version_gate,
     false},
    {"^(START|STOP)\\s+REPLICA(\\s.*)?$", h_version_gate, false},
    {"^SHOW\\s+MASTER\\s+STATUS$", h_master_status, false},
    {"^SHOW\\s+BINARY\\s+LOG\\s+STATUS$", h_binlog_status, false},
    {"^SHOW\\s+(BINARY|MASTER)\\s+LOGS$", h_binary_logs, false},
    {"^SHOW\\s+BINLOG\\s+EVENTS(\\s.*)?$", h_binlog_events, true},
    {"^SHOW\\s+(DATABASES|SCHEMAS)(\\s.*)?$", h_show_databases, true},
    {"^SHOW\\s+(FULL\\s+)?TABLES(\\s.*)?$", h_show_tables, true},
    {"^SHOW\\s+TABLE\\s+STATUS(\\s.*)?$", h_table_status, true},
    {"^SHOW\\s+CREATE\\s+TABLE\\s+.+$", h_show_create_table, true},
    {"^SHOW\\s+CREATE\\s+(DATABASE|SCHEMA)\\s+.+$", h_show_create_db, true},
    {"^SHOW\\s+(FULL\\s+)?(COLUMNS|FIELDS)\\s+(FROM|IN)\\s+.+$", h_show_columns, true},
    {"^(DESC|DESCRIBE|EXPLAIN)\\s+.+$", h_show_columns, true},
    {"^SHOW\\s+(EXTENDED\\s+)?(INDEX|INDEXES|KEYS)\\s+(FROM|IN)\\s+.+$", h_show_index, true},
    {"^SHOW\\s+GRANTS(\\s.*)?$", h_show_grants, false},
    {"^SHOW\\s+(FULL\\s+)?PROCESSLIST$", h_processlist, false},
    {"^SHOW\\s+(COUNT\\(\\*\\)\\s+)?(WARNINGS|ERRORS)(\\s.*)?$", h_show_warnings, false},
    {"^SHOW\\s+(SLAVE|REPLICA)\\s+STATUS(\\s.*)?$", h_replica_status, false},
    {"^SHOW\\s+(SLAVE\\s+HOSTS|REPLICAS)$", h_replicas, false},
    {"^SHOW\\s+(CHARACTER\\s+SET|CHARSET|COLLATION)(\\s.*)?$", h_show_charset, true},
    {"^SHOW\\s+(STORAGE\\s+)?ENGINES$", h_show_engines, false},
    {"^SHOW\\s+PLUGINS$", h_show_plugins, false},
    {"^SET\\s.+$", h_set, true},
    {"^(BEGIN(\\s+WORK)?|START\\s+TRANSACTION(\\s.*)?|XA\\s+START.*)$", h_begin, false},
    {"^(COMMIT|ROLLBACK)(\\s+WORK)?(\\s+AND\\s+(NO\\s+)?CHAIN)?(\\s+(NO\\s+)?RELEASE)?$", h_commit, false},
    {"^(SAVEPOINT|RELEASE\\s+SAVEPOINT|ROLLBACK\\s+(WORK\\s+)?TO)\\s.+$", h_ok, false},
    {"^FLUSH\\s+PRIVILEGES$", h_flush_privileges, false},
    {"^FLUSH\\s+((LOCAL|NO_WRITE_TO_BINLOG)\\s+)?(TABLES?|LOGS|BINARY\\s+LOGS|STATUS|HOSTS)(\\s.*)?$", h_ok, false},
    {"^UNLOCK\\s+(TABLES?|INSTANCE)$", h_ok, false},
    {"^LOCK\\s+(TABLES?\\s.+|INSTANCE\\s+FOR\\s+BACKUP)$", h_ok, false},
    {"^DO\\s.+$", h_ok, false},
    {"^USE\\s.+$", h_use, true},
    {"^KILL\\s+((CONNECTION|QUERY)\\s+)?([0-9]+|NULL)$", h_kill, false}, /* NULL: id 0, as MySQL */
    {"^(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|TRUNCATE|RENAME|GRANT|REVOKE|LOAD|PURGE|RESET|CHANGE|"
     "START\\s+(SLAVE|REPLICA)|STOP\\s+(SLAVE|REPLICA)|INSTALL|UNINSTALL)\\s",
     h_read_only, false},
};
#define N_PATTERNS (sizeof k_patterns / sizeof k_patterns[0])

static regex_t g_rx[N_PATTERNS];
static pthread_once_t g_rx_once = PTHREAD_ONCE_INIT;

static void compile_patterns(void)
{
    for (size_t i = 0; i < N_PATTERNS; i++) {
        char re[1024];
        size_t n = 0;
        for (const char *p = k_patterns[i].re; *p && n + 16 < sizeof re; p++) {
            if (p[0] == '\\' && p[1] == 's') {
                n += (size_t)snprintf(re + n, sizeof re - n, "[[:space:]]");
                p++;
            } else if (p[0] == '\\' && p[1] == 'w') {
                n += (size_t)snprintf(re + n, sizeof re - n, "[[:alnum:]_]");
                p++;
            } else {
                re[n++] = *p;
            }
        }
        re[n] = 0;
        int r = regcomp(&g_rx[i], re, REG_EXTENDED | REG_ICASE);
        if (r != 0) {
            char msg[256];
            regerror(r, &g_rx[i], msg, sizeof msg);
            fprintf(stderr, "cdcharness serve: bad pattern %zu in harness/server/query.c: %s: %s\n", i,
                    k_patterns[i].re, msg);
            abort();
        }
    }
}

/* ---- entry points ----------------------------------------------------------------------------- */

static void exec_one(srv_conn *c, const char *stmt, bool describe, cdch_arena *a, srv_result *res)
{
    pthread_once(&g_rx_once, compile_patterns);
    qstmt q = {stmt, {{0}}, describe, a, {0}};
    for (size_t i = 0; i < N_PATTERNS; i++) {
        if (regexec(&g_rx[i], stmt, 10, q.m, 0) != 0)
            continue;
        if (k_patterns[i].lexed && lex(&q, &q.lx, res) != 0)
            return;
        if (k_patterns[i].h(c, &q, res) == 0)
            return;
        srv_result_free(res);
        srv_result_init(res);
    }
    srv_stat_add(c->srv, SRV_STAT_UNKNOWN_QUERIES, 1);
    fprintf(stderr,
            "cdcharness serve: connection %u: unsupported statement (answered with ERR 1064; add a pattern to "
            "harness/server/query.c): %.2000s%s\n",
            c->id, stmt, strlen(stmt) > 2000 ? "..." : "");
    res_err(res, 1064, "42000",
            "You have an error in your SQL syntax: cdcharness's fake MySQL primary does not support this statement: "
            "'%.300s'",
            stmt);
}

/* One statement of a split query: a quote it never closes is MySQL's syntax error near that quote. */
static void exec_stmt(srv_conn *c, const char *stmt, const char *unclosed, bool describe, cdch_arena *a,
                      srv_result *res)
{
    if (unclosed)
        parse_error(res, stmt, unclosed);
    else
        exec_one(c, stmt, describe, a, res);
}

void srv_query_exec(srv_conn *c, const char *sql, size_t len, bool describe, srv_result *res)
{
    cdch_arena a = CDCH_ARENA_INIT;
    char **stmts;
    const char *unclosed;
    size_t n = sql_split(sql, len, &a, &stmts, &unclosed);
    if (n == 0)
        res_err(res, 1065, "42000", "Query was empty");
    else if (n > 1)
        parse_error(res, stmts[1], stmts[1]);
    else
        exec_stmt(c, stmts[0], unclosed, describe, &a, res);
    /* the result may point into the arena (labels): copy what lives there */
    if (res->kind == SRV_RES_ROWS) {
        for (size_t i = 0; i < res->rs.ncols; i++) {
            srv_col *col = &res->rs.cols[i];
            col->org_name = cdch_arena_strdup(&res->rs.a, col->org_name ? col->org_name : "");
            col->table = cdch_arena_strdup(&res->rs.a, col->table ? col->table : "");
            col->org_table = cdch_arena_strdup(&res->rs.a, col->org_table ? col->org_table : "");
            col->db = cdch_arena_strdup(&res->rs.a, col->db ? col->db : "");
        }
    }
    cdch_arena_free(&a);
}

int srv_query(srv_conn *c, const char *sql, size_t len)
{
    c->queries++;
    srv_stat_add(c->srv, SRV_STAT_QUERIES, 1);
    if (c->srv->opts.log_queries) {
        if (len > 2000)
            fprintf(stderr, "cdcharness serve: [%u] %.2000s... (%zu bytes)\n", c->id, sql, len);
        else
            fprintf(stderr, "cdcharness serve: [%u] %.*s\n", c->id, (int)len, sql);
    }
    cdch_arena a = CDCH_ARENA_INIT;
    char **stmts;
    const char *unclosed;
    size_t n = sql_split(sql, len, &a, &stmts, &unclosed);
    int r = 0;
    if (n == 0) {
        r = conn_err(c, 1065, "42000", "Query was empty");
    } else if (n > 1 && !(c->caps & CLIENT_MULTI_STATEMENTS)) {
        /* MySQL parses the first statement and stops at the text after its ';' */
        srv_result res;
        srv_result_init(&res);
        parse_error(&res, stmts[1], stmts[1]);
        r = srv_result_send(c, &res, false);
        srv_result_free(&res);
    } else {
        for (size_t i = 0; i < n && r == 0; i++) {
            srv_result res;
            srv_result_init(&res);
            cdch_arena sa = CDCH_ARENA_INIT;
            exec_stmt(c, stmts[i], i + 1 == n ? unclosed : NULL, false, &sa, &res);
            c->extra_status = i + 1 < n && res.kind != SRV_RES_ERR ? SERVER_MORE_RESULTS_EXISTS : 0;
            r = srv_result_send(c, &res, false);
            bool stop = res.kind == SRV_RES_ERR;
            srv_result_free(&res);
            cdch_arena_free(&sa);
            if (stop)
                break;
        }
        c->extra_status = 0;
    }
    cdch_arena_free(&a);
    return r;
}

int srv_field_list(srv_conn *c, const char *table, const char *wild)
{
    if (!c->db[0])
        return conn_err(c, 1046, "3D000", "No database selected");
    const cdch_sc_table *t = srv_schema_table(c->srv, c->db, table);
    if (!t)
        return conn_err(c, 1146, "42S02", "Table '%s.%s' doesn't exist", c->db, table);
    cdch_buf b = CDCH_BUF_INIT;
    int r = 0;
    for (size_t i = 0; i < t->ncols && r == 0; i++) {
        if (wild && wild[0] && !sql_like(t->cols[i].name, strlen(t->cols[i].name), wild, strlen(wild)))
            continue;
        srv_col col;
        memset(&col, 0, sizeof col);
        srv_schema_coldef(t, &t->cols[i], &col);
        cdch_buf_reset(&b);
        srv_put_coldef(&b, &col, true);
        r = conn_write(c, b.data, b.len);
    }
    cdch_buf_free(&b);
    return r == 0 ? conn_eof(c, c->status) : r;
}

void srv_statistics(struct cdch_server *srv, cdch_buf *out)
{
    cdch_server_stats st;
    cdch_server_get_stats(srv, &st);
    pthread_mutex_lock(&srv->mu);
    size_t n = srv->nconns;
    pthread_mutex_unlock(&srv->mu);
    long long up = (long long)(time(NULL) - srv->start_time);
    cdch_buf_printf(out,
                    "Uptime: %lld  Threads: %zu  Questions: %llu  Slow queries: 0  Opens: 0  Flush tables: 3  "
                    "Open tables: 0  Queries per second avg: %.3f",
                    up, n, (unsigned long long)st.queries, up > 0 ? (double)st.queries / (double)up : 0.0);
}
