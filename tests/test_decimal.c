/* test_decimal.c — NEWDECIMAL binary form <-> exact text.
 *
 * Expected bytes are worked out by hand from MySQL's decimal2bin
 * (strings/decimal.cc): digits grouped by 9 from the decimal point, a
 * partial leading integer group in {0,1,1,2,2,3,3,4,4,4}[d] bytes, full
 * groups as 4-byte big-endian values, a partial trailing fraction group,
 * negative values inverted byte by byte, then the first byte's top bit
 * flipped. Where MySQL documents an example (the decimal2bin comment) or a
 * real binlog holds the value, the test says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "testutil.h"

static void enc_ok(const char *text, unsigned p, unsigned s, const char *hex)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_err e;
    cdch_err_clear(&e);
    int r = cdch_decimal_encode(text, strlen(text), p, s, &b, &e);
    ck_assert_msg(r == 0, "encode '%s' DECIMAL(%u,%u) failed: %s", text, p, s, e.msg);
    ck_assert_uint_eq(b.len, cdch_decimal_bin_size(p, s));
    tu_assert_hex(b.data, b.len, hex);
    cdch_buf_free(&b);
}

static void dec_ok(const char *hex, unsigned p, unsigned s, const char *want)
{
    size_t n;
    uint8_t *bin = tu_unhex(hex, &n);
    ck_assert_uint_eq(n, cdch_decimal_bin_size(p, s));
    cdch_buf b = CDCH_BUF_INIT;
    cdch_err e;
    cdch_err_clear(&e);
    int r = cdch_decimal_decode(bin, p, s, &b, &e);
    ck_assert_msg(r == 0, "decode %s DECIMAL(%u,%u) failed: %s", hex, p, s, e.msg);
    ck_assert_str_eq(cdch_buf_cstr(&b), want);
    cdch_buf_free(&b);
    free(bin);
}

/* both directions */
static void both(const char *text, unsigned p, unsigned s, const char *hex)
{
    enc_ok(text, p, s, hex);
    dec_ok(hex, p, s, text);
}

static void enc_err(const char *text, unsigned p, unsigned s, const char *needle)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_err e;
    cdch_err_clear(&e);
    int r = cdch_decimal_encode(text, strlen(text), p, s, &b, &e);
    ck_assert_msg(r == -1, "encode '%s' DECIMAL(%u,%u) should fail", text, p, s);
    ck_assert_msg(strstr(e.msg, needle) != NULL, "message '%s' lacks '%s'", e.msg, needle);
    cdch_buf_free(&b);
}

static void dec_err(const char *hex, unsigned p, unsigned s, const char *needle)
{
    size_t n;
    uint8_t *bin = tu_unhex(hex, &n);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_err e;
    cdch_err_clear(&e);
    int r = cdch_decimal_decode(bin, p, s, &b, &e);
    ck_assert_msg(r == -1, "decode %s DECIMAL(%u,%u) should fail", hex, p, s);
    ck_assert_msg(strstr(e.msg, needle) != NULL, "message '%s' lacks '%s'", e.msg, needle);
    cdch_buf_free(&b);
    free(bin);
}

START_TEST(bin_sizes)
{
    /* intg/9*4 + dig2bytes[intg%9] + scale/9*4 + dig2bytes[scale%9] */
    ck_assert_uint_eq(cdch_decimal_bin_size(1, 0), 1);
    ck_assert_uint_eq(cdch_decimal_bin_size(9, 0), 4);
    ck_assert_uint_eq(cdch_decimal_bin_size(10, 0), 5);
    ck_assert_uint_eq(cdch_decimal_bin_size(10, 2), 5);  /* 8 int digits = 4 bytes, 2 frac = 1 */
    ck_assert_uint_eq(cdch_decimal_bin_size(12, 3), 6);  /* 9 -> 4, 3 -> 2 */
    ck_assert_uint_eq(cdch_decimal_bin_size(13, 2), 6);  /* 11 -> 1+4, 2 -> 1 */
    ck_assert_uint_eq(cdch_decimal_bin_size(14, 4), 7);  /* decimal.cc comment example */
    ck_assert_uint_eq(cdch_decimal_bin_size(18, 9), 8);
    ck_assert_uint_eq(cdch_decimal_bin_size(5, 5), 3);
    ck_assert_uint_eq(cdch_decimal_bin_size(65, 30), 30); /* 35 -> 4+12, 30 -> 12+2 */
    ck_assert_uint_eq(cdch_decimal_bin_size(65, 0), 29);  /* 65 = 7*9 + 2 -> 28 + 1 */
    ck_assert_uint_eq(cdch_decimal_bin_size(30, 30), 14);
    ck_assert_uint_eq(cdch_decimal_bin_size(0, 0), 0);    /* invalid */
    ck_assert_uint_eq(cdch_decimal_bin_size(66, 0), 0);
    ck_assert_uint_eq(cdch_decimal_bin_size(40, 31), 0);
    ck_assert_uint_eq(cdch_decimal_bin_size(5, 6), 0);
}
END_TEST

