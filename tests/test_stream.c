/* test_stream.c — the stream writer against real MySQL files: scenarios
 * built to match a fixture (same schema, rows, server version and settings)
 * generate the fixture's events byte for byte, apart from timestamps and
 * server-specific ids (table ids, XIDs, commit timestamps, FDE create time);
 * and generation errors leave nothing behind. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attach.h"
#include "cursor.h"
#include "event.h"
#include "reader.h"
#include "scenario.h"
#include "stream.h"
#include "sys.h"
#include "testutil.h"

#define MAX_EVENTS 64

typedef struct evlist {
    uint8_t *data[MAX_EVENTS];
    size_t len[MAX_EVENTS];
    size_t n;
} evlist;

static void read_events(const char *path, evlist *l)
{
    cdch_err err;
    cdch_reader *r = cdch_reader_open(path, 0, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    cdch_raw_event raw;
    l->n = 0;
    while (cdch_reader_next(r, &raw, &err) == 1) {
        ck_assert(l->n < MAX_EVENTS);
        l->data[l->n] = malloc(raw.len);
        memcpy(l->data[l->n], raw.data, raw.len);
        l->len[l->n++] = raw.len;
    }
    cdch_reader_free(r);
}

static void free_events(evlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->data[i]);
}

/* Zero what legitimately differs between two servers and two runs. */
static void normalise(cdch_event *ev)
{
    ev->h.timestamp = 0;
    switch (ev->h.type) {
    case CDCH_EV_FORMAT_DESCRIPTION:
        ev->u.fde.create_timestamp = 0;
        ev->h.flags &= (uint16_t)~CDCH_LOG_EVENT_BINLOG_IN_USE_F;
        break;
    case CDCH_EV_GTID:
    case CDCH_EV_ANONYMOUS_GTID:
        ev->u.gtid.immediate_commit_ts = ev->u.gtid.original_commit_ts = 0;
        break;
    case CDCH_EV_XID:
        ev->u.xid = 0;
        break;
    case CDCH_EV_TABLE_MAP:
        ev->u.table_map.table_id = 0;
        break;
    case CDCH_EV_WRITE_ROWS:
    case CDCH_EV_UPDATE_ROWS:
    case CDCH_EV_DELETE_ROWS:
        ev->u.rows.table_id = 0;
        break;
    case CDCH_EV_QUERY:
        for (size_t i = 0; i < ev->u.query.n_status; i++)
            if (ev->u.query.status[i].code == CDCH_Q_DDL_LOGGED_WITH_XID)
                ev->u.query.status[i].value.len = 0; /* drop the xid from the comparison */
        break;
    default:
        break;
    }
}

static void encode_normalised(cdch_decoder *d, const uint8_t *raw, size_t len, cdch_arena *a, cdch_buf *out)
{
    cdch_event ev;
    cdch_err err;
    ck_assert_msg(cdch_decode_event(d, raw, len, a, &ev, &err) == 0, "%s", err.msg);
    normalise(&ev);
    cdch_encode_opts o = {ev.has_checksum, false, 3, false};
    cdch_buf_reset(out);
    ck_assert_msg(cdch_encode_event(&ev, &o, true, out, &err) == 0, "%s", err.msg);
}

/* A fresh empty directory of its own (mkdtemp: no name shared with another process or run). */
static char *tmpdir_path(const char *tag)
{
    static char buf[512];
    const char *base = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/cdch-test-%s-XXXXXX", base ? base : "/tmp", tag);
    ck_assert_msg(mkdtemp(buf) != NULL, "mkdtemp %s: %s", buf, strerror(errno));
    return buf;
}

static void rm_rf(const char *path)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    ck_assert_int_eq(system(cmd), 0);
}

