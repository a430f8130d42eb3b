/* test_oracle.c — the differential oracle (oracle.c): rows against the
 * plain run's rows, each finding class and its verdict, --ignore and
 * --normalize, the row count of the plain cell, the side-by-side rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "events.h"
#include "oracle.h"
#include "testutil.h"

static cdch_oracle_lines *lines(const cdch_oracle_filter *f, const char *const *v)
{
    cdch_oracle_lines *l = cdch_oracle_lines_new();
    for (; *v; v++)
        cdch_oracle_lines_add(l, f, *v, strlen(*v), false);
    return l;
}

/* the verdict of rows `obs` against base `b` (b NULL: the plain cell, against nexp
 * expected rows), the adapter having been stopped after the whole stream went out; err_line:
 * an adapter's {"kind":"error"} line judged with them (cdch_oracle_judge_said), or NULL */
static cdch_verdict judge_with(const char *const *b, const char *const *obs, const char *err_line, int exit_status,
                               char *summary, size_t sumsz)
{
    cdch_oracle_lines *base = b ? lines(NULL, b) : NULL, *rows = lines(NULL, obs);
    cdch_change_list *said = NULL;
    if (err_line) {
        said = cdch_changes_new();
        ck_assert_int_eq(cdch_changes_add_line(said, err_line, strlen(err_line), false, NULL), 0);
        ck_assert_uint_eq(said->nctl, 1);
    }
    cdch_outcome oc;
    memset(&oc, 0, sizeof oc);
    oc.reason = exit_status >= 0 ? CDCH_STOP_EXITED : CDCH_STOP_IDLE_AFTER_STREAM;
    oc.exit_status = exit_status;
    oc.stream_delivered = true;
    cdch_oracle_result res;
    cdch_oracle_judge_said(base, rows, NULL, NULL, said, &oc, &res);
    if (summary)
        snprintf(summary, sumsz, "%s", res.summary);
    cdch_verdict v = res.verdict;
    free(res.summary);
    free(res.detail);
    free(res.warnings);
    free(res.side);
    cdch_diff_free(res.diff);
    cdch_changes_free(said);
    cdch_oracle_lines_free(base);
    cdch_oracle_lines_free(rows);
    return v;
}

static cdch_verdict judge(const char *const *b, const char *const *obs, int exit_status, char *summary,
                          size_t sumsz)
{
    return judge_with(b, obs, NULL, exit_status, summary, sumsz);
}

static const char *const plain[] = {"r1 a", "r2 b", "r3 c", "r4 d", "wm", NULL};

START_TEST(equal_rows_pass)
{
    ck_assert_int_eq(judge(plain, plain, -1, NULL, 0), CDCH_VERDICT_PASS);
}
END_TEST

START_TEST(missing_rows_silent_skip)
{
    static const char *const obs[] = {"r1 a", "wm", NULL}; /* a hole: the watermark came after */
    char sum[1024];
    ck_assert_int_eq(judge(plain, obs, -1, sum, sizeof sum), CDCH_VERDICT_SILENT_SKIP);
    ck_assert_msg(strstr(sum, "against its plain run: 3 transaction(s) missing while later ones arrived: txn 2, 3, 4"),
                  "%s", sum);
    static const char *const tail[] = {"r1 a", "r2 b", NULL}; /* the tail, idle after the whole stream */
    ck_assert_int_eq(judge(plain, tail, -1, NULL, 0), CDCH_VERDICT_SILENT_SKIP);
}
END_TEST

/* An adapter's error lines count as the canonical judgement counts them (cdch_oracle_judge_said):
 * a hole that a line names is announced, the tail it stopped at is its error. Without them (the
 * sweep over the default matrix, reports/oracle-sweep.md group B) the differential said silent-skip
 * where the canonical said announced-skip, and hang where the consumer had said why it stopped. */
START_TEST(adapter_error_lines_count)
{
    static const char *const hole[] = {"r1 a", "wm", NULL};
    char sum[1024];
    /* a line that names no event does not excuse a hole: still silent */
    ck_assert_int_eq(judge_with(plain, hole, "{\"kind\":\"error\",\"message\":\"something odd\"}", -1, sum, sizeof sum),
                     CDCH_VERDICT_SILENT_SKIP);
    /* stopped where it said why (it stayed up, quiet): parse-failure, quoting it, as the canonical diff */
    static const char *const tail[] = {"r1 a", "r2 b", NULL};
    ck_assert_int_eq(judge_with(plain, tail, "{\"kind\":\"error\",\"message\":\"decoder gave up\"}", -1, sum, sizeof sum),
                     CDCH_VERDICT_PARSE_FAILURE);
    ck_assert_msg(strstr(sum, "consumer error: decoder gave up"), "%s", sum);
}
END_TEST

