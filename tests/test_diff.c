/* test_diff.c — canonical event lines (events.c), value comparison and
 * alignment (diff.c), verdicts (verdict.c): exact inputs, exact outputs. */
#include "diff.h"
#include "events.h"
#include "scenario.h"
#include "testutil.h"
#include "verdict.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "buf.h"

/* ---- helpers --------------------------------------------------------------- */

static cdch_change_list *lines(const char *text, bool strict)
{
    cdch_change_list *l = cdch_changes_new();
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        cdch_err err;
        ck_assert_msg(cdch_changes_add_line(l, p, n, strict, &err) == 0, "line: %.*s: %s", (int)n, p, err.msg);
        p += n + (nl ? 1 : 0);
    }
    return l;
}

static const cdch_jv *jv(cdch_arena *a, const char *text)
{
    cdch_jv *v;
    cdch_err err;
    ck_assert_msg(cdch_jv_parse(text, strlen(text), a, &v, &err) == 0, "%s: %s", text, err.msg);
    return v;
}

static bool eq(cdch_cmp_kind k, int scale, const char *e, const char *o)
{
    cdch_arena a = CDCH_ARENA_INIT;
    bool r = cdch_diff_value_equal(k, scale, jv(&a, e), jv(&a, o));
    cdch_arena_free(&a);
    return r;
}

#define G "3e11fa47-71ca-11e1-9e33-c80aa9429562"

/* Five transactions of one table t.o(id int, v decimal(5,2), f float), the
 * 3rd and 4th compressed; txn k ends at 1000*k, starts at 1000*k-1000. */
#define E1 "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"gtid\":\"" G ":1\",\"pos\":{\"file\":\"b.000001\",\"pos\":1000},\"txn\":1,\"compressed\":false}"
#define E2 "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":2,\"v\":\"2.00\",\"f\":2.5},\"gtid\":\"" G ":2\",\"pos\":{\"file\":\"b.000001\",\"pos\":2000},\"txn\":2,\"compressed\":false}"
#define E3 "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":3,\"v\":\"3.00\",\"f\":3.5},\"gtid\":\"" G ":3\",\"pos\":{\"file\":\"b.000001\",\"pos\":3000},\"txn\":3,\"compressed\":true}"
#define E4 "{\"op\":\"update\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"after\":{\"id\":1,\"v\":\"9.10\",\"f\":1.5},\"gtid\":\"" G ":4\",\"pos\":{\"file\":\"b.000001\",\"pos\":4000},\"txn\":4,\"compressed\":true}"
#define E5 "{\"op\":\"delete\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":2,\"v\":\"2.00\",\"f\":2.5},\"after\":null,\"gtid\":\"" G ":5\",\"pos\":{\"file\":\"b.000001\",\"pos\":5000},\"txn\":5,\"compressed\":false}"
#define EXPECTED E1 "\n" E2 "\n" E3 "\n" E4 "\n" E5 "\n"

/* Observed forms (no txn/compressed), with a position inside the transaction. */
#define O1 "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"gtid\":\"" G ":1\",\"pos\":{\"file\":\"b.000001\",\"pos\":1000}}"
#define O2 "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":2,\"v\":\"2.00\",\"f\":2.5},\"gtid\":\"" G ":2\",\"pos\":{\"file\":\"b.000001\",\"pos\":1500}}"
#define O3 "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":3,\"v\":\"3.00\",\"f\":3.5},\"gtid\":\"" G ":3\",\"pos\":{\"file\":\"b.000001\",\"pos\":3000}}"
#define O4 "{\"op\":\"update\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"after\":{\"id\":1,\"v\":\"9.10\",\"f\":1.5},\"gtid\":\"" G ":4\",\"pos\":{\"file\":\"b.000001\",\"pos\":4000}}"
#define O5 "{\"op\":\"delete\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":2,\"v\":\"2.00\",\"f\":2.5},\"after\":null,\"gtid\":\"" G ":5\",\"pos\":{\"file\":\"b.000001\",\"pos\":5000}}"

static cdch_diff_schema *schema(void)
{
    const char *names[] = {"id", "v", "f"};
    cdch_cmp_kind kinds[] = {CDCH_CMP_INT, CDCH_CMP_DECIMAL, CDCH_CMP_FLOAT};
    int scales[] = {-1, 2, -1};
    cdch_diff_schema *s = cdch_diff_schema_new();
    cdch_diff_schema_add_table(s, "t", "o", 3, names, kinds, scales);
    return s;
}

static cdch_diff *diff_of(const char *observed, cdch_change_list **obs_out)
{
    cdch_change_list *e = lines(EXPECTED, true);
    cdch_change_list *o = lines(observed, false);
    cdch_diff_schema *s = schema();
    cdch_diff *d = cdch_diff_run(e, o, s, NULL, 0);
    cdch_diff_schema_free(s);
    cdch_changes_free(e);
    if (obs_out)
        *obs_out = o;
    else
        cdch_changes_free(o);
    return d;
}

static cdch_outcome outcome(cdch_stop_reason r, int status)
{
    cdch_outcome o;
    memset(&o, 0, sizeof o);
    o.reason = r;
    o.exit_status = status;
    o.timeout_s = 60;
    o.cut_nctl = SIZE_MAX;
    return o;
}

static cdch_verdict judge(const cdch_diff *d, const cdch_change_list *obs, cdch_outcome o, char *summary, size_t n)
{
    cdch_judgement j;
    cdch_verdict_judge(d, obs, &o, &j);
    if (summary)
        snprintf(summary, n, "%s", j.summary);
    cdch_verdict v = j.verdict;
    cdch_judgement_free(&j);
    return v;
}

/* ---- events ------------------------------------------------------------------ */

START_TEST(jv_parser)
{
    cdch_arena a = CDCH_ARENA_INIT;
    const cdch_jv *v = jv(&a, " {\"a\":[1,-2.5e3,\"x\\u00e9\\ud83d\\ude00\"],\"b\":null,\"c\":true} ");
    ck_assert_int_eq(v->type, CDCH_JV_OBJECT);
    ck_assert_uint_eq(v->u.obj.n, 3);
    const cdch_jv *arr = cdch_jv_get(v, "a");
    ck_assert_uint_eq(arr->u.arr.n, 3);
    ck_assert_int_eq(arr->u.arr.items[1]->type, CDCH_JV_NUMBER);
    ck_assert_uint_eq(arr->u.arr.items[1]->raw_len, 6);
    ck_assert_mem_eq(arr->u.arr.items[1]->raw, "-2.5e3", 6);
    ck_assert_str_eq(arr->u.arr.items[2]->u.str.ptr, "x\xc3\xa9\xf0\x9f\x98\x80");
    ck_assert_int_eq(cdch_jv_get(v, "b")->type, CDCH_JV_NULL);
    ck_assert_ptr_null(cdch_jv_get(v, "zz"));
    static const char *const bad[] = {"{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\ud800\"", "\"a\nb\"", "nul",
                                      "{} x", "\"\xff\"", "-"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cdch_jv *out;
        cdch_err err;
        ck_assert_msg(cdch_jv_parse(bad[i], strlen(bad[i]), &a, &out, &err) != 0, "accepted %s", bad[i]);
        ck_assert_msg(strstr(err.msg, "column ") == err.msg, "message: %s", err.msg);
    }
    cdch_arena_free(&a);
}
END_TEST

START_TEST(change_lines)
{
    cdch_change_list *l = lines(E3 "\n"
                                   "{\"kind\":\"ready\"}\n"
                                   "\n"
                                   "INFO starting\n"
                                   "{\"kind\":\"error\",\"message\":\"type 40\"}\n"
                                   "{\"op\":\"upsert\",\"db\":\"t\",\"table\":\"o\"}\n",
                                false);
    ck_assert_uint_eq(l->n, 1);
    const cdch_change *c = &l->items[0];
    ck_assert_int_eq(c->op, CDCH_OP_INSERT);
    ck_assert_str_eq(c->db, "t");
    ck_assert_str_eq(c->table, "o");
    ck_assert(!cdch_change_has_before(c));
    ck_assert(cdch_change_has_after(c));
    cdch_arena ia = CDCH_ARENA_INIT;
    cdch_change_images im;
    cdch_change_images_get(l, c, NULL, &ia, &im);
    ck_assert_ptr_null(im.before);
    ck_assert_int_eq(im.after->type, CDCH_JV_OBJECT);
    cdch_arena_free(&ia);
    ck_assert_str_eq(c->gtid, G ":3");
    ck_assert_str_eq(c->pos_file, "b.000001");
    ck_assert_int_eq(c->pos, 3000);
    ck_assert_uint_eq(c->txn, 3);
    ck_assert_int_eq(c->compressed, 1);
    ck_assert_uint_eq(l->nctl, 2);
    ck_assert_int_eq(l->ctl[0].kind, CDCH_CTL_READY);
    ck_assert_int_eq(l->ctl[1].kind, CDCH_CTL_ERROR);
    ck_assert_str_eq(l->ctl[1].message, "type 40");
    ck_assert_uint_eq(l->ctl[1].at, 1);
    ck_assert_uint_eq(l->invalid, 2);
    ck_assert_uint_eq(l->first_invalid_line, 4);
    ck_assert_str_eq(l->first_invalid, "line 4: not a JSON object: INFO starting");
    cdch_changes_free(l);

    /* strict (expected.jsonl): the first bad line is an error naming it */
    cdch_change_list *s = cdch_changes_new();
    cdch_err err;
    ck_assert_int_eq(cdch_changes_add_line(s, E1, strlen(E1), true, &err), 0);
    const char *bad = "{\"op\":\"insert\",\"db\":1,\"table\":\"o\"}";
    ck_assert_int_eq(cdch_changes_add_line(s, bad, strlen(bad), true, &err), -1);
    ck_assert_str_eq(err.msg, "line 2: \"db\" and \"table\" must be strings");
    cdch_changes_free(s);
}
END_TEST

/* ---- values ------------------------------------------------------------------ */

