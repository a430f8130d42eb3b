/* test_temporal.c — DATE, DATETIME2, TIME2, TIMESTAMP2 row-image codecs,
 * packed longlongs, text forms and parsing.
 *
 * Expected bytes are worked out from MySQL's mysys/my_time.cc formulas:
 *   DATE      3 bytes LE: day | month << 5 | year << 9
 *   DATETIME2 5 bytes BE: (((year*13 + month) << 5 | day) << 17
 *                          | hour << 12 | minute << 6 | second) + 0x8000000000
 *             then fsp 1-2: usec/10000 (1 byte), 3-4: usec/100 (2 bytes BE),
 *             5-6: usec (3 bytes BE)
 *   TIME2     packed = ±((hour << 12 | minute << 6 | second) << 24 + usec);
 *             fsp 0: 3 bytes BE of (packed >> 24) + 0x800000;
 *             fsp 1-4: same int part (arithmetic shift, i.e. floor) then
 *             (packed % 2^24) / 10000 or / 100 — C remainder, negative
 *             for negative times, stored two's complement;
 *             fsp 5-6: 6 bytes BE of packed + 0x800000000000.
 * Negative TIME2 cases are also checked against the table in the comment
 * of my_time_packed_from_binary (e.g. -00:00:01.10 is 7FFFFE.F6).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mysql_types.h"
#include "temporal.h"
#include "testutil.h"

static cdch_temporal T(bool neg, unsigned y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s,
                       unsigned us)
{
    cdch_temporal t;
    memset(&t, 0, sizeof t);
    t.neg = neg;
    t.year = (uint16_t)y;
    t.month = (uint8_t)mo;
    t.day = (uint8_t)d;
    t.hour = (uint16_t)h;
    t.minute = (uint8_t)mi;
    t.second = (uint8_t)s;
    t.usec = us;
    return t;
}

static void assert_temporal_eq(const cdch_temporal *got, const cdch_temporal *want)
{
    ck_assert_msg(got->neg == want->neg && got->year == want->year && got->month == want->month &&
                      got->day == want->day && got->hour == want->hour && got->minute == want->minute &&
                      got->second == want->second && got->usec == want->usec,
                  "got %s%04u-%02u-%02u %u:%02u:%02u.%06u want %s%04u-%02u-%02u %u:%02u:%02u.%06u",
                  got->neg ? "-" : "", got->year, got->month, got->day, got->hour, got->minute, got->second,
                  got->usec, want->neg ? "-" : "", want->year, want->month, want->day, want->hour, want->minute,
                  want->second, want->usec);
}

static const char *fmt(const cdch_temporal *t, int kind, unsigned fsp)
{
    static char s[64];
    cdch_buf b = CDCH_BUF_INIT;
    cdch_temporal_format(t, kind, fsp, &b);
    snprintf(s, sizeof s, "%s", cdch_buf_cstr(&b));
    cdch_buf_free(&b);
    return s;
}

/* encode t at fsp, compare with hex, decode back and compare with want */
static void dt2_case(cdch_temporal t, unsigned fsp, const char *hex, const char *text)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_datetime2_encode(&t, fsp, &b);
    tu_assert_hex(b.data, b.len, hex);
    ck_assert_uint_eq(b.len, 5 + cdch_fsp_bytes(fsp));
    cdch_cursor c = cdch_cur(b.data, b.len);
    cdch_temporal got;
    cdch_err e;
    cdch_err_clear(&e);
    ck_assert_int_eq(cdch_datetime2_decode(&c, fsp, &got, &e), 0);
    ck_assert(cdch_cur_ok(&c));
    ck_assert_uint_eq(cdch_cur_left(&c), 0);
    ck_assert_str_eq(fmt(&got, CDCH_T_DATETIME2, fsp), text);
    cdch_buf_free(&b);
}

