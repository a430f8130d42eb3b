/* ddltrack.c — table definitions followed through a stream's DDL. See
 * ddltrack.h; the statements are read by capture.c (sc_ddl_parse). */
#include "ddltrack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scenario_internal.h"
#include "xalloc.h"

typedef enum tr_state {
    TR_DEFINED = 1, /* the stream defined it: def */
    TR_UNKNOWN,     /* it exists, but changed in a way not followed */
    TR_DROPPED,     /* it does not exist (dropped, renamed away, its database dropped) */
} tr_state;

/* A table the stream's DDL named. Tables it never named are the start scenario's. */
typedef struct tr_table {
    const char *db, *name; /* arena */
    tr_state state;
    const cdch_sc_table *def; /* TR_DEFINED */
} tr_table;

struct cdch_ddl_tracker {
    const cdch_scenario *start;
    cdch_arena arena;        /* definitions, names */
    tr_table *tables;        /* malloc'd */
    size_t n, cap;
    cdch_sc_database *dbs;   /* malloc'd; names and charsets in the arena or start's */
    size_t ndbs, capdbs;
    size_t forgotten;
    char reason[CDCH_ERR_MSG_MAX];
};

cdch_ddl_tracker *cdch_ddl_tracker_new(const cdch_scenario *start)
{
    cdch_ddl_tracker *t = cdch_xcalloc(1, sizeof *t);
    t->start = start;
    if (start && start->ndbs) {
        t->ndbs = t->capdbs = start->ndbs;
        t->dbs = cdch_xcalloc(t->capdbs, sizeof *t->dbs);
        memcpy(t->dbs, start->dbs, start->ndbs * sizeof *t->dbs);
    }
    return t;
}

void cdch_ddl_tracker_free(cdch_ddl_tracker *t)
{
    if (!t)
        return;
    free(t->tables);
    free(t->dbs);
    cdch_arena_free(&t->arena);
    free(t);
}

size_t cdch_ddl_tracker_forgotten(const cdch_ddl_tracker *t, const char **last_reason)
{
    if (last_reason)
        *last_reason = t->reason;
    return t->forgotten;
}

/* ---- tables and databases ----------------------------------------------------------- */

static tr_table *find(const cdch_ddl_tracker *t, const char *db, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->tables[i].name, name) == 0 && strcmp(t->tables[i].db, db) == 0)
            return &t->tables[i];
    return NULL;
}

/* Set what db.name is now. */
static void set(cdch_ddl_tracker *t, const char *db, const char *name, tr_state state, const cdch_sc_table *def)
{
    tr_table *e = find(t, db, name);
    if (!e) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 16;
            t->tables = cdch_xrealloc(t->tables, t->cap * sizeof *t->tables);
        }
        e = &t->tables[t->n++];
        e->db = cdch_arena_strdup(&t->arena, db);
        e->name = cdch_arena_strdup(&t->arena, name);
    }
    e->state = state;
    e->def = state == TR_DEFINED ? def : NULL;
}

static const cdch_sc_table *start_table(const cdch_ddl_tracker *t, const char *db, const char *name)
{
    return t->start ? cdch_scenario_table(t->start, db, name) : NULL;
}

static bool exists(const cdch_ddl_tracker *t, const char *db, const char *name)
{
    const tr_table *e = find(t, db, name);
    return e ? e->state != TR_DROPPED : start_table(t, db, name) != NULL;
}

/* A copy of db.name's definition named to_db.to (arena) to change, NULL when it is not known. */
static cdch_sc_table *copy_def(cdch_ddl_tracker *t, const char *db, const char *name, const char *to_db,
                               const char *to)
{
    const tr_table *e = find(t, db, name);
    const cdch_sc_table *src = e ? e->def : start_table(t, db, name);
    if (!src)
        return NULL;
    cdch_sc_table *c = cdch_arena_alloc(&t->arena, sizeof *c);
    *c = *src;
    c->db = cdch_arena_strdup(&t->arena, to_db);
    c->name = cdch_arena_strdup(&t->arena, to);
    c->create_sql = NULL;
    if (!c->charset) { /* a `tables:` table: what its generated CREATE TABLE declares */
        c->charset = "utf8mb4";
        c->collation = "utf8mb4_0900_ai_ci";
    }
    c->cols = cdch_arena_alloc(&t->arena, (src->ncols ? src->ncols : 1) * sizeof *c->cols);
    memcpy(c->cols, src->cols, src->ncols * sizeof *c->cols);
    return c;
}

