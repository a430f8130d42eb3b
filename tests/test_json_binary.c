/* test_json_binary.c — MySQL binary JSON codec, text I/O and JSON diffs. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "json_binary.h"
#include "mysql_types.h"
#include "testutil.h"

/* ---- helpers --------------------------------------------------------- */

static cdch_json *parse(cdch_arena *a, const char *txt)
{
    cdch_json *j = NULL;
    cdch_err e;
    cdch_err_clear(&e);
    int r = cdch_json_parse_text(txt, strlen(txt), a, &j, &e);
    ck_assert_msg(r == 0, "parse '%s' failed: %s", txt, e.msg);
    ck_assert_ptr_nonnull(j);
    return j;
}

static cdch_json *decode_ok(cdch_arena *a, const uint8_t *p, size_t n)
{
    cdch_json *j = NULL;
    cdch_err e;
    cdch_err_clear(&e);
    int r = cdch_json_decode(p, n, a, &j, &e);
    ck_assert_msg(r == 0, "decode failed: %s (offset %lld)", e.msg, (long long)e.offset);
    ck_assert_ptr_nonnull(j);
    return j;
}

/* Text of j in a static-lifetime buffer owned by the caller's cdch_buf. */
static const char *text_of(const cdch_json *j, cdch_buf *b)
{
    cdch_buf_reset(b);
    cdch_json_to_text(j, b);
    return cdch_buf_cstr(b);
}

static cdch_json *node(cdch_arena *a, cdch_json_type t)
{
    cdch_json *j = cdch_arena_alloc(a, sizeof *j);
    j->type = t;
    return j;
}

static cdch_json *mk_int(cdch_arena *a, int64_t v)
{
    cdch_json *j = node(a, CDCH_JSON_INT);
    j->u.i = v;
    return j;
}

static cdch_json *mk_uint(cdch_arena *a, uint64_t v)
{
    cdch_json *j = node(a, CDCH_JSON_UINT);
    j->u.u = v;
    return j;
}

static cdch_json *mk_double(cdch_arena *a, double v)
{
    cdch_json *j = node(a, CDCH_JSON_DOUBLE);
    j->u.d = v;
    return j;
}

/* A string of n bytes 'a'+i%26 (the bytes live in the arena). */
static cdch_json *mk_str(cdch_arena *a, size_t n)
{
    char *s = cdch_arena_alloc(a, n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = (char)('a' + i % 26);
    cdch_json *j = node(a, CDCH_JSON_STRING);
    j->u.str.ptr = s;
    j->u.str.len = n;
    return j;
}

static cdch_json *mk_opaque(cdch_arena *a, uint8_t ft, const char *hex)
{
    size_t n;
    uint8_t *raw = tu_unhex(hex, &n);
    cdch_json *j = node(a, CDCH_JSON_OPAQUE);
    j->u.opaque.field_type = ft;
    j->u.opaque.data = cdch_arena_memdup(a, raw, n);
    j->u.opaque.len = n;
    free(raw);
    return j;
}

static cdch_json *mk_array(cdch_arena *a, size_t n, cdch_json **items)
{
    cdch_json *j = node(a, CDCH_JSON_ARRAY);
    j->u.arr.count = n;
    j->u.arr.items = cdch_arena_alloc(a, (n ? n : 1) * sizeof(cdch_json *));
    for (size_t i = 0; i < n; i++)
        j->u.arr.items[i] = items[i];
    return j;
}

/* Members must be given in MySQL key order. */
static cdch_json *mk_object(cdch_arena *a, size_t n, const char *const *keys, cdch_json **vals)
{
    cdch_json *j = node(a, CDCH_JSON_OBJECT);
    j->u.obj.count = n;
    j->u.obj.members = cdch_arena_alloc(a, (n ? n : 1) * sizeof(cdch_json_member));
    for (size_t i = 0; i < n; i++) {
        j->u.obj.members[i].key = keys[i];
        j->u.obj.members[i].key_len = strlen(keys[i]);
        j->u.obj.members[i].value = vals[i];
    }
    return j;
}

/* Encode j, compare with hex, decode it back and compare structurally and
 * as text. */
static void check_encoding(cdch_arena *a, const cdch_json *j, const char *hex)
{
    cdch_buf b = CDCH_BUF_INIT, t1 = CDCH_BUF_INIT, t2 = CDCH_BUF_INIT;
    cdch_json_encode(j, &b);
    tu_assert_hex(b.data, b.len, hex);
    cdch_json *back = decode_ok(a, b.data, b.len);
    ck_assert_msg(cdch_json_equal(j, back), "decoded tree differs: %s vs %s", text_of(j, &t1), text_of(back, &t2));
    ck_assert_str_eq(text_of(j, &t1), text_of(back, &t2));
    cdch_buf_free(&b);
    cdch_buf_free(&t1);
    cdch_buf_free(&t2);
}

static void check_text_encoding(const char *txt, const char *hex)
{
    cdch_arena a = CDCH_ARENA_INIT;
    check_encoding(&a, parse(&a, txt), hex);
    cdch_arena_free(&a);
}

static void check_parse_error(const char *txt, size_t len, int64_t offset, const char *needle)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_json *j = NULL;
    cdch_err e;
    cdch_err_clear(&e);
    ck_assert_msg(cdch_json_parse_text(txt, len, &a, &j, &e) == -1, "'%s' should not parse", txt);
    ck_assert_ptr_null(j);
    ck_assert_msg(e.msg[0] != '\0', "no message for '%s'", txt);
    if (offset >= 0)
        ck_assert_msg(e.offset == offset, "'%s': error offset %lld, want %lld (%s)", txt, (long long)e.offset,
                      (long long)offset, e.msg);
    if (needle)
        ck_assert_msg(strstr(e.msg, needle) != NULL, "'%s': message '%s' lacks '%s'", txt, e.msg, needle);
    cdch_arena_free(&a);
}

#define PARSE_ERR(txt, off, needle) check_parse_error(txt, sizeof(txt) - 1, off, needle)

/* ---- encoding: exact bytes ------------------------------------------- */

START_TEST(empty_containers)
{
    /* small object: count 0, size 4 */
    check_text_encoding("{}", "00 0000 0400");
    check_text_encoding("[]", "02 0000 0400");
    check_text_encoding(" { } ", "00 0000 0400");
}
END_TEST

START_TEST(literals)
{
    check_text_encoding("null", "04 00");
    check_text_encoding("true", "04 01");
    check_text_encoding("false", "04 02");
    /* inlined in a small array: value entries 04 0000 / 04 0100 / 04 0200 */
    check_text_encoding("[null,true,false]", "02 0300 0d00 040000 040100 040200");
}
END_TEST

