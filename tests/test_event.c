/* test_event.c — the event codec against real MySQL binlog files: every
 * fixture decodes completely with the event counts its README lists, and
 * re-encoding every decoded event gives back the identical bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "reader.h"
#include "testutil.h"

typedef struct fixture {
    const char *name;
    const char *top;   /* "type:count,..." for the listed top-level types */
    const char *inner; /* same for events inside payloads */
} fixture;

static const fixture fixtures[] = {
    {"osheroff__mysql-bin.compressed", "15:1,35:1,34:1,40:1,4:1", "2:1,19:1,31:1,16:1"},
    {"apecloud__mysql-bin.000057", "15:1,35:1,33:3,2:1,40:2", "2:2,29:3,19:3,30:2,31:1,16:2"},
    {"rust_mysql_common__json.binlog.000001", "15:1,34:8,2:8,19:6,30:4,31:1,39:1,16:6", ""},
    {"rust_mysql_common__mysql_type_bit.000001", "15:1,33:3,2:3,19:1,30:1,16:1", ""},
    {"rust_mysql_common__mysql-enum-string-set.000001", "15:1,33:5,2:5,19:3,30:1,31:1,32:1,16:3", ""},
    {"mysql-server-std_data__replicated-bin.000001", "15:1,33:5,2:5,19:4,30:4,16:4,4:1", ""},
    {"mysql-server-std_data__replicated-bin.000002", "15:1,33:4,2:4,19:3,30:3,16:3,3:1", ""},
    {"mysql-server-std_data__binlog_recovery__duplicate_xid_xa_commit.000001", "15:1,33:4,2:5,19:2,30:2,16:1,38:1", ""},
    {"mysql-server-std_data__rpl_binlog_with_gipk_info_full_metadata.000001", "15:1,34:4,2:4,19:2,30:2,16:2", ""},
    {"mysql-server-std_data__rpl_binlog_with_gipk_info_with_gipk.000001", "15:1,34:2,2:2,19:1,30:1,16:1", ""},
    {"mysql-cdc-rs__02_query_bigger__binlog.000733", "15:1,34:11,2:11,19:6,30:3,31:1,32:2,16:6", ""},
    {"rust_mysql_common__minimal_row_metadata.000001", "15:1,34:1,2:1,19:1,30:1,16:1,4:1", ""},
    {"rust_mysql_common__time_issue.000001", "15:1,34:1,2:1,19:1,30:1,16:1,4:1", ""},
    {"rust_mysql_common__binlog_transaction_previous_GTID_no_tag.000001", "15:1,35:1,4:1", ""},
    {"mysql-cdc-rs__02_query__binlog.000001", "15:1,34:1,2:1", ""},
    {"mysql-cdc-rs__19_30_table_map_write_rows__binlog.000018", "15:1,34:3,2:3,19:1,30:1,16:1", ""},
    {"mysql-cdc-rs__31_update_rows_v2__binlog.000001", "15:1,34:4,2:4,19:2,30:1,31:1,16:2", ""},
    {"rust_mysql_common__json-opaque.binlog", "15:1,34:3,2:3,19:8,30:8,16:1", ""},
    {"rust_mysql_common__vector.binlog", "15:1,34:10,2:10,19:6,30:5,32:1,16:3,3:1", ""},
    {"rust_mysql_common__binlog_transaction_with_GTID_TAG.000001", "15:1,42:1,2:1,19:1,30:1,16:1,4:1", ""},
};
#define N_FIXTURES (sizeof fixtures / sizeof fixtures[0])

static void check_counts(const char *file, const char *what, const char *spec, const unsigned counts[256])
{
    unsigned want[256] = {0};
    const char *p = spec;
    while (*p) {
        unsigned t, n;
        int used;
        ck_assert_int_eq(sscanf(p, "%u:%u%n", &t, &n, &used), 2);
        want[t] = n;
        p += used;
        if (*p == ',')
            p++;
    }
    for (int t = 0; t < 256; t++) {
        if (want[t] == 0)
            continue;
        ck_assert_msg(counts[t] == want[t], "%s: %s events of type %d (%s): got %u, README lists %u", file, what,
                      t, cdch_event_type_name(t), counts[t], want[t]);
    }
}