static void check_matches_fixture(const char *scenario, const char *fixture, const char *genfile, size_t skip_tail)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/%s", CDCH_SOURCE_DIR, scenario);
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load(path, &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    char *out = tmpdir_path(scenario);
    cdch_stream_stats st;
    ck_assert_msg(cdch_stream_generate(s, CDCH_STREAM_UNCOMPRESSED, out, &st, &err) == 0, "%s", err.msg);

    evlist want, got;
    read_events(tu_fixture(fixture), &want);
    snprintf(path, sizeof path, "%s/%s", out, genfile);
    read_events(path, &got);
    /* the fixture may end with a ROTATE the scenario does not cause */
    ck_assert_uint_eq(got.n, want.n - skip_tail);
    cdch_decoder *dw = cdch_decoder_new(), *dg = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf bw = CDCH_BUF_INIT, bg = CDCH_BUF_INIT;
    for (size_t i = 0; i < got.n; i++) {
        ck_assert_uint_eq(got.len[i], want.len[i]);
        encode_normalised(dw, want.data[i], want.len[i], &a, &bw);
        encode_normalised(dg, got.data[i], got.len[i], &a, &bg);
        if (bw.len != bg.len || memcmp(bw.data, bg.data, bw.len) != 0) {
            size_t k = 0;
            while (k < bw.len && k < bg.len && bw.data[k] == bg.data[k])
                k++;
            ck_abort_msg("%s: event %zu (%s) differs from the fixture at byte %zu", scenario, i + 1,
                         cdch_event_type_name(want.data[i][4]), k);
        }
        cdch_arena_reset(&a);
    }
    cdch_buf_free(&bw);
    cdch_buf_free(&bg);
    cdch_arena_free(&a);
    cdch_decoder_free(dw);
    cdch_decoder_free(dg);
    free_events(&want);
    free_events(&got);
    rm_rf(out);
    cdch_scenario_free(s);
}

START_TEST(matches_mysql_8_0_29_gtid_file)
{
    check_matches_fixture("fixture-replicated-bin.yaml", "mysql-server-std_data__replicated-bin.000001",
                          "replicated-bin.000001", 1);
}
END_TEST

START_TEST(matches_mysql_8_0_40_time_row)
{
    check_matches_fixture("fixture-time-issue.yaml", "rust_mysql_common__time_issue.000001", "binlog.000001", 1);
}
END_TEST

/* An output directory that exists and is not empty is refused, untouched. */
START_TEST(refuses_non_empty_output)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/fixture-time-issue.yaml", CDCH_SOURCE_DIR);
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load(path, &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    char *out = tmpdir_path("nonempty");
    char f[1100];
    snprintf(f, sizeof f, "%s/keep", out);
    FILE *fp = fopen(f, "w");
    fputs("x", fp);
    fclose(fp);
    ck_assert_int_eq(cdch_stream_generate(s, CDCH_STREAM_COMPRESSED, out, NULL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "not empty"));
    struct stat sb;
    ck_assert_int_eq(stat(f, &sb), 0);
    rm_rf(out);
    cdch_scenario_free(s);
}
END_TEST

/* Rotation: every file but the last ends with a ROTATE to the next one,
 * each file starts with FDE + PREVIOUS_GTIDS holding the GTIDs before it. */
