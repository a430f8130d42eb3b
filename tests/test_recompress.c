/* test_recompress.c — cdch_recompress on real MySQL files and generated
 * streams: which transactions become payloads (DML yes; DDL, XA COMMIT,
 * non-transactional, empty no; XA PREPARE yes), exact event sequences,
 * transaction_length / log_pos / CRC32 consistency, the payload's header
 * (timestamp and server id of the XID, ZSTD TLVs, one zstd frame with or
 * without Frame_Content_Size), --flip-at, servers before 8.0.20. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cursor.h"
#include "event.h"
#include "reader.h"
#include "recompress.h"
#include "scenario.h"
#include "stream.h"
#include "testutil.h"

#define MAXEV 4096

typedef struct outfile {
    uint8_t types[MAXEV];  /* top-level event types */
    uint8_t flags0[MAXEV]; /* payload: 1 when its zstd frame carries a content size */
    size_t n;
    size_t payloads;
} outfile;

/* Read a rewritten file: every CRC verified, every log_pos = end offset,
 * every GTID's transaction_length = itself + the events up to the next
 * GTID / ROTATE / STOP / end; returns the top-level types. */
static void read_out(const char *path, outfile *o)
{
    cdch_err err;
    cdch_reader *r = cdch_reader_open(path, 0, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    cdch_decoder *d = cdch_decoder_new(); /* verifies checksums */
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_raw_event raw;
    uint64_t txn_start = 0, txn_len = 0;
    bool in_txn = false;
    memset(o, 0, sizeof *o);
    int rc;
    while ((rc = cdch_reader_next(r, &raw, &err)) == 1) {
        cdch_event ev;
        ck_assert_msg(cdch_decode_event(d, raw.data, raw.len, &a, &ev, &err) == 0, "%s at %llu: %s", path,
                      (unsigned long long)raw.offset, err.msg);
        ck_assert_uint_eq(ev.h.log_pos, raw.offset + raw.len);
        bool boundary = ev.h.type == CDCH_EV_GTID || ev.h.type == CDCH_EV_ANONYMOUS_GTID ||
                        ev.h.type == CDCH_EV_ROTATE || ev.h.type == CDCH_EV_STOP;
        if (boundary && in_txn) {
            ck_assert_uint_eq(raw.offset - txn_start, txn_len);
            in_txn = false;
        }
        if (ev.h.type == CDCH_EV_GTID || ev.h.type == CDCH_EV_ANONYMOUS_GTID) {
            in_txn = true;
            txn_start = raw.offset;
            txn_len = ev.u.gtid.transaction_length;
        }
        if (ev.h.type == CDCH_EV_TRANSACTION_PAYLOAD) {
            const cdch_payload *p = &ev.u.payload;
            ck_assert_uint_eq(p->compression_type, CDCH_COMPRESSION_ZSTD);
            ck_assert(p->has_uncompressed_size);
            ck_assert_uint_eq(p->uncompressed_size, p->uncompressed.len);
            ck_assert(p->n_inner > 0);
            const cdch_event *last = &p->inner[p->n_inner - 1];
            ck_assert_uint_eq(ev.h.timestamp, last->h.timestamp); /* the XID's, as MySQL */
            ck_assert_uint_eq(ev.h.server_id, last->h.server_id);
            ck_assert_uint_eq(ev.h.flags, 0);
            o->flags0[o->n] = p->frame_has_content_size;
            o->payloads++;
        }
        ck_assert(o->n < MAXEV);
        o->types[o->n++] = ev.h.type;
        cdch_arena_reset(&a);
    }
    ck_assert_msg(rc == 0, "%s", err.msg);
    if (in_txn)
        ck_assert_uint_eq(cdch_reader_offset(r) - txn_start, txn_len);
    cdch_arena_free(&a);
    cdch_decoder_free(d);
    cdch_reader_free(r);
}

/* A fresh empty directory of its own (mkdtemp: no name shared with another process or run). */
static void tmpdir(char *out, size_t n, const char *tag)
{
    snprintf(out, n, "%s/cdch_recompress_%s_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", tag);
    ck_assert_msg(mkdtemp(out) != NULL, "mkdtemp %s: %s", out, strerror(errno));
}

/* Recompress the given files into a fresh directory (returned in dir). */
static void run(char *const *files, int n, const cdch_recompress_opts *o, char *dir, size_t dn, const char *tag,
                cdch_recompress_stats *st)
{
    cdch_err err;
    cdch_recompress_input in;
    ck_assert_msg(cdch_recompress_resolve(n, files, &in, &err) == 0, "%s", err.msg);
    tmpdir(dir, dn, tag);
    ck_assert_msg(cdch_recompress(&in, dir, o, st, &err) == 0, "%s", err.msg);
    cdch_recompress_input_free(&in);
}

static const uint8_t *expect_types(const outfile *o, const uint8_t *want, size_t n)
{
    ck_assert_uint_eq(o->n, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(o->types[i] == want[i], "event %zu: type %u, want %u", i + 1, o->types[i], want[i]);
    return want;
}

enum { FDE = 15, PREV = 35, GTID = 33, ANON = 34, Q = 2, PL = 40, ROT = 4, TM = 19, WR = 30, XID = 16, XAP = 38 };

START_TEST(ddl_stays_plain_dml_compressed)
{
    /* 8.0.x capture: CREATE TABLE, then two DML transactions already compressed */
    char *f[] = {(char *)tu_fixture("apecloud__mysql-bin.000057")};
    cdch_recompress_opts o = {true, 7, false, 0, true};
    char dir[512], path[700];
    cdch_recompress_stats st;
    run(f, 1, &o, dir, sizeof dir, "ape", &st);
    snprintf(path, sizeof path, "%s/apecloud__mysql-bin.000057", dir);
    outfile out;
    read_out(path, &out);
    static const uint8_t want[] = {FDE, PREV, GTID, Q, GTID, PL, GTID, PL};
    expect_types(&out, want, sizeof want);
    ck_assert_uint_eq(st.transactions, 3);
    ck_assert_uint_eq(st.compressed, 2);
    ck_assert_uint_eq(st.payloads_in, 2);
    ck_assert_uint_eq(st.not_compressible, 1);
    ck_assert_uint_eq(out.flags0[5], 0); /* no Frame_Content_Size by default */
    cdch_stream_rm_tree(dir);

    /* uncompressed: the payloads unpacked */
    cdch_recompress_opts u = {false, 3, false, 0, true};
    run(f, 1, &u, dir, sizeof dir, "ape_u", &st);
    snprintf(path, sizeof path, "%s/apecloud__mysql-bin.000057", dir);
    read_out(path, &out);
    static const uint8_t plain[] = {FDE, PREV, GTID, Q,  GTID, Q,  29, TM, WR, XID,
                                    GTID, Q,    29,   TM, 31,   29, TM, WR, XID};
    expect_types(&out, plain, sizeof plain);
    cdch_stream_rm_tree(dir);

    /* with Frame_Content_Size */
    o.content_size = true;
    run(f, 1, &o, dir, sizeof dir, "ape_cs", &st);
    snprintf(path, sizeof path, "%s/apecloud__mysql-bin.000057", dir);
    read_out(path, &out);
    ck_assert_uint_eq(out.flags0[5], 1);
    ck_assert_uint_eq(out.flags0[7], 1);
    cdch_stream_rm_tree(dir);
}
END_TEST

START_TEST(xa_prepare_compressed_xa_commit_not)
{
    /* DML; XA START .. XA END + XA_PREPARE; XA COMMIT twice (MAY_HAVE_SBR) */
    char *f[] = {(char *)tu_fixture("mysql-server-std_data__binlog_recovery__duplicate_xid_xa_commit.000001")};
    cdch_recompress_opts o = {true, 3, false, 0, true};
    char dir[512], path[700];
    cdch_recompress_stats st;
    run(f, 1, &o, dir, sizeof dir, "xa", &st);
    snprintf(path, sizeof path, "%s/%s", dir, strrchr(f[0], '/') + 1);
    outfile out;
    read_out(path, &out);
    static const uint8_t want[] = {FDE, PREV, GTID, PL, GTID, PL, GTID, Q, GTID, Q};
    expect_types(&out, want, sizeof want);
    ck_assert_uint_eq(st.compressed, 2);
    ck_assert_uint_eq(st.not_compressible, 2);
    cdch_stream_rm_tree(dir);
}
END_TEST

START_TEST(rotate_kept_and_index)
{
    /* ends with ROTATE to mysql-bin.000005: kept, re-positioned */
    char *f[] = {(char *)tu_fixture("osheroff__mysql-bin.compressed")};
    cdch_recompress_opts o = {true, 19, false, 0, true};
    char dir[512], path[700];
    cdch_recompress_stats st;
    run(f, 1, &o, dir, sizeof dir, "rot", &st);
    snprintf(path, sizeof path, "%s/osheroff__mysql-bin.compressed", dir);
    outfile out;
    read_out(path, &out);
    static const uint8_t want[] = {FDE, PREV, ANON, PL, ROT};
    expect_types(&out, want, sizeof want);
    snprintf(path, sizeof path, "%s/osheroff__mysql-bin.index", dir);
    size_t len;
    uint8_t *idx = tu_read_file(path, &len);
    tu_assert_bytes(idx, len, (const uint8_t *)"./osheroff__mysql-bin.compressed\n", 33);
    free(idx);
    cdch_stream_rm_tree(dir);
}
END_TEST

/* gen `yaml` uncompressed into a temporary directory (returned). */
static void gen_mem(const char *yaml, char *dir, size_t dn, const char *tag)
{
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load_mem(yaml, strlen(yaml), tag, &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    tmpdir(dir, dn, tag);
    ck_assert_msg(cdch_stream_generate(s, CDCH_STREAM_UNCOMPRESSED, dir, NULL, &err) == 0, "%s", err.msg);
    cdch_scenario_free(s);
}

static const char k_mixed[] =
    "server: {version: \"%s\"}\n"
    "tables:\n"
    "  - name: app.t\n"
    "    columns: [{name: id, type: int, primary_key: true}, {name: v, type: varchar(20)}]\n"
    "  - name: app.m\n"
    "    engine: MyISAM\n"
    "    columns: [{name: id, type: int, primary_key: true}]\n"
    "transactions:\n"
    "  - insert: {table: app.t, rows: [{id: 1, v: a}]}\n"
    "  - insert: {table: app.m, rows: [{id: 1}]}\n"
    "  - empty: true\n"
    "  - insert: {table: app.t, rows: [{id: 2, v: b}]}\n"
    "  - ddl: {db: app, sql: \"ALTER TABLE t COMMENT 'x'\"}\n"
    "  - update: {table: app.t, rows: [{before: {id: 1}, after: {v: c}}]}\n";

START_TEST(flip_at_and_kinds)
{
    char yaml[2048], dir[512], in[600], path[700];
    snprintf(yaml, sizeof yaml, k_mixed, "8.0.36");
    gen_mem(yaml, dir, sizeof dir, "mixed");
    snprintf(in, sizeof in, "%s", dir);
    char *args[] = {in};
    /* transactions: 1 CREATE DATABASE, 2-3 CREATE TABLE, 4 insert t, 5 insert m (MyISAM),
     * 6 empty, 7 insert t, 8 ALTER, 9 update t */
    cdch_recompress_opts o = {true, 3, false, 0, true};
    char out[512];
    cdch_recompress_stats st;
    run(args, 1, &o, out, sizeof out, "mixed_c", &st);
    ck_assert_uint_eq(st.transactions, 9);
    ck_assert_uint_eq(st.compressed, 3);
    ck_assert_uint_eq(st.not_compressible, 6);
    cdch_stream_rm_tree(out);
    o.flip_at = 7; /* 4 stays plain; 7 and 9 compressed */
    run(args, 1, &o, out, sizeof out, "mixed_f", &st);
    ck_assert_uint_eq(st.compressed, 2);
    snprintf(path, sizeof path, "%s/binlog.000001", out);
    outfile f;
    read_out(path, &f);
    size_t g = 0;
    bool payload_after[16] = {false};
    for (size_t i = 0; i < f.n; i++) {
        if (f.types[i] == GTID)
            g++;
        else if (f.types[i] == PL)
            payload_after[g] = true;
    }
    ck_assert_uint_eq(g, 9);
    for (size_t t = 1; t <= 9; t++)
        ck_assert_msg(payload_after[t] == (t == 7 || t == 9), "txn %zu", t);
    cdch_stream_rm_tree(out);
    cdch_stream_rm_tree(dir);
}
END_TEST

START_TEST(server_before_8_0_20_never_compresses)
{
    /* the stream of an 8.0.36 server with its FORMAT_DESCRIPTION saying 8.0.19
     * (the scenario language starts at 8.0.20) */
    char yaml[2048], dir[512], out[512], a[700], b[700];
    snprintf(yaml, sizeof yaml, k_mixed, "8.0.36");
    gen_mem(yaml, dir, sizeof dir, "old");
    snprintf(a, sizeof a, "%s/binlog.000001", dir);
    size_t la, lb;
    uint8_t *x = tu_read_file(a, &la);
    ck_assert(memcmp(x + 4 + 19 + 2, "8.0.36", 6) == 0);
    memcpy(x + 4 + 19 + 2, "8.0.19", 6);
    uint32_t fde_size = cdch_le32(x + 4 + 9);
    uint8_t hdr[19];
    memcpy(hdr, x + 4, 19);
    hdr[17] &= (uint8_t)~CDCH_LOG_EVENT_BINLOG_IN_USE_F;
    uint32_t crc = cdch_crc32(cdch_crc32(0, hdr, 19), x + 4 + 19, fde_size - 19 - 4);
    for (int i = 0; i < 4; i++)
        x[4 + fde_size - 4 + i] = (uint8_t)(crc >> (8 * i));
    snprintf(b, sizeof b, "%s/old.000001", dir);
    FILE *fp = fopen(b, "wb");
    ck_assert(fp && fwrite(x, 1, la, fp) == la && fclose(fp) == 0);
    char *args[] = {b};
    cdch_recompress_opts o = {true, 3, false, 0, true};
    cdch_recompress_stats st;
    run(args, 1, &o, out, sizeof out, "old_c", &st);
    ck_assert_uint_eq(st.compressed, 0);
    ck_assert_uint_eq(st.old_server, 3);
    snprintf(a, sizeof a, "%s/old.000001", dir);
    snprintf(b, sizeof b, "%s/old.000001", out);
    uint8_t *y = tu_read_file(b, &lb);
    tu_assert_bytes(y, lb, x, la); /* unchanged */
    free(x);
    free(y);
    cdch_stream_rm_tree(out);
    cdch_stream_rm_tree(dir);
}
END_TEST

START_TEST(errors_leave_nothing)
{
    char parent[512], dir[600];
    tmpdir(parent, sizeof parent, "err");
    snprintf(dir, sizeof dir, "%s/out", parent); /* not there: a failed recompress must not make it */
    cdch_err err;
    cdch_recompress_input in;
    char *f[] = {(char *)tu_fixture("go-mysql__transaction_payload.zst")};
    ck_assert(cdch_recompress_resolve(1, f, &in, &err) == 0);
    cdch_recompress_opts o = {true, 3, false, 0, true};
    ck_assert(cdch_recompress(&in, dir, &o, NULL, &err) != 0);
    ck_assert_msg(strstr(err.msg, "is not a binlog file") != NULL, "%s", err.msg);
    FILE *p = fopen(dir, "r");
    ck_assert(p == NULL);
    o.level = 23;
    ck_assert(cdch_recompress(&in, dir, &o, NULL, &err) != 0);
    ck_assert_msg(strstr(err.msg, "out of range 1..22") != NULL, "%s", err.msg);
    cdch_recompress_input_free(&in);
    cdch_stream_rm_tree(parent);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("recompress");
    TCase *tc = tcase_create("recompress");
    tcase_add_test(tc, ddl_stays_plain_dml_compressed);
    tcase_add_test(tc, xa_prepare_compressed_xa_commit_not);
    tcase_add_test(tc, rotate_kept_and_index);
    tcase_add_test(tc, flip_at_and_kinds);
    tcase_add_test(tc, server_before_8_0_20_never_compresses);
    tcase_add_test(tc, errors_leave_nothing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
