/* test_proc.c — adapter processes (proc.c): stdout split into lines as it
 * arrives, whatever the reads cut it into. */
#include "proc.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

typedef struct got {
    size_t n;
    size_t len[8];
    char *first; /* the first line, copied */
    bool terminated; /* every line had its NUL at line[len] */
} got;

static void on_line(void *ud, const char *line, size_t len)
{
    got *g = ud;
    if (g->n < 8)
        g->len[g->n] = len;
    if (g->n == 0) {
        g->first = malloc(len + 1);
        ck_assert_ptr_nonnull(g->first);
        memcpy(g->first, line, len + 1);
    }
    g->terminated = g->terminated && line[len] == '\0';
    g->n++;
}

/* A 3 MB line written in two halves with a pause between them (many reads, many deliveries, the
 * newline search resumed where it stopped), then a short line, an empty one and a last line
 * without its newline (delivered at exit). */
START_TEST(lines_across_reads)
{
    char *argv[] = {"/bin/sh", "-c",
                    "head -c 1500000 /dev/zero | tr '\\0' a; sleep 0.3; head -c 1500000 /dev/zero | tr '\\0' b; "
                    "printf '\\nshort\\n\\nlast'",
                    NULL};
    cdch_proc_opts o = {argv, NULL, NULL, NULL, false};
    cdch_err err;
    cdch_proc *p = cdch_proc_spawn(&o, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    got g = {0, {0}, NULL, true};
    for (int rounds = 0; rounds < 600 && cdch_proc_pump(p, 100, on_line, &g); rounds++) {
    }
    ck_assert(cdch_proc_exited(p));
    ck_assert_uint_eq(g.n, 4);
    ck_assert_uint_eq(g.len[0], 3000000);
    ck_assert_uint_eq(g.len[1], 5);
    ck_assert_uint_eq(g.len[2], 0);
    ck_assert_uint_eq(g.len[3], 4);
    ck_assert(g.terminated);
    size_t as = strspn(g.first, "a"), bs = strspn(g.first + as, "b");
    ck_assert_uint_eq(as, 1500000);
    ck_assert_uint_eq(bs, 1500000);
    free(g.first);
    cdch_proc_free(p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("proc");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, lines_across_reads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
