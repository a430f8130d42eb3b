/* jvmarchive.c — class-data archives of the Java adapters' JVMs (jvmarchive.h). */
#define _GNU_SOURCE
#include "jvmarchive.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s)
        abort();
    memcpy(s, a, la);
    s[la] = '/';
    memcpy(s + la + 1, b, lb + 1);
    return s;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    int rc = vasprintf(&s, f, ap);
    va_end(ap);
    if (rc < 0)
        abort();
    return s;
}

static long long mtime_ns(const struct stat *st)
{
    return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

/* The newer of *newest and path's modification time (a missing path: unchanged). */
static void newer(long long *newest, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && mtime_ns(&st) > *newest)
        *newest = mtime_ns(&st);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t ls = strlen(s), lt = strlen(tail);
    return ls >= lt && strcmp(s + ls - lt, tail) == 0;
}

/* One class-path entry: a file or folder, or a wildcard entry (the jars of its folder, as the java
 * launcher expands it). */
static void newer_entry(long long *newest, const char *entry)
{
    size_t n = strlen(entry);
    if (n == 0)
        return;
    if (strcmp(entry, "*") != 0 && !ends_with(entry, "/*")) {
        newer(newest, entry);
        return;
    }
    char *dir = cdch_xstrdup(entry);
    dir[n - 1] = '\0';
    if (!dir[0]) {
        free(dir);
        dir = cdch_xstrdup(".");
    }
    newer(newest, dir); /* a jar added or removed */
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!ends_with(e->d_name, ".jar") && !ends_with(e->d_name, ".JAR"))
                continue;
            char *p = join(dir, e->d_name);
            newer(newest, p);
            free(p);
        }
        closedir(d);
    }
    free(dir);
}

/* The java launcher's real path (argv0 looked up in PATH when it has no slash); NULL when not found. */
static char *launcher(const char *argv0)
{
    if (strchr(argv0, '/'))
        return realpath(argv0, NULL);
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    char *copy = cdch_xstrdup(path), *save = NULL, *found = NULL;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *p = join(*d ? d : ".", argv0);
        if (access(p, X_OK) == 0)
            found = realpath(p, NULL);
        free(p);
    }
    free(copy);
    return found;
}

/* The newest of the launch's class-path entries, its java launcher and the JVM library beside it. */
static long long newest_input(char *const *argv)
{
    long long newest = 0;
    for (size_t i = 1; argv[i]; i++) {
        const char *cp = NULL;
        if ((strcmp(argv[i], "-cp") == 0 || strcmp(argv[i], "-classpath") == 0 ||
             strcmp(argv[i], "--class-path") == 0) &&
            argv[i + 1])
            cp = argv[++i];
        else if (strncmp(argv[i], "--class-path=", 13) == 0)
            cp = argv[i] + 13;
        if (!cp)
            continue;
        char *copy = cdch_xstrdup(cp), *save = NULL;
        for (char *e = strtok_r(copy, ":", &save); e; e = strtok_r(NULL, ":", &save))
            newer_entry(&newest, e);
        free(copy);
    }
    char *java = argv[0] ? launcher(argv[0]) : NULL;
    if (java) {
        newer(&newest, java);
        char *bin = strrchr(java, '/');
        if (bin) {
            *bin = '\0';
            char *lib = join(java, "../lib/server/libjvm.so");
            newer(&newest, lib);
            free(lib);
        }
        free(java);
    }
    return newest;
}

bool cdch_jvm_archive_current(const char *path, char *const *argv)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return false;
    return mtime_ns(&st) >= newest_input(argv);
}

bool cdch_jvm_archive_writing(const cdch_jvm_archive *a) { return a->lock_fd >= 0; }

static char **copy_argv(char *const *argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    char **out = cdch_xcalloc(n + 1, sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i] = cdch_xstrdup(argv[i]);
    return out;
}

void cdch_jvm_archive_argv_free(char **argv)
{
    if (!argv)
        return;
    for (size_t i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
}

/* Temporary files a writer left behind (killed harness): the lock's holder removes them. */
static void remove_leftovers(const char *cache)
{
    DIR *d = opendir(cache);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, CDCH_JVM_ARCHIVE_NAME ".", sizeof CDCH_JVM_ARCHIVE_NAME) == 0 &&
            ends_with(e->d_name, ".tmp")) {
            char *p = join(cache, e->d_name);
            unlink(p);
            free(p);
        }
    }
    closedir(d);
}

/* Take the writer's lock (no wait); -1 when another launch holds it or it cannot be made. */
static int take_lock(const char *cache)
{
    char *lock = join(cache, CDCH_JVM_ARCHIVE_NAME ".lock");
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    free(lock);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

char **cdch_jvm_archive_argv(char *const *argv, const char *cache, bool may_write, cdch_jvm_archive *a)
{
    static unsigned long seq;
    cdch_jvm_archive init = CDCH_JVM_ARCHIVE_INIT;
    *a = init;
    size_t n = 0;
    while (argv[n])
        n++;
    char **out = cdch_xcalloc(n + 4, sizeof *out);
    size_t k = 0;
    if (n == 0)
        return out;
    out[k++] = cdch_xstrdup(argv[0]);
    out[k++] = cdch_xstrdup("-Xlog:disable");
    out[k++] = cdch_xstrdup("-Xlog:all=warning:stderr");
    char *path = join(cache, CDCH_JVM_ARCHIVE_NAME);
    char *opt = NULL;
    if (cdch_jvm_archive_current(path, argv)) {
        opt = NULL;
    } else if (may_write && (a->lock_fd = take_lock(cache)) >= 0) {
        if (cdch_jvm_archive_current(path, argv)) { /* written while we asked for the lock */
            close(a->lock_fd);
            a->lock_fd = -1;
        } else {
            remove_leftovers(cache);
            unsigned long s = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
            a->tmp = fmt("%s.%ld.%lu.tmp", path, (long)getpid(), s);
            a->argv = copy_argv(argv);
            a->newest_ns = newest_input(argv);
            a->path = path;
            path = NULL;
            opt = fmt("-XX:ArchiveClassesAtExit=%s", a->tmp);
        }
    }
    if (!opt && path && cdch_jvm_archive_current(path, argv)) {
        opt = fmt("-XX:SharedArchiveFile=%s", path);
    }
    free(path);
    if (opt)
        out[k++] = opt;
    for (size_t i = 1; i < n; i++)
        out[k++] = cdch_xstrdup(argv[i]);
    out[k] = NULL;
    return out;
}

void cdch_jvm_archive_finish(cdch_jvm_archive *a, bool clean)
{
    if (a->lock_fd >= 0) {
        struct stat st;
        bool keep = clean && a->tmp && stat(a->tmp, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
                    a->argv && newest_input(a->argv) <= a->newest_ns;
        if (!(keep && rename(a->tmp, a->path) == 0) && a->tmp)
            unlink(a->tmp);
        close(a->lock_fd);
    }
    free(a->path);
    free(a->tmp);
    cdch_jvm_archive_argv_free(a->argv);
    cdch_jvm_archive init = CDCH_JVM_ARCHIVE_INIT;
    *a = init;
}
