/* test_announce.c — announced losses (verdict `announced-skip`): which error
 * lines name a skipped event (announce.c), and how the diff and the verdict
 * use them (diff.c's holes, verdict.c): exact inputs, exact outputs. */
#include "announce.h"
#include "diff.h"
#include "events.h"
#include "testutil.h"
#include "verdict.h"

#include <stdio.h>
#include <string.h>

#define G "3e11fa47-71ca-11e1-9e33-c80aa9429562"
/* t.o(id int): txn 1 plain, txns 2, 3 and 4 compressed, txn 5 plain */
#define ROW(k, c)                                                                                                     \
    "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":" #k "},\"gtid\":\"" G      \
    ":" #k "\",\"pos\":{\"file\":\"b.000001\",\"pos\":" #k "000},\"txn\":" #k ",\"compressed\":" c "}\n"
#define OBS(k)                                                                                                        \
    "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":" #k "},\"gtid\":\"" G      \
    ":" #k "\",\"pos\":{\"file\":\"b.000001\",\"pos\":" #k "000}}\n"
#define EXPECTED ROW(1, "false") ROW(2, "true") ROW(3, "true") ROW(4, "true") ROW(5, "false")
#define ERR(m) "{\"kind\":\"error\",\"message\":\"" m "\"}\n"

static cdch_change_list *lines(const char *text, bool strict)
{
    cdch_change_list *l = cdch_changes_new();
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        cdch_err err;
        ck_assert_msg(cdch_changes_add_line(l, p, n, strict, &err) == 0, "line: %.*s: %s", (int)n, p, err.msg);
        p += n + (nl ? 1 : 0);
    }
    return l;
}

/* The verdict of observed against EXPECTED (a server consumer that went on), its summary into s. */
static cdch_verdict verdict_of(const char *observed, char *s, size_t n, cdch_diff **dout)
{
    cdch_change_list *e = lines(EXPECTED, true), *o = lines(observed, false);
    const char *names[] = {"id"};
    cdch_cmp_kind kinds[] = {CDCH_CMP_INT};
    int scales[] = {-1};
    cdch_diff_schema *sch = cdch_diff_schema_new();
    cdch_diff_schema_add_table(sch, "t", "o", 1, names, kinds, scales);
    cdch_diff *d = cdch_diff_run(e, o, sch, NULL, 0);
    cdch_outcome oc;
    memset(&oc, 0, sizeof oc);
    oc.reason = CDCH_STOP_DONE;
    oc.exit_status = -1;
    oc.timeout_s = 60;
    cdch_judgement j;
    cdch_verdict_judge(d, o, &oc, &j);
    snprintf(s, n, "%s", j.summary);
    cdch_verdict v = j.verdict;
    cdch_judgement_free(&j);
    cdch_diff_schema_free(sch);
    cdch_changes_free(e);
    cdch_changes_free(o);
    if (dout)
        *dout = d;
    else
        cdch_diff_free(d);
    return v;
}

START_TEST(names_the_event)
{
    /* compressed transactions: type 40 by number or by name, in the spellings libraries use */
    ck_assert(cdch_announce_names_event("WARN unknown binlog event type 40 will be ignored", true, false));
    ck_assert(cdch_announce_names_event("Skipping unrecognized binlog event Unknown type:40 from: b.000001:4", true, false));
    ck_assert(cdch_announce_names_event("Server sent a TRANSACTION_PAYLOAD_EVENT ... NOT being emitted", true, false));
    ck_assert(cdch_announce_names_event("cannot decode Transaction_payload", true, false));
    ck_assert(cdch_announce_names_event("EventType=40", false, false) == false); /* not a compressed txn */
    ck_assert(!cdch_announce_names_event("event type 400", true, false));
    ck_assert(!cdch_announce_names_event("unknown event 40", true, false)); /* no "type": any number */
    ck_assert(!cdch_announce_names_event("lost connection to the primary, reconnecting", true, false));
    ck_assert(!cdch_announce_names_event("event type 39 skipped", true, false));
    ck_assert(!cdch_announce_names_event(NULL, true, true));
    /* partial JSON updates: type 39 */
    ck_assert(cdch_announce_names_event("Unknown event type 39", false, true));
    ck_assert(cdch_announce_names_event("PARTIAL_UPDATE_ROWS_EVENT is not supported", false, true));
    ck_assert(cdch_announce_names_event("skipping Update_rows_partial", false, true));
    ck_assert(!cdch_announce_names_event("event type 40", false, true));
}
END_TEST

