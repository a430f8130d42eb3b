/* test_backlog.c — how many sessions a consumer's cells left need
 * (backlog.c), and the pool's rule that uses it (session.c
 * cdch_session_pool_may_run_for): a costly launch beside live sessions only
 * when the cells left need it; a first, warm or cheap one always. */
#include "backlog.h"
#include "session.h"
#include "testutil.h"

START_TEST(sessions_follow_the_share_of_seconds_left)
{
    cdch_backlog b;
    cdch_backlog_init(&b, 3);
    /* consumer 0: 10 cells of 10 s; 1: 100 cells of 1 s; 2: 800 cells of 1 s */
    for (int i = 0; i < 10; i++)
        cdch_backlog_add(&b, 0, 10);
    for (int i = 0; i < 100; i++)
        cdch_backlog_add(&b, 1, 1);
    for (int i = 0; i < 800; i++)
        cdch_backlog_add(&b, 2, 1);
    double t = cdch_backlog_total(&b);
    ck_assert(t == 1000);
    /* 20 workers: 1000 s left is 50 s of run; 100 s need 2 sessions, 800 s need 16 */
    ck_assert_uint_eq(cdch_backlog_sessions(&b, 0, t, 20), 2);
    ck_assert_uint_eq(cdch_backlog_sessions(&b, 1, t, 20), 2);
    ck_assert_uint_eq(cdch_backlog_sessions(&b, 2, t, 20), 16);
    /* the others' cells taken: consumer 0 alone at the tail gets every worker */
    for (int i = 0; i < 100; i++)
        cdch_backlog_taken(&b, 1, 1);
    for (int i = 0; i < 800; i++)
        cdch_backlog_taken(&b, 2, 1);
    t = cdch_backlog_total(&b);
    ck_assert(t == 100);
    ck_assert_uint_eq(cdch_backlog_sessions(&b, 0, t, 20), 20);
    ck_assert_uint_eq(cdch_backlog_sessions(&b, 1, t, 20), 1); /* nothing left: still one */
    for (int i = 0; i < 10; i++)
        cdch_backlog_taken(&b, 0, 10);
    ck_assert(cdch_backlog_total(&b) == 0);
    ck_assert_uint_eq(cdch_backlog_sessions(&b, 0, 0, 20), 20);
    cdch_backlog_free(&b);
}
END_TEST

START_TEST(seconds_seen_rescale_the_guesses)
{
    cdch_backlog b;
    cdch_backlog_init(&b, 2);
    /* both guessed at 0.5 s a cell, 100 cells each */
    for (int i = 0; i < 100; i++) {
        cdch_backlog_add(&b, 0, 0.5);
        cdch_backlog_add(&b, 1, 0.5);
    }
    ck_assert_uint_eq(cdch_backlog_sessions(&b, 0, cdch_backlog_total(&b), 20), 10);
    /* consumer 0's cells take 10 s each, consumer 1's 0.5 */
    cdch_backlog_taken(&b, 0, 0.5);
    cdch_backlog_seen(&b, 0, 0.5, 10);
    cdch_backlog_taken(&b, 1, 0.5);
    cdch_backlog_seen(&b, 1, 0.5, 0.5);
    ck_assert(cdch_backlog_left(&b, 0) == 99 * 10.0);
    ck_assert(cdch_backlog_left(&b, 1) == 99 * 0.5);
    double t = cdch_backlog_total(&b);
    ck_assert_uint_eq(cdch_backlog_sessions(&b, 0, t, 20), 20); /* 20 * 990 / 1039.5 = 19.05 */
    ck_assert_uint_eq(cdch_backlog_sessions(&b, 1, t, 20), 1);
    /* what a cell without an estimate or a time brings is ignored */
    cdch_backlog_seen(&b, 1, 0, 5);
    cdch_backlog_seen(&b, 1, 0.5, -1);
    ck_assert(cdch_backlog_left(&b, 1) == 99 * 0.5);
    ck_assert(cdch_backlog_left(&b, 7) == 0); /* no such consumer */
    cdch_backlog_free(&b);
}
END_TEST

static cdch_session fakes[4];

START_TEST(a_costly_launch_beside_live_sessions_only_when_needed)
{
    cdch_session_pool sp;
    cdch_session_pool_init(&sp, 2, 6, false, 20);
    cdch_session *ev;
    /* the first session is always launched, even when the cells left "need" none */
    ck_assert(cdch_session_pool_may_run_for(&sp, 0, 1));
    ck_assert_ptr_null(cdch_session_pool_take(&sp, 0, &ev));
    cdch_session_pool_launch_cost(&sp, 0, 3.0); /* a JVM: not cheap */
    /* one live and busy: a second only when the cells left need two */
    ck_assert(!cdch_session_pool_may_run_for(&sp, 0, 1));
    ck_assert(cdch_session_pool_may_run_for(&sp, 0, 2));
    ck_assert(cdch_session_pool_may_run(&sp, 0)); /* the pool's bound alone would launch it */
    ck_assert_ptr_null(cdch_session_pool_take(&sp, 0, &ev));
    ck_assert(!cdch_session_pool_may_run_for(&sp, 0, 2));
    /* an idle one: always (no launch) */
    fakes[0].consumer = 0;
    cdch_session_pool_give(&sp, &fakes[0]);
    ck_assert(cdch_session_pool_may_run_for(&sp, 0, 1));
    ck_assert_ptr_eq(cdch_session_pool_take(&sp, 0, &ev), &fakes[0]);
    /* the pool's bound still holds whatever the need */
    for (int i = 0; i < 4; i++)
        ck_assert_ptr_null(cdch_session_pool_take(&sp, 0, &ev));
    ck_assert_uint_eq(sp.live[0], 6);
    ck_assert(!cdch_session_pool_may_run_for(&sp, 0, 20));
    /* a cheap consumer is not held to the need */
    ck_assert_ptr_null(cdch_session_pool_take(&sp, 1, &ev));
    cdch_session_pool_launch_cost(&sp, 1, 0.05);
    ck_assert(cdch_session_pool_may_run_for(&sp, 1, 1));
    for (int i = 0; i < 6; i++)
        cdch_session_pool_gone(&sp, 0);
    cdch_session_pool_gone(&sp, 1);
    cdch_session_pool_free(&sp);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("backlog");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, sessions_follow_the_share_of_seconds_left);
    tcase_add_test(tc, seconds_seen_rescale_the_guesses);
    tcase_add_test(tc, a_costly_launch_beside_live_sessions_only_when_needed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
