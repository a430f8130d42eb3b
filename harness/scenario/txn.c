/* txn.c — the `transactions:` list: statements, rows, partial JSON
 * updates, DDL, empty transactions, compression switches and bulk specs.
 *
 * The loader replays the scenario against a model of each table's rows, so
 * the images are those MySQL would log: an UPDATE/DELETE `before` works
 * like a WHERE clause (the columns given must match exactly one current
 * row, whose full image becomes the before image), an UPDATE `after` holds
 * only the changed columns, inserts get auto_increment values, and updates
 * of missing rows, duplicate keys and no-op updates are errors. A bulk item
 * makes its table's contents unknown: after it, rows on that table are
 * taken as written (omitted columns take their defaults, nothing is
 * checked against earlier rows).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gtid.h"
#include "scenario_internal.h"
#include "xalloc.h"

struct sc_tstate {
    bool unknown;          /* a bulk item changed the table */
    size_t n, cap;
    cdch_value **rows;     /* current rows (full images, in the scenario arena) */
    uint32_t *lines;       /* where each row was inserted */
    size_t key_col;        /* the single integer primary key column, or SIZE_MAX */
    uint64_t next_key;     /* one past the largest key seen (auto_increment) */
};

#define NO_COL ((size_t)-1)

static sc_tstate *tstate(sc_ctx *c, const cdch_sc_table *t)
{
    return &c->state[t - c->s->tables];
}

void sc_state_free(sc_ctx *c)
{
    if (!c->state)
        return;
    for (size_t i = 0; i < c->s->ntables; i++) {
        free(c->state[i].rows);
        free(c->state[i].lines);
    }
    free(c->state);
    c->state = NULL;
}

static int state_init(sc_ctx *c)
{
    c->state = calloc(c->s->ntables ? c->s->ntables : 1, sizeof *c->state);
    if (!c->state)
        return sc_fail(c, NULL, "out of memory");
    for (size_t i = 0; i < c->s->ntables; i++) {
        const cdch_sc_table *t = &c->s->tables[i];
        sc_tstate *st = &c->state[i];
        st->key_col = NO_COL;
        st->next_key = 1;
        size_t npk = 0, pk = NO_COL;
        for (size_t j = 0; j < t->ncols; j++)
            if (t->cols[j].primary_key) {
                npk++;
                pk = j;
            }
        if (npk == 1 && sc_col_is_int(&t->cols[pk]))
            st->key_col = pk;
    }
    return 0;
}

static void state_add(sc_tstate *st, cdch_value *row, uint32_t line)
{
    if (st->n == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 16;
        st->rows = cdch_xrealloc(st->rows, st->cap * sizeof *st->rows);
        st->lines = cdch_xrealloc(st->lines, st->cap * sizeof *st->lines);
    }
    st->rows[st->n] = row;
    st->lines[st->n++] = line;
}

static void state_remove(sc_tstate *st, size_t i)
{
    memmove(&st->rows[i], &st->rows[i + 1], (st->n - i - 1) * sizeof *st->rows);
    memmove(&st->lines[i], &st->lines[i + 1], (st->n - i - 1) * sizeof *st->lines);
    st->n--;
}

static bool has_pk(const cdch_sc_table *t)
{
    for (size_t j = 0; j < t->ncols; j++)
        if (t->cols[j].primary_key)
            return true;
    return false;
}

static bool same_pk(const cdch_sc_table *t, const cdch_value *a, const cdch_value *b)
{
    for (size_t j = 0; j < t->ncols; j++)
        if (t->cols[j].primary_key && !cdch_value_equal(&a[j], &b[j]))
            return false;
    return true;
}

static bool same_row(const cdch_sc_table *t, const cdch_value *a, const cdch_value *b)
{
    for (size_t j = 0; j < t->ncols; j++)
        if (!cdch_value_equal(&a[j], &b[j]))
            return false;
    return true;
}

/* "id=1, k='x'" (the primary key, or every column given) */
static const char *key_text(const cdch_sc_table *t, const cdch_value *row, const bool *mask, char *buf, size_t cap)
{
    cdch_buf b = CDCH_BUF_INIT;
    bool pk = has_pk(t) && !mask;
    for (size_t j = 0; j < t->ncols; j++) {
        if (mask ? !mask[j] : (pk ? !t->cols[j].primary_key : false))
            continue;
        if (b.len)
            cdch_put_str(&b, ", ");
        cdch_buf_printf(&b, "%s=", t->cols[j].name);
        cdch_value_to_json(&t->cols[j].def, &row[j], &b);
        if (b.len > cap)
            break;
    }
    snprintf(buf, cap, "%.*s%s", (int)(b.len < cap - 4 ? b.len : cap - 4), b.data ? (const char *)b.data : "",
             b.len < cap - 4 ? "" : "...");
    cdch_buf_free(&b);
    return buf;
}

