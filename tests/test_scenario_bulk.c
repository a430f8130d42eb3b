/* test_scenario_bulk.c — bulk generators: deterministic, streaming, every
 * generated value valid for its column (encodes, and decodes back equal),
 * before images consistent with the previous after image of the same row,
 * and the transactions / target_bytes / key-range limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "testutil.h"

static cdch_scenario *load(const char *yaml)
{
    cdch_err e;
    cdch_scenario *s = cdch_scenario_load_mem(yaml, strlen(yaml), "bulk.yaml", &e);
    ck_assert_msg(s != NULL, "load failed: %s", e.msg);
    return s;
}

static const cdch_sc_bulk *bulk_item(const cdch_scenario *s, size_t i)
{
    ck_assert_uint_lt(i, s->nitems);
    ck_assert_int_eq(s->items[i].kind, CDCH_SC_ITEM_BULK);
    return &s->items[i].u.bulk;
}

/* The row image bytes of a full row (NULL-aware), for comparisons that
 * outlive the cursor's arena. Also checks each value round-trips. */
static void row_bytes(const cdch_sc_table *t, const cdch_value *row, cdch_buf *out, size_t *data_bytes)
{
    cdch_buf_reset(out);
    for (size_t j = 0; j < t->ncols; j++) {
        const cdch_sc_column *col = &t->cols[j];
        if (row[j].kind == CDCH_V_NULL) {
            ck_assert_msg(col->def.nullable, "NULL in NOT NULL column %s", col->name);
            cdch_put_u8(out, 0xee);
            continue;
        }
        cdch_err e;
        size_t at = out->len;
        ck_assert_msg(cdch_value_encode(&col->def, &row[j], out, &e) == 0, "column %s (%s): %s", col->name,
                      col->sql_type, e.msg);
        if (data_bytes)
            *data_bytes += out->len - at;
        /* decode it back: same value */
        cdch_arena a = CDCH_ARENA_INIT;
        cdch_cursor c = {out->data + at, out->data + at, out->data + out->len, false};
        cdch_value back;
        ck_assert_msg(cdch_value_decode(&col->def, &c, &a, &back, &e) == 0, "column %s decode: %s", col->name, e.msg);
        ck_assert_msg(!c.overrun && c.p == c.end, "column %s: decode used %zu of %zu bytes", col->name,
                      (size_t)(c.p - (out->data + at)), out->len - at);
        ck_assert_msg(cdch_value_equal(&back, &row[j]), "column %s (%s): value changed in a round trip", col->name,
                      col->sql_type);
        cdch_arena_free(&a);
    }
}

/* ---- json_staging ---------------------------------------------------------------- */

static const char k_staging[] =
    "binlog: {compression: flip}\n"
    "tables:\n"
    "  - name: s.staging\n"
    "    columns:\n"
    "      - {name: id, type: int unsigned, primary_key: true}\n"
    "      - {name: doc, type: json}\n"
    "      - {name: note, type: varchar(20)}\n"
    "      - {name: n, type: int, nullable: false}\n"
    "transactions:\n"
    "  - compression: on\n"
    "  - bulk: {generator: json_staging, table: s.staging, seed: 42, transactions: 7, rows_per_transaction: 5,\n"
    "           rows: 12, doc_keys: 6, value_bytes: 24}\n";