static void time2_case(cdch_temporal t, unsigned fsp, const char *hex, const char *text)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_time2_encode(&t, fsp, &b);
    tu_assert_hex(b.data, b.len, hex);
    ck_assert_uint_eq(b.len, 3 + cdch_fsp_bytes(fsp));
    cdch_cursor c = cdch_cur(b.data, b.len);
    cdch_temporal got;
    cdch_err e;
    cdch_err_clear(&e);
    ck_assert_msg(cdch_time2_decode(&c, fsp, &got, &e) == 0, "decode failed: %s", e.msg);
    ck_assert_uint_eq(cdch_cur_left(&c), 0);
    ck_assert_str_eq(fmt(&got, CDCH_T_TIME2, fsp), text);
    cdch_buf_free(&b);
}

/* decode-only from hex */
static void time2_dec(const char *hex, unsigned fsp, const char *text)
{
    size_t n;
    uint8_t *p = tu_unhex(hex, &n);
    cdch_cursor c = cdch_cur(p, n);
    cdch_temporal got;
    cdch_err e;
    cdch_err_clear(&e);
    ck_assert_msg(cdch_time2_decode(&c, fsp, &got, &e) == 0, "decode %s failed: %s", hex, e.msg);
    ck_assert_uint_eq(cdch_cur_left(&c), 0);
    ck_assert_str_eq(fmt(&got, CDCH_T_TIME2, fsp), text);
    free(p);
}

START_TEST(fsp_bytes)
{
    static const unsigned want[7] = {0, 1, 1, 2, 2, 3, 3};
    for (unsigned f = 0; f <= 6; f++)
        ck_assert_uint_eq(cdch_fsp_bytes(f), want[f]);
}
END_TEST

START_TEST(date_codec)
{
    /* 2024-02-29: 29 | 2<<5 | 2024<<9 = 0x0fd05d */
    cdch_temporal t = T(false, 2024, 2, 29, 0, 0, 0, 0);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_date_encode(&t, &b);
    tu_assert_hex(b.data, b.len, "5dd00f");
    cdch_buf_reset(&b);
    t = T(false, 9999, 12, 31, 0, 0, 0, 0);
    cdch_date_encode(&t, &b);
    tu_assert_hex(b.data, b.len, "9f1f4e");
    cdch_buf_reset(&b);
    t = T(false, 0, 0, 0, 0, 0, 0, 0);
    cdch_date_encode(&t, &b);
    tu_assert_hex(b.data, b.len, "000000");

    /* real: LINEITEM row in mysql-cdc-rs__02_query_bigger: 01 8d 0f */
    static const uint8_t real[3] = {0x01, 0x8d, 0x0f};
    cdch_cursor c = cdch_cur(real, 3);
    cdch_temporal got;
    cdch_err e;
    ck_assert_int_eq(cdch_date_decode(&c, &got, &e), 0);
    ck_assert_str_eq(fmt(&got, CDCH_T_DATE, 0), "1990-08-01");

    /* short input sets overrun, no error */
    c = cdch_cur(real, 2);
    ck_assert_int_eq(cdch_date_decode(&c, &got, &e), 0);
    ck_assert(!cdch_cur_ok(&c));

    /* month 13: 13 << 5 */
    static const uint8_t bad[3] = {0xa1, 0x01, 0x00};
    c = cdch_cur(bad, 3);
    ck_assert_int_eq(cdch_date_decode(&c, &got, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "out of range"));
    cdch_buf_free(&b);
}
END_TEST

