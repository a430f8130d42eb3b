/* test_scenario.c — the scenario loader: settings, schema, column types
 * (binlog type/meta exactly as TABLE_MAP carries them), values stored as
 * MySQL logs them, row semantics (WHERE-like before, after = changes,
 * defaults, auto_increment, partial JSON), and the loader's error messages
 * ("FILE:LINE:COL: message" at the offending node).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddltrack.h"
#include "scenario.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------- */

static cdch_scenario *load(const char *yaml)
{
    cdch_err e;
    memset(&e, 0, sizeof e);
    cdch_scenario *s = cdch_scenario_load_mem(yaml, strlen(yaml), "t.yaml", &e);
    ck_assert_msg(s != NULL, "load failed: %s", e.msg);
    return s;
}

/* Loading must fail with a message starting "t.yaml:LINE:COL: " and containing needle. */
#define expect_err(yaml, line, col, needle) expect_err_at(__LINE__, yaml, line, col, needle)
static void expect_err_at(int at, const char *yaml, unsigned line, unsigned col, const char *needle)
{
    cdch_err e;
    memset(&e, 0, sizeof e);
    cdch_scenario *s = cdch_scenario_load_mem(yaml, strlen(yaml), "t.yaml", &e);
    if (s) {
        cdch_scenario_free(s);
        ck_abort_msg("test at line %d: loaded, expected an error containing '%s'", at, needle);
    }
    char prefix[64];
    snprintf(prefix, sizeof prefix, "t.yaml:%u:%u: ", line, col);
    ck_assert_msg(strncmp(e.msg, prefix, strlen(prefix)) == 0, "test at line %d: expected position %s got '%s'", at,
                  prefix, e.msg);
    ck_assert_msg(strstr(e.msg, needle) != NULL, "test at line %d: '%s' does not contain '%s'", at, e.msg, needle);
}

/* server.mysql_native_password by version, and gtid_next switches (tagged GTIDs, 8.3+). */
START_TEST(test_native_password_and_gtid_next)
{
    cdch_scenario *s = load("server: {version: 8.0.36}\n");
    ck_assert(s->server.native_password); /* loaded before 8.4 */
    cdch_scenario_free(s);
    s = load("server: {version: 8.4.9, mysql_native_password: on}\n");
    ck_assert(s->server.native_password);
    cdch_scenario_free(s);
    s = load("server: {version: 9.7.0}\n");
    ck_assert(!s->server.native_password);
    cdch_scenario_free(s);
    expect_err("server: {version: 9.7.0, mysql_native_password: on}\n", 1, 49, "MySQL 9.0 removed the plugin");

    s = load("server: {version: 8.4.9}\ntables:\n  - {name: s.t, columns: [{name: id, type: int, primary_key: true}]}\n"
             "transactions:\n"
             "  - insert: {table: s.t, rows: [{id: 1}]}\n"
             "  - gtid_next: AUTOMATIC:Batch_1\n"
             "  - insert: {table: s.t, rows: [{id: 2}]}\n"
             "  - insert: {table: s.t, rows: [{id: 3}]}\n"
             "  - gtid_next: automatic\n"
             "  - delete: {table: s.t, rows: [{id: 1}]}\n");
    ck_assert_uint_eq(s->nitems, 4);
    ck_assert_ptr_null(s->items[0].u.txn.gtid_tag);
    ck_assert_str_eq(s->items[1].u.txn.gtid_tag, "batch_1"); /* lower case, as MySQL stores tags */
    ck_assert_ptr_null(s->items[2].u.txn.gtid_tag);          /* the switch holds until the next one */
    ck_assert_str_eq(s->items[3].u.txn.gtid_tag, "");
    cdch_scenario_free(s);

    const char *t = "tables:\n  - {name: s.t, columns: [{name: id, type: int, primary_key: true}]}\ntransactions:\n";
    char y[512];
    snprintf(y, sizeof y, "server: {version: 8.0.36}\n%s  - gtid_next: AUTOMATIC:x\n  - empty: true\n", t);
    expect_err(y, 5, 16, "tagged GTIDs need server.version 8.3.0 or later (this is 8.0.36)");
    snprintf(y, sizeof y, "server: {gtid_mode: off}\n%s  - gtid_next: AUTOMATIC:x\n  - empty: true\n", t);
    expect_err(y, 5, 16, "gtid_next needs server.gtid_mode: on");
    snprintf(y, sizeof y, "%s  - gtid_next: AUTOMATIC:1x\n  - empty: true\n", t);
    expect_err(y, 4, 16, "is not a GTID tag");
    snprintf(y, sizeof y, "%s  - gtid_next: AUTOMATIC:abcdefghijabcdefghijabcdefghijabc\n  - empty: true\n", t);
    expect_err(y, 4, 16, "is not a GTID tag");
    snprintf(y, sizeof y, "%s  - gtid_next: 3e11fa47-71ca-11e1-9e33-c80aa9429562:5\n  - empty: true\n", t);
    expect_err(y, 4, 16, "gtid_next must be AUTOMATIC or AUTOMATIC:<tag>");
    snprintf(y, sizeof y, "%s  - empty: true\n  - gtid_next: AUTOMATIC:x\n", t);
    expect_err(y, 5, 5, "a gtid_next switch must be followed by a transaction");
    snprintf(y, sizeof y, "%s  - gtid_next: AUTOMATIC:x\n  - gtid_next: AUTOMATIC\n  - empty: true\n", t);
    expect_err(y, 5, 5, "two gtid_next switches in a row");
}
END_TEST

static cdch_sc_column parse_type(const char *text, const char *cs, const char *coll, cdch_arena *a)
{
    cdch_sc_column col;
    memset(&col, 0, sizeof col);
    cdch_err e;
    ck_assert_msg(cdch_sc_parse_type(text, cs, coll, a, &col, &e) == 0, "%s: %s", text, e.msg);
    col.name = "c";
    col.def.nullable = true;
    return col;
}

static void type_err(const char *text, const char *needle)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_sc_column col;
    memset(&col, 0, sizeof col);
    cdch_err e;
    ck_assert_msg(cdch_sc_parse_type(text, NULL, NULL, &a, &col, &e) < 0, "%s parsed", text);
    ck_assert_msg(strstr(e.msg, needle), "%s: '%s' lacks '%s'", text, e.msg, needle);
    cdch_arena_free(&a);
}

/* Parse a value and check it encodes to hex (the row-image bytes). */
static void value_hex(const char *type, const char *cs, const char *text, const char *hex)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_sc_column col = parse_type(type, cs, NULL, &a);
    cdch_value v;
    cdch_err e;
    ck_assert_msg(cdch_sc_parse_value(&col, text, false, &a, &v, &e) == 0, "%s '%s': %s", type, text, e.msg);
    cdch_buf b = CDCH_BUF_INIT;
    ck_assert_msg(cdch_value_encode(&col.def, &v, &b, &e) == 0, "%s '%s' encode: %s", type, text, e.msg);
    tu_assert_hex(b.data, b.len, hex);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
}

static void value_err(const char *type, const char *text, const char *needle)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_sc_column col = parse_type(type, NULL, NULL, &a);
    cdch_value v;
    cdch_err e;
    ck_assert_msg(cdch_sc_parse_value(&col, text, false, &a, &v, &e) < 0, "%s '%s' parsed", type, text);
    ck_assert_msg(strstr(e.msg, needle), "%s '%s': '%s' lacks '%s'", type, text, e.msg, needle);
    cdch_arena_free(&a);
}

static const char *json_text(const cdch_json *j, cdch_buf *b)
{
    cdch_buf_reset(b);
    cdch_json_to_text(j, b);
    return cdch_buf_cstr(b);
}

/* ---- the full example -------------------------------------------------------------- */

static const char k_example[] =
    "# probes: every column type in and out of payloads\n"
    "name: basic-types\n"
    "description: every column type in and out of payloads\n"
    "server:\n"
    "  version: \"8.0.36\"\n"
    "  server_id: 7\n"
    "  server_uuid: 3e11fa47-71ca-11e1-9e33-c80aa9429562\n"
    "  gtid_mode: off\n"
    "  thread_id: 12\n"
    "  first_table_id: 100\n"
    "  first_gno: 5\n"
    "binlog:\n"
    "  checksum: NONE\n"
    "  row_image: MINIMAL\n"
    "  row_metadata: FULL\n"
    "  rows_query: true\n"
    "  partial_json: true\n"
    "  max_binlog_size: 64K\n"
    "  basename: mysql-bin\n"
    "  compression: flip\n"
    "  zstd_level: 19\n"
    "  zstd_content_size: true\n"
    "  row_event_max_size: 1024\n"
    "  start_time: \"2024-06-01 12:00:00\"\n"
    "  create_tables: false\n"
    "  end_with_stop: true\n"
    "databases:\n"
    "  - {name: shop, charset: latin1}\n"
    "tables:\n"
    "  - name: shop.orders\n"
    "    columns:\n"
    "      - {name: id, type: bigint unsigned, primary_key: true, auto_increment: true}\n"
    "      - {name: total, type: \"decimal(10,2)\", nullable: false}\n"
    "      - {name: note, type: \"varchar(100)\", charset: utf8mb4, collation: utf8mb4_0900_ai_ci}\n"
    "      - {name: status, type: \"enum('new','paid')\", nullable: false}\n"
    "      - {name: tags, type: \"set('a','b','c')\"}\n"
    "      - {name: doc, type: json}\n"
    "      - {name: secret, type: int, invisible: true, default: 42}\n"
    "      - {name: code, type: char(4)}\n"
    "  - name: docs\n"
    "    db: other\n"
    "    engine: MyISAM\n"
    "    columns:\n"
    "      - {name: id, type: int, primary_key: true}\n"
    "      - {name: doc, type: json, nullable: false}\n"
    "transactions:\n"
    "  - insert: {table: shop.orders, rows_query: \"INSERT INTO orders ...\", rows: [{total: \"12.5\", note: "
    "\"h\\u00e9llo\", status: new, tags: [a, c], doc: {\"k\": [1, 2]}, code: \"ab  \"}]}\n"
    "  - update: {table: shop.orders, rows: [{before: {id: 1}, after: {total: \"13.00\", status: paid}}]}\n"
    "  - transaction:\n"
    "      - insert: {table: shop.orders, rows: [{id: 10, total: 1}, {total: 2}]}\n"
    "      - delete: {table: shop.orders, rows: [{id: 10}]}\n"
    "  - ddl: {db: shop, sql: \"ALTER TABLE orders COMMENT 'x'\"}\n"
    "  - empty: true\n"
    "  - compression: on\n"
    "  - insert: {table: other.docs, rows: [{id: 1, doc: {name: Al, age: 25, tags: [x]}}]}\n"
    "  - update: {table: other.docs, rows: [{before: {id: 1}, json: {doc: [{op: replace, path: \"$.age\", value: 26}, "
    "{op: insert, path: $.city, value: Oslo}, {op: remove, path: \"$.tags[0]\"}]}}]}\n"
    "  - compression: off\n"
    "  - bulk: {generator: json_staging, table: other.docs, seed: 42, transactions: 3, rows_per_transaction: 5, "
    "doc_keys: 4, value_bytes: 8}\n"
    "  - bulk: {generator: inserts, table: shop.orders, seed: 1, transactions: 2, rows_per_transaction: 10, "
    "target_bytes: 20M}\n";