START_TEST(int_boundaries)
{
    check_text_encoding("0", "05 0000");
    check_text_encoding("26", "05 1a00");
    check_text_encoding("-1", "05 ffff");
    check_text_encoding("32767", "05 ff7f");
    check_text_encoding("-32768", "05 0080");
    check_text_encoding("32768", "07 00800000");
    check_text_encoding("-32769", "07 ff7fffff");
    check_text_encoding("2147483647", "07 ffffff7f");
    check_text_encoding("-2147483648", "07 00000080");
    check_text_encoding("2147483648", "09 0000008000000000");
    check_text_encoding("-2147483649", "09 ffffff7fffffffff");
    check_text_encoding("9223372036854775807", "09 ffffffffffffff7f");
    check_text_encoding("-9223372036854775808", "09 0000000000000080");
    /* above INT64_MAX: unsigned */
    check_text_encoding("9223372036854775808", "0a 0000000000000080");
    check_text_encoding("18446744073709551615", "0a ffffffffffffffff");

    cdch_arena a = CDCH_ARENA_INIT;
    check_encoding(&a, mk_uint(&a, 0), "06 0000");
    check_encoding(&a, mk_uint(&a, 65535), "06 ffff");
    check_encoding(&a, mk_uint(&a, 65536), "08 00000100");
    check_encoding(&a, mk_uint(&a, 4294967295u), "08 ffffffff");
    check_encoding(&a, mk_uint(&a, 4294967296u), "0a 0000000001000000");
    check_encoding(&a, mk_uint(&a, UINT64_MAX), "0a ffffffffffffffff");

    /* decoded unsigned keeps its type and prints unsigned */
    cdch_buf t = CDCH_BUF_INIT;
    uint8_t u64max[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    cdch_json *j = decode_ok(&a, u64max, sizeof u64max);
    ck_assert_int_eq(j->type, CDCH_JSON_UINT);
    ck_assert_str_eq(text_of(j, &t), "18446744073709551615");
    uint8_t i64min[] = {0x09, 0, 0, 0, 0, 0, 0, 0, 0x80};
    ck_assert_str_eq(text_of(decode_ok(&a, i64min, sizeof i64min), &t), "-9223372036854775808");
    uint8_t u16[] = {0x06, 0xff, 0xff};
    j = decode_ok(&a, u16, sizeof u16);
    ck_assert_int_eq(j->type, CDCH_JSON_UINT);
    ck_assert_uint_eq(j->u.u, 65535);
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(doubles_binary)
{
    check_text_encoding("1.5", "0b 000000000000f83f");
    check_text_encoding("-0.0", "0b 0000000000000080");
    check_text_encoding("1e100", "0b 7dc39425ad49b254");
}
END_TEST

START_TEST(strings_varint)
{
    check_text_encoding("\"\"", "0c 00");
    check_text_encoding("\"abc\"", "0c 03 616263");
    check_text_encoding("\"\\u00e9\"", "0c 02 c3a9");

    static const struct {
        size_t n;
        const char *prefix;
    } cases[] = {
        {127, "0c7f"}, {128, "0c8001"}, {300, "0cac02"}, {16383, "0cff7f"}, {16384, "0c808001"},
        {2097151, "0cffff7f"}, {2097152, "0c80808001"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cdch_arena a = CDCH_ARENA_INIT;
        cdch_json *s = mk_str(&a, cases[k].n);
        cdch_buf b = CDCH_BUF_INIT;
        cdch_json_encode(s, &b);
        size_t plen;
        uint8_t *pre = tu_unhex(cases[k].prefix, &plen);
        ck_assert_uint_eq(b.len, plen + cases[k].n);
        tu_assert_bytes(b.data, plen, pre, plen);
        ck_assert_int_eq(memcmp(b.data + plen, s->u.str.ptr, cases[k].n), 0);
        cdch_json *back = decode_ok(&a, b.data, b.len);
        ck_assert_int_eq(back->type, CDCH_JSON_STRING);
        ck_assert_uint_eq(back->u.str.len, cases[k].n);
        ck_assert(back->u.str.ptr == (const char *)b.data + plen); /* points into the input */
        ck_assert(cdch_json_equal(s, back));
        free(pre);
        cdch_buf_free(&b);
        cdch_arena_free(&a);
    }
}
END_TEST

START_TEST(nested_object)
{
    /* {"a":1,"b":[true,"x"]}: header 4 + 2 key entries (4) + 2 value
     * entries (3) = 18; keys "a" at 18, "b" at 19; 1 inlined; the array at
     * 20: count 2, size 12, true inlined, "x" at 10 (01 78). */
    check_text_encoding("{\"b\":[true,\"x\"],\"a\":1}",
                        "00 0200 2000 1200 0100 1300 0100 050100 021400 6162"
                        " 0200 0c00 040100 0c0a00 0178");
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf t = CDCH_BUF_INIT;
    ck_assert_str_eq(text_of(parse(&a, "{\"b\":[true,\"x\"],\"a\":1}"), &t), "{\"a\":1,\"b\":[true,\"x\"]}");
    /* int32 is not inlined in a small container: stored at its offset */
    check_text_encoding("[70000]", "02 0100 0b00 070700 70110100");
    /* int16 -5 inlined in a small container */
    check_text_encoding("[-5]", "02 0100 0700 05fbff");
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(key_ordering)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf t = CDCH_BUF_INIT, b = CDCH_BUF_INIT;
    cdch_json *j = parse(&a, "{\"bb\":1,\"a\":2,\"ab\":3,\"b\":4,\"\":5,\"B\":6,\"\\u00e9\":7}");
    /* length first, then bytes (memcmp: "B" < "a" < "b"; é is 2 bytes) */
    ck_assert_str_eq(text_of(j, &t), "{\"\":5,\"B\":6,\"a\":2,\"b\":4,\"ab\":3,\"bb\":1,\"\xc3\xa9\":7}");
    cdch_json_encode(j, &b);
    cdch_json *back = decode_ok(&a, b.data, b.len);
    ck_assert_str_eq(text_of(back, &t), "{\"\":5,\"B\":6,\"a\":2,\"b\":4,\"ab\":3,\"bb\":1,\"\xc3\xa9\":7}");
    /* duplicate keys: the last one wins (MySQL 8.0 Json_object::add_alias) */
    ck_assert_str_eq(text_of(parse(&a, "{\"a\":1,\"a\":2}"), &t), "{\"a\":2}");
    ck_assert_str_eq(text_of(parse(&a, "{\"a\":1,\"b\":0,\"a\":[3],\"b\":{},\"c\":1}"), &t),
                     "{\"a\":[3],\"b\":{},\"c\":1}");
    cdch_buf_free(&t);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(encoder_sorts_keys)
{
    /* a hand-built object in the wrong order, with a duplicate: MySQL's DOM
     * could not hold that, so the encoder writes MySQL order, last wins */
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf t = CDCH_BUF_INIT;
    const char *keys[] = {"b", "a", "aa", "a"};
    cdch_json *vals[] = {mk_int(&a, 1), mk_int(&a, 2), mk_int(&a, 3), mk_int(&a, 4)};
    cdch_json *obj = mk_object(&a, 4, keys, vals);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_json_encode(obj, &b);
    tu_assert_hex(b.data, b.len,
                  "00 0300 1d00 1900 0100 1a00 0100 1b00 0200 050400 050100 050300 6162 6161");
    ck_assert_str_eq(text_of(decode_ok(&a, b.data, b.len), &t), "{\"a\":4,\"b\":1,\"aa\":3}");
    /* text output keeps the stored order */
    ck_assert_str_eq(text_of(obj, &t), "{\"b\":1,\"a\":2,\"aa\":3,\"a\":4}");
    cdch_buf_free(&b);
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

/* ---- large format ------------------------------------------------------ */

START_TEST(large_array_string)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf b = CDCH_BUF_INIT;
    cdch_json *s = mk_str(&a, 70000);
    cdch_json *arr = mk_array(&a, 1, &s);
    cdch_json_encode(arr, &b);
    /* count 1, size 8+5+3+70000 = 70016, entry 0c @13, varint 70000 */
    ck_assert_uint_eq(b.len, 1 + 70016);
    tu_assert_hex(b.data, 17, "03 01000000 80110100 0c 0d000000 f0a204");
    cdch_json *back = decode_ok(&a, b.data, b.len);
    ck_assert(cdch_json_equal(arr, back));
    cdch_buf_free(&b);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(large_object_mixed)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf b = CDCH_BUF_INIT, t = CDCH_BUF_INIT;
    cdch_json *small_items[] = {mk_int(&a, 1), mk_int(&a, 2)};
    const char *keys[] = {"m", "n", "u", "big", "small"};
    cdch_json *vals[] = {mk_int(&a, 100000), mk_int(&a, -5), mk_uint(&a, 4000000000u), mk_str(&a, 70000),
                         mk_array(&a, 2, small_items)};
    cdch_json *obj = mk_object(&a, 5, keys, vals);
    cdch_json_encode(obj, &b);
    ck_assert_uint_eq(b.data[0], 0x01);
    /* value entries start after type(1) + count/size(8) + 5 key entries(6) */
    const uint8_t *ve = b.data + 1 + 8 + 5 * 6;
    tu_assert_hex(ve, 5, "07 a0860100");  /* int32 inlined in large */
    tu_assert_hex(ve + 5, 5, "05 fbffffff"); /* int16 inlined, sign-extended to 4 bytes */
    tu_assert_hex(ve + 10, 5, "08 00286bee"); /* uint32 inlined */
    ck_assert_uint_eq(ve[15], 0x0c);
    ck_assert_uint_eq(ve[20], 0x02); /* the small child stays small */
    /* keys: "mnubigsmall" right after the value entries */
    ck_assert_int_eq(memcmp(ve + 25, "mnubigsmall", 11), 0);
    /* the small array [1,2] at its offset: 02 00 0a 00 05 0100 05 0200 */
    size_t arr_off = (size_t)ve[21] | (size_t)ve[22] << 8 | (size_t)ve[23] << 16 | (size_t)ve[24] << 24;
    tu_assert_hex(b.data + 1 + arr_off, 10, "0200 0a00 050100 050200");
    cdch_json *back = decode_ok(&a, b.data, b.len);
    ck_assert(cdch_json_equal(obj, back));
    ck_assert_int_eq(back->u.obj.members[1].value->u.i, -5);
    ck_assert_uint_eq(back->u.obj.members[2].value->u.u, 4000000000u);
    ck_assert_int_eq(back->u.obj.members[0].value->u.i, 100000);
    cdch_buf_free(&b);
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(large_nested_chain)
{
    /* [[["x" * 70000]]]: every level must be large */
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf b = CDCH_BUF_INIT;
    cdch_json *s = mk_str(&a, 70000);
    cdch_json *l3 = mk_array(&a, 1, &s);
    cdch_json *l2 = mk_array(&a, 1, &l3);
    cdch_json *l1 = mk_array(&a, 1, &l2);
    cdch_json_encode(l1, &b);
    ck_assert_uint_eq(b.data[0], 0x03);
    ck_assert_uint_eq(b.data[9], 0x03);      /* entry of l2 */
    ck_assert_uint_eq(b.data[1 + 13 + 8], 0x03); /* entry of l3 inside l2 */
    ck_assert(cdch_json_equal(l1, decode_ok(&a, b.data, b.len)));

    /* [["x"*70000], [1]]: outer and first child large, second child small */
    cdch_json *one = mk_int(&a, 1);
    cdch_json *items[] = {l3, mk_array(&a, 1, &one)};
    cdch_json *outer = mk_array(&a, 2, items);
    cdch_buf_reset(&b);
    cdch_json_encode(outer, &b);
    ck_assert_uint_eq(b.data[0], 0x03);
    ck_assert_uint_eq(b.data[9], 0x03);
    ck_assert_uint_eq(b.data[14], 0x02);
    ck_assert(cdch_json_equal(outer, decode_ok(&a, b.data, b.len)));
    cdch_buf_free(&b);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(small_large_boundary)
{
    /* small array with one string of L bytes: 4 + 3 + 3 (varint) + L */
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf b = CDCH_BUF_INIT;
    cdch_json *s = mk_str(&a, 65525);
    cdch_json *arr = mk_array(&a, 1, &s);
    cdch_json_encode(arr, &b);
    ck_assert_uint_eq(b.data[0], 0x02);
    tu_assert_hex(b.data, 5, "02 0100 ffff");
    ck_assert(cdch_json_equal(arr, decode_ok(&a, b.data, b.len)));

    s = mk_str(&a, 65526);
    arr = mk_array(&a, 1, &s);
    cdch_buf_reset(&b);
    cdch_json_encode(arr, &b);
    ck_assert_uint_eq(b.data[0], 0x03);
    tu_assert_hex(b.data, 9, "03 01000000 06000100"); /* 8+5+3+65526 = 65542 */
    ck_assert(cdch_json_equal(arr, decode_ok(&a, b.data, b.len)));

    /* more than 65535 elements forces large even if each is tiny */
    size_t n = 70000;
    cdch_json **items = cdch_arena_alloc(&a, n * sizeof *items);
    cdch_json *nul = node(&a, CDCH_JSON_NULL);
    for (size_t i = 0; i < n; i++)
        items[i] = nul;
    arr = mk_array(&a, n, items);
    cdch_buf_reset(&b);
    cdch_json_encode(arr, &b);
    ck_assert_uint_eq(b.len, 1 + 8 + 5 * n);
    tu_assert_hex(b.data, 14, "03 70110100 38570500 04 00000000");
    cdch_json *back = decode_ok(&a, b.data, b.len);
    ck_assert_uint_eq(back->u.arr.count, n);
    ck_assert(cdch_json_equal(arr, back));
    cdch_buf_free(&b);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(large_doc_from_text)
{
    /* > 64 KiB document built as text, round trip through everything */
    cdch_buf txt = CDCH_BUF_INIT, b = CDCH_BUF_INIT, t = CDCH_BUF_INIT;
    /* written in MySQL key order so the text comes back identical */
    cdch_put_str(&txt, "{\"n\":3000,\"items\":[");
    for (int i = 0; i < 3000; i++)
        cdch_buf_printf(&txt, "%s{\"id\":%d,\"name\":\"item-%05d\",\"tags\":[\"a\",\"b\"],\"price\":%d.25}",
                        i ? "," : "", i * 1000, i, i);
    cdch_put_str(&txt, "]}");
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_json *j = parse(&a, cdch_buf_cstr(&txt));
    cdch_json_encode(j, &b);
    ck_assert_uint_gt(b.len, 65536);
    ck_assert_uint_eq(b.data[0], 0x01); /* large object */
    cdch_json *back = decode_ok(&a, b.data, b.len);
    ck_assert(cdch_json_equal(j, back));
    ck_assert_str_eq(text_of(back, &t), cdch_buf_cstr(&txt));
    cdch_buf_free(&txt);
    cdch_buf_free(&b);
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

/* ---- opaque values ----------------------------------------------------- */

START_TEST(opaque_values)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf t = CDCH_BUF_INIT;
    cdch_json *blob = mk_opaque(&a, CDCH_T_BLOB, "6162");
    check_encoding(&a, blob, "0f fc 02 6162");
    ck_assert_str_eq(text_of(blob, &t), "\"base64:type252:YWI=\"");

    cdch_json *date = mk_opaque(&a, CDCH_T_DATE, "00000000005eb219");
    check_encoding(&a, date, "0f 0a 08 00000000005eb219");
    ck_assert_str_eq(text_of(date, &t), "\"2024-01-15\"");

    /* DATETIME/TIMESTAMP/TIME print six fraction digits (my_TIME_to_str(..., 6)) */
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_DATETIME, "40e2011ea55eb219"), &t),
                     "\"2024-01-15 10:20:30.123456\"");
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_DATETIME, "0000001ea55eb219"), &t),
                     "\"2024-01-15 10:20:30.000000\"");
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_TIMESTAMP, "0000001ea55eb219"), &t),
                     "\"2024-01-15 10:20:30.000000\"");
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_TIME, "e05ef84737ffffff"), &t), "\"-12:34:56.500000\"");
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_TIME, "000000fb6e340000"), &t), "\"838:59:59.000000\"");
    /* a temporal with the wrong length cannot be unpacked: base64 */
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_DATE, "0102"), &t), "\"base64:type10:AQI=\"");

    /* DECIMAL(3,2): precision, scale, decimal2bin */
    cdch_json *dec = mk_opaque(&a, CDCH_T_NEWDECIMAL, "0302 8132");
    check_encoding(&a, dec, "0f f6 04 03028132");
    ck_assert_str_eq(text_of(dec, &t), "1.50");
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_NEWDECIMAL, "0302 7ecd"), &t), "-1.50");
    /* bad binary size for (3,2): printed as base64 rather than guessed */
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_NEWDECIMAL, "030281"), &t), "\"base64:type246:AwKB\"");

    /* VAR_STRING opaque prints as a plain string (wrapper_to_string) */
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_VAR_STRING, "68 22 69"), &t), "\"h\\\"i\"");

    /* base64 wraps every 76 characters like MySQL's base64_encode */
    char hex[58 * 2 + 1];
    for (int i = 0; i < 58; i++)
        snprintf(hex + 2 * i, 3, "%02x", i);
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_BLOB, hex), &t),
                     "\"base64:type252:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4"
                     "\\nOQ==\"");
    ck_assert_str_eq(text_of(mk_opaque(&a, CDCH_T_BIT, ""), &t), "\"base64:type16:\"");

    /* inside containers */
    cdch_json *items[] = {date, dec, blob};
    cdch_json *arr = mk_array(&a, 3, items);
    check_encoding(&a, arr,
                   "02 0300 2100 0f0d00 0f1700 0f1d00"
                   " 0a 08 00000000005eb219  f6 04 03028132  fc 02 6162");
    ck_assert_str_eq(text_of(arr, &t), "[\"2024-01-15\",1.50,\"base64:type252:YWI=\"]");
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