START_TEST(values_by_type)
{
    /* integers: exact, numbers or strings, beyond 64 bits */
    ck_assert(eq(CDCH_CMP_INT, -1, "18446744073709551615", "\"18446744073709551615\""));
    ck_assert(eq(CDCH_CMP_INT, -1, "0", "-0"));
    ck_assert(!eq(CDCH_CMP_INT, -1, "9223372036854775807", "9223372036854775806"));
    /* by exact value (issue 28): an exponent as Jackson writes a BigDecimal, a zero fraction; never a
     * rounded double, never a fraction */
    ck_assert(eq(CDCH_CMP_INT, -1, "7", "7.0"));
    ck_assert(eq(CDCH_CMP_INT, -1, "10", "1E+1"));
    ck_assert(eq(CDCH_CMP_INT, -1, "10", "\"1E+1\""));
    ck_assert(eq(CDCH_CMP_INT, -1, "10", "100e-1"));
    ck_assert(eq(CDCH_CMP_INT, -1, "-250", "-2.5E2"));
    ck_assert(eq(CDCH_CMP_INT, -1, "0", "0E+3"));
    ck_assert(eq(CDCH_CMP_INT, -1, "9007199254740993", "9.007199254740993E+15"));
    ck_assert(eq(CDCH_CMP_INT, -1, "18446744073709551615", "1.8446744073709551615E19"));
    ck_assert(!eq(CDCH_CMP_INT, -1, "9007199254740993", "9.007199254740992E+15"));
    ck_assert(!eq(CDCH_CMP_INT, -1, "18446744073709551615", "1.8446744073709552E19"));
    ck_assert(!eq(CDCH_CMP_INT, -1, "7", "7.5"));
    ck_assert(!eq(CDCH_CMP_INT, -1, "1", "1E-1"));
    ck_assert(!eq(CDCH_CMP_INT, -1, "10", "\"1E+1x\""));
    ck_assert(!eq(CDCH_CMP_INT, -1, "10", "\"+10\""));
    ck_assert(!eq(CDCH_CMP_INT, -1, "10", "\"10.\""));
    ck_assert(!eq(CDCH_CMP_INT, -1, "0", "\".0\""));
    ck_assert(!eq(CDCH_CMP_INT, -1, "10", "1e999"));
    /* decimals: trailing zeros as the scale says, exponents */
    ck_assert(eq(CDCH_CMP_DECIMAL, 2, "\"12.50\"", "\"12.5\""));
    ck_assert(eq(CDCH_CMP_DECIMAL, 2, "\"12.50\"", "12.500"));
    ck_assert(eq(CDCH_CMP_DECIMAL, 2, "\"12.50\"", "\"1.25E+1\""));
    ck_assert(eq(CDCH_CMP_DECIMAL, 2, "\"0.00\"", "\"-0\""));
    ck_assert(eq(CDCH_CMP_DECIMAL, 30, "\"0.000000000000000000000000000001\"", "\"1E-30\""));
    ck_assert(!eq(CDCH_CMP_DECIMAL, 2, "\"12.50\"", "\"12.51\""));
    ck_assert(!eq(CDCH_CMP_DECIMAL, 2, "\"12.50\"", "\"12.501\""));
    ck_assert(!eq(CDCH_CMP_DECIMAL, 0, "\"99999999999999999999\"", "\"99999999999999999998\""));
    /* FLOAT at float precision, DOUBLE at 1e-15 */
    ck_assert(eq(CDCH_CMP_FLOAT, -1, "3.4028235e+38", "3.4028234663852886e+38"));
    ck_assert(eq(CDCH_CMP_FLOAT, -1, "0.1", "0.10000000149011612"));
    ck_assert(!eq(CDCH_CMP_FLOAT, -1, "1.5", "1.5001"));
    ck_assert(eq(CDCH_CMP_DOUBLE, -1, "0.1", "0.10000000000000001"));
    ck_assert(!eq(CDCH_CMP_DOUBLE, -1, "0.1", "0.10000000149011612"));
    ck_assert(!eq(CDCH_CMP_DOUBLE, -1, "1", "null"));
    /* temporals: fraction digits normalised; TIME hour zeros */
    ck_assert(eq(CDCH_CMP_TEMPORAL, -1, "\"2024-01-01 09:00:00.100\"", "\"2024-01-01 09:00:00.1\""));
    ck_assert(eq(CDCH_CMP_TEMPORAL, -1, "\"2024-01-01 09:00:00\"", "\"2024-01-01 09:00:00.000000\""));
    ck_assert(!eq(CDCH_CMP_TEMPORAL, -1, "\"2024-01-01 09:00:00\"", "\"2024-01-01 09:00:01\""));
    ck_assert(eq(CDCH_CMP_TIME, -1, "\"-8:00:00\"", "\"-08:00:00.0\""));
    ck_assert(eq(CDCH_CMP_TIME, -1, "\"-838:59:59\"", "\"-838:59:59\""));
    /* JSON structurally */
    ck_assert(eq(CDCH_CMP_JSON, -1, "{\"a\":1,\"b\":[1,{\"c\":null}]}", "{\"b\":[1,{\"c\":null}],\"a\":1.0}"));
    ck_assert(!eq(CDCH_CMP_JSON, -1, "{\"a\":1,\"b\":[1,2]}", "{\"a\":1,\"b\":[2,1]}"));
    ck_assert(!eq(CDCH_CMP_JSON, -1, "{\"a\":1}", "\"{\\\"a\\\":1}\""));
    /* SET as a set, GEOMETRY hex case, binary exact */
    ck_assert(eq(CDCH_CMP_SET, -1, "[\"a\",\"c\"]", "[\"c\",\"a\"]"));
    ck_assert(!eq(CDCH_CMP_SET, -1, "[\"a\",\"c\"]", "[\"a\"]"));
    ck_assert(eq(CDCH_CMP_GEOMETRY, -1, "{\"srid\":0,\"wkb\":\"01ab\"}", "{\"wkb\":\"01AB\",\"srid\":0}"));
    ck_assert(!eq(CDCH_CMP_GEOMETRY, -1, "{\"srid\":0,\"wkb\":\"01ab\"}", "{\"srid\":4326,\"wkb\":\"01ab\"}"));
    ck_assert(eq(CDCH_CMP_EXACT, -1, "{\"base64\":\"AP8=\"}", "{\"base64\":\"AP8=\"}"));
    ck_assert(!eq(CDCH_CMP_EXACT, -1, "{\"base64\":\"AP8=\"}", "\"\\u0000\\u00ff\""));
    ck_assert(eq(CDCH_CMP_EXACT, -1, "\"\\u00fc\"", "\"\xc3\xbc\""));
    ck_assert(eq(CDCH_CMP_VECTOR, -1, "[1.5,2]", "[1.5000000001,2.0]"));
    /* NULL only equals NULL; absent only absent */
    ck_assert(!eq(CDCH_CMP_EXACT, -1, "null", "\"\""));
    ck_assert(cdch_diff_value_equal(CDCH_CMP_EXACT, -1, NULL, NULL));
}
END_TEST

/* ---- alignment --------------------------------------------------------------- */

START_TEST(in_order_pass)
{
    /* "@N" names, reordered members, decimal and float spellings, a GTID set */
    cdch_change_list *obs;
    cdch_diff *d = diff_of(O1 "\n" O2 "\n"
                              "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"@3\":3.5000001,\"@1\":3,\"@2\":\"3.0\"},\"gtid\":\"" G ":1-3\",\"pos\":{\"file\":\"b.000001\",\"pos\":2000}}\n" O4
                              "\n" O5 "\n",
                           &obs);
    ck_assert_uint_eq(d->matched_rows, 5);
    ck_assert_uint_eq(d->complete_txns, 5);
    ck_assert_uint_eq(d->nmissing + d->mismatch_total + d->dup_total + d->reorder_total + d->ckpt_total, 0);
    ck_assert_uint_eq(d->ckpt_rows_checked, 5);
    char s[1024];
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_PASS);
    ck_assert_str_eq(s, "5 rows in 5 transactions; checkpoints valid");
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

START_TEST(skip_is_a_hole)
{
    cdch_change_list *obs;
    cdch_diff *d = diff_of(O1 "\n" O2 "\n" O5 "\n", &obs);
    ck_assert_uint_eq(d->nmissing, 2);
    ck_assert_uint_eq(d->holes, 2);
    ck_assert_uint_eq(d->tail, 0);
    ck_assert_uint_eq(d->missing[0].txn, 3);
    ck_assert(d->missing[0].compressed);
    ck_assert(d->missing[0].hole);
    ck_assert_ptr_null(d->missing[0].reported);
    ck_assert_uint_eq(d->missing[1].txn, 4);
    ck_assert_uint_eq(d->last_txn_seen, 5);
    char s[1024];
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_SILENT_SKIP);
    ck_assert_str_eq(s, "2 transaction(s) missing while later ones arrived: txn 3*, 4* (2 of 2 compressed, * = "
                        "compressed); first: txn 3 (gtid " G ":3, ending at b.000001:3000, compressed, 1 row)");
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* one error line announces one of the two: the other loss is silent */
    d = diff_of(O1 "\n" O2 "\n{\"kind\":\"error\",\"message\":\"unknown event 40\"}\n" O5 "\n", &obs);
    ck_assert_str_eq(d->missing[0].reported, "unknown event 40");
    ck_assert_ptr_null(d->missing[1].reported);
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_SILENT_SKIP);
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* the same gap announced by an error line for each transaction: announced-skip (rows lost, and said) */
    d = diff_of(O1 "\n" O2 "\n{\"kind\":\"error\",\"message\":\"unknown event 40\"}\n"
                "{\"kind\":\"error\",\"message\":\"unknown event 40 again\"}\n" O5 "\n",
                &obs);
    ck_assert_str_eq(d->missing[0].reported, "unknown event 40");
    ck_assert_str_eq(d->missing[1].reported, "unknown event 40 again");
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_ANNOUNCED_SKIP);
    ck_assert_str_eq(s, "2 transaction(s) missing while later ones arrived, announced by the consumer: txn 3*, 4* "
                        "(2 of 2 compressed, * = compressed); first: txn 3 (gtid " G ":3, ending at b.000001:3000, "
                        "compressed, 1 row); consumer said: unknown event 40");
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

START_TEST(prefix_verdicts)
{
    cdch_change_list *obs;
    cdch_diff *d = diff_of(O1 "\n" O2 "\n", &obs);
    ck_assert_uint_eq(d->tail, 3);
    ck_assert_uint_eq(d->holes, 0);
    char s[1024];
    cdch_outcome died = outcome(CDCH_STOP_EXITED, 1);
    died.stderr_tail = "starting\nERROR: unknown event type 40\n";
    ck_assert_int_eq(judge(d, obs, died, s, sizeof s), CDCH_VERDICT_PARSE_FAILURE);
    ck_assert_str_eq(s, "stopped before txn 3 (gtid " G ":3, ending at b.000001:3000, compressed, 1 row): adapter "
                        "exited with status 1 (stderr: ERROR: unknown event type 40)");
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_TIMEOUT, -1), s, sizeof s), CDCH_VERDICT_HANG);
    ck_assert_str_eq(s, "no progress and no exit before the 60 s timeout; stuck before txn 3 (gtid " G
                        ":3, ending at b.000001:3000, compressed, 1 row)");
    cdch_outcome files = outcome(CDCH_STOP_EXITED, 0);
    files.files_source = true;
    ck_assert_int_eq(judge(d, obs, files, NULL, 0), CDCH_VERDICT_SILENT_SKIP);
    cdch_outcome idle = outcome(CDCH_STOP_IDLE_AFTER_STREAM, -1);
    idle.stream_delivered = true;
    ck_assert_int_eq(judge(d, obs, idle, NULL, 0), CDCH_VERDICT_SILENT_SKIP);
    cdch_outcome he = outcome(CDCH_STOP_NONE, -1);
    he.harness_error = "setup of x@1 failed";
    ck_assert_int_eq(judge(d, obs, he, s, sizeof s), CDCH_VERDICT_HARNESS_ERROR);
    ck_assert_str_eq(s, "setup of x@1 failed");
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* nothing at all, then an error line */
    d = diff_of("{\"kind\":\"error\",\"message\":\"boom\"}\n", &obs);
    ck_assert_uint_eq(d->tail, 5);
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_PARSE_FAILURE);
    ck_assert_str_eq(s, "stopped before txn 1 (gtid " G ":1, ending at b.000001:1000, uncompressed, 1 row): consumer error: boom");
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

/* Debezium 2.4-3.3 on a payload it cannot decode (consumers/debezium/manifest.yaml
 * failure-drain-race): it logs where it failed ("Error during binlog processing ... near position"),
 * then what failed ("Producer failure" with the exception naming TRANSACTION_PAYLOAD), and the rows
 * of the transactions after the failure are delivered or not by a race inside the library. Nothing
 * delivered after it: it stopped there (a retrying connector restarts from its offsets and fails
 * on the same event: stalled, nothing skipped), parse-failure, since its first line says where it
 * failed, not that it skips the event (a library that says it skips, "Unknown event type 40" and
 * reads on, is announced-skip); the later rows delivered: the holes it announced, announced-skip.
 * The race decides between the two, so its cells record both (parse-failure|announced-skip). */
#define DBZ_WHERE "{\"kind\":\"error\",\"message\":\"ERROR Error during binlog processing, near position = b.000001/2000\"}\n"
#define DBZ_WHAT "{\"kind\":\"error\",\"message\":\"ERROR Producer failure / DebeziumException: Failed to deserialize data of EventHeaderV4{eventType=TRANSACTION_PAYLOAD}\"}\n"
START_TEST(stopped_or_went_on_after_a_named_failure)
{
    cdch_change_list *obs;
    char s[1024];
    cdch_outcome idle = outcome(CDCH_STOP_IDLE_AFTER_STREAM, -1);
    idle.stream_delivered = true;
    /* no row after the failure: stopped where its first line says it failed */
    cdch_diff *d = diff_of(O1 "\n" O2 "\n" DBZ_WHERE DBZ_WHAT, &obs);
    ck_assert_uint_eq(d->tail, 3);
    ck_assert_int_eq(judge(d, obs, idle, s, sizeof s), CDCH_VERDICT_PARSE_FAILURE);
    ck_assert_ptr_nonnull(strstr(s, "consumer error: ERROR Error during binlog processing"));
    /* a first line that says it skips the event (and it read on): announced-skip */
    cdch_diff_free(d);
    cdch_changes_free(obs);
    d = diff_of(O1 "\n" O2 "\n" DBZ_WHAT DBZ_WHERE, &obs);
    ck_assert_int_eq(judge(d, obs, idle, s, sizeof s), CDCH_VERDICT_ANNOUNCED_SKIP);
    ck_assert_ptr_nonnull(strstr(s, "received the whole stream and went idle without txn 3*, 4*, 5"));
    /* the same lines from a consumer that exited: it stopped (parse-failure), as before */
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_EXITED, 1), NULL, 0), CDCH_VERDICT_PARSE_FAILURE);
    cdch_diff_free(d);
    cdch_changes_free(obs);
    /* the later transaction delivered: holes 3 and 4, each announced by a line before it */
    d = diff_of(O1 "\n" O2 "\n" DBZ_WHERE DBZ_WHAT O5 "\n", &obs);
    ck_assert_uint_eq(d->holes, 2);
    ck_assert_int_eq(judge(d, obs, idle, NULL, 0), CDCH_VERDICT_ANNOUNCED_SKIP);
    cdch_diff_free(d);
    cdch_changes_free(obs);
    /* a line that names no event leaves a stopped consumer a parse-failure */
    d = diff_of(O1 "\n" O2 "\n" DBZ_WHERE, &obs);
    ck_assert_int_eq(judge(d, obs, idle, NULL, 0), CDCH_VERDICT_PARSE_FAILURE);
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

