/* test_session.c — the pool of session-mode adapters (session.c): sessions
 * are lent warm, most recently used first; one consumer never has more than
 * per_consumer; the least recently used idle one makes room past `total`;
 * the start and stop lines are the protocol's bytes (consumers/README.md
 * "Session mode"), with /bin/cat as the session process. */
#include <string.h>

#include "session.h"
#include "testutil.h"

static cdch_session *fake(size_t consumer)
{
    static cdch_session pool[16];
    static size_t n;
    cdch_session *s = &pool[n++ % 16];
    memset(s, 0, sizeof *s);
    s->consumer = consumer;
    return s;
}

START_TEST(per_consumer_bound_and_warm_first)
{
    cdch_session_pool sp;
    cdch_session_pool_init(&sp, 3, 2, false, 8);
    cdch_session *ev;
    ck_assert(cdch_session_pool_may_run(&sp, 0));
    ck_assert(!cdch_session_pool_warm(&sp, 0));
    ck_assert_ptr_null(cdch_session_pool_take(&sp, 0, &ev)); /* a launch reserved */
    ck_assert_ptr_null(ev);
    ck_assert_ptr_null(cdch_session_pool_take(&sp, 0, &ev));
    ck_assert(!cdch_session_pool_may_run(&sp, 0)); /* two of consumer 0, both busy */
    ck_assert(cdch_session_pool_may_run(&sp, 1));  /* another consumer is not held back */
    cdch_session *a = fake(0), *b = fake(0);
    cdch_session_pool_give(&sp, a);
    cdch_session_pool_give(&sp, b);
    ck_assert(cdch_session_pool_may_run(&sp, 0));
    ck_assert(cdch_session_pool_warm(&sp, 0));
    ck_assert_ptr_eq(cdch_session_pool_take(&sp, 0, &ev), b); /* most recently used first */
    ck_assert_ptr_eq(cdch_session_pool_take(&sp, 0, &ev), a);
    ck_assert(!cdch_session_pool_may_run(&sp, 0));
    cdch_session_pool_gone(&sp, 0); /* a died */
    ck_assert(cdch_session_pool_may_run(&sp, 0));
    ck_assert_uint_eq(sp.live[0], 1);
    ck_assert_uint_eq(sp.nlive, 1);
    cdch_session_pool_gone(&sp, 0);
    cdch_session_pool_gone(&sp, 0); /* one gone too many does not wrap */
    ck_assert_uint_eq(sp.nlive, 0);
    cdch_session_pool_free(&sp);
}
END_TEST

START_TEST(total_evicts_least_recently_used)
{
    cdch_session_pool sp;
    cdch_session_pool_init(&sp, 4, 4, false, 2);
    cdch_session *ev;
    ck_assert_ptr_null(cdch_session_pool_take(&sp, 0, &ev));
    ck_assert_ptr_null(cdch_session_pool_take(&sp, 1, &ev));
    cdch_session *s0 = fake(0), *s1 = fake(1);
    cdch_session_pool_give(&sp, s0);
    cdch_session_pool_give(&sp, s1);
    /* a third consumer's cell: two processes already, the older idle one goes */
    ck_assert_ptr_null(cdch_session_pool_take(&sp, 2, &ev));
    ck_assert_ptr_eq(ev, s0);
    ck_assert_uint_eq(sp.nlive, 2);
    ck_assert_uint_eq(sp.live[0], 0);
    ck_assert(!cdch_session_pool_warm(&sp, 0));
    ck_assert(cdch_session_pool_warm(&sp, 1));
    ck_assert_ptr_eq(cdch_session_pool_pop(&sp, SIZE_MAX), s1);
    ck_assert_ptr_null(cdch_session_pool_pop(&sp, SIZE_MAX));
    ck_assert_uint_eq(sp.nlive, 1);
    cdch_session_pool_free(&sp);
    ck_assert_uint_eq(cdch_session_default_per_consumer(3), 9);
    ck_assert_uint_ge(cdch_session_default_per_consumer(0), 3);
}
END_TEST