/* ---- text output ------------------------------------------------------- */

START_TEST(double_text)
{
    static const struct {
        double d;
        const char *want;
    } cases[] = {
        {1.0, "1.0"},
        {3.14, "3.14"},
        {1e100, "1e100"},
        {0.1, "0.1"},
        {-2.5, "-2.5"},
        {1e15, "1e15"},
        {1e14, "100000000000000.0"},
        {123456789012345678.0, "1.2345678901234568e17"},
        {1e-15, "0.000000000000001"},
        {1e-16, "1e-16"},
        {5e-324, "5e-324"},
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {DBL_MAX, "1.7976931348623157e308"},
        {-DBL_MAX, "-1.7976931348623157e308"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {1234567.125, "1234567.125"},
        {0.001, "0.001"},
        {9007199254740992.0, "9.007199254740992e15"},
        {2.5e-5, "0.000025"},
        {1.5e-10, "0.00000000015"},
        {100.0, "100.0"},
        {-1e-300, "-1e-300"},
        {1e21, "1e21"},
        {12345600.0, "12345600.0"},
        {0.30000000000000004, "0.30000000000000004"},
        {1234567890123456.7, "1234567890123456.8"},
        {123456789012345.67, "123456789012345.67"},
        {-1.0, "-1.0"},
        {1e22, "1e22"},
        {9.5e-5, "0.000095"},
    };
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf t = CDCH_BUF_INIT;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *got = text_of(mk_double(&a, cases[k].d), &t);
        ck_assert_msg(strcmp(got, cases[k].want) == 0, "double %.17g printed as %s, want %s", cases[k].d, got,
                      cases[k].want);
        cdch_json *back = parse(&a, got);
        ck_assert_int_eq(back->type, CDCH_JSON_DOUBLE);
        ck_assert_msg(back->u.d == cases[k].d && signbit(back->u.d) == signbit(cases[k].d),
                      "%s does not read back as %.17g", got, cases[k].d);
    }
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(double_text_roundtrip_random)
{
    /* every finite double prints in a form that reads back exactly and is
     * never longer than %.17g's digits */
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf t = CDCH_BUF_INIT;
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t bits = x;
        if (i % 4 == 1) /* mantissa zero: powers of two, asymmetric rounding */
            bits &= 0xfff0000000000000u;
        if (i % 4 == 2) /* small-ish integers */
            bits = (uint64_t)0 + (x % 100000000);
        double d;
        if (i % 4 == 2) {
            d = (double)bits / 8;
        } else {
            memcpy(&d, &bits, sizeof d);
        }
        if (!isfinite(d))
            continue;
        const char *got = text_of(mk_double(&a, d), &t);
        double back = strtod(got, NULL);
        ck_assert_msg(back == d, "%.17g printed as %s", d, got);
        if (i % 1000 == 0)
            cdch_arena_reset(&a);
    }
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(string_escaping)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf t = CDCH_BUF_INIT;
    cdch_json *s = node(&a, CDCH_JSON_STRING);
    static const char raw[] = "a\"b\\c/\n\t\r\b\f\x01\x1f\x7f\xc3\xa9\x00z";
    s->u.str.ptr = raw;
    s->u.str.len = sizeof raw - 1;
    ck_assert_str_eq(text_of(s, &t), "\"a\\\"b\\\\c/\\n\\t\\r\\b\\f\\u0001\\u001f\x7f\xc3\xa9\\u0000z\"");
    /* and the parser reads it back to the same bytes */
    cdch_json *back = parse(&a, cdch_buf_cstr(&t));
    ck_assert(cdch_json_equal(s, back));
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(text_roundtrip)
{
    static const char *const docs[] = {
        "{\"a\":[1,-2,3.5,\"x\",null,true,false,{}],\"bb\":{\"c\":[]}}",
        "[18446744073709551615,-9223372036854775808,9223372036854775807]",
        "\"\\u0001\"",
        "[1e100,0.5,-0.0,1.0]",
        "{\"\":\"\",\"k\":{\"k\":{\"k\":[[[]]]}}}",
        "\"\xf0\x9f\x98\x80\"",
        "[[],{},[{}],{\"a\":[]}]",
    };
    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++) {
        cdch_arena a = CDCH_ARENA_INIT;
        cdch_buf t = CDCH_BUF_INIT, b = CDCH_BUF_INIT;
        cdch_json *j = parse(&a, docs[k]);
        ck_assert_str_eq(text_of(j, &t), docs[k]);
        cdch_json_encode(j, &b);
        cdch_json *back = decode_ok(&a, b.data, b.len);
        ck_assert(cdch_json_equal(j, back));
        ck_assert_str_eq(text_of(back, &t), docs[k]);
        cdch_buf_free(&t);
        cdch_buf_free(&b);
        cdch_arena_free(&a);
    }
}
END_TEST

