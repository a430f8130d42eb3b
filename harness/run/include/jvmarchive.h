/* jvmarchive.h — class-data archives of the Java adapters' JVMs
 * (consumers/README.md "JVM options": manifest `class_archive: true`).
 *
 * A JVM session of Debezium or Flink CDC spends one to four CPU-seconds
 * loading and verifying the classes of its jars before its first cell. JDK
 * 13+ can write the classes a run loaded into an archive when it exits
 * (-XX:ArchiveClassesAtExit) and map them from it at the next launch
 * (-XX:SharedArchiveFile): the same classes from the same jars, parsed
 * once. One archive per installed version, CACHE/adapter.jsa:
 *
 * - a launch uses the archive when it is current: written after every jar
 *   of the launch's class path (-cp; a wildcard entry stands for the jars
 *   of its folder) and after the JVM's own library (a JDK update makes it
 *   stale);
 * - else one launch at a time writes it (flock on CACHE/adapter.jsa.lock,
 *   across harness processes): its JVM writes a temporary file when it
 *   exits, kept (renamed over adapter.jsa) only when the JVM exited by
 *   itself with status 0 and no jar changed meanwhile; the other launches
 *   of that moment run without one;
 * - the JVM's unified-logging warnings (a rejected archive says so) go to
 *   stderr, never to stdout, the adapter's event channel
 *   (-Xlog:disable -Xlog:all=warning:stderr).
 *
 * The JVM checks the archive itself as well (its jars' sizes and times,
 * its own build) and runs without it when it does not match: an archive
 * can cost a launch its saving, never its classes.
 *
 * Owns: a cdch_jvm_archive's strings and its lock descriptor, from
 * cdch_jvm_archive_argv to cdch_jvm_archive_finish. */
#ifndef CDCH_JVMARCHIVE_H
#define CDCH_JVMARCHIVE_H

#include <stdbool.h>

typedef struct cdch_jvm_archive {
    int lock_fd;   /* >= 0: this launch writes the archive (holds CACHE/adapter.jsa.lock) */
    char *path;    /* CACHE/adapter.jsa */
    char *tmp;     /* where the writing JVM puts it at exit */
    char **argv;   /* a copy of the writing launch's argv (its class path, checked again at the end) */
    long long newest_ns; /* the newest class-path jar or JVM library when the writing launch began */
} cdch_jvm_archive;

#define CDCH_JVM_ARCHIVE_INIT {-1, NULL, NULL, NULL, 0}

/* The archive's file name inside a version's cache directory. */
#define CDCH_JVM_ARCHIVE_NAME "adapter.jsa"

/* A copy of argv (NULL-terminated, argv[0] the java launcher) with the
 * archive's options inserted after argv[0]: -XX:SharedArchiveFile when
 * CACHE/adapter.jsa is current, -XX:ArchiveClassesAtExit when it is not
 * and may_write (a session launch, which ends by the end of its stdin) and
 * no other launch is writing it, else none; the logging options always.
 * *a is set (CDCH_JVM_ARCHIVE_INIT when nothing is written). The caller
 * frees the array and its strings (cdch_jvm_archive_argv_free). */
char **cdch_jvm_archive_argv(char *const *argv, const char *cache, bool may_write, cdch_jvm_archive *a);
void cdch_jvm_archive_argv_free(char **argv);

/* Whether this launch writes the archive. */
bool cdch_jvm_archive_writing(const cdch_jvm_archive *a);

/* The launch's JVM is gone: clean (it exited by itself, status 0): keep
 * what it wrote, unless a jar of its class path changed since it began;
 * else remove it. Releases the lock and frees; *a is then
 * CDCH_JVM_ARCHIVE_INIT. Accepts an archive that writes nothing. */
void cdch_jvm_archive_finish(cdch_jvm_archive *a, bool clean);

/* Whether the archive at path is current for the class path of argv and
 * its JVM (see above). */
bool cdch_jvm_archive_current(const char *path, char *const *argv);

#endif