/* Encode ev and require the bytes to equal `raw`. */
static void assert_reencodes(const cdch_event *ev, const cdch_encode_opts *o, const uint8_t *raw, size_t len,
                             const char *file, uint64_t off)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_err err;
    int rc = cdch_encode_event(ev, o, true, &b, &err);
    ck_assert_msg(rc == 0, "%s@%llu: encode %s failed: %s", file, (unsigned long long)off,
                  cdch_event_type_name(ev->h.type), err.msg);
    if (b.len != len || memcmp(b.data, raw, len) != 0) {
        size_t i = 0;
        while (i < len && i < b.len && b.data[i] == raw[i])
            i++;
        ck_abort_msg("%s@%llu: %s re-encodes differently at byte %zu (got %zu bytes, want %zu; got %02x want %02x)",
                     file, (unsigned long long)off, cdch_event_type_name(ev->h.type), i, b.len, len,
                     i < b.len ? b.data[i] : 0, i < len ? raw[i] : 0);
    }
    cdch_buf_free(&b);
}

START_TEST(fixture_round_trip)
{
    const fixture *fx = &fixtures[_i];
    cdch_err err;
    cdch_reader *r = cdch_reader_open(tu_fixture(fx->name), 0, &err);
    ck_assert_msg(r != NULL, "%s: %s", fx->name, err.msg);
    cdch_decoder *d = cdch_decoder_new();
    cdch_decoder *d2 = cdch_decoder_new(); /* decodes our re-encoded payloads */
    unsigned top[256] = {0}, inner[256] = {0};
    cdch_raw_event raw;
    int rc;
    cdch_arena a = CDCH_ARENA_INIT;
    while ((rc = cdch_reader_next(r, &raw, &err)) == 1) {
        cdch_event ev;
        cdch_arena_reset(&a);
        int drc = cdch_decode_event(d, raw.data, raw.len, &a, &ev, &err);
        ck_assert_msg(drc == 0, "%s: offset %llu+%lld: %s", fx->name, (unsigned long long)raw.offset,
                      (long long)err.offset, err.msg);
        top[ev.h.type]++;
        cdch_encode_opts o = {ev.has_checksum, false, 3, false};
        assert_reencodes(&ev, &o, raw.data, raw.len, fx->name, raw.offset);
        /* keep d2's table maps and format in step with d */
        if (ev.h.type != CDCH_EV_TRANSACTION_PAYLOAD) {
            cdch_event ev2;
            ck_assert_msg(cdch_decode_event(d2, raw.data, raw.len, &a, &ev2, &err) == 0, "%s", err.msg);
            continue;
        }
        const cdch_payload *p = &ev.u.payload;
        for (size_t i = 0; i < p->n_inner; i++) {
            const cdch_event *ie = &p->inner[i];
            inner[ie->h.type]++;
            ck_assert_uint_eq(ie->h.log_pos, 0);
            ck_assert(!ie->has_checksum);
            cdch_encode_opts io = {false, true, 3, false};
            assert_reencodes(ie, &io, ie->raw.ptr, ie->raw.len, fx->name, raw.offset);
        }
        /* recompress from the decoded inner events, with and without a
         * frame content size: the new frame must decompress to the same
         * inner stream */
        for (int fcs = 0; fcs < 2; fcs++) {
            cdch_buf b = CDCH_BUF_INIT;
            cdch_encode_opts ro = {ev.has_checksum, false, 3, fcs == 1};
            ck_assert_msg(cdch_encode_event(&ev, &ro, false, &b, &err) == 0, "%s", err.msg);
            cdch_event ev2;
            ck_assert_msg(cdch_decode_event(d2, b.data, b.len, &a, &ev2, &err) == 0, "%s: re-encoded payload: %s",
                          fx->name, err.msg);
            ck_assert_int_eq(ev2.u.payload.frame_has_content_size, fcs == 1);
            tu_assert_bytes(ev2.u.payload.uncompressed.ptr, ev2.u.payload.uncompressed.len, p->uncompressed.ptr,
                            p->uncompressed.len);
            ck_assert_uint_eq(ev2.u.payload.uncompressed_size, p->uncompressed.len);
            cdch_buf_free(&b);
        }
    }
    ck_assert_msg(rc == 0, "%s: %s", fx->name, err.msg);
    check_counts(fx->name, "top-level", fx->top, top);
    check_counts(fx->name, "inner", fx->inner, inner);
    cdch_arena_free(&a);
    cdch_decoder_free(d);
    cdch_decoder_free(d2);
    cdch_reader_free(r);
}
END_TEST