/* ---- tables and rows ----------------------------------------------------------- */

static const cdch_sc_table *table_ref(sc_ctx *c, yaml_node_t *n)
{
    if (!sc_is_scalar(n) || sc_is_null(n)) {
        sc_fail(c, n, "table: expected db.table, got %s", sc_kind_name(n));
        return NULL;
    }
    const cdch_sc_table *t = cdch_scenario_table(c->s, NULL, sc_text(n));
    if (t)
        return t;
    const char **names = cdch_xcalloc(c->s->ntables + 1, sizeof *names);
    char (*buf)[140] = cdch_xcalloc(c->s->ntables + 1, sizeof *buf);
    for (size_t i = 0; i < c->s->ntables; i++) {
        snprintf(buf[i], sizeof buf[i], "%s.%s", c->s->tables[i].db, c->s->tables[i].name);
        names[i] = buf[i];
    }
    const char *sug = sc_suggest(sc_text(n), names, c->s->ntables);
    if (sug)
        sc_fail(c, n, "unknown table '%s' (did you mean '%s'?)", sc_text(n), sug);
    else if (!strchr(sc_text(n), '.') && c->s->ntables)
        sc_fail(c, n, "unknown table '%s' (name it as db.table)", sc_text(n));
    else
        sc_fail(c, n, "unknown table '%s': it is not in tables:", sc_text(n));
    free(names);
    free(buf);
    return NULL;
}

static int column_index(sc_ctx *c, const cdch_sc_table *t, yaml_node_t *k, size_t *out)
{
    if (!sc_is_scalar(k))
        return sc_fail(c, k, "column names must be plain words, got %s", sc_kind_name(k));
    for (size_t j = 0; j < t->ncols; j++)
        if (strcasecmp(t->cols[j].name, sc_text(k)) == 0) {
            *out = j;
            return 0;
        }
    const char **names = cdch_xcalloc(t->ncols, sizeof *names);
    for (size_t j = 0; j < t->ncols; j++)
        names[j] = t->cols[j].name;
    const char *sug = sc_suggest(sc_text(k), names, t->ncols);
    int r = sug ? sc_fail(c, k, "table %s.%s has no column '%s' (did you mean '%s'?)", t->db, t->name, sc_text(k), sug)
                : sc_fail(c, k, "table %s.%s has no column '%s'", t->db, t->name, sc_text(k));
    free(names);
    return r;
}

static int default_value(sc_ctx *c, const cdch_sc_table *t, size_t j, yaml_node_t *at, cdch_value *out)
{
    const cdch_sc_column *col = &t->cols[j];
    if (col->default_value) {
        *out = *col->default_value;
        return 0;
    }
    cdch_err e;
    if (sc_zero_value(col, c->a, out, &e) < 0)
        return sc_fail_err(c, at, &e, "omitted ");
    return 0;
}

/* Parse a row mapping: given[] marks the columns it names. Values of the
 * others come from base (when not NULL) or the column defaults. *ai_node
 * gets the node of an auto_increment column given as null or 0. */
static int row_map(sc_ctx *c, const cdch_sc_table *t, yaml_node_t *n, const char *what, const cdch_value *base,
                   cdch_value **out, bool **given, bool allow_ai)
{
    if (!sc_is_map(n))
        return sc_fail(c, n, "%s must be a mapping of column: value, got %s", what, sc_kind_name(n));
    cdch_value *row = cdch_arena_alloc(c->a, t->ncols * sizeof *row);
    bool *g = cdch_arena_alloc(c->a, t->ncols * sizeof *g);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = sc_node(c, p->key), *v = sc_node(c, p->value);
        size_t j;
        if (column_index(c, t, k, &j) < 0)
            return -1;
        if (g[j])
            return sc_fail(c, k, "column %s is given twice in %s", t->cols[j].name, what);
        g[j] = true;
        const cdch_sc_column *col = &t->cols[j];
        if (allow_ai && col->auto_increment &&
            (sc_is_null(v) || (sc_is_scalar(v) && sc_plain(v) && strcmp(sc_text(v), "0") == 0))) {
            g[j] = false; /* MySQL generates the value for NULL and 0 */
            continue;
        }
        if (sc_node_value(c, col, v, &row[j]) < 0)
            return -1;
    }
    for (size_t j = 0; j < t->ncols; j++) {
        if (g[j])
            continue;
        if (base)
            row[j] = base[j];
        else if (default_value(c, t, j, n, &row[j]) < 0)
            return -1;
    }
    *out = row;
    if (given)
        *given = g;
    return 0;
}

