/* test_admit.c — admission of heavy cells and setups (admit.c): never more
 * heavy things than slots, light cells always, one heavy thing always. */
#include "admit.h"
#include "testutil.h"

START_TEST(slots_bound_heavy_work)
{
    cdch_admit a;
    cdch_admit_init(&a, 2);
    ck_assert(cdch_admit_may_start(&a, true));
    cdch_admit_started(&a, true);
    cdch_admit_started(&a, true); /* e.g. a cold setup and a heavy cell */
    ck_assert(!cdch_admit_may_start(&a, true));
    ck_assert(cdch_admit_may_start(&a, false)); /* light cells are never held back */
    cdch_admit_started(&a, false);
    ck_assert_uint_eq(a.running, 2);
    cdch_admit_ended(&a, true);
    ck_assert(cdch_admit_may_start(&a, true));
    cdch_admit_ended(&a, true);
    cdch_admit_ended(&a, true); /* one end too many does not wrap */
    ck_assert_uint_eq(a.running, 0);
    cdch_admit_init(&a, 0);
    ck_assert_uint_ge(a.slots, 1); /* the online cores */
    cdch_admit_init(&a, 1);
    cdch_admit_started(&a, true);
    ck_assert(!cdch_admit_may_start(&a, true));
}
END_TEST

START_TEST(what_is_heavy)
{
    ck_assert(cdch_admit_heavy(30, 1000));             /* measured: 30 CPU-s */
    ck_assert(!cdch_admit_heavy(0.5, (uint64_t)1 << 30)); /* measured light, whatever its size */
    ck_assert(cdch_admit_heavy(-1, (uint64_t)64 << 20)); /* unknown: by stream size */
    ck_assert(!cdch_admit_heavy(-1, (uint64_t)1 << 20));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("admit");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, slots_bound_heavy_work);
    tcase_add_test(tc, what_is_heavy);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