START_TEST(test_example_settings)
{
    cdch_scenario *s = load(k_example);
    ck_assert_str_eq(s->name, "basic-types");
    ck_assert_str_eq(s->description, "every column type in and out of payloads");
    ck_assert_str_eq(s->path, "t.yaml");
    ck_assert_str_eq(s->server.version, "8.0.36");
    ck_assert_uint_eq(s->server.server_id, 7);
    ck_assert_uint_eq(s->server.uuid[0], 0x3e);
    ck_assert_uint_eq(s->server.uuid[15], 0x62);
    ck_assert(!s->server.gtid_mode);
    ck_assert_uint_eq(s->server.thread_id, 12);
    ck_assert_uint_eq(s->server.first_table_id, 100);
    ck_assert_uint_eq(s->server.first_gno, 5);
    ck_assert(!s->binlog.checksum);
    ck_assert_int_eq(s->binlog.row_image, CDCH_ROW_IMAGE_MINIMAL);
    ck_assert(s->binlog.row_metadata_full);
    ck_assert(s->binlog.rows_query);
    ck_assert(s->binlog.partial_json);
    ck_assert_uint_eq(s->binlog.max_size, 65536);
    ck_assert_str_eq(s->binlog.basename, "mysql-bin");
    ck_assert_int_eq(s->binlog.compression, CDCH_COMPRESSION_FLIP);
    ck_assert_int_eq(s->binlog.zstd_level, 19);
    ck_assert(s->binlog.zstd_content_size);
    ck_assert_uint_eq(s->binlog.row_event_max_size, 1024);
    ck_assert_uint_eq(s->binlog.start_time, 1717243200);
    ck_assert(!s->binlog.create_tables);
    ck_assert(s->binlog.end_with_stop);
    cdch_scenario_free(s);
}
END_TEST

START_TEST(test_defaults)
{
    cdch_scenario *s = load("name: x\n");
    ck_assert_str_eq(s->server.version, "8.4.9"); /* CDCH_SC_DEFAULT_VERSION: the 8.4 LTS */
    ck_assert_str_eq(s->server.version, CDCH_SC_DEFAULT_VERSION);
    ck_assert(!s->server.native_password); /* 8.4: mysql_native_password not loaded by default */
    ck_assert_uint_eq(s->server.server_id, 1);
    ck_assert(s->server.gtid_mode);
    ck_assert_uint_eq(s->server.thread_id, 8);
    ck_assert_uint_eq(s->server.first_table_id, 90);
    ck_assert_uint_eq(s->server.first_gno, 1);
    ck_assert(s->binlog.checksum);
    ck_assert_int_eq(s->binlog.row_image, CDCH_ROW_IMAGE_FULL);
    ck_assert(!s->binlog.row_metadata_full);
    ck_assert_uint_eq(s->binlog.max_size, 1ULL << 30);
    ck_assert_str_eq(s->binlog.basename, "binlog");
    ck_assert_int_eq(s->binlog.compression, CDCH_COMPRESSION_BOTH);
    ck_assert_int_eq(s->binlog.zstd_level, 3);
    ck_assert_uint_eq(s->binlog.row_event_max_size, 8192);
    ck_assert_uint_eq(s->binlog.start_time, 1704067200);
    ck_assert(s->binlog.create_tables);
    ck_assert(!s->binlog.end_with_stop);
    ck_assert_uint_eq(s->nitems, 0);
    cdch_scenario_free(s);

    /* the name defaults to the file name */
    cdch_err e;
    s = cdch_scenario_load_mem("description: d\n", 15, "scenarios/json-wide.yaml", &e);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s->name, "json-wide");
    cdch_scenario_free(s);
}
END_TEST

START_TEST(test_start_key)
{
    cdch_scenario *s = load("description: d\nstart: {skip_txns: 3}\n");
    ck_assert_uint_eq(s->start_skip_txns, 3);
    cdch_scenario_free(s);
    s = load("description: d\n");
    ck_assert_uint_eq(s->start_skip_txns, 0);
    cdch_scenario_free(s);
    expect_err("description: d\nstart: {skip_txns: 0}\n", 2, 20, "start.skip_txns");
    expect_err("description: d\nstart: {skip: 2}\n", 2, 9, "skip");
    /* start: attach (the schema pre-exists), or {attach: BOOL}; not with skip_txns */
    s = load("description: d\nstart: attach\n");
    ck_assert(s->start_attach);
    ck_assert_uint_eq(s->start_skip_txns, 0);
    cdch_scenario_free(s);
    s = load("description: d\nstart: {attach: true}\n");
    ck_assert(s->start_attach);
    cdch_scenario_free(s);
    s = load("description: d\nstart: {attach: false, skip_txns: 2}\n");
    ck_assert(!s->start_attach);
    ck_assert_uint_eq(s->start_skip_txns, 2);
    cdch_scenario_free(s);
    s = load("description: d\n");
    ck_assert(!s->start_attach);
    cdch_scenario_free(s);
    expect_err("description: d\nstart: attached\n", 2, 8, "attach");
    expect_err("description: d\nstart: {skip_txns: 2, attach: yes}\n", 2, 31, "exclude each other");
}
END_TEST

START_TEST(test_example_schema)
{
    cdch_scenario *s = load(k_example);
    ck_assert_uint_eq(s->ndbs, 2);
    ck_assert_str_eq(s->dbs[0].name, "shop");
    ck_assert_str_eq(s->dbs[0].charset, "latin1");
    ck_assert_str_eq(s->dbs[0].collation, "latin1_swedish_ci");
    ck_assert_str_eq(s->dbs[1].name, "other"); /* implicit */
    ck_assert_str_eq(s->dbs[1].collation, "utf8mb4_0900_ai_ci");
    ck_assert_uint_eq(s->ntables, 2);
    const cdch_sc_table *t = &s->tables[0];
    ck_assert_str_eq(t->db, "shop");
    ck_assert_str_eq(t->name, "orders");
    ck_assert_uint_eq(t->table_id, 100);
    ck_assert_uint_eq(s->tables[1].table_id, 101);
    ck_assert(t->transactional);
    ck_assert(!s->tables[1].transactional);
    ck_assert_str_eq(s->tables[1].engine, "MyISAM");
    ck_assert_uint_eq(t->ncols, 8);
    ck_assert(t->cols[0].primary_key && t->cols[0].auto_increment && !t->cols[0].def.nullable);
    ck_assert(t->cols[0].def.is_unsigned);
    ck_assert_str_eq(t->cols[0].sql_type, "bigint unsigned");
    ck_assert_str_eq(t->cols[1].def.name, "total");
    ck_assert(!t->cols[1].def.nullable);
    ck_assert_uint_eq(t->cols[2].def.collation, 255);
    ck_assert_uint_eq(t->cols[2].def.meta, 400);
    ck_assert_uint_eq(t->cols[3].def.collation, 8); /* the database's latin1 */
    ck_assert_uint_eq(t->cols[3].def.nlabels, 2);
    ck_assert_str_eq(t->cols[3].def.labels[1], "paid");
    ck_assert(t->cols[6].invisible);
    ck_assert_str_eq(t->cols[6].default_sql, "42");
    ck_assert_str_eq(t->cols[7].charset, "latin1");
    ck_assert_ptr_eq(cdch_scenario_table(s, "other", "docs"), &s->tables[1]);
    ck_assert_ptr_eq(cdch_scenario_table(s, NULL, "shop.orders"), &s->tables[0]);
    ck_assert_ptr_eq(cdch_scenario_table(s, NULL, "orders"), &s->tables[0]);
    ck_assert_ptr_null(cdch_scenario_table(s, NULL, "nope"));
    cdch_scenario_free(s);
}
END_TEST

START_TEST(test_example_rows)
{
    cdch_scenario *s = load(k_example);
    cdch_buf b = CDCH_BUF_INIT;
    ck_assert_uint_eq(s->nitems, 9);
    /* insert: auto_increment id, decimal canonical, latin1? no: note is utf8mb4 */
    const cdch_sc_txn *t0 = &s->items[0].u.txn;
    ck_assert_int_eq(s->items[0].kind, CDCH_SC_ITEM_TXN);
    ck_assert_int_eq(t0->kind, CDCH_SC_TXN_DML);
    ck_assert_uint_eq(t0->nstmts, 1);
    ck_assert_str_eq(t0->stmts[0].rows_query, "INSERT INTO orders ...");
    const cdch_value *r = t0->stmts[0].rows[0].after;
    ck_assert_ptr_null(t0->stmts[0].rows[0].before);
    ck_assert_int_eq(r[0].kind, CDCH_V_UINT);
    ck_assert_uint_eq(r[0].u.u, 1);
    ck_assert_int_eq(r[1].kind, CDCH_V_DECIMAL);
    ck_assert_str_eq((const char *)r[1].u.bytes.ptr, "12.50");
    tu_assert_hex(r[2].u.bytes.ptr, r[2].u.bytes.len, "68c3a96c6c6f");
    ck_assert_int_eq(r[3].kind, CDCH_V_ENUM);
    ck_assert_uint_eq(r[3].u.u, 1);
    ck_assert_int_eq(r[4].kind, CDCH_V_SET);
    ck_assert_uint_eq(r[4].u.u, 5);
    ck_assert_str_eq(json_text(r[5].u.json, &b), "{\"k\":[1,2]}");
    ck_assert_int_eq(r[6].kind, CDCH_V_INT); /* default 42 */
    ck_assert_int_eq(r[6].u.i, 42);
    ck_assert_uint_eq(r[7].u.bytes.len, 2); /* CHAR pads stripped */
    ck_assert_int_eq(t0->compress, CDCH_SC_COMPRESS_DEFAULT);

    /* update: before is the full current row, after = before + changes */
    const cdch_sc_row *u = &s->items[1].u.txn.stmts[0].rows[0];
    ck_assert_int_eq(s->items[1].u.txn.stmts[0].op, CDCH_SC_UPDATE);
    ck_assert(cdch_value_equal(&u->before[2], &r[2]));
    ck_assert_str_eq((const char *)u->before[1].u.bytes.ptr, "12.50");
    ck_assert_str_eq((const char *)u->after[1].u.bytes.ptr, "13.00");
    ck_assert_uint_eq(u->after[3].u.u, 2);
    ck_assert(cdch_value_equal(&u->after[5], &r[5]));

    /* multi-statement transaction: auto_increment continues after 10 */
    const cdch_sc_txn *t2 = &s->items[2].u.txn;
    ck_assert_uint_eq(t2->nstmts, 2);
    ck_assert_uint_eq(t2->stmts[0].rows[1].after[0].u.u, 11);
    ck_assert_int_eq(t2->stmts[1].op, CDCH_SC_DELETE);
    ck_assert_str_eq((const char *)t2->stmts[1].rows[0].before[1].u.bytes.ptr, "1.00");
    ck_assert_int_eq(t2->stmts[1].rows[0].before[3].u.u, 1); /* NOT NULL enum: first member */
    ck_assert_int_eq(t2->stmts[1].rows[0].before[4].kind, CDCH_V_NULL);

    ck_assert_int_eq(s->items[3].u.txn.kind, CDCH_SC_TXN_DDL);
    ck_assert_str_eq(s->items[3].u.txn.ddl_db, "shop");
    ck_assert_str_eq(s->items[3].u.txn.ddl_sql, "ALTER TABLE orders COMMENT 'x'");
    ck_assert_int_eq(s->items[4].u.txn.kind, CDCH_SC_TXN_EMPTY);
    ck_assert_int_eq(s->items[5].u.txn.compress, CDCH_SC_COMPRESS_ON);

    /* partial JSON */
    const cdch_sc_row *j = &s->items[6].u.txn.stmts[0].rows[0];
    ck_assert_uint_eq(j->n_json_updates, 1);
    ck_assert_uint_eq(j->json_updates[0].column, 1);
    const cdch_json_diff *d = &j->json_updates[0].diff;
    ck_assert_uint_eq(d->count, 3);
    ck_assert_int_eq(d->ops[0].op, CDCH_JSON_DIFF_REPLACE);
    ck_assert_str_eq(d->ops[0].path, "$.age");
    ck_assert_int_eq(d->ops[1].op, CDCH_JSON_DIFF_INSERT);
    ck_assert_str_eq(d->ops[1].path, "$.city");
    ck_assert_int_eq(d->ops[2].op, CDCH_JSON_DIFF_REMOVE);
    ck_assert_str_eq(d->ops[2].path, "$.tags[0]");
    ck_assert_ptr_null(d->ops[2].value);
    ck_assert_str_eq(json_text(j->before[1].u.json, &b), "{\"age\":25,\"name\":\"Al\",\"tags\":[\"x\"]}");
    ck_assert_str_eq(json_text(j->after[1].u.json, &b), "{\"age\":26,\"city\":\"Oslo\",\"name\":\"Al\",\"tags\":[]}");

    /* bulk items */
    ck_assert_int_eq(s->items[7].kind, CDCH_SC_ITEM_BULK);
    const cdch_sc_bulk *bk = &s->items[7].u.bulk;
    ck_assert_int_eq(bk->kind, CDCH_BULK_JSON_STAGING);
    ck_assert_ptr_eq(bk->table, &s->tables[1]);
    ck_assert_uint_eq(bk->seed, 42);
    ck_assert_uint_eq(bk->transactions, 3);
    ck_assert_uint_eq(bk->rows_per_txn, 5);
    ck_assert_uint_eq(bk->doc_keys, 4);
    ck_assert_uint_eq(bk->value_bytes, 8);
    ck_assert_uint_eq(bk->keys, 5);
    ck_assert_int_eq(bk->compress, CDCH_SC_COMPRESS_OFF);
    const cdch_sc_bulk *bi = &s->items[8].u.bulk;
    ck_assert_int_eq(bi->kind, CDCH_BULK_INSERTS);
    ck_assert_uint_eq(bi->target_bytes, 20u << 20);
    ck_assert_uint_eq(bi->first_id, 12); /* after the rows inserted before */
    cdch_buf_free(&b);
    cdch_scenario_free(s);
}
END_TEST