START_TEST(cheap_launches_are_not_bounded)
{
    cdch_session_pool sp;
    cdch_session_pool_init(&sp, 3, 1, false, 4);
    cdch_session *ev;
    ck_assert_ptr_null(cdch_session_pool_take(&sp, 0, &ev));
    ck_assert(!cdch_session_pool_may_run(&sp, 0)); /* not measured yet: the bound holds */
    cdch_session_pool_launch_cost(&sp, 0, 0.02);   /* a Go process */
    ck_assert(cdch_session_pool_may_run(&sp, 0));
    for (int i = 0; i < 3; i++)
        ck_assert_ptr_null(cdch_session_pool_take(&sp, 0, &ev));
    ck_assert(!cdch_session_pool_may_run(&sp, 0)); /* total still holds */
    cdch_session_pool_launch_cost(&sp, 1, 2.5);     /* a JVM's first cell */
    ck_assert_int_eq(sp.cheap[1], 0);
    cdch_session_pool_launch_cost(&sp, 0, 7.5);     /* a heavy cell's launch: the cheap one still bounds it */
    ck_assert_int_eq(sp.cheap[0], 1);
    cdch_session_pool_launch_cost(&sp, 1, 0.1);     /* a launch costs at most its cheapest cell */
    ck_assert_int_eq(sp.cheap[1], 1);
    cdch_session_pool_launch_cost(&sp, 2, -1);      /* unknown: ignored */
    ck_assert_int_eq(sp.cheap[2], -1);
    cdch_session_pool_free(&sp);
    /* --sessions given: the bound holds for cheap launches too */
    cdch_session_pool_init(&sp, 1, 1, true, 4);
    ck_assert_ptr_null(cdch_session_pool_take(&sp, 0, &ev));
    cdch_session_pool_launch_cost(&sp, 0, 0.02);
    ck_assert(!cdch_session_pool_may_run(&sp, 0));
    cdch_session_pool_free(&sp);
}
END_TEST

typedef struct seen {
    char lines[4][256];
    int n;
} seen;

static void on_line(void *ud, const char *line, size_t len)
{
    seen *s = ud;
    if (s->n < 4 && len < sizeof s->lines[0]) {
        memcpy(s->lines[s->n], line, len);
        s->lines[s->n][len] = '\0';
    }
    s->n++;
}

static bool got_two(void *ud) { return ((seen *)ud)->n >= 2; }

START_TEST(start_and_stop_lines)
{
    char *argv[] = {"cat", NULL};
    cdch_proc_opts po = {argv, NULL, NULL, NULL, false};
    cdch_err err;
    cdch_session *s = cdch_session_launch(&po, 5, NULL, &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    ck_assert_uint_eq(s->consumer, 5);
    char *env[] = {"CDCH_PORT=40123", "CDCH_HOST=127.0.0.1", "NOEQUALS", "CDCH_X=a\"b"};
    ck_assert_int_eq(cdch_session_start_cell(s, "7", env, 4, NULL, &err), 0);
    ck_assert_uint_eq(s->cells, 1);
    seen got = {{{0}}, 0};
    double own = -1;
    /* cat echoes the start line, then the stop line: "answered" after the second */
    ck_assert(cdch_session_stop_cell(s, "7", on_line, &got, got_two, &own));
    ck_assert_int_eq(got.n, 2);
    ck_assert_str_eq(got.lines[0], "{\"kind\":\"start\",\"cell\":\"7\",\"env\":{\"CDCH_PORT\":\"40123\","
                                   "\"CDCH_HOST\":\"127.0.0.1\",\"CDCH_X\":\"a\\\"b\"}}");
    ck_assert_str_eq(got.lines[1], "{\"kind\":\"stop\",\"cell\":\"7\"}");
    ck_assert(own >= 0 && own < 10);
    cdch_session_end(s); /* end of stdin: cat exits */
    cdch_session_end(NULL);
}
END_TEST

static bool never(void *ud)
{
    (void)ud;
    return false;
}

START_TEST(stop_unanswered_kills)
{
    char *argv[] = {"sleep", "60", NULL};
    cdch_proc_opts po = {argv, NULL, NULL, NULL, false};
    cdch_err err;
    cdch_session *s = cdch_session_launch(&po, 0, NULL, &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    seen got = {{{0}}, 0};
    double own;
    /* sleep never answers: stopped after 10 s of its own time (it is quiet, so own time runs) */
    ck_assert(!cdch_session_stop_cell(s, "1", on_line, &got, never, &own));
    ck_assert(cdch_proc_exited(s->p));
    cdch_session_end(s);
}
END_TEST

START_TEST(stop_spinning_in_silence_kills_on_cpu)
{
    /* a stop it never answers while it spins on a CPU, printing nothing: killed once it spent
     * CDCH_SESSION_STOP_CPU_S of CPU-seconds, before the 10 s of its own time */
    char *argv[] = {"sh", "-c", "while :; do :; done", NULL};
    cdch_proc_opts po = {argv, NULL, NULL, NULL, false};
    cdch_err err;
    cdch_session *s = cdch_session_launch(&po, 0, NULL, &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    seen got = {{{0}}, 0};
    double own = -1;
    ck_assert(!cdch_session_stop_cell(s, "1", on_line, &got, never, &own));
    ck_assert(cdch_proc_exited(s->p));
    ck_assert_msg(own >= CDCH_SESSION_STOP_CPU_S - 1 && own < 10 - 1, "own %.2f", own);
    cdch_session_end(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("session");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, per_consumer_bound_and_warm_first);
    tcase_add_test(tc, total_evicts_least_recently_used);
    tcase_add_test(tc, cheap_launches_are_not_bounded);
    tcase_add_test(tc, start_and_stop_lines);
    tcase_add_test(tc, stop_unanswered_kills);
    tcase_add_test(tc, stop_spinning_in_silence_kills_on_cpu);
    tcase_set_timeout(tc, 90);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