START_TEST(datetime2_fsp)
{
    cdch_temporal t = T(false, 2024, 2, 29, 23, 59, 59, 999999);
    dt2_case(t, 6, "99b2bb7efb0f423f", "2024-02-29 23:59:59.999999");
    t.usec = 999000; /* the value as a DATETIME(3) holds it */
    dt2_case(t, 3, "99b2bb7efb2706", "2024-02-29 23:59:59.999");
    t.usec = 0;
    dt2_case(t, 0, "99b2bb7efb", "2024-02-29 23:59:59");

    /* one value at every fsp; the encoder keeps the first fsp digits */
    cdch_temporal u = T(false, 2000, 1, 1, 0, 0, 0, 123456);
    dt2_case(u, 0, "9964420000", "2000-01-01 00:00:00");
    dt2_case(u, 1, "99644200000a", "2000-01-01 00:00:00.1");    /* 10 hundredths */
    dt2_case(u, 2, "99644200000c", "2000-01-01 00:00:00.12");   /* 12 */
    dt2_case(u, 3, "996442000004ce", "2000-01-01 00:00:00.123"); /* 1230 */
    dt2_case(u, 4, "996442000004d2", "2000-01-01 00:00:00.1234");
    dt2_case(u, 5, "996442000001e23a", "2000-01-01 00:00:00.12345");
    dt2_case(u, 6, "996442000001e240", "2000-01-01 00:00:00.123456");

    /* zero date */
    cdch_temporal z = T(false, 0, 0, 0, 0, 0, 0, 0);
    dt2_case(z, 0, "8000000000", "0000-00-00 00:00:00");
    dt2_case(z, 6, "8000000000000000", "0000-00-00 00:00:00.000000");
}
END_TEST

START_TEST(datetime2_errors)
{
    cdch_temporal got;
    cdch_err e;
    /* negative int part */
    static const uint8_t neg[5] = {0x7f, 0xff, 0xff, 0xff, 0xff};
    cdch_cursor c = cdch_cur(neg, 5);
    ck_assert_int_eq(cdch_datetime2_decode(&c, 0, &got, &e), -1);
    /* hour 24: 24 << 12 = 0x18000 */
    static const uint8_t h24[5] = {0x80, 0x00, 0x01, 0x80, 0x00};
    c = cdch_cur(h24, 5);
    ck_assert_int_eq(cdch_datetime2_decode(&c, 0, &got, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "out of range"));
    /* fraction 0x0f4240 = 1000000 */
    static const uint8_t fr[8] = {0x80, 0, 0, 0, 0, 0x0f, 0x42, 0x40};
    c = cdch_cur(fr, 8);
    ck_assert_int_eq(cdch_datetime2_decode(&c, 6, &got, &e), -1);
    /* fsp 7 */
    c = cdch_cur(fr, 8);
    ck_assert_int_eq(cdch_datetime2_decode(&c, 7, &got, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "fsp 7"));
    /* truncated */
    c = cdch_cur(fr, 6);
    ck_assert_int_eq(cdch_datetime2_decode(&c, 3, &got, &e), 0);
    ck_assert(!cdch_cur_ok(&c));
}
END_TEST

START_TEST(time2_values)
{
    /* -00:00:00.5 at fsp 1: packed -500000 -> int floor -1 (7fffff),
     * frac -500000 / 10000 = -50 = 0xce */
    time2_case(T(true, 0, 0, 0, 0, 0, 0, 500000), 1, "7fffffce", "-00:00:00.5");
    /* -838:59:59 fsp 0: hms 3436283 -> 0x800000 - 3436283 = 0x4b9105 */
    time2_case(T(true, 0, 0, 0, 838, 59, 59, 0), 0, "4b9105", "-838:59:59");
    time2_case(T(false, 0, 0, 0, 838, 59, 59, 0), 0, "b46efb", "838:59:59");
    /* -12:34:56.000001 fsp 6: hms 51384; 0x800000000000 - (51384 << 24 | 1) */
    time2_case(T(true, 0, 0, 0, 12, 34, 56, 1), 6, "7f3747ffffff", "-12:34:56.000001");
    time2_case(T(false, 0, 0, 0, 12, 34, 56, 1), 6, "80c8b8000001", "12:34:56.000001");
    /* TIME range end with fraction */
    time2_case(T(true, 0, 0, 0, 838, 59, 59, 999999), 6, "4b9104f0bdc1", "-838:59:59.999999");
    /* fsp 4 positive: 0x800000 + 51384 = 80c8b8, 7891 = 1ed3 */
    time2_case(T(false, 0, 0, 0, 12, 34, 56, 789100), 4, "80c8b81ed3", "12:34:56.7891");
    /* fsp 3 negative: -00:00:00.001 -> int -1, frac -1000/100 = -10 = fff6 */
    time2_case(T(true, 0, 0, 0, 0, 0, 0, 1000), 3, "7ffffffff6", "-00:00:00.001");
    /* fsp 5: whole value -(1 << 12 << 24 | 500000) + 0x800000000000 */
    time2_case(T(true, 0, 0, 0, 1, 0, 0, 500000), 5, "7feffff85ee0", "-01:00:00.50000");
    /* zero */
    time2_case(T(false, 0, 0, 0, 0, 0, 0, 0), 0, "800000", "00:00:00");
    time2_case(T(false, 0, 0, 0, 0, 0, 0, 0), 2, "80000000", "00:00:00.00");
    /* a "negative zero" encodes as zero */
    time2_case(T(true, 0, 0, 0, 0, 0, 0, 0), 0, "800000", "00:00:00");
}
END_TEST