/* ---- types ---------------------------------------------------------------------------- */

START_TEST(test_types_numeric)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_sc_column c;
    c = parse_type("TINYINT", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 1);
    ck_assert(!c.def.is_unsigned);
    c = parse_type("smallint unsigned", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 2);
    ck_assert(c.def.is_unsigned);
    c = parse_type("mediumint", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 9);
    c = parse_type("integer(11) zerofill", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 3);
    ck_assert(c.def.is_unsigned);
    ck_assert_str_eq(c.sql_type, "int unsigned zerofill");
    c = parse_type("bigint", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 8);
    ck_assert_uint_eq(c.def.meta, 0);
    c = parse_type("bool", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 1);
    ck_assert_str_eq(c.sql_type, "tinyint(1)");
    c = parse_type("decimal(10,2)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 246);
    ck_assert_uint_eq(c.def.meta, 0x0a02);
    c = parse_type("NUMERIC", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.meta, 0x0a00);
    ck_assert_str_eq(c.sql_type, "decimal(10,0)");
    c = parse_type("decimal(65,30) unsigned", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.meta, 65 << 8 | 30);
    ck_assert_str_eq(c.sql_type, "decimal(65,30) unsigned");
    c = parse_type("float", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 4);
    ck_assert_uint_eq(c.def.meta, 4);
    c = parse_type("float(30)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 5);
    c = parse_type("double precision", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 5);
    ck_assert_uint_eq(c.def.meta, 8);
    c = parse_type("real", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 5);
    c = parse_type("bit(10)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 16);
    ck_assert_uint_eq(c.def.meta, 0x0102);
    ck_assert_uint_eq(c.char_length, 10);
    c = parse_type("bit", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.meta, 0x0001);
    c = parse_type("bit(64)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.meta, 0x0800);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(test_types_temporal)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_sc_column c;
    c = parse_type("date", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 10);
    c = parse_type("datetime(6)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 18);
    ck_assert_uint_eq(c.def.meta, 6);
    c = parse_type("datetime", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 18);
    ck_assert_uint_eq(c.def.meta, 0);
    c = parse_type("timestamp(3)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 17);
    ck_assert_uint_eq(c.def.meta, 3);
    ck_assert_str_eq(c.sql_type, "timestamp(3)");
    c = parse_type("time", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 19);
    c = parse_type("year(4)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 13);
    ck_assert(c.def.is_unsigned);
    ck_assert_str_eq(c.sql_type, "year");
    cdch_arena_free(&a);
}
END_TEST

START_TEST(test_types_strings)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_sc_column c;
    /* CHAR(128) utf8mb4: meta de 00 (binlog-format.md section 6 fixture) */
    c = parse_type("char(128)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 254);
    ck_assert_uint_eq(c.def.meta, 0xde00);
    ck_assert_uint_eq(c.def.real_type, 254);
    ck_assert_uint_eq(c.def.length, 512);
    ck_assert_uint_eq(c.char_length, 128);
    ck_assert_uint_eq(c.mbmaxlen, 4);
    ck_assert_uint_eq(c.def.collation, 255);
    ck_assert_str_eq(c.charset, "utf8mb4");
    ck_assert_str_eq(c.collation, "utf8mb4_0900_ai_ci");
    c = parse_type("char(10)", "latin1", NULL, &a);
    ck_assert_uint_eq(c.def.meta, 0xfe0a);
    ck_assert_uint_eq(c.def.collation, 8);
    c = parse_type("char", NULL, "utf8mb4_bin", &a);
    ck_assert_uint_eq(c.def.meta, 0xfe04);
    ck_assert_uint_eq(c.def.collation, 46);
    /* VARCHAR(300) utf8mb4 -> 1200 bytes (fixture meta b0 04) */
    c = parse_type("varchar(300)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 15);
    ck_assert_uint_eq(c.def.meta, 1200);
    c = parse_type("varchar(10) character set utf8 collate utf8_bin", "latin1", NULL, &a);
    ck_assert_str_eq(c.charset, "utf8mb3");
    ck_assert_str_eq(c.collation, "utf8mb3_bin");
    ck_assert_uint_eq(c.def.collation, 83);
    ck_assert_uint_eq(c.def.meta, 30);
    c = parse_type("nvarchar(5)", NULL, NULL, &a);
    ck_assert_str_eq(c.charset, "utf8mb3");
    c = parse_type("binary(16)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 254);
    ck_assert_uint_eq(c.def.meta, 0xfe10);
    ck_assert_uint_eq(c.def.collation, 63);
    ck_assert_ptr_null(c.charset);
    c = parse_type("varbinary(100)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 15);
    ck_assert_uint_eq(c.def.meta, 100);
    ck_assert_uint_eq(c.def.collation, 63);
    static const struct { const char *t; unsigned meta; unsigned coll; } blobs[] = {
        {"tinyblob", 1, 63}, {"blob", 2, 63}, {"mediumblob", 3, 63}, {"longblob", 4, 63}, {"tinytext", 1, 255},
        {"text", 2, 255}, {"mediumtext", 3, 255}, {"longtext", 4, 255}, {"text(60)", 1, 255}, {"text(300)", 2, 255},
        {"blob(70000)", 3, 63},
    };
    for (size_t i = 0; i < sizeof blobs / sizeof blobs[0]; i++) {
        c = parse_type(blobs[i].t, NULL, NULL, &a);
        ck_assert_uint_eq(c.def.type, 252);
        ck_assert_msg(c.def.meta == blobs[i].meta, "%s meta %u", blobs[i].t, c.def.meta);
        ck_assert_uint_eq(c.def.collation, blobs[i].coll);
    }
    c = parse_type("enum('a','b')", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 254);
    ck_assert_uint_eq(c.def.meta, 0xf701);
    ck_assert_uint_eq(c.def.real_type, 247);
    ck_assert_uint_eq(c.def.length, 1);
    c = parse_type("ENUM('it''s', \"b\\\"q\",'x  ')", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.nlabels, 3);
    ck_assert_str_eq(c.def.labels[0], "it's");
    ck_assert_str_eq(c.def.labels[1], "b\"q");
    ck_assert_str_eq(c.def.labels[2], "x");
    ck_assert_str_eq(c.sql_type, "enum('it''s','b\"q','x')");
    c = parse_type("set('a','b','c')", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.meta, 0xf801);
    ck_assert_uint_eq(c.def.real_type, 248);
    /* SET pack lengths 1,2,3,4,8 */
    static const struct { unsigned n, pack; } sets[] = {{8, 1}, {9, 2}, {16, 2}, {17, 3}, {24, 3}, {25, 4}, {32, 4},
                                                          {33, 8}, {64, 8}};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        char t[600] = "set(";
        for (unsigned k = 0; k < sets[i].n; k++)
            snprintf(t + strlen(t), sizeof t - strlen(t), "%s'm%u'", k ? "," : "", k);
        strcat(t, ")");
        c = parse_type(t, NULL, NULL, &a);
        ck_assert_msg(c.def.length == sets[i].pack, "set of %u: pack %u", sets[i].n, c.def.length);
        ck_assert_uint_eq(c.def.meta, 248u << 8 | sets[i].pack);
    }
    /* ENUM with 256 members: 2 bytes */
    {
        char *t = malloc(256 * 8 + 16);
        strcpy(t, "enum(");
        for (unsigned k = 0; k < 256; k++)
            sprintf(t + strlen(t), "%s'%u'", k ? "," : "", k);
        strcat(t, ")");
        c = parse_type(t, NULL, NULL, &a);
        ck_assert_uint_eq(c.def.meta, 0xf702);
        free(t);
    }
    c = parse_type("json", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 245);
    ck_assert_uint_eq(c.def.meta, 4);
    c = parse_type("geometry", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 255);
    ck_assert_uint_eq(c.def.meta, 4);
    ck_assert_uint_eq(c.def.geometry_type, 0);
    c = parse_type("multipolygon", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.geometry_type, 6);
    c = parse_type("vector(3)", NULL, NULL, &a);
    ck_assert_uint_eq(c.def.type, 242);
    ck_assert_uint_eq(c.def.meta, 4);
    ck_assert_uint_eq(c.char_length, 3);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(test_types_errors)
{
    type_err("integr", "unknown column type 'integr' (did you mean 'integer'?)");
    type_err("decimal(70,2)", "precision 70 is out of range 1..65");
    type_err("decimal(5,6)", "scale 6 is larger than its precision 5");
    type_err("decimal(40,31)", "scale 31 is out of range 0..30");
    type_err("datetime(7)", "0..6");
    type_err("bit(65)", "1..64");
    type_err("bit(0)", "1..64");
    type_err("char(256)", "at most 255");
    type_err("varchar", "needs a length");
    type_err("varchar(20000)", "80000 bytes");
    type_err("varbinary(70000)", "at most 65535");
    type_err("enum()", "expected a quoted member");
    type_err("enum('a','A')", "twice");
    type_err("text unsigned", "UNSIGNED");
    type_err("int character set latin1", "do not apply");
    type_err("varchar(5) collate nope_ci", "unknown collation");
    type_err("varchar(5) charset klingon", "unknown character set");
    type_err("int foo", "unexpected 'foo'");
    type_err("vector(20000)", "1..16383");
    {
        char t[1000] = "set(";
        for (unsigned k = 0; k < 65; k++)
            snprintf(t + strlen(t), sizeof t - strlen(t), "%s'm%u'", k ? "," : "", k);
        strcat(t, ")");
        type_err(t, "more than 64");
    }
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_sc_column c;
    cdch_err e;
    ck_assert_int_lt(cdch_sc_parse_type("varchar(5)", "utf8mb4", "latin1_bin", &a, &c, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "not valid for character set"));
    cdch_arena_free(&a);
}
END_TEST

START_TEST(test_collations)
{
    ck_assert_uint_eq(cdch_collation_id("utf8mb4_0900_ai_ci"), 255);
    ck_assert_uint_eq(cdch_collation_id("utf8mb4_general_ci"), 45);
    ck_assert_uint_eq(cdch_collation_id("utf8mb4_bin"), 46);
    ck_assert_uint_eq(cdch_collation_id("utf8mb3_general_ci"), 33);
    ck_assert_uint_eq(cdch_collation_id("utf8_general_ci"), 33);
    ck_assert_uint_eq(cdch_collation_id("utf8mb3_bin"), 83);
    ck_assert_uint_eq(cdch_collation_id("latin1_swedish_ci"), 8);
    ck_assert_uint_eq(cdch_collation_id("latin1_bin"), 47);
    ck_assert_uint_eq(cdch_collation_id("ascii_general_ci"), 11);
    ck_assert_uint_eq(cdch_collation_id("binary"), 63);
    ck_assert_uint_eq(cdch_collation_id("utf8mb4_0900_as_cs"), 278);
    ck_assert_uint_eq(cdch_collation_id("utf8mb4_0900_bin"), 309);
    ck_assert_uint_eq(cdch_collation_id("utf16_general_ci"), 54);
    ck_assert_uint_eq(cdch_collation_id("UTF8MB4_UNICODE_CI"), 224);
    ck_assert_uint_eq(cdch_collation_id("nope"), 0);
    ck_assert_str_eq(cdch_collation_name(255), "utf8mb4_0900_ai_ci");
    ck_assert_str_eq(cdch_collation_name(33), "utf8mb3_general_ci");
    ck_assert_ptr_null(cdch_collation_name(9999));
    ck_assert_str_eq(cdch_default_collation("utf8mb4"), "utf8mb4_0900_ai_ci");
    ck_assert_str_eq(cdch_default_collation("utf8"), "utf8mb3_general_ci");
    ck_assert_str_eq(cdch_default_collation("latin1"), "latin1_swedish_ci");
    ck_assert_str_eq(cdch_default_collation("binary"), "binary");
    ck_assert_str_eq(cdch_default_collation("gb18030"), "gb18030_chinese_ci");
    ck_assert_ptr_null(cdch_default_collation("klingon"));
    ck_assert_uint_eq(cdch_charset_mbmaxlen("utf8mb4"), 4);
    ck_assert_uint_eq(cdch_charset_mbmaxlen("utf8mb3"), 3);
    ck_assert_uint_eq(cdch_charset_mbmaxlen("latin1"), 1);
    ck_assert_uint_eq(cdch_charset_mbmaxlen("utf16"), 4);
    ck_assert_uint_eq(cdch_charset_mbmaxlen("ucs2"), 2);
    ck_assert_uint_eq(cdch_charset_mbmaxlen("klingon"), 0);
}
END_TEST

/* ---- values ------------------------------------------------------------------------------ */

START_TEST(test_values_numeric)
{
    value_hex("tinyint", NULL, "-128", "80");
    value_hex("tinyint unsigned", NULL, "255", "ff");
    value_hex("smallint", NULL, "-2", "feff");
    value_hex("mediumint unsigned", NULL, "16777215", "ffffff");
    value_hex("int", NULL, " 7 ", "07000000");
    value_hex("bigint", NULL, "-9223372036854775808", "0000000000000080");
    value_hex("bigint unsigned", NULL, "18446744073709551615", "ffffffffffffffff");
    value_hex("tinyint", NULL, "true", "01");
    value_hex("decimal(10,2)", NULL, "12.5", "8000000c32");
    value_hex("decimal(10,2)", NULL, "+0012.50", "8000000c32");
    value_hex("decimal(5,0)", NULL, "-0", "800000");
    value_hex("float", NULL, "1.5", "0000c03f");
    value_hex("double", NULL, "-2", "00000000000000c0");
    value_hex("double", NULL, "1e3", "0000000000408f40");
    value_hex("year", NULL, "2024", "7c");
    value_hex("year", NULL, "0", "00");
    value_hex("bit(10)", NULL, "b'1000000001'", "0201");
    value_hex("bit(10)", NULL, "0x201", "0201");
    value_hex("bit(3)", NULL, "5", "05");
    value_hex("bit(64)", NULL, "18446744073709551615", "ffffffffffffffff");

    value_err("tinyint unsigned", "300", "value 300 out of range for tinyint unsigned (0..255)");
    value_err("tinyint", "-129", "out of range for tinyint (-128..127)");
    value_err("int unsigned", "-1", "out of range");
    value_err("bigint", "9223372036854775808", "out of range");
    value_err("bigint unsigned", "18446744073709551616", "out of range");
    value_err("int", "1.5", "expected an integer");
    value_err("int", "abc", "expected an integer");
    value_err("decimal(10,2)", "1.234", "3 fraction digits");
    value_err("decimal(4,2)", "123", "3 integer digits");
    value_err("decimal(4,2)", "1e3", "bad DECIMAL");
    value_err("decimal(4,2) unsigned", "-1", "no negative");
    value_err("float", "1e39", "out of range");
    value_err("double", "nan", "expected a number");
    value_err("float(7,3)", "1.2345", "more decimals than float(7,3) keeps (3)");
    value_hex("float(7,3)", NULL, "1.5", "0000c03f");
    value_err("year", "1900", "out of range for year");
    value_err("bit(3)", "8", "too wide for bit(3)");
    value_err("bit(3)", "b'1111'", "too wide");
    value_err("bit(3)", "b'12'", "expected a bit value");
    /* the value kinds cdch_value_encode expects */
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_sc_column c = parse_type("decimal(10,2)", NULL, NULL, &a);
    cdch_value v;
    cdch_err e;
    ck_assert_int_eq(cdch_sc_parse_value(&c, "007", false, &a, &v, &e), 0);
    ck_assert_int_eq(v.kind, CDCH_V_DECIMAL);
    ck_assert_str_eq((const char *)v.u.bytes.ptr, "7.00");
    ck_assert_int_eq(cdch_sc_parse_value(&c, "-0.5", false, &a, &v, &e), 0);
    ck_assert_str_eq((const char *)v.u.bytes.ptr, "-0.50");
    ck_assert_int_eq(cdch_sc_parse_value(&c, NULL, true, &a, &v, &e), 0);
    ck_assert_int_eq(v.kind, CDCH_V_NULL);
    c.def.nullable = false;
    ck_assert_int_lt(cdch_sc_parse_value(&c, NULL, true, &a, &v, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "NOT NULL"));
    cdch_arena_free(&a);
}
END_TEST

START_TEST(test_values_temporal)
{
    value_hex("date", NULL, "2024-02-29", "5dd00f");
    value_hex("date", NULL, "0000-00-00", "000000");
    value_hex("datetime", NULL, "2024-01-02 03:04:05", "99b2443105");
    value_hex("datetime(3)", NULL, "2024-01-02 03:04:05.120", "99b244310504b0");
    value_hex("timestamp", NULL, "2024-01-01 00:00:00", "65920080");
    value_hex("timestamp", NULL, "0000-00-00 00:00:00", "00000000");
    value_hex("time", NULL, "-01:00:00", "7ff000");
    value_hex("time(6)", NULL, "838:59:59.000000", "b46efb000000");
    value_err("date", "2023-02-30", "day out of range for February");
    value_err("date", "2024-13-01", "month 13");
    value_err("time", "25:61:00", "minutes and seconds must be 00..59");
    value_err("time", "839:00:00", "out of range");
    value_err("datetime", "2024-01-01 24:00:00", "out of range");
    value_err("datetime(2)", "2024-01-01 00:00:00.123", "more fraction digits than datetime(2)");
    value_err("timestamp", "2038-01-19 03:14:08", "out of range");
    value_err("timestamp", "1970-01-01 00:00:00", "out of range");
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_sc_column c = parse_type("timestamp(6)", NULL, NULL, &a);
    cdch_value v;
    cdch_err e;
    ck_assert_int_eq(cdch_sc_parse_value(&c, "2024-01-01 00:00:01.5", false, &a, &v, &e), 0);
    ck_assert_int_eq(v.kind, CDCH_V_TIMESTAMP);
    ck_assert_uint_eq(v.u.ts.sec, 1704067201);
    ck_assert_uint_eq(v.u.ts.usec, 500000);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(test_values_strings)
{
    value_hex("varchar(5)", NULL, "h\xc3\xa9llo", "0668c3a96c6c6f"); /* 5 characters, 6 bytes */
    value_hex("varchar(5)", "latin1", "h\xc3\xa9llo", "0568e96c6c6f");
    value_hex("varchar(5)", "latin1", "\xe2\x82\xac", "0180");          /* euro: cp1252 0x80 */
    value_hex("varchar(5)", "utf16", "a\xf0\x9f\x98\x80", "060061d83dde00");
    value_hex("varchar(5)", "utf16le", "a", "026100");
    value_hex("varchar(5)", "utf32", "a", "0400000061");
    value_hex("varchar(5)", "ucs2", "a", "020061");
    value_hex("char(5)", NULL, "ab   ", "026162");                   /* pads stripped */
    value_hex("char(5)", NULL, "  ab", "0420206162");                 /* leading spaces stay */
    value_hex("char(2)", "utf16", "a   ", "020061");
    value_hex("binary(4)", NULL, "ab", "026162");
    value_hex("varbinary(4)", NULL, "ab  ", "0461622020");
    value_hex("tinytext", NULL, "x", "0178");
    value_hex("blob", NULL, "xy", "02007879");
    value_hex("enum('new','paid')", NULL, "paid", "02");
    value_hex("enum('new','paid')", NULL, "PAID", "02"); /* _ci collation */
    value_hex("set('a','b','c')", NULL, "a,c", "05");
    value_hex("set('a','b','c')", NULL, "", "00");
    value_err("varchar(5)", "abcdef", "string of 6 characters is too long for varchar(5)");
    value_err("char(2)", "abc", "too long for char(2)");
    value_err("binary(2)", "abc", "3 bytes is too long for binary(2)");
}
END_TEST

START_TEST(test_values_strings_errors)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_value v;
    cdch_err e;
    cdch_sc_column c = parse_type("varchar(5)", "latin1", NULL, &a);
    ck_assert_int_lt(cdch_sc_parse_value(&c, "\xe4\xb8\xad", false, &a, &v, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "U+4E2D cannot be stored in latin1"));
    c = parse_type("varchar(5)", "utf8mb3", NULL, &a);
    ck_assert_int_lt(cdch_sc_parse_value(&c, "\xf0\x9f\x98\x80", false, &a, &v, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "utf8mb3 cannot store"));
    c = parse_type("varchar(5)", "ascii", NULL, &a);
    ck_assert_int_lt(cdch_sc_parse_value(&c, "\xc3\xa9", false, &a, &v, &e), 0);
    c = parse_type("enum('new','paid')", NULL, "utf8mb4_bin", &a);
    ck_assert_int_lt(cdch_sc_parse_value(&c, "PAID", false, &a, &v, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "'PAID' is not a member of enum('new','paid')"));
    c = parse_type("set('a','b')", NULL, NULL, &a);
    ck_assert_int_lt(cdch_sc_parse_value(&c, "a,z", false, &a, &v, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "'z' is not a member of set('a','b')"));
    c = parse_type("tinytext", NULL, NULL, &a);
    char big[300];
    memset(big, 'x', 299);
    big[299] = 0;
    ck_assert_int_lt(cdch_sc_parse_value(&c, big, false, &a, &v, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "at most 255 bytes"));
    cdch_arena_free(&a);
}
END_TEST

START_TEST(test_values_other)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf b = CDCH_BUF_INIT;
    cdch_value v;
    cdch_err e;
    cdch_sc_column c = parse_type("json", NULL, NULL, &a);
    ck_assert_int_eq(cdch_sc_parse_value(&c, "{\"b\":1,\"a\":[true,null]}", false, &a, &v, &e), 0);
    ck_assert_int_eq(v.kind, CDCH_V_JSON);
    ck_assert_str_eq(json_text(v.u.json, &b), "{\"a\":[true,null],\"b\":1}");
    ck_assert_int_lt(cdch_sc_parse_value(&c, "{bad", false, &a, &v, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "bad JSON text"));
    /* geometry from WKT: SRID 0, little-endian WKB */
    value_hex("point", NULL, "POINT(1 2)", "19000000" "00000000" "0101000000" "000000000000f03f" "0000000000000040");
    c = parse_type("polygon", NULL, NULL, &a);
    ck_assert_int_eq(cdch_sc_parse_value(&c, "POLYGON((0 0,1 0,1 1,0 0))", false, &a, &v, &e), 0);
    ck_assert_int_eq(v.kind, CDCH_V_GEOMETRY);
    ck_assert_uint_eq(v.u.geom.len, 1 + 4 + 4 + 4 + 4 * 16);
    ck_assert_int_lt(cdch_sc_parse_value(&c, "POLYGON((0 0,1 0,1 1,0 1))", false, &a, &v, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "not closed"));
    ck_assert_int_lt(cdch_sc_parse_value(&c, "POINT(1 2)", false, &a, &v, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "a point value does not fit a polygon column"));
    c = parse_type("geometry", NULL, NULL, &a);
    ck_assert_int_eq(cdch_sc_parse_value(&c, "GEOMETRYCOLLECTION(POINT(1 1), LINESTRING(0 0, 1 1))", false, &a, &v,
                                         &e), 0);
    ck_assert_int_eq(cdch_sc_parse_value(&c, "MULTIPOINT((1 1), 2 2)", false, &a, &v, &e), 0);
    ck_assert_int_eq(cdch_sc_parse_value(&c, "geometrycollection empty", false, &a, &v, &e), 0);
    ck_assert_int_lt(cdch_sc_parse_value(&c, "CIRCLE(1 1)", false, &a, &v, &e), 0);
    /* vector */
    value_hex("vector(3)", NULL, "[1, 2.5]", "080000000000803f00002040");
    value_err("vector(1)", "[1, 2]", "more than the 1 dimensions");
    value_err("vector(2)", "[]", "at least one element");
    cdch_buf_free(&b);
    cdch_arena_free(&a);
}
END_TEST

/* ---- rows in YAML ------------------------------------------------------------------------ */

#define T_KV                                                                                                  \
    "tables:\n"                                                                                               \
    "  - name: s.kv\n"                                                                                        \
    "    columns:\n"                                                                                          \
    "      - {name: id, type: int, primary_key: true}\n"                                                      \
    "      - {name: v, type: varchar(5)}\n"                                                                   \
    "      - {name: n, type: int, nullable: false}\n"                                                         \
    "      - {name: j, type: json}\n"

START_TEST(test_yaml_values)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_scenario *s = load(
        "tables:\n"
        "  - name: s.t\n"
        "    columns:\n"
        "      - {name: id, type: int, primary_key: true}\n"
        "      - {name: bin, type: varbinary(8)}\n"
        "      - {name: b64, type: blob}\n"
        "      - {name: tags, type: \"set('a','b','c')\"}\n"
        "      - {name: j1, type: json}\n"
        "      - {name: j2, type: json}\n"
        "      - {name: j3, type: json}\n"
        "      - {name: g, type: point}\n"
        "      - {name: g2, type: geometry}\n"
        "      - {name: txt, type: varchar(20)}\n"
        "      - {name: bits, type: bit(8)}\n"
        "      - {name: yb, type: tinyblob}\n"
        "transactions:\n"
        "  - insert:\n"
        "      table: s.t\n"
        "      rows:\n"
        "        - id: 1\n"
        "          bin: {hex: \"00ff10\"}\n"
        "          b64: {base64: \"aGk=\"}\n"
        "          tags: [c, a]\n"
        "          j1: [1, \"2\", 3.5, true, null, {x: ~}]\n"
        "          j2: {json_text: '{\"z\": 1, \"a\": \"s\"}'}\n"
        "          j3: \"just a string\"\n"
        "          g: {srid: 4326, wkt: \"POINT(10 20)\"}\n"
        "          g2: {wkb: \"0101000000000000000000f03f0000000000000040\"}\n"
        "          txt: 12.50\n"
        "          bits: b'1010'\n"
        "          yb: !!binary aGk=\n");
    const cdch_value *r = s->items[0].u.txn.stmts[0].rows[0].after;
    tu_assert_hex(r[1].u.bytes.ptr, r[1].u.bytes.len, "00ff10");
    ck_assert_uint_eq(r[2].u.bytes.len, 2);
    ck_assert(memcmp(r[2].u.bytes.ptr, "hi", 2) == 0);
    ck_assert_uint_eq(r[3].u.u, 5);
    ck_assert_str_eq(json_text(r[4].u.json, &b), "[1,\"2\",3.5,true,null,{\"x\":null}]");
    ck_assert_str_eq(json_text(r[5].u.json, &b), "{\"a\":\"s\",\"z\":1}");
    ck_assert_str_eq(json_text(r[6].u.json, &b), "\"just a string\"");
    ck_assert_uint_eq(r[7].u.geom.srid, 4326);
    ck_assert_uint_eq(r[7].u.geom.len, 21);
    ck_assert_uint_eq(r[8].u.geom.srid, 0);
    ck_assert_uint_eq(r[9].u.bytes.len, 5);
    ck_assert(memcmp(r[9].u.bytes.ptr, "12.50", 5) == 0); /* YAML text kept as written */
    ck_assert_uint_eq(r[10].u.u, 10);
    ck_assert_uint_eq(r[11].u.bytes.len, 2);
    ck_assert(memcmp(r[11].u.bytes.ptr, "hi", 2) == 0);
    /* every value encodes */
    for (size_t j = 0; j < s->tables[0].ncols; j++) {
        cdch_buf o = CDCH_BUF_INIT;
        cdch_err e;
        ck_assert_msg(cdch_value_encode(&s->tables[0].cols[j].def, &r[j], &o, &e) == 0, "col %zu: %s", j, e.msg);
        cdch_buf_free(&o);
    }
    cdch_buf_free(&b);
    cdch_scenario_free(s);
}
END_TEST

START_TEST(test_row_semantics)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_scenario *s = load(T_KV "transactions:\n"
                                 "  - insert: {table: s.kv, rows: [{id: 1, v: a, n: 5}, {id: 2, v: a, n: 6}, {id: 3}]}\n"
                                 "  - update: {table: s.kv, rows: [{before: {n: 6}, after: {v: b}}]}\n"
                                 "  - update: {table: s.kv, rows: [{before: {id: 2}, after: {id: 20}}]}\n"
                                 "  - delete: {table: s.kv, rows: [{v: a}]}\n"
                                 "  - update: {table: s.kv, rows: [{before: {id: 3}, after: {j: {a: 1}}}]}\n"
                                 "  - update: {table: s.kv, rows: [{before: {id: 3}, json: {j: [{op: insert, "
                                 "path: \"$.\\\"b c\\\"\", value: [1]}, {op: insert, path: \"$.\\\"b c\\\"[5]\", value: "
                                 "2}, {op: replace, path: $, value: {json_text: '[0]'}}]}}]}\n");
    /* {id: 3}: omitted columns take defaults (NULL, or 0 for NOT NULL) */
    const cdch_value *r3 = s->items[0].u.txn.stmts[0].rows[2].after;
    ck_assert_int_eq(r3[1].kind, CDCH_V_NULL);
    ck_assert_int_eq(r3[2].kind, CDCH_V_INT);
    ck_assert_int_eq(r3[2].u.i, 0);
    /* before picked by n=6 is the full row 2 */
    const cdch_sc_row *u = &s->items[1].u.txn.stmts[0].rows[0];
    ck_assert_int_eq(u->before[0].u.i, 2);
    ck_assert_int_eq(u->after[0].u.i, 2);
    ck_assert_int_eq(u->after[2].u.i, 6);
    ck_assert(memcmp(u->after[1].u.bytes.ptr, "b", 1) == 0);
    /* key change */
    u = &s->items[2].u.txn.stmts[0].rows[0];
    ck_assert(memcmp(u->before[1].u.bytes.ptr, "b", 1) == 0);
    ck_assert_int_eq(u->after[0].u.i, 20);
    /* delete where v = 'a': only row 1 is left with it */
    ck_assert_int_eq(s->items[3].u.txn.stmts[0].rows[0].before[0].u.i, 1);
    const cdch_sc_row *j = &s->items[5].u.txn.stmts[0].rows[0];
    ck_assert_str_eq(j->json_updates[0].diff.ops[0].path, "$.\"b c\"");
    ck_assert_str_eq(j->json_updates[0].diff.ops[1].path, "$.\"b c\"[5]");
    ck_assert_str_eq(j->json_updates[0].diff.ops[2].path, "$");
    ck_assert_str_eq(json_text(j->after[3].u.json, &b), "[0]");
    cdch_scenario_free(s);

    /* json insert into an array appends past the end and inserts before an index */
    s = load(T_KV "transactions:\n"
                  "  - insert: {table: s.kv, rows: [{id: 1, j: {a: [1, 2]}}]}\n"
                  "  - update: {table: s.kv, rows: [{before: {id: 1}, json: {j: [{op: insert, path: \"$.a[9]\", "
                  "value: 3}, {op: insert, path: \"$.a[0]\", value: 0}, {op: replace, path: \"$.a[1]\", value: "
                  "x}]}}]}\n");
    ck_assert_str_eq(json_text(s->items[1].u.txn.stmts[0].rows[0].after[3].u.json, &b), "{\"a\":[0,\"x\",2,3]}");
    cdch_scenario_free(s);

    /* after a bulk item the table's rows are unknown: rows are taken as written */
    s = load("tables:\n"
             "  - name: s.c\n"
             "    columns: [{name: id, type: int, primary_key: true}, {name: n, type: int}]\n"
             "transactions:\n"
             "  - bulk: {generator: random_keys, table: s.c, transactions: 2, keys: 10}\n"
             "  - update: {table: s.c, rows: [{before: {id: 5, n: 3}, after: {n: 4}}]}\n"
             "  - delete: {table: s.c, rows: [{id: 7}]}\n");
    ck_assert_int_eq(s->items[1].u.txn.stmts[0].rows[0].before[1].u.i, 3);
    ck_assert_int_eq(s->items[2].u.txn.stmts[0].rows[0].before[1].kind, CDCH_V_NULL);
    cdch_scenario_free(s);
    cdch_buf_free(&b);
}
END_TEST

START_TEST(test_version_features)
{
    cdch_scenario *s = load("server: {version: 9.1.0}\n"
                            "tables: [{name: s.v, columns: [{name: id, type: int, primary_key: true}, "
                            "{name: e, type: vector(2)}]}]\n"
                            "transactions:\n"
                            "  - insert: {table: s.v, rows: [{id: 1, e: [0.5, -1]}, {id: 2}]}\n");
    const cdch_value *r = s->items[0].u.txn.stmts[0].rows[0].after;
    ck_assert_int_eq(r[1].kind, CDCH_V_VECTOR);
    tu_assert_hex(r[1].u.bytes.ptr, r[1].u.bytes.len, "0000003f000080bf");
    ck_assert_int_eq(s->items[0].u.txn.stmts[0].rows[1].after[1].kind, CDCH_V_NULL);
    cdch_scenario_free(s);
    s = load("server: {version: 8.4.2-log}\n");
    cdch_scenario_free(s);
}
END_TEST

/* ---- errors --------------------------------------------------------------------------------- */

START_TEST(test_errors_settings)
{
    expect_err("tabels: []\n", 1, 1, "unknown key 'tabels' in the scenario (did you mean 'tables'?)");
    expect_err("name: x\nfoo: 1\n", 2, 1, "unknown key 'foo' in the scenario (expected one of: name, description");
    expect_err("server: {version: \"8.0.19\"}\n", 1, 19, "server.version 8.0.19 is not supported");
    expect_err("server: {version: \"5.7.40\"}\n", 1, 19, "not supported");
    expect_err("server: {version: eight}\n", 1, 19, "not a MySQL version");
    expect_err("server:\n  server_uuid: 3e11fa47-71ca-11e1-9e33-c80aa942956\n", 2, 16,
               "server.server_uuid '3e11fa47-71ca-11e1-9e33-c80aa942956' is not a UUID");
    expect_err("server: [1, 2]\n", 1, 9, "server must be a mapping (key: value), got a list");
    expect_err("server: {server_id: 0}\n", 1, 21, "server.server_id must be an integer 1..4294967295, got '0'");
    expect_err("binlog:\n  zstd_level: 23\n", 2, 15, "binlog.zstd_level must be an integer 1..22, got '23'");
    expect_err("binlog:\n  compression: sometimes\n", 2, 16, "binlog.compression must be one of both|on|off|flip");
    expect_err("binlog:\n  max_binlog_size: 2G\n", 2, 20, "out of range 4096..1073741824");
    expect_err("binlog:\n  max_binlog_size: 12X\n", 2, 20, "expected a size");
    expect_err("binlog:\n  row_event_max_size: 1000\n", 2, 23, "multiple of 256");
    expect_err("binlog:\n  rows_query: maybe\n", 2, 15, "expected true or false");
    expect_err("binlog:\n  checksum: crc32\n  checksum: NONE\n", 3, 3, "duplicate key 'checksum' in binlog");
    expect_err("binlog:\n  start_time: \"2024-02-30 00:00:00\"\n", 2, 15, "day out of range for February");
    expect_err("tables: {name: x}\n", 1, 9, "tables must be a list, got a mapping");
    expect_err("", 1, 1, "the scenario file is empty");
    expect_err("name: x\n---\nname: y\n", 3, 1, "one YAML document");
}
END_TEST

START_TEST(test_errors_yaml_syntax)
{
    expect_err("name: x\ntables: [\n  {name: a\n", 4, 1, "YAML syntax error");
    expect_err("name: \"x\n", 2, 1, "YAML syntax error: found unexpected end of stream");
    expect_err("a: b: c\n", 1, 5, "YAML syntax error: mapping values are not allowed in this context");
}
END_TEST

START_TEST(test_errors_schema)
{
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: a, type: integr}\n", 4, 25,
               "column a: unknown column type 'integr' (did you mean 'integer'?)");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: a, type: \"decimal(70,2)\"}\n", 4, 25,
               "decimal precision 70 is out of range 1..65");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: a, type: \"decimal(5,6)\"}\n", 4, 25,
               "decimal scale 6 is larger than its precision 5");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: a, type: int}\n      - {name: A, type: int}\n", 5,
               16, "duplicate column name 'A' in s.t (first at line 4)");
    expect_err("tables:\n  - name: s.t\n    columns: [{name: a, type: int}]\n  - name: s.t\n    columns: [{name: a, "
               "type: int}]\n",
               4, 11, "table s.t is defined twice (first at line 2)");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: a, type: int, primary_key: true, nullable: true}\n",
               4, 59, "column a is in the primary key, so it cannot be nullable");
    expect_err("tables:\n  - name: s.t\n", 2, 5, "a table is missing the required key 'columns'");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {type: int}\n", 4, 9,
               "a column is missing the required key 'name'");
    expect_err("tables:\n  - name: t\n    columns: [{name: a, type: int}]\n", 2, 11,
               "table name 't' must be db.table (or give db:)");
    expect_err("tables:\n  - name: s.t\n    columns: [{name: a, type: int, primry_key: true}]\n", 3, 36,
               "unknown key 'primry_key' in a column (did you mean 'primary_key'?)");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - [a, int]\n", 4, 9, "a column must be a mapping");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: v, type: vector(3)}\n", 4, 25,
               "vector columns need server.version 9.0 or later (this is 8.4.9)");
    expect_err("server: {version: 8.0.22}\ntables:\n  - name: s.t\n    columns:\n      - {name: id, type: int}\n"
               "      - {name: v, type: int, invisible: true}\n",
               6, 41, "invisible columns need server.version 8.0.23");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: v, type: varchar(3), collation: latin1_bin, charset: "
               "utf8mb4}\n",
               4, 48, "collation 'latin1_bin' is not valid for character set 'utf8mb4'");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: v, type: int, charset: utf8mb4}\n", 4, 39,
               "charset/collation do not apply to int");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: v, type: varchar(3), auto_increment: true}\n", 4, 53,
               "auto_increment needs an integer column");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: v, type: int, auto_increment: true}\n", 4, 46,
               "must be (part of) the primary key");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: v, type: text, primary_key: true}\n", 4, 25,
               "cannot be in the primary key");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: v, type: json, default: 1}\n", 4, 40,
               "cannot have a literal DEFAULT");
    expect_err("tables:\n  - name: s.t\n    columns:\n      - {name: v, type: tinyint, default: 1000}\n", 4, 43,
               "column v: value 1000 out of range for tinyint (-128..127)");
    expect_err("tables:\n  - name: s.t\n    engine: Aria\n    columns: [{name: a, type: int}]\n", 3, 13,
               "engine must be one of InnoDB|MyISAM|MEMORY");
    expect_err("tables:\n  - name: s.t\n    columns: [{name: a, type: int, invisible: true}]\n", 3, 14,
               "needs at least one visible column");
    expect_err("databases:\n  - {name: s}\n  - {name: s}\n", 3, 12, "database 's' is listed twice");
}
END_TEST