/* Read the n-th event (0-based) of a fixture into a malloc'd copy. */
static uint8_t *fixture_event(const char *name, int n, size_t *len)
{
    cdch_err err;
    cdch_reader *r = cdch_reader_open(tu_fixture(name), 0, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    cdch_raw_event raw;
    for (int i = 0; i <= n; i++)
        ck_assert_int_eq(cdch_reader_next(r, &raw, &err), 1);
    uint8_t *copy = malloc(raw.len);
    memcpy(copy, raw.data, raw.len);
    *len = raw.len;
    cdch_reader_free(r);
    return copy;
}

/* The FDE we build for a version equals the real server's FDE byte for
 * byte (given the same header fields and create timestamp). */
static void check_fde(const char *fixture_name, const char *version, unsigned n_post)
{
    size_t len;
    uint8_t *raw = fixture_event(fixture_name, 0, &len);
    cdch_decoder *d = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_event real;
    cdch_err err;
    ck_assert_msg(cdch_decode_event(d, raw, len, &a, &real, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(real.u.fde.server_version, version);
    ck_assert_uint_eq(real.u.fde.n_post_header, n_post);
    cdch_event mine = real;
    ck_assert_msg(cdch_fde_for_version(version, real.u.fde.checksum_alg, &mine.u.fde, &err) == 0, "%s", err.msg);
    mine.u.fde.create_timestamp = real.u.fde.create_timestamp;
    cdch_buf b = CDCH_BUF_INIT;
    ck_assert(cdch_encode_event(&mine, NULL, false, &b, &err) == 0);
    tu_assert_bytes(b.data, b.len, raw, len);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
    cdch_decoder_free(d);
    free(raw);
}

START_TEST(fde_8_0_22) { check_fde("rust_mysql_common__json.binlog.000001", "8.0.22", 40); }
END_TEST
START_TEST(fde_8_0_28) { check_fde("osheroff__mysql-bin.compressed", "8.0.28", 41); }
END_TEST
START_TEST(fde_8_0_40) { check_fde("rust_mysql_common__time_issue.000001", "8.0.40", 41); }
END_TEST
START_TEST(fde_9_0_1) { check_fde("rust_mysql_common__vector.binlog", "9.0.1", 42); }
END_TEST
START_TEST(fde_9_6_0) { check_fde("rust_mysql_common__binlog_transaction_with_GTID_TAG.000001", "9.6.0", 42); }
END_TEST

START_TEST(fde_rejects_old_version)
{
    cdch_fde f;
    cdch_err err;
    ck_assert_int_eq(cdch_fde_for_version("8.0.19", 1, &f, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "8.0.20"));
    ck_assert_int_eq(cdch_fde_for_version("eight", 1, &f, &err), -1);
}
END_TEST

/* The carry-less-multiplication path and the tables agree on every length up
 * to 1 KiB + 64 at every alignment, from any starting crc. */
START_TEST(crc32_fast_path_equals_tables)
{
    static uint8_t buf[1024 + 64 + 16];
    uint32_t x = 0x12345678u;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t)(x >> 16);
    }
    for (size_t off = 0; off < 16; off++)
        for (size_t len = 0; len <= 1024 + 64; len++) {
            uint32_t seed = (uint32_t)(len * 2654435761u);
            ck_assert_uint_eq(cdch_crc32(seed, buf + off, len), cdch_crc32_tables(seed, buf + off, len));
        }
    /* a large buffer in pieces equals it whole */
    static uint8_t big[1 << 20];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 131u + (i >> 9));
    uint32_t whole = cdch_crc32(0, big, sizeof big), parts = 0;
    for (size_t o = 0; o < sizeof big; o += 4099)
        parts = cdch_crc32(parts, big + o, sizeof big - o < 4099 ? sizeof big - o : 4099);
    ck_assert_uint_eq(whole, parts);
    ck_assert_uint_eq(whole, cdch_crc32_tables(0, big, sizeof big));
}
END_TEST