START_TEST(duplicate_reorder_mismatch)
{
    cdch_change_list *obs;
    char s[1024];
    cdch_diff *d = diff_of(O1 "\n" O2 "\n" O2 "\n" O3 "\n" O4 "\n" O5 "\n", &obs);
    ck_assert_uint_eq(d->dup_total, 1);
    ck_assert_uint_eq(d->dup[0].txn, 2);
    ck_assert_uint_eq(d->dup[0].obs_line, 3);
    ck_assert_uint_eq(d->dup[0].first_obs_line, 2);
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_DUPLICATE);
    ck_assert_str_eq(s, "1 duplicate row(s); first: txn 2 again at observed line 3");
    cdch_diff_free(d);
    cdch_changes_free(obs);

    d = diff_of(O1 "\n" O3 "\n" O2 "\n" O4 "\n" O5 "\n", &obs);
    ck_assert_uint_eq(d->nmissing, 0);
    ck_assert_uint_eq(d->reorder_total, 1);
    ck_assert_uint_eq(d->reorder[0].txn, 2);
    ck_assert_uint_eq(d->reorder[0].after_txn, 3);
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_REORDER);
    ck_assert_str_eq(s, "1 row(s) out of order; first: txn 2 arrived after txn 3 (observed line 3)");
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* a changed decimal, a float beyond float precision, an extra column */
    d = diff_of(O1 "\n" O2 "\n" O3 "\n"
                   "{\"op\":\"update\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"after\":{\"id\":1,\"v\":\"9.01\",\"f\":1.6,\"x\":0}}\n" O5
                   "\n",
                &obs);
    ck_assert_uint_eq(d->nmissing, 0);
    ck_assert_uint_eq(d->mismatch_total, 3);
    ck_assert_str_eq(d->mismatch[0].what, "value differs");
    ck_assert_str_eq(d->mismatch[0].image, "after");
    ck_assert_str_eq(d->mismatch[0].column, "v");
    ck_assert_str_eq(d->mismatch[0].expected, "\"9.10\"");
    ck_assert_str_eq(d->mismatch[0].observed, "\"9.01\"");
    ck_assert_uint_eq(d->mismatch[0].txn, 4);
    ck_assert(d->mismatch[0].compressed);
    ck_assert_str_eq(d->mismatch[1].column, "f");
    ck_assert_str_eq(d->mismatch[2].what, "unexpected column");
    ck_assert_str_eq(d->mismatch[2].column, "x");
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_MISMATCH);
    ck_assert_str_eq(s, "3 difference(s); first: txn 4 (compressed) after.v: expected \"9.10\", observed \"9.01\"");
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* an event nobody expected */
    d = diff_of(O1 "\n{\"op\":\"insert\",\"db\":\"x\",\"table\":\"y\",\"before\":null,\"after\":{\"a\":1}}\n" O2 "\n" O3 "\n" O4 "\n" O5 "\n", &obs);
    ck_assert_uint_eq(d->mismatch_total, 1);
    ck_assert_str_eq(d->mismatch[0].what, "unexpected event");
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), NULL, 0), CDCH_VERDICT_MISMATCH);
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

START_TEST(checkpoints)
{
    cdch_change_list *obs;
    char s[1024];
    /* position 0 for compressed rows */
    cdch_diff *d = diff_of(O1 "\n" O2 "\n"
                              "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":3,\"v\":\"3.00\",\"f\":3.5},\"pos\":{\"file\":\"b.000001\",\"pos\":0}}\n" O4
                              "\n" O5 "\n",
                           &obs);
    ck_assert_uint_eq(d->ckpt_total, 1);
    ck_assert_uint_eq(d->ckpt[0].txn, 3);
    ck_assert(d->ckpt[0].compressed);
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_BAD_CHECKPOINT);
    ck_assert_str_eq(s, "rows fine; 1 row(s) with a bad checkpoint; first: txn 3 (compressed): reported pos "
                        "b.000001:0 is outside txn 3 (b.000001:2000..3000)");
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* stuck at the previous transaction's position: not past it */
    d = diff_of(O1 "\n" O2 "\n" O3 "\n"
                   "{\"op\":\"update\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"after\":{\"id\":1,\"v\":\"9.10\",\"f\":1.5},\"pos\":{\"file\":\"b.000001\",\"pos\":2500}}\n" O5
                   "\n",
                &obs);
    ck_assert_uint_eq(d->ckpt_total, 1);
    ck_assert_uint_eq(d->ckpt[0].txn, 4);
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* a GTID set that never advanced; a wrong single GTID */
    d = diff_of(O1 "\n" O2 "\n"
                   "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":3,\"v\":\"3.00\",\"f\":3.5},\"gtid\":\"" G ":1-1\"}\n"
                   "{\"op\":\"update\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"after\":{\"id\":1,\"v\":\"9.10\",\"f\":1.5},\"gtid\":\"" G ":3\"}\n" O5
                   "\n",
                &obs);
    ck_assert_uint_eq(d->ckpt_total, 2);
    ck_assert_uint_eq(d->ckpt[0].txn, 3);
    ck_assert_str_eq(d->ckpt[0].what, "reported gtid set '" G ":1-1' is not one to resume from after txn 3 (" G
                                      ":3): it does not end there; a restart from it replays or skips transactions");
    ck_assert_uint_eq(d->ckpt[1].txn, 4);
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* GTID sets (without the stream's index: the transaction's server as one interval ending at its GNO
     * or the one before): through txn 3, through txn 2, and one with a hole (txn 3 never included) */
    d = diff_of(O1 "\n" O2 "\n"
                "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":3,\"v\":\"3.00\",\"f\":3.5},\"gtid\":\"" G ":1-3\"}\n"
                "{\"op\":\"update\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"after\":{\"id\":1,\"v\":\"9.10\",\"f\":1.5},\"gtid\":\"" G ":1-3\"}\n"
                "{\"op\":\"delete\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":2,\"v\":\"2.00\",\"f\":2.5},\"after\":null,\"gtid\":\"" G ":1-2:5\"}\n",
                &obs);
    ck_assert_uint_eq(d->ckpt_rows_checked, 5);
    ck_assert_uint_eq(d->ckpt_total, 1);
    ck_assert_uint_eq(d->ckpt[0].txn, 5);
    ck_assert_str_eq(d->ckpt[0].what, "reported gtid set '" G ":1-2:5' is not one to resume from after txn 5 (" G
                                      ":5): it has a hole; a restart from it replays or skips transactions");
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), NULL, 0), CDCH_VERDICT_BAD_CHECKPOINT);
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

/* Two tables alternating inside one transaction (t.a(id, name), t.b(id, qty)), then a transaction of
 * its own. */
#define AB(op, tb, img, g) "{\"op\":\"" op "\",\"db\":\"t\",\"table\":\"" tb "\",\"before\":null,\"after\":" img ",\"gtid\":\"" G ":" g "\"}\n"
#define ABE(tb, img, g, txn) "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"" tb "\",\"before\":null,\"after\":" img ",\"gtid\":\"" G ":" g "\",\"txn\":" txn ",\"compressed\":true}\n"
#define IA1 "{\"id\":1,\"name\":\"x\"}"
#define IB1 "{\"id\":1,\"qty\":5}"
#define IA2 "{\"id\":2,\"name\":\"y\"}"
#define IB2 "{\"id\":2,\"qty\":6}"
#define IA3 "{\"id\":3,\"name\":\"z\"}"
#define IB3 "{\"id\":1,\"qty\":7}"

static cdch_diff *ab_diff(const char *observed, cdch_change_list **obs)
{
    const char *na[] = {"id", "name"}, *nb[] = {"id", "qty"};
    cdch_cmp_kind ka[] = {CDCH_CMP_INT, CDCH_CMP_EXACT}, kb[] = {CDCH_CMP_INT, CDCH_CMP_INT};
    cdch_diff_schema *sch = cdch_diff_schema_new();
    cdch_diff_schema_add_table(sch, "t", "a", 2, na, ka, NULL);
    cdch_diff_schema_add_table(sch, "t", "b", 2, nb, kb, NULL);
    cdch_change_list *e = lines(ABE("a", IA1, "1", "1") ABE("b", IB1, "1", "1") ABE("a", IA2, "1", "1")
                                ABE("b", IB2, "1", "1") ABE("a", IA3, "2", "2") ABE("b", IB3, "3", "3"), true);
    *obs = lines(observed, false);
    cdch_diff *d = cdch_diff_run(e, *obs, sch, NULL, 0);
    cdch_changes_free(e);
    cdch_diff_schema_free(sch);
    return d;
}

/* Rows are paired where they stand (issue 28): a row named after the other table of its transaction
 * is a mismatch of that row, and nothing else happened */