START_TEST(test_json_staging)
{
    cdch_scenario *s = load(k_staging);
    const cdch_sc_bulk *b = bulk_item(s, 0);
    ck_assert_uint_eq(b->keys, 12);
    ck_assert_int_eq(b->compress, CDCH_SC_COMPRESS_ON);
    const cdch_sc_table *t = b->table;
    cdch_buf last[13], cur = CDCH_BUF_INIT, tmp = CDCH_BUF_INIT;
    memset(last, 0, sizeof last);
    cdch_bulk_cursor *c = cdch_bulk_start(s, b);
    ck_assert_ptr_nonnull(c);
    cdch_sc_txn txn;
    int ntxn = 0, nrows = 0;
    while (cdch_bulk_next(c, &txn) == 1) {
        ck_assert_int_eq(txn.kind, CDCH_SC_TXN_DML);
        ck_assert_int_eq(txn.compress, ntxn == 0 ? CDCH_SC_COMPRESS_ON : CDCH_SC_COMPRESS_DEFAULT);
        ck_assert_uint_eq(txn.nstmts, 1);
        const cdch_sc_stmt *st = &txn.stmts[0];
        ck_assert_int_eq(st->op, CDCH_SC_UPDATE);
        ck_assert_ptr_eq(st->table, t);
        ck_assert_uint_eq(st->nrows, 5);
        for (size_t i = 0; i < st->nrows; i++, nrows++) {
            const cdch_sc_row *r = &st->rows[i];
            uint64_t key = r->after[0].u.u;
            ck_assert_uint_eq(key, (uint64_t)nrows % 12 + 1);
            ck_assert_uint_eq(r->before[0].u.u, key);
            /* documents: {"id":key,"batch":version,...}, version = update count of the row */
            const cdch_json *doc = r->after[1].u.json;
            ck_assert_int_eq(doc->type, CDCH_JSON_OBJECT);
            ck_assert_uint_eq(doc->u.obj.count, 6 + 2);
            ck_assert_int_eq(doc->u.obj.members[1].value->u.i, nrows / 12 + 1);
            ck_assert_int_eq(r->before[1].u.json->u.obj.members[1].value->u.i, nrows / 12);
            ck_assert_uint_eq(doc->u.obj.members[2].value->u.str.len, 24);
            /* before = the previous after of the same row */
            row_bytes(t, r->before, &cur, NULL);
            if (last[key].len) {
                ck_assert_uint_eq(cur.len, last[key].len);
                ck_assert(memcmp(cur.data, last[key].data, cur.len) == 0);
            }
            row_bytes(t, r->after, &tmp, NULL);
            cdch_buf_reset(&last[key]);
            cdch_put_bytes(&last[key], tmp.data, tmp.len);
            ck_assert(cur.len != tmp.len || memcmp(cur.data, tmp.data, cur.len) != 0);
        }
        ntxn++;
    }
    ck_assert_int_eq(ntxn, 7);
    ck_assert_int_eq(cdch_bulk_next(c, &txn), 0); /* stays done */
    cdch_bulk_free(c);
    for (int i = 0; i < 13; i++)
        cdch_buf_free(&last[i]);
    cdch_buf_free(&cur);
    cdch_buf_free(&tmp);
    cdch_scenario_free(s);
}
END_TEST

/* Same scenario, same bytes; another seed, other bytes. */
static void all_bytes(const char *yaml, cdch_buf *out)
{
    cdch_scenario *s = load(yaml);
    for (size_t i = 0; i < s->nitems; i++) {
        if (s->items[i].kind != CDCH_SC_ITEM_BULK)
            continue;
        cdch_bulk_cursor *c = cdch_bulk_start(s, &s->items[i].u.bulk);
        cdch_sc_txn txn;
        cdch_buf tmp = CDCH_BUF_INIT;
        while (cdch_bulk_next(c, &txn) == 1)
            for (size_t r = 0; r < txn.stmts[0].nrows; r++) {
                const cdch_sc_row *row = &txn.stmts[0].rows[r];
                if (row->before) {
                    row_bytes(txn.stmts[0].table, row->before, &tmp, NULL);
                    cdch_put_bytes(out, tmp.data, tmp.len);
                }
                row_bytes(txn.stmts[0].table, row->after, &tmp, NULL);
                cdch_put_bytes(out, tmp.data, tmp.len);
            }
        cdch_buf_free(&tmp);
        cdch_bulk_free(c);
    }
    cdch_scenario_free(s);
}

START_TEST(test_deterministic)
{
    cdch_buf a = CDCH_BUF_INIT, b = CDCH_BUF_INIT, c = CDCH_BUF_INIT;
    all_bytes(k_staging, &a);
    all_bytes(k_staging, &b);
    ck_assert_uint_gt(a.len, 1000);
    ck_assert_uint_eq(a.len, b.len);
    ck_assert(memcmp(a.data, b.data, a.len) == 0);
    char *other = strdup(k_staging);
    memcpy(strstr(other, "seed: 42"), "seed: 43", 8);
    all_bytes(other, &c);
    ck_assert(a.len != c.len || memcmp(a.data, c.data, a.len) != 0);
    free(other);
    cdch_buf_free(&a);
    cdch_buf_free(&b);
    cdch_buf_free(&c);
}
END_TEST

