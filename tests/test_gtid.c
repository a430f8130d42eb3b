/* test_gtid.c — GTID sets (binary untagged/tagged, text), GTID_TAGGED body. */
#include "gtid.h"
#include "testutil.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR 19 /* v4 common header */
#define CRC 4

/* ---- helpers --------------------------------------------------------------- */

typedef struct {
    uint8_t *file;
    size_t len;
} fixture;

static fixture load(const char *name)
{
    fixture f;
    f.file = tu_read_file(tu_fixture(name), &f.len);
    return f;
}

/* Offset of the n-th (0-based) event of `type` in a v4 binlog file, walking
 * the event sizes from offset 4; 0 if absent. */
static size_t find_event(const fixture *f, int type, int nth, size_t *ev_len)
{
    size_t pos = 4;
    while (pos + HDR <= f->len) {
        uint32_t size = (uint32_t)f->file[pos + 9] | (uint32_t)f->file[pos + 10] << 8 |
                        (uint32_t)f->file[pos + 11] << 16 | (uint32_t)f->file[pos + 12] << 24;
        ck_assert_msg(size >= HDR && pos + size <= f->len, "bad event size %u at %zu", size, pos);
        if (f->file[pos + 4] == type && nth-- == 0) {
            *ev_len = size;
            return pos;
        }
        pos += size;
    }
    return 0;
}

static const char *set_text(const cdch_gtid_set *s, cdch_buf *b)
{
    cdch_buf_reset(b);
    cdch_gtid_set_to_text(s, b);
    return cdch_buf_cstr(b);
}

static void uuid_of(const char *text, uint8_t out[16])
{
    ck_assert_msg(cdch_uuid_parse(text, out) == 0, "uuid %s", text);
}

/* Body of a GTID_TAGGED event from hex fields (total < 125 bytes): prepends
 * the serialization header 02 <size> 00. */
static uint8_t *tagged_body(const char *fields_hex, size_t *len)
{
    size_t flen;
    uint8_t *f = tu_unhex(fields_hex, &flen);
    ck_assert(flen + 3 < 125);
    uint8_t *b = malloc(flen + 3);
    b[0] = 0x02;
    b[1] = (uint8_t)((flen + 3) << 1);
    b[2] = 0x00;
    memcpy(b + 3, f, flen);
    free(f);
    *len = flen + 3;
    return b;
}

/* Minimal valid field list: flags 0, uuid 00..0f, gno 1, tag "t", lc 0, seq 1,
 * ts 0, trx_len 0, version 0. */
#define F_MIN_FLAGS "0000"
#define F_MIN_UUID "02 00 02 04 06 08 0a 0c 0e 10 12 14 16 18 1a 1c 1e"
#define F_MIN_GNO "04 04"
#define F_MIN_TAG "06 02 74"
#define F_MIN_REST "08 00 0a 04 0c 00 10 00 12 00"

/* ---- untagged set: 8.0.40 PREVIOUS_GTIDS ----------------------------------- */