/* ---- parser ------------------------------------------------------------ */

START_TEST(parse_unicode)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_json *j = parse(&a, "\"\\u00e9\\u20AC\\ud83d\\ude00\\u0000\\/\"");
    ck_assert_int_eq(j->type, CDCH_JSON_STRING);
    tu_assert_hex((const uint8_t *)j->u.str.ptr, j->u.str.len, "c3a9 e282ac f09f9880 00 2f");
    /* raw UTF-8 passes through */
    j = parse(&a, "\"\xe2\x82\xac\xf0\x9f\x98\x80\"");
    tu_assert_hex((const uint8_t *)j->u.str.ptr, j->u.str.len, "e282ac f09f9880");
    cdch_arena_free(&a);
}
END_TEST

START_TEST(parse_numbers)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_json *j = parse(&a, "-0");
    ck_assert_int_eq(j->type, CDCH_JSON_INT);
    ck_assert_int_eq(j->u.i, 0);
    j = parse(&a, "9223372036854775807");
    ck_assert_int_eq(j->type, CDCH_JSON_INT);
    j = parse(&a, "9223372036854775808");
    ck_assert_int_eq(j->type, CDCH_JSON_UINT);
    ck_assert_uint_eq(j->u.u, 9223372036854775808u);
    j = parse(&a, "18446744073709551616");
    ck_assert_int_eq(j->type, CDCH_JSON_DOUBLE);
    ck_assert(j->u.d == 18446744073709551616.0);
    j = parse(&a, "-9223372036854775809");
    ck_assert_int_eq(j->type, CDCH_JSON_DOUBLE);
    j = parse(&a, "1E2");
    ck_assert_int_eq(j->type, CDCH_JSON_DOUBLE);
    ck_assert(j->u.d == 100.0);
    j = parse(&a, "-1.25e-2");
    ck_assert(j->u.d == -0.0125);
    j = parse(&a, "1e-400"); /* underflow: 0 */
    ck_assert_int_eq(j->type, CDCH_JSON_DOUBLE);
    ck_assert(j->u.d == 0.0);
    /* a long number (longer than the stack copy) */
    j = parse(&a, "0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000001");
    ck_assert(j->u.d == 1e-86);
    j = parse(&a, " \t\n\r{ \"a\" : [ 1 , 2 ] } \n");
    ck_assert_int_eq(j->type, CDCH_JSON_OBJECT);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(parse_errors)
{
    PARSE_ERR("", 0, "empty");
    PARSE_ERR("   ", 3, "empty");
    PARSE_ERR("[1,]", 3, "expected a value");
    PARSE_ERR("{\"a\" 1}", 5, "':'");
    PARSE_ERR("{\"a\":1,}", 7, "member name");
    PARSE_ERR("{a:1}", 1, "member name");
    PARSE_ERR("[1 2]", 3, "',' or ']'");
    PARSE_ERR("[", 1, "end of input");
    PARSE_ERR("{", 1, NULL);
    PARSE_ERR("[1] x", 4, "after the end");
    PARSE_ERR("01", 1, "leading zeros");
    PARSE_ERR("1.", 2, "decimal point");
    PARSE_ERR(".5", 0, NULL);
    PARSE_ERR("-", 1, "digit");
    PARSE_ERR("1e", 2, "exponent");
    PARSE_ERR("+1", 0, NULL);
    PARSE_ERR("tru", 0, NULL);
    PARSE_ERR("nul", 0, NULL);
    PARSE_ERR("NaN", 0, NULL);
    PARSE_ERR("1e400", 0, "too big");
    PARSE_ERR("\"abc", 0, "not terminated");
    PARSE_ERR("\"a\x01\"", 2, "control character");
    PARSE_ERR("\"\\x\"", 1, "invalid escape");
    PARSE_ERR("\"\\u12\"", 1, "4 hex digits");
    PARSE_ERR("\"\\ud800\"", 1, "low surrogate");
    PARSE_ERR("\"\\ud800\\u0041\"", 1, "low surrogate");
    PARSE_ERR("\"\\udc00\"", 1, "lone low surrogate");
    PARSE_ERR("\"\xff\"", 1, "UTF-8");
    PARSE_ERR("\"\xc0\xaf\"", 1, "UTF-8");         /* overlong */
    PARSE_ERR("\"\xed\xa0\x80\"", 1, "UTF-8");     /* encoded surrogate */
    PARSE_ERR("\"\xf4\x90\x80\x80\"", 1, "UTF-8"); /* > U+10FFFF */
    PARSE_ERR("\"\xe2\x82\"", 1, "UTF-8");         /* truncated sequence */
    PARSE_ERR("[\"a\"\"b\"]", 4, NULL);
    /* an embedded NUL ends nothing: it is a control character in a string,
     * and garbage after a value */
    PARSE_ERR("1\0", 1, "after the end");
}
END_TEST

