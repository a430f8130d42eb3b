/* test_stream.c — the stream writer against real MySQL files: scenarios
 * built to match a fixture (same schema, rows, server version and settings)
 * generate the fixture's events byte for byte, apart from timestamps and
 * server-specific ids (table ids, XIDs, commit timestamps, FDE create time);
 * and generation errors leave nothing behind. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event.h"
#include "reader.h"
#include "scenario.h"
#include "stream.h"
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

static char *tmpdir_path(const char *tag)
{
    static char buf[512];
    const char *base = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/cdch-test-%s-%ld", base ? base : "/tmp", tag, (long)getpid());
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
    rm_rf(out);
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
    rm_rf(out);
    ck_assert_int_eq(mkdir(out, 0777), 0);
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
    rm_rf(out);
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

static Suite *suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, matches_mysql_8_0_29_gtid_file);
    tcase_add_test(tc, matches_mysql_8_0_40_time_row);
    tcase_add_test(tc, refuses_non_empty_output);
    tcase_add_test(tc, rotation_and_previous_gtids);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
