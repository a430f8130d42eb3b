/* test_report.c — the report's escaping (report_internal.h, white-box):
 * the exact bytes rep_json_strn / rep_json_str and rep_xml_text write for
 * NUL, DEL, control characters and every kind of invalid UTF-8 (adapters'
 * stderr may hold anything), and that valid UTF-8 passes through. */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/report/report_internal.h"
#include "testutil.h"

typedef struct mem {
    FILE *f;
    char *text;
    size_t len;
} mem;

static void mem_open(mem *m)
{
    m->text = NULL;
    m->len = 0;
    m->f = open_memstream(&m->text, &m->len);
    ck_assert_ptr_nonnull(m->f);
}

/* Close the stream; the caller frees m->text. */
static void mem_close(mem *m) { ck_assert_int_eq(fclose(m->f), 0); }

static void check_json(const char *in, size_t n, const char *want)
{
    mem m;
    mem_open(&m);
    rep_json_strn(m.f, in, n);
    mem_close(&m);
    tu_assert_bytes((const uint8_t *)m.text, m.len, (const uint8_t *)want, strlen(want));
    free(m.text);
}

START_TEST(json_escapes)
{
    /* NUL inside the string, DEL, the short escapes, the other control characters */
    static const char in[] = "a\0b\x7f\"\\\n\r\t\b\f\x01\x1f z";
    check_json(in, sizeof in - 1, "\"a\\u0000b\\u007f\\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f z\"");
}
END_TEST

START_TEST(json_invalid_utf8)
{
    /* valid 2-, 3- and 4-byte sequences pass through as they are */
    check_json("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    /* a sequence cut by the end of the string: one U+FFFD per byte */
    check_json("x\xe2\x82", 3, "\"x\\ufffd\\ufffd\"");
    /* a sequence cut by n although the bytes after n would complete it */
    check_json("\xf0\x9f\x98\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    /* a lead byte followed by a non-continuation byte */
    check_json("\xc3(", 2, "\"\\ufffd(\"");
    /* overlongs (C0 80 = NUL, E0 80 80, F0 80 80 80) */
    check_json("\xc0\x80", 2, "\"\\ufffd\\ufffd\"");
    check_json("\xe0\x80\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    check_json("\xf0\x80\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    /* a UTF-16 surrogate (U+D800) and a code point above U+10FFFF */
    check_json("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    check_json("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    /* bytes that never start a sequence */
    check_json("\x80\xf8\xff", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    /* the largest code point and the last before the surrogates are valid */
    check_json("\xf4\x8f\xbf\xbf\xed\x9f\xbf", 7, "\"\xf4\x8f\xbf\xbf\xed\x9f\xbf\"");
}
END_TEST

START_TEST(json_str_null)
{
    mem m;
    mem_open(&m);
    rep_json_str(m.f, NULL);
    fputc(' ', m.f);
    rep_json_str(m.f, "");
    fputc(' ', m.f);
    rep_json_str(m.f, "q\"");
    mem_close(&m);
    ck_assert_str_eq(m.text, "null \"\" \"q\\\"\"");
    free(m.text);
}
END_TEST

START_TEST(xml_text)
{
    mem m;
    mem_open(&m);
    rep_xml_text(m.f, NULL);
    /* markup escaped; tab, newline, CR kept; other controls, U+FFFE and U+FFFF dropped; DEL kept;
     * invalid UTF-8 becomes U+FFFD (as UTF-8) per byte; valid UTF-8 kept */
    rep_xml_text(m.f, "<a href='x'>&\"</a>\t\n\r\x01\x1f\x7f|\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbd|"
                      "\xc0\x80\xed\xa0\x80\xe2\x82|\xc3\xa9\xf0\x9f\x98\x80");
    mem_close(&m);
    const char *want = "&lt;a href=&apos;x&apos;&gt;&amp;&quot;&lt;/a&gt;\t\n\r\x7f|\xef\xbf\xbd|"
                       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|"
                       "\xc3\xa9\xf0\x9f\x98\x80";
    tu_assert_bytes((const uint8_t *)m.text, m.len, (const uint8_t *)want, strlen(want));
    free(m.text);
}
END_TEST

/* Found by fuzz/fuzz_report (issue 14): a cell without "family" (or with a
 * "cause" that is not an array of objects with an "id") reached the
 * summary.md renderer, which passed a NULL to strcmp. rep_doc_add refuses
 * such a cell; a cell with them renders. */
START_TEST(cell_without_family_refused)
{
    static const char *const bad[] = {
        "{\"format\":\"cdcharness-report\",\"version\":1,\"cells\":[{\"consumer\":\"c@1\",\"femily\":\"c\",\"scenario\":\"s\",\"mode\":\"m\",\"verdict\":\"pass\"}]}",
        "{\"format\":\"cdcharness-report\",\"version\":1,\"cells\":[{\"consumer\":\"c@1\",\"family\":\"c\",\"scenario\":\"s\",\"mode\":\"m\",\"verdict\":\"pass\","
        "\"cause\":{\"id\":\"x\"}}]}",
        "{\"format\":\"cdcharness-report\",\"version\":1,\"cells\":[{\"consumer\":\"c@1\",\"family\":\"c\",\"scenario\":\"s\",\"mode\":\"m\",\"verdict\":\"pass\","
        "\"cause\":[{\"kind\":\"x\"}]}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rep_doc d;
        rep_doc_init(&d);
        cdch_err err;
        ck_assert_int_ne(rep_doc_add(&d, bad[i], strlen(bad[i]), "r.json", NULL, &err), 0);
        ck_assert_str_eq(err.msg, "r.json: cell 1 lacks consumer, family, scenario, mode or verdict, or its \"cause\" "
                                  "is not an array of objects with an \"id\"");
        rep_doc_free(&d);
    }
    const char *ok = "{\"format\":\"cdcharness-report\",\"version\":1,\"cells\":[{\"consumer\":\"c@1\",\"family\":\"c\",\"scenario\":\"s\",\"mode\":\"m\","
                     "\"verdict\":\"pass\",\"cause\":[{\"id\":\"x\",\"kind\":\"bug\"}]}]}";
    rep_doc d;
    rep_doc_init(&d);
    cdch_err err;
    ck_assert_int_eq(rep_doc_add(&d, ok, strlen(ok), "r.json", NULL, &err), 0);
    FILE *f = fopen("/dev/null", "w");
    ck_assert_int_eq(rep_render_markdown(&d, f), 0);
    fclose(f);
    rep_doc_free(&d);
}
END_TEST


static Suite *suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("escaping");
    tcase_add_test(tc, json_escapes);
    tcase_add_test(tc, json_invalid_utf8);
    tcase_add_test(tc, json_str_null);
    tcase_add_test(tc, xml_text);
    tcase_add_test(tc, cell_without_family_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
