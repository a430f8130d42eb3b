/* canon.c — the reference consumer: decoded events -> canonical change
 * events. See canon.h. */
#include "canon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddltrack.h"
#include "jsonstr.h"

struct cdch_canon {
    const cdch_scenario *schema;
    cdch_ddl_tracker *ddl;  /* the tables as the stream's DDL defines them */
    char gtid[128];       /* "uuid:gno" or "" for anonymous */
    uint64_t txn;
    bool in_txn;
    bool compressed;
    cdch_buf pending;     /* line prefixes of the open transaction */
    size_t *ends;
    size_t n, cap;
    cdch_arena arena;     /* JSON documents built when applying diffs */
};

cdch_canon *cdch_canon_new(const cdch_scenario *schema)
{
    cdch_canon *c = calloc(1, sizeof *c);
    if (c) {
        c->schema = schema;
        c->ddl = cdch_ddl_tracker_new(schema);
    }
    return c;
}

void cdch_canon_free(cdch_canon *c)
{
    if (!c)
        return;
    cdch_ddl_tracker_free(c->ddl);
    cdch_buf_free(&c->pending);
    free(c->ends);
    cdch_arena_free(&c->arena);
    free(c);
}

/* The table's definition: the stream's DDL's (newest), else the scenario's; NULL (TABLE_MAP
 * metadata, "@N") when neither is known or its column count is not the TABLE_MAP's. */
static const cdch_sc_table *schema_table(const cdch_canon *c, const cdch_table_map *tm)
{
    char db[256], t[256];
    snprintf(db, sizeof db, "%.*s", (int)tm->db.len, (const char *)tm->db.ptr);
    snprintf(t, sizeof t, "%.*s", (int)tm->table.len, (const char *)tm->table.ptr);
    const cdch_sc_table *st = cdch_ddl_tracker_table(c->ddl, db, t);
    if (!st && c->schema)
        st = cdch_scenario_table(c->schema, db, t);
    return st && st->ncols == tm->ncols ? st : NULL;
}

static const cdch_coldef *coldef(const cdch_table_map *tm, const cdch_sc_table *st, size_t i)
{
    return st ? &st->cols[i].def : &tm->cols[i];
}

static void col_name(const cdch_table_map *tm, const cdch_sc_table *st, size_t i, cdch_buf *out)
{
    const char *name = st ? st->cols[i].name : tm->cols[i].name;
    if (name) {
        cdch_put_json_str(out, name, strlen(name), 0);
    } else {
        char at[32];
        int n = snprintf(at, sizeof at, "@%zu", i + 1);
        cdch_put_json_str(out, at, (size_t)n, 0);
    }
}

static int image(cdch_canon *c, const cdch_rows *r, const cdch_sc_table *st, const cdch_value *vals,
                 const cdch_value *before, cdch_buf *out, cdch_err *err)
{
    const cdch_table_map *tm = r->tm;
    cdch_put_u8(out, '{');
    bool first = true;
    for (size_t i = 0; i < r->ncols; i++) {
        const cdch_value *v = &vals[i];
        if (v->kind == CDCH_V_ABSENT)
            continue;
        if (!first)
            cdch_put_u8(out, ',');
        first = false;
        col_name(tm, st, i, out);
        cdch_put_u8(out, ':');
        if (v->kind == CDCH_V_JSON_DIFF && before && before[i].kind == CDCH_V_JSON) {
            /* a partial JSON update: apply it to the before image's document */
            cdch_json *doc = NULL;
            if (cdch_json_diff_apply(&c->arena, before[i].u.json, &v->u.diff, &doc, err) != 0)
                return cdch_err_wrap(err, "applying the partial JSON update of column %zu", i + 1);
            cdch_value full = {.kind = CDCH_V_JSON};
            full.u.json = doc;
            cdch_value_to_json(coldef(tm, st, i), &full, out);
            continue;
        }
        cdch_value_to_json(coldef(tm, st, i), v, out);
    }
    cdch_put_u8(out, '}');
    return 0;
}

static int rows(cdch_canon *c, uint8_t type, const cdch_rows *r, cdch_err *err)
{
    const cdch_table_map *tm = r->tm;
    const cdch_sc_table *st = schema_table(c, tm);
    const char *op = type == CDCH_EV_WRITE_ROWS ? "insert" : type == CDCH_EV_DELETE_ROWS ? "delete" : "update";
    for (size_t k = 0; k < r->nrows; k++) {
        const cdch_row *row = &r->rows[k];
        cdch_buf *o = &c->pending;
        cdch_buf_printf(o, "{\"op\":\"%s\",\"db\":", op);
        cdch_put_json_str(o, tm->db.ptr, tm->db.len, 0);
        cdch_put_str(o, ",\"table\":");
        cdch_put_json_str(o, tm->table.ptr, tm->table.len, 0);
        cdch_put_str(o, ",\"before\":");
        if (row->before) {
            if (image(c, r, st, row->before, NULL, o, err) != 0)
                return -1;
        } else {
            cdch_put_str(o, "null");
        }
        cdch_put_str(o, ",\"after\":");
        if (row->after) {
            if (image(c, r, st, row->after, row->before, o, err) != 0)
                return -1;
        } else {
            cdch_put_str(o, "null");
        }
        if (c->n == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 64;
            size_t *e = realloc(c->ends, c->cap * sizeof *e);
            if (!e)
                abort();
            c->ends = e;
        }
        c->ends[c->n++] = o->len;
    }
    return 0;
}

