/* txn.c — one scenario transaction -> the events MySQL puts in its
 * transaction cache (QUERY BEGIN, ROWS_QUERY, TABLE_MAP, rows events split
 * at binlog_row_event_max_size, XID / QUERY COMMIT), in inner form (no
 * checksum, log_pos 0), plus the expected change events. */
#include <stdlib.h>
#include <string.h>

#include "ddl.h"
#include "jsonstr.h"
#include "stream_internal.h"

/* ---- table maps ---------------------------------------------------------------- */

int sw_tables_init(sw_writer *w, cdch_err *err)
{
    const cdch_scenario *s = w->s;
    w->tms = cdch_arena_alloc(&w->arena, (s->ntables ? s->ntables : 1) * sizeof *w->tms);
    for (size_t i = 0; i < s->ntables; i++) {
        const cdch_sc_table *t = &s->tables[i];
        cdch_table_map *tm = &w->tms[i];
        tm->table_id = t->table_id;
        tm->flags = 1; /* TM_BIT_LEN_EXACT_F */
        tm->db.ptr = (const uint8_t *)t->db;
        tm->db.len = strlen(t->db);
        tm->table.ptr = (const uint8_t *)t->name;
        tm->table.len = strlen(t->name);
        if (tm->db.len > 64 || tm->table.len > 64)
            return cdch_err_set(err, "table name `%s`.`%s` is longer than 64 characters", t->db, t->name);
        tm->ncols = t->ncols;
        tm->cols = cdch_arena_alloc(&w->arena, (t->ncols ? t->ncols : 1) * sizeof *tm->cols);
        size_t npk = 0;
        for (size_t c = 0; c < t->ncols; c++) {
            tm->cols[c] = t->cols[c].def;
            tm->cols[c].name = t->cols[c].name;
            npk += t->cols[c].primary_key;
        }
        tm->n_pk = npk;
        tm->pk_cols = cdch_arena_alloc(&w->arena, (npk ? npk : 1) * sizeof *tm->pk_cols);
        tm->pk_prefix = cdch_arena_alloc(&w->arena, (npk ? npk : 1) * sizeof *tm->pk_prefix);
        for (size_t c = 0, k = 0; c < t->ncols; c++)
            if (t->cols[c].primary_key)
                tm->pk_cols[k++] = (uint32_t)c;
        /* FULL metadata carries COLUMN_VISIBILITY from 8.0.23 on */
        if (s->binlog.row_metadata_full && w->fde.version_product >= 80023) {
            tm->visible = cdch_arena_alloc(&w->arena, (t->ncols ? t->ncols : 1) * sizeof *tm->visible);
            for (size_t c = 0; c < t->ncols; c++)
                tm->visible[c] = !t->cols[c].invisible;
        }
        cdch_table_map_build_opt(tm, s->binlog.row_metadata_full, &w->arena);
    }
    return 0;
}

static size_t table_index(const sw_writer *w, const cdch_sc_table *t)
{
    return (size_t)(t - w->s->tables);
}

/* ---- QUERY events ----------------------------------------------------------------- */

#define SV(code, lit) {code, {(const uint8_t *)(lit), sizeof(lit) - 1}}

static void put_inner(sw_writer *w, sw_txn_info *ti, cdch_event *ev, cdch_buf *cache, cdch_err *err, int *rc)
{
    cdch_encode_opts o = {false, true, 3, false};
    if (*rc == 0 && cdch_encode_event(ev, &o, true, cache, err) != 0)
        *rc = -1;
    ti->n_events++;
    (void)w;
}

static void ev_init(cdch_event *ev, const sw_writer *w, uint8_t type, uint32_t ts, uint16_t flags)
{
    memset(ev, 0, sizeof *ev);
    ev->h.type = type;
    ev->h.timestamp = ts;
    ev->h.server_id = w->s->server.server_id;
    ev->h.flags = flags;
}