static char *nested_text(int depth, char open, char close)
{
    char *s = malloc((size_t)depth * 2 + 1);
    for (int i = 0; i < depth; i++) {
        s[i] = open;
        s[depth * 2 - 1 - i] = close;
    }
    s[depth * 2] = '\0';
    return s;
}

START_TEST(depth_limit)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf b = CDCH_BUF_INIT;
    char *ok = nested_text(CDCH_JSON_MAX_DEPTH, '[', ']');
    cdch_json *j = parse(&a, ok);
    cdch_json_encode(j, &b);
    decode_ok(&a, b.data, b.len);
    char *bad = nested_text(CDCH_JSON_MAX_DEPTH + 1, '[', ']');
    check_parse_error(bad, strlen(bad), CDCH_JSON_MAX_DEPTH, "deeper");

    /* the encoder does not limit depth; the decoder does */
    cdch_json *deep = mk_array(&a, 1, &j);
    cdch_buf_reset(&b);
    cdch_json_encode(deep, &b);
    cdch_json *out = NULL;
    cdch_err e;
    ck_assert_int_eq(cdch_json_decode(b.data, b.len, &a, &out, &e), -1);
    ck_assert_ptr_null(out);
    ck_assert_ptr_nonnull(strstr(e.msg, "deeper than 100"));

    /* objects count too */
    cdch_buf txt = CDCH_BUF_INIT;
    for (int i = 0; i < CDCH_JSON_MAX_DEPTH + 1; i++)
        cdch_put_str(&txt, "{\"a\":");
    cdch_put_str(&txt, "1");
    for (int i = 0; i < CDCH_JSON_MAX_DEPTH + 1; i++)
        cdch_put_str(&txt, "}");
    check_parse_error((const char *)txt.data, txt.len, -1, "deeper");
    free(ok);
    free(bad);
    cdch_buf_free(&txt);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
}
END_TEST

/* ---- equality ---------------------------------------------------------- */

START_TEST(equality)
{
    cdch_arena a = CDCH_ARENA_INIT;
    ck_assert(cdch_json_equal(mk_int(&a, 5), mk_uint(&a, 5)));
    ck_assert(cdch_json_equal(mk_uint(&a, 5), mk_int(&a, 5)));
    ck_assert(!cdch_json_equal(mk_int(&a, -1), mk_uint(&a, UINT64_MAX)));
    ck_assert(!cdch_json_equal(mk_int(&a, 1), mk_double(&a, 1.0)));
    ck_assert(cdch_json_equal(mk_double(&a, 0.5), mk_double(&a, 0.5)));
    ck_assert(!cdch_json_equal(mk_double(&a, 0.5), mk_double(&a, 0.25)));
    /* object member order does not matter */
    const char *k1[] = {"a", "b"}, *k2[] = {"b", "a"};
    cdch_json *v1[] = {mk_int(&a, 1), mk_int(&a, 2)}, *v2[] = {mk_int(&a, 2), mk_int(&a, 1)};
    ck_assert(cdch_json_equal(mk_object(&a, 2, k1, v1), mk_object(&a, 2, k2, v2)));
    cdch_json *v3[] = {mk_int(&a, 1), mk_int(&a, 1)};
    ck_assert(!cdch_json_equal(mk_object(&a, 2, k1, v1), mk_object(&a, 2, k2, v3)));
    const char *k3[] = {"a", "c"};
    ck_assert(!cdch_json_equal(mk_object(&a, 2, k1, v1), mk_object(&a, 2, k3, v1)));
    ck_assert(!cdch_json_equal(parse(&a, "[1,2]"), parse(&a, "[2,1]")));
    ck_assert(!cdch_json_equal(parse(&a, "[1,2]"), parse(&a, "[1,2,3]")));
    ck_assert(!cdch_json_equal(parse(&a, "\"ab\""), parse(&a, "\"abc\"")));
    ck_assert(!cdch_json_equal(parse(&a, "{}"), parse(&a, "[]")));
    ck_assert(!cdch_json_equal(parse(&a, "true"), parse(&a, "false")));
    ck_assert(cdch_json_equal(parse(&a, "null"), parse(&a, " null ")));
    ck_assert(!cdch_json_equal(mk_opaque(&a, CDCH_T_BLOB, "01"), mk_opaque(&a, CDCH_T_VARCHAR, "01")));
    ck_assert(!cdch_json_equal(mk_opaque(&a, CDCH_T_BLOB, "01"), mk_opaque(&a, CDCH_T_BLOB, "02")));
    ck_assert(cdch_json_equal(mk_opaque(&a, CDCH_T_BLOB, "01"), mk_opaque(&a, CDCH_T_BLOB, "01")));
    cdch_arena_free(&a);
}
END_TEST

/* ---- decoder: special inputs ------------------------------------------ */