START_TEST(paired_where_they_stand)
{
    cdch_change_list *obs;
    char s[1024];
    /* every row of txn 1 after the previous TABLE_MAP's table: the first right, the others swapped */
    cdch_diff *d = ab_diff(AB("insert", "a", IA1, "1") AB("insert", "a", IB1, "1") AB("insert", "b", IA2, "1")
                           AB("insert", "a", IB2, "1") AB("insert", "a", IA3, "2") AB("insert", "b", IB3, "3"),
                           &obs);
    ck_assert_uint_eq(d->nmissing, 0);
    ck_assert_uint_eq(d->dup_total, 0);
    ck_assert_uint_eq(d->reorder_total, 0);
    ck_assert_uint_eq(d->ckpt_total, 0);
    ck_assert_uint_eq(d->matched_rows, 6);
    ck_assert_uint_eq(d->mismatch_total, 3); /* the table of 3 rows: their values are right */
    for (size_t i = 0; i < d->nmismatch; i++)
        ck_assert_uint_eq(d->mismatch[i].txn, 1);
    ck_assert_str_eq(d->mismatch[0].what, "table differs");
    ck_assert_uint_eq(d->mismatch[0].obs_line, 2);
    ck_assert_uint_eq(d->mismatch[0].exp_line, 2);
    cdch_judgement j;
    cdch_outcome oc = outcome(CDCH_STOP_DONE, -1);
    cdch_verdict_judge(d, obs, &oc, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_MISMATCH);
    ck_assert_uint_eq(j.classes, CDCH_CLASS(CDCH_VERDICT_MISMATCH));
    cdch_judgement_free(&j);
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* a wrong value that makes the row equal, exactly, to a row of a later transaction (b's id 1 with
     * txn 3's qty): the row's own GTID says where it stands, so it is that row's mismatch, not a jump to
     * txn 3 (which would make the rows in between late, and txn 3's own row a duplicate) */
    d = ab_diff(AB("insert", "a", IA1, "1") AB("insert", "b", IB3, "1") AB("insert", "a", IA2, "1")
                AB("insert", "b", IB2, "1") AB("insert", "a", IA3, "2") AB("insert", "b", IB3, "3"),
                &obs);
    ck_assert_uint_eq(d->nmissing + d->dup_total + d->reorder_total + d->ckpt_total, 0);
    ck_assert_uint_eq(d->mismatch_total, 1);
    ck_assert_str_eq(d->mismatch[0].column, "qty");
    ck_assert_str_eq(d->mismatch[0].expected, "5");
    ck_assert_str_eq(d->mismatch[0].observed, "7");
    ck_assert_uint_eq(d->mismatch[0].txn, 1);
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_MISMATCH);
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* a row dropped and another mislabelled in one transaction: the mislabelled one is a mismatch where
     * it stands, the dropped one the only row missing */
    d = ab_diff(AB("insert", "a", IA1, "1") AB("insert", "a", IB1, "1") AB("insert", "b", IB2, "1")
                AB("insert", "a", IA3, "2") AB("insert", "b", IB3, "3"),
                &obs);
    ck_assert_uint_eq(d->dup_total + d->reorder_total + d->ckpt_total, 0);
    ck_assert_uint_eq(d->nmissing, 1);
    ck_assert_uint_eq(d->missing[0].txn, 1);
    ck_assert_uint_eq(d->missing[0].rows_missing, 1);
    ck_assert_uint_eq(d->mismatch_total, 1);
    ck_assert_str_eq(d->mismatch[0].what, "table differs");
    ck_assert_uint_eq(d->mismatch[0].exp_line, 2);
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* a value off (an ENUM label, say) in a row whose identity recurs later: a mismatch, no reorder */
    d = ab_diff(AB("insert", "a", IA1, "1") AB("insert", "b", "{\"id\":1,\"qty\":55}", "1") AB("insert", "a", IA2, "1")
                AB("insert", "b", IB2, "1") AB("insert", "a", IA3, "2") AB("insert", "b", IB3, "3"),
                &obs);
    ck_assert_uint_eq(d->nmissing + d->dup_total + d->reorder_total + d->ckpt_total, 0);
    ck_assert_uint_eq(d->mismatch_total, 1);
    ck_assert_str_eq(d->mismatch[0].column, "qty");
    ck_assert_uint_eq(d->mismatch[0].exp_line, 2);
    cdch_diff_free(d);
    cdch_changes_free(obs);

    /* reorders are between transactions: txn 3 before txn 2 */
    d = ab_diff(AB("insert", "a", IA1, "1") AB("insert", "b", IB1, "1") AB("insert", "a", IA2, "1")
                AB("insert", "b", IB2, "1") AB("insert", "b", IB3, "3") AB("insert", "a", IA3, "2"),
                &obs);
    ck_assert_uint_eq(d->nmissing + d->dup_total + d->mismatch_total + d->ckpt_total, 0);
    ck_assert_uint_eq(d->reorder_total, 1);
    ck_assert_uint_eq(d->reorder[0].txn, 2);
    ck_assert_uint_eq(d->reorder[0].after_txn, 3);
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

START_TEST(verdict_names)
{
    for (int v = 0; v < CDCH_VERDICT_COUNT; v++) {
        cdch_verdict back;
        ck_assert_int_eq(cdch_verdict_parse(cdch_verdict_name((cdch_verdict)v), &back), 0);
        ck_assert_int_eq(back, v);
    }
    cdch_verdict x;
    ck_assert_int_eq(cdch_verdict_parse("fine", &x), -1);
    ck_assert(cdch_verdict_worse(CDCH_VERDICT_SILENT_SKIP, CDCH_VERDICT_PARSE_FAILURE));
    /* announced-skip: below silent-skip, above mismatch (and so above every loud stop) */
    ck_assert_str_eq(cdch_verdict_name(CDCH_VERDICT_ANNOUNCED_SKIP), "announced-skip");
    ck_assert(cdch_verdict_worse(CDCH_VERDICT_SILENT_SKIP, CDCH_VERDICT_ANNOUNCED_SKIP));
    ck_assert(cdch_verdict_worse(CDCH_VERDICT_ANNOUNCED_SKIP, CDCH_VERDICT_MISMATCH));
    ck_assert(cdch_verdict_worse(CDCH_VERDICT_ANNOUNCED_SKIP, CDCH_VERDICT_PARSE_FAILURE));
    ck_assert(cdch_verdict_regression(CDCH_VERDICT_ANNOUNCED_SKIP, CDCH_CLASS(CDCH_VERDICT_ANNOUNCED_SKIP),
                                      CDCH_VERDICT_PASS, 0));
    ck_assert(!cdch_verdict_worse(CDCH_VERDICT_PARSE_FAILURE, CDCH_VERDICT_SILENT_SKIP));
    ck_assert(!cdch_verdict_worse(CDCH_VERDICT_PASS, CDCH_VERDICT_MISMATCH));
    ck_assert(cdch_verdict_worse(CDCH_VERDICT_HARNESS_ERROR, CDCH_VERDICT_SILENT_SKIP));
    ck_assert(!cdch_verdict_worse(CDCH_VERDICT_HARNESS_ERROR, CDCH_VERDICT_HARNESS_ERROR));
}
END_TEST


/* ENUM indexes and SET bitmaps from a consumer that has no member names are
 * accepted when they denote the expected members, and only then. */
START_TEST(enum_set_numbers)
{
    static const char yaml[] =
        "name: es\ndescription: es\n"
        "tables:\n"
        "  - name: d.t\n"
        "    columns:\n"
        "      - {name: id, type: int, primary_key: true}\n"
        "      - {name: e, type: \"enum('new','paid')\"}\n"
        "      - {name: s, type: \"set('a','b','c')\"}\n"
        "transactions:\n"
        "  - insert: {table: d.t, rows: [{id: 1, e: paid, s: [a, c]}]}\n";
    cdch_err err;
    cdch_scenario *sc = cdch_scenario_load_mem(yaml, sizeof yaml - 1, "es.yaml", &err);
    ck_assert_msg(sc != NULL, "%s", err.msg);
    cdch_diff_schema *s = cdch_diff_schema_from_scenario(sc);
    cdch_change_list *e = lines("{\"op\":\"insert\",\"db\":\"d\",\"table\":\"t\",\"before\":null,"
                                "\"after\":{\"id\":1,\"e\":\"paid\",\"s\":[\"a\",\"c\"]},\"txn\":1}\n", true);
    static const char *const good[] = {"{\"e\":2,\"s\":5}", "{\"e\":\"paid\",\"s\":\"5\"}"};
    static const char *const bad[] = {"{\"e\":1,\"s\":5}", "{\"e\":2,\"s\":4}", "{\"e\":3,\"s\":5}", "{\"e\":2,\"s\":13}"};
    for (int k = 0; k < 6; k++) {
        const char *img = k < 2 ? good[k] : bad[k - 2];
        char line[512];
        snprintf(line, sizeof line,
                 "{\"op\":\"insert\",\"db\":\"d\",\"table\":\"t\",\"before\":null,\"after\":{\"id\":1,%s}\n", img + 1);
        cdch_change_list *o = lines(line, false);
        cdch_diff *d = cdch_diff_run(e, o, s, NULL, 0);
        ck_assert_msg((d->mismatch_total == 0) == (k < 2), "image %s: %zu mismatches", img, d->mismatch_total);
        cdch_diff_free(d);
        cdch_changes_free(o);
    }
    cdch_changes_free(e);
    cdch_diff_schema_free(s);
    cdch_scenario_free(sc);
}
END_TEST


/* ---- issue 11: verdicts people can act on ---------------------------------------- */

START_TEST(non_finite_never_equal)
{
    ck_assert(eq(CDCH_CMP_FLOAT, -1, "1.5", "\"1.5\""));         /* a number as a string is fine */
    ck_assert(eq(CDCH_CMP_DOUBLE, -1, "2.25", "\"2.25e0\""));
    ck_assert(!eq(CDCH_CMP_FLOAT, -1, "1.5", "1e999"));          /* overflows to inf */
    ck_assert(!eq(CDCH_CMP_DOUBLE, -1, "1.5", "-1e999"));
    ck_assert(!eq(CDCH_CMP_DOUBLE, -1, "1e308", "1e999"));
    ck_assert(!eq(CDCH_CMP_FLOAT, -1, "1.5", "\"Infinity\""));
    ck_assert(!eq(CDCH_CMP_FLOAT, -1, "1.5", "\"-Infinity\""));
    ck_assert(!eq(CDCH_CMP_DOUBLE, -1, "1.5", "\"NaN\""));
    ck_assert(!eq(CDCH_CMP_DOUBLE, -1, "1.5", "\"inf\""));
    ck_assert(!eq(CDCH_CMP_DOUBLE, -1, "16", "\"0x10\""));
    ck_assert(!eq(CDCH_CMP_JSON, -1, "{\"a\":1.5}", "{\"a\":1e999}"));
    ck_assert(!eq(CDCH_CMP_JSON, -1, "[1.5]", "[1e999]"));
    ck_assert(!eq(CDCH_CMP_VECTOR, -1, "[1.5,2]", "[1e999,2]"));
    ck_assert(!eq(CDCH_CMP_GENERIC, -1, "1.5", "1e999"));
    ck_assert(!eq(CDCH_CMP_DECIMAL, 2, "1.50", "\"Infinity\""));
}
END_TEST

START_TEST(binary_fixed_padding)
{
    /* BINARY(4) holding "ab": the binlog strips the zeros, MySQL (and Debezium, python-mysql-replication 0.45)
     * pad them back: both spellings are the value, nothing else is */
    ck_assert(eq(CDCH_CMP_BINARY_FIXED, 4, "{\"base64\":\"YWI=\"}", "{\"base64\":\"YWI=\"}"));
    ck_assert(eq(CDCH_CMP_BINARY_FIXED, 4, "{\"base64\":\"YWI=\"}", "{\"base64\":\"YWIAAA==\"}"));
    ck_assert(!eq(CDCH_CMP_BINARY_FIXED, 4, "{\"base64\":\"YWI=\"}", "{\"base64\":\"YWIA\"}"));      /* 3 bytes */
    ck_assert(!eq(CDCH_CMP_BINARY_FIXED, 4, "{\"base64\":\"YWI=\"}", "{\"base64\":\"YWIAAAA=\"}")); /* 5 bytes */
    ck_assert(!eq(CDCH_CMP_BINARY_FIXED, 4, "{\"base64\":\"YWI=\"}", "{\"base64\":\"YWIAAQ==\"}")); /* ab\0\1 */
    ck_assert(!eq(CDCH_CMP_BINARY_FIXED, 4, "{\"base64\":\"YWI=\"}", "{\"base64\":\"YWM=\"}"));
    ck_assert(!eq(CDCH_CMP_EXACT, -1, "{\"base64\":\"YWI=\"}", "{\"base64\":\"YWIAAA==\"}"));  /* VARBINARY: exact */
}
END_TEST

START_TEST(wrong_op_db_table_is_mismatch)
{
    cdch_change_list *obs;
    char s[1024];
    /* the delete of txn 5 arrives as an update */
    cdch_diff *d = diff_of(O1 "\n" O2 "\n" O3 "\n" O4 "\n"
                           "{\"op\":\"update\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":2,\"v\":\"2.00\",\"f\":2.5},"
                           "\"after\":{\"id\":2,\"v\":\"2.00\",\"f\":2.5}}\n",
                           &obs);
    ck_assert_uint_eq(d->nmissing, 0);
    ck_assert_uint_eq(d->mismatch_total, 1);
    ck_assert_str_eq(d->mismatch[0].what, "op differs");
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_MISMATCH);
    ck_assert_str_eq(s, "1 difference(s); first: txn 5 op differs: expected \"delete\", observed \"update\"");
    cdch_diff_free(d);
    cdch_changes_free(obs);
    /* txn 3's insert under another table and another db */
    d = diff_of(O1 "\n" O2 "\n"
                "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"x\",\"before\":null,\"after\":{\"id\":3,\"v\":\"3.00\",\"f\":3.5}}\n"
                "{\"op\":\"update\",\"db\":\"u\",\"table\":\"o\",\"before\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},"
                "\"after\":{\"id\":1,\"v\":\"9.10\",\"f\":1.5}}\n" O5 "\n",
                &obs);
    ck_assert_uint_eq(d->nmissing, 0);
    ck_assert_uint_eq(d->mismatch_total, 2);
    ck_assert_str_eq(d->mismatch[0].what, "table differs");
    ck_assert_uint_eq(d->mismatch[0].txn, 3);
    ck_assert_str_eq(d->mismatch[1].what, "db differs");
    ck_assert_uint_eq(d->mismatch[1].txn, 4);
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_MISMATCH);
    cdch_diff_free(d);
    cdch_changes_free(obs);
    /* a wrong key is a mismatch of the cursor row (not a missing row) */
    d = diff_of(O1 "\n" O2 "\n"
                "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":33,\"v\":\"3.00\",\"f\":3.5}}\n" O4
                "\n" O5 "\n",
                &obs);
    ck_assert_uint_eq(d->nmissing, 0);
    ck_assert_uint_eq(d->mismatch_total, 1);
    ck_assert_str_eq(d->mismatch[0].column, "id");
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

START_TEST(errors_are_warnings_on_a_complete_stream)
{
    cdch_change_list *obs;
    char s[1024];
    cdch_diff *d = diff_of("{\"kind\":\"error\",\"message\":\"retrying after a timeout\"}\n" O1 "\n" O2 "\n" O3 "\n" O4
                           "\n" O5 "\n",
                           &obs);
    cdch_judgement j;
    cdch_outcome oc = outcome(CDCH_STOP_DONE, -1);
    cdch_verdict_judge(d, obs, &oc, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_PASS);
    ck_assert_uint_eq(j.classes, 0);
    ck_assert_uint_eq(j.nwarnings, 1);
    ck_assert_str_eq(cdch_buf_cstr(&j.warnings),
                     "consumer error (observed line 1, after 0 rows): retrying after a timeout\n");
    ck_assert_str_eq(j.summary, "5 rows in 5 transactions; checkpoints valid; with warnings (the consumer reported "
                                "errors but delivered every row)");
    cdch_judgement_free(&j);
    /* a failing exit after every row is a warning too */
    cdch_outcome ex = outcome(CDCH_STOP_EXITED, 3);
    ck_assert_int_eq(judge(d, obs, ex, s, sizeof s), CDCH_VERDICT_PASS);
    cdch_diff_free(d);
    cdch_changes_free(obs);
    /* one warning at the start, then two separate gaps: one error line announces one gap, the other is silent */
    d = diff_of("{\"kind\":\"error\",\"message\":\"binlog checksum query failed\"}\n" O1 "\n" O3 "\n" O5 "\n", &obs);
    ck_assert_uint_eq(d->holes, 2);
    ck_assert_str_eq(d->missing[0].reported, "binlog checksum query failed");
    ck_assert_ptr_null(d->missing[1].reported);
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_SILENT_SKIP);
    cdch_diff_free(d);
    cdch_changes_free(obs);
    /* error lines that overtake the rows (a logger faster than the records): each still announces one gap */
    d = diff_of("{\"kind\":\"error\",\"message\":\"payload 1\"}\n{\"kind\":\"error\",\"message\":\"payload 2\"}\n" O1
                "\n" O3 "\n" O5 "\n",
                &obs);
    ck_assert_str_eq(d->missing[0].reported, "payload 1");
    ck_assert_str_eq(d->missing[1].reported, "payload 2");
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_DONE, -1), s, sizeof s), CDCH_VERDICT_ANNOUNCED_SKIP);
    cdch_diff_free(d);
    cdch_changes_free(obs);
    /* an error before the first hole only: the second hole (after a row) is silent */
    d = diff_of(O1 "\n{\"kind\":\"error\",\"message\":\"event 40\"}\n" O3 "\n" O5 "\n", &obs);
    ck_assert_uint_eq(d->holes, 2);
    cdch_verdict_judge(d, obs, &oc, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_SILENT_SKIP);
    ck_assert_uint_eq(j.classes, CDCH_CLASS(CDCH_VERDICT_SILENT_SKIP) | CDCH_CLASS(CDCH_VERDICT_ANNOUNCED_SKIP));
    ck_assert_uint_eq(j.nwarnings, 0);
    cdch_judgement_free(&j);
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