#define T_ORDERS                                                                                              \
    "tables:\n"                                                                                               \
    "  - name: shop.orders\n"                                                                                 \
    "    columns:\n"                                                                                          \
    "      - {name: id, type: int unsigned, primary_key: true}\n"                                             \
    "      - {name: total, type: \"decimal(10,2)\"}\n"                                                        \
    "      - {name: st, type: \"enum('new','paid')\"}\n"                                                      \
    "      - {name: tags, type: \"set('a','b')\"}\n"                                                          \
    "      - {name: note, type: varchar(3), nullable: false}\n"                                               \
    "      - {name: d, type: date}\n"                                                                         \
    "      - {name: t, type: time}\n"                                                                         \
    "      - {name: b, type: bit(3)}\n"                                                                       \
    "      - {name: doc, type: json}\n"                                                                       \
    "  - name: shop.log\n"                                                                                    \
    "    engine: MyISAM\n"                                                                                    \
    "    columns: [{name: id, type: int}]\n"                                                                  \
    "transactions:\n"

/* T_ORDERS is 16 lines; the first transaction is on line 17 */

START_TEST(test_errors_values)
{
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 300000000000}]}\n", 17, 46,
               "column id: value 300000000000 out of range for int unsigned (0..4294967295)");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, d: \"2023-02-30\"}]}\n", 17, 52,
               "column d: bad date '2023-02-30': day out of range for February");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, t: \"12:61:00\"}]}\n", 17, 52,
               "column t: bad time '12:61:00'");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, st: shipped}]}\n", 17, 53,
               "column st: 'shipped' is not a member of enum('new','paid')");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, tags: [a, z]}]}\n", 17, 59,
               "column tags: 'z' is not a member of set('a','b')");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, note: abcd}]}\n", 17, 55,
               "column note: string of 4 characters is too long for varchar(3)");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, b: 8}]}\n", 17, 52,
               "column b: bit value 8 is too wide for bit(3)");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, note: null}]}\n", 17, 55,
               "column note is NOT NULL: it cannot be null");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, total: 1.234}]}\n", 17, 56,
               "has 3 fraction digits but DECIMAL(10,2) allows 2");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, doc: {a: 1, a: 2}}]}\n", 17, 61,
               "duplicate key 'a' in the JSON object");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, doc: {json_text: '{\"a\":'}}]}\n", 17, 66,
               "bad JSON text");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, tags: {a: 1}}]}\n", 17, 55,
               "column tags (set('a','b')): expected a single value, got a mapping");
}
END_TEST