/* ---- statements ------------------------------------------------------------------ */

static int check_dup_key(sc_ctx *c, const cdch_sc_table *t, sc_tstate *st, const cdch_value *row, size_t skip,
                         yaml_node_t *at)
{
    if (st->unknown || !has_pk(t))
        return 0;
    for (size_t i = 0; i < st->n; i++) {
        if (i == skip || !same_pk(t, st->rows[i], row))
            continue;
        char kb[200];
        return sc_fail(c, at, "duplicate primary key (%s) in %s.%s: the row inserted at line %u has it",
                       key_text(t, row, NULL, kb, sizeof kb), t->db, t->name, st->lines[i]);
    }
    return 0;
}

static void note_key(sc_tstate *st, const cdch_value *row)
{
    if (st->key_col == NO_COL)
        return;
    const cdch_value *v = &row[st->key_col];
    uint64_t k = 0;
    if (v->kind == CDCH_V_UINT)
        k = v->u.u;
    else if (v->kind == CDCH_V_INT && v->u.i > 0)
        k = (uint64_t)v->u.i;
    if (k && k + 1 > st->next_key)
        st->next_key = k + 1;
}

static int insert_row(sc_ctx *c, const cdch_sc_table *t, yaml_node_t *rn, cdch_sc_row *r)
{
    sc_tstate *st = tstate(c, t);
    cdch_value *row;
    bool *g;
    if (row_map(c, t, rn, "an inserted row", NULL, &row, &g, true) < 0)
        return -1;
    for (size_t j = 0; j < t->ncols; j++) {
        const cdch_sc_column *col = &t->cols[j];
        if (!col->auto_increment || g[j])
            continue;
        int64_t min;
        uint64_t max;
        sc_int_range(col, &min, &max);
        if (st->next_key > max)
            return sc_fail(c, rn, "auto_increment column %s has run out of values (%s max is %" PRIu64 ")", col->name,
                           col->sql_type, max);
        row[j].kind = col->def.is_unsigned ? CDCH_V_UINT : CDCH_V_INT;
        row[j].u.u = st->next_key;
    }
    if (check_dup_key(c, t, st, row, NO_COL, rn) < 0)
        return -1;
    note_key(st, row);
    if (!st->unknown)
        state_add(st, row, sc_mark(rn).line);
    r->after = row;
    return 0;
}

/* The current row the `before` mapping names (WHERE semantics). */
static int find_before(sc_ctx *c, const cdch_sc_table *t, yaml_node_t *bn, const char *op, cdch_value **before,
                       size_t *index)
{
    sc_tstate *st = tstate(c, t);
    cdch_value *given;
    bool *g;
    *index = NO_COL;
    if (row_map(c, t, bn, op[0] == 'u' ? "before" : "a deleted row", NULL, &given, &g, false) < 0)
        return -1;
    if (st->unknown) {
        *before = given;
        return 0;
    }
    if (st->n == 0)
        return sc_fail(c, bn, "cannot %s a row of %s.%s: the table has no rows at this point (insert them first)", op,
                       t->db, t->name);
    size_t found = NO_COL, nmatch = 0;
    for (size_t i = 0; i < st->n; i++) {
        bool ok = true;
        for (size_t j = 0; j < t->ncols && ok; j++)
            if (g[j] && !cdch_value_equal(&st->rows[i][j], &given[j]))
                ok = false;
        if (!ok)
            continue;
        if (found != NO_COL && !same_row(t, st->rows[found], st->rows[i])) {
            char kb[200];
            return sc_fail(c, bn, "%s.%s has several rows with %s: give the primary key (or more columns)", t->db,
                           t->name, key_text(t, given, g, kb, sizeof kb));
        }
        if (found == NO_COL)
            found = i;
        nmatch++;
    }
    if (found == NO_COL) {
        char kb[200];
        return sc_fail(c, bn, "no row of %s.%s has %s (%zu rows at this point)", t->db, t->name,
                       key_text(t, given, g, kb, sizeof kb), st->n);
    }
    *before = st->rows[found];
    *index = found;
    return 0;
}