START_TEST(worst_class_and_regression)
{
    cdch_change_list *obs;
    /* a wrong value in txn 1, then the consumer dies before txn 3 */
    cdch_diff *d = diff_of("{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":1,\"v\":\"1.01\",\"f\":1.5}}\n" O2
                           "\n",
                           &obs);
    cdch_judgement j;
    cdch_outcome died = outcome(CDCH_STOP_EXITED, 1);
    cdch_verdict_judge(d, obs, &died, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_MISMATCH);
    ck_assert_uint_eq(j.classes, CDCH_CLASS(CDCH_VERDICT_MISMATCH) | CDCH_CLASS(CDCH_VERDICT_PARSE_FAILURE));
    ck_assert_msg(strstr(j.summary, " [also: parse-failure]") != NULL, "%s", j.summary);
    cdch_judgement_free(&j);
    cdch_diff_free(d);
    cdch_changes_free(obs);
    /* the severity order, worst first */
    static const cdch_verdict order[] = {CDCH_VERDICT_SILENT_SKIP,    CDCH_VERDICT_ANNOUNCED_SKIP, CDCH_VERDICT_MISMATCH,      CDCH_VERDICT_DUPLICATE,
                                         CDCH_VERDICT_REORDER,        CDCH_VERDICT_BAD_CHECKPOINT, CDCH_VERDICT_PARSE_FAILURE,
                                         CDCH_VERDICT_NO_RESUME,      CDCH_VERDICT_HANG,           CDCH_VERDICT_PASS};
    for (size_t i = 0; i + 1 < sizeof order / sizeof *order; i++)
        ck_assert_msg(cdch_verdict_worse(order[i], order[i + 1]), "%s vs %s", cdch_verdict_name(order[i]),
                      cdch_verdict_name(order[i + 1]));
#define C(v) CDCH_CLASS(CDCH_VERDICT_##v)
    /* loud on plain, silent on compressed */
    ck_assert(cdch_verdict_regression(CDCH_VERDICT_SILENT_SKIP, C(SILENT_SKIP), CDCH_VERDICT_PARSE_FAILURE, C(PARSE_FAILURE)));
    /* the same value bug in both, but compressed also dies */
    ck_assert(cdch_verdict_regression(CDCH_VERDICT_MISMATCH, C(MISMATCH) | C(PARSE_FAILURE), CDCH_VERDICT_MISMATCH, C(MISMATCH)));
    ck_assert(!cdch_verdict_regression(CDCH_VERDICT_MISMATCH, C(MISMATCH), CDCH_VERDICT_MISMATCH, C(MISMATCH)));
    ck_assert(!cdch_verdict_regression(CDCH_VERDICT_PARSE_FAILURE, C(PARSE_FAILURE), CDCH_VERDICT_SILENT_SKIP, C(SILENT_SKIP)));
    ck_assert(!cdch_verdict_regression(CDCH_VERDICT_PASS, 0, CDCH_VERDICT_PASS, 0));
    ck_assert(!cdch_verdict_regression(CDCH_VERDICT_HARNESS_ERROR, C(HARNESS_ERROR), CDCH_VERDICT_PASS, 0));
    ck_assert(!cdch_verdict_regression(CDCH_VERDICT_SILENT_SKIP, C(SILENT_SKIP), CDCH_VERDICT_HARNESS_ERROR, C(HARNESS_ERROR)));
#undef C
    char buf[200];
    cdch_verdict_classes_str(CDCH_CLASS(CDCH_VERDICT_HANG) | CDCH_CLASS(CDCH_VERDICT_SILENT_SKIP), buf, sizeof buf);
    ck_assert_str_eq(buf, "silent-skip, hang");
}
END_TEST

/* Flink CDC 3.0.1 on restart-by-gtid-set compressed: it lets every payload go without a word; the
 * harness's cut truncates a later payload, the binlog client fails to decode it (an error naming
 * TRANSACTION_PAYLOAD), the job restarts and reads on. That line is about the cut: it does not announce
 * the transaction delivered whole before the cut and never emitted. */
