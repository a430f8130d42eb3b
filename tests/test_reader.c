/* test_reader.c — the streaming binlog reader (reader.h): framing of real
 * fixtures from memory and from files, magic and size checks, truncation
 * messages, bare event streams, and the memory bound. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"
#include "testutil.h"

static const char *k_fixture = "osheroff__mysql-bin.compressed"; /* 771 bytes, 5 events */

typedef struct framed {
    size_t n;
    uint64_t offsets[64];
    uint8_t types[64];
} framed;

/* Frame everything; returns the last cdch_reader_next result. */
static int frame_all(cdch_reader *r, framed *f, cdch_err *err)
{
    cdch_raw_event ev;
    int rc;
    f->n = 0;
    while ((rc = cdch_reader_next(r, &ev, err)) == 1) {
        ck_assert_uint_lt(f->n, 64);
        ck_assert_uint_eq(ev.len, (uint32_t)ev.data[9] | (uint32_t)ev.data[10] << 8 |
                                      (uint32_t)ev.data[11] << 16 | (uint32_t)ev.data[12] << 24);
        ck_assert_uint_eq(ev.type, ev.data[4]);
        f->offsets[f->n] = ev.offset;
        f->types[f->n] = ev.type;
        f->n++;
    }
    return rc;
}

static char *write_temp(const uint8_t *data, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_reader.XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    return path;
}

START_TEST(memory_frames_fixture)
{
    size_t len;
    uint8_t *d = tu_read_file(tu_fixture(k_fixture), &len);
    cdch_err err;
    cdch_reader *r = cdch_reader_from_memory(d, len, "f", 0, &err);
    ck_assert_ptr_nonnull(r);
    framed f;
    ck_assert_int_eq(frame_all(r, &f, &err), 0);
    ck_assert_uint_eq(f.n, 5);
    static const uint64_t offs[] = {4, 126, 157, 236, 724};
    static const uint8_t types[] = {15, 35, 34, 40, 4};
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(f.offsets[i], offs[i]);
        ck_assert_uint_eq(f.types[i], types[i]);
    }
    ck_assert_uint_eq(cdch_reader_offset(r), len);
    ck_assert_uint_eq(cdch_reader_buffer_size(r), 0); /* no copy */
    cdch_raw_event ev;
    ck_assert_int_eq(cdch_reader_next(r, &ev, &err), 0); /* EOF is sticky */
    cdch_reader_free(r);
    free(d);
}
END_TEST