START_TEST(one_line_naming_the_event_announces_every_later_hole)
{
    char s[1024];
    cdch_diff *d;
    /* said once at the first payload, then every compressed transaction dropped (@vlasky/zongji >= 0.7.0) */
    ck_assert_int_eq(verdict_of(OBS(1) ERR("Server sent a TRANSACTION_PAYLOAD_EVENT; rows are NOT being emitted") OBS(5),
                                s, sizeof s, &d),
                     CDCH_VERDICT_ANNOUNCED_SKIP);
    ck_assert_uint_eq(d->nmissing, 3);
    for (size_t i = 0; i < 3; i++)
        ck_assert_str_eq(d->missing[i].reported, "Server sent a TRANSACTION_PAYLOAD_EVENT; rows are NOT being emitted");
    ck_assert_str_eq(s, "3 transaction(s) missing while later ones arrived, announced by the consumer: txn 2*, 3*, 4* "
                        "(3 of 3 compressed, * = compressed); first: txn 2 (gtid " G ":2, ending at b.000001:2000, "
                        "compressed, 1 row); consumer said: Server sent a TRANSACTION_PAYLOAD_EVENT; rows are NOT "
                        "being emitted");
    cdch_diff_free(d);
    /* a start-up warning naming type 40 announces them too */
    ck_assert_int_eq(verdict_of(ERR("WARN unknown binlog event type 40 will be ignored") OBS(1) OBS(5), s, sizeof s, NULL),
                     CDCH_VERDICT_ANNOUNCED_SKIP);
    /* a generic warning announces one hole only: the others are silent */
    ck_assert_int_eq(verdict_of(OBS(1) ERR("WARN slow consumer: queue 90% full") OBS(5), s, sizeof s, &d),
                     CDCH_VERDICT_SILENT_SKIP);
    ck_assert_str_eq(d->missing[0].reported, "WARN slow consumer: queue 90% full");
    ck_assert_ptr_null(d->missing[1].reported);
    ck_assert_str_eq(s, "2 transaction(s) missing while later ones arrived: txn 3*, 4* (2 of 2 compressed, * = "
                        "compressed); first: txn 3 (gtid " G ":3, ending at b.000001:3000, compressed, 1 row) [also: "
                        "announced-skip]");
    cdch_diff_free(d);
    /* said only after the first row that followed the holes: too late, silent */
    ck_assert_int_eq(verdict_of(OBS(1) OBS(5) ERR("skipped event type 40"), s, sizeof s, &d), CDCH_VERDICT_SILENT_SKIP);
    ck_assert_ptr_null(d->missing[0].reported);
    cdch_diff_free(d);
    /* a line naming another event (type 39) does not announce a compressed transaction */
    ck_assert_int_eq(verdict_of(OBS(1) ERR("Unknown event type 39") OBS(5), s, sizeof s, &d), CDCH_VERDICT_SILENT_SKIP);
    ck_assert_ptr_null(d->missing[1].reported);
    cdch_diff_free(d);
    /* announced-skip outranks a wrong row: the worst class wins */
    ck_assert_int_eq(verdict_of(ERR("event type 40 skipped") OBS(1)
                                "{\"op\":\"insert\",\"db\":\"t\",\"table\":\"o\",\"before\":null,\"after\":{\"id\":5},"
                                "\"gtid\":\"" G ":5\",\"pos\":{\"file\":\"b.000001\",\"pos\":5000},\"x\":1}\n",
                                s, sizeof s, NULL),
                     CDCH_VERDICT_ANNOUNCED_SKIP);
}
END_TEST

/* The tail: nothing arrived after the missing transactions. */
START_TEST(tail_announced_only_by_a_consumer_that_stayed_up)
{
    cdch_change_list *e = lines(EXPECTED, true), *o = lines(OBS(1) ERR("Event deserialization failure: Unknown event type 40"), false);
    const char *names[] = {"id"};
    cdch_cmp_kind kinds[] = {CDCH_CMP_INT};
    int scales[] = {-1};
    cdch_diff_schema *sch = cdch_diff_schema_new();
    cdch_diff_schema_add_table(sch, "t", "o", 1, names, kinds, scales);
    cdch_diff *d = cdch_diff_run(e, o, sch, NULL, 0);
    ck_assert_uint_eq(d->tail, 4);
    cdch_outcome oc;
    memset(&oc, 0, sizeof oc);
    oc.reason = CDCH_STOP_IDLE_AFTER_STREAM;
    oc.stream_delivered = true;
    oc.exit_status = -1;
    cdch_judgement j;
    cdch_verdict_judge(d, o, &oc, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_ANNOUNCED_SKIP);
    ck_assert_str_eq(j.summary, "received the whole stream and went idle without txn 2*, 3*, 4* and 1 more (3 of 4 "
                                "compressed, * = compressed), having said it skips that event; first: txn 2 (gtid " G
                                ":2, ending at b.000001:2000, compressed, 1 row); consumer said: Event deserialization "
                                "failure: Unknown event type 40");
    cdch_judgement_free(&j);
    /* the same, exited: it stopped (parse-failure) */
    oc.reason = CDCH_STOP_EXITED;
    oc.exit_status = 1;
    cdch_verdict_judge(d, o, &oc, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_PARSE_FAILURE);
    cdch_judgement_free(&j);
    cdch_diff_free(d);
    cdch_changes_free(o);
    /* idle after a line that names no event: it stopped, as far as anyone can tell */
    o = lines(OBS(1) ERR("lost connection"), false);
    d = cdch_diff_run(e, o, sch, NULL, 0);
    oc.reason = CDCH_STOP_IDLE_AFTER_STREAM;
    oc.exit_status = -1;
    cdch_verdict_judge(d, o, &oc, &j);
    ck_assert_int_eq(j.verdict, CDCH_VERDICT_PARSE_FAILURE);
    cdch_judgement_free(&j);
    cdch_diff_free(d);
    cdch_changes_free(o);
    cdch_diff_schema_free(sch);
    cdch_changes_free(e);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("announce");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, names_the_event);
    tcase_add_test(tc, one_line_naming_the_event_announces_every_later_hole);
    tcase_add_test(tc, tail_announced_only_by_a_consumer_that_stayed_up);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