START_TEST(error_exit_parse_failure)
{
    static const char *const tail[] = {"r1 a", "r2 b", NULL};
    ck_assert_int_eq(judge(plain, tail, 1, NULL, 0), CDCH_VERDICT_PARSE_FAILURE);
}
END_TEST

START_TEST(changed_row_mismatch)
{
    static const char *const obs[] = {"r1 a", "r2 B", "r3 c", "r4 d", "wm", NULL};
    char sum[1024];
    ck_assert_int_eq(judge(plain, obs, -1, sum, sizeof sum), CDCH_VERDICT_MISMATCH);
    ck_assert_msg(strstr(sum, "expected r2 b, observed r2 B"), "%s", sum);
    static const char *const extra[] = {"r1 a", "zz", "r2 b", "r3 c", "r4 d", "wm", NULL};
    ck_assert_int_eq(judge(plain, extra, -1, sum, sizeof sum), CDCH_VERDICT_MISMATCH);
    ck_assert_msg(strstr(sum, "unexpected line"), "%s", sum);
}
END_TEST

START_TEST(repeated_row_duplicate)
{
    static const char *const obs[] = {"r1 a", "r2 b", "r2 b", "r3 c", "r4 d", "wm", NULL};
    ck_assert_int_eq(judge(plain, obs, -1, NULL, 0), CDCH_VERDICT_DUPLICATE);
}
END_TEST

START_TEST(moved_row_reorder)
{
    static const char *const obs[] = {"r1 a", "r3 c", "r2 b", "r4 d", "wm", NULL};
    ck_assert_int_eq(judge(plain, obs, -1, NULL, 0), CDCH_VERDICT_REORDER);
}
END_TEST

START_TEST(plain_cell_by_count)
{
    static const char *const five[] = {"a", "b", "c", "d", "e", NULL};
    static const char *const four[] = {"a", "b", "c", "d", NULL};
    static const char *const six[] = {"a", "b", "c", "d", "e", "f", NULL};
    /* no expected list here: the count is against no rows, so check through cdch_oracle_count_diff */
    cdch_oracle_lines *l5 = lines(NULL, five), *l4 = lines(NULL, four), *l6 = lines(NULL, six);
    cdch_change_list *exp = cdch_changes_new();
    for (int i = 0; i < 5; i++) {
        char line[200];
        snprintf(line, sizeof line,
                 "{\"txn\":%d,\"op\":\"insert\",\"db\":\"d\",\"table\":\"t\",\"after\":{\"id\":%d}}", i + 1, i);
        ck_assert_int_eq(cdch_changes_add_line(exp, line, strlen(line), false, NULL), 0);
    }
    ck_assert_uint_eq(exp->n, 5);
    cdch_diff *d = cdch_oracle_count_diff(l5, exp, NULL);
    ck_assert_uint_eq(d->nmissing + d->mismatch_total, 0);
    cdch_diff_free(d);
    d = cdch_oracle_count_diff(l4, exp, NULL);
    ck_assert_uint_eq(d->tail, 1);
    ck_assert_uint_eq(d->missing[0].txn, 5);
    cdch_diff_free(d);
    static const char *const wm[] = {"a", "b", "x.cdch_watermark 1", NULL}; /* 2 rows lost before the watermark */
    cdch_oracle_lines *lw = lines(NULL, wm);
    d = cdch_oracle_count_diff(lw, exp, NULL);
    ck_assert_uint_eq(d->tail, 0);
    ck_assert_uint_eq(d->holes, 2);
    ck_assert_uint_eq(d->missing[0].txn, 3);
    cdch_diff_free(d);
    cdch_oracle_lines_free(lw);
    d = cdch_oracle_count_diff(l6, exp, NULL);
    ck_assert_uint_eq(d->mismatch_total, 1);
    cdch_diff_free(d);
    cdch_changes_free(exp);
    cdch_oracle_lines_free(l5);
    cdch_oracle_lines_free(l4);
    cdch_oracle_lines_free(l6);
}
END_TEST

