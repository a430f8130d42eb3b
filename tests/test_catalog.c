/* test_catalog.c — the fake primary's stream catalogue: stream.json and
 * the binlog files give the file list, sizes, per-file PREVIOUS_GTIDS and
 * GTIDs, gtid_executed/gtid_purged, SHOW MASTER STATUS and the rows of
 * SHOW BINLOG EVENTS (payloads followed by their inner events). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenario.h"
#include "query_internal.h"
#include "server_internal.h"
#include "stream.h"
#include "testutil.h"

static char g_tmp[256];

static void rm_rf(const char *path)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", path);
}

static void gen(const char *scenario_file, cdch_stream_mode mode, const char *out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/%s", CDCH_SOURCE_DIR, scenario_file);
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load(path, &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    ck_assert_msg(cdch_stream_generate(s, mode, out, NULL, &err) == 0, "%s", err.msg);
    cdch_scenario_free(s);
}

static void setup(void)
{
    snprintf(g_tmp, sizeof g_tmp, "/tmp/cdch_test_catalog.XXXXXX");
    ck_assert_msg(mkdtemp(g_tmp) != NULL, "mkdtemp %s: %s", g_tmp, strerror(errno));
}

static void teardown(void) { rm_rf(g_tmp); }

START_TEST(rotation_files_and_gtids)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/rot", g_tmp);
    gen("rotation.yaml", CDCH_STREAM_COMPRESSED, dir);
    cdch_err err;
    srv_catalog *cat = srv_catalog_load(NULL, dir, &err);
    ck_assert_msg(cat != NULL, "%s", err.msg);
    size_t n = srv_catalog_nfiles(cat);
    ck_assert_uint_gt(n, 2);
    ck_assert_str_eq(srv_catalog_server_version(cat), "8.0.36");
    ck_assert_str_eq(srv_catalog_server_uuid(cat), "3e11fa47-71ca-11e1-9e33-c80aa9429562");
    ck_assert_uint_eq(srv_catalog_server_id(cat), 1);
    ck_assert(srv_catalog_gtid_mode(cat));
    ck_assert_str_eq(srv_catalog_checksum(cat), "CRC32");
    ck_assert_str_eq(srv_catalog_basename(cat), "mysql-bin");
    ck_assert_str_eq(srv_catalog_mode(cat), "compressed");
    ck_assert_str_eq(srv_catalog_gtid_purged(cat), "");
    /* 1 insert + 400 + ddl + 100 transactions (+ CREATE DATABASE/TABLE) */
    const char *executed = srv_catalog_gtid_executed(cat);
    ck_assert_msg(strncmp(executed, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-", 39) == 0, "%s", executed);
    int64_t prev_last = 0;
    for (size_t i = 0; i < n; i++) {
        const srv_binlog_file *f = srv_catalog_file(cat, i);
        char want[64];
        snprintf(want, sizeof want, "mysql-bin.%06zu", i + 1);
        ck_assert_str_eq(f->name, want);
        snprintf(want, sizeof want, "./mysql-bin.%06zu", i + 1);
        ck_assert_str_eq(f->index_name, want);
        struct stat st;
        ck_assert_int_eq(stat(f->path, &st), 0);
        ck_assert_uint_eq(f->size, (uint64_t)st.st_size);
        ck_assert_uint_eq(f->checksum_alg, 1);
        ck_assert(f->has_prev_gtids);
        ck_assert(f->has_first_gtid && f->has_last_gtid);
        /* consecutive files: first GTID follows the previous file's last */
        ck_assert_int_eq(f->first_gtid.gno, prev_last + 1);
        ck_assert_int_ge(f->last_gtid.gno, f->first_gtid.gno);
        /* PREVIOUS_GTIDS of file i = 1..prev_last */
        if (prev_last == 0) {
            ck_assert_uint_eq(f->prev_gtids.n_sids, 0);
        } else {
            ck_assert_uint_eq(f->prev_gtids.n_sids, 1);
            ck_assert_uint_eq(f->prev_gtids.sids[0].n_intervals, 1);
            ck_assert_int_eq(f->prev_gtids.sids[0].intervals[0].start, 1);
            ck_assert_int_eq(f->prev_gtids.sids[0].intervals[0].end, prev_last + 1);
        }
        /* the file's own GTIDs: first..last */
        ck_assert_uint_eq(f->gtids.n_sids, 1);
        ck_assert_int_eq(f->gtids.sids[0].intervals[0].start, f->first_gtid.gno);
        ck_assert_int_eq(f->gtids.sids[0].intervals[f->gtids.sids[0].n_intervals - 1].end, f->last_gtid.gno + 1);
        prev_last = f->last_gtid.gno;
    }
    char want[80];
    snprintf(want, sizeof want, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-%lld", (long long)prev_last);
    ck_assert_str_eq(executed, want);
    const char *file;
    uint64_t pos;
    srv_catalog_master_status(cat, &file, &pos);
    ck_assert_str_eq(file, srv_catalog_file(cat, n - 1)->name);
    ck_assert_uint_eq(pos, srv_catalog_file(cat, n - 1)->size);
    ck_assert_int_eq(srv_catalog_index_of(cat, "mysql-bin.000002"), 1);
    ck_assert_int_eq(srv_catalog_index_of(cat, "/var/lib/mysql/mysql-bin.000002"), 1);
    ck_assert_int_eq(srv_catalog_index_of(cat, "mysql-bin.999999"), -1);
    ck_assert_ptr_null(srv_catalog_find(cat, "nope"));
    srv_catalog_free(cat);
}
END_TEST

typedef struct rows {
    size_t n;
    char type[64][32];
    char info[64][200];
    uint64_t pos[64], end[64];
} rows;

static int collect(void *ctx, const srv_binlog_event_row *r)
{
    rows *x = ctx;
    if (x->n >= 64)
        return 1;
    snprintf(x->type[x->n], sizeof x->type[0], "%s", r->event_type);
    snprintf(x->info[x->n], sizeof x->info[0], "%s", r->info);
    x->pos[x->n] = r->pos;
    x->end[x->n] = r->end_log_pos;
    x->n++;
    return 0;
}

START_TEST(show_binlog_events)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/crud", g_tmp);
    gen("crud-basic.yaml", CDCH_STREAM_COMPRESSED, dir);
    cdch_err err;
    srv_catalog *cat = srv_catalog_load(NULL, dir, &err);
    ck_assert_msg(cat != NULL, "%s", err.msg);
    rows x;
    memset(&x, 0, sizeof x);
    uint16_t code = 1;
    ck_assert_int_eq(srv_catalog_binlog_events(cat, NULL, 0, 0, 40, collect, &x, &code, &err), 0);
    ck_assert_uint_eq(code, 0);
    ck_assert_uint_eq(x.n, 40);
    ck_assert_str_eq(x.type[0], "Format_desc");
    ck_assert_str_eq(x.info[0], "Server ver: 8.0.36, Binlog ver: 4");
    ck_assert_uint_eq(x.pos[0], 4);
    ck_assert_str_eq(x.type[1], "Previous_gtids");
    ck_assert_str_eq(x.info[1], "");
    ck_assert_str_eq(x.type[2], "Gtid");
    ck_assert_str_eq(x.info[2], "SET @@SESSION.GTID_NEXT= '3e11fa47-71ca-11e1-9e33-c80aa9429562:1'");
    ck_assert_uint_eq(x.pos[2], x.end[1]);
    ck_assert_str_eq(x.type[3], "Query");
    ck_assert_msg(strncmp(x.info[3], "CREATE DATABASE", 15) == 0, "%s", x.info[3]);
    /* a payload row, then its inner events with the payload's positions */
    size_t p = 0;
    for (size_t i = 0; i < x.n; i++)
        if (strcmp(x.type[i], "Transaction_payload") == 0) {
            p = i;
            break;
        }
    ck_assert_uint_gt(p, 0);
    ck_assert_msg(strncmp(x.info[p], "compression='ZSTD', decompressed_size=", 38) == 0, "%s", x.info[p]);
    ck_assert_str_eq(x.type[p + 1], "Query");
    ck_assert_str_eq(x.info[p + 1], "BEGIN");
    ck_assert_uint_eq(x.pos[p + 1], x.pos[p]);
    ck_assert_uint_eq(x.end[p + 1], x.end[p]);
    ck_assert_str_eq(x.type[p + 2], "Table_map");
    ck_assert_msg(strncmp(x.info[p + 2], "table_id: ", 10) == 0 && strstr(x.info[p + 2], " ("), "%s", x.info[p + 2]);
    size_t q = p + 3;
    while (q < x.n && strcmp(x.type[q], "Xid") != 0)
        q++;
    ck_assert_uint_lt(q, x.n);
    ck_assert_msg(strncmp(x.info[q], "COMMIT /* xid=", 14) == 0, "%s", x.info[q]);
    ck_assert_str_eq(x.info[q - 1] + strlen(x.info[q - 1]) - 17, "flags: STMT_END_F");

    /* FROM pos + LIMIT offset,count */
    rows y;
    memset(&y, 0, sizeof y);
    ck_assert_int_eq(srv_catalog_binlog_events(cat, srv_catalog_file(cat, 0)->name, x.pos[2], 1, 2, collect, &y,
                                               &code, &err),
                     0);
    ck_assert_uint_eq(y.n, 2);
    ck_assert_str_eq(y.type[0], x.type[3]);
    ck_assert_uint_eq(y.pos[0], x.pos[3]);
    /* errors as MySQL words them */
    ck_assert_int_eq(srv_catalog_binlog_events(cat, "binlog.000077", 4, 0, 1, collect, &y, &code, &err), -1);
    ck_assert_uint_eq(code, 1220);
    ck_assert_str_eq(err.msg, "Error when executing command SHOW BINLOG EVENTS: Could not find target log");
    ck_assert_int_eq(srv_catalog_binlog_events(cat, NULL, x.pos[2] + 1, 0, 1, collect, &y, &code, &err), -1);
    ck_assert_str_eq(err.msg, "Error when executing command SHOW BINLOG EVENTS: Wrong offset or I/O error");
    srv_catalog_free(cat);
}
END_TEST

START_TEST(missing_or_bad_manifest)
{
    cdch_err err;
    ck_assert_ptr_null(srv_catalog_load(NULL, g_tmp, &err));
    ck_assert_msg(strstr(err.msg, "stream.json") != NULL, "%s", err.msg);
    char path[512];
    snprintf(path, sizeof path, "%s/stream.json", g_tmp);
    FILE *f = fopen(path, "w");
    fputs("{\"server_uuid\":\"x\"", f);
    fclose(f);
    ck_assert_ptr_null(srv_catalog_load(NULL, g_tmp, &err));
    ck_assert_msg(strstr(err.msg, "not a stream manifest") != NULL, "%s", err.msg);
    f = fopen(path, "w");
    fputs("{\"server_uuid\":\"3e11fa47-71ca-11e1-9e33-c80aa9429562\",\"server_version\":\"8.0.36\",\"server_id\":1,"
          "\"files\":[{\"name\":\"binlog.000001\",\"size\":4}]}",
          f);
    fclose(f);
    ck_assert_ptr_null(srv_catalog_load(NULL, g_tmp, &err));
    ck_assert_msg(strstr(err.msg, "binlog.000001") != NULL, "%s", err.msg);
}
END_TEST

START_TEST(gtid_subtract_and_text)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set x, y, r;
    cdch_err err;
    ck_assert_int_eq(cdch_gtid_set_parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-100:200-300,"
                                         "4e11fa47-71ca-11e1-9e33-c80aa9429562:1-5",
                                         &a, &x, &err),
                     0);
    ck_assert_int_eq(cdch_gtid_set_parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:10-20:50-250", &a, &y, &err), 0);
    srv_gtid_subtract(&x, &y, &a, &r);
    cdch_buf b = CDCH_BUF_INIT;
    srv_gtid_text(&r, &b);
    ck_assert_str_eq(cdch_buf_cstr(&b), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-9:21-49:251-300,\n"
                                        "4e11fa47-71ca-11e1-9e33-c80aa9429562:1-5");
    cdch_buf_reset(&b);
    srv_gtid_subtract(&y, &x, &a, &r);
    srv_gtid_text(&r, &b);
    ck_assert_str_eq(cdch_buf_cstr(&b), "3e11fa47-71ca-11e1-9e33-c80aa9429562:101-199");
    cdch_buf_free(&b);
    cdch_arena_free(&a);
}
END_TEST