START_TEST(file_matches_memory)
{
    size_t len;
    uint8_t *d = tu_read_file(tu_fixture(k_fixture), &len);
    cdch_err err;
    cdch_reader *r = cdch_reader_open(tu_fixture(k_fixture), 0, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(cdch_reader_name(r), tu_fixture(k_fixture));
    cdch_raw_event ev;
    uint64_t off = 4;
    size_t n = 0;
    while (cdch_reader_next(r, &ev, &err) == 1) {
        ck_assert_uint_eq(ev.offset, off);
        ck_assert(memcmp(ev.data, d + off, ev.len) == 0);
        off += ev.len;
        n++;
    }
    ck_assert_uint_eq(n, 5);
    ck_assert_uint_eq(off, len);
    cdch_reader_free(r);
    free(d);
}
END_TEST

START_TEST(magic_checked)
{
    cdch_err err;
    const uint8_t zip[] = {0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0};
    ck_assert_ptr_null(cdch_reader_from_memory(zip, sizeof zip, "x.zip", 0, &err));
    ck_assert_str_eq(err.msg, "x.zip is not a binlog file (magic is 50 4b 03 04, expected fe 62 69 6e)");
    ck_assert_int_eq(err.offset, 0);
    ck_assert_ptr_null(cdch_reader_from_memory(zip, 2, "short", 0, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "not a binlog file (only 2 bytes"));
    ck_assert_ptr_null(cdch_reader_from_memory(NULL, 0, "e", 0, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "e is empty"));

    char *p = write_temp(zip, sizeof zip);
    ck_assert_ptr_null(cdch_reader_open(p, 0, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "is not a binlog file (magic is 50 4b 03 04"));
    unlink(p);
    ck_assert_ptr_null(cdch_reader_open("/nonexistent/binlog.000001", 0, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "cannot open /nonexistent/binlog.000001"));
}
END_TEST

START_TEST(truncated_event)
{
    size_t len;
    uint8_t *d = tu_read_file(tu_fixture(k_fixture), &len);
    cdch_err err;
    /* cut 10 bytes off the final 47-byte ROTATE at 724 */
    cdch_reader *r = cdch_reader_from_memory(d, len - 10, "t", 0, &err);
    framed f;
    ck_assert_int_eq(frame_all(r, &f, &err), -1);
    ck_assert_uint_eq(f.n, 4);
    ck_assert_str_eq(err.msg, "truncated event at offset 724: header says 47 bytes, only 37 left");
    ck_assert_int_eq(err.offset, 724);
    cdch_raw_event ev;
    cdch_err err2;
    ck_assert_int_eq(cdch_reader_next(r, &ev, &err2), -1); /* failure is sticky */
    ck_assert_str_eq(err2.msg, err.msg);
    cdch_reader_free(r);

    /* same from a file */
    char *p = write_temp(d, len - 10);
    r = cdch_reader_open(p, 0, &err);
    ck_assert_int_eq(frame_all(r, &f, &err), -1);
    ck_assert_str_eq(err.msg, "truncated event at offset 724: header says 47 bytes, only 37 left");
    cdch_reader_free(r);

    /* cut inside the header of the event at 157 */
    r = cdch_reader_from_memory(d, 157 + 7, "t", 0, &err);
    ck_assert_int_eq(frame_all(r, &f, &err), -1);
    ck_assert_uint_eq(f.n, 2);
    ck_assert_ptr_nonnull(strstr(err.msg, "truncated event at offset 157: only 7 bytes left"));
    cdch_reader_free(r);
    unlink(p);
    free(d);
}
END_TEST

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

START_TEST(bad_sizes)
{
    uint8_t b[4 + 19 + 8];
    memset(b, 0, sizeof b);
    memcpy(b, "\xfe" "bin", 4);
    b[4 + 4] = 16;
    cdch_err err;
    framed f;

    put32(b + 4 + 9, 5);
    cdch_reader *r = cdch_reader_from_memory(b, sizeof b, "s", 0, &err);
    ck_assert_int_eq(frame_all(r, &f, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "bad event at offset 4: header says 5 bytes, less than the 19-byte"));
    cdch_reader_free(r);

    put32(b + 4 + 9, 0x40000001u);
    r = cdch_reader_from_memory(b, sizeof b, "s", 0, &err);
    ck_assert_int_eq(frame_all(r, &f, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "more than the 1 GiB maximum"));
    cdch_reader_free(r);

    /* exactly 1 GiB claimed on a tiny file: truncated, and the buffer does
     * not grow towards 1 GiB */
    put32(b + 4 + 9, 0x40000000u);
    char *p = write_temp(b, sizeof b);
    r = cdch_reader_open(p, 0, &err);
    ck_assert_int_eq(frame_all(r, &f, &err), -1);
    ck_assert_str_eq(err.msg, "truncated event at offset 4: header says 1073741824 bytes, only 27 left");
    ck_assert_uint_le(cdch_reader_buffer_size(r), 64 * 1024);
    cdch_reader_free(r);
    unlink(p);
}
END_TEST

/* Many events, the largest 300 KB: the file reader's buffer stays near the
 * largest event, not the file size (~3.3 MB). */
START_TEST(memory_bound)
{
    const size_t n_small = 3000, small = 1000, big = 300 * 1024;
    size_t len = 4 + n_small * small + big;
    uint8_t *d = calloc(1, len);
    memcpy(d, "\xfe" "bin", 4);
    size_t off = 4;
    for (size_t i = 0; i < n_small + 1; i++) {
        size_t sz = i == n_small / 2 ? big : small; /* one big event in the middle */
        d[off + 4] = 16;
        put32(d + off + 9, (uint32_t)sz);
        off += sz;
    }
    ck_assert_uint_eq(off, len);
    char *p = write_temp(d, len);
    cdch_err err;
    cdch_reader *r = cdch_reader_open(p, 0, &err);
    cdch_raw_event ev;
    size_t n = 0;
    int rc;
    while ((rc = cdch_reader_next(r, &ev, &err)) == 1)
        n++;
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(n, n_small + 1);
    ck_assert_uint_ge(cdch_reader_buffer_size(r), big);
    ck_assert_uint_le(cdch_reader_buffer_size(r), 2 * big);
    cdch_reader_free(r);
    unlink(p);
    free(d);
}
END_TEST

START_TEST(bare_stream)
{
    size_t len;
    uint8_t *d = tu_read_file(tu_fixture("go-mysql__transaction_payload.inner.bin"), &len);
    cdch_err err;
    ck_assert_ptr_null(cdch_reader_from_memory(d, len, "inner", 0, &err)); /* no magic */
    cdch_reader *r = cdch_reader_from_memory(d, len, "inner", CDCH_READER_NO_MAGIC, &err);
    framed f;
    ck_assert_int_eq(frame_all(r, &f, &err), 0);
    ck_assert_uint_eq(f.n, 8);
    ck_assert_uint_eq(f.offsets[0], 0);
    ck_assert_uint_eq(f.types[0], 2);
    ck_assert_uint_eq(f.types[7], 16);
    cdch_reader_free(r);
    free(d);
    cdch_reader_free(NULL);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("reader");
    TCase *tc = tcase_create("reader");
    tcase_add_test(tc, memory_frames_fixture);
    tcase_add_test(tc, file_matches_memory);
    tcase_add_test(tc, magic_checked);
    tcase_add_test(tc, truncated_event);
    tcase_add_test(tc, bad_sizes);
    tcase_add_test(tc, memory_bound);
    tcase_add_test(tc, bare_stream);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