START_TEST(words_after_a_harness_cut_announce_nothing_before_it)
{
    cdch_change_list *obs;
    char s[1024];
    cdch_diff *d = diff_of(O1 "\n" O2 "\n"
                           "{\"kind\":\"error\",\"message\":\"Failed to deserialize data of EventHeaderV4{eventType="
                           "TRANSACTION_PAYLOAD, nextPosition=4000}: EOFException\"}\n" O5 "\n",
                           &obs);
    cdch_outcome oc = outcome(CDCH_STOP_DONE, -1);
    oc.harness_cut = true;
    snprintf(oc.cut_file, sizeof oc.cut_file, "b.000001");
    oc.cut_pos = 3000; /* txn 3 went whole, txn 4's payload was cut */
    oc.cut_nctl = 0;   /* the line came after the harness released the cut */
    cdch_judgement j;
    cdch_verdict_judge(d, obs, &oc, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_SILENT_SKIP);
    ck_assert_uint_eq(j.classes, CDCH_CLASS(CDCH_VERDICT_SILENT_SKIP) | CDCH_CLASS(CDCH_VERDICT_ANNOUNCED_SKIP));
    ck_assert_msg(strncmp(j.summary, "1 transaction(s) missing while later ones arrived: txn 3* ",
                          strlen("1 transaction(s) missing while later ones arrived: txn 3* ")) == 0,
                  "%s", j.summary);
    cdch_judgement_free(&j);
    /* said before the cut's release: it is the consumer's own word on txn 3 */
    oc.cut_nctl = 1;
    ck_assert_int_eq(judge(d, obs, oc, s, sizeof s), CDCH_VERDICT_ANNOUNCED_SKIP);
    /* no hold (the release is not known): every line counts, as before */
    oc.cut_nctl = SIZE_MAX;
    ck_assert_int_eq(judge(d, obs, oc, s, sizeof s), CDCH_VERDICT_ANNOUNCED_SKIP);
    /* the consumer had failed before the cut: judged as if there were no cut */
    oc.cut_nctl = 0;
    oc.cut_after_error = true;
    ck_assert_int_eq(judge(d, obs, oc, s, sizeof s), CDCH_VERDICT_ANNOUNCED_SKIP);
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

START_TEST(no_resume_after_a_harness_cut)
{
    cdch_change_list *obs;
    char s[1024];
    /* txns 1-2 emitted; the harness cut the connection inside txn 4 (txn 3 was sent whole) */
    cdch_diff *d = diff_of(O1 "\n" O2 "\n", &obs);
    cdch_outcome oc = outcome(CDCH_STOP_NOT_RESUMED, -1);
    oc.harness_cut = true;
    snprintf(oc.cut_file, sizeof oc.cut_file, "b.000001");
    oc.cut_pos = 3000;
    cdch_judgement j;
    cdch_verdict_judge(d, obs, &oc, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_SILENT_SKIP);
    ck_assert_uint_eq(j.classes, CDCH_CLASS(CDCH_VERDICT_SILENT_SKIP) | CDCH_CLASS(CDCH_VERDICT_NO_RESUME));
    ck_assert_msg(strncmp(j.summary, "txn 3* (1 of 1 compressed, * = compressed) were delivered whole before the "
                                     "disconnection the harness caused (b.000001:3000) and never emitted",
                          strlen("txn 3* (1 of 1 compressed, * = compressed) were delivered whole before the "
                                 "disconnection the harness caused (b.000001:3000) and never emitted")) == 0,
                  "%s", j.summary);
    cdch_judgement_free(&j);
    /* cut right after txn 2: nothing delivered was lost, it just never came back */
    oc.cut_pos = 2000;
    ck_assert_int_eq(judge(d, obs, oc, s, sizeof s), CDCH_VERDICT_NO_RESUME);
    ck_assert_str_eq(s, "the harness cut the connection at b.000001:2000 (scenario fault) and the consumer did not "
                        "resume: nothing from txn 3 (gtid " G ":3, ending at b.000001:3000, compressed, 1 row) on "
                        "(stop: not-resumed)");
    cdch_diff_free(d);
    cdch_changes_free(obs);
    /* an error after the cut does not excuse what it held whole and never emitted during the hold */
    d = diff_of(O1 "\n" O2 "\n{\"kind\":\"error\",\"message\":\"connection lost\"}\n", &obs);
    oc.cut_pos = 3000;
    cdch_verdict_judge(d, obs, &oc, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_SILENT_SKIP);
    ck_assert_uint_eq(j.classes, CDCH_CLASS(CDCH_VERDICT_SILENT_SKIP) | CDCH_CLASS(CDCH_VERDICT_NO_RESUME));
    ck_assert_msg(strstr(j.summary, "[also: no-resume]") != NULL, "%s", j.summary);
    cdch_judgement_free(&j);
    /* an error before the cut: the consumer had failed on its own, the cut changes nothing */
    oc.cut_after_error = true;
    oc.reason = CDCH_STOP_IDLE_AFTER_STREAM;
    cdch_verdict_judge(d, obs, &oc, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_PARSE_FAILURE);
    ck_assert_uint_eq(j.classes, CDCH_CLASS(CDCH_VERDICT_PARSE_FAILURE));
    ck_assert_msg(strstr(j.summary, "consumer error: connection lost") != NULL, "%s", j.summary);
    cdch_judgement_free(&j);
    /* a logger that reports the failure ahead of the rows emitted before it (Canal, Debezium): the error
     * still explains where it stopped */
    {
        cdch_change_list *o2;
        cdch_diff *d2 = diff_of("{\"kind\":\"error\",\"message\":\"parse row data failed\"}\n" O1 "\n" O2 "\n", &o2);
        cdch_outcome idle = outcome(CDCH_STOP_IDLE_AFTER_STREAM, -1);
        idle.stream_delivered = true;
        ck_assert_int_eq(judge(d2, o2, idle, s, sizeof s), CDCH_VERDICT_PARSE_FAILURE);
        ck_assert_msg(strstr(s, "consumer error: parse row data failed") != NULL, "%s", s);
        cdch_diff_free(d2);
        cdch_changes_free(o2);
    }
    /* without a cut the same prefix with an exit is a parse failure */
    ck_assert_int_eq(judge(d, obs, outcome(CDCH_STOP_EXITED, 1), NULL, 0), CDCH_VERDICT_PARSE_FAILURE);
    cdch_diff_free(d);
    cdch_changes_free(obs);
}
END_TEST

/* t.k(id int primary key, v int): txn 1 inserts id 1, txn 2 changes its key to 2, txn 3 deletes id 5 and
 * inserts id 6 (two statements). */
#define KE "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"k\",\"before\":null,\"after\":{\"id\":1,\"v\":10},\"txn\":1}\n" \
           "{\"op\":\"update\",\"db\":\"t\",\"table\":\"k\",\"before\":{\"id\":1,\"v\":10},\"after\":{\"id\":2,\"v\":10},\"txn\":2}\n" \
           "{\"op\":\"delete\",\"db\":\"t\",\"table\":\"k\",\"before\":{\"id\":5,\"v\":50},\"after\":null,\"txn\":3}\n" \
           "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"k\",\"before\":null,\"after\":{\"id\":6,\"v\":60},\"txn\":3}\n"
#define KI1 "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"k\",\"before\":null,\"after\":{\"id\":1,\"v\":10}}\n"
#define KD1 "{\"op\":\"delete\",\"db\":\"t\",\"table\":\"k\",\"before\":{\"id\":1,\"v\":10},\"after\":null}\n"
#define KI2 "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"k\",\"before\":null,\"after\":{\"id\":2,\"v\":10}}\n"
#define KD5 "{\"op\":\"delete\",\"db\":\"t\",\"table\":\"k\",\"before\":{\"id\":5,\"v\":50},\"after\":null}\n"
#define KI6 "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"k\",\"before\":null,\"after\":{\"id\":6,\"v\":60}}\n"

static size_t key_update_diff(const char *observed, unsigned repr, size_t *merged)
{
    const char *names[] = {"id", "v"};
    cdch_cmp_kind kinds[] = {CDCH_CMP_INT, CDCH_CMP_INT};
    cdch_diff_schema *sch = cdch_diff_schema_new();
    cdch_diff_schema_add_table(sch, "t", "k", 2, names, kinds, NULL);
    cdch_change_list *e = lines(KE, true), *o = lines(observed, false);
    cdch_diff *d = cdch_diff_run(e, o, sch, NULL, repr);
    size_t bad = d->nmissing + d->mismatch_total + d->dup_total + d->reorder_total;
    *merged = d->merged_key_updates;
    cdch_diff_free(d);
    cdch_changes_free(e);
    cdch_changes_free(o);
    cdch_diff_schema_free(sch);
    return bad;
}

START_TEST(key_update_as_delete_insert)
{
    size_t merged;
    const unsigned R = CDCH_REPR_KEY_UPDATE_AS_DELETE_INSERT;
    /* declared: exactly delete(before) + insert(after), adjacent */
    ck_assert_uint_eq(key_update_diff(KI1 KD1 KI2 KD5 KI6, R, &merged), 0);
    ck_assert_uint_eq(merged, 1);
    /* not declared: the same output is wrong */
    ck_assert_uint_ne(key_update_diff(KI1 KD1 KI2 KD5 KI6, 0, &merged), 0);
    ck_assert_uint_eq(merged, 0);
    /* declared, but not adjacent, or other values: nothing looser */
    ck_assert_uint_ne(key_update_diff(KI1 KD1 KD5 KI2 KI6, R, &merged), 0);
    ck_assert_uint_eq(merged, 0);
    ck_assert_uint_ne(key_update_diff(KI1 KD1 "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"k\",\"before\":null,\"after\":{\"id\":2,\"v\":11}}\n" KD5 KI6,
                                      R, &merged),
                      0);
    ck_assert_uint_eq(merged, 0);
    /* declared, in different transactions by the consumer's own GTIDs */
    ck_assert_uint_ne(key_update_diff(KI1
                                      "{\"op\":\"delete\",\"db\":\"t\",\"table\":\"k\",\"before\":{\"id\":1,\"v\":10},\"after\":null,\"gtid\":\"" G ":2\"}\n"
                                      "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"k\",\"before\":null,\"after\":{\"id\":2,\"v\":10},\"gtid\":\"" G ":3\"}\n"
                                      KD5 KI6,
                                      R, &merged),
                      0);
    /* the two-statement delete + insert of txn 3 is never merged (no such update is expected) */
    ck_assert_uint_eq(key_update_diff(KI1 KD1 KI2 KD5 KI6, R, &merged), 0);
    ck_assert_uint_eq(merged, 1);
}
END_TEST

/* Rows far apart with unequal numbers between two anchors (no anchor at all here: every row names
 * another table) are paired in order by their first column, beyond the exact alignment's size: the
 * rows dropped in the middle are the missing ones, every row that arrived a mismatch of its own */
START_TEST(paired_far_apart)
{
    cdch_buf eb = CDCH_BUF_INIT, ob = CDCH_BUF_INIT;
    for (int id = 1; id <= 4100; id++) {
        cdch_buf_printf(&eb, "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":%d,"
                             "\"v\":\"1.00\",\"f\":1.5},\"txn\":%d,\"compressed\":false}\n", id, id);
        if (id <= 1000 || id > 3000)
            cdch_buf_printf(&ob, "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"x\",\"before\":null,\"after\":{\"id\":%d,"
                                 "\"v\":\"1.00\",\"f\":1.5}}\n", id);
    }
    cdch_change_list *e = lines(cdch_buf_cstr(&eb), true), *o = lines(cdch_buf_cstr(&ob), false);
    cdch_diff_schema *sch = schema();
    cdch_diff *d = cdch_diff_run(e, o, sch, NULL, 0);
    ck_assert_uint_eq(d->matched_rows, 2100);
    ck_assert_uint_eq(d->mismatch_total, 2100);
    ck_assert_uint_eq(d->dup_total + d->reorder_total, 0);
    ck_assert_uint_eq(d->nmissing, 2000);
    ck_assert_uint_eq(d->holes, 2000);
    ck_assert_uint_eq(d->missing[0].txn, 1001);
    ck_assert_uint_eq(d->missing[1999].txn, 3000);
    cdch_diff_free(d);
    cdch_diff_schema_free(sch);
    cdch_changes_free(e);
    cdch_changes_free(o);
    cdch_buf_free(&eb);
    cdch_buf_free(&ob);
}
END_TEST

/* ---- images on demand ---------------------------------------------------------- */

/* Exactly the same tree: types, raw text, decoded strings, members in order. */
static bool same_tree(const cdch_jv *a, const cdch_jv *b)
{
    if (!a || !b)
        return a == b;
    if (a->type != b->type || a->raw_len != b->raw_len || memcmp(a->raw, b->raw, a->raw_len) != 0)
        return false;
    switch (a->type) {
    case CDCH_JV_STRING:
        return a->u.str.len == b->u.str.len && memcmp(a->u.str.ptr, b->u.str.ptr, a->u.str.len) == 0 &&
               a->u.str.ptr[a->u.str.len] == '\0' && b->u.str.ptr[b->u.str.len] == '\0';
    case CDCH_JV_ARRAY:
        if (a->u.arr.n != b->u.arr.n)
            return false;
        for (size_t i = 0; i < a->u.arr.n; i++)
            if (!same_tree(a->u.arr.items[i], b->u.arr.items[i]))
                return false;
        return true;
    case CDCH_JV_OBJECT:
        if (a->u.obj.n != b->u.obj.n)
            return false;
        for (size_t i = 0; i < a->u.obj.n; i++)
            if (a->u.obj.m[i].key_len != b->u.obj.m[i].key_len ||
                memcmp(a->u.obj.m[i].key, b->u.obj.m[i].key, a->u.obj.m[i].key_len + 1) != 0 ||
                !same_tree(a->u.obj.m[i].value, b->u.obj.m[i].value))
                return false;
        return true;
    default:
        return true;
    }
}

/* Awkward change lines, one per k (and other lines between them). */
static void awkward_line(cdch_buf *b, int k)
{
    switch (k % 9) {
    case 0: /* escapes of every kind, in names and values */
        cdch_put_str(b, "{\"op\":\"insert\",\"db\":\"d\\\"b\",\"table\":\"t\\u00e9\\/x\",\"before\":null,"
                        "\"after\":{\"s\\n\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\",\"u\":\"\\u0000x\\u20AC\\u00e9\"},\"txn\":1}");
        break;
    case 1: /* surrogate pairs and raw UTF-8 */
        cdch_put_str(b, "{\"op\":\"update\",\"db\":\"d\",\"table\":\"t\",\"before\":{\"e\":\"\\ud83d\\ude00\\uD834\\uDD1E\"},"
                        "\"after\":{\"e\":\"\xf0\x9f\x98\x80 \xc3\xa9 \xe2\x82\xac\"},\"gtid\":\"" G ":7\"}");
        break;
    case 2: /* integers and decimals beyond every machine type, kept as text */
        cdch_put_str(b, "{\"op\":\"insert\",\"db\":\"d\",\"table\":\"t\",\"before\":null,\"after\":{\"n\":18446744073709551616123,"
                        "\"m\":-9223372036854775809,\"d\":\"-0.000000000000000000001\",\"x\":1.5E+300,\"y\":1e-400,"
                        "\"z\":-0,\"w\":0.10000000000000000000000000001}}");
        break;
    case 3: { /* nested JSON documents, deep */
        cdch_put_str(b, "{\"op\":\"insert\",\"db\":\"d\",\"table\":\"t\",\"before\":null,\"after\":{\"j\":{\"a\":[1,{\"b\":[[],{}]},null,"
                        "true,false],\"c\":{\"d\":{\"e\":\"f\"}}},\"deep\":");
        for (int i = 0; i < 150; i++)
            cdch_put_str(b, i % 2 ? "{\"k\":" : "[");
        cdch_put_str(b, "0");
        for (int i = 150; i-- > 0;)
            cdch_put_str(b, i % 2 ? "}" : "]");
        cdch_put_str(b, "}}");
        break;
    }
    case 4: /* null images, and none at all */
        cdch_put_str(b, k % 2 ? "{\"op\":\"delete\",\"db\":\"d\",\"table\":\"t\",\"before\":null,\"after\":null}"
                              : "{\"op\":\"delete\",\"db\":\"d\",\"table\":\"t\"}");
        break;
    case 5: /* leading blanks, whitespace inside, a CR before the newline */
        cdch_put_str(b, " \t{ \"op\" : \"delete\" , \"db\":\"d\",\"table\":\"t\",\"before\" : { \"id\" : 1 , \"v\" : [ 1 , 2 ] } ,"
                        "\"after\":null , \"pos\":{\"file\":\"b.000001\",\"pos\":4}}  \r");
        break;
    case 6: /* longer than a load's read (the first), than the read-ahead window (the first few), else than a
             * spool's buffer has room for */
        cdch_put_str(b, "{\"op\":\"insert\",\"db\":\"d\",\"table\":\"t\",\"before\":null,\"after\":{\"doc\":{\"big\":\"");
        for (int i = 0; i < (k == 6 ? 1200 * 1024 : k < 40 ? 300 * 1024 : 3000 + 100 * k) / 16; i++)
            cdch_buf_printf(b, "%015d\\n", i * k);
        cdch_put_str(b, "\"}}}");
        break;
    case 7: /* the same member twice; empty object and array images */
        cdch_put_str(b, "{\"op\":\"update\",\"db\":\"d\",\"table\":\"t\",\"before\":{},\"after\":{\"a\":1,\"a\":[],\"\":\"\"}}");
        break;
    default: /* an ordinary row with a checkpoint */
        cdch_buf_printf(b, "{\"op\":\"insert\",\"db\":\"shop\",\"table\":\"orders\",\"before\":null,\"after\":{\"id\":%d,"
                           "\"total\":\"12.50\"},\"gtid\":\"" G ":%d\",\"pos\":{\"file\":\"binlog.000001\",\"pos\":%d}}",
                        k, k, 1000 + k);
        break;
    }
}

/* Lines, with control lines, blank lines and (lenient only) noise between them. */
static char *awkward_text(int nlines, bool noise, size_t *len)
{
    cdch_buf b = CDCH_BUF_INIT;
    for (int k = 0; k < nlines; k++) {
        awkward_line(&b, k);
        cdch_put_str(&b, "\n");
        if (k % 5 == 0)
            cdch_put_str(&b, "{\"kind\":\"error\",\"message\":\"x\\u00e9\"}\n\n");
        if (noise && k % 7 == 3)
            cdch_put_str(&b, "INFO not JSON\n{\"op\":\"upsert\"}\n[1]\n");
    }
    *len = b.len;
    char *s = malloc(b.len + 1);
    memcpy(s, b.data, b.len);
    s[b.len] = '\0';
    cdch_buf_free(&b);
    return s;
}

/* Every change of l: its text is the line it came from, and its images,
 * parsed on demand (through w), are those of an eager parse of that line. */
static void check_on_demand(const cdch_change_list *l, const char *text, size_t tlen, cdch_change_window *w, bool reverse)
{
    /* the change lines of text, in order */
    size_t nlines = 0, at = 0;
    const char **starts = calloc(l->n + 1, sizeof *starts);
    size_t *lens = calloc(l->n + 1, sizeof *lens);
    uint64_t lineno = 0;
    for (size_t i = 0; i < l->n; i++) {
        while (at < tlen) {
            const char *nl = memchr(text + at, '\n', tlen - at);
            size_t n = nl ? (size_t)(nl - (text + at)) : tlen - at;
            const char *p = text + at;
            at += n + 1;
            if (++lineno == l->items[i].line) {
                while (n && p[n - 1] == '\r')
                    n--;
                starts[nlines] = p;
                lens[nlines++] = n;
                break;
            }
        }
    }
    ck_assert_uint_eq(nlines, l->n);
    for (size_t q = 0; q < l->n; q++) {
        size_t i = reverse ? l->n - 1 - q : q;
        const cdch_change *c = &l->items[i];
        cdch_arena eager = CDCH_ARENA_INIT, lazy = CDCH_ARENA_INIT;
        cdch_jv *o;
        cdch_err err;
        ck_assert_msg(cdch_jv_parse(starts[i], lens[i], &eager, &o, &err) == 0, "%s", err.msg);
        const cdch_jv *eb = cdch_jv_get(o, "before"), *ea = cdch_jv_get(o, "after");
        eb = eb && eb->type == CDCH_JV_OBJECT ? eb : NULL;
        ea = ea && ea->type == CDCH_JV_OBJECT ? ea : NULL;
        size_t n;
        const char *t = cdch_change_text(l, c, w, &lazy, &n);
        ck_assert_uint_eq(n, lens[i]);
        ck_assert_msg(memcmp(t, starts[i], n) == 0 && t[n] == '\0', "line %llu: text differs", (unsigned long long)c->line);
        cdch_change_images im;
        cdch_change_images_get(l, c, w, &lazy, &im);
        ck_assert_uint_eq(im.text_len, lens[i]);
        ck_assert(memcmp(im.text, starts[i], lens[i]) == 0);
        ck_assert_msg(same_tree(im.before, eb), "line %llu: before differs", (unsigned long long)c->line);
        ck_assert_msg(same_tree(im.after, ea), "line %llu: after differs", (unsigned long long)c->line);
        ck_assert_int_eq(cdch_change_has_before(c), eb != NULL);
        ck_assert_int_eq(cdch_change_has_after(c), ea != NULL);
        cdch_arena_free(&eager);
        cdch_arena_free(&lazy);
    }
    free(starts);
    free(lens);
}

static cdch_change_list *add_all(const char *text, size_t len, cdch_change_list *l)
{
    size_t at = 0;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        cdch_err err;
        ck_assert_msg(cdch_changes_add_line(l, text + at, n, false, &err) == 0, "%s", err.msg);
        at += n + 1;
    }
    return l;
}

