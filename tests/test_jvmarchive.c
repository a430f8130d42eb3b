/* test_jvmarchive.c — class-data archives of the Java adapters' JVMs
 * (jvmarchive.c): the exact options a launch gets, one writer at a time,
 * what a writer's end keeps, and when an archive is stale (a jar of the
 * class path or the JVM library newer than it). A fake JDK and cache
 * folder in a temporary directory; no JVM runs. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jvmarchive.h"
#include "testutil.h"

static char root[64], java[128], libjvm[128], cache[128], jar_a[160], jar_b[160], cp[300], archive[160];

static void put(const char *path, const char *content, time_t mtime)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(content, f);
    fclose(f);
    struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void mk(const char *fmt, const char *a)
{
    char p[200];
    snprintf(p, sizeof p, fmt, a);
    ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/cdch-jsa-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(root));
    mk("%s/jdk", root);
    mk("%s/jdk/bin", root);
    mk("%s/jdk/lib", root);
    mk("%s/jdk/lib/server", root);
    mk("%s/cache", root);
    mk("%s/cache/lib", root);
    snprintf(java, sizeof java, "%s/jdk/bin/java", root);
    snprintf(libjvm, sizeof libjvm, "%s/jdk/lib/server/libjvm.so", root);
    snprintf(cache, sizeof cache, "%s/cache", root);
    snprintf(jar_a, sizeof jar_a, "%s/lib/a.jar", cache);
    snprintf(jar_b, sizeof jar_b, "%s/lib/b.jar", cache);
    snprintf(cp, sizeof cp, "%s/adapter.jar:%s/lib/*", cache, cache);
    snprintf(archive, sizeof archive, "%s/adapter.jsa", cache);
    put(java, "#!/bin/sh\n", 1000);
    chmod(java, 0755);
    put(libjvm, "elf", 1000);
    char p[200];
    snprintf(p, sizeof p, "%s/adapter.jar", cache);
    put(p, "jar", 1000);
    put(jar_a, "jar a", 1000);
    put(jar_b, "jar b", 1000);
    char dir[200];
    snprintf(dir, sizeof dir, "%s/lib", cache);
    struct timespec ts[2] = {{1000, 0}, {1000, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, dir, ts, 0), 0);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    ck_assert_int_eq(system(cmd), 0);
}

static size_t count(char **v)
{
    size_t n = 0;
    while (v[n])
        n++;
    return n;
}

/* The launch's argv with the archive option (NULL: none) at index 3. */
static void assert_argv(char **got, const char *opt)
{
    ck_assert_uint_eq(count(got), opt ? 8 : 7);
    ck_assert_str_eq(got[0], java);
    ck_assert_str_eq(got[1], "-Xlog:disable");
    ck_assert_str_eq(got[2], "-Xlog:all=warning:stderr");
    size_t k = 3;
    if (opt)
        ck_assert_str_eq(got[k++], opt);
    ck_assert_str_eq(got[k++], "-XX:+UseSerialGC");
    ck_assert_str_eq(got[k++], "-cp");
    ck_assert_str_eq(got[k++], cp);
    ck_assert_str_eq(got[k++], "cdch.Main");
}

static bool exists(const char *p) { return access(p, F_OK) == 0; }

/* Claim the writer's part; returns the temporary path the JVM would write. */
static char *claim(cdch_jvm_archive *a, char **argv)
{
    char **got = cdch_jvm_archive_argv(argv, cache, true, a);
    ck_assert(cdch_jvm_archive_writing(a));
    char want[300];
    snprintf(want, sizeof want, "-XX:ArchiveClassesAtExit=%s", a->tmp);
    assert_argv(got, want);
    ck_assert_int_eq(strncmp(a->tmp, archive, strlen(archive)), 0);
    cdch_jvm_archive_argv_free(got);
    return a->tmp;
}