/* ---- random_keys ------------------------------------------------------------------ */

START_TEST(test_random_keys)
{
    cdch_scenario *s = load("tables:\n"
                            "  - name: s.counters\n"
                            "    columns:\n"
                            "      - {name: k, type: smallint unsigned, primary_key: true}\n"
                            "      - {name: hits, type: bigint, nullable: false}\n"
                            "      - {name: touched, type: datetime(6)}\n"
                            "      - {name: tag, type: char(3)}\n"
                            "transactions:\n"
                            "  - bulk: {generator: random_keys, table: s.counters, seed: 7, transactions: 400,\n"
                            "           rows_per_transaction: 2, keys: 25}\n");
    const cdch_sc_bulk *b = bulk_item(s, 0);
    const cdch_sc_table *t = b->table;
    ck_assert_uint_eq(b->keys, 25);
    int64_t version[26] = {0};
    cdch_buf last[26], cur = CDCH_BUF_INIT;
    memset(last, 0, sizeof last);
    cdch_bulk_cursor *c = cdch_bulk_start(s, b);
    cdch_sc_txn txn;
    int ntxn = 0;
    bool seen[26] = {false};
    while (cdch_bulk_next(c, &txn) == 1) {
        ntxn++;
        ck_assert_int_eq(txn.compress, CDCH_SC_COMPRESS_DEFAULT);
        const cdch_sc_stmt *st = &txn.stmts[0];
        ck_assert_uint_eq(st->nrows, 2);
        for (size_t i = 0; i < st->nrows; i++) {
            const cdch_sc_row *r = &st->rows[i];
            uint64_t k = r->before[0].u.u;
            ck_assert(k >= 1 && k <= 25);
            seen[k] = true;
            ck_assert_int_eq(r->before[1].u.i, version[k]);
            ck_assert_int_eq(r->after[1].u.i, version[k] + 1);
            version[k]++;
            row_bytes(t, r->before, &cur, NULL);
            if (last[k].len)
                ck_assert(cur.len == last[k].len && memcmp(cur.data, last[k].data, cur.len) == 0);
            row_bytes(t, r->after, &cur, NULL);
            cdch_buf_reset(&last[k]);
            cdch_put_bytes(&last[k], cur.data, cur.len);
        }
    }
    ck_assert_int_eq(ntxn, 400);
    int nseen = 0;
    for (int k = 1; k <= 25; k++)
        nseen += seen[k];
    ck_assert_int_eq(nseen, 25);
    cdch_bulk_free(c);
    for (int i = 0; i < 26; i++)
        cdch_buf_free(&last[i]);
    cdch_buf_free(&cur);
    cdch_scenario_free(s);
}
END_TEST

/* ---- inserts ------------------------------------------------------------------------ */