START_TEST(test_errors_transactions)
{
    expect_err(T_ORDERS "  - insert: {table: shop.ordres, rows: [{id: 1}]}\n", 17, 21,
               "unknown table 'shop.ordres' (did you mean 'shop.orders'?)");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, totl: 2}]}\n", 17, 49,
               "table shop.orders has no column 'totl' (did you mean 'total'?)");
    expect_err(T_ORDERS "  - insert: {table: shop.orders}\n", 17, 13, "an insert is missing the required key 'rows'");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: []}\n", 17, 40, "rows is empty");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1}, {id: 1}]}\n", 17, 50,
               "duplicate primary key (id=1) in shop.orders: the row inserted at line 17 has it");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1}]}\n"
                        "  - update: {table: shop.orders, rows: [{after: {total: 1}}]}\n",
               18, 41, "an updated row needs before:");
    expect_err(T_ORDERS "  - delete: {table: shop.orders, rows: [{id: 1}]}\n", 17, 41,
               "cannot delete a row of shop.orders: the table has no rows at this point");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1}]}\n"
                        "  - delete: {table: shop.orders, rows: [{id: 2}]}\n",
               18, 41, "no row of shop.orders has id=2 (1 rows at this point)");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1}, {id: 2}]}\n"
                        "  - delete: {table: shop.orders, rows: [{st: null}]}\n",
               18, 41, "several rows with st=null");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, total: 2}]}\n"
                        "  - update: {table: shop.orders, rows: [{before: {id: 1}, after: {total: \"2.00\"}}]}\n",
               18, 66, "this update leaves the row unchanged");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1}, {id: 2}]}\n"
                        "  - update: {table: shop.orders, rows: [{before: {id: 1}, after: {id: 2}}]}\n",
               18, 66, "duplicate primary key (id=2)");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, doc: {age: 5}}]}\n"
                        "  - update: {table: shop.orders, rows: [{before: {id: 1}, json: {doc: [{op: replace, path: "
                        "\"$.agee\", value: 6}]}}]}\n",
               18, 92, "column doc: JSON path '$.agee' does not exist in the before value (no member 'agee')");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, doc: {age: 5}}]}\n"
                        "  - update: {table: shop.orders, rows: [{before: {id: 1}, json: {doc: [{op: insert, path: "
                        "\"$.age\", value: 6}]}}]}\n",
               18, 91, "already exists: use op: replace");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, doc: {age: 5}}]}\n"
                        "  - update: {table: shop.orders, rows: [{before: {id: 1}, json: {total: [{op: remove, "
                        "path: $.a}]}}]}\n",
               18, 66, "json: column total is decimal(10,2), not json");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1}]}\n"
                        "  - update: {table: shop.orders, rows: [{before: {id: 1}, json: {doc: [{op: remove, "
                        "path: $.a}]}}]}\n",
               18, 66, "column doc is NULL before the update");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1, doc: [1]}]}\n"
                        "  - update: {table: shop.orders, rows: [{before: {id: 1}, json: {doc: [{op: remove, "
                        "path: \"$[x]\"}]}}]}\n",
               18, 91, "expected an array index");
    expect_err(T_ORDERS "  - compression: off\n  - empty: true\n", 17, 5,
               "a compression switch needs binlog.compression: flip");
    expect_err("binlog: {compression: flip}\n" T_ORDERS "  - empty: true\n  - compression: off\n", 19, 5,
               "a compression switch must be followed by a transaction");
    expect_err("binlog: {compression: flip}\n" T_ORDERS "  - compression: off\n  - compression: on\n  - empty: true\n",
               19, 5, "two compression switches in a row");
    expect_err(T_ORDERS "  - transaction:\n      - insert: {table: shop.orders, rows: [{id: 1}]}\n"
                        "      - insert: {table: shop.log, rows: [{id: 1}]}\n",
               19, 9, "mixes InnoDB table shop.orders and MyISAM table shop.log");
    expect_err(T_ORDERS "  - transaction: []\n", 17, 18, "transaction is empty (for BEGIN; COMMIT use `empty: true`)");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1}]}\n    empty: true\n", 17, 5,
               "has 2 keys; it must have exactly one");
    expect_err(T_ORDERS "  - insrt: {table: shop.orders, rows: [{id: 1}]}\n", 17, 5,
               "unknown key 'insrt' in a transactions item (did you mean 'insert'?)");
    expect_err(T_ORDERS "  - insert: {table: shop.orders, rows: [{id: 1}], rows_query: x}\n", 17, 63,
               "rows_query text needs binlog.rows_query: true");
    expect_err(T_ORDERS "  - ddl: {db: shop}\n", 17, 10, "ddl is missing the required key 'sql'");
    expect_err(T_ORDERS "  - empty: false\n", 17, 12, "use empty: true");
    expect_err(T_ORDERS "  - [1]\n", 17, 5, "a transactions item must be a mapping with one key");
}
END_TEST