static int json_ops(sc_ctx *c, const cdch_sc_table *t, yaml_node_t *jn, const bool *after_given, cdch_value *after,
                    cdch_sc_row *r)
{
    if (!sc_is_map(jn))
        return sc_fail(c, jn, "json must map JSON columns to lists of operations, got %s", sc_kind_name(jn));
    size_t cnt = (size_t)(jn->data.mapping.pairs.top - jn->data.mapping.pairs.start);
    r->json_updates = cdch_arena_alloc(c->a, (cnt ? cnt : 1) * sizeof *r->json_updates);
    for (yaml_node_pair_t *p = jn->data.mapping.pairs.start; p < jn->data.mapping.pairs.top; p++) {
        yaml_node_t *k = sc_node(c, p->key), *ops = sc_node(c, p->value);
        size_t j;
        if (column_index(c, t, k, &j) < 0)
            return -1;
        const cdch_sc_column *col = &t->cols[j];
        if (col->def.type != CDCH_T_JSON)
            return sc_fail(c, k, "json: column %s is %s, not json", col->name, col->sql_type);
        if (after_given[j])
            return sc_fail(c, k, "json: column %s is also set in after (give one or the other)", col->name);
        for (size_t q = 0; q < r->n_json_updates; q++)
            if (r->json_updates[q].column == j)
                return sc_fail(c, k, "json: column %s is given twice", col->name);
        if (after[j].kind != CDCH_V_JSON)
            return sc_fail(c, k, "json: column %s is NULL before the update; partial updates need a document",
                           col->name);
        if (!sc_is_seq(ops) || ops->data.sequence.items.top == ops->data.sequence.items.start)
            return sc_fail(c, ops, "json: column %s needs a non-empty list of operations", col->name);
        size_t nops = (size_t)(ops->data.sequence.items.top - ops->data.sequence.items.start);
        cdch_sc_json_update *u = &r->json_updates[r->n_json_updates++];
        u->column = j;
        u->diff.count = nops;
        u->diff.ops = cdch_arena_alloc(c->a, nops * sizeof *u->diff.ops);
        cdch_json *doc = after[j].u.json;
        for (size_t i = 0; i < nops; i++) {
            yaml_node_t *on = sc_node(c, ops->data.sequence.items.start[i]);
            static const char *const keys[] = {"op", "path", "value", NULL};
            static const char *const opw[] = {"replace", "insert", "remove", NULL};
            if (sc_check_map(c, on, "a JSON operation", keys) < 0)
                return -1;
            yaml_node_t *opn = sc_need(c, on, "op", "a JSON operation");
            yaml_node_t *pn = opn ? sc_need(c, on, "path", "a JSON operation") : NULL;
            int op;
            if (!pn || sc_word(c, opn, "op", opw, &op) < 0)
                return -1;
            if (!sc_is_scalar(pn) || sc_is_null(pn))
                return sc_fail(c, pn, "path: expected a JSON path like $.a[1], got %s", sc_kind_name(pn));
            yaml_node_t *vn = sc_get(c, on, "value");
            cdch_json *val = NULL;
            if (op == CDCH_JSON_DIFF_REMOVE && vn)
                return sc_fail(c, vn, "a remove operation takes no value");
            if (op != CDCH_JSON_DIFF_REMOVE) {
                if (!vn)
                    return sc_fail(c, on, "a %s operation needs a value", opw[op]);
                if (sc_node_json(c, vn, 0, &val) < 0)
                    return -1;
            }
            cdch_json_diff_op *d = &u->diff.ops[i];
            const char *canon;
            cdch_err e;
            if (cdch_json_path_apply(c->a, doc, op, sc_text(pn), sc_len(pn), val, &doc, &canon, &e) < 0)
                return sc_fail_err(c, pn, &e, "column %s: ", col->name);
            d->op = (uint8_t)op;
            d->path = canon;
            d->path_len = strlen(canon);
            d->value = val;
        }
        after[j].kind = CDCH_V_JSON;
        after[j].u.json = doc;
    }
    return 0;
}