START_TEST(decode_special)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf t = CDCH_BUF_INIT;
    /* empty value = JSON null (MySQL parse_binary) */
    cdch_json *j = decode_ok(&a, (const uint8_t *)"", 0);
    ck_assert_int_eq(j->type, CDCH_JSON_NULL);
    /* trailing bytes after the top-level value are ignored, as in MySQL */
    uint8_t trail[] = {0x05, 0x1a, 0x00, 0xee, 0xee};
    ck_assert_int_eq(decode_ok(&a, trail, sizeof trail)->u.i, 26);
    /* an int16 inlined in a large container is read from its first 2 bytes */
    uint8_t large_inl[] = {0x03, 1, 0, 0, 0, 13, 0, 0, 0, 0x05, 0xfb, 0xff, 0x00, 0x00};
    j = decode_ok(&a, large_inl, sizeof large_inl);
    ck_assert_int_eq(j->u.arr.items[0]->u.i, -5);
    /* int32 type in a small container is not inlined: offset 7 */
    uint8_t small_i32[] = {0x02, 1, 0, 11, 0, 0x07, 7, 0, 0x70, 0x11, 0x01, 0x00};
    j = decode_ok(&a, small_i32, sizeof small_i32);
    ck_assert_int_eq(j->u.arr.items[0]->u.i, 70000);
    ck_assert_str_eq(text_of(j, &t), "[70000]");

    static const struct {
        const char *hex;
        const char *needle;
        int64_t offset;
    } bad[] = {
        {"0d 00", "unknown value type 0x0d", 1},
        {"04 03", "bad literal", 1},
        {"05 1a", "int16 value needs 2 bytes", 1},
        {"0b 0000", "double value needs 8 bytes", 1},
        {"0c 05 6162", "string of 5 bytes", 1},
        {"0c 80", "var-length", 1},
        {"0c ffffffff7f", "var-length", 1}, /* > 2^32 */
        {"0f", "field type", 1},
        {"0f fc 03 61", "opaque value of 3 bytes", 1},
        {"00 01", "header needs 4 bytes", 1},
        {"00 0000 0600 00", "declares 6 bytes", 1},
        {"02 0200 0600 040000", "header", 1},
        {"02 0100 0700 0c0200", "points outside", 5},  /* offset 2 < header 7 */
        {"02 0100 0800 0c0800 00", "points outside", 5}, /* offset == size */
        {"00 0100 0b00 0b00 0100 040000 61", "key 0", 5},   /* key past the end */
        {"00 0100 0c00 0300 0100 040000 6162", "key 0", 5}, /* key inside the header */
        {"02 0100 0800 0d0700 00", "unknown value type 0x0d", 8},
        {"03 01000000 0a000000 0400000000 00", "header", 1},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        size_t n;
        uint8_t *raw = tu_unhex(bad[k].hex, &n);
        cdch_err e;
        cdch_err_clear(&e);
        cdch_json *out = NULL;
        ck_assert_msg(cdch_json_decode(raw, n, &a, &out, &e) == -1, "%s should fail", bad[k].hex);
        ck_assert_msg(strstr(e.msg, bad[k].needle) != NULL, "%s: message '%s' lacks '%s'", bad[k].hex, e.msg,
                      bad[k].needle);
        ck_assert_msg(e.offset == bad[k].offset, "%s: offset %lld, want %lld (%s)", bad[k].hex,
                      (long long)e.offset, (long long)bad[k].offset, e.msg);
        free(raw);
    }
    cdch_buf_free(&t);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(decode_shared_subtree_bomb)
{
    /* Every entry of every level points at the same child: a tree of
     * 1000^5 nodes in ~15 KB. Must be refused, quickly. */
    cdch_buf inner = CDCH_BUF_INIT;
    cdch_put_le16(&inner, 0);
    cdch_put_le16(&inner, 4);
    for (int level = 0; level < 5; level++) {
        const unsigned n = 1000;
        unsigned hdr = 4 + 3 * n;
        cdch_buf outer = CDCH_BUF_INIT;
        cdch_put_le16(&outer, (uint16_t)n);
        cdch_put_le16(&outer, (uint16_t)(hdr + inner.len));
        for (unsigned i = 0; i < n; i++) {
            cdch_put_u8(&outer, 0x02);
            cdch_put_le16(&outer, (uint16_t)hdr);
        }
        cdch_put_bytes(&outer, inner.data, inner.len);
        cdch_buf_free(&inner);
        inner = outer;
    }
    cdch_buf doc = CDCH_BUF_INIT;
    cdch_put_u8(&doc, 0x02);
    cdch_put_bytes(&doc, inner.data, inner.len);
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_json *out = NULL;
    cdch_err e;
    ck_assert_int_eq(cdch_json_decode(doc.data, doc.len, &a, &out, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "corrupt"));
    cdch_buf_free(&doc);
    cdch_buf_free(&inner);
    cdch_arena_free(&a);
}
END_TEST

/* ---- real MySQL documents --------------------------------------------- */

/* The 8.0 fixture is what MySQL 8.0 binlogged after JSON_REMOVE updated the
 * document in place (a hole is left where the removed member was); the 5.7
 * fixture is the same logical document as 5.7 stored it (5.7 always
 * re-serializes). */
START_TEST(fixture_sparse_vs_compact)
{
    size_t n80, n57;
    uint8_t *d80 = tu_read_file(tu_fixture("osheroff__json_binary_sparse_after_json_remove_mysql80.bin"), &n80);
    uint8_t *d57 = tu_read_file(tu_fixture("osheroff__json_binary_after_json_remove_mysql57.bin"), &n57);
    ck_assert_uint_eq(d80[0], 0x00);
    ck_assert_uint_eq((unsigned)(d80[3] | d80[4] << 8), 572); /* declared size */
    ck_assert_uint_eq(n80, 573);

    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf t80 = CDCH_BUF_INIT, t57 = CDCH_BUF_INIT, b = CDCH_BUF_INIT;
    cdch_json *j80 = decode_ok(&a, d80, n80);
    cdch_json *j57 = decode_ok(&a, d57, n57);
    ck_assert_int_eq(j80->type, CDCH_JSON_OBJECT);
    ck_assert_uint_eq(j80->u.obj.count, 6);
    ck_assert_uint_eq(j57->u.obj.count, 6);
    ck_assert(cdch_json_equal(j80, j57));
    ck_assert_str_eq(text_of(j80, &t80), text_of(j57, &t57));
    /* the sparse document really is sparse: header ends at 46, first key
     * at 93 (0x5d) */
    ck_assert_uint_eq(j80->u.obj.members[0].key - (const char *)d80 - 1, 93);
    ck_assert_uint_eq(j57->u.obj.members[0].key - (const char *)d57 - 1, 46);

    /* MySQL 5.7's serializer wrote exactly what ours writes */
    cdch_json_encode(j57, &b);
    tu_assert_bytes(b.data, b.len, d57, n57);
    /* and compacting the sparse 8.0 document gives the same bytes */
    cdch_buf_reset(&b);
    cdch_json_encode(j80, &b);
    tu_assert_bytes(b.data, b.len, d57, n57);
    /* text parse of the printed document encodes the same way */
    cdch_buf_reset(&b);
    cdch_json_encode(parse(&a, cdch_buf_cstr(&t57)), &b);
    tu_assert_bytes(b.data, b.len, d57, n57);

    cdch_buf_free(&t80);
    cdch_buf_free(&t57);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
    free(d80);
    free(d57);
}
END_TEST

/* Every truncation and many single-byte corruptions of a document must
 * give an error or a valid tree (ASan/UBSan watch for the rest). */