START_TEST(write_once_then_map)
{
    char *argv[] = {java, "-XX:+UseSerialGC", "-cp", cp, "cdch.Main", NULL};
    cdch_jvm_archive a, b;
    /* a one-shot launch never writes: the logging options only */
    char **got = cdch_jvm_archive_argv(argv, cache, false, &a);
    assert_argv(got, NULL);
    ck_assert(!cdch_jvm_archive_writing(&a));
    cdch_jvm_archive_argv_free(got);
    cdch_jvm_archive_finish(&a, true);
    ck_assert(!exists(archive));

    /* a leftover of a killed writer goes when the next writer begins */
    char left[200];
    snprintf(left, sizeof left, "%s.999.1.tmp", archive);
    put(left, "half", 1000);
    char *tmp = claim(&a, argv);
    ck_assert(!exists(left));
    /* a second launch meanwhile neither writes nor maps */
    got = cdch_jvm_archive_argv(argv, cache, true, &b);
    assert_argv(got, NULL);
    ck_assert(!cdch_jvm_archive_writing(&b));
    cdch_jvm_archive_argv_free(got);
    /* the JVM was killed after writing: nothing kept */
    put(tmp, "archive 1", time(NULL));
    cdch_jvm_archive_finish(&a, false);
    ck_assert(!exists(archive));
    ck_assert(!exists(tmp));
    ck_assert_int_eq(a.lock_fd, -1);
    ck_assert_ptr_null(a.tmp);

    /* the lock went with it: the next launch writes; exited clean without a file: nothing kept */
    claim(&a, argv);
    cdch_jvm_archive_finish(&a, true);
    ck_assert(!exists(archive));

    /* exited clean with its archive: kept */
    tmp = claim(&a, argv);
    char keep[200];
    snprintf(keep, sizeof keep, "%s", tmp);
    put(keep, "archive 2", time(NULL));
    cdch_jvm_archive_finish(&a, true);
    ck_assert(!exists(keep));
    size_t len;
    uint8_t *content = tu_read_file(archive, &len);
    ck_assert_str_eq((char *)content, "archive 2");
    free(content);
    ck_assert(cdch_jvm_archive_current(archive, argv));

    /* the next launches map it, and none writes */
    char want[300];
    snprintf(want, sizeof want, "-XX:SharedArchiveFile=%s", archive);
    for (int i = 0; i < 2; i++) {
        got = cdch_jvm_archive_argv(argv, cache, i == 0, &a);
        assert_argv(got, want);
        ck_assert(!cdch_jvm_archive_writing(&a));
        cdch_jvm_archive_argv_free(got);
    }
}
END_TEST

START_TEST(stale_when_a_jar_or_the_jvm_is_newer)
{
    char *argv[] = {java, "-XX:+UseSerialGC", "-cp", cp, "cdch.Main", NULL};
    put(archive, "archive", time(NULL) - 10);
    ck_assert(cdch_jvm_archive_current(archive, argv));
    put(jar_b, "jar b, rebuilt", time(NULL)); /* a jar matched by lib/STAR */
    ck_assert(!cdch_jvm_archive_current(archive, argv));
    put(jar_b, "jar b", 1000);
    ck_assert(cdch_jvm_archive_current(archive, argv));
    put(libjvm, "elf 2", time(NULL)); /* a JDK update */
    ck_assert(!cdch_jvm_archive_current(archive, argv));
    put(libjvm, "elf", 1000);
    put(jar_a, "jar a", 1000);
    ck_assert(cdch_jvm_archive_current(archive, argv));
    /* an empty archive is not one */
    put(archive, "", time(NULL));
    ck_assert(!cdch_jvm_archive_current(archive, argv));
}
END_TEST

START_TEST(jar_changed_while_writing_is_not_kept)
{
    char *argv[] = {java, "-XX:+UseSerialGC", "-cp", cp, "cdch.Main", NULL};
    cdch_jvm_archive a;
    char *tmp = claim(&a, argv);
    put(tmp, "archive of the old jars", time(NULL));
    put(jar_a, "jar a, reinstalled", time(NULL) + 5);
    cdch_jvm_archive_finish(&a, true);
    ck_assert(!exists(archive));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("jvmarchive");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, write_once_then_map);
    tcase_add_test(tc, stale_when_a_jar_or_the_jvm_is_newer);
    tcase_add_test(tc, jar_changed_while_writing_is_not_kept);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
