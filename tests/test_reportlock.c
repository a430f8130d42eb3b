/* test_reportlock.c — one harness at a time in a report directory
 * (reportlock.c): the lock creates the directory and names its holder; a
 * second taker (another open file description, as another harness has) is
 * refused with the directory, the holder's pid and what to do; released or
 * closed, it is free again; a directory that cannot be made is an error
 * naming it. Across processes and with a harness killed by SIGKILL:
 * tests/report_lock.sh. */
#include "reportlock.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "setup.h"

START_TEST(second_taker_refused_naming_holder)
{
    char parent[] = "/tmp/cdch-test-reportlock-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(parent));
    char dir[256], lock[300];
    snprintf(dir, sizeof dir, "%s/reports/latest", parent); /* parents missing: made */
    snprintf(lock, sizeof lock, "%s/%s", dir, CDCH_REPORTLOCK_FILE);
    cdch_err err;
    int fd = cdch_reportlock_take(dir, &err);
    ck_assert_int_ge(fd, 0);
    ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC); /* adapters launched by the run do not hold it */
    size_t len = 0;
    char *who = (char *)tu_read_file(lock, &len);
    ck_assert_int_eq(atol(who), (long)getpid());
    free(who);

    ck_assert_int_eq(cdch_reportlock_take(dir, &err), -1);
    char want[400];
    snprintf(want, sizeof want, "the report directory %s is in use by another cdcharness (pid %ld)", dir,
             (long)getpid());
    ck_assert_msg(strstr(err.msg, want) != NULL, "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "its own directory (--report-dir") != NULL, "%s", err.msg);

    cdch_reportlock_release(fd);
    fd = cdch_reportlock_take(dir, &err); /* free again; the file stays */
    ck_assert_int_ge(fd, 0);
    cdch_reportlock_release(fd);
    ck_assert_int_eq(access(lock, F_OK), 0);
    cdch_reportlock_release(-1); /* nothing */
    cdch_rm_tree(parent);
}
END_TEST

START_TEST(unmakeable_dir_is_an_error_naming_it)
{
    cdch_err err;
    ck_assert_int_eq(cdch_reportlock_take("/proc/cdch-no-such/reports", &err), -1);
    ck_assert_msg(strstr(err.msg, "/proc/cdch-no-such") != NULL, "%s", err.msg);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("reportlock");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, second_taker_refused_naming_holder);
    tcase_add_test(tc, unmakeable_dir_is_an_error_naming_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