START_TEST(ignore_and_normalize)
{
    static const char *const ig[] = {"^#"}, *const norm[] = {" at [0-9]+", "ts=[^ ]*"};
    cdch_err err;
    cdch_oracle_filter *f = cdch_oracle_filter_new(ig, 1, norm, 2, &err);
    ck_assert_ptr_nonnull(f);
    static const char *const a[] = {"# connected", "row 1 at 120 ts=5", "", "row 2 at 300 ts=6", NULL};
    static const char *const b[] = {"row 1 at 98 ts=7", "# log", "row 2 at 251 ts=8", NULL};
    cdch_oracle_lines *la = lines(f, a), *lb = lines(f, b);
    ck_assert_uint_eq(la->n, 2);
    ck_assert_uint_eq(la->ignored, 2);
    ck_assert_str_eq(la->norm[0], "row 1 ");
    ck_assert_str_eq(la->raw[0], "row 1 at 120 ts=5");
    cdch_diff *d = cdch_oracle_diff(la, lb, NULL, NULL);
    ck_assert_uint_eq(d->matched_rows, 2);
    ck_assert_uint_eq(d->nmissing + d->mismatch_total + d->dup_total + d->reorder_total, 0);
    cdch_diff_free(d);
    ck_assert_ptr_null(cdch_oracle_side_json(la, lb, 5));
    cdch_oracle_lines_free(la);
    cdch_oracle_lines_free(lb);
    cdch_oracle_filter_free(f);
    static const char *const bad[] = {"a("};
    ck_assert_ptr_null(cdch_oracle_filter_new(NULL, 0, bad, 1, &err));
    ck_assert_msg(strstr(err.msg, "--normalize 'a(' is not a POSIX extended regular expression"), "%s", err.msg);
}
END_TEST

START_TEST(canonical_pos_removed)
{
    cdch_oracle_lines *l = cdch_oracle_lines_new();
    const char *x = "{\"after\":{\"id\": 1},\"op\":\"insert\",\"pos\":{\"file\":\"binlog.000001\",\"pos\":1234},"
                    "\"gtid\":\"u:5\",\"db\":\"d\",\"table\":\"t\",\"before\":null,\"txn\":5,\"compressed\":true}";
    cdch_oracle_lines_add(l, NULL, x, strlen(x), true);
    ck_assert_str_eq(l->norm[0],
                     "{\"op\":\"insert\",\"db\":\"d\",\"table\":\"t\",\"before\":null,\"after\":{\"id\": 1},\"gtid\":\"u:5\"}");
    ck_assert_str_eq(l->raw[0], x);
    cdch_oracle_lines_free(l);
}
END_TEST

START_TEST(side_by_side)
{
    static const char *const obs[] = {"r1 a", "wm", NULL};
    cdch_oracle_lines *b = lines(NULL, plain), *o = lines(NULL, obs);
    char *j = cdch_oracle_side_json(b, o, 3);
    ck_assert_str_eq(j, "[{\"plain_line\":1,\"plain\":\"r1 a\",\"this_line\":1,\"this\":\"r1 a\",\"same\":true},"
                        "{\"plain_line\":2,\"plain\":\"r2 b\",\"this_line\":2,\"this\":\"wm\",\"same\":false},"
                        "{\"plain_line\":3,\"plain\":\"r3 c\",\"this_line\":null,\"this\":null,\"same\":false}]");
    free(j);
    cdch_oracle_lines_free(b);
    cdch_oracle_lines_free(o);
}
END_TEST

START_TEST(default_names)
{
    char n[80];
    cdch_command_default_name("/venv/bin/python tests/programs/pmr_rows.py --x", n, sizeof n);
    ck_assert_str_eq(n, "pmr_rows");
    cdch_command_default_name("./gomysql_rows", n, sizeof n);
    ck_assert_str_eq(n, "gomysql_rows");
    cdch_command_default_name("mysqlbinlog -R", n, sizeof n);
    ck_assert_str_eq(n, "mysqlbinlog");
    cdch_err err;
    ck_assert_ptr_null(cdch_command_manifest("a b", "x", NULL, false, &err));
    ck_assert_ptr_null(cdch_command_manifest("ok", "  ", NULL, false, &err));
    cdch_manifest *m = cdch_command_manifest("ok", "prog arg", "/tmp", true, &err);
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(m->run[2], "prog arg");
    ck_assert(m->files_source);
    cdch_manifest_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("oracle");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, equal_rows_pass);
    tcase_add_test(tc, missing_rows_silent_skip);
    tcase_add_test(tc, error_exit_parse_failure);
    tcase_add_test(tc, adapter_error_lines_count);
    tcase_add_test(tc, changed_row_mismatch);
    tcase_add_test(tc, repeated_row_duplicate);
    tcase_add_test(tc, moved_row_reorder);
    tcase_add_test(tc, plain_cell_by_count);
    tcase_add_test(tc, ignore_and_normalize);
    tcase_add_test(tc, canonical_pos_removed);
    tcase_add_test(tc, side_by_side);
    tcase_add_test(tc, default_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
