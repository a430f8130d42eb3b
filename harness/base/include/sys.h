/* sys.h — the few operating-system services every module needs, in one
 * place: a monotonic clock, reading a whole file or a small /proc entry,
 * killing the processes an environment entry marks, sorting C strings.
 *
 * Owns: the buffer cdch_read_file returns (the caller frees it).
 */
#ifndef CDCH_SYS_H
#define CDCH_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "err.h"

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t cdch_now_ns(void);

/* CPU time of the calling thread in nanoseconds (0 if unavailable). A system
 * call, not the vDSO: keep it out of per-event paths unless asked for. */
uint64_t cdch_thread_cpu_ns(void);

/* User + system CPU seconds of a getrusage / wait4 result. */
struct rusage;
double cdch_rusage_seconds(const struct rusage *ru);

/* Read the whole of `path` into a malloc'd, NUL-terminated buffer (*len =
 * its length without the NUL). Fails with "PATH: <reason>" when it cannot be
 * opened or read, or is larger than max_len bytes (0 = no limit).
 * Returns the buffer or NULL. */
char *cdch_read_file(const char *path, size_t max_len, size_t *len, cdch_err *err);

/* Read at most n - 1 bytes of a small file (a /proc entry) into buf with one
 * read(2), NUL-terminated; its length, or -1 when it cannot be opened or read.
 * No allocation: for polling paths. */
long cdch_read_small(const char *path, char *buf, size_t n);

/* In a /proc/.../stat line ("pid (comm) S ppid ..."), the fields after the
 * command name, from the state letter on; comm may hold spaces and
 * parentheses, so the last ')' ends it. NULL when the line is not one. */
const char *cdch_proc_stat_fields(const char *line);

/* The CPU seconds of /proc/PID/stat (path): utime + stime + cutime + cstime
 * (its threads, and the children it has waited for); -1 when it cannot be
 * read or parsed. */
double cdch_proc_stat_cpu_seconds(const char *path);
/* The same of a /proc/PID/stat line already read; -1 when it is not one. */
double cdch_proc_stat_line_cpu_seconds(const char *line);

/* Whether process pid still runs: false when it has no /proc entry or has
 * ended (a zombie not reaped yet). */
bool cdch_pid_running(long pid);

/* Whether a process's environment (/proc/PID/environ: len bytes of
 * NUL-separated NAME=VALUE entries, the last one maybe unterminated) marks
 * it as one to kill. */
typedef bool (*cdch_environ_match_fn)(const char *env, size_t len, void *ud);

/* SIGKILL every process of this user (the caller and pid 1 aside) whose
 * environment `match` accepts; scan /proc again, pause_ms after a scan that
 * killed one (a process killed may have forked one the scan had passed),
 * at most `rounds` scans. How many were killed. The harness marks what it
 * starts by its environment (an adapter's token, its private TMPDIR), which
 * every descendant inherits, also one that left the process group. */
size_t cdch_kill_by_environ(cdch_environ_match_fn match, void *ud, int rounds, int pause_ms);

/* qsort comparator for an array of `char *` (strcmp order). */
int cdch_cmp_strp(const void *a, const void *b);

/* The stdio buffer size for binlog files read or written event by event. */
#define CDCH_IO_BUF (256u << 10)

/* Give f a stdio buffer of CDCH_IO_BUF bytes: *buf, allocated on the first
 * call and reused by the next files; the caller frees it after the fclose
 * of every file that used it (glibc ignores setvbuf's size without a
 * buffer of the caller's: a read or write(2) per 4 KiB otherwise). */
void cdch_io_buffer(FILE *f, char **buf);

#endif