static void end_txn(cdch_canon *c, const char *file, uint64_t pos, cdch_buf *out)
{
    char tail[512];
    char gtid[160];
    if (c->gtid[0])
        snprintf(gtid, sizeof gtid, "\"%s\"", c->gtid);
    else
        strcpy(gtid, "null");
    int n = snprintf(tail, sizeof tail, ",\"gtid\":%s,\"pos\":{\"file\":\"%s\",\"pos\":%llu},\"txn\":%llu,\"compressed\":%s}\n",
                     gtid, file, (unsigned long long)pos, (unsigned long long)c->txn, c->compressed ? "true" : "false");
    size_t start = 0;
    for (size_t i = 0; i < c->n; i++) {
        cdch_put_bytes(out, c->pending.data + start, c->ends[i] - start);
        cdch_put_bytes(out, tail, (size_t)n);
        start = c->ends[i];
    }
    c->n = 0;
    cdch_buf_reset(&c->pending);
    cdch_arena_reset(&c->arena);
    c->in_txn = false;
    c->compressed = false;
}

/* A QUERY event whose statement is exactly `word` (upper or lower case). */
static bool query_is(const cdch_event *ev, const char *upper, const char *lower)
{
    const cdch_bytes *q = &ev->u.query.query;
    size_t n = strlen(upper);
    return q->len == n && (memcmp(q->ptr, upper, n) == 0 || memcmp(q->ptr, lower, n) == 0);
}

static bool is_commit(const cdch_event *ev)
{
    if (ev->h.type == CDCH_EV_XID)
        return true;
    if (ev->h.type != CDCH_EV_QUERY)
        return false;
    if (query_is(ev, "COMMIT", "commit"))
        return true;
    if (query_is(ev, "BEGIN", "begin"))
        return false;
    /* any other statement (DDL) is a transaction of its own */
    return true;
}

static int one(cdch_canon *c, const char *file, const cdch_event *ev, uint64_t end_pos, bool inner, cdch_buf *out,
               cdch_err *err)
{
    switch (ev->h.type) {
    case CDCH_EV_GTID:
    case CDCH_EV_GTID_TAGGED: {
        char uuid[37];
        cdch_uuid_format(ev->u.gtid.sid, uuid);
        if (ev->u.gtid.tag[0])
            snprintf(c->gtid, sizeof c->gtid, "%s:%s:%lld", uuid, ev->u.gtid.tag, (long long)ev->u.gtid.gno);
        else
            snprintf(c->gtid, sizeof c->gtid, "%s:%lld", uuid, (long long)ev->u.gtid.gno);
        c->txn++;
        c->in_txn = true;
        break;
    }
    case CDCH_EV_ANONYMOUS_GTID:
        c->gtid[0] = '\0';
        c->txn++;
        c->in_txn = true;
        break;
    case CDCH_EV_WRITE_ROWS:
    case CDCH_EV_UPDATE_ROWS:
    case CDCH_EV_DELETE_ROWS:
    case CDCH_EV_PARTIAL_UPDATE_ROWS:
        if (inner)
            c->compressed = true;
        return rows(c, ev->h.type, &ev->u.rows, err);
    case CDCH_EV_QUERY:
        /* DDL is a plain QUERY event, never inside a payload: follow what it does to tables */
        if (!inner && !query_is(ev, "BEGIN", "begin") && !query_is(ev, "COMMIT", "commit"))
            cdch_ddl_tracker_query(c->ddl, (const char *)ev->u.query.db.ptr, ev->u.query.db.len,
                                   (const char *)ev->u.query.query.ptr, ev->u.query.query.len);
        if (is_commit(ev))
            end_txn(c, file, end_pos, out);
        break;
    case CDCH_EV_XID:
        if (is_commit(ev))
            end_txn(c, file, end_pos, out);
        break;
    case CDCH_EV_TRANSACTION_PAYLOAD:
        for (size_t i = 0; i < ev->u.payload.n_inner; i++)
            if (one(c, file, &ev->u.payload.inner[i], ev->h.log_pos, true, out, err) != 0)
                return -1;
        break;
    default:
        break;
    }
    return 0;
}

int cdch_canon_event(cdch_canon *c, const char *file, const cdch_event *ev, cdch_buf *out, cdch_err *err)
{
    return one(c, file, ev, ev->h.log_pos, false, out, err);
}
