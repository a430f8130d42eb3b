/* sys.h — the few operating-system services every module needs, in one
 * place: a monotonic clock, reading a whole file, sorting C strings.
 *
 * Owns: the buffer cdch_read_file returns (the caller frees it).
 */
#ifndef CDCH_SYS_H
#define CDCH_SYS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t cdch_now_ns(void);

/* CPU time of the calling thread in nanoseconds (0 if unavailable). A system
 * call, not the vDSO: keep it out of per-event paths unless asked for. */
uint64_t cdch_thread_cpu_ns(void);

/* Read the whole of `path` into a malloc'd, NUL-terminated buffer (*len =
 * its length without the NUL). Fails with "PATH: <reason>" when it cannot be
 * opened or read, or is larger than max_len bytes (0 = no limit).
 * Returns the buffer or NULL. */
char *cdch_read_file(const char *path, size_t max_len, size_t *len, cdch_err *err);

/* qsort comparator for an array of `char *` (strcmp order). */
int cdch_cmp_strp(const void *a, const void *b);

/* The stdio buffer size for binlog files read or written event by event
 * (setvbuf with a caller-owned buffer: glibc ignores the size without one). */
#define CDCH_IO_BUF (256u << 10)

#endif