static cdch_sc_database *find_db(cdch_ddl_tracker *t, const char *name) { return sc_find_db(t->dbs, t->ndbs, name); }

static void set_db(cdch_ddl_tracker *t, const char *name, const char *cs, const char *coll)
{
    cdch_sc_database *d = find_db(t, name);
    if (!d) {
        if (t->ndbs == t->capdbs) {
            t->capdbs = t->capdbs ? t->capdbs * 2 : 8;
            t->dbs = cdch_xrealloc(t->dbs, t->capdbs * sizeof *t->dbs);
        }
        d = &t->dbs[t->ndbs++];
        d->name = cdch_arena_strdup(&t->arena, name);
        d->charset = "utf8mb4";
        d->collation = "utf8mb4_0900_ai_ci";
    }
    if (cs) {
        d->charset = cs;
        d->collation = coll ? coll : cdch_default_collation(cs);
    }
}

/* DROP DATABASE: its tables are gone, the start scenario's too. */
static void drop_db(cdch_ddl_tracker *t, const char *name)
{
    cdch_sc_database *d = find_db(t, name);
    if (d) {
        *d = t->dbs[t->ndbs - 1];
        t->ndbs--;
    }
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->tables[i].db, name) == 0) {
            t->tables[i].state = TR_DROPPED;
            t->tables[i].def = NULL;
        }
    for (size_t i = 0; t->start && i < t->start->ntables; i++) {
        const cdch_sc_table *st = &t->start->tables[i];
        if (strcmp(st->db, name) == 0 && !find(t, st->db, st->name))
            set(t, st->db, st->name, TR_DROPPED, NULL);
    }
}

/* ---- ALTER TABLE ---------------------------------------------------------------------- */

