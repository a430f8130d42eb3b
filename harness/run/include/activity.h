/* activity.h — is a consumer still working? Signals instead of timers.
 *
 * The runner must not conclude "the consumer is done" (or "went idle", or
 * "did not resume") from a fixed wait that machine load can stretch: a
 * consumer starved of CPU looks exactly like one that finished. So it asks
 * the operating system instead:
 *   - the process state of every thread of the adapter and its descendants
 *     (/proc/<pid>/task/<tid>/stat): a thread that is runnable ('R', also
 *     when it waits for a CPU) or in uninterruptible I/O ('D') is work in
 *     progress, whatever the load;
 *   - the bytes in flight on the consumer's connections to the fake primary
 *     (/proc/net/tcp{,6}: the primary's send queue and the consumer's
 *     receive queue): bytes the consumer has not read yet are work ahead.
 * A consumer is quiet when neither holds; the runner then needs only a
 * short quiet window (for consumers' own timers: a poll loop that sleeps
 * between batches) before it decides.
 *
 * Owns: a cdch_activity, the /proc files of one process tree it looks at,
 * kept open between looks (each /proc/<pid>/task/<tid>/{stat,schedstat,
 * children} read again with pread: a third to a tenth of the cost of
 * opening it each time, which a look at a JVM's 60 threads ten times a
 * second paid). A descriptor to a thread's file stays bound to that thread:
 * once it ends, reads fail (ESRCH) and the file is closed, so a reused pid
 * is never mistaken for it. The files kept open across all trees are held
 * to a quarter of RLIMIT_NOFILE; past it a file is opened for each read, as
 * before. One caller at a time per cdch_activity.
 */
#ifndef CDCH_ACTIVITY_H
#define CDCH_ACTIVITY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct cdch_activity cdch_activity;

/* Looks at the tree of process `pid` (the pid and its descendants alive at
 * each look). */
cdch_activity *cdch_activity_new(pid_t pid);
/* Closes its files; accepts NULL. */
void cdch_activity_free(cdch_activity *a);

/* Whether any thread of the tree is runnable or in uninterruptible sleep
 * (false when the pid is gone, or a is NULL). The threads known from the
 * last look are read first (a busy one answers at once: busy only delays a
 * decision); "not busy" is said only after a look at every thread and every
 * descendant as they are now, new ones included. */
bool cdch_activity_busy(cdch_activity *a);

/* One look at the tree for both clocks, *cpu and *waited (-1 each when the
 * pid is gone, or a is NULL):
 *   cpu: CPU seconds (user + system) used so far by the process and every
 *     descendant alive now, with the children each has waited for. The
 *     consumer's own clock for the cell timeout (runner.h): a consumer
 *     starved of CPU by the machine's load does not advance it.
 *   waited: seconds the threads of the tree have spent runnable but waiting
 *     for a CPU (the run-queue delay of /proc/<pid>/task/<tid>/schedstat,
 *     summed over threads). What the machine's load took from the consumer:
 *     waits.h subtracts it from the wall clock to get the consumer's own
 *     time. The sum may go down when a thread ends (its delay leaves with
 *     it). */
void cdch_activity_clocks(cdch_activity *a, double *cpu, double *waited);

/* A process's own time (waits.h): wall time less the time its threads
 * waited for a CPU. Start it with the tree's `waited` (cdch_activity_clocks),
 * then give it each new reading (every 50 ms or more is enough); seconds
 * since the start. */
typedef struct cdch_own_clock {
    double t;      /* wall time of the last read (seconds, the caller's clock) */
    double waited; /* run-queue delay at that read (-1: unknown) */
    double own;    /* own seconds so far */
} cdch_own_clock;

void cdch_own_clock_start(cdch_own_clock *c, double waited, double now);
double cdch_own_clock_read(cdch_own_clock *c, double waited, double now);

/* The tree's own clock in one call: reads the clocks and advances c; the
 * CPU seconds in *cpu when not NULL. */
double cdch_activity_own_read(cdch_activity *a, cdch_own_clock *c, double now, double *cpu);
void cdch_activity_own_start(cdch_activity *a, cdch_own_clock *c, double now, double *cpu);

/* Bytes in flight on the TCP connections of the local server on `port`:
 * the server side's send queue plus the client side's receive queue, over
 * every connection to 127.0.0.1:port (IPv4 and IPv6). 0 when there is
 * none; UINT64_MAX when /proc/net/tcp cannot be read (treat as busy). */
uint64_t cdch_activity_tcp_pending(uint16_t port);

#endif