static void query_event(cdch_event *ev, const sw_writer *w, uint32_t ts, uint16_t flags, const char *db,
                        const char *sql, cdch_status_var *sv, size_t nsv)
{
    ev_init(ev, w, CDCH_EV_QUERY, ts, flags);
    ev->u.query.thread_id = w->s->server.thread_id;
    ev->u.query.status = sv;
    ev->u.query.n_status = nsv;
    ev->u.query.db.ptr = (const uint8_t *)db;
    ev->u.query.db.len = strlen(db);
    ev->u.query.query.ptr = (const uint8_t *)sql;
    ev->u.query.query.len = strlen(sql);
}

/* BEGIN / COMMIT as an 8.0 server writes them for a utf8mb4 session. */
static void begin_commit(sw_writer *w, sw_txn_info *ti, const char *db, const char *what, cdch_buf *cache,
                         cdch_err *err, int *rc)
{
    cdch_status_var sv[6] = {
        SV(CDCH_Q_FLAGS2, "\0\0\0\0"),
        SV(CDCH_Q_SQL_MODE, "\x20\x00\xa0\x45\x00\x00\x00\x00"),
        SV(CDCH_Q_CATALOG_NZ, "\x03std"),
        SV(CDCH_Q_CHARSET, "\xff\x00\xff\x00\xff\x00"),
        SV(CDCH_Q_DEFAULT_COLLATION_FOR_UTF8MB4, "\xff\x00"),
        SV(CDCH_Q_DEFAULT_COLLATION_FOR_UTF8MB4, "\xff\x00"),
    };
    size_t n = 5;
    if (w->fde.version_product >= 90600) { /* seen in 9.6.0 BEGIN events, not in 9.0.1 */
        sv[4] = (cdch_status_var)SV(CDCH_Q_UPDATED_DB_NAMES, "\xfe");
        n = 6;
    }
    cdch_event ev;
    query_event(&ev, w, ti->ts, CDCH_LOG_EVENT_SUPPRESS_USE_F, db, what, sv, n);
    put_inner(w, ti, &ev, cache, err, rc);
}

int sw_put_ddl(sw_writer *w, sw_txn_info *ti, const char *db, const char *sql, cdch_buf *cache, cdch_err *err)
{
    cdch_buf names = CDCH_BUF_INIT;
    if (*db) {
        cdch_put_u8(&names, 1);
        cdch_put_str(&names, db);
        cdch_put_u8(&names, 0);
    } else {
        cdch_put_u8(&names, 0);
    }
    uint8_t xid[8];
    for (int i = 0; i < 8; i++)
        xid[i] = (uint8_t)(w->xid >> (8 * i));
    cdch_status_var sv[] = {
        SV(CDCH_Q_FLAGS2, "\0\0\0\0"),
        SV(CDCH_Q_SQL_MODE, "\x20\x00\xa0\x45\x00\x00\x00\x00"),
        SV(CDCH_Q_CATALOG_NZ, "\x03std"),
        SV(CDCH_Q_CHARSET, "\xff\x00\xff\x00\xff\x00"),
        {CDCH_Q_UPDATED_DB_NAMES, {names.data, names.len}},
        {CDCH_Q_DDL_LOGGED_WITH_XID, {xid, 8}},
        SV(CDCH_Q_DEFAULT_COLLATION_FOR_UTF8MB4, "\xff\x00"),
        SV(CDCH_Q_SQL_REQUIRE_PRIMARY_KEY, "\x00"),
    };
    cdch_event ev;
    query_event(&ev, w, ti->ts, 0, db, sql, sv, sizeof sv / sizeof sv[0]);
    int rc = 0;
    put_inner(w, ti, &ev, cache, err, &rc);
    cdch_buf_free(&names);
    return rc;
}

/* ---- row images ------------------------------------------------------------------- */

static bool is_blob(const cdch_coldef *c)
{
    return c->type == CDCH_T_BLOB || c->type == CDCH_T_JSON || c->type == CDCH_T_GEOMETRY ||
           c->type == CDCH_T_VECTOR;
}

static bool has_json_update(const cdch_sc_row *r, size_t col)
{
    for (size_t k = 0; k < r->n_json_updates; k++)
        if (r->json_updates[k].column == col)
            return true;
    return false;
}