START_TEST(mysql_doc_example)
{
    /* decimal2bin's own comment: 1234567890.1234 as DECIMAL(14,4) is
     * 81 0D FB 38 D2 04 D2, and the negative 7E F2 04 C7 2D FB 2D. */
    both("1234567890.1234", 14, 4, "810dfb38d204d2");
    both("-1234567890.1234", 14, 4, "7ef204c72dfb2d");
}
END_TEST

START_TEST(ten_two)
{
    /* DECIMAL(10,2): 8 integer digits in one 4-byte group, 2 fraction
     * digits in 1 byte. 12.50 -> 0000000c 32 -> flip -> 80 00 00 0c 32;
     * -12.50 -> ff ff ff f3 cd -> flip -> 7f ff ff f3 cd. */
    both("12.50", 10, 2, "8000000c32");
    both("-12.50", 10, 2, "7ffffff3cd");
    enc_ok("-12.5", 10, 2, "7ffffff3cd"); /* fraction padded to scale */
    enc_ok("+12.5", 10, 2, "8000000c32");
    both("0.00", 10, 2, "8000000000");
    both("99999999.99", 10, 2, "85f5e0ff63");
    both("-99999999.99", 10, 2, "7a0a1f009c");
    both("0.01", 10, 2, "8000000001");
    both("-0.01", 10, 2, "7ffffffffe");
}
END_TEST

START_TEST(negative_zero)
{
    /* -0.00 inverted: ff ff ff ff ff, flip -> 7f ff ff ff ff. MySQL never
     * writes it (string2decimal clears the sign of zero) and prints 0. */
    dec_ok("7fffffffff", 10, 2, "0.00");
    dec_ok("7fffffff", 9, 0, "0");
    enc_ok("-0.00", 10, 2, "8000000000");
    enc_ok("-0", 9, 0, "80000000");
    enc_ok("-000.00", 10, 2, "8000000000");
}
END_TEST

START_TEST(scale_equals_precision)
{
    /* DECIMAL(5,5): no integer bytes; 5 fraction digits in 3 bytes:
     * 12345 = 00 30 39 -> flip -> 80 30 39; negative ff cf c6 -> 7f cf c6. */
    both("0.12345", 5, 5, "803039");
    both("-0.12345", 5, 5, "7fcfc6");
    both("0.00001", 5, 5, "800001");
    both("0.99999", 5, 5, "81869f");
    enc_ok(".5", 5, 5, "80c350"); /* 50000 */
    enc_err("1.5", 5, 5, "has 1 integer digits but DECIMAL(5,5) allows 0");
    /* DECIMAL(30,30): 3 groups of 9 + 3 digits (2 bytes) */
    both("0.123456789123456789123456789123", 30, 30, "875bcd15075bcd15075bcd15007b");
}
END_TEST

START_TEST(group_boundaries)
{
    /* DECIMAL(18,9): one full integer group, one full fraction group.
     * 123456789 = 075bcd15, 987654321 = 3ade68b1. */
    both("123456789.987654321", 18, 9, "875bcd153ade68b1");
    both("-123456789.987654321", 18, 9, "78a432eac521974e");
    both("0.000000001", 18, 9, "8000000000000001");
    both("1.000000000", 18, 9, "8000000100000000");
    /* DECIMAL(9,0): exactly one 4-byte group. 999999999 = 3b9ac9ff. */
    both("999999999", 9, 0, "bb9ac9ff");
    both("-1", 9, 0, "7ffffffe");
    both("-999999999", 9, 0, "44653600");
    both("0", 9, 0, "80000000");
    /* DECIMAL(10,0): 1 leading digit in 1 byte + one group. */
    both("1234567890", 10, 0, "810dfb38d2");
    both("-1234567890", 10, 0, "7ef204c72d");
    /* DECIMAL(19,9): 10 integer digits (1 + 9), 9 fraction digits. */
    both("1234567890.123456789", 19, 9, "810dfb38d2075bcd15");
    /* DECIMAL(1,0) and DECIMAL(2,1) */
    both("7", 1, 0, "87");
    both("-7", 1, 0, "78");
    both("0.5", 2, 1, "8005");
}
END_TEST