START_TEST(crc32_known_values)
{
    ck_assert_uint_eq(cdch_crc32(0, "123456789", 9), 0xCBF43926u);
    ck_assert_uint_eq(cdch_crc32(0, "", 0), 0);
}
END_TEST

/* The payload header of the 8.0.28 fixture, field by field. */
START_TEST(payload_header_fields)
{
    size_t len;
    cdch_err err;
    cdch_decoder *d = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_event ev;
    for (int i = 0; i < 4; i++) {
        uint8_t *raw = fixture_event("osheroff__mysql-bin.compressed", i, &len);
        ck_assert_msg(cdch_decode_event(d, raw, len, &a, &ev, &err) == 0, "%s", err.msg);
        if (i == 2) {
            ck_assert_uint_eq(ev.h.type, CDCH_EV_ANONYMOUS_GTID);
            ck_assert_uint_eq(ev.u.gtid.transaction_length, 567);
            ck_assert_uint_eq(ev.h.event_size, 79);
        }
        if (i == 3) {
            tu_assert_hex(raw + 19, 14, "0201000303fcc0030103fcc30100");
            const cdch_payload *p = &ev.u.payload;
            ck_assert_uint_eq(p->compression_type, CDCH_COMPRESSION_ZSTD);
            ck_assert_uint_eq(p->uncompressed_size, 960);
            ck_assert_uint_eq(p->payload_size, 451);
            ck_assert_uint_eq(p->uncompressed.len, 960);
            ck_assert(!p->frame_has_content_size);
            ck_assert_uint_eq(p->n_inner, 4);
            ck_assert_uint_eq(p->inner[0].h.type, CDCH_EV_QUERY);
            ck_assert_uint_eq(p->inner[0].h.flags, CDCH_LOG_EVENT_SUPPRESS_USE_F);
            ck_assert_uint_eq(p->inner[2].h.type, CDCH_EV_UPDATE_ROWS);
            ck_assert_uint_eq(p->inner[3].h.type, CDCH_EV_XID);
            ck_assert_uint_eq(ev.h.event_size, 488);
        }
        free(raw);
    }
    cdch_arena_free(&a);
    cdch_decoder_free(d);
}
END_TEST

/* A ZSTD TRANSACTION_PAYLOAD event around the frame z, its header saying
 * usize bytes uncompressed, encoded into *b. */