static void check_all_ways(const cdch_change_list *l, const char *text, size_t len)
{
    cdch_change_window w = CDCH_CHANGE_WINDOW_INIT;
    check_on_demand(l, text, len, NULL, false);
    check_on_demand(l, text, len, &w, false);
    check_on_demand(l, text, len, &w, true);
    cdch_change_window_free(&w);
}

/* An image parsed on demand is the image of the eager parse, from every
 * place a list keeps its lines: memory, the file it was loaded from, the
 * file it spools to (written out or still buffered), and memory again when
 * the spool cannot be written. */
START_TEST(images_on_demand)
{
    size_t len;
    char *text = awkward_text(400, true, &len);
    /* in memory */
    cdch_change_list *mem = add_all(text, len, cdch_changes_new());
    ck_assert_uint_eq(mem->n, 400);
    ck_assert_uint_eq(mem->nctl, 80);
    ck_assert_str_eq(mem->ctl[0].message, "x\xc3\xa9");
    ck_assert_uint_eq(mem->invalid, 171);
    check_all_ways(mem, text, len);
    /* loaded from a file (strict: no noise) */
    size_t slen;
    char *strict = awkward_text(400, false, &slen);
    char path[] = "/tmp/test_diff_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, strict, slen), (ssize_t)slen);
    close(fd);
    cdch_err err;
    cdch_change_list *file = cdch_changes_load(path, &err);
    ck_assert_msg(file != NULL, "%s", err.msg);
    ck_assert_uint_eq(file->n, 400);
    check_all_ways(file, strict, slen);
    cdch_changes_free(file);
    /* the last line without its newline */
    fd = open(path, O_WRONLY | O_TRUNC);
    ck_assert_int_eq(write(fd, strict, slen - 1), (ssize_t)slen - 1);
    close(fd);
    file = cdch_changes_load(path, &err);
    ck_assert_msg(file != NULL, "%s", err.msg);
    check_all_ways(file, strict, slen - 1);
    cdch_changes_free(file);
    /* spooled: the file gets every line as given; lines still buffered and lines written out both read back */
    fd = open(path, O_RDWR | O_TRUNC);
    cdch_change_list *sp = cdch_changes_new();
    cdch_changes_spool(sp, fd, path);
    add_all(text, len, sp);
    check_all_ways(sp, text, len);
    ck_assert_int_eq(cdch_changes_flush(sp), 0);
    check_all_ways(sp, text, len);
    size_t flen;
    uint8_t *written = tu_read_file(path, &flen);
    ck_assert_uint_eq(flen, len); /* every line given, blank and invalid ones too, each with its newline */
    ck_assert(memcmp(written, text, len) == 0);
    free(written);
    ck_assert_uint_eq(sp->n, mem->n);
    ck_assert_uint_eq(sp->invalid, mem->invalid);
    for (size_t i = 0; i < sp->n; i++) {
        const cdch_change *a = &sp->items[i], *b = &mem->items[i];
        ck_assert(a->line == b->line && a->op == b->op && a->txn == b->txn && a->pos == b->pos &&
                  a->compressed == b->compressed && a->text_len == b->text_len);
        ck_assert(strcmp(a->db, b->db) == 0 && strcmp(a->table, b->table) == 0);
        ck_assert(!a->gtid == !b->gtid && (!a->gtid || strcmp(a->gtid, b->gtid) == 0));
        ck_assert(!a->pos_file == !b->pos_file && (!a->pos_file || strcmp(a->pos_file, b->pos_file) == 0));
        ck_assert_uint_eq(a->flags & ~CDCH_CHANGE_IN_MEMORY, b->flags & ~CDCH_CHANGE_IN_MEMORY);
        ck_assert(!(a->flags & CDCH_CHANGE_IN_MEMORY) && (b->flags & CDCH_CHANGE_IN_MEMORY));
    }
    cdch_changes_free(sp);
    /* a spool whose writes fail keeps the lines in memory */
    fd = open("/dev/full", O_RDWR);
    if (fd >= 0) {
        sp = cdch_changes_new();
        cdch_changes_spool(sp, fd, "/dev/full");
        add_all(text, len, sp);
        ck_assert_int_eq(cdch_changes_flush(sp), -1);
        check_all_ways(sp, text, len);
        cdch_changes_free(sp);
    }
    /* a spool that fills its file system part way (here: the file size limit, in a buffered write and in a
     * long line's own write): the file holds a prefix, the rest is kept in memory */
    const rlim_t limits[] = {100000, (rlim_t)len - 50000};
    signal(SIGXFSZ, SIG_IGN);
    for (size_t q = 0; q < 2; q++) {
        struct rlimit old, lim;
        getrlimit(RLIMIT_FSIZE, &old);
        lim = old;
        lim.rlim_cur = limits[q];
        /* No ck_assert while the limit holds: it binds every file the process writes, Check's own
         * message file too (a long __FILE__ path filled it past the limit: "Bad message type"). */
        int set_rc = setrlimit(RLIMIT_FSIZE, &lim);
        fd = open(path, O_RDWR | O_TRUNC);
        sp = cdch_changes_new();
        cdch_changes_spool(sp, fd, path);
        size_t bad_line = 0;
        for (size_t at = 0, ln = 1; at < len && !bad_line; ln++) {
            const char *nl = memchr(text + at, '\n', len - at);
            size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
            cdch_err aerr;
            if (cdch_changes_add_line(sp, text + at, n, false, &aerr) != 0)
                bad_line = ln;
            at += n + 1;
        }
        int flush_rc = cdch_changes_flush(sp);
        setrlimit(RLIMIT_FSIZE, &old);
        ck_assert_int_eq(set_rc, 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_msg(bad_line == 0, "line %zu not added", bad_line);
        ck_assert_int_eq(flush_rc, -1);
        check_all_ways(sp, text, len);
        size_t in_file = 0;
        for (size_t i = 0; i < sp->n; i++)
            in_file += !(sp->items[i].flags & CDCH_CHANGE_IN_MEMORY);
        ck_assert_msg(in_file > 0 && in_file < sp->n, "%zu of %zu lines in the file", in_file, sp->n);
        cdch_changes_free(sp);
        written = tu_read_file(path, &flen);
        ck_assert_uint_eq(flen, limits[q]);
        ck_assert(memcmp(written, text, flen) == 0);
        free(written);
    }
    unlink(path);
    cdch_changes_free(mem);
    free(text);
    free(strict);
}
END_TEST

/* ---- expected keys prepared once per stream --------------------------------------- */

static bool same_str(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* Every finding of a and b the same (counts, kept entries, their strings). */
static void assert_same_diff(const cdch_diff *a, const cdch_diff *b, const char *what)
{
    ck_assert_msg(a->expected_rows == b->expected_rows && a->observed_rows == b->observed_rows &&
                      a->matched_rows == b->matched_rows && a->expected_txns == b->expected_txns &&
                      a->complete_txns == b->complete_txns && a->last_txn_seen == b->last_txn_seen &&
                      a->nmissing == b->nmissing && a->holes == b->holes && a->tail == b->tail &&
                      a->missing_rows == b->missing_rows && a->nmismatch == b->nmismatch &&
                      a->mismatch_total == b->mismatch_total && a->ndup == b->ndup && a->dup_total == b->dup_total &&
                      a->nreorder == b->nreorder && a->reorder_total == b->reorder_total && a->nckpt == b->nckpt &&
                      a->ckpt_total == b->ckpt_total && a->ckpt_rows_checked == b->ckpt_rows_checked &&
                      a->merged_key_updates == b->merged_key_updates,
                  "%s: counts differ (matched %zu/%zu, missing %zu/%zu, mismatches %zu/%zu, dups %zu/%zu, reorders "
                  "%zu/%zu)",
                  what, a->matched_rows, b->matched_rows, a->nmissing, b->nmissing, a->mismatch_total, b->mismatch_total,
                  a->dup_total, b->dup_total, a->reorder_total, b->reorder_total);
    for (size_t i = 0; i < a->nmissing; i++) {
        const cdch_diff_txn *x = &a->missing[i], *y = &b->missing[i];
        ck_assert_msg(x->txn == y->txn && x->rows_missing == y->rows_missing && x->hole == y->hole &&
                          same_str(x->reported, y->reported),
                      "%s: missing[%zu]", what, i);
    }
    for (size_t i = 0; i < a->nmismatch; i++) {
        const cdch_diff_mismatch *x = &a->mismatch[i], *y = &b->mismatch[i];
        ck_assert_msg(x->txn == y->txn && x->exp_line == y->exp_line && x->obs_line == y->obs_line &&
                          same_str(x->what, y->what) && same_str(x->image, y->image) &&
                          same_str(x->column, y->column) && same_str(x->expected, y->expected) &&
                          same_str(x->observed, y->observed),
                      "%s: mismatch[%zu]", what, i);
    }
    for (size_t i = 0; i < a->ndup; i++)
        ck_assert_msg(a->dup[i].exp_line == b->dup[i].exp_line && a->dup[i].obs_line == b->dup[i].obs_line &&
                          a->dup[i].first_obs_line == b->dup[i].first_obs_line,
                      "%s: dup[%zu]", what, i);
    for (size_t i = 0; i < a->nreorder; i++)
        ck_assert_msg(a->reorder[i].txn == b->reorder[i].txn && a->reorder[i].after_txn == b->reorder[i].after_txn &&
                          a->reorder[i].obs_line == b->reorder[i].obs_line,
                      "%s: reorder[%zu]", what, i);
    for (size_t i = 0; i < a->nckpt; i++)
        ck_assert_msg(a->ckpt[i].txn == b->ckpt[i].txn && same_str(a->ckpt[i].what, b->ckpt[i].what),
                      "%s: ckpt[%zu]", what, i);
}

/* Cells of one stream: each consumer's outcome, its diff with the stream's shared keys equal to
 * the diff computing them itself, and the exact findings for a few. */
static const char *const shared_outcomes[] = {
    O1 "\n" O2 "\n" O3 "\n" O4 "\n" O5 "\n",                    /* all, in order */
    O1 "\n" O2 "\n" O5 "\n",                                    /* the compressed txns 3 and 4 skipped */
    O1 "\n" O3 "\n" O2 "\n" O4 "\n" O5 "\n",                    /* txn 2 after txn 3 */
    O1 "\n" O2 "\n" O2 "\n" O3 "\n" O4 "\n" O5 "\n",            /* txn 2 twice */
    O1 "\n" O2 "\n" O3 "\n"
    "{\"op\":\"update\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"after\":{\"id\":1,\"v\":\"9.01\",\"f\":1.6,\"x\":0}}\n" O5
    "\n",                                                       /* values differ */
    O1 "\n{\"op\":\"insert\",\"db\":\"x\",\"table\":\"y\",\"before\":null,\"after\":{\"a\":1}}\n" O2 "\n" O3 "\n" O4 "\n" O5
    "\n",                                                       /* an event nobody expected */
    "{\"op\":\"delete\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"after\":null}\n" O2
    "\n" O3 "\n" O4 "\n" O5 "\n",                               /* txn 1 arrived as a delete */
    O5 "\n" O4 "\n" O3 "\n" O2 "\n" O1 "\n",                    /* backwards */
    "",                                                         /* nothing */
};

START_TEST(prepared_keys_shared)
{
    cdch_diff_schema *s = schema();
    /* the stream's expected list as the runner holds it: loaded from its expected.jsonl */
    char path[] = "/tmp/test_diff_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, EXPECTED, strlen(EXPECTED)), (ssize_t)strlen(EXPECTED));
    close(fd);
    cdch_err err;
    cdch_change_list *e = cdch_changes_load(path, &err);
    ck_assert_msg(e != NULL, "%s", err.msg);
    cdch_diff_expected *keys = cdch_diff_expected_new(e, s);
    const size_t n = sizeof shared_outcomes / sizeof *shared_outcomes;
    /* twice, the second time backwards: the shared keys keep no state of the diffs that used them */
    for (size_t round = 0; round < 2; round++) {
        for (size_t k = 0; k < n; k++) {
            size_t i = round ? n - 1 - k : k;
            cdch_change_list *o = lines(shared_outcomes[i], false);
            cdch_diff *own = cdch_diff_run(e, o, s, NULL, 0);
            cdch_diff *shared = cdch_diff_run_prepared(e, keys, o, s, NULL, 0);
            char what[32];
            snprintf(what, sizeof what, "outcome %zu", i);
            assert_same_diff(own, shared, what);
            char s1[1024], s2[1024];
            cdch_verdict v1 = judge(own, o, outcome(CDCH_STOP_DONE, -1), s1, sizeof s1);
            cdch_verdict v2 = judge(shared, o, outcome(CDCH_STOP_DONE, -1), s2, sizeof s2);
            ck_assert_int_eq(v1, v2);
            ck_assert_str_eq(s1, s2);
            switch (i) {
            case 0:
                ck_assert_int_eq(v2, CDCH_VERDICT_PASS);
                ck_assert_uint_eq(shared->matched_rows, 5);
                break;
            case 1:
                ck_assert_int_eq(v2, CDCH_VERDICT_SILENT_SKIP);
                ck_assert_uint_eq(shared->nmissing, 2);
                ck_assert_uint_eq(shared->missing[0].txn, 3);
                ck_assert_uint_eq(shared->missing[1].txn, 4);
                ck_assert(shared->missing[0].hole && shared->missing[1].hole);
                break;
            case 2:
                ck_assert_int_eq(v2, CDCH_VERDICT_REORDER);
                ck_assert_uint_eq(shared->reorder_total, 1);
                ck_assert_uint_eq(shared->reorder[0].txn, 2);
                ck_assert_uint_eq(shared->reorder[0].after_txn, 3);
                break;
            case 3:
                ck_assert_int_eq(v2, CDCH_VERDICT_DUPLICATE);
                ck_assert_uint_eq(shared->dup[0].obs_line, 3);
                ck_assert_uint_eq(shared->dup[0].first_obs_line, 2);
                break;
            case 4:
                ck_assert_int_eq(v2, CDCH_VERDICT_MISMATCH);
                ck_assert_uint_eq(shared->mismatch_total, 3);
                ck_assert_str_eq(shared->mismatch[0].column, "v");
                ck_assert_str_eq(shared->mismatch[0].observed, "\"9.01\"");
                ck_assert_uint_eq(shared->mismatch[0].exp_line, 4);
                break;
            case 5:
                ck_assert_uint_eq(shared->mismatch_total, 1);
                ck_assert_str_eq(shared->mismatch[0].what, "unexpected event");
                break;
            case 6:
                ck_assert_uint_eq(shared->nmissing, 0);
                ck_assert_str_eq(shared->mismatch[0].what, "op differs");
                ck_assert_uint_eq(shared->mismatch[0].txn, 1);
                break;
            case 8:
                ck_assert_uint_eq(shared->matched_rows, 0);
                ck_assert_uint_eq(shared->nmissing, 5);
                break;
            default:
                break;
            }
            cdch_diff_free(own);
            cdch_diff_free(shared);
            cdch_changes_free(o);
        }
    }
    /* keys of another schema name the columns by other kinds: the same list gives other keys, the
     * diffs with them still equal their own */
    const char *names[] = {"id", "v", "f"};
    cdch_cmp_kind kinds[] = {CDCH_CMP_EXACT, CDCH_CMP_EXACT, CDCH_CMP_EXACT};
    cdch_diff_schema *exact = cdch_diff_schema_new();
    cdch_diff_schema_add_table(exact, "t", "o", 3, names, kinds, NULL);
    cdch_diff_expected *keys2 = cdch_diff_expected_new(e, exact);
    cdch_change_list *o = lines(O1 "\n" O2 "\n" O3 "\n{\"op\":\"update\",\"db\":\"t\",\"table\":\"o\",\"before\":{\"id\":1,\"v\":\"1.00\",\"f\":1.5},\"after\":{\"id\":1,\"v\":\"9.1\",\"f\":1.5}}\n" O5 "\n", false);
    cdch_diff *own = cdch_diff_run(e, o, exact, NULL, 0), *shared = cdch_diff_run_prepared(e, keys2, o, exact, NULL, 0);
    assert_same_diff(own, shared, "exact schema");
    ck_assert_uint_eq(shared->mismatch_total, 1); /* "9.1" is not "9.10" byte for byte */
    cdch_diff_free(own);
    cdch_diff_free(shared);
    shared = cdch_diff_run_prepared(e, keys, o, s, NULL, 0); /* by the decimal scale: equal */
    ck_assert_uint_eq(shared->mismatch_total, 0);
    ck_assert_uint_eq(shared->matched_rows, 5);
    cdch_diff_free(shared);
    cdch_changes_free(o);
    cdch_diff_expected_free(keys2);
    cdch_diff_schema_free(exact);
    cdch_diff_expected_free(keys);
    cdch_diff_expected_free(NULL);
    cdch_changes_free(e);
    unlink(path);
    cdch_diff_schema_free(s);
}
END_TEST

/* Keys made for another list are a harness bug: the diff refuses them (abort) rather than align by them. */
START_TEST(prepared_keys_of_another_list)
{
    cdch_diff_schema *s = schema();
    cdch_change_list *e = lines(EXPECTED, true), *other = lines(E5 "\n" E4 "\n" E3 "\n" E2 "\n" E1 "\n", true);
    cdch_change_list *o = lines(O1 "\n", false);
    cdch_diff_expected *keys = cdch_diff_expected_new(other, s);
    cdch_diff *d = cdch_diff_run_prepared(e, keys, o, s, NULL, 0); /* aborts */
    cdch_diff_free(d);
}
END_TEST

/* Strings decoded a word at a time: a special byte at every offset around the 8-byte words, decoded
 * exactly as the byte loop does, and errors at the same column. */
START_TEST(strings_word_at_a_time)
{
    static const struct {
        const char *src, *dec; /* dec NULL: an error at the special's column */
    } specials[] = {
        {"\\n", "\n"}, {"\\\"", "\""}, {"\\\\", "\\"}, {"\\/", "/"}, {"\\u00e9", "\xc3\xa9"},
        {"\\ud83d\\ude00", "\xf0\x9f\x98\x80"}, {"\xc3\xa9", "\xc3\xa9"}, {"\xe2\x82\xac", "\xe2\x82\xac"},
        {"\x7f", "\x7f"}, {"~", "~"}, {" ", " "}, {"\x1f", NULL}, {"\t", NULL}, {"\xff", NULL}, {"\xc3(", NULL},
        {"\\x", NULL},
    };
    cdch_arena a = CDCH_ARENA_INIT;
    for (size_t sp = 0; sp < sizeof specials / sizeof *specials; sp++) {
        for (size_t pre = 0; pre < 20; pre++) {
            for (size_t post = 0; post < 20; post += 3) {
                cdch_buf src = CDCH_BUF_INIT, want = CDCH_BUF_INIT;
                cdch_put_u8(&src, '"');
                for (size_t k = 0; k < pre; k++) {
                    cdch_put_u8(&src, (uint8_t)('a' + k % 26));
                    cdch_put_u8(&want, (uint8_t)('a' + k % 26));
                }
                cdch_put_bytes(&src, specials[sp].src, strlen(specials[sp].src));
                if (specials[sp].dec)
                    cdch_put_bytes(&want, specials[sp].dec, strlen(specials[sp].dec));
                for (size_t k = 0; k < post; k++) {
                    cdch_put_u8(&src, (uint8_t)('0' + k % 10));
                    cdch_put_u8(&want, (uint8_t)('0' + k % 10));
                }
                cdch_put_u8(&src, '"');
                cdch_jv *v;
                cdch_err err;
                int rc = cdch_jv_parse((const char *)src.data, src.len, &a, &v, &err);
                if (specials[sp].dec) {
                    ck_assert_msg(rc == 0, "special %zu at %zu: %s", sp, pre, err.msg);
                    ck_assert_int_eq(v->type, CDCH_JV_STRING);
                    ck_assert_uint_eq(v->u.str.len, want.len);
                    ck_assert(memcmp(v->u.str.ptr, want.data, want.len) == 0);
                    ck_assert_int_eq(v->u.str.ptr[want.len], '\0');
                    ck_assert_uint_eq(v->raw_len, src.len);
                } else {
                    ck_assert_msg(rc != 0, "special %zu at %zu accepted", sp, pre);
                    /* the column of the special (1-based, after the quote), or of the escape's letter */
                    int64_t at = (int64_t)(1 + pre) + (specials[sp].src[0] == '\\' ? 1 : 0);
                    ck_assert_msg(err.offset == at, "special %zu at %zu: offset %lld, %s", sp, pre,
                                  (long long)err.offset, err.msg);
                }
                /* unterminated: the same string without its closing quote */
                rc = cdch_jv_parse((const char *)src.data, src.len - 1, &a, &v, &err);
                ck_assert(rc != 0);
                cdch_buf_free(&src);
                cdch_buf_free(&want);
                cdch_arena_reset(&a);
            }
        }
    }
    /* a long run with quotes after even and odd runs of backslashes */
    const char *t = "\"abcdefghij\\\\\\\"klmnopqrstuvwxyz\\\\\" ";
    cdch_jv *v;
    cdch_err err;
    ck_assert_int_eq(cdch_jv_parse(t, strlen(t), &a, &v, &err), 0);
    ck_assert_str_eq(v->u.str.ptr, "abcdefghij\\\"klmnopqrstuvwxyz\\");
    cdch_arena_free(&a);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("diff");
    TCase *tc = tcase_create("core");
    /* images_on_demand parses a >1 MB line and deep nesting many times: ~10 s under ASan on a busy
     * 2-core machine, past Check's 4 s default */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, jv_parser);
    tcase_add_test(tc, change_lines);
    tcase_add_test(tc, values_by_type);
    tcase_add_test(tc, in_order_pass);
    tcase_add_test(tc, skip_is_a_hole);
    tcase_add_test(tc, prefix_verdicts);
    tcase_add_test(tc, stopped_or_went_on_after_a_named_failure);
    tcase_add_test(tc, duplicate_reorder_mismatch);
    tcase_add_test(tc, checkpoints);
    tcase_add_test(tc, paired_where_they_stand);
    tcase_add_test(tc, paired_far_apart);
    tcase_add_test(tc, verdict_names);
    tcase_add_test(tc, enum_set_numbers);
    tcase_add_test(tc, non_finite_never_equal);
    tcase_add_test(tc, binary_fixed_padding);
    tcase_add_test(tc, wrong_op_db_table_is_mismatch);
    tcase_add_test(tc, errors_are_warnings_on_a_complete_stream);
    tcase_add_test(tc, worst_class_and_regression);
    tcase_add_test(tc, no_resume_after_a_harness_cut);
    tcase_add_test(tc, words_after_a_harness_cut_announce_nothing_before_it);
    tcase_add_test(tc, key_update_as_delete_insert);
    tcase_add_test(tc, images_on_demand);
    tcase_add_test(tc, prepared_keys_shared);
    tcase_add_test_raise_signal(tc, prepared_keys_of_another_list, SIGABRT);
    tcase_add_test(tc, strings_word_at_a_time);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