START_TEST(test_errors_bulk)
{
    expect_err(T_ORDERS "  - bulk: {generator: nightly, table: shop.orders, transactions: 1}\n", 17, 23,
               "generator must be one of json_staging|random_keys|inserts, got 'nightly'");
    expect_err(T_ORDERS "  - bulk: {generator: random_keys, table: shop.log, transactions: 1}\n", 17, 43,
               "generator random_keys needs a table with a single-column integer primary key; shop.log has no "
               "primary key");
    expect_err("tables: [{name: s.t, columns: [{name: id, type: int, primary_key: true}, {name: v, type: int}]}]\n"
               "transactions:\n  - bulk: {generator: json_staging, table: s.t, transactions: 1}\n",
               3, 44, "generator json_staging needs a json column");
    expect_err(T_ORDERS "  - bulk: {generator: inserts, table: shop.orders}\n", 17, 11,
               "needs transactions: or target_bytes:");
    expect_err(T_ORDERS "  - bulk: {generator: inserts, table: shop.orders, transactions: 1, doc_keys: 3}\n", 17, 79,
               "doc_keys only applies to generator json_staging");
    expect_err("tables: [{name: s.t, columns: [{name: id, type: tinyint, primary_key: true}, {name: v, type: int}]}]\n"
               "transactions:\n  - bulk: {generator: random_keys, table: s.t, transactions: 1, keys: 1000}\n",
               3, 71, "keys: 1000 ids do not fit the primary key id (tinyint, at most 127)");
    expect_err("tables: [{name: s.t, columns: [{name: id, type: tinyint, primary_key: true}, {name: v, type: int}]}]\n"
               "transactions:\n  - bulk: {generator: inserts, table: s.t, transactions: 2, rows_per_transaction: 64}\n",
               3, 11, "128 rows from id 1 do not fit the primary key id (tinyint)");
    expect_err("tables: [{name: s.t, columns: [{name: id, type: tinyint, primary_key: true}, {name: v, type: int}]}]\n"
               "transactions:\n  - bulk: {generator: inserts, table: s.t, target_bytes: 1M, first_id: 128}\n",
               3, 72, "first_id 128 is past the primary key id's range (tinyint, at most 127)");
}
END_TEST