static void encode_zstd_payload(const uint8_t *z, size_t zlen, uint64_t usize, cdch_buf *b)
{
    cdch_event ev;
    memset(&ev, 0, sizeof ev);
    ev.h.type = CDCH_EV_TRANSACTION_PAYLOAD;
    ev.h.server_id = 1;
    ev.h.log_pos = 1000;
    ev.u.payload.compression_type = CDCH_COMPRESSION_ZSTD;
    ev.u.payload.has_uncompressed_size = true;
    ev.u.payload.uncompressed_size = usize;
    ev.u.payload.payload_size = zlen;
    ev.u.payload.payload.ptr = z;
    ev.u.payload.payload.len = zlen;
    cdch_err err;
    cdch_encode_opts o = {true, false, 3, false};
    ck_assert_msg(cdch_encode_event(&ev, &o, true, b, &err) == 0, "%s", err.msg);
}

/* The go-mysql payload blob: wrap it in a TRANSACTION_PAYLOAD event and
 * require exactly the inner stream `zstd -d` gives. */
START_TEST(payload_go_mysql_blob)
{
    size_t zlen, ilen;
    uint8_t *z = tu_read_file(tu_fixture("go-mysql__transaction_payload.zst"), &zlen);
    uint8_t *want = tu_read_file(tu_fixture("go-mysql__transaction_payload.inner.bin"), &ilen);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_err err;
    encode_zstd_payload(z, zlen, ilen, &b);
    cdch_decoder *d = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_event got;
    ck_assert_msg(cdch_decode_event(d, b.data, b.len, &a, &got, &err) == 0, "%s", err.msg);
    tu_assert_bytes(got.u.payload.uncompressed.ptr, got.u.payload.uncompressed.len, want, ilen);
    ck_assert_uint_eq(got.u.payload.n_inner, 8);
    static const uint8_t types[8] = {2, 19, 30, 19, 31, 19, 32, 16};
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(got.u.payload.inner[i].h.type, types[i]);
    ck_assert_uint_eq(got.u.payload.inner[2].h.event_size, 684);
    ck_assert_uint_eq(got.u.payload.inner[4].h.event_size, 1378);
    ck_assert_uint_eq(got.u.payload.inner[2].u.rows.nrows > 0, 1);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
    cdch_decoder_free(d);
    free(z);
    free(want);
}
END_TEST

/* A payload whose header says more than 2 GiB uncompressed is valid MySQL
 * (only the compressed payload is capped) but beyond what the decoder holds in
 * memory: refused before any decompression, with a message that says why. */
START_TEST(payload_over_decoder_bound)
{
    size_t zlen;
    uint8_t *z = tu_read_file(tu_fixture("go-mysql__transaction_payload.zst"), &zlen);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_err err;
    encode_zstd_payload(z, zlen, 2251828947ULL, &b); /* dbz#1503's soak scenario */
    /* field 3 (uncompressed size), 9 bytes: 0xfe and 8 bytes little-endian (2251828947 = 0x86382ed3) */
    static const uint8_t field[11] = {0x03, 0x09, 0xfe, 0xd3, 0x2e, 0x38, 0x86, 0, 0, 0, 0};
    bool found = false;
    for (size_t i = 19; i + sizeof field <= b.len && !found; i++)
        found = memcmp(b.data + i, field, sizeof field) == 0;
    ck_assert(found);
    cdch_decoder *d = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_event got;
    ck_assert(cdch_decode_event(d, b.data, b.len, &a, &got, &err) != 0);
    ck_assert_msg(strstr(err.msg, "TRANSACTION_PAYLOAD of 2251828947 bytes uncompressed: valid in MySQL, but beyond "
                                  "the 2147483648 bytes this decoder holds in memory") != NULL,
                  "%s", err.msg);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
    cdch_decoder_free(d);
    free(z);
}
END_TEST