static int update_row(sc_ctx *c, const cdch_sc_table *t, yaml_node_t *rn, cdch_sc_row *r)
{
    static const char *const keys[] = {"before", "after", "json", NULL};
    if (sc_check_map(c, rn, "an updated row", keys) < 0)
        return -1;
    yaml_node_t *bn = sc_get(c, rn, "before"), *an = sc_get(c, rn, "after"), *jn = sc_get(c, rn, "json");
    if (!bn)
        return sc_fail(c, rn, "an updated row needs before: (the columns that pick the row, like a WHERE clause)");
    if (!an && !jn)
        return sc_fail(c, rn, "an updated row needs after: (the changed columns) or json: (partial JSON updates)");
    sc_tstate *st = tstate(c, t);
    cdch_value *before, *after;
    size_t idx;
    if (find_before(c, t, bn, "update", &before, &idx) < 0)
        return -1;
    bool *g = NULL;
    if (an) {
        if (row_map(c, t, an, "after", before, &after, &g, false) < 0)
            return -1;
    } else {
        after = cdch_arena_alloc(c->a, t->ncols * sizeof *after);
        memcpy(after, before, t->ncols * sizeof *after);
        g = cdch_arena_alloc(c->a, t->ncols * sizeof *g);
    }
    if (jn && json_ops(c, t, jn, g, after, r) < 0)
        return -1;
    if (same_row(t, before, after))
        return sc_fail(c, an ? an : jn, "this update leaves the row unchanged, and MySQL logs no row for that");
    if (!same_pk(t, before, after) && check_dup_key(c, t, st, after, idx, an ? an : rn) < 0)
        return -1;
    note_key(st, after);
    if (idx != NO_COL)
        st->rows[idx] = after;
    r->before = before;
    r->after = after;
    return 0;
}

static int delete_row(sc_ctx *c, const cdch_sc_table *t, yaml_node_t *rn, cdch_sc_row *r)
{
    size_t idx;
    if (find_before(c, t, rn, "delete", &r->before, &idx) < 0)
        return -1;
    if (idx != NO_COL)
        state_remove(tstate(c, t), idx);
    return 0;
}

static int load_stmt(sc_ctx *c, yaml_node_t *sn, cdch_sc_op op, cdch_sc_stmt *s)
{
    static const char *const keys[] = {"table", "rows", "rows_query", NULL};
    static const char *const what[] = {"", "an insert", "an update", "a delete"};
    if (sc_check_map(c, sn, what[op], keys) < 0)
        return -1;
    yaml_node_t *tn = sc_need(c, sn, "table", what[op]);
    if (!tn || !(s->table = table_ref(c, tn)))
        return -1;
    yaml_node_t *rows = sc_need(c, sn, "rows", what[op]);
    if (!rows)
        return -1;
    if (!sc_is_seq(rows))
        return sc_fail(c, rows, "rows must be a list of rows, got %s", sc_kind_name(rows));
    size_t n = (size_t)(rows->data.sequence.items.top - rows->data.sequence.items.start);
    if (n == 0)
        return sc_fail(c, rows, "rows is empty: a statement that changes no rows logs nothing");
    yaml_node_t *qn = sc_get(c, sn, "rows_query");
    if (qn) {
        if (!c->s->binlog.rows_query)
            return sc_fail(c, qn, "rows_query text needs binlog.rows_query: true");
        if (sc_str(c, qn, "rows_query", &s->rows_query) < 0)
            return -1;
    }
    s->op = op;
    s->mark = sc_mark(sn);
    s->nrows = n;
    s->rows = cdch_arena_alloc(c->a, n * sizeof *s->rows);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *rn = sc_node(c, rows->data.sequence.items.start[i]);
        cdch_sc_row *r = &s->rows[i];
        r->mark = sc_mark(rn);
        int rc = op == CDCH_SC_INSERT ? insert_row(c, s->table, rn, r)
                 : op == CDCH_SC_UPDATE ? update_row(c, s->table, rn, r)
                                        : delete_row(c, s->table, rn, r);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* ---- items -------------------------------------------------------------------------- */

static const char *const k_item_keys[] = {"insert", "update",      "delete", "transaction",
                                          "ddl",    "empty",       "compression", "bulk", "gtid_next", NULL};
static const char *const k_stmt_keys[] = {"insert", "update", "delete", NULL};

/* The single key of an item mapping; its index in words. */
static int single_key(sc_ctx *c, yaml_node_t *n, const char *what, const char *const *words, int *w,
                      yaml_node_t **val)
{
    if (!sc_is_map(n))
        return sc_fail(c, n, "%s must be a mapping with one key (%s, ...), got %s", what, words[0],
                       sc_kind_name(n));
    if (sc_check_map(c, n, what, words) < 0)
        return -1;
    size_t cnt = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (cnt != 1)
        return sc_fail(c, n, "%s has %zu keys; it must have exactly one (one item per list entry)", what, cnt);
    yaml_node_t *k = sc_node(c, n->data.mapping.pairs.start->key);
    for (int i = 0; words[i]; i++)
        if (strcmp(words[i], sc_text(k)) == 0)
            *w = i;
    *val = sc_node(c, n->data.mapping.pairs.start->value);
    return 0;
}

static int load_dml(sc_ctx *c, yaml_node_t *item, int w, yaml_node_t *val, cdch_sc_txn *txn)
{
    txn->kind = CDCH_SC_TXN_DML;
    txn->mark = sc_mark(item);
    if (w < 3) {
        txn->nstmts = 1;
        txn->stmts = cdch_arena_alloc(c->a, sizeof *txn->stmts);
        return load_stmt(c, val, (cdch_sc_op)(w + 1), &txn->stmts[0]);
    }
    if (!sc_is_seq(val))
        return sc_fail(c, val, "transaction must be a list of insert/update/delete statements, got %s",
                       sc_kind_name(val));
    size_t n = (size_t)(val->data.sequence.items.top - val->data.sequence.items.start);
    if (n == 0)
        return sc_fail(c, val, "transaction is empty (for BEGIN; COMMIT use `empty: true`)");
    txn->nstmts = n;
    txn->stmts = cdch_arena_alloc(c->a, n * sizeof *txn->stmts);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *sn = sc_node(c, val->data.sequence.items.start[i]), *sv;
        int sw;
        if (single_key(c, sn, "a statement of a transaction", k_stmt_keys, &sw, &sv) < 0 ||
            load_stmt(c, sv, (cdch_sc_op)(sw + 1), &txn->stmts[i]) < 0)
            return -1;
        const cdch_sc_table *a = txn->stmts[0].table, *b = txn->stmts[i].table;
        if (a->transactional != b->transactional)
            return sc_fail(c, sn,
                           "this transaction mixes %s table %s.%s and %s table %s.%s: MySQL logs changes to "
                           "non-transactional tables as their own transactions; split it",
                           a->engine, a->db, a->name, b->engine, b->db, b->name);
    }
    return 0;
}