/* ---- documentation and library -------------------------------------------------------------- */

/* Every ```yaml block of scenarios/README.md that starts with "# probes:" loads. */
START_TEST(test_readme_examples)
{
    size_t len;
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/README.md", CDCH_SOURCE_DIR);
    char *md = (char *)tu_read_file(path, &len);
    char *p = md;
    int n = 0;
    while ((p = strstr(p, "```yaml\n")) != NULL) {
        p += 8;
        char *end = strstr(p, "```");
        ck_assert_ptr_nonnull(end);
        if (strncmp(p, "# probes:", 9) == 0) {
            cdch_err e;
            cdch_scenario *s = cdch_scenario_load_mem(p, (size_t)(end - p), "README.md", &e);
            ck_assert_msg(s != NULL, "README example %d: %s", n + 1, e.msg);
            cdch_scenario_free(s);
            n++;
        }
        p = end + 3;
    }
    ck_assert_int_ge(n, 1);
    free(md);
}
END_TEST

/* Every scenario in scenarios/ loads (the library must stay valid). */
START_TEST(test_library_loads)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/scenarios", CDCH_SOURCE_DIR);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n < 6 || strcmp(de->d_name + n - 5, ".yaml") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        cdch_err e;
        cdch_scenario *s = cdch_scenario_load(path, &e);
        ck_assert_msg(s != NULL, "%s", e.msg);
        ck_assert_msg(s->description && *s->description, "%s has no description", path);
        cdch_scenario_free(s);
    }
    closedir(d);
    cdch_err e;
    ck_assert_ptr_null(cdch_scenario_load("/nonexistent/x.yaml", &e));
    ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent/x.yaml: cannot open"));
}
END_TEST


START_TEST(test_faults)
{
    cdch_scenario *s = load("faults: {drop_after_bytes: 1500, stall_at: 9, once: true}\n");
    ck_assert_uint_eq(s->faults.drop_after_bytes, 1500);
    ck_assert_uint_eq(s->faults.stall_at, 9);
    ck_assert_uint_eq(s->faults.drop_after_events, 0);
    ck_assert(s->faults.once);
    cdch_scenario_free(s);
    s = load("name: x\n");
    ck_assert_uint_eq(s->faults.drop_after_bytes, 0);
    ck_assert(!s->faults.once);
    cdch_scenario_free(s);
    expect_err("faults: {drop_after_event: 3}\n", 1, 10, "drop_after_events");
    expect_err("faults: {stall_at: -1}\n", 1, 20, "faults.stall_at");
    expect_err("faults: [1]\n", 1, 9, "faults");
}
END_TEST

/* ---- the stream's DDL: one CREATE TABLE, and the tracker ------------------------------ */

/* "name type,name type,..." of a table (sql_type; "!" after a primary key column). */
static const char *shape(const cdch_sc_table *t, char *buf, size_t cap)
{
    if (!t)
        return "(none)";
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < t->ncols; i++) {
        const cdch_sc_column *c = &t->cols[i];
        ck_assert_ptr_eq(c->def.name, c->name);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s %s%s", i ? "," : "", c->name, c->sql_type,
                              c->primary_key ? "!" : "");
    }
    return buf;
}

#define ck_shape(tr, db, name, want)                                                                         \
    do {                                                                                                     \
        char shape_buf_[512];                                                                                \
        ck_assert_str_eq(shape(cdch_ddl_tracker_table(tr, db, name), shape_buf_, sizeof shape_buf_), want);  \
    } while (0)

static void follow(cdch_ddl_tracker *tr, const char *db, const char *sql)
{
    cdch_ddl_tracker_query(tr, db, strlen(db), sql, strlen(sql));
}

START_TEST(test_ddl_create_table)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_sc_database dbs[] = {{"lat", "latin1", "latin1_swedish_ci"}};
    cdch_sc_table t;
    cdch_err e;
    const char *show = "CREATE TABLE `orders` (\n"
                       "  `id` bigint unsigned NOT NULL AUTO_INCREMENT,\n"
                       "  `note` varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT 'x' COMMENT 'a, b',\n"
                       "  `status` enum('new','paid') NOT NULL,\n"
                       "  `code` char(3) DEFAULT NULL,\n"
                       "  PRIMARY KEY (`id`),\n"
                       "  KEY `by_status` (`status`,`code`)\n"
                       ") ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=latin1";
    ck_assert_msg(cdch_sc_parse_create_table(show, strlen(show), "shop", dbs, 1, &a, &t, &e) == 0, "%s", e.msg);
    char buf[512];
    ck_assert_str_eq(t.db, "shop");
    ck_assert_str_eq(t.name, "orders");
    ck_assert_str_eq(shape(&t, buf, sizeof buf),
                     "id bigint unsigned!,note varchar(20),status enum('new','paid'),code char(3)");
    ck_assert(t.cols[0].def.is_unsigned && !t.cols[0].def.nullable && t.cols[0].auto_increment);
    ck_assert_str_eq(t.cols[1].collation, "utf8mb4_bin");
    ck_assert_str_eq(t.cols[1].default_sql, "'x'");
    ck_assert_str_eq(t.cols[3].charset, "latin1"); /* the table's DEFAULT CHARSET */
    ck_assert_str_eq(t.charset, "latin1");
    ck_assert_str_eq(t.collation, "latin1_swedish_ci");
    ck_assert(t.transactional);

    /* no DEFAULT CHARSET: the database's (given, or utf8mb4); a qualified name wins over db */
    const char *plain = "create table if not exists lat.t (c varchar(5), d int) engine=MyISAM";
    ck_assert_msg(cdch_sc_parse_create_table(plain, strlen(plain), NULL, dbs, 1, &a, &t, &e) == 0, "%s", e.msg);
    ck_assert_str_eq(t.db, "lat");
    ck_assert_str_eq(t.cols[0].collation, "latin1_swedish_ci");
    ck_assert(!t.transactional);
    ck_assert_str_eq(t.engine, "MyISAM");
    const char *other = "CREATE TABLE t (c varchar(5))";
    ck_assert_msg(cdch_sc_parse_create_table(other, strlen(other), "elsewhere", dbs, 1, &a, &t, &e) == 0, "%s", e.msg);
    ck_assert_str_eq(t.cols[0].collation, "utf8mb4_0900_ai_ci");

    static const struct {
        const char *sql, *db, *msg;
    } bad[] = {
        {"CREATE TABLE t (a xyzzy)", "x", "table x.t, column a: unknown column type 'xyzzy'"},
        {"CREATE TABLE t (a int)", NULL, "CREATE TABLE t: no database (qualify the name or put USE db; before it)"},
        {"CREATE TABLE t LIKE u", "x", "CREATE TABLE t LIKE u: a copy of another table's definition, not a column list"},
        {"CREATE TABLE t (a int) SELECT 1 AS b", "x",
         "CREATE TABLE t ... SELECT: the columns its query adds are not in the statement"},
        {"CREATE TABLE t (a int", "x", "CREATE TABLE t: expected ',' or ')' in the column list"},
        {"CREATE TABLE t (PRIMARY KEY (z), a int)", "x", "PRIMARY KEY names column 'z', which the table does not have"},
        {"ALTER TABLE t ADD c int", "x",
         "not a CREATE TABLE statement (expected CREATE TABLE [IF NOT EXISTS] [db.]name (columns ...) [options])"},
        {"CREATE TABLE t (a varchar(3) CHARACTER SET nope)", "x", "table x.t, column a: unknown character set 'nope'"},
        {"CREATE TABLE t (a int) DEFAULT CHARSET=nope", "x", "unknown character set 'nope' for a table"},
        {"CREATE TABLE t (a varchar(3)) 'x", "x", "a string's closing quote is missing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        e.msg[0] = '\0';
        ck_assert_int_eq(cdch_sc_parse_create_table(bad[i].sql, strlen(bad[i].sql), bad[i].db, NULL, 0, &a, &t, &e),
                         -1);
        ck_assert_str_eq(e.msg, bad[i].msg);
    }
    cdch_arena_free(&a);
}
END_TEST