static void set_bit(uint8_t *bm, size_t i) { bm[i / 8] |= (uint8_t)(1u << (i % 8)); }

static bool bitmap_all(const uint8_t *bm, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(bm[i / 8] >> (i % 8) & 1))
            return false;
    return true;
}

/* Which columns go into the before / after images (binlog_row_image). */
static void image_bitmaps(const sw_writer *w, const cdch_sc_table *t, cdch_sc_op op, const cdch_sc_row *r,
                          uint8_t *bi, uint8_t *ai)
{
    size_t nb = (t->ncols + 7) / 8;
    memset(bi, 0, nb);
    memset(ai, 0, nb);
    size_t npk = 0;
    for (size_t c = 0; c < t->ncols; c++)
        npk += t->cols[c].primary_key;
    cdch_row_image img = w->s->binlog.row_image;
    for (size_t c = 0; c < t->ncols; c++) {
        const cdch_sc_column *col = &t->cols[c];
        bool pk = col->primary_key || npk == 0;
        bool changed = op == CDCH_SC_UPDATE &&
                       (has_json_update(r, c) || !cdch_value_equal(&r->before[c], &r->after[c]));
        switch (img) {
        case CDCH_ROW_IMAGE_FULL:
            set_bit(bi, c);
            set_bit(ai, c);
            break;
        case CDCH_ROW_IMAGE_MINIMAL:
            if (pk)
                set_bit(bi, c);
            if (op == CDCH_SC_INSERT || changed)
                set_bit(ai, c);
            break;
        case CDCH_ROW_IMAGE_NOBLOB:
            if (!is_blob(&col->def) || col->primary_key)
                set_bit(bi, c);
            if (op == CDCH_SC_INSERT || !is_blob(&col->def) || changed)
                set_bit(ai, c);
            break;
        }
    }
    /* An image of every column is written as MySQL's all-set bitmap: the
     * unused high bits of the last byte are 1 too (0xff for 1..8 columns,
     * as in every real FULL-image fixture); partial images carry exact bits. */
    if (t->ncols % 8) {
        uint8_t tail = (uint8_t)(0xff << (t->ncols % 8));
        uint8_t full = (uint8_t)~tail;
        if (bitmap_all(bi, t->ncols))
            bi[nb - 1] = (uint8_t)(full | tail);
        if (bitmap_all(ai, t->ncols))
            ai[nb - 1] = (uint8_t)(full | tail);
    }
}

/* ---- expected events --------------------------------------------------------------- */

/* vals: the scenario's full row; logged: what the after image carries (a
 * JSON diff for partially updated columns). A consumer can rebuild the
 * document of a partial update only when the before image has it, so the
 * expected value is the full document then, and the diff otherwise. */
static void exp_image(const cdch_sc_table *t, const uint8_t *bm, const cdch_value *vals, const cdch_value *logged,
                      const uint8_t *before_bm, cdch_buf *out)
{
    cdch_put_u8(out, '{');
    bool first = true;
    for (size_t c = 0; c < t->ncols; c++) {
        if (!(bm[c / 8] >> (c % 8) & 1))
            continue;
        if (!first)
            cdch_put_u8(out, ',');
        first = false;
        cdch_put_json_str(out, t->cols[c].name, strlen(t->cols[c].name), 0);
        cdch_put_u8(out, ':');
        const cdch_value *v = &vals[c];
        if (logged && logged[c].kind == CDCH_V_JSON_DIFF && !(before_bm[c / 8] >> (c % 8) & 1))
            v = &logged[c];
        cdch_value_to_json(&t->cols[c].def, v, out);
    }
    cdch_put_u8(out, '}');
}