static int load_bulk(sc_ctx *c, yaml_node_t *n, cdch_sc_bulk *b)
{
    static const char *const keys[] = {"generator",   "table",       "seed",  "transactions", "rows_per_transaction",
                                       "target_bytes", "doc_keys",   "value_bytes", "keys", "rows", "first_id", NULL};
    static const char *const gens[] = {"json_staging", "random_keys", "inserts", NULL};
    if (sc_check_map(c, n, "a bulk item", keys) < 0)
        return -1;
    yaml_node_t *gn = sc_need(c, n, "generator", "a bulk item");
    int g;
    if (!gn || sc_word(c, gn, "generator", gens, &g) < 0)
        return -1;
    b->kind = (cdch_bulk_kind)(g + 1);
    b->mark = sc_mark(n);
    yaml_node_t *tn = sc_need(c, n, "table", "a bulk item");
    if (!tn || !(b->table = table_ref(c, tn)))
        return -1;
    const cdch_sc_table *t = b->table;
    sc_tstate *st = tstate(c, t);
    yaml_node_t *v;
    b->rows_per_txn = 1;
    b->doc_keys = 20;
    b->value_bytes = 16;
    uint64_t u;
    if ((v = sc_get(c, n, "seed")) && sc_u64(c, v, "seed", 0, UINT64_MAX, &b->seed) < 0)
        return -1;
    if ((v = sc_get(c, n, "transactions")) && sc_u64(c, v, "transactions", 1, 1000000000000ULL, &b->transactions) < 0)
        return -1;
    if ((v = sc_get(c, n, "rows_per_transaction")) &&
        sc_u64(c, v, "rows_per_transaction", 1, 1000000, &b->rows_per_txn) < 0)
        return -1;
    if ((v = sc_get(c, n, "target_bytes")) && sc_size(c, v, "target_bytes", 1, 1ULL << 40, &b->target_bytes) < 0)
        return -1;
    if (!b->transactions && !b->target_bytes)
        return sc_fail(c, n, "a bulk item needs transactions: or target_bytes: (or both: whichever comes first)");
    if ((v = sc_get(c, n, "value_bytes"))) {
        if (sc_size(c, v, "value_bytes", 1, 1 << 20, &u) < 0)
            return -1;
        b->value_bytes = (uint32_t)u;
    }
    /* generator-specific keys */
    static const char *const only[][2] = {{"doc_keys", "json_staging"}, {"rows", "json_staging"},
                                         {"keys", "random_keys"},       {"first_id", "inserts"}};
    for (size_t i = 0; i < 4; i++)
        if ((v = sc_get(c, n, only[i][0])) && strcmp(only[i][1], gens[g]) != 0)
            return sc_fail(c, v, "%s only applies to generator %s", only[i][0], only[i][1]);
    if ((v = sc_get(c, n, "doc_keys"))) {
        if (sc_u64(c, v, "doc_keys", 1, 10000, &u) < 0)
            return -1;
        b->doc_keys = (uint32_t)u;
    }
    int64_t kmin;
    uint64_t kmax = 0;
    if (st->key_col != NO_COL)
        sc_int_range(&t->cols[st->key_col], &kmin, &kmax);
    if (b->kind == CDCH_BULK_JSON_STAGING || b->kind == CDCH_BULK_RANDOM_KEYS) {
        bool staging = b->kind == CDCH_BULK_JSON_STAGING;
        if (st->key_col == NO_COL)
            return sc_fail(c, tn, "generator %s needs a table with a single-column integer primary key; %s.%s has %s",
                           gens[g], t->db, t->name, has_pk(t) ? "a different primary key" : "no primary key");
        bool json = false;
        for (size_t j = 0; j < t->ncols; j++)
            json = json || t->cols[j].def.type == CDCH_T_JSON;
        if (staging && !json)
            return sc_fail(c, tn, "generator json_staging needs a json column; %s.%s has none", t->db, t->name);
        if (!staging && t->ncols < 2)
            return sc_fail(c, tn, "generator random_keys needs a column besides the primary key to update");
        const char *kname = staging ? "rows" : "keys";
        b->keys = staging ? b->rows_per_txn : 10000;
        if ((v = sc_get(c, n, kname)) && sc_u64(c, v, kname, 1, staging ? 100000000 : 10000000, &b->keys) < 0)
            return -1;
        if (b->keys > kmax)
            return sc_fail(c, v ? v : n, "%s: %" PRIu64 " ids do not fit the primary key %s (%s, at most %" PRIu64 ")",
                           kname, b->keys, t->cols[st->key_col].name, t->cols[st->key_col].sql_type, kmax);
    } else {
        b->first_id = st->next_key;
        if ((v = sc_get(c, n, "first_id")) && sc_u64(c, v, "first_id", 1, UINT64_MAX, &b->first_id) < 0)
            return -1;
        if (st->key_col != NO_COL && b->first_id > kmax)
            return sc_fail(c, v ? v : n, "first_id %" PRIu64 " is past the primary key %s's range (%s, at most %" PRIu64 ")",
                           b->first_id, t->cols[st->key_col].name, t->cols[st->key_col].sql_type, kmax);
        if (st->key_col != NO_COL && b->transactions) {
            uint64_t total = b->transactions * b->rows_per_txn;
            if (b->transactions > UINT64_MAX / b->rows_per_txn || total - 1 > kmax - b->first_id)
                return sc_fail(c, n, "%" PRIu64 " rows from id %" PRIu64 " do not fit the primary key %s (%s)", total,
                               b->first_id, t->cols[st->key_col].name, t->cols[st->key_col].sql_type);
        }
        if (st->key_col != NO_COL && b->transactions)
            st->next_key = b->first_id + b->transactions * b->rows_per_txn;
    }
    st->unknown = true;
    st->n = 0;
    return 0;
}