static void torture(const uint8_t *doc, size_t len)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf t = CDCH_BUF_INIT, b = CDCH_BUF_INIT, b2 = CDCH_BUF_INIT;
    uint8_t *copy = malloc(len ? len : 1);
    for (size_t cut = 0; cut <= len; cut++) {
        memcpy(copy, doc, cut);
        cdch_json *j = NULL;
        cdch_err e;
        cdch_err_clear(&e);
        int r = cdch_json_decode(copy, cut, &a, &j, &e);
        if (r == 0) {
            ck_assert_ptr_nonnull(j);
            cdch_buf_reset(&t);
            cdch_json_to_text(j, &t);
            cdch_buf_reset(&b);
            cdch_json_encode(j, &b);
        } else {
            ck_assert_int_eq(r, -1);
            ck_assert_ptr_null(j);
            ck_assert_msg(e.msg[0] != '\0', "no message for a truncation at %zu", cut);
            ck_assert_msg(e.offset >= 0 && (size_t)e.offset <= cut, "offset %lld outside %zu bytes",
                          (long long)e.offset, cut);
        }
        cdch_arena_reset(&a);
    }
    /* full document must decode */
    cdch_json *full = decode_ok(&a, doc, len);
    (void)full;
    static const uint8_t repl[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x0c, 0x0f, 0x7f, 0x80, 0xff};
    for (size_t pos = 0; pos < len; pos++) {
        for (size_t r = 0; r < sizeof repl + 2; r++) {
            memcpy(copy, doc, len);
            copy[pos] = r < sizeof repl ? repl[r] : (uint8_t)(doc[pos] ^ (r == sizeof repl ? 0x01 : 0x40));
            cdch_json *j = NULL;
            cdch_err e;
            if (cdch_json_decode(copy, len, &a, &j, &e) == 0) {
                cdch_buf_reset(&t);
                cdch_json_to_text(j, &t);
                cdch_buf_reset(&b);
                cdch_json_encode(j, &b);
                /* what we encode decodes again, and re-encodes to the same
                 * bytes (a corrupt document may have unsorted or duplicate
                 * keys, which the encoder puts in MySQL order) */
                cdch_json *again = decode_ok(&a, b.data, b.len);
                cdch_buf_reset(&b2);
                cdch_json_encode(again, &b2);
                tu_assert_bytes(b2.data, b2.len, b.data, b.len);
            } else {
                ck_assert(e.msg[0] != '\0');
            }
            cdch_arena_reset(&a);
        }
    }
    free(copy);
    cdch_buf_free(&t);
    cdch_buf_free(&b);
    cdch_buf_free(&b2);
    cdch_arena_free(&a);
}