static void exp_queue(sw_writer *w, const cdch_sc_table *t, cdch_sc_op op, const cdch_sc_row *r, const uint8_t *bi,
                      const uint8_t *ai, const cdch_value *logged_after)
{
    static const char *ops[] = {"", "insert", "update", "delete"};
    cdch_buf *e = &w->exp;
    cdch_buf_printf(e, "{\"op\":\"%s\",\"db\":", ops[op]);
    cdch_put_json_str(e, t->db, strlen(t->db), 0);
    cdch_put_str(e, ",\"table\":");
    cdch_put_json_str(e, t->name, strlen(t->name), 0);
    cdch_put_str(e, ",\"before\":");
    if (op == CDCH_SC_INSERT)
        cdch_put_str(e, "null");
    else
        exp_image(t, bi, r->before, NULL, bi, e);
    cdch_put_str(e, ",\"after\":");
    if (op == CDCH_SC_DELETE)
        cdch_put_str(e, "null");
    else
        exp_image(t, ai, r->after, logged_after, bi, e);
    if (w->n_exp == w->cap_exp) {
        w->cap_exp = w->cap_exp ? w->cap_exp * 2 : 64;
        size_t *n = realloc(w->exp_lines, w->cap_exp * sizeof *n);
        if (!n)
            abort();
        w->exp_lines = n;
    }
    w->exp_lines[w->n_exp++] = e->len;
}

int sw_expected_flush(sw_writer *w, const sw_txn_info *ti, bool compressed, cdch_err *err)
{
    char tail[512];
    char gtid[128] = "null";
    if (w->s->server.gtid_mode) {
        char uuid[37];
        cdch_uuid_format(w->s->server.uuid, uuid);
        if (ti->tag && ti->tag[0]) /* tagged: uuid:tag:gno, as MySQL prints it */
            snprintf(gtid, sizeof gtid, "\"%s:%s:%llu\"", uuid, ti->tag, (unsigned long long)ti->gno);
        else
            snprintf(gtid, sizeof gtid, "\"%s:%llu\"", uuid, (unsigned long long)ti->gno);
    }
    int n = snprintf(tail, sizeof tail, ",\"gtid\":%s,\"pos\":{\"file\":\"%s\",\"pos\":%llu},\"txn\":%llu,\"compressed\":%s}\n",
                     gtid, w->file_name, (unsigned long long)w->pos, (unsigned long long)ti->txn_no,
                     compressed ? "true" : "false");
    size_t start = 0;
    for (size_t i = 0; i < w->n_exp; i++) {
        if (fwrite(w->exp.data + start, 1, w->exp_lines[i] - start, w->expected) != w->exp_lines[i] - start ||
            fwrite(tail, 1, (size_t)n, w->expected) != (size_t)n)
            return cdch_err_set(err, "cannot write expected.jsonl in %s", w->dir);
        start = w->exp_lines[i];
    }
    w->stats.row_changes += w->n_exp;
    w->n_exp = 0;
    cdch_buf_reset(&w->exp);
    return 0;
}

/* ---- rows events ------------------------------------------------------------------- */

typedef struct rows_ev {
    uint8_t type;
    cdch_rows r;              /* head fields (table, bitmaps) */
    uint8_t bi[512], ai[512]; /* up to 4096 columns */
    cdch_buf body;            /* encoded rows so far */
    size_t nrows;
    bool open;
} rows_ev;

static size_t rows_data_size(const rows_ev *re)
{
    size_t nb = (re->r.ncols + 7) / 8;
    size_t size = 10 + cdch_lenenc_size(re->r.ncols) + nb;
    if (re->type == CDCH_EV_UPDATE_ROWS || re->type == CDCH_EV_PARTIAL_UPDATE_ROWS)
        size += nb;
    return size + re->body.len;
}

static int rows_flush(sw_writer *w, sw_txn_info *ti, rows_ev *re, bool stmt_end, cdch_buf *cache, cdch_err *err)
{
    if (!re->open)
        return 0;
    re->r.flags = stmt_end ? CDCH_ROWS_STMT_END_F : 0;
    size_t start = cache->len;
    cdch_put_le32(cache, ti->ts);
    cdch_put_u8(cache, re->type);
    cdch_put_le32(cache, w->s->server.server_id);
    cdch_put_le32(cache, 0);
    cdch_put_le32(cache, 0);
    cdch_put_le16(cache, 0);
    if (cdch_rows_encode_head(re->type, &re->r, cache, err) != 0)
        return -1;
    cdch_put_bytes(cache, re->body.data, re->body.len);
    cdch_buf_patch_le(cache, start + 9, cache->len - start, 4);
    ti->n_events++;
    re->open = false;
    cdch_buf_reset(&re->body);
    re->nrows = 0;
    return 0;
}