START_TEST(time2_mysql_table)
{
    /* the table in my_time_packed_from_binary (fsp 2) */
    time2_case(T(true, 0, 0, 0, 0, 0, 0, 10000), 2, "7fffffff", "-00:00:00.01");
    time2_case(T(true, 0, 0, 0, 0, 0, 0, 990000), 2, "7fffff9d", "-00:00:00.99");
    time2_case(T(true, 0, 0, 0, 0, 0, 1, 0), 2, "7fffff00", "-00:00:01.00");
    time2_case(T(true, 0, 0, 0, 0, 0, 1, 10000), 2, "7ffffeff", "-00:00:01.01");
    time2_case(T(true, 0, 0, 0, 0, 0, 1, 100000), 2, "7ffffef6", "-00:00:01.10");
    /* real: rust_mysql_common time_issue.000001, TIME(0) 60 43 e5, which
     * that project's test asserts is -(21 days 03:48:27) */
    time2_dec("6043e5", 0, "-507:48:27");
}
END_TEST

START_TEST(time2_out_of_range)
{
    cdch_temporal got;
    cdch_err e;
    /* hour 1000: 1000 << 12 = 0x3e8000, + 0x800000 = 0xbe8000 */
    static const uint8_t big[3] = {0xbe, 0x80, 0x00};
    cdch_cursor c = cdch_cur(big, 3);
    ck_assert_int_eq(cdch_time2_decode(&c, 0, &got, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "out of range"));
    /* int part -0x6e0000: 1760 hours, which MySQL's 10-bit hour field
     * would silently wrap to 736 */
    static const uint8_t wrap[3] = {0x12, 0x00, 0x00};
    c = cdch_cur(wrap, 3);
    ck_assert_int_eq(cdch_time2_decode(&c, 0, &got, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "-1760 hours is out of range"));
    /* minute 60: 60 << 6 = 0xf00 */
    static const uint8_t m60[3] = {0x80, 0x0f, 0x00};
    c = cdch_cur(m60, 3);
    ck_assert_int_eq(cdch_time2_decode(&c, 0, &got, &e), -1);
    /* 839:00:00 = 0x800000 + (839 << 12): beyond TIME's range */
    static const uint8_t h839[3] = {0xb4, 0x70, 0x00};
    c = cdch_cur(h839, 3);
    ck_assert_int_eq(cdch_time2_decode(&c, 0, &got, &e), -1);
    /* fsp 1-2 positive byte 0xff = 2550000 µs */
    static const uint8_t f[4] = {0x80, 0x00, 0x00, 0xff};
    c = cdch_cur(f, 4);
    ck_assert_int_eq(cdch_time2_decode(&c, 2, &got, &e), -1);
    /* short */
    c = cdch_cur(f, 3);
    ck_assert_int_eq(cdch_time2_decode(&c, 2, &got, &e), 0);
    ck_assert(!cdch_cur_ok(&c));
    c = cdch_cur(f, 4);
    ck_assert_int_eq(cdch_time2_decode(&c, 9, &got, &e), -1);
}
END_TEST