START_TEST(truncation_and_corruption)
{
    /* a nested document with every value type, small and large */
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf b = CDCH_BUF_INIT;
    cdch_json *j = parse(&a, "{\"a\":[1,-70000,3000000000,18446744073709551615,1.5,\"str\",null,true,false,"
                             "{\"x\":{\"y\":[[],{}]}}],\"bb\":\"\\u00e9t\\u00e9\",\"c\":-9223372036854775808}");
    cdch_json *items[] = {j, mk_opaque(&a, CDCH_T_NEWDECIMAL, "03028132"),
                          mk_opaque(&a, CDCH_T_DATETIME, "40e2011ea55eb219"), mk_opaque(&a, CDCH_T_BLOB, "00ff")};
    cdch_json *arr = mk_array(&a, 4, items);
    cdch_json_encode(arr, &b);
    torture(b.data, b.len);

    /* a large container (shrunk test: large format for a small doc can be
     * built by hand: outer large array with one small object) */
    cdch_buf_reset(&b);
    cdch_json *s = mk_str(&a, 65530);
    cdch_json *big_items[] = {s, j};
    cdch_json_encode(mk_array(&a, 2, big_items), &b);
    ck_assert_uint_eq(b.data[0], 0x03);
    /* truncations only (65 K x 12 corruptions would be slow): */
    for (size_t cut = 0; cut < b.len; cut += (cut < 64 || cut > b.len - 400) ? 1 : 997) {
        cdch_json *out = NULL;
        cdch_err e;
        ck_assert_int_eq(cdch_json_decode(b.data, cut, &a, &out, &e), cut == 0 ? 0 : -1);
    }
    cdch_buf_free(&b);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(fixture_torture)
{
    static const char *const names[] = {"osheroff__json_binary_sparse_after_json_remove_mysql80.bin",
                                        "osheroff__json_binary_after_json_remove_mysql57.bin"};
    for (size_t k = 0; k < 2; k++) {
        size_t n;
        uint8_t *d = tu_read_file(tu_fixture(names[k]), &n);
        torture(d, n);
        free(d);
    }
}
END_TEST

/* ---- JSON diffs -------------------------------------------------------- */

START_TEST(diff_real_example)
{
    /* binlog-format.md section 7: REPLACE $.age with int16 26 */
    size_t n;
    uint8_t *raw = tu_unhex("0b000000 00 05 242e616765 03 05 1a00 ee", &n);
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_cursor c = cdch_cur(raw, n);
    cdch_json_diff d;
    cdch_err e;
    cdch_err_clear(&e);
    ck_assert_msg(cdch_json_diff_decode(&c, &a, &d, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(cdch_cur_pos(&c), 15); /* exactly 4 + 11 bytes */
    ck_assert_uint_eq(d.count, 1);
    ck_assert_uint_eq(d.ops[0].op, CDCH_JSON_DIFF_REPLACE);
    ck_assert_uint_eq(d.ops[0].path_len, 5);
    ck_assert_int_eq(memcmp(d.ops[0].path, "$.age", 5), 0);
    ck_assert_ptr_nonnull(d.ops[0].value);
    ck_assert_int_eq(d.ops[0].value->type, CDCH_JSON_INT);
    ck_assert_int_eq(d.ops[0].value->u.i, 26);

    cdch_buf b = CDCH_BUF_INIT;
    cdch_json_diff_encode(&d, &b);
    tu_assert_bytes(b.data, b.len, raw, 15);
    cdch_buf_reset(&b);
    cdch_json_diff_to_text(&d, &b);
    ck_assert_str_eq(cdch_buf_cstr(&b), "[{\"op\":\"replace\",\"path\":\"$.age\",\"value\":26}]");
    cdch_buf_free(&b);
    cdch_arena_free(&a);
    free(raw);
}
END_TEST

START_TEST(diff_fixture_binlog)
{
    /* the six PARTIAL_UPDATE_ROWS after-images of rust_mysql_common's
     * json.binlog.000001 (8.0.22) */
    size_t n;
    uint8_t *d = tu_read_file(tu_fixture("rust_mysql_common__json.binlog.000001"), &n);
    static const uint8_t pat[] = {0x0b, 0, 0, 0, 0x00, 0x05, '$', '.', 'a', 'g', 'e'};
    static const int64_t want[] = {26, 34, 42, 26, 34, 42};
    size_t found = 0;
    cdch_arena a = CDCH_ARENA_INIT;
    for (size_t i = 0; i + sizeof pat <= n; i++) {
        if (memcmp(d + i, pat, sizeof pat) != 0)
            continue;
        cdch_cursor c = cdch_cur(d + i, n - i);
        cdch_json_diff diff;
        cdch_err e;
        ck_assert_msg(cdch_json_diff_decode(&c, &a, &diff, &e) == 0, "%s", e.msg);
        ck_assert_uint_eq(diff.count, 1);
        ck_assert_uint_lt(found, 6);
        ck_assert_int_eq(diff.ops[0].value->u.i, want[found]);
        cdch_buf b = CDCH_BUF_INIT;
        cdch_json_diff_encode(&diff, &b);
        tu_assert_bytes(b.data, b.len, d + i, 15);
        cdch_buf_free(&b);
        found++;
    }
    ck_assert_uint_eq(found, 6);
    cdch_arena_free(&a);
    free(d);
}
END_TEST

START_TEST(diff_multi_op)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_json_diff_op ops[3] = {
        {CDCH_JSON_DIFF_REPLACE, "$.a", 3, parse(&a, "{\"x\":[1,2]}")},
        {CDCH_JSON_DIFF_INSERT, "$.b[0]", 6, parse(&a, "\"s\"")},
        {CDCH_JSON_DIFF_REMOVE, "$.c", 3, NULL},
    };
    cdch_json_diff d = {3, ops};
    cdch_buf b = CDCH_BUF_INIT;
    cdch_json_diff_encode(&d, &b);
    /* {"x":[1,2]} = 00 | 0100 1600 0b00 0100 020c00 78 | 0200 0a00 050100 050200 */
    tu_assert_hex(b.data, b.len,
                  "2e000000"
                  " 00 03 242e61 17 00 0100 1600 0b00 0100 020c00 78 0200 0a00 050100 050200"
                  " 01 06 242e625b305d 03 0c 01 73"
                  " 02 03 242e63");
    cdch_cursor c = cdch_cur(b.data, b.len);
    cdch_json_diff back;
    cdch_err e;
    ck_assert_msg(cdch_json_diff_decode(&c, &a, &back, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(back.count, 3);
    for (size_t i = 0; i < 3; i++) {
        ck_assert_uint_eq(back.ops[i].op, ops[i].op);
        ck_assert_uint_eq(back.ops[i].path_len, ops[i].path_len);
        ck_assert_int_eq(memcmp(back.ops[i].path, ops[i].path, ops[i].path_len), 0);
        ck_assert(cdch_json_equal(back.ops[i].value, ops[i].value));
    }
    ck_assert_ptr_null(back.ops[2].value);
    cdch_buf t = CDCH_BUF_INIT;
    cdch_json_diff_to_text(&back, &t);
    ck_assert_str_eq(cdch_buf_cstr(&t), "[{\"op\":\"replace\",\"path\":\"$.a\",\"value\":{\"x\":[1,2]}},"
                                        "{\"op\":\"insert\",\"path\":\"$.b[0]\",\"value\":\"s\"},"
                                        "{\"op\":\"remove\",\"path\":\"$.c\"}]");

    /* every truncation fails cleanly (the u32 length no longer fits) */
    for (size_t cut = 0; cut < b.len; cut++) {
        cdch_cursor tc = cdch_cur(b.data, cut);
        cdch_json_diff td;
        cdch_err te;
        cdch_err_clear(&te);
        ck_assert_int_eq(cdch_json_diff_decode(&tc, &a, &td, &te), -1);
        ck_assert(te.msg[0] != '\0');
    }
    /* and every shortened length field too (ops cut in the middle) */
    for (uint32_t len = 1; len < 0x2e; len++) {
        uint8_t *copy = malloc(b.len);
        memcpy(copy, b.data, b.len);
        copy[0] = (uint8_t)len;
        cdch_cursor tc = cdch_cur(copy, b.len);
        cdch_json_diff td;
        cdch_err te;
        int r = cdch_json_diff_decode(&tc, &a, &td, &te);
        if (len == 29 || len == 41) /* ends exactly after op 1 or op 2 */
            ck_assert_int_eq(r, 0);
        else
            ck_assert_int_eq(r, -1);
        free(copy);
    }
    /* empty vector */
    uint8_t empty[] = {0, 0, 0, 0};
    c = cdch_cur(empty, 4);
    ck_assert_int_eq(cdch_json_diff_decode(&c, &a, &back, &e), 0);
    ck_assert_uint_eq(back.count, 0);
    cdch_buf_reset(&t);
    cdch_json_diff_to_text(&back, &t);
    ck_assert_str_eq(cdch_buf_cstr(&t), "[]");
    cdch_buf_free(&t);
    cdch_buf_free(&b);
    cdch_arena_free(&a);
}
END_TEST

START_TEST(diff_errors)
{
    static const struct {
        const char *hex;
        const char *needle;
    } bad[] = {
        {"0b00", "4 bytes"},
        {"0c000000 00 05 242e616765 03 05 1a00", "declares 12 bytes"},
        {"01000000 03", "unknown type 3"},
        {"02000000 00 05", "path of 5 bytes"},
        {"03000000 00 fb 00", "path length"},
        {"04000000 02 01 2e 00", "does not start with '$'"},
        {"03000000 00 01 24", "value length"},
        {"05000000 00 01 24 05 00", "value of 5 bytes"},
        {"06000000 00 01 24 02 0d 00", "unknown value type 0x0d"},
    };
    cdch_arena a = CDCH_ARENA_INIT;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        size_t n;
        uint8_t *raw = tu_unhex(bad[k].hex, &n);
        cdch_cursor c = cdch_cur(raw, n);
        cdch_json_diff d;
        cdch_err e;
        cdch_err_clear(&e);
        ck_assert_msg(cdch_json_diff_decode(&c, &a, &d, &e) == -1, "%s should fail", bad[k].hex);
        ck_assert_msg(strstr(e.msg, bad[k].needle) != NULL, "%s: '%s' lacks '%s'", bad[k].hex, e.msg,
                      bad[k].needle);
        ck_assert_msg(strncmp(e.msg, "JSON diff", 9) == 0, "%s", e.msg);
        ck_assert_msg(e.offset >= 0 && (size_t)e.offset <= n, "%s: offset %lld", bad[k].hex, (long long)e.offset);
        free(raw);
    }
    /* the nested JSON error offset points into the value: the document
     * starts at 4+1+1+1+1 = 8 and the bad type byte's data at 9 */
    size_t n;
    uint8_t *raw = tu_unhex("06000000 00 01 24 02 0d 00", &n);
    cdch_cursor c = cdch_cur(raw, n);
    cdch_json_diff d;
    cdch_err e;
    ck_assert_int_eq(cdch_json_diff_decode(&c, &a, &d, &e), -1);
    ck_assert_int_eq(e.offset, 9);
    free(raw);
    cdch_arena_free(&a);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("json_binary");
    TCase *enc = tcase_create("encode");
    tcase_add_test(enc, empty_containers);
    tcase_add_test(enc, literals);
    tcase_add_test(enc, int_boundaries);
    tcase_add_test(enc, doubles_binary);
    tcase_add_test(enc, strings_varint);
    tcase_add_test(enc, nested_object);
    tcase_add_test(enc, key_ordering);
    tcase_add_test(enc, encoder_sorts_keys);
    tcase_add_test(enc, opaque_values);
    suite_add_tcase(s, enc);

    TCase *large = tcase_create("large");
    tcase_add_test(large, large_array_string);
    tcase_add_test(large, large_object_mixed);
    tcase_add_test(large, large_nested_chain);
    tcase_add_test(large, small_large_boundary);
    tcase_add_test(large, large_doc_from_text);
    tcase_set_timeout(large, 120);
    suite_add_tcase(s, large);

    TCase *txt = tcase_create("text");
    tcase_add_test(txt, double_text);
    tcase_add_test(txt, double_text_roundtrip_random);
    tcase_add_test(txt, string_escaping);
    tcase_add_test(txt, text_roundtrip);
    tcase_add_test(txt, parse_unicode);
    tcase_add_test(txt, parse_numbers);
    tcase_add_test(txt, parse_errors);
    tcase_add_test(txt, depth_limit);
    tcase_add_test(txt, equality);
    tcase_set_timeout(txt, 120);
    suite_add_tcase(s, txt);

    TCase *dec = tcase_create("decode");
    tcase_add_test(dec, decode_special);
    tcase_add_test(dec, decode_shared_subtree_bomb);
    tcase_add_test(dec, fixture_sparse_vs_compact);
    tcase_add_test(dec, truncation_and_corruption);
    tcase_add_test(dec, fixture_torture);
    tcase_set_timeout(dec, 600);
    suite_add_tcase(s, dec);

    TCase *diff = tcase_create("diff");
    tcase_add_test(diff, diff_real_example);
    tcase_add_test(diff, diff_fixture_binlog);
    tcase_add_test(diff, diff_multi_op);
    tcase_add_test(diff, diff_errors);
    suite_add_tcase(s, diff);
    return s;
}

int main(void) { return tu_run(suite()); }