/* gtid_next: AUTOMATIC (untagged GTIDs) or AUTOMATIC:tag (MySQL 8.3+: SET gtid_next='AUTOMATIC:tag',
 * the tagged GTIDs of WL#15294). A tag is 1..32 characters [a-z_][a-z0-9_]*, stored lower case as
 * MySQL does (mysql::gtid::Tag). Needs gtid_mode on and a server 8.3.0 or newer. */
static int load_gtid_next(sc_ctx *c, yaml_node_t *item, yaml_node_t *val, yaml_node_t *prev, const char **tag)
{
    const char *text;
    if (prev)
        return sc_fail(c, item, "two gtid_next switches in a row (the one at line %u has no transaction)",
                       sc_mark(prev).line);
    if (sc_str(c, val, "gtid_next", &text) < 0)
        return -1;
    if (!c->s->server.gtid_mode)
        return sc_fail(c, val, "gtid_next needs server.gtid_mode: on (ANONYMOUS transactions carry no GTID)");
    if (c->version < 80300)
        return sc_fail(c, val, "gtid_next '%s': tagged GTIDs need server.version 8.3.0 or later (this is %s)", text,
                       c->s->server.version);
    if (strncasecmp(text, "AUTOMATIC", 9) != 0 || (text[9] && text[9] != ':'))
        return sc_fail(c, val, "gtid_next must be AUTOMATIC or AUTOMATIC:<tag> (as SET gtid_next takes them), got '%s'",
                       text);
    if (!text[9]) {
        *tag = "";
        return 0;
    }
    const char *t = text + 10;
    size_t len = strlen(t);
    bool ok = len >= 1 && len <= CDCH_GTID_TAG_MAX;
    char *low = cdch_arena_alloc(c->a, len + 1);
    for (size_t i = 0; ok && i < len; i++) {
        char ch = t[i];
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch + 32);
        ok = ch == '_' || (ch >= 'a' && ch <= 'z') || (i > 0 && ch >= '0' && ch <= '9');
        low[i] = ch;
    }
    if (!ok)
        return sc_fail(c, val,
                       "gtid_next tag '%s' is not a GTID tag: 1..32 characters, a letter or '_' then letters, digits "
                       "or '_'",
                       t);
    low[len] = 0;
    *tag = low;
    return 0;
}