START_TEST(timestamp2_values)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_timestamp2_encode(0, 0, 0, &b);
    tu_assert_hex(b.data, b.len, "00000000");
    cdch_buf_reset(&b);
    cdch_timestamp2_encode(2147483647, 0, 0, &b); /* 2038-01-19 03:14:07 UTC */
    tu_assert_hex(b.data, b.len, "7fffffff");
    cdch_buf_reset(&b);
    cdch_timestamp2_encode(2147483647, 999999, 6, &b);
    tu_assert_hex(b.data, b.len, "7fffffff0f423f");
    cdch_buf_reset(&b);
    cdch_timestamp2_encode(2147483647, 500000, 3, &b); /* 5000 = 0x1388 */
    tu_assert_hex(b.data, b.len, "7fffffff1388");
    cdch_buf_reset(&b);
    cdch_timestamp2_encode(1, 120000, 2, &b); /* 12 hundredths */
    tu_assert_hex(b.data, b.len, "000000010c");

    uint32_t sec, usec;
    cdch_err e;
    cdch_cursor c = cdch_cur(b.data, b.len);
    ck_assert_int_eq(cdch_timestamp2_decode(&c, 2, &sec, &usec, &e), 0);
    ck_assert_uint_eq(sec, 1);
    ck_assert_uint_eq(usec, 120000);

    /* real: go-mysql payload TIMESTAMP(0) 67 e6 71 b6 */
    static const uint8_t real[4] = {0x67, 0xe6, 0x71, 0xb6};
    c = cdch_cur(real, 4);
    ck_assert_int_eq(cdch_timestamp2_decode(&c, 0, &sec, &usec, &e), 0);
    ck_assert_uint_eq(sec, 1743155638u);
    cdch_temporal t;
    cdch_epoch_to_civil(sec, usec, &t);
    ck_assert_str_eq(fmt(&t, CDCH_T_DATETIME2, 0), "2025-03-28 09:53:58");

    /* negative fraction is corrupt */
    static const uint8_t negf[6] = {0, 0, 0, 1, 0xff, 0xff};
    c = cdch_cur(negf, 6);
    ck_assert_int_eq(cdch_timestamp2_decode(&c, 4, &sec, &usec, &e), -1);
    cdch_buf_free(&b);
}
END_TEST

START_TEST(packed_forms)
{
    /* DATETIME '2015-01-15 23:24:25.123456':
     * ((((2015*13+1) << 5 | 15) << 17 | 23<<12 | 24<<6 | 25) << 24) + 123456 */
    cdch_temporal t = T(false, 2015, 1, 15, 23, 24, 25, 123456);
    ck_assert_int_eq(cdch_temporal_to_packed(&t, CDCH_T_DATETIME), 0x19951f761901e240LL);
    cdch_temporal back;
    cdch_temporal_from_packed(0x19951f761901e240LL, CDCH_T_DATETIME, &back);
    assert_temporal_eq(&back, &t);
    cdch_temporal_from_packed(0x19951f761901e240LL, CDCH_T_TIMESTAMP, &back);
    assert_temporal_eq(&back, &t);

    /* DATE '2012-03-18' (the date in rust_mysql_common json-opaque.binlog) */
    t = T(false, 2012, 3, 18, 0, 0, 0, 0);
    ck_assert_int_eq(cdch_temporal_to_packed(&t, CDCH_T_DATE), 1840815561362112512LL);
    cdch_temporal_from_packed(1840815561362112512LL, CDCH_T_DATE, &back);
    assert_temporal_eq(&back, &t);

    /* TIME '-87:31:46.654321' */
    t = T(true, 0, 0, 0, 87, 31, 46, 654321);
    ck_assert_int_eq(cdch_temporal_to_packed(&t, CDCH_T_TIME), -6012652878833LL);
    cdch_temporal_from_packed(-6012652878833LL, CDCH_T_TIME, &back);
    assert_temporal_eq(&back, &t);
    ck_assert_str_eq(fmt(&back, CDCH_T_TIME2, 6), "-87:31:46.654321");
}
END_TEST