/* sql_split (the fake primary's statement splitter): exact statements, and a
 * quote never closed kept with its statement and pointed at (issue 14:
 * it used to drop the statement, so "SELECT 'abc" was "Query was empty"). */
START_TEST(sql_split_statements_and_unclosed_quotes)
{
    static const struct {
        const char *sql;
        size_t n;
        const char *stmts[3];
        int unclosed_in; /* statement index holding the unclosed quote, -1 none */
        const char *unclosed;
    } cases[] = {
        {"SELECT 1", 1, {"SELECT 1"}, -1, NULL},
        {" SELECT 1 ; ; SELECT 'a;b' ;", 2, {"SELECT 1", "SELECT 'a;b'"}, -1, NULL},
        {"SELECT 'abc", 1, {"SELECT 'abc"}, 0, "'abc"},
        {"SELECT 1; SELECT 'x", 2, {"SELECT 1", "SELECT 'x"}, 1, "'x"},
        {"SELECT 1; SELECT \"x; y", 2, {"SELECT 1", "SELECT \"x; y"}, 1, "\"x; y"},
        {"SELECT `a", 1, {"SELECT `a"}, 0, "`a"},
        {"SELECT 'it''s' /* c */; SELECT 'a\\'", 2, {"SELECT 'it''s'", "SELECT 'a\\'"}, 1, "'a\\'"},
        {"'", 1, {"'"}, 0, "'"},
        {"-- only a comment\n", 0, {NULL}, -1, NULL},
        {"SELECT 1 # 'not a quote\n", 1, {"SELECT 1"}, -1, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cdch_arena a = CDCH_ARENA_INIT;
        char **st;
        const char *unclosed = (const char *)1;
        size_t n = sql_split(cases[i].sql, strlen(cases[i].sql), &a, &st, &unclosed);
        ck_assert_msg(n == cases[i].n, "%s: %zu statements", cases[i].sql, n);
        for (size_t k = 0; k < n; k++)
            ck_assert_msg(strcmp(st[k], cases[i].stmts[k]) == 0, "%s: statement %zu '%s'", cases[i].sql, k, st[k]);
        if (cases[i].unclosed_in < 0) {
            ck_assert_msg(unclosed == NULL, "%s: unclosed quote reported", cases[i].sql);
        } else {
            ck_assert_msg(unclosed != NULL, "%s: unclosed quote not reported", cases[i].sql);
            const char *in = st[cases[i].unclosed_in];
            ck_assert(unclosed >= in && unclosed < in + strlen(in));
            ck_assert_str_eq(unclosed, cases[i].unclosed);
        }
        cdch_arena_free(&a);
    }
    char msg[512];
    sql_syntax_near(msg, sizeof msg, "SELECT\n 'abc", strchr("SELECT\n 'abc", '\''));
    ck_assert_str_eq(msg, "You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
                          "server version for the right syntax to use near ''abc' at line 2");
}
END_TEST


static Suite *suite(void)
{
    Suite *s = suite_create("catalog");
    TCase *tc = tcase_create("catalog");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, rotation_files_and_gtids);
    tcase_add_test(tc, show_binlog_events);
    tcase_add_test(tc, missing_or_bad_manifest);
    tcase_add_test(tc, gtid_subtract_and_text);
    tcase_add_test(tc, sql_split_statements_and_unclosed_quotes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