START_TEST(rotation_and_previous_gtids)
{
    static const char yaml[] =
        "name: rot\n"
        "description: rotation\n"
        "binlog: {max_binlog_size: 4096, compression: on}\n"
        "tables:\n"
        "  - name: d.t\n"
        "    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(200)}]\n"
        "transactions:\n"
        "  - bulk: {generator: inserts, table: d.t, seed: 3, transactions: 60, rows_per_transaction: 3, value_bytes: 100}\n";
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load_mem(yaml, sizeof yaml - 1, "rot.yaml", &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    char *out = tmpdir_path("rot");
    cdch_stream_stats st;
    ck_assert_msg(cdch_stream_generate(s, CDCH_STREAM_COMPRESSED, out, &st, &err) == 0, "%s", err.msg);
    ck_assert_uint_gt(st.files, 2);
    ck_assert_uint_eq(st.compressed_transactions, 60);
    uint64_t gno_seen = 0;
    for (unsigned f = 1; f <= st.files; f++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/binlog.%06u", out, f);
        evlist l;
        read_events(path, &l);
        cdch_decoder *d = cdch_decoder_new();
        cdch_arena a = CDCH_ARENA_INIT;
        cdch_event ev;
        ck_assert(cdch_decode_event(d, l.data[0], l.len[0], &a, &ev, &err) == 0);
        ck_assert_uint_eq(ev.h.type, CDCH_EV_FORMAT_DESCRIPTION);
        ck_assert(cdch_decode_event(d, l.data[1], l.len[1], &a, &ev, &err) == 0);
        ck_assert_uint_eq(ev.h.type, CDCH_EV_PREVIOUS_GTIDS);
        /* PREVIOUS_GTIDS = 1..gno_seen */
        if (gno_seen == 0) {
            ck_assert_uint_eq(ev.u.prev_gtids.n_sids, 0);
        } else {
            ck_assert_uint_eq(ev.u.prev_gtids.n_sids, 1);
            ck_assert_int_eq(ev.u.prev_gtids.sids[0].intervals[0].start, 1);
            ck_assert_int_eq(ev.u.prev_gtids.sids[0].intervals[0].end, (int64_t)gno_seen + 1);
        }
        for (size_t i = 2; i < l.n; i++) {
            ck_assert_msg(cdch_decode_event(d, l.data[i], l.len[i], &a, &ev, &err) == 0, "%s", err.msg);
            if (ev.h.type == CDCH_EV_GTID)
                gno_seen = (uint64_t)ev.u.gtid.gno;
            if (i == l.n - 1 && f < st.files) {
                ck_assert_uint_eq(ev.h.type, CDCH_EV_ROTATE);
                char next[64];
                snprintf(next, sizeof next, "binlog.%06u", f + 1);
                ck_assert_uint_eq(ev.u.rotate.next_file.len, strlen(next));
                ck_assert(memcmp(ev.u.rotate.next_file.ptr, next, strlen(next)) == 0);
                ck_assert_uint_eq(ev.u.rotate.position, 4);
            }
            cdch_arena_reset(&a);
        }
        cdch_arena_free(&a);
        cdch_decoder_free(d);
        free_events(&l);
    }
    ck_assert_uint_eq(gno_seen, st.transactions);
    rm_rf(out);
    cdch_scenario_free(s);
}
END_TEST


/* Tagged GTIDs (gtid_next: AUTOMATIC:tag, 8.3+): GTID_TAGGED events with their own GNO sequence per
 * tag, transaction_length counting the variable-size event itself, the untagged GNOs going on,
 * expected.jsonl carrying uuid:tag:gno, PREVIOUS_GTIDS after a rotation in the tagged set format,
 * and cdch_stream_gtids_before; an 8.4 FORMAT_DESCRIPTION has 42 post-header lengths. */
START_TEST(tagged_gtids)
{
    static const char yaml2[] =
        "name: tg\n"
        "server: {version: 8.4.9}\n"
        "binlog: {max_binlog_size: 4096, compression: %s}\n"
        "tables:\n"
        "  - {name: d.t, columns: [{name: id, type: int, primary_key: true}, {name: v, type: text}]}\n"
        "transactions:\n"
        "  - insert: {table: d.t, rows: [{id: 1, v: a}]}\n"
        "  - gtid_next: AUTOMATIC:job\n"
        "  - insert: {table: d.t, rows: [{id: 2, v: b}]}\n"
        "  - ddl: {db: d, sql: \"ALTER TABLE t COMMENT 'x'\"}\n"
        "  - gtid_next: AUTOMATIC\n"
        "  - insert: {table: d.t, rows: [{id: 3, v: c}]}\n"
        "  - gtid_next: AUTOMATIC:job\n"
        "  - insert: {table: d.t, rows: [{id: 4, v: %s}]}\n"
        "  - insert: {table: d.t, rows: [{id: 5, v: %s}]}\n"
        "  - insert: {table: d.t, rows: [{id: 6, v: %s}]}\n";
    char pad[1600];
    uint32_t rnd = 12345; /* letters that do not compress: the stream rotates in both modes */
    for (size_t i = 0; i + 1 < sizeof pad; i++) {
        rnd = rnd * 1103515245u + 12345u;
        pad[i] = (char)('a' + (rnd >> 16) % 26);
    }
    pad[sizeof pad - 1] = 0;
    for (int mode = 0; mode < 2; mode++) {
        char y[8192];
        int n = snprintf(y, sizeof y, yaml2, mode ? "on" : "off", pad, pad, pad);
        cdch_err err;
        cdch_scenario *s = cdch_scenario_load_mem(y, (size_t)n, "tg.yaml", &err);
        ck_assert_msg(s != NULL, "%s", err.msg);
        char *out = tmpdir_path(mode ? "tg-c" : "tg-u");
        cdch_stream_stats st;
        ck_assert_msg(cdch_stream_generate(s, mode ? CDCH_STREAM_COMPRESSED : CDCH_STREAM_UNCOMPRESSED, out, &st, &err) == 0,
                      "%s", err.msg);
        ck_assert_uint_ge(st.files, 2);
        ck_assert_uint_le(st.files, 8);
        /* every GTID in stream order: CREATE DATABASE, CREATE TABLE, 1 untagged row, job:1 row,
         * job:2 DDL, untagged 4, job:3..5 */
        static const char *const want[] = {"", "", "", "job", "job", "", "job", "job", "job"};
        static const int64_t want_gno[] = {1, 2, 3, 1, 2, 4, 3, 4, 5};
        size_t k = 0;
        char *paths[8];
        for (unsigned f = 1; f <= st.files; f++) {
            paths[f - 1] = malloc(1100);
            snprintf(paths[f - 1], 1100, "%s/binlog.%06u", out, f);
            evlist l;
            read_events(paths[f - 1], &l);
            cdch_decoder *d = cdch_decoder_new();
            cdch_arena a = CDCH_ARENA_INIT;
            cdch_event ev;
            ck_assert(cdch_decode_event(d, l.data[0], l.len[0], &a, &ev, &err) == 0);
            ck_assert_uint_eq(ev.u.fde.n_post_header, 42);
            ck_assert_uint_eq(ev.u.fde.post_header_len[CDCH_EV_GTID_TAGGED - 1], 0);
            ck_assert_uint_eq(ev.u.fde.post_header_len[23 - 1], 0); /* WRITE_ROWS v1: gone in 8.4.0 */
            ck_assert(cdch_decode_event(d, l.data[1], l.len[1], &a, &ev, &err) == 0);
            ck_assert_uint_eq(ev.h.type, CDCH_EV_PREVIOUS_GTIDS);
            if (f > 1) { /* the tagged set format, holding job:1-.. */
                ck_assert(ev.u.prev_gtids.tagged_format);
                ck_assert_uint_eq(ev.u.prev_gtids.n_sids, 2);
            }
            for (size_t i = 2; i < l.n; i++) {
                uint8_t t = l.data[i][4];
                if (t != CDCH_EV_GTID && t != CDCH_EV_GTID_TAGGED)
                    continue;
                ck_assert_msg(cdch_decode_event(d, l.data[i], l.len[i], &a, &ev, &err) == 0, "%s", err.msg);
                ck_assert_uint_lt(k, 9);
                ck_assert_uint_eq(t, want[k][0] ? CDCH_EV_GTID_TAGGED : CDCH_EV_GTID);
                ck_assert_str_eq(ev.u.gtid.tag, want[k]);
                ck_assert_int_eq(ev.u.gtid.gno, want_gno[k]);
                /* transaction_length = this event + the rest of the transaction, up to the next GTID */
                uint64_t len = l.len[i];
                for (size_t j = i + 1; j < l.n && l.data[j][4] != CDCH_EV_GTID && l.data[j][4] != CDCH_EV_GTID_TAGGED &&
                                       l.data[j][4] != CDCH_EV_ROTATE;
                     j++)
                    len += l.len[j];
                ck_assert_uint_eq(ev.u.gtid.transaction_length, len);
                k++;
            }
            cdch_arena_free(&a);
            cdch_decoder_free(d);
            free_events(&l);
        }
        ck_assert_uint_eq(k, 9);
        /* expected.jsonl: the tagged form on the rows of tagged transactions */
        char ep[1200];
        snprintf(ep, sizeof ep, "%s/expected.jsonl", out);
        size_t elen;
        char *exp = cdch_read_file(ep, 1 << 20, &elen, &err);
        ck_assert_msg(exp != NULL, "%s", err.msg);
        ck_assert_ptr_nonnull(strstr(exp, "\"gtid\":\"3e11fa47-71ca-11e1-9e33-c80aa9429562:job:1\""));
        ck_assert_ptr_nonnull(strstr(exp, "\"gtid\":\"3e11fa47-71ca-11e1-9e33-c80aa9429562:4\""));
        ck_assert_ptr_nonnull(strstr(exp, "\"gtid\":\"3e11fa47-71ca-11e1-9e33-c80aa9429562:job:5\""));
        free(exp);
        /* the set executed before the last file's first event, and before the end of the first file */
        char *set = NULL;
        char last[32];
        snprintf(last, sizeof last, "binlog.%06u", (unsigned)st.files);
        ck_assert_msg(cdch_stream_gtids_before((const char *const *)paths, st.files, "binlog.000001", 4, &set, &err) == 0,
                      "%s", err.msg);
        ck_assert_str_eq(set, "");
        free(set);
        ck_assert_msg(cdch_stream_gtids_before((const char *const *)paths, st.files, last, 1u << 30, &set, &err) == 0,
                      "%s", err.msg);
        ck_assert_str_eq(set, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-4:job:1-5");
        free(set);
        for (unsigned f = 1; f <= st.files; f++)
            free(paths[f - 1]);
        rm_rf(out);
        cdch_scenario_free(s);
    }
}
END_TEST

/* ---- attach (attach.h): the start point after the schema prefix ------------------------- */

static const char attach_yaml[] =
    "name: att\n"
    "description: attach\n"
    "server: {gtid_mode: %s}\n"
    "binlog: {compression: both, create_tables: %s}\n"
    "tables:\n"
    "  - name: d.a\n"
    "    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(20)}]\n"
    "  - name: d.b\n"
    "    columns: [{name: id, type: int, primary_key: true}]\n"
    "transactions:\n"
    "  - ddl: {db: d, sql: \"ALTER TABLE a COMMENT 'lead'\"}\n"
    "  - empty: true\n"
    "  - insert: {table: d.a, rows: [{id: 1, v: x}]}\n"
    "  - ddl: {db: d, sql: \"ALTER TABLE b COMMENT 'mid'\"}\n"
    "  - insert: {table: d.b, rows: [{id: 2}]}\n";

/* Generate attach_yaml into a fresh directory; returns the first file's path (static). */
static const char *attach_gen(const char *tag, const char *gtid_mode, const char *create, cdch_stream_mode m)
{
    char yaml[sizeof attach_yaml + 32];
    int n = snprintf(yaml, sizeof yaml, attach_yaml, gtid_mode, create);
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load_mem(yaml, (size_t)n, "att.yaml", &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    char *out = tmpdir_path(tag);
    ck_assert_msg(cdch_stream_generate(s, m, out, NULL, &err) == 0, "%s", err.msg);
    cdch_scenario_free(s);
    static char path[1100];
    snprintf(path, sizeof path, "%s/binlog.000001", out);
    return path;
}

/* The attach point of the one-file stream at path (must succeed). */
static void attach_of(const char *path, cdch_stream_attach *a)
{
    const char *paths[] = {path};
    cdch_err err;
    ck_assert_msg(cdch_stream_attach_point(paths, 1, a, &err) == 0, "%s", err.msg);
}

/* Remove the stream directory holding path. */
static void rm_stream_of(const char *path)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    rm_rf(dir);
}

/* The prefix: CREATE DATABASE d, CREATE TABLE a, CREATE TABLE b, the leading
 * ALTER and the empty transaction (5 transactions); the attach position is
 * the end of the empty transaction's last event, which is where the sixth
 * GTID event (the first insert) starts; the mid-stream ALTER is not in it. */
static void check_attach(cdch_stream_mode m, bool gtid_mode)
{
    const char *path = attach_gen(gtid_mode ? "att-g" : "att-a", gtid_mode ? "on" : "off", "true", m);
    evlist l;
    read_events(path, &l);
    /* independently: offsets of the events, the 6th GTID-ish event, and what follows it */
    uint64_t off = 4, gtid6 = 0, prev_end = 0;
    unsigned gtids = 0;
    uint8_t after6 = 0;
    for (size_t i = 0; i < l.n; i++) {
        uint8_t t = l.data[i][4];
        if (t == CDCH_EV_GTID || t == CDCH_EV_ANONYMOUS_GTID) {
            if (++gtids == 6) {
                gtid6 = off;
                ck_assert_uint_gt(l.n, i + 1);
                after6 = l.data[i + 1][4];
            }
        }
        if (gtids < 6)
            prev_end = off + l.len[i];
        off += l.len[i];
    }
    ck_assert_uint_eq(gtids, 8);
    ck_assert_uint_eq(gtid6, prev_end);
    ck_assert_uint_eq(after6, m == CDCH_STREAM_COMPRESSED ? CDCH_EV_TRANSACTION_PAYLOAD : CDCH_EV_QUERY);
    cdch_stream_attach a;
    attach_of(path, &a);
    ck_assert_uint_eq(a.txns, 5);
    ck_assert_str_eq(a.file, "binlog.000001");
    ck_assert_uint_eq(a.pos, gtid6);
    /* the exact byte offset, as the writer lays the prefix out (the same in both modes: DDL is never
     * compressed): FDE 4..127 (8.4's: 42 post-header lengths), PREVIOUS_GTIDS ..158, then five
     * GTID/ANONYMOUS_GTID + QUERY(+QUERY) */
    ck_assert_uint_eq(a.pos, 1454); /* ANONYMOUS_GTID has the GTID event's size */
    if (gtid_mode) {
        ck_assert(a.gtids);
        ck_assert_str_eq(a.gtid_set, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5");
    } else {
        ck_assert(!a.gtids);
        ck_assert_ptr_null(a.gtid_set);
    }
    cdch_stream_attach_free(&a);
    free_events(&l);
    rm_stream_of(path);
}

START_TEST(attach_point_after_schema_prefix)
{
    check_attach(CDCH_STREAM_UNCOMPRESSED, true);
    check_attach(CDCH_STREAM_COMPRESSED, true);
    check_attach(CDCH_STREAM_COMPRESSED, false);
}
END_TEST

/* create_tables: false: the leading ALTER and the empty transaction are the
 * prefix (2); a stream with no row at all has no attach point. */
START_TEST(attach_point_without_create_and_without_rows)
{
    const char *path = attach_gen("att-n", "on", "false", CDCH_STREAM_UNCOMPRESSED);
    cdch_stream_attach a;
    attach_of(path, &a);
    ck_assert_uint_eq(a.txns, 2);
    ck_assert_str_eq(a.gtid_set, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-2");
    cdch_stream_attach_free(&a);
    rm_stream_of(path);
    cdch_err err;

    static const char yaml[] = "name: nr\ndescription: no rows\n"
                               "tables: [{name: d.t, columns: [{name: id, type: int, primary_key: true}]}]\n"
                               "transactions:\n  - ddl: {db: d, sql: \"ALTER TABLE t COMMENT 'x'\"}\n";
    cdch_scenario *s = cdch_scenario_load_mem(yaml, sizeof yaml - 1, "nr.yaml", &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    char *out = tmpdir_path("att-nr");
    ck_assert_msg(cdch_stream_generate(s, CDCH_STREAM_COMPRESSED, out, NULL, &err) == 0, "%s", err.msg);
    char p[1100];
    snprintf(p, sizeof p, "%s/binlog.000001", out);
    const char *pp[] = {p};
    ck_assert_int_eq(cdch_stream_attach_point(pp, 1, &a, &err), -1);
    ck_assert_msg(strstr(err.msg, "no transaction changes a row") != NULL, "%s", err.msg);
    rm_rf(out);
    cdch_scenario_free(s);
}
END_TEST

/* Rotation inside the prefix: the attach point is in the file where the
 * prefix ends, and the GTID set is the first file's PREVIOUS_GTIDS plus the
 * prefix's GTIDs. */
START_TEST(attach_point_across_rotation)
{
    char yaml[16384];
    size_t n = (size_t)snprintf(yaml, sizeof yaml,
                                "name: rotatt\ndescription: rotation\n"
                                "server: {first_gno: 10}\n"
                                "binlog: {max_binlog_size: 4096, compression: on}\n"
                                "tables:\n"
                                "  - {name: d.t1, columns: [{name: id, type: int, primary_key: true}, "
                                "{name: v, type: varchar(200)}]}\n"
                                "  - {name: d.t2, columns: [{name: id, type: int, primary_key: true}]}\n"
                                "transactions:\n");
    char comment[901];
    memset(comment, 'c', 900);
    comment[900] = '\0';
    for (int i = 0; i < 8; i++) /* 8 leading DDL statements of ~1 KiB: the prefix spans files */
        n += (size_t)snprintf(yaml + n, sizeof yaml - n, "  - ddl: {db: d, sql: \"ALTER TABLE t2 COMMENT '%s'\"}\n",
                              comment);
    n += (size_t)snprintf(yaml + n, sizeof yaml - n,
                          "  - bulk: {generator: inserts, table: d.t1, seed: 3, transactions: 20, "
                          "rows_per_transaction: 3, value_bytes: 100}\n");
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load_mem(yaml, n, "rotatt.yaml", &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    char *out = tmpdir_path("att-rot");
    cdch_stream_stats st;
    ck_assert_msg(cdch_stream_generate(s, CDCH_STREAM_COMPRESSED, out, &st, &err) == 0, "%s", err.msg);
    ck_assert_uint_gt(st.files, 1);
    char p[8][1100];
    const char *pp[8];
    size_t nf = st.files < 8 ? st.files : 8;
    for (size_t i = 0; i < nf; i++) {
        snprintf(p[i], sizeof p[i], "%s/binlog.%06zu", out, i + 1);
        pp[i] = p[i];
    }
    cdch_stream_attach a;
    ck_assert_msg(cdch_stream_attach_point(pp, nf, &a, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(a.txns, 11); /* CREATE DATABASE, two CREATE TABLE, eight ALTER */
    ck_assert_str_eq(a.file, "binlog.000003");
    /* the stream's own GTIDs (first_gno 10: PREVIOUS_GTIDS of the first file is empty) */
    ck_assert_str_eq(a.gtid_set, "3e11fa47-71ca-11e1-9e33-c80aa9429562:10-20");
    /* the file that holds the 11th transaction's last event: reading it from a.pos gives the next GTID
     * (gno 21) or, at the file's end, a ROTATE */
    char fp[1200];
    snprintf(fp, sizeof fp, "%s/%s", out, a.file);
    evlist l;
    read_events(fp, &l);
    uint64_t off = 4;
    size_t i = 0;
    while (i < l.n && off < a.pos)
        off += l.len[i++];
    ck_assert_uint_eq(off, a.pos);
    ck_assert_uint_lt(i, l.n);
    ck_assert(l.data[i][4] == CDCH_EV_GTID || l.data[i][4] == CDCH_EV_ROTATE);
    if (l.data[i][4] == CDCH_EV_GTID)
        ck_assert_int_eq((int64_t)cdch_le64(l.data[i] + 19 + 17), 21);
    free_events(&l);
    cdch_stream_attach_free(&a);
    rm_rf(out);
    cdch_scenario_free(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, matches_mysql_8_0_29_gtid_file);
    tcase_add_test(tc, matches_mysql_8_0_40_time_row);
    tcase_add_test(tc, refuses_non_empty_output);
    tcase_add_test(tc, rotation_and_previous_gtids);
    tcase_add_test(tc, tagged_gtids);
    tcase_add_test(tc, attach_point_after_schema_prefix);
    tcase_add_test(tc, attach_point_without_create_and_without_rows);
    tcase_add_test(tc, attach_point_across_rotation);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