static const char k_every_type[] =
    "server: {version: 9.0.1}\n"
    "tables:\n"
    "  - name: s.every\n"
    "    columns:\n"
    "      - {name: id, type: bigint unsigned, primary_key: true, auto_increment: true}\n"
    "      - {name: ti, type: tinyint}\n"
    "      - {name: tu, type: tinyint unsigned, nullable: false}\n"
    "      - {name: si, type: smallint}\n"
    "      - {name: mi, type: mediumint unsigned}\n"
    "      - {name: i, type: int}\n"
    "      - {name: bi, type: bigint}\n"
    "      - {name: d1, type: \"decimal(10,2)\"}\n"
    "      - {name: d2, type: \"decimal(65,30) unsigned\", nullable: false}\n"
    "      - {name: d3, type: \"decimal(5,5)\"}\n"
    "      - {name: f, type: float}\n"
    "      - {name: db, type: double}\n"
    "      - {name: dt, type: date}\n"
    "      - {name: dtt, type: datetime(6)}\n"
    "      - {name: dt0, type: datetime}\n"
    "      - {name: ts, type: timestamp(3)}\n"
    "      - {name: tm, type: time(2)}\n"
    "      - {name: y, type: year}\n"
    "      - {name: b1, type: bit(1)}\n"
    "      - {name: b64, type: bit(64)}\n"
    "      - {name: c, type: char(10)}\n"
    "      - {name: cl, type: char(4), charset: latin1}\n"
    "      - {name: c16, type: char(3), charset: utf16}\n"
    "      - {name: vc, type: varchar(300)}\n"
    "      - {name: v3, type: varchar(5), charset: utf8mb3}\n"
    "      - {name: va, type: varchar(5), charset: ascii}\n"
    "      - {name: bn, type: binary(8)}\n"
    "      - {name: vb, type: varbinary(40)}\n"
    "      - {name: tt, type: tinytext}\n"
    "      - {name: tx, type: text}\n"
    "      - {name: lt, type: longtext}\n"
    "      - {name: tb, type: tinyblob}\n"
    "      - {name: bl, type: blob}\n"
    "      - {name: e, type: \"enum('a','b','c')\", nullable: false}\n"
    "      - {name: st, type: \"set('x','y','z')\"}\n"
    "      - {name: j, type: json}\n"
    "      - {name: g, type: geometry}\n"
    "      - {name: p, type: point, nullable: false}\n"
    "      - {name: ls, type: linestring}\n"
    "      - {name: pg, type: polygon}\n"
    "      - {name: mp, type: multipoint}\n"
    "      - {name: ml, type: multilinestring}\n"
    "      - {name: mpg, type: multipolygon}\n"
    "      - {name: gc, type: geometrycollection}\n"
    "      - {name: vec, type: vector(4)}\n"
    "transactions:\n"
    "  - insert: {table: s.every, rows: [{id: 5, p: \"POINT(0 0)\"}]}\n"
    "  - bulk: {generator: inserts, table: s.every, seed: 3, transactions: 40, rows_per_transaction: 25,\n"
    "           value_bytes: 40}\n";

START_TEST(test_inserts_every_type)
{
    cdch_scenario *s = load(k_every_type);
    const cdch_sc_bulk *b = bulk_item(s, 1);
    ck_assert_uint_eq(b->first_id, 6);
    const cdch_sc_table *t = b->table;
    cdch_bulk_cursor *c = cdch_bulk_start(s, b);
    cdch_sc_txn txn;
    cdch_buf tmp = CDCH_BUF_INIT;
    uint64_t next = 6;
    int ntxn = 0;
    size_t nulls = 0;
    while (cdch_bulk_next(c, &txn) == 1) {
        ntxn++;
        const cdch_sc_stmt *st = &txn.stmts[0];
        ck_assert_int_eq(st->op, CDCH_SC_INSERT);
        for (size_t i = 0; i < st->nrows; i++) {
            const cdch_sc_row *r = &st->rows[i];
            ck_assert_ptr_null(r->before);
            ck_assert_uint_eq(r->after[0].u.u, next++);
            row_bytes(t, r->after, &tmp, NULL);
            for (size_t j = 0; j < t->ncols; j++) {
                const cdch_value *v = &r->after[j];
                nulls += v->kind == CDCH_V_NULL;
                if (v->kind == CDCH_V_STRING && t->cols[j].def.type == 254 && v->u.bytes.len)
                    ck_assert_msg(v->u.bytes.ptr[v->u.bytes.len - 1] != (t->cols[j].def.collation == 63 ? 0 : ' '),
                                  "CHAR/BINARY value with a trailing pad in %s", t->cols[j].name);
            }
        }
    }
    ck_assert_int_eq(ntxn, 40);
    ck_assert_uint_eq(next, 6 + 40 * 25);
    ck_assert_uint_gt(nulls, 0);
    cdch_bulk_free(c);
    cdch_buf_free(&tmp);
    cdch_scenario_free(s);
}
END_TEST