START_TEST(format_forms)
{
    cdch_temporal t = T(false, 2024, 1, 2, 3, 4, 5, 60000);
    ck_assert_str_eq(fmt(&t, CDCH_T_DATE, 0), "2024-01-02");
    ck_assert_str_eq(fmt(&t, CDCH_T_DATE, 6), "2024-01-02");
    ck_assert_str_eq(fmt(&t, CDCH_T_DATETIME2, 0), "2024-01-02 03:04:05");
    ck_assert_str_eq(fmt(&t, CDCH_T_DATETIME2, 2), "2024-01-02 03:04:05.06");
    ck_assert_str_eq(fmt(&t, CDCH_T_DATETIME2, 6), "2024-01-02 03:04:05.060000");
    ck_assert_str_eq(fmt(&t, CDCH_T_TIME2, 1), "03:04:05.0");
    cdch_temporal u = T(true, 0, 0, 0, 100, 0, 9, 0);
    ck_assert_str_eq(fmt(&u, CDCH_T_TIME2, 0), "-100:00:09");
    cdch_temporal w = T(false, 1, 1, 1, 0, 0, 0, 0);
    ck_assert_str_eq(fmt(&w, CDCH_T_DATE, 0), "0001-01-01");
}
END_TEST

static void parse_ok(const char *s, int kind, cdch_temporal want)
{
    cdch_temporal got;
    cdch_err e;
    cdch_err_clear(&e);
    ck_assert_msg(cdch_temporal_parse(s, kind, &got, &e) == 0, "parse '%s' failed: %s", s, e.msg);
    assert_temporal_eq(&got, &want);
}

static void parse_err(const char *s, int kind, const char *needle)
{
    cdch_temporal got;
    cdch_err e;
    cdch_err_clear(&e);
    ck_assert_msg(cdch_temporal_parse(s, kind, &got, &e) == -1, "parse '%s' should fail", s);
    ck_assert_msg(strstr(e.msg, needle) != NULL, "message '%s' lacks '%s'", e.msg, needle);
}

START_TEST(parse_valid)
{
    parse_ok("2024-02-29", CDCH_T_DATE, T(false, 2024, 2, 29, 0, 0, 0, 0));
    parse_ok("2000-02-29", CDCH_T_DATE, T(false, 2000, 2, 29, 0, 0, 0, 0));
    parse_ok("0000-00-00", CDCH_T_DATE, T(false, 0, 0, 0, 0, 0, 0, 0));
    parse_ok("2024-02-29 23:59:59.999999", CDCH_T_DATETIME2, T(false, 2024, 2, 29, 23, 59, 59, 999999));
    parse_ok("2024-02-29T23:59:59.5", CDCH_T_DATETIME2, T(false, 2024, 2, 29, 23, 59, 59, 500000));
    parse_ok("0000-00-00 00:00:00", CDCH_T_DATETIME, T(false, 0, 0, 0, 0, 0, 0, 0));
    parse_ok("1970-01-01 00:00:01", CDCH_T_TIMESTAMP2, T(false, 1970, 1, 1, 0, 0, 1, 0));
    parse_ok("-838:59:59.999999", CDCH_T_TIME2, T(true, 0, 0, 0, 838, 59, 59, 999999));
    parse_ok("838:59:59", CDCH_T_TIME, T(false, 0, 0, 0, 838, 59, 59, 0));
    parse_ok("-00:00:00.5", CDCH_T_TIME2, T(true, 0, 0, 0, 0, 0, 0, 500000));
    parse_ok("5:06:07", CDCH_T_TIME2, T(false, 0, 0, 0, 5, 6, 7, 0));
    parse_ok("-00:00:00", CDCH_T_TIME2, T(false, 0, 0, 0, 0, 0, 0, 0)); /* -0 is 0 */
    parse_ok("12:34:56.000001", CDCH_T_TIME2, T(false, 0, 0, 0, 12, 34, 56, 1));
}
END_TEST