START_TEST(max_precision)
{
    /* DECIMAL(65,30) maximum: 35 nines . 30 nines.
     * integer: 8 nines (99999999 = 05f5e0ff, 4 bytes) + 3 groups 3b9ac9ff;
     * fraction: 3 groups 3b9ac9ff + 999 (03e7, 2 bytes); flip -> 85... */
    const char *max = "99999999999999999999999999999999999.999999999999999999999999999999";
    const char *min = "-99999999999999999999999999999999999.999999999999999999999999999999";
    both(max, 65, 30,
         "85f5e0ff3b9ac9ff3b9ac9ff3b9ac9ff3b9ac9ff3b9ac9ff3b9ac9ff03e7");
    both(min, 65, 30,
         "7a0a1f00c4653600c4653600c4653600c4653600c4653600c4653600fc18");
    both("1.000000000000000000000000000001", 65, 30,
         "800000000000000000000000000000010000000000000000000000000001");
    /* DECIMAL(65,0): 2 leading digits (1 byte: 12 = 0c) + 7 groups
     * (345678901 = 149aa435, ...) */
    both("12345678901234567890123456789012345678901234567890123456789012345", 65, 0,
         "8c149aa4350dfb38d2075bcd1500bc614e35b7bf87350e34c02f075f79");
}
END_TEST

START_TEST(real_binlog_values)
{
    /* rows of test.LINEITEM in mysql-cdc-rs__02_query_bigger__binlog.000733
     * (TABLE_MAP meta c03, d02, a01, c01 = DECIMAL(12,3), (13,2), (10,1),
     * (12,1)). */
    dec_ok("80000063038f", 12, 3, "99.911");
    dec_ok("800000004c0b", 13, 2, "76.11");
    dec_ok("8000037801", 10, 1, "888.1");
    dec_ok("800000006d01", 12, 1, "109.1");
    dec_ok("800000580370", 12, 3, "88.880");
    enc_ok("99.911", 12, 3, "80000063038f");
    enc_ok("76.11", 13, 2, "800000004c0b");
}
END_TEST

START_TEST(corrupt_groups)
{
    /* DECIMAL(9,0) group 0x3b9aca00 = 1000000000 */
    dec_err("bb9aca00", 9, 0, "above 999999999");
    /* DECIMAL(18,9) fraction group 0xffffffff (positive sign) */
    dec_err("80000000ffffffff", 18, 9, "above 999999999");
    /* DECIMAL(2,0): one byte, 100 does not fit 2 digits */
    dec_err("e4", 2, 0, "does not fit in 2 digits");
    /* DECIMAL(3,2): trailing fraction group of 2 digits holding 255 */
    dec_err("80ff", 3, 2, "does not fit in 2 digits");
    /* negative corrupt: inverted 0x3b9aca00 */
    dec_err("44653500", 9, 0, "above 999999999");
    /* bad column parameters */
    dec_err("00", 0, 0, "not a valid column type");
    dec_err("00", 66, 0, "not a valid column type");
    dec_err("00", 40, 31, "not a valid column type");
}
END_TEST

START_TEST(encode_errors)
{
    enc_err("123456789", 10, 2, "has 9 integer digits but DECIMAL(10,2) allows 8");
    enc_err("1.234", 10, 2, "has 3 fraction digits but DECIMAL(10,2) allows 2");
    enc_err("1e3", 10, 2, "expected [-]digits[.digits]");
    enc_err("", 10, 2, "expected");
    enc_err("-", 10, 2, "expected");
    enc_err(".", 10, 2, "expected");
    enc_err(" 1", 10, 2, "expected");
    enc_err("1.2.3", 10, 2, "expected");
    enc_err("abc", 10, 2, "expected");
    enc_err("1", 0, 0, "not a valid column type");
    enc_err("1", 10, 11, "not a valid column type");
    /* leading zeros do not count as integer digits */
    enc_ok("000000000012.5", 10, 2, "8000000c32");
    enc_ok("5.", 2, 0, "85");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("decimal");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, bin_sizes);
    tcase_add_test(tc, mysql_doc_example);
    tcase_add_test(tc, ten_two);
    tcase_add_test(tc, negative_zero);
    tcase_add_test(tc, scale_equals_precision);
    tcase_add_test(tc, group_boundaries);
    tcase_add_test(tc, max_precision);
    tcase_add_test(tc, real_binlog_values);
    tcase_add_test(tc, corrupt_groups);
    tcase_add_test(tc, encode_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