START_TEST(test_target_bytes)
{
    cdch_scenario *s = load("tables:\n"
                            "  - name: s.t\n"
                            "    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(100)}]\n"
                            "transactions:\n"
                            "  - bulk: {generator: inserts, table: s.t, target_bytes: 64K, rows_per_transaction: 10,\n"
                            "           value_bytes: 50}\n");
    const cdch_sc_bulk *b = bulk_item(s, 0);
    ck_assert_uint_eq(b->transactions, 0);
    ck_assert_uint_eq(b->target_bytes, 65536);
    cdch_bulk_cursor *c = cdch_bulk_start(s, b);
    cdch_sc_txn txn;
    cdch_buf tmp = CDCH_BUF_INIT;
    size_t bytes = 0, before_last = 0;
    int ntxn = 0;
    while (cdch_bulk_next(c, &txn) == 1) {
        before_last = bytes;
        for (size_t i = 0; i < txn.stmts[0].nrows; i++)
            row_bytes(b->table, txn.stmts[0].rows[i].after, &tmp, &bytes);
        ntxn++;
    }
    ck_assert_uint_ge(bytes, 65536);
    ck_assert_uint_lt(before_last, 65536);
    ck_assert_int_gt(ntxn, 10);
    cdch_bulk_free(c);
    cdch_buf_free(&tmp);
    cdch_scenario_free(s);

    /* transactions and target_bytes: whichever comes first */
    s = load("tables:\n"
             "  - name: s.t\n"
             "    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(100)}]\n"
             "transactions:\n"
             "  - bulk: {generator: inserts, table: s.t, target_bytes: 1G, transactions: 3}\n");
    c = cdch_bulk_start(s, bulk_item(s, 0));
    ntxn = 0;
    while (cdch_bulk_next(c, &txn) == 1)
        ntxn++;
    ck_assert_int_eq(ntxn, 3);
    cdch_bulk_free(c);
    cdch_scenario_free(s);
}
END_TEST

START_TEST(test_key_range_exhausted)
{
    cdch_scenario *s = load("tables:\n"
                            "  - name: s.t\n"
                            "    columns: [{name: id, type: tinyint, primary_key: true}, {name: v, type: int}]\n"
                            "transactions:\n"
                            "  - insert: {table: s.t, rows: [{id: 100}]}\n"
                            "  - bulk: {generator: inserts, table: s.t, target_bytes: 1G, rows_per_transaction: 10}\n");
    const cdch_sc_bulk *b = bulk_item(s, 1);
    ck_assert_uint_eq(b->first_id, 101);
    cdch_bulk_cursor *c = cdch_bulk_start(s, b);
    cdch_sc_txn txn;
    size_t rows = 0;
    int64_t last = 0;
    while (cdch_bulk_next(c, &txn) == 1) {
        rows += txn.stmts[0].nrows;
        last = txn.stmts[0].rows[txn.stmts[0].nrows - 1].after[0].u.i;
    }
    ck_assert_uint_eq(rows, 27); /* 101..127 */
    ck_assert_int_eq(last, 127);
    cdch_bulk_free(c);
    cdch_scenario_free(s);
}
END_TEST

/* Many transactions through one cursor: the arena is reset per call, so
 * this runs in flat memory (and LeakSanitizer checks nothing is lost). */
START_TEST(test_streaming_many)
{
    cdch_scenario *s = load("tables:\n"
                            "  - name: s.c\n"
                            "    columns: [{name: id, type: int, primary_key: true}, {name: n, type: int}]\n"
                            "transactions:\n"
                            "  - bulk: {generator: random_keys, table: s.c, seed: 1, transactions: 100000}\n");
    const cdch_sc_bulk *b = bulk_item(s, 0);
    ck_assert_uint_eq(b->keys, 10000);
    cdch_bulk_cursor *c = cdch_bulk_start(s, b);
    cdch_sc_txn txn;
    uint64_t n = 0, sum = 0;
    while (cdch_bulk_next(c, &txn) == 1) {
        n++;
        sum += (uint64_t)txn.stmts[0].rows[0].after[1].u.i;
    }
    ck_assert_uint_eq(n, 100000);
    ck_assert_uint_gt(sum, 100000); /* counters went up */
    cdch_bulk_free(c);
    ck_assert_ptr_null(cdch_bulk_start(NULL, b));
    cdch_bulk_free(NULL);
    cdch_scenario_free(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("scenario_bulk");
    TCase *tc = tcase_create("bulk");
    tcase_add_test(tc, test_json_staging);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_random_keys);
    tcase_add_test(tc, test_inserts_every_type);
    tcase_add_test(tc, test_target_bytes);
    tcase_add_test(tc, test_key_range_exhausted);
    tcase_add_test(tc, test_streaming_many);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