START_TEST(parse_errors)
{
    parse_err("2024-02-30", CDCH_T_DATE, "day out of range for February");
    parse_err("2023-02-29", CDCH_T_DATE, "day out of range for February (2023 is not a leap year)");
    parse_err("1900-02-29", CDCH_T_DATE, "1900 is not a leap year");
    parse_err("2024-04-31", CDCH_T_DATE, "day out of range for April (30 days)");
    parse_err("2024-13-01", CDCH_T_DATE, "month 13 is out of range");
    parse_err("2024-01-32", CDCH_T_DATE, "day 32 is out of range");
    parse_err("2024-1-1", CDCH_T_DATE, "expected YYYY-MM-DD");
    parse_err("2024-01-01x", CDCH_T_DATE, "unexpected text");
    parse_err("2024-01-01 24:00:00", CDCH_T_DATETIME2, "out of range");
    parse_err("2024-01-01 10:00", CDCH_T_DATETIME2, "expected YYYY-MM-DD HH:MM:SS");
    parse_err("2024-01-01 10:00:00.1234567", CDCH_T_DATETIME2, "more than 6 fraction digits");
    parse_err("2024-01-01 10:00:00.", CDCH_T_DATETIME2, "1 to 6 fraction digits");
    parse_err("839:00:00", CDCH_T_TIME2, "hours 839 out of range");
    parse_err("12:60:00", CDCH_T_TIME2, "minutes and seconds");
    parse_err("12:00", CDCH_T_TIME2, "expected [-]HH:MM:SS");
    parse_err("abc", CDCH_T_TIME2, "expected");
    parse_err("2024-01-01", CDCH_T_LONG, "not a temporal type");
}
END_TEST

START_TEST(epoch_civil)
{
    struct {
        uint32_t sec;
        const char *text;
    } cases[] = {
        {0, "1970-01-01 00:00:00"},
        {2147483647u, "2038-01-19 03:14:07"},
        {951782400u, "2000-02-29 00:00:00"},
        {1709251199u, "2024-02-29 23:59:59"},
        {1668951630u, "2022-11-20 13:40:30"}, /* apecloud fixture TIMESTAMP2 637a2e4e */
        {4294967295u, "2106-02-07 06:28:15"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cdch_temporal t;
        cdch_epoch_to_civil(cases[i].sec, 0, &t);
        ck_assert_str_eq(fmt(&t, CDCH_T_DATETIME2, 0), cases[i].text);
        if (cases[i].sec)
            ck_assert_int_eq(cdch_civil_to_epoch(&t), (int64_t)cases[i].sec);
    }
    cdch_temporal z = T(false, 0, 0, 0, 0, 0, 0, 0);
    ck_assert_int_eq(cdch_civil_to_epoch(&z), 0);
    cdch_temporal old = T(false, 1969, 12, 31, 23, 59, 59, 0);
    ck_assert_int_eq(cdch_civil_to_epoch(&old), -1);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("temporal");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, fsp_bytes);
    tcase_add_test(tc, date_codec);
    tcase_add_test(tc, datetime2_fsp);
    tcase_add_test(tc, datetime2_errors);
    tcase_add_test(tc, time2_values);
    tcase_add_test(tc, time2_mysql_table);
    tcase_add_test(tc, time2_out_of_range);
    tcase_add_test(tc, timestamp2_values);
    tcase_add_test(tc, packed_forms);
    tcase_add_test(tc, format_forms);
    tcase_add_test(tc, parse_valid);
    tcase_add_test(tc, parse_errors);
    tcase_add_test(tc, epoch_civil);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