int sc_load_items(sc_ctx *c, yaml_node_t *list)
{
    if (!sc_is_seq(list))
        return sc_fail(c, list, "transactions must be a list, got %s", sc_kind_name(list));
    if (state_init(c) < 0)
        return -1;
    cdch_scenario *s = c->s;
    size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
    s->items = cdch_arena_alloc(c->a, (n ? n : 1) * sizeof *s->items);
    cdch_sc_compress pending = CDCH_SC_COMPRESS_DEFAULT;
    yaml_node_t *pending_node = NULL;
    const char *pending_tag = NULL;
    yaml_node_t *tag_node = NULL;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *item = sc_node(c, list->data.sequence.items.start[i]), *val;
        int w = -1;
        if (single_key(c, item, "a transactions item", k_item_keys, &w, &val) < 0)
            return -1;
        if (w == 8) { /* gtid_next: AUTOMATIC | AUTOMATIC:tag */
            if (load_gtid_next(c, item, val, tag_node, &pending_tag) < 0)
                return -1;
            tag_node = item;
            continue;
        }
        if (w == 6) { /* compression: on|off */
            static const char *const ws[] = {"on", "off", NULL};
            int onoff;
            if (s->binlog.compression != CDCH_COMPRESSION_FLIP)
                return sc_fail(c, item,
                               "a compression switch needs binlog.compression: flip (with both/on/off the harness "
                               "builds whole streams in one mode)");
            if (pending_node)
                return sc_fail(c, item, "two compression switches in a row (the one at line %u has no transaction)",
                               sc_mark(pending_node).line);
            if (sc_word(c, val, "compression", ws, &onoff) < 0)
                return -1;
            pending = onoff == 0 ? CDCH_SC_COMPRESS_ON : CDCH_SC_COMPRESS_OFF;
            pending_node = item;
            continue;
        }
        cdch_sc_item *it = &s->items[s->nitems];
        if (w == 7) {
            if (tag_node)
                return sc_fail(c, tag_node, "a gtid_next switch must be followed by a transaction, not a bulk "
                                            "generator (bulk transactions keep the current GTID form)");
            it->kind = CDCH_SC_ITEM_BULK;
            if (load_bulk(c, val, &it->u.bulk) < 0)
                return -1;
            it->u.bulk.compress = pending;
        } else {
            cdch_sc_txn *txn = &it->u.txn;
            it->kind = CDCH_SC_ITEM_TXN;
            txn->mark = sc_mark(item);
            if (w <= 3) {
                if (load_dml(c, item, w, val, txn) < 0)
                    return -1;
            } else if (w == 4) {
                static const char *const keys[] = {"db", "sql", NULL};
                if (sc_check_map(c, val, "ddl", keys) < 0)
                    return -1;
                yaml_node_t *sq = sc_need(c, val, "sql", "ddl"), *db = sc_get(c, val, "db");
                txn->kind = CDCH_SC_TXN_DDL;
                txn->ddl_db = "";
                if (!sq || sc_str(c, sq, "ddl.sql", &txn->ddl_sql) < 0)
                    return -1;
                if (db && sc_str(c, db, "ddl.db", &txn->ddl_db) < 0)
                    return -1;
            } else {
                bool b;
                if (sc_bool(c, val, "empty", &b) < 0)
                    return -1;
                if (!b)
                    return sc_fail(c, val, "empty: false means nothing; use empty: true for BEGIN; COMMIT");
                txn->kind = CDCH_SC_TXN_EMPTY;
            }
            txn->compress = pending;
            txn->gtid_tag = pending_tag;
        }
        s->nitems++;
        pending = CDCH_SC_COMPRESS_DEFAULT;
        pending_node = NULL;
        pending_tag = NULL;
        tag_node = NULL;
    }
    if (pending_node)
        return sc_fail(c, pending_node, "a compression switch must be followed by a transaction");
    if (tag_node)
        return sc_fail(c, tag_node, "a gtid_next switch must be followed by a transaction");
    return 0;
}