/* The statement's ROWS_QUERY (when binlog.rows_query) and its TABLE_MAP. */
static int put_stmt_head(sw_writer *w, sw_txn_info *ti, const cdch_sc_stmt *st, const cdch_table_map *tm,
                         cdch_buf *cache, cdch_err *err)
{
    const cdch_sc_table *t = st->table;
    int rc = 0;
    cdch_event ev;
    if (w->s->binlog.rows_query) {
        cdch_buf_reset(&w->tmp);
        if (st->rows_query) {
            cdch_put_str(&w->tmp, st->rows_query);
        } else {
            static const char *verb[] = {"", "INSERT INTO", "UPDATE", "DELETE FROM"};
            cdch_buf_printf(&w->tmp, "%s ", verb[st->op]);
            cdch_ddl_quote(t->db, &w->tmp);
            cdch_put_u8(&w->tmp, '.');
            cdch_ddl_quote(t->name, &w->tmp);
            cdch_buf_printf(&w->tmp, " /* %zu row%s */", st->nrows, st->nrows == 1 ? "" : "s");
        }
        ev_init(&ev, w, CDCH_EV_ROWS_QUERY, ti->ts, CDCH_LOG_EVENT_IGNORABLE_F);
        ev.u.rows_query.len_byte = (uint8_t)w->tmp.len;
        ev.u.rows_query.text.ptr = w->tmp.data;
        ev.u.rows_query.text.len = w->tmp.len;
        put_inner(w, ti, &ev, cache, err, &rc);
    }
    ev_init(&ev, w, CDCH_EV_TABLE_MAP, ti->ts, 0);
    ev.u.table_map = *tm;
    put_inner(w, ti, &ev, cache, err, &rc);
    return rc != 0 ? -1 : 0;
}

/* A partial update's after image: row r's after values with its JSON
 * columns' diffs in place of the documents (*after grows to the table's
 * width), and the partial bitmap (one bit per JSON column) in pbits. */
static void partial_after(const cdch_sc_table *t, const cdch_sc_row *r, size_t njson, cdch_value **after,
                          size_t *after_cap, uint8_t *pbits)
{
    if (*after_cap < t->ncols) {
        free(*after);
        *after_cap = t->ncols;
        *after = malloc(*after_cap * sizeof **after);
        if (!*after)
            abort();
    }
    memcpy(*after, r->after, t->ncols * sizeof **after);
    memset(pbits, 0, (njson + 7) / 8);
    for (size_t k = 0; k < r->n_json_updates; k++) {
        size_t c = r->json_updates[k].column;
        (*after)[c].kind = CDCH_V_JSON_DIFF;
        (*after)[c].u.diff = r->json_updates[k].diff;
        size_t ji = 0;
        for (size_t j = 0; j < c; j++)
            ji += t->cols[j].def.type == CDCH_T_JSON;
        pbits[ji / 8] |= (uint8_t)(1u << (ji % 8));
    }
}

/* Start a rows event of `type` for table map tm with the given bitmaps. */
static void rows_open(rows_ev *re, uint8_t type, const cdch_table_map *tm, size_t ncols, const uint8_t *bi,
                      const uint8_t *ai, size_t nb)
{
    re->type = type;
    memset(&re->r, 0, sizeof re->r);
    re->r.table_id = tm->table_id;
    re->r.ncols = ncols;
    re->r.tm = tm;
    memcpy(re->bi, bi, nb);
    memcpy(re->ai, ai, nb);
    re->r.cols_before = re->bi;
    re->r.cols_after = re->ai;
    re->open = true;
}

/* One DML statement: its head events, then its rows, in as few rows events
 * as the bitmaps and binlog.row_event_max_size allow. */