/* Compression type NONE: header `02 03 fc ff 00`, no uncompressed size. */
START_TEST(payload_none_header)
{
    size_t ilen;
    uint8_t *inner = tu_read_file(tu_fixture("go-mysql__transaction_payload.inner.bin"), &ilen);
    cdch_event ev;
    memset(&ev, 0, sizeof ev);
    ev.h.type = CDCH_EV_TRANSACTION_PAYLOAD;
    ev.u.payload.compression_type = CDCH_COMPRESSION_NONE;
    ev.u.payload.payload.ptr = inner;
    ev.u.payload.payload.len = ilen;
    cdch_buf b = CDCH_BUF_INIT;
    cdch_err err;
    cdch_encode_opts o = {true, false, 3, false};
    ck_assert(cdch_encode_event(&ev, &o, true, &b, &err) == 0);
    tu_assert_hex(b.data + 19, 11, "0203fcff000103fc8a0900");
    ck_assert_uint_eq(b.len, 19 + 11 + ilen + 4);
    cdch_decoder *d = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_event got;
    ck_assert_msg(cdch_decode_event(d, b.data, b.len, &a, &got, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(got.u.payload.n_inner, 8);
    ck_assert(!got.u.payload.has_uncompressed_size);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
    cdch_decoder_free(d);
    free(inner);
}
END_TEST

START_TEST(heartbeat_v2_bytes)
{
    cdch_event ev;
    memset(&ev, 0, sizeof ev);
    ev.h.type = CDCH_EV_HEARTBEAT_V2;
    ev.h.server_id = 7;
    ev.h.log_pos = 0x12345;
    ev.u.heartbeat.log_file.ptr = (const uint8_t *)"binlog.000001";
    ev.u.heartbeat.log_file.len = 13;
    ev.u.heartbeat.position = 0x12345;
    cdch_buf b = CDCH_BUF_INIT;
    cdch_err err;
    cdch_encode_opts o = {false, false, 3, false};
    ck_assert(cdch_encode_event(&ev, &o, true, &b, &err) == 0);
    tu_assert_hex(b.data + 19, b.len - 19, "010d" "62696e6c6f672e303030303031" "0204fd452301" "00");
    cdch_decoder *d = cdch_decoder_new();
    cdch_decoder_set_checksum(d, CDCH_CHECKSUM_OFF);
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_event got;
    ck_assert_msg(cdch_decode_event(d, b.data, b.len, &a, &got, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(got.u.heartbeat.position, 0x12345);
    ck_assert_uint_eq(got.u.heartbeat.log_file.len, 13);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
    cdch_decoder_free(d);
}
END_TEST

/* Every truncation and many corruptions of every fixture event must give
 * an error or a valid event, never a crash (run under ASan+UBSan). */
START_TEST(truncation_and_corruption)
{
    const fixture *fx = &fixtures[_i];
    cdch_err err;
    size_t flen;
    uint8_t *file = tu_read_file(tu_fixture(fx->name), &flen);
    cdch_reader *r = cdch_reader_from_memory(file, flen, fx->name, 0, &err);
    ck_assert(r != NULL);
    cdch_decoder *d = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_raw_event raw;
    unsigned seed = 12345;
    while (cdch_reader_next(r, &raw, &err) == 1) {
        cdch_event ev;
        uint8_t *copy = malloc(raw.len);
        for (size_t n = 0; n < raw.len; n++) {
            memcpy(copy, raw.data, n);
            /* fix the size field so the decoder sees a consistent but short event */
            if (n >= 13) {
                copy[9] = (uint8_t)n; copy[10] = (uint8_t)(n >> 8); copy[11] = (uint8_t)(n >> 16); copy[12] = (uint8_t)(n >> 24);
            }
            cdch_arena_reset(&a);
            (void)cdch_decode_event(d, copy, n, &a, &ev, &err);
        }
        cdch_decoder_verify_checksums(d, false);
        for (int k = 0; k < 64; k++) {
            memcpy(copy, raw.data, raw.len);
            seed = seed * 1103515245u + 12345u;
            size_t at = CDCH_HEADER_LEN + (seed >> 8) % (raw.len > CDCH_HEADER_LEN ? raw.len - CDCH_HEADER_LEN : 1);
            if (at < raw.len)
                copy[at] ^= (uint8_t)(1u << ((seed >> 4) & 7));
            cdch_arena_reset(&a);
            if (raw.type != CDCH_EV_FORMAT_DESCRIPTION)
                (void)cdch_decode_event(d, copy, raw.len, &a, &ev, &err);
        }
        cdch_decoder_verify_checksums(d, true);
        /* and the real event again so the decoder state follows the file */
        cdch_arena_reset(&a);
        ck_assert_msg(cdch_decode_event(d, raw.data, raw.len, &a, &ev, &err) == 0, "%s", err.msg);
        free(copy);
    }
    cdch_arena_free(&a);
    cdch_decoder_free(d);
    cdch_reader_free(r);
    free(file);
}
END_TEST

START_TEST(checksum_mismatch_named)
{
    size_t len;
    uint8_t *raw = fixture_event("osheroff__mysql-bin.compressed", 0, &len);
    cdch_decoder *d = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_event ev;
    cdch_err err;
    ck_assert(cdch_decode_event(d, raw, len, &a, &ev, &err) == 0);
    free(raw);
    raw = fixture_event("osheroff__mysql-bin.compressed", 2, &len);
    raw[30] ^= 1;
    ck_assert_int_eq(cdch_decode_event(d, raw, len, &a, &ev, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "CRC32 mismatch"));
    ck_assert_int_eq(err.offset, (int64_t)len - 4);
    free(raw);
    cdch_arena_free(&a);
    cdch_decoder_free(d);
}
END_TEST

START_TEST(rows_without_table_map)
{
    /* a WRITE_ROWS event of the 8.2.0 fixture, decoded without its table map */
    size_t len;
    cdch_decoder *d = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_event ev;
    cdch_err err;
    int wr = -1;
    for (int i = 0; i < 12 && wr < 0; i++) {
        uint8_t *raw = fixture_event("mysql-cdc-rs__19_30_table_map_write_rows__binlog.000018", i, &len);
        if (raw[4] == CDCH_EV_WRITE_ROWS) {
            ck_assert_int_eq(cdch_decode_event(d, raw, len, &a, &ev, &err), -1);
            ck_assert_ptr_nonnull(strstr(err.msg, "no preceding TABLE_MAP"));
            wr = i;
        } else if (raw[4] == CDCH_EV_FORMAT_DESCRIPTION) {
            ck_assert(cdch_decode_event(d, raw, len, &a, &ev, &err) == 0);
        }
        free(raw);
    }
    ck_assert_int_ge(wr, 0);
    cdch_arena_free(&a);
    cdch_decoder_free(d);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("event");
    TCase *tc = tcase_create("fixtures");
    tcase_add_loop_test(tc, fixture_round_trip, 0, N_FIXTURES);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    TCase *units = tcase_create("units");
    tcase_add_test(units, fde_8_0_22);
    tcase_add_test(units, fde_8_0_28);
    tcase_add_test(units, fde_8_0_40);
    tcase_add_test(units, fde_9_0_1);
    tcase_add_test(units, fde_9_6_0);
    tcase_add_test(units, fde_rejects_old_version);
    tcase_add_test(units, crc32_known_values);
    tcase_add_test(units, crc32_fast_path_equals_tables);
    tcase_add_test(units, payload_header_fields);
    tcase_add_test(units, payload_go_mysql_blob);
    tcase_add_test(units, payload_over_decoder_bound);
    tcase_add_test(units, payload_none_header);
    tcase_add_test(units, heartbeat_v2_bytes);
    tcase_add_test(units, checksum_mismatch_named);
    tcase_add_test(units, rows_without_table_map);
    suite_add_tcase(s, units);
    TCase *robust = tcase_create("robustness");
    tcase_add_loop_test(robust, truncation_and_corruption, 0, N_FIXTURES);
    tcase_set_timeout(robust, 600);
    suite_add_tcase(s, robust);
    return s;
}

int main(void) { return tu_run(suite()); }