START_TEST(test_ddl_tracker)
{
    cdch_scenario *s = load("databases: [{name: lat, charset: latin1}]\n"
                            "tables:\n"
                            "  - name: a.t1\n"
                            "    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(20)}]\n"
                            "  - name: lat.u\n"
                            "    columns: [{name: id, type: int, primary_key: true}]\n");
    cdch_ddl_tracker *tr = cdch_ddl_tracker_new(s);
    ck_shape(tr, "a", "t1", "(none)"); /* nothing learned: the caller uses the scenario's */
    follow(tr, "a", "BEGIN");
    follow(tr, "a", "INSERT INTO t1 VALUES (1, 'x')");
    follow(tr, "a", "GRANT SELECT ON a.* TO u");
    follow(tr, "a", "CREATE INDEX i ON t1 (v)");
    follow(tr, "a", "CREATE TEMPORARY TABLE t1 (z int)");
    ck_shape(tr, "a", "t1", "(none)");

    /* CREATE TABLE, in the event's database or qualified */
    follow(tr, "a", "CREATE TABLE t2 (k int NOT NULL, w varchar(20), PRIMARY KEY (k))");
    ck_shape(tr, "a", "t2", "k int!,w varchar(20)");
    follow(tr, "", "/* by hand */ CREATE TABLE `b`.`t2` (`z` int)");
    ck_shape(tr, "b", "t2", "z int");
    ck_shape(tr, "a", "t2", "k int!,w varchar(20)");
    follow(tr, "", "CREATE TABLE t9 (z int)"); /* no database: failed on the primary, nothing to follow */
    ck_shape(tr, "", "t9", "(none)");

    /* ALTER TABLE on the scenario's table: starts from its definition */
    follow(tr, "a", "ALTER TABLE t1 ADD COLUMN n int FIRST, ADD (p int, q int), ALGORITHM=INSTANT");
    ck_shape(tr, "a", "t1", "n int,id int!,v varchar(20),p int,q int");
    follow(tr, "a", "ALTER TABLE a.t1 MODIFY q bigint NOT NULL AFTER n, CHANGE COLUMN p pp int unsigned");
    ck_shape(tr, "a", "t1", "n int,q bigint,id int!,v varchar(20),pp int unsigned");
    ck_assert(!cdch_ddl_tracker_table(tr, "a", "t1")->cols[1].def.nullable);
    follow(tr, "a", "ALTER TABLE t1 DROP COLUMN pp, RENAME COLUMN n TO nn, DROP q, COMMENT 'c' ENGINE=InnoDB");
    ck_shape(tr, "a", "t1", "nn int,id int!,v varchar(20)");
    follow(tr, "a", "ALTER TABLE t1 ADD INDEX iv (v), DROP INDEX iv, ALTER COLUMN v SET DEFAULT 'd', "
                    "ALTER COLUMN nn SET INVISIBLE, RENAME INDEX a TO b, FORCE, LOCK=NONE");
    ck_assert_str_eq(cdch_ddl_tracker_table(tr, "a", "t1")->cols[2].default_sql, "'d'");
    ck_assert(cdch_ddl_tracker_table(tr, "a", "t1")->cols[0].invisible);
    follow(tr, "a", "ALTER TABLE t1 DROP PRIMARY KEY, ADD CONSTRAINT pk PRIMARY KEY (nn, id)");
    ck_shape(tr, "a", "t1", "nn int!,id int!,v varchar(20)");
    ck_assert_uint_eq(cdch_ddl_tracker_forgotten(tr, NULL), 0);

    /* renames: ALTER ... RENAME, RENAME TABLE (in order: a swap), CREATE TABLE LIKE */
    follow(tr, "a", "ALTER TABLE t1 RENAME TO t1x");
    ck_shape(tr, "a", "t1", "(none)");
    ck_shape(tr, "a", "t1x", "nn int!,id int!,v varchar(20)");
    follow(tr, "a", "RENAME TABLE t1x TO tmp, t2 TO t1x, tmp TO t2");
    ck_shape(tr, "a", "t1x", "k int!,w varchar(20)");
    ck_shape(tr, "a", "t2", "nn int!,id int!,v varchar(20)");
    ck_shape(tr, "a", "tmp", "(none)");
    follow(tr, "a", "CREATE TABLE t3 LIKE t1x");
    follow(tr, "a", "CREATE TABLE IF NOT EXISTS t3 (other int)"); /* exists: nothing happens */
    ck_shape(tr, "a", "t3", "k int!,w varchar(20)");
    follow(tr, "a", "DROP TABLE IF EXISTS t3, `a`.`t1x` /* generated by server */");
    ck_shape(tr, "a", "t3", "(none)");
    ck_shape(tr, "a", "t1x", "(none)");
    follow(tr, "a", "CREATE TABLE IF NOT EXISTS t3 (other int)"); /* dropped: created */
    ck_shape(tr, "a", "t3", "other int");

    /* not understood: the definition is forgotten, and stays so until a CREATE TABLE */
    const char *why;
    follow(tr, "a", "ALTER TABLE t2 ADD COLUMN z int, CONVERT TO CHARACTER SET latin1");
    ck_shape(tr, "a", "t2", "(none)");
    ck_assert_uint_eq(cdch_ddl_tracker_forgotten(tr, &why), 1);
    ck_assert_str_eq(why, "ALTER TABLE t2: 'CONVERT' is not followed (only ADD/DROP/MODIFY/CHANGE/RENAME/ALTER of "
                          "columns, keys and table options are)");
    follow(tr, "a", "ALTER TABLE t2 ADD COLUMN y int");
    ck_shape(tr, "a", "t2", "(none)");
    follow(tr, "a", "ALTER TABLE t3 DROP COLUMN nosuch");
    ck_shape(tr, "a", "t3", "(none)");
    ck_assert_uint_eq(cdch_ddl_tracker_forgotten(tr, &why), 2);
    ck_assert_str_eq(why, "table a.t3 has no column nosuch");
    follow(tr, "a", "CREATE TABLE t3 (q int) SELECT 1 AS r");
    ck_shape(tr, "a", "t3", "(none)");
    follow(tr, "a", "CREATE TABLE t3 (q xyzzy)");
    ck_shape(tr, "a", "t3", "(none)");
    ck_assert_uint_eq(cdch_ddl_tracker_forgotten(tr, &why), 4);
    ck_assert_str_eq(why, "table a.t3, column q: unknown column type 'xyzzy'");
    follow(tr, "a", "ALTER TABLE");
    follow(tr, "a", "CREATE TABLE t5 (");
    follow(tr, "a", "RENAME TABLE t5");
    follow(tr, "a", "DROP TABLE 'x'");
    follow(tr, "a", "ALTER TABLE t5 ADD COLUMN `unclosed int");
    follow(tr, "a", "");
    follow(tr, "a", ";");
    follow(tr, "a", "DROP TABLE t2; CREATE TABLE t2 (only_the_first int)");
    follow(tr, "a", "CREATE TABLE t2 (back int)");
    ck_shape(tr, "a", "t2", "back int");
    /* partitioning changes no column */
    follow(tr, "a", "ALTER TABLE t2 ADD COLUMN fwd int, PARTITION BY RANGE (back) (PARTITION p0 VALUES LESS THAN (5), "
                    "PARTITION p1 VALUES LESS THAN MAXVALUE)");
    follow(tr, "a", "ALTER TABLE t2 DROP PARTITION p0, p1");
    follow(tr, "a", "ALTER TABLE t2 REMOVE PARTITIONING");
    ck_shape(tr, "a", "t2", "back int,fwd int");
    ck_assert_uint_eq(cdch_ddl_tracker_forgotten(tr, NULL), 6); /* and the two broken statements about t5 */

    /* charsets: the database's (scenario, CREATE / ALTER DATABASE), the table's for later columns */
    follow(tr, "lat", "CREATE TABLE v (c varchar(5))");
    ck_assert_str_eq(cdch_ddl_tracker_table(tr, "lat", "v")->cols[0].charset, "latin1");
    follow(tr, "", "CREATE DATABASE IF NOT EXISTS lat /*!40100 DEFAULT CHARACTER SET utf8mb3 */");
    follow(tr, "", "CREATE DATABASE g DEFAULT CHARACTER SET greek");
    follow(tr, "g", "CREATE TABLE w (c varchar(5)) DEFAULT CHARSET=latin1");
    follow(tr, "g", "ALTER TABLE w ADD COLUMN d varchar(5), DEFAULT CHARSET=utf8mb4, ADD COLUMN e varchar(5)");
    const cdch_sc_table *w = cdch_ddl_tracker_table(tr, "g", "w");
    ck_assert_str_eq(w->cols[0].charset, "latin1");
    ck_assert_str_eq(w->cols[1].charset, "latin1");
    ck_assert_str_eq(w->cols[2].collation, "utf8mb4_0900_ai_ci");
    follow(tr, "g", "CREATE TABLE x (c varchar(5))");
    ck_assert_str_eq(cdch_ddl_tracker_table(tr, "g", "x")->cols[0].charset, "greek");
    follow(tr, "", "ALTER DATABASE g CHARACTER SET latin2");
    follow(tr, "g", "CREATE TABLE y (c varchar(5))");
    ck_assert_str_eq(cdch_ddl_tracker_table(tr, "g", "y")->cols[0].charset, "latin2");
    follow(tr, "", "DROP DATABASE g");
    ck_shape(tr, "g", "w", "(none)");
    ck_shape(tr, "g", "y", "(none)");
    follow(tr, "", "DROP SCHEMA lat");
    follow(tr, "", "CREATE TABLE IF NOT EXISTS lat.u (fresh int)"); /* the scenario's lat.u went with lat */
    ck_shape(tr, "lat", "u", "fresh int");

    cdch_ddl_tracker_free(tr);
    cdch_scenario_free(s);
    cdch_ddl_tracker_free(NULL);
    tr = cdch_ddl_tracker_new(NULL); /* no start schema: the stream's alone */
    follow(tr, "a", "ALTER TABLE t ADD COLUMN c int");
    ck_shape(tr, "a", "t", "(none)");
    follow(tr, "a", "CREATE TABLE t (c int)");
    ck_shape(tr, "a", "t", "c int");
    cdch_ddl_tracker_free(tr);
}
END_TEST

/* A QUERY event's statement is not NUL-terminated: an unclosed comment ends
 * with the statement, whatever bytes follow it in memory (fuzz_ddl found the
 * lexer looking for the closing star-slash past the end). */
START_TEST(test_ddl_bounded_text)
{
    /* the statement is the first len bytes; the comment's closing mark follows them in memory */
    static const char buf[] = "CREATE TABLE t (a int) /* x */";
    size_t len = sizeof buf - 1 - 3;
    cdch_ddl_tracker *tr = cdch_ddl_tracker_new(NULL);
    cdch_ddl_tracker_query(tr, "d", 1, buf, len);
    ck_assert_ptr_null(cdch_ddl_tracker_table(tr, "d", "t")); /* unclosed comment: not read */
    cdch_ddl_tracker_query(tr, "d", 1, buf, sizeof buf - 1);   /* closed: read */
    ck_assert_ptr_nonnull(cdch_ddl_tracker_table(tr, "d", "t"));
    cdch_ddl_tracker_free(tr);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("scenario");
    TCase *tc = tcase_create("load");
    tcase_add_test(tc, test_example_settings);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_start_key);
    tcase_add_test(tc, test_faults);
    tcase_add_test(tc, test_example_schema);
    tcase_add_test(tc, test_example_rows);
    tcase_add_test(tc, test_types_numeric);
    tcase_add_test(tc, test_types_temporal);
    tcase_add_test(tc, test_types_strings);
    tcase_add_test(tc, test_types_errors);
    tcase_add_test(tc, test_collations);
    tcase_add_test(tc, test_values_numeric);
    tcase_add_test(tc, test_values_temporal);
    tcase_add_test(tc, test_values_strings);
    tcase_add_test(tc, test_values_strings_errors);
    tcase_add_test(tc, test_values_other);
    tcase_add_test(tc, test_yaml_values);
    tcase_add_test(tc, test_row_semantics);
    tcase_add_test(tc, test_version_features);
    tcase_add_test(tc, test_errors_settings);
    tcase_add_test(tc, test_errors_yaml_syntax);
    tcase_add_test(tc, test_errors_schema);
    tcase_add_test(tc, test_errors_values);
    tcase_add_test(tc, test_errors_transactions);
    tcase_add_test(tc, test_errors_bulk);
    tcase_add_test(tc, test_readme_examples);
    tcase_add_test(tc, test_library_loads);
    tcase_add_test(tc, test_native_password_and_gtid_next);
    suite_add_tcase(s, tc);
    TCase *ddl = tcase_create("ddl");
    tcase_add_test(ddl, test_ddl_create_table);
    tcase_add_test(ddl, test_ddl_tracker);
    tcase_add_test(ddl, test_ddl_bounded_text);
    suite_add_tcase(s, ddl);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