static int put_stmt(sw_writer *w, sw_txn_info *ti, const cdch_sc_stmt *st, rows_ev *re, cdch_buf *cache,
                    cdch_err *err)
{
    const cdch_sc_table *t = st->table;
    const cdch_table_map *tm = &w->tms[table_index(w, t)];
    if (put_stmt_head(w, ti, st, tm, cache, err) != 0)
        return -1;

    uint8_t type = st->op == CDCH_SC_INSERT   ? CDCH_EV_WRITE_ROWS
                   : st->op == CDCH_SC_DELETE ? CDCH_EV_DELETE_ROWS
                   : w->s->binlog.partial_json ? CDCH_EV_PARTIAL_UPDATE_ROWS
                                               : CDCH_EV_UPDATE_ROWS;
    size_t nb = (t->ncols + 7) / 8;
    size_t njson = 0;
    for (size_t c = 0; c < t->ncols; c++)
        njson += t->cols[c].def.type == CDCH_T_JSON;
    uint8_t bi[512], ai[512], pbits[512];
    cdch_value *after = NULL;
    size_t after_cap = 0;
    for (size_t i = 0; i < st->nrows; i++) {
        const cdch_sc_row *r = &st->rows[i];
        image_bitmaps(w, t, st->op, r, bi, ai);
        cdch_row row = {0};
        row.before = r->before;
        row.after = r->after;
        if (type == CDCH_EV_PARTIAL_UPDATE_ROWS && r->n_json_updates) {
            partial_after(t, r, njson, &after, &after_cap, pbits);
            row.after = after;
            row.value_options = 1;
            row.partial_bits = pbits;
        }
        /* a new event when the bitmaps change or the row would not fit */
        if (re->open && (memcmp(re->bi, bi, nb) != 0 || memcmp(re->ai, ai, nb) != 0)) {
            if (rows_flush(w, ti, re, false, cache, err) != 0)
                goto fail;
        }
        if (!re->open)
            rows_open(re, type, tm, t->ncols, bi, ai, nb);
        cdch_buf_reset(&w->rowbuf);
        if (cdch_rows_encode_row(type, &re->r, &row, &w->rowbuf, err) != 0) {
            cdch_err_wrap(err, "%s row %zu of `%s`.`%s`", st->op == CDCH_SC_INSERT ? "insert" : "change", i + 1,
                          t->db, t->name);
            goto fail;
        }
        if (re->nrows > 0 && rows_data_size(re) + w->rowbuf.len > w->s->binlog.row_event_max_size) {
            if (rows_flush(w, ti, re, false, cache, err) != 0)
                goto fail;
            rows_open(re, type, tm, t->ncols, bi, ai, nb);
        }
        cdch_put_bytes(&re->body, w->rowbuf.data, w->rowbuf.len);
        re->nrows++;
        w->stats.row_data_bytes += w->rowbuf.len;
        exp_queue(w, t, st->op, r, bi, ai, row.after);
    }
    free(after);
    return rows_flush(w, ti, re, true, cache, err);
fail:
    free(after);
    return -1;
}

int sw_put_dml(sw_writer *w, sw_txn_info *ti, const cdch_sc_txn *t, bool transactional, cdch_buf *cache,
               cdch_err *err)
{
    int rc = 0;
    const char *db = t->nstmts ? t->stmts[0].table->db : "";
    begin_commit(w, ti, db, "BEGIN", cache, err, &rc);
    if (rc != 0)
        return -1;
    rows_ev re;
    memset(&re, 0, sizeof re);
    for (size_t i = 0; i < t->nstmts; i++) {
        if (put_stmt(w, ti, &t->stmts[i], &re, cache, err) != 0) {
            cdch_buf_free(&re.body);
            return -1;
        }
    }
    cdch_buf_free(&re.body);
    if (transactional && t->kind == CDCH_SC_TXN_DML) {
        cdch_event ev;
        ev_init(&ev, w, CDCH_EV_XID, ti->ts, 0);
        ev.u.xid = ++w->xid;
        put_inner(w, ti, &ev, cache, err, &rc);
    } else {
        begin_commit(w, ti, db, "COMMIT", cache, err, &rc);
    }
    return rc;
}