START_TEST(test_untagged_fixture_roundtrip)
{
    fixture f = load("rust_mysql_common__binlog_transaction_previous_GTID_no_tag.000001");
    size_t ev_len;
    size_t off = find_event(&f, 35, 0, &ev_len);
    ck_assert_uint_eq(off, 0x7e);
    ck_assert_uint_eq(ev_len, 71);
    const uint8_t *body = f.file + off + HDR;
    size_t body_len = ev_len - HDR - CRC;

    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set s;
    cdch_err err;
    cdch_cursor c = cdch_cur(body, body_len);
    ck_assert_msg(cdch_gtid_set_decode(&c, &a, &s, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(cdch_cur_left(&c), 0);
    ck_assert(cdch_cur_ok(&c));
    ck_assert(!s.tagged_format);
    ck_assert_uint_eq(s.n_sids, 1);
    char u[37];
    cdch_uuid_format(s.sids[0].uuid, u);
    ck_assert_str_eq(u, "b9b88c66-0755-11f1-9899-4a9da94c4d71");
    ck_assert_str_eq(s.sids[0].tag, "");
    ck_assert_uint_eq(s.sids[0].n_intervals, 1);
    ck_assert_int_eq(s.sids[0].intervals[0].start, 1);
    ck_assert_int_eq(s.sids[0].intervals[0].end, 3);

    cdch_buf t = CDCH_BUF_INIT;
    ck_assert_str_eq(set_text(&s, &t), "b9b88c66-0755-11f1-9899-4a9da94c4d71:1-2");

    cdch_buf b = CDCH_BUF_INIT;
    cdch_gtid_set_encode(&s, &b);
    ck_assert_uint_eq(cdch_gtid_set_encoded_size(&s), body_len);
    tu_assert_bytes(b.data, b.len, body, body_len);

    /* the same set from text encodes identically */
    cdch_gtid_set p;
    ck_assert_msg(cdch_gtid_set_parse("B9B88C66-0755-11F1-9899-4A9DA94C4D71:1:2", &a, &p, &err) == 0, "%s", err.msg);
    cdch_buf_reset(&b);
    cdch_gtid_set_encode(&p, &b);
    tu_assert_bytes(b.data, b.len, body, body_len);

    cdch_buf_free(&b);
    cdch_buf_free(&t);
    cdch_arena_free(&a);
    free(f.file);
}
END_TEST

/* ---- tagged set + GTID_TAGGED: 9.6.0 --------------------------------------- */

START_TEST(test_tagged_set_fixture_roundtrip)
{
    fixture f = load("rust_mysql_common__binlog_transaction_with_GTID_TAG.000001");
    size_t ev_len;
    size_t off = find_event(&f, 35, 0, &ev_len);
    /* FDE is 0x7b bytes at offset 4, so PREVIOUS_GTIDS starts at 0x7f */
    ck_assert_uint_eq(off, 0x7f);
    ck_assert_uint_eq(ev_len, 0x76);
    const uint8_t *body = f.file + off + HDR;
    size_t body_len = ev_len - HDR - CRC;
    ck_assert_uint_eq(body_len, 95);
    /* format 1 marker in byte 0 and byte 7, n_sids = 2 in bytes 1..6 */
    tu_assert_hex(body, 8, "0102000000000001");

    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set s;
    cdch_err err;
    cdch_cursor c = cdch_cur(body, body_len);
    ck_assert_msg(cdch_gtid_set_decode(&c, &a, &s, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(cdch_cur_left(&c), 0);
    ck_assert(s.tagged_format);
    ck_assert_uint_eq(s.n_sids, 2);
    char u[37];
    for (int i = 0; i < 2; i++) {
        cdch_uuid_format(s.sids[i].uuid, u);
        ck_assert_str_eq(u, "55778904-0299-11f1-b1b8-4ef0c4956feb");
        ck_assert_uint_eq(s.sids[i].n_intervals, 1);
        ck_assert_int_eq(s.sids[i].intervals[0].start, 1);
    }
    ck_assert_str_eq(s.sids[0].tag, "");
    ck_assert_int_eq(s.sids[0].intervals[0].end, 14);
    ck_assert_str_eq(s.sids[1].tag, "mytag");
    ck_assert_int_eq(s.sids[1].intervals[0].end, 3);

    cdch_buf t = CDCH_BUF_INIT;
    ck_assert_str_eq(set_text(&s, &t), "55778904-0299-11f1-b1b8-4ef0c4956feb:1-13:mytag:1-2");

    cdch_buf b = CDCH_BUF_INIT;
    cdch_gtid_set_encode(&s, &b);
    ck_assert_uint_eq(cdch_gtid_set_encoded_size(&s), body_len);
    tu_assert_bytes(b.data, b.len, body, body_len);

    /* from text (tag in upper case, intervals split and unordered) */
    cdch_gtid_set p;
    ck_assert_msg(cdch_gtid_set_parse("55778904-0299-11F1-B1B8-4EF0C4956FEB:MyTag:2:1, "
                                      "55778904-0299-11f1-b1b8-4ef0c4956feb:7-13:1-6",
                                      &a, &p, &err) == 0,
                  "%s", err.msg);
    ck_assert(p.tagged_format);
    ck_assert_str_eq(set_text(&p, &t), "55778904-0299-11f1-b1b8-4ef0c4956feb:1-13:mytag:1-2");
    cdch_buf_reset(&b);
    cdch_gtid_set_encode(&p, &b);
    tu_assert_bytes(b.data, b.len, body, body_len);

    cdch_buf_free(&b);
    cdch_buf_free(&t);
    cdch_arena_free(&a);
    free(f.file);
}
END_TEST

START_TEST(test_gtid_tagged_fixture_roundtrip)
{
    fixture f = load("rust_mysql_common__binlog_transaction_with_GTID_TAG.000001");
    size_t ev_len;
    size_t off = find_event(&f, 42, 0, &ev_len);
    ck_assert_uint_eq(off, 0xf5);
    ck_assert_uint_eq(ev_len, 83);
    const uint8_t *body = f.file + off + HDR;
    size_t body_len = ev_len - HDR - CRC;

    cdch_gtid_ev g;
    cdch_err err;
    cdch_cursor c = cdch_cur(body, body_len);
    ck_assert_msg(cdch_gtid_tagged_decode(&c, &g, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(cdch_cur_left(&c), 0);

    char u[37];
    cdch_uuid_format(g.sid, u);
    printf("GTID_TAGGED @0x%zx: flags=%u sid=%s tag=%s gno=%" PRId64 " last_committed=%" PRId64
           " sequence_number=%" PRId64 " immediate_commit_ts=%" PRIu64 " original_commit_ts=%" PRIu64
           " transaction_length=%" PRIu64 " immediate_server_version=%" PRIu32 " original_server_version=%" PRIu32
           " commit_group_ticket=%" PRIu64 "\n",
           off, g.gtid_flags, u, g.tag, g.gno, g.last_committed, g.sequence_number, g.immediate_commit_ts,
           g.original_commit_ts, g.transaction_length, g.immediate_server_version, g.original_server_version,
           g.commit_group_ticket);
    ck_assert_uint_eq(g.gtid_flags, 0);
    ck_assert_str_eq(u, "55778904-0299-11f1-b1b8-4ef0c4956feb");
    ck_assert_str_eq(g.tag, "mytag");
    ck_assert_int_eq(g.gno, 3);
    ck_assert_int_eq(g.last_committed, 0);
    ck_assert_int_eq(g.sequence_number, 1);
    ck_assert_uint_eq(g.immediate_commit_ts, UINT64_C(1770368687207196));
    ck_assert_uint_eq(g.original_commit_ts, UINT64_C(1770368687207196));
    ck_assert_uint_eq(g.transaction_length, 296);
    ck_assert_uint_eq(g.immediate_server_version, 90600);
    ck_assert_uint_eq(g.original_server_version, 90600);
    ck_assert_uint_eq(g.commit_group_ticket, 0);
    ck_assert_uint_eq(g.lt_type, 2);

    /* transaction_length covers GTID_TAGGED..XID incl. CRCs: the ROTATE follows */
    size_t rot_len;
    size_t rot = find_event(&f, 4, 0, &rot_len);
    ck_assert_uint_eq(off + g.transaction_length, rot);

    /* the tagged GNO is the one after the PREVIOUS_GTIDS mytag:1-2 */
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set prev;
    ck_assert(cdch_gtid_set_parse("55778904-0299-11f1-b1b8-4ef0c4956feb:1-13:mytag:1-2", &a, &prev, &err) == 0);
    ck_assert(!cdch_gtid_set_contains(&prev, g.sid, g.tag, g.gno));
    cdch_gtid_set_add(&prev, &a, g.sid, g.tag, g.gno);
    cdch_buf t = CDCH_BUF_INIT;
    ck_assert_str_eq(set_text(&prev, &t), "55778904-0299-11f1-b1b8-4ef0c4956feb:1-13:mytag:1-3");

    cdch_buf b = CDCH_BUF_INIT;
    cdch_gtid_tagged_encode(&g, &b);
    tu_assert_bytes(b.data, b.len, body, body_len);

    cdch_buf_free(&t);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
    free(f.file);
}
END_TEST

/* Every proper prefix of the real bodies fails cleanly (ASan checks reads). */
START_TEST(test_fixture_truncations)
{
    fixture f = load("rust_mysql_common__binlog_transaction_with_GTID_TAG.000001");
    fixture f0 = load("rust_mysql_common__binlog_transaction_previous_GTID_no_tag.000001");
    const fixture *sets[2] = {&f, &f0};
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_err err;
    for (int k = 0; k < 2; k++) {
        size_t ev_len;
        size_t off = find_event(sets[k], 35, 0, &ev_len);
        size_t body_len = ev_len - HDR - CRC;
        for (size_t n = 0; n < body_len; n++) {
            uint8_t *copy = malloc(n ? n : 1); /* exact-size copy so ASan sees overreads */
            memcpy(copy, sets[k]->file + off + HDR, n);
            cdch_cursor c = cdch_cur(copy, n);
            cdch_gtid_set s;
            err.msg[0] = '\0';
            ck_assert_msg(cdch_gtid_set_decode(&c, &a, &s, &err) != 0, "set prefix %zu decoded", n);
            ck_assert_msg(strstr(err.msg, "truncated") != NULL, "prefix %zu: %s", n, err.msg);
            free(copy);
        }
    }
    size_t ev_len;
    size_t off = find_event(&f, 42, 0, &ev_len);
    size_t body_len = ev_len - HDR - CRC;
    for (size_t n = 0; n < body_len; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, f.file + off + HDR, n);
        cdch_cursor c = cdch_cur(copy, n);
        cdch_gtid_ev g;
        ck_assert_msg(cdch_gtid_tagged_decode(&c, &g, &err) != 0, "event prefix %zu decoded", n);
        ck_assert_msg(strstr(err.msg, "truncated") != NULL, "prefix %zu: %s", n, err.msg);
        ck_assert(c.p == copy); /* not advanced on error */
        free(copy);
    }
    /* single-byte corruption anywhere: never crashes, and a success still re-encodes */
    for (size_t i = 0; i < body_len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            uint8_t *copy = malloc(body_len);
            memcpy(copy, f.file + off + HDR, body_len);
            copy[i] ^= (uint8_t)(1u << bit);
            cdch_cursor c = cdch_cur(copy, body_len);
            cdch_gtid_ev g;
            if (cdch_gtid_tagged_decode(&c, &g, &err) == 0) {
                cdch_buf b = CDCH_BUF_INIT;
                cdch_gtid_tagged_encode(&g, &b);
                ck_assert(b.len > 0);
                cdch_buf_free(&b);
            } else {
                ck_assert(err.msg[0] != '\0');
            }
            free(copy);
        }
    }
    cdch_arena_free(&a);
    free(f.file);
    free(f0.file);
}
END_TEST

/* ---- corrupt binary sets ------------------------------------------------------ */

static void expect_set_error(const char *hex, const char *needle)
{
    size_t n;
    uint8_t *d = tu_unhex(hex, &n);
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set s;
    cdch_err err;
    err.msg[0] = '\0';
    cdch_cursor c = cdch_cur(d, n);
    ck_assert_msg(cdch_gtid_set_decode(&c, &a, &s, &err) != 0, "decoded: %s", hex);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "error '%s' lacks '%s'", err.msg, needle);
    ck_assert(err.offset >= 0);
    cdch_arena_free(&a);
    free(d);
}

#define UUID1 "b9b88c66075511f198994a9da94c4d71"

START_TEST(test_set_corrupt)
{
    /* huge counts are rejected before allocating */
    expect_set_error("ffffffffffffff00", "claims 72057594037927935 SIDs");
    expect_set_error("01ffffffffffff01", "claims 281474976710655 SIDs");
    expect_set_error("0100000000000000" UUID1 "ffffffffffffff7f", "claims 9223372036854775807 intervals");
    expect_set_error("0100000000000000" UUID1 "0200000000000000" "0100000000000000 0300000000000000",
                     "claims 2 intervals");
    /* unknown format byte */
    expect_set_error("0000000000000002", "unknown encoding format 2");
    /* interval rules: start >= 1, end > start, increasing, non-adjacent, end <= 2^63-1 */
    expect_set_error("0100000000000000" UUID1 "0100000000000000" "0000000000000000 0300000000000000",
                     "interval 1 at offset 32 is [0, 3)");
    expect_set_error("0100000000000000" UUID1 "0100000000000000" "0300000000000000 0300000000000000", "[3, 3)");
    expect_set_error("0100000000000000" UUID1 "0200000000000000" "0100000000000000 0300000000000000"
                     "0300000000000000 0500000000000000",
                     "interval 2 at offset 48 is [3, 5) after one ending at 3");
    expect_set_error("0100000000000000" UUID1 "0100000000000000" "0100000000000000 0000000000000080",
                     "[1, 9223372036854775808)");
    /* tagged: tag length and characters */
    expect_set_error("0101000000000001" UUID1 "42" "0000000000000000", "tag length 33");
    expect_set_error("0101000000000001" UUID1 "ff ffffffffffffffff" "0000000000000000", "tag length 18446744073709551615");
    expect_set_error("0101000000000001" UUID1 "06" "612d62" "0000000000000000", "invalid byte 0x2d at position 2");
    expect_set_error("0101000000000001" UUID1 "02" "31" "0000000000000000", "invalid byte 0x31 at position 1");

    /* a tagged set with an upper-case tag is accepted and normalised */
    size_t n;
    uint8_t *d = tu_unhex("0101000000000001" UUID1 "04 4162" "0100000000000000 0500000000000000 0600000000000000", &n);
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set s;
    cdch_err err;
    cdch_cursor c = cdch_cur(d, n);
    ck_assert_msg(cdch_gtid_set_decode(&c, &a, &s, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(s.sids[0].tag, "ab");
    free(d);

    /* a SID listed twice is merged, as MySQL's add_gtid_encoding does */
    d = tu_unhex("0200000000000000" UUID1 "0100000000000000 0100000000000000 0300000000000000" UUID1
                 "0100000000000000 0300000000000000 0500000000000000",
                 &n);
    c = cdch_cur(d, n);
    ck_assert_msg(cdch_gtid_set_decode(&c, &a, &s, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(s.n_sids, 1);
    cdch_buf t = CDCH_BUF_INIT;
    ck_assert_str_eq(set_text(&s, &t), "b9b88c66-0755-11f1-9899-4a9da94c4d71:1-4");
    free(d);

    /* empty set = 8 zero bytes; decoder stops after the set */
    d = tu_unhex("0000000000000000 dead", &n);
    c = cdch_cur(d, n);
    ck_assert(cdch_gtid_set_decode(&c, &a, &s, &err) == 0);
    ck_assert_uint_eq(s.n_sids, 0);
    ck_assert_uint_eq(cdch_cur_left(&c), 2);
    ck_assert_str_eq(set_text(&s, &t), "");
    cdch_buf b = CDCH_BUF_INIT;
    cdch_gtid_set_encode(&s, &b);
    tu_assert_hex(b.data, b.len, "0000000000000000");
    free(d);

    /* tagged format with no tagged SID (flag only) round-trips */
    d = tu_unhex("0101000000000001" UUID1 "00" "0100000000000000 0100000000000000 0200000000000000", &n);
    c = cdch_cur(d, n);
    ck_assert(cdch_gtid_set_decode(&c, &a, &s, &err) == 0);
    ck_assert(s.tagged_format);
    cdch_buf_reset(&b);
    cdch_gtid_set_encode(&s, &b);
    ck_assert_uint_eq(cdch_gtid_set_encoded_size(&s), n);
    tu_assert_bytes(b.data, b.len, d, n);
    free(d);

    cdch_buf_free(&b);
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

/* ---- GTID_TAGGED: hand-built bodies ------------------------------------------- */

static int decode_fields(const char *fields_hex, cdch_gtid_ev *g, cdch_err *err, size_t *left)
{
    size_t n;
    uint8_t *b = tagged_body(fields_hex, &n);
    cdch_cursor c = cdch_cur(b, n);
    int r = cdch_gtid_tagged_decode(&c, g, err);
    if (left)
        *left = cdch_cur_left(&c);
    free(b);
    return r;
}

START_TEST(test_tagged_varlen_vectors)
{
    cdch_gtid_ev g;
    cdch_err err;
    /* varlen vectors via the fields: gno (signed), last_committed, sequence
     * number (signed), immediate ts / trx length (unsigned), version (u32) */
    ck_assert_msg(decode_fields(F_MIN_FLAGS F_MIN_UUID
                                "04 f3ff0f"             /* gno +65535 (readme example) */
                                F_MIN_TAG "08 ebff0f"   /* last_committed -65535 */
                                "0a fbff0f"             /* sequence_number -65536 */
                                "0c fbff07"             /* immediate ts 65535 (unsigned readme example) */
                                "10 7fffffffffffffff"   /* trx length 2^56-1: 8 bytes */
                                "12 efffffff1f",        /* version 0xffffffff: 5 bytes */
                                &g, &err, NULL) == 0,
                  "%s", err.msg);
    ck_assert_int_eq(g.gno, 65535);
    ck_assert_int_eq(g.last_committed, -65535);
    ck_assert_int_eq(g.sequence_number, -65536);
    ck_assert_uint_eq(g.immediate_commit_ts, 65535);
    ck_assert_uint_eq(g.transaction_length, (UINT64_C(1) << 56) - 1);
    ck_assert_uint_eq(g.immediate_server_version, UINT32_MAX);
    for (int i = 0; i < 16; i++)
        ck_assert_uint_eq(g.sid[i], i);
    ck_assert_str_eq(g.tag, "t");

    /* 9-byte forms: 2^56 and UINT64_MAX, signed INT64_MIN */
    ck_assert_msg(decode_fields(F_MIN_FLAGS F_MIN_UUID F_MIN_GNO F_MIN_TAG
                                "08 ffffffffffffffffff" /* last_committed INT64_MIN */
                                "0a 04"
                                "0c ff0000000000000001" /* ts 2^56 */
                                "10 ffffffffffffffffff" /* trx length UINT64_MAX */
                                "12 00",
                                &g, &err, NULL) == 0,
                  "%s", err.msg);
    ck_assert_int_eq(g.last_committed, INT64_MIN);
    ck_assert_uint_eq(g.immediate_commit_ts, UINT64_C(1) << 56);
    ck_assert_uint_eq(g.transaction_length, UINT64_MAX);

    /* encoder produces the same canonical bytes */
    cdch_buf b = CDCH_BUF_INIT;
    cdch_gtid_tagged_encode(&g, &b);
    size_t n;
    uint8_t *want = tagged_body(F_MIN_FLAGS F_MIN_UUID F_MIN_GNO F_MIN_TAG "08 ffffffffffffffffff 0a 04"
                                            "0c ff0000000000000001 10 ffffffffffffffffff 12 00",
                                &n);
    tu_assert_bytes(b.data, b.len, want, n);
    free(want);

    /* sweep: every bit width round-trips through encode/decode, both signs */
    for (int bits = 0; bits <= 64; bits++) {
        uint64_t v = bits == 0 ? 0 : bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        uint64_t vs[3] = {v, v ? v ^ (v >> 1) : 0, bits ? UINT64_C(1) << (bits - 1) : 0};
        for (int k = 0; k < 3; k++) {
            cdch_gtid_ev e;
            memset(&e, 0, sizeof e);
            e.gno = 1;
            e.transaction_length = vs[k];
            e.immediate_commit_ts = vs[k];
            e.original_commit_ts = vs[k] ^ 1;
            e.commit_group_ticket = vs[k] | 1;
            int64_t sv;
            memcpy(&sv, &vs[k], sizeof sv);
            e.last_committed = sv;
            e.sequence_number = ~sv; /* -sv - 1, no overflow */
            e.immediate_server_version = (uint32_t)vs[k];
            e.original_server_version = (uint32_t)(vs[k] >> 32);
            cdch_buf_reset(&b);
            cdch_gtid_tagged_encode(&e, &b);
            cdch_cursor c = cdch_cur(b.data, b.len);
            cdch_gtid_ev d;
            ck_assert_msg(cdch_gtid_tagged_decode(&c, &d, &err) == 0, "bits %d: %s", bits, err.msg);
            ck_assert_uint_eq(cdch_cur_left(&c), 0);
            ck_assert_uint_eq(d.transaction_length, e.transaction_length);
            ck_assert_uint_eq(d.immediate_commit_ts, e.immediate_commit_ts);
            ck_assert_uint_eq(d.original_commit_ts, e.original_commit_ts);
            ck_assert_uint_eq(d.commit_group_ticket, e.commit_group_ticket);
            ck_assert_int_eq(d.last_committed, e.last_committed);
            ck_assert_int_eq(d.sequence_number, e.sequence_number);
            ck_assert_uint_eq(d.immediate_server_version, e.immediate_server_version);
            ck_assert_uint_eq(d.original_server_version, e.original_server_version);
        }
    }
    cdch_buf_free(&b);
}
END_TEST

START_TEST(test_tagged_optional_fields)
{
    cdch_gtid_ev g;
    memset(&g, 0, sizeof g);
    g.gtid_flags = 1;
    for (int i = 0; i < 16; i++)
        g.sid[i] = (uint8_t)(0xf0 + i);
    g.gno = 200;
    strcpy(g.tag, "_x9");
    g.last_committed = 5;
    g.sequence_number = 6;
    g.immediate_commit_ts = 1000;
    g.original_commit_ts = 999;
    g.transaction_length = 500;
    g.immediate_server_version = 90600;
    g.original_server_version = 80040;
    g.commit_group_ticket = 7;
    cdch_buf b = CDCH_BUF_INIT;
    cdch_gtid_tagged_encode(&g, &b);
    /* ids 7, 10 and 11 are present now */
    tu_assert_hex(b.data, b.len,
                  "02 8a 00"                                              /* version 1, size 69, lnifi 0 */
                  "00 02"                                                 /* flags 1 */
                  "02 c103 c503 c903 cd03 d103 d503 d903 dd03 e103 e503 e903 ed03 f103 f503 f903 fd03"
                  "04 4106"                                               /* gno 200 -> zigzag 400 */
                  "06 06 5f7839"                                          /* tag "_x9" */
                  "08 14 0a 18"                                           /* lc 5, seq 6 (zigzag 10, 12) */
                  "0c a10f 0e 9d0f"                                       /* ts 1000, original 999 */
                  "10 d107"                                               /* trx length 500 */
                  "12 430f0b 14 43c509"                                   /* versions 90600, 80040 */
                  "16 0e");                                               /* ticket 7 */
    cdch_cursor c = cdch_cur(b.data, b.len);
    cdch_gtid_ev d;
    cdch_err err;
    ck_assert_msg(cdch_gtid_tagged_decode(&c, &d, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(cdch_cur_left(&c), 0);
    ck_assert_uint_eq(d.gtid_flags, 1);
    ck_assert_int_eq(memcmp(d.sid, g.sid, 16), 0);
    ck_assert_int_eq(d.gno, 200);
    ck_assert_str_eq(d.tag, "_x9");
    ck_assert_uint_eq(d.original_commit_ts, 999);
    ck_assert_uint_eq(d.original_server_version, 80040);
    ck_assert_uint_eq(d.commit_group_ticket, 7);
    cdch_buf_free(&b);
}
END_TEST

/* MySQL sizes the size field for the field bytes, not for the total; with
 * 125..127 field bytes the message is one byte longer than its size says. */
START_TEST(test_tagged_size_quirk)
{
    cdch_gtid_ev g;
    memset(&g, 0, sizeof g);
    g.gno = 1;
    for (int i = 0; i < 16; i++)
        g.sid[i] = 0xff; /* 2 bytes each */
    memset(g.tag, 'a', CDCH_GTID_TAG_MAX);
    g.tag[CDCH_GTID_TAG_MAX] = '\0';
    /* field bytes (id + value): flags 2, uuid 33, gno 2, tag 34, lc 10,
     * seq 2, ts 10, original ts 10, trx 2, version 6, original 6, ticket 10 */
    g.last_committed = INT64_MAX;
    g.immediate_commit_ts = UINT64_MAX;
    g.original_commit_ts = UINT64_MAX - 1;
    g.immediate_server_version = UINT32_MAX - 1;
    g.original_server_version = UINT32_MAX;
    g.commit_group_ticket = UINT64_MAX; /* total 127 field bytes */
    cdch_buf b = CDCH_BUF_INIT;
    cdch_gtid_tagged_encode(&g, &b);
    ck_assert_uint_eq(b.len, 1 + 2 + 1 + 127);
    /* size field = varlen(1 + 1 + 1 + 127 = 130), which takes 2 bytes */
    tu_assert_hex(b.data, 4, "02 0902 00");
    cdch_cursor c = cdch_cur(b.data, b.len);
    cdch_gtid_ev d;
    cdch_err err;
    ck_assert_msg(cdch_gtid_tagged_decode(&c, &d, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(cdch_cur_left(&c), 0);
    ck_assert_int_eq(d.last_committed, INT64_MAX);
    ck_assert_uint_eq(d.commit_group_ticket, UINT64_MAX);
    ck_assert_str_eq(d.tag, g.tag);
    cdch_buf b2 = CDCH_BUF_INIT;
    cdch_gtid_tagged_encode(&d, &b2);
    tu_assert_bytes(b2.data, b2.len, b.data, b.len);
    cdch_buf_free(&b);
    cdch_buf_free(&b2);
}
END_TEST

static void expect_tagged_error(const char *fields_hex, const char *needle)
{
    cdch_gtid_ev g;
    cdch_err err;
    err.msg[0] = '\0';
    ck_assert_msg(decode_fields(fields_hex, &g, &err, NULL) != 0, "decoded: %s", fields_hex);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "error '%s' lacks '%s'", err.msg, needle);
}

START_TEST(test_tagged_corrupt)
{
    cdch_gtid_ev g;
    cdch_err err;
    size_t left;
    /* missing required fields */
    expect_tagged_error(F_MIN_FLAGS F_MIN_UUID F_MIN_TAG F_MIN_REST, "required field 2 (gno) is missing");
    expect_tagged_error(F_MIN_FLAGS F_MIN_UUID F_MIN_GNO F_MIN_TAG "08 00 0a 04 0c 00 10 00",
                        "required field 9 (immediate_server_version)");
    expect_tagged_error(F_MIN_UUID F_MIN_GNO F_MIN_TAG F_MIN_REST, "field 0 (gtid_flags)");
    /* value ranges */
    expect_tagged_error(F_MIN_FLAGS "02 0104" F_MIN_GNO, "uuid byte 0 at offset 6 has value 256");
    expect_tagged_error(F_MIN_FLAGS F_MIN_UUID F_MIN_GNO "06 42", "tag length 33");
    expect_tagged_error(F_MIN_FLAGS F_MIN_UUID F_MIN_GNO "06 04 612d" F_MIN_REST, "invalid byte 0x2d at position 2");
    expect_tagged_error(F_MIN_FLAGS F_MIN_UUID "04 00" F_MIN_TAG F_MIN_REST, "GNO 0 out of range");
    expect_tagged_error(F_MIN_FLAGS F_MIN_UUID "04 02" F_MIN_TAG F_MIN_REST, "GNO -1 out of range");
    expect_tagged_error("00 0104" F_MIN_UUID F_MIN_GNO F_MIN_TAG F_MIN_REST, "gtid_flags 256");
    expect_tagged_error(F_MIN_FLAGS F_MIN_UUID F_MIN_GNO F_MIN_TAG "08 00 0a 04 0c 00 10 00 12 0f00000020",
                        "does not fit in 32 bits");

    /* header problems */
    size_t n;
    uint8_t *b = tagged_body(F_MIN_FLAGS F_MIN_UUID F_MIN_GNO F_MIN_TAG F_MIN_REST, &n);
    cdch_cursor c;
    b[0] = 0x04; /* version 2 */
    c = cdch_cur(b, n);
    ck_assert(cdch_gtid_tagged_decode(&c, &g, &err) != 0);
    ck_assert_msg(strstr(err.msg, "serialization format version 2") != NULL, "%s", err.msg);
    b[0] = 0x02;
    b[2] = 0x1a; /* last non-ignorable field id 13 */
    c = cdch_cur(b, n);
    ck_assert(cdch_gtid_tagged_decode(&c, &g, &err) != 0);
    ck_assert_msg(strstr(err.msg, "last non-ignorable field id 13") != NULL, "%s", err.msg);
    b[2] = 0x18; /* 12 = "all 12 known fields": fine */
    c = cdch_cur(b, n);
    ck_assert_msg(cdch_gtid_tagged_decode(&c, &g, &err) == 0, "%s", err.msg);
    b[2] = 0x00;
    b[1] = 0x04; /* size 2 < header */
    c = cdch_cur(b, n);
    ck_assert(cdch_gtid_tagged_decode(&c, &g, &err) != 0);
    ck_assert_msg(strstr(err.msg, "smaller than its 3-byte header") != NULL, "%s", err.msg);
    b[1] = (uint8_t)((n + 1) << 1); /* size beyond the body */
    c = cdch_cur(b, n);
    ck_assert(cdch_gtid_tagged_decode(&c, &g, &err) != 0);
    ck_assert_msg(strstr(err.msg, "exceeds the") != NULL, "%s", err.msg);
    ck_assert(c.overrun);
    free(b);

    /* unknown ignorable trailing fields (ids 12, 13) are skipped; bytes after
     * the message are left to the caller */
    uint8_t *m = tagged_body(F_MIN_FLAGS F_MIN_UUID F_MIN_GNO F_MIN_TAG F_MIN_REST "18 0400 1a 00", &n);
    uint8_t *m2 = malloc(n + 2);
    memcpy(m2, m, n);
    m2[n] = 0xaa;
    m2[n + 1] = 0xbb;
    c = cdch_cur(m2, n + 2);
    ck_assert_msg(cdch_gtid_tagged_decode(&c, &g, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(cdch_cur_left(&c), 2);
    ck_assert_int_eq(g.gno, 1);
    free(m);
    free(m2);

    /* optional fields omitted -> defaults */
    ck_assert(decode_fields(F_MIN_FLAGS F_MIN_UUID F_MIN_GNO F_MIN_TAG "08 00 0a 04 0c 84 10 00 12 a2", &g, &err,
                            &left) == 0);
    ck_assert_uint_eq(g.original_commit_ts, g.immediate_commit_ts);
    ck_assert_uint_eq(g.immediate_commit_ts, 66);
    ck_assert_uint_eq(g.original_server_version, 81);
    ck_assert_uint_eq(left, 0);
}
END_TEST

/* ---- text form ---------------------------------------------------------------- */

static void expect_parse(const char *in, const char *want)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set s;
    cdch_err err;
    ck_assert_msg(cdch_gtid_set_parse(in, &a, &s, &err) == 0, "'%s': %s", in, err.msg);
    cdch_buf t = CDCH_BUF_INIT;
    ck_assert_str_eq(set_text(&s, &t), want);
    /* binary round trip keeps the set */
    cdch_buf b = CDCH_BUF_INIT;
    cdch_gtid_set_encode(&s, &b);
    ck_assert_uint_eq(b.len, cdch_gtid_set_encoded_size(&s));
    cdch_cursor c = cdch_cur(b.data, b.len);
    cdch_gtid_set d;
    ck_assert_msg(cdch_gtid_set_decode(&c, &a, &d, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(cdch_cur_left(&c), 0);
    ck_assert_str_eq(set_text(&d, &t), want);
    cdch_buf_free(&b);
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}

static void expect_parse_error(const char *in, const char *needle, int64_t offset)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set s;
    cdch_err err;
    err.msg[0] = '\0';
    ck_assert_msg(cdch_gtid_set_parse(in, &a, &s, &err) != 0, "parsed: '%s'", in);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "error '%s' lacks '%s'", err.msg, needle);
    ck_assert_msg(err.offset == offset, "'%s': offset %lld, want %lld (%s)", in, (long long)err.offset,
                  (long long)offset, err.msg);
    cdch_arena_free(&a);
}

#define UA "3e11fa47-71ca-11e1-9e33-c80aa9429562"
#define UB "3E11FA47-71CA-11E1-9E33-C80AA9429563"
#define UB_LC "3e11fa47-71ca-11e1-9e33-c80aa9429563"

START_TEST(test_text_parse)
{
    expect_parse("", "");
    expect_parse("  , ,", "");
    expect_parse(UA ":1-5:7", UA ":1-5:7");
    expect_parse(UA ":7:1-5:6", UA ":1-7");                         /* sorted + merged (adjacent) */
    expect_parse(UA ":3-4:1-2:8:10-12:9", UA ":1-4:8-12");
    expect_parse(UA ":5-5", UA ":5");
    expect_parse(UB ":2," UA ":1", UA ":1," UB_LC ":2");            /* SIDs sorted by uuid bytes */
    expect_parse(UA ":1-3,\n  " UA ":2-9", UA ":1-9");              /* whitespace after commas */
    expect_parse(UA " : 1 - 3 : Tag_1 : 4", UA ":1-3:tag_1:4");     /* whitespace around tokens */
    expect_parse(UA ":1-3:zz:1:aa:2", UA ":1-3:aa:2:zz:1");         /* tags sorted after untagged */
    expect_parse(UA ":zz:1:aa:2:4-5", UA ":aa:2:4-5:zz:1");         /* a tag applies until the next one */
    expect_parse(UA ":mytag:1-5", UA ":mytag:1-5");                 /* tag only: no untagged part */
    expect_parse(UA ":mytag:3," UA ":1", UA ":1:mytag:3");
    expect_parse(UA ":_:1", UA ":_:1");
    expect_parse(UA ":abcdefghijklmnopqrstuvwxyz012345:1", UA ":abcdefghijklmnopqrstuvwxyz012345:1"); /* 32 */
    expect_parse(UA ":9223372036854775806", UA ":9223372036854775806");
    expect_parse(UA, ""); /* a bare UUID adds nothing */

    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set s;
    cdch_err err;
    ck_assert(cdch_gtid_set_parse(UA ":1-2", &a, &s, &err) == 0);
    ck_assert(!s.tagged_format);
    ck_assert(cdch_gtid_set_parse(UA ":1-2:T:1", &a, &s, &err) == 0);
    ck_assert(s.tagged_format);
    ck_assert_str_eq(s.sids[1].tag, "t");
    cdch_arena_free(&a);
}
END_TEST

START_TEST(test_text_errors)
{
    expect_parse_error("3e11fa47-71ca-11e1-9e33-c80aa942956:1", "bad UUID at offset 0", 0);       /* short */
    expect_parse_error("3e11fa47-71ca-11e1-9e33-c80aa942956g:1", "bad UUID", 0);                 /* bad hex */
    expect_parse_error("3e11fa4771ca-11e1-9e33-c80aa9429562a:1", "bad UUID", 0);                 /* dash */
    expect_parse_error(UA ":1, 3e11fa47-71ca-11e1-9e33-c80aa94295:1", "bad UUID at offset 40", 40);
    expect_parse_error(UA ":5-3", "reversed interval 5-3 at offset 37", 37);
    expect_parse_error(UA ":1:10-9", "reversed interval 10-9", 39);
    expect_parse_error(UA ":0", "GNO 0 at offset 37", 37);
    expect_parse_error(UA ":0-4", "GNO 0", 37);
    expect_parse_error(UA ":3-0", "reversed interval 3-0", 37);
    expect_parse_error(UA ":abcdefghijklmnopqrstuvwxyz0123456:1", "is 33 characters long", 37);
    expect_parse_error(UA ":my-tag:1", "invalid character '-' in or after tag 'my'", 39);
    expect_parse_error(UA ":9223372036854775807", "out of range", 37);
    expect_parse_error(UA ":99999999999999999999999", "out of range", 37);
    expect_parse_error(UA ":1-", "expected a GNO", 39);
    expect_parse_error(UA ":", "expected a tag or a GNO", 37);
    expect_parse_error(UA ":-1", "expected a tag or a GNO", 37);
    expect_parse_error(UA ":1x", "unexpected 'x'", 38);
    expect_parse_error(UA "x:1", "after the UUID", 36);
    expect_parse_error(UA ":1;" UA ":2", "unexpected ';", 38);
}
END_TEST

/* ---- contains / add --------------------------------------------------------- */

START_TEST(test_contains_add)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set s;
    memset(&s, 0, sizeof s);
    uint8_t ua[16], ub[16];
    uuid_of(UA, ua);
    uuid_of(UB, ub);
    cdch_buf t = CDCH_BUF_INIT;

    ck_assert(!cdch_gtid_set_contains(&s, ua, NULL, 1));
    cdch_gtid_set_add(&s, &a, ua, NULL, 1);
    cdch_gtid_set_add(&s, &a, ua, "", 2);
    cdch_gtid_set_add(&s, &a, ua, NULL, 3);
    ck_assert_str_eq(set_text(&s, &t), UA ":1-3");
    ck_assert_uint_eq(s.sids[0].n_intervals, 1);
    cdch_gtid_set_add(&s, &a, ua, NULL, 5);
    cdch_gtid_set_add(&s, &a, ua, NULL, 9);
    ck_assert_str_eq(set_text(&s, &t), UA ":1-3:5:9");
    cdch_gtid_set_add(&s, &a, ua, NULL, 4); /* joins 1-3 and 5 */
    ck_assert_str_eq(set_text(&s, &t), UA ":1-5:9");
    cdch_gtid_set_add(&s, &a, ua, NULL, 2); /* already there */
    ck_assert_str_eq(set_text(&s, &t), UA ":1-5:9");
    cdch_gtid_set_add(&s, &a, ua, NULL, 8);
    ck_assert_str_eq(set_text(&s, &t), UA ":1-5:8-9");
    ck_assert(!s.tagged_format);

    cdch_gtid_set_add(&s, &a, ub, NULL, 1);
    cdch_gtid_set_add(&s, &a, ua, "MyTag", 4);
    ck_assert(s.tagged_format);
    ck_assert_str_eq(set_text(&s, &t), UA ":1-5:8-9:mytag:4," UB_LC ":1");

    ck_assert(cdch_gtid_set_contains(&s, ua, NULL, 1));
    ck_assert(cdch_gtid_set_contains(&s, ua, "", 5));
    ck_assert(!cdch_gtid_set_contains(&s, ua, NULL, 6));
    ck_assert(!cdch_gtid_set_contains(&s, ua, NULL, 7));
    ck_assert(cdch_gtid_set_contains(&s, ua, NULL, 9));
    ck_assert(!cdch_gtid_set_contains(&s, ua, NULL, 10));
    ck_assert(!cdch_gtid_set_contains(&s, ua, NULL, 0));
    ck_assert(cdch_gtid_set_contains(&s, ua, "mytag", 4));
    ck_assert(cdch_gtid_set_contains(&s, ua, "MYTAG", 4));
    ck_assert(!cdch_gtid_set_contains(&s, ua, "mytag", 5));
    ck_assert(!cdch_gtid_set_contains(&s, ua, "other", 4));
    ck_assert(!cdch_gtid_set_contains(&s, ua, "bad-tag", 4));
    ck_assert(cdch_gtid_set_contains(&s, ub, NULL, 1));
    ck_assert(!cdch_gtid_set_contains(&s, ub, "mytag", 1));

    /* growth from a decoded (exactly sized) set and against an oracle */
    cdch_gtid_set g;
    cdch_err err;
    ck_assert(cdch_gtid_set_parse(UA ":1000", &a, &g, &err) == 0);
    static uint8_t in[2100];
    memset(in, 0, sizeof in);
    in[1000] = 1;
    for (int i = 0; i < 2000; i++) {
        int gno = 1 + (i * 769) % 2000; /* a permutation of 1..2000 */
        if (gno % 3 == 0)
            continue;
        cdch_gtid_set_add(&g, &a, ua, NULL, gno);
        in[gno] = 1;
        if (i % 97 == 0)
            for (int k = 1; k < 2050; k++)
                ck_assert_int_eq(cdch_gtid_set_contains(&g, ua, NULL, k), in[k]);
    }
    for (int k = 1; k < 2050; k++)
        ck_assert_int_eq(cdch_gtid_set_contains(&g, ua, NULL, k), in[k]);
    for (int k = 3; k <= 2000; k += 3)
        cdch_gtid_set_add(&g, &a, ua, NULL, k);
    ck_assert_str_eq(set_text(&g, &t), UA ":1-2000");

    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(test_add_bad_gno_aborts)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set s;
    memset(&s, 0, sizeof s);
    uint8_t ua[16];
    uuid_of(UA, ua);
    cdch_gtid_set_add(&s, &a, ua, NULL, 0);
}
END_TEST

START_TEST(test_add_bad_tag_aborts)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_gtid_set s;
    memset(&s, 0, sizeof s);
    uint8_t ua[16];
    uuid_of(UA, ua);
    cdch_gtid_set_add(&s, &a, ua, "9tag", 1);
}
END_TEST

/* ---- uuid ------------------------------------------------------------------- */

START_TEST(test_uuid)
{
    uint8_t u[16];
    char s[37];
    ck_assert_int_eq(cdch_uuid_parse(UA, u), 0);
    tu_assert_hex(u, 16, "3e11fa4771ca11e19e33c80aa9429562");
    cdch_uuid_format(u, s);
    ck_assert_str_eq(s, UA);
    ck_assert_int_eq(cdch_uuid_parse("3E11FA47-71CA-11E1-9E33-C80AA9429562", u), 0);
    cdch_uuid_format(u, s);
    ck_assert_str_eq(s, UA);
    uint8_t keep[16];
    memcpy(keep, u, 16);
    ck_assert_int_eq(cdch_uuid_parse("3e11fa47-71ca-11e1-9e33-c80aa942956", u), -1);   /* short */
    ck_assert_int_eq(cdch_uuid_parse("3e11fa47-71ca-11e1-9e33-c80aa94295620", u), -1); /* long */
    ck_assert_int_eq(cdch_uuid_parse("3e11fa47+71ca-11e1-9e33-c80aa9429562", u), -1);  /* separator */
    ck_assert_int_eq(cdch_uuid_parse("3e11fa47-71ca-11e1-9e33-c80aa942956x", u), -1);  /* hex */
    ck_assert_int_eq(cdch_uuid_parse("3e11fa4771ca11e19e33c80aa9429562", u), -1);      /* no dashes */
    ck_assert_int_eq(cdch_uuid_parse("", u), -1);
    ck_assert_int_eq(memcmp(u, keep, 16), 0); /* untouched on error */
}
END_TEST

static Suite *gtid_suite(void)
{
    Suite *s = suite_create("gtid");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_untagged_fixture_roundtrip);
    tcase_add_test(tc, test_tagged_set_fixture_roundtrip);
    tcase_add_test(tc, test_gtid_tagged_fixture_roundtrip);
    tcase_add_test(tc, test_fixture_truncations);
    tcase_add_test(tc, test_set_corrupt);
    tcase_add_test(tc, test_tagged_varlen_vectors);
    tcase_add_test(tc, test_tagged_optional_fields);
    tcase_add_test(tc, test_tagged_size_quirk);
    tcase_add_test(tc, test_tagged_corrupt);
    tcase_add_test(tc, test_text_parse);
    tcase_add_test(tc, test_text_errors);
    tcase_add_test(tc, test_contains_add);
    tcase_add_test(tc, test_uuid);
    tcase_add_test_raise_signal(tc, test_add_bad_gno_aborts, SIGABRT);
    tcase_add_test_raise_signal(tc, test_add_bad_tag_aborts, SIGABRT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(gtid_suite()); }