static long column(const cdch_sc_table *tb, const char *name)
{
    for (size_t i = 0; i < tb->ncols; i++)
        if (strcasecmp(tb->cols[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* Put col at the position an ADD/CHANGE asks for (keep: where a CHANGE found it; -1 for ADD). */
static int place(cdch_ddl_tracker *t, cdch_sc_table *tb, const cdch_sc_column *col, const sc_alter *a, long keep,
                 cdch_err *err)
{
    size_t at = keep < 0 ? tb->ncols : (size_t)keep;
    if (a->pos == SC_POS_FIRST) {
        at = 0;
    } else if (a->pos == SC_POS_AFTER) {
        long k = column(tb, a->after);
        if (k < 0)
            return cdch_err_set(err, "AFTER %s: table %s.%s has no such column", a->after, tb->db, tb->name);
        at = (size_t)k + 1;
    }
    cdch_sc_column *cols = cdch_arena_alloc(&t->arena, (tb->ncols + 1) * sizeof *cols);
    memcpy(cols, tb->cols, at * sizeof *cols);
    cols[at] = *col;
    memcpy(cols + at + 1, tb->cols + at, (tb->ncols - at) * sizeof *cols);
    tb->cols = cols;
    tb->ncols++;
    return 0;
}

static void remove_col(cdch_sc_table *tb, size_t k)
{
    memmove(tb->cols + k, tb->cols + k + 1, (tb->ncols - k - 1) * sizeof *tb->cols);
    tb->ncols--;
}

/* A column of tb by name, or an error. */
static long need_column(const cdch_sc_table *tb, const char *name, cdch_err *err)
{
    long k = column(tb, name);
    if (k < 0)
        cdch_err_set(err, "table %s.%s has no column %s", tb->db, tb->name, name);
    return k;
}

/* One ALTER TABLE item on tb: a copy the tracker owns, columns included (copy_def). */
static int alter_one(cdch_ddl_tracker *t, cdch_sc_table *tb, const sc_alter *a, cdch_err *err)
{
    cdch_sc_column col;
    long k;
    switch (a->kind) {
    case SC_ALTER_ADD:
        if (column(tb, a->def.name) >= 0)
            return cdch_err_set(err, "ADD %s: table %s.%s already has it", a->def.name, tb->db, tb->name);
        if (sc_coldef_resolve(&a->def, tb->charset, tb->collation, &t->arena, &col, err) < 0)
            return cdch_err_wrap(err, "column %s: ", a->def.name);
        return place(t, tb, &col, a, -1, err);
    case SC_ALTER_DROP:
        if ((k = need_column(tb, a->column, err)) < 0)
            return -1;
        remove_col(tb, (size_t)k);
        return 0;
    case SC_ALTER_CHANGE: {
        if ((k = need_column(tb, a->column, err)) < 0)
            return -1;
        long other = column(tb, a->def.name);
        if (other >= 0 && other != k)
            return cdch_err_set(err, "CHANGE %s %s: table %s.%s already has %s", a->column, a->def.name, tb->db,
                                tb->name, a->def.name);
        if (sc_coldef_resolve(&a->def, tb->charset, tb->collation, &t->arena, &col, err) < 0)
            return cdch_err_wrap(err, "column %s: ", a->def.name);
        if (tb->cols[k].primary_key) { /* the key is the table's, not the definition's */
            col.primary_key = true;
            col.def.nullable = false;
        }
        remove_col(tb, (size_t)k);
        return place(t, tb, &col, a, a->pos == SC_POS_DEFAULT ? k : -1, err);
    }
    default:
        break;
    }
    /* the items below change one column in place, or the table itself */
    if (a->column) {
        if ((k = need_column(tb, a->column, err)) < 0)
            return -1;
        cdch_sc_column *c = &tb->cols[k];
        switch (a->kind) {
        case SC_ALTER_RENAME_COLUMN: {
            long other = column(tb, a->def.name);
            if (other >= 0 && other != k)
                return cdch_err_set(err, "RENAME COLUMN %s TO %s: table %s.%s already has %s", a->column, a->def.name,
                                    tb->db, tb->name, a->def.name);
            c->name = cdch_arena_strdup(&t->arena, a->def.name);
            c->def.name = c->name;
            break;
        }
        case SC_ALTER_DEFAULT:
            c->default_sql = a->def.default_sql;
            c->default_value = NULL;
            break;
        case SC_ALTER_VISIBILITY:
            c->invisible = a->def.invisible;
            break;
        case SC_ALTER_PK_ADD:
            c->primary_key = true;
            c->def.nullable = false;
            break;
        default:
            break;
        }
        return 0;
    }
    switch (a->kind) {
    case SC_ALTER_PK_DROP:
        for (size_t i = 0; i < tb->ncols; i++)
            tb->cols[i].primary_key = false;
        break;
    case SC_ALTER_CHARSET:
        tb->charset = a->charset;
        tb->collation = a->collation;
        break;
    case SC_ALTER_ENGINE:
        tb->engine = strcasecmp(a->engine, "InnoDB") == 0 ? "InnoDB" : a->engine;
        tb->transactional = strcmp(tb->engine, "InnoDB") == 0;
        break;
    default:
        break;
    }
    return 0;
}

/* ALTER TABLE names[0] alters[]: the new definition, or the table forgotten (and a
 * RENAME in it still followed). */
static void alter_table(cdch_ddl_tracker *t, const sc_ddl *d, cdch_err *err)
{
    const sc_name *n = &d->names[0];
    const char *db = n->db, *name = n->name;
    for (size_t i = 0; i < d->nalters; i++)
        if (d->alters[i].kind == SC_ALTER_RENAME) {
            db = d->alters[i].to.db ? d->alters[i].to.db : db;
            name = d->alters[i].to.name;
        }
    if (!db) /* RENAME TO an unqualified name without a current database */
        db = n->db;
    cdch_sc_table *tb = copy_def(t, n->db, n->name, db, name);
    int rc = tb ? 0 : -1;
    if (!tb)
        cdch_err_set(err, "ALTER TABLE %s.%s: its definition is not known", n->db, n->name);
    for (size_t i = 0; rc == 0 && i < d->nalters; i++)
        rc = alter_one(t, tb, &d->alters[i], err);
    if (strcmp(db, n->db) != 0 || strcmp(name, n->name) != 0)
        set(t, n->db, n->name, TR_DROPPED, NULL);
    set(t, db, name, rc == 0 ? TR_DEFINED : TR_UNKNOWN, rc == 0 ? tb : NULL);
    if (rc != 0 && tb) { /* a known definition forgotten */
        t->forgotten++;
        snprintf(t->reason, sizeof t->reason, "%s", err->msg);
    }
}

/* ---- statements ------------------------------------------------------------------------ */

void cdch_ddl_tracker_query(cdch_ddl_tracker *t, const char *db, size_t dblen, const char *sql, size_t len)
{
    char dbz[256];
    snprintf(dbz, sizeof dbz, "%.*s", (int)dblen, db ? db : "");
    sc_ddl d;
    cdch_err err;
    cdch_err_clear(&err);
    sc_ddl_parse(sql, len, dbz, t->dbs, t->ndbs, &t->arena, &d, &err);
    const sc_name *n = d.names;
    switch (d.kind) {
    case SC_DDL_NONE:
        return;
    case SC_DDL_CREATE_DB:
        if (!(d.if_not_exists && find_db(t, n[0].db)))
            set_db(t, n[0].db, d.charset ? d.charset : "utf8mb4", d.collation);
        return;
    case SC_DDL_ALTER_DB:
        set_db(t, n[0].db, d.charset, d.collation);
        return;
    case SC_DDL_DROP_DB:
        drop_db(t, n[0].db);
        return;
    default:
        break;
    }
    for (size_t i = 0; i < d.nnames; i++)
        if (!n[i].db || !n[i].name) { /* an unqualified name and no current database: it failed on the primary */
            if (d.kind != SC_DDL_NOT_UNDERSTOOD)
                return;
            d.nnames = i;
        }
    switch (d.kind) {
    case SC_DDL_CREATE_TABLE: {
        if (d.if_not_exists && exists(t, n[0].db, n[0].name))
            return;
        cdch_sc_table *tb = cdch_arena_alloc(&t->arena, sizeof *tb);
        *tb = d.table;
        set(t, n[0].db, n[0].name, TR_DEFINED, tb);
        return;
    }
    case SC_DDL_CREATE_LIKE: {
        if (d.if_not_exists && exists(t, n[0].db, n[0].name))
            return;
        const cdch_sc_table *tb = copy_def(t, n[1].db, n[1].name, n[0].db, n[0].name);
        set(t, n[0].db, n[0].name, tb ? TR_DEFINED : TR_UNKNOWN, tb);
        return;
    }
    case SC_DDL_RENAME:
        for (size_t i = 0; i + 1 < d.nnames; i += 2) {
            const cdch_sc_table *tb = copy_def(t, n[i].db, n[i].name, n[i + 1].db, n[i + 1].name);
            set(t, n[i].db, n[i].name, TR_DROPPED, NULL);
            set(t, n[i + 1].db, n[i + 1].name, tb ? TR_DEFINED : TR_UNKNOWN, tb);
        }
        return;
    case SC_DDL_DROP_TABLE:
        for (size_t i = 0; i < d.nnames; i++)
            set(t, n[i].db, n[i].name, TR_DROPPED, NULL);
        return;
    case SC_DDL_ALTER_TABLE:
        alter_table(t, &d, &err);
        return;
    case SC_DDL_NOT_UNDERSTOOD:
        /* CREATE TABLE IF NOT EXISTS of a table that exists changes nothing, whatever it says */
        if (d.nnames && d.if_not_exists && exists(t, n[0].db, n[0].name))
            return;
        for (size_t i = 0; i < d.nnames; i++)
            set(t, n[i].db, n[i].name, TR_UNKNOWN, NULL);
        if (d.nnames) {
            t->forgotten++;
            snprintf(t->reason, sizeof t->reason, "%s", err.msg);
        }
        return;
    default:
        return;
    }
}

const cdch_sc_table *cdch_ddl_tracker_table(const cdch_ddl_tracker *t, const char *db, const char *name)
{
    const tr_table *e = t && db && name ? find(t, db, name) : NULL;
    return e ? e->def : NULL;
}
