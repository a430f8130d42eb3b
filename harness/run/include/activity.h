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
 * Owns: nothing (reads /proc on each call).
 */
#ifndef CDCH_ACTIVITY_H
#define CDCH_ACTIVITY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether any thread of process `pid` or of its descendants is runnable or
 * in uninterruptible sleep (false when pid is gone). */
bool cdch_activity_busy(pid_t pid);

/* CPU seconds (user + system) used so far by process `pid` and every
 * descendant alive now, with the children each has waited for; -1 when pid
 * is gone. The consumer's own clock for the cell timeout (runner.h): a
 * consumer starved of CPU by the machine's load does not advance it. */
double cdch_activity_cpu_seconds(pid_t pid);

/* Seconds the threads of process `pid` and of its descendants alive now
 * have spent runnable but waiting for a CPU (the run-queue delay of
 * /proc/<pid>/task/<tid>/schedstat, summed over threads); -1 when pid is
 * gone. What the machine's load took from the consumer: waits.h subtracts
 * it from the wall clock to get the consumer's own time. The sum may go
 * down when a thread ends (its delay leaves with it). */
double cdch_activity_waited_seconds(pid_t pid);

/* A process's own time (waits.h): wall time less the time its threads
 * waited for a CPU. Start it, then read it as often as needed (each read
 * looks at /proc: every 50 ms or more is enough); seconds since the start. */
typedef struct cdch_own_clock {
    double t;      /* wall time of the last read (seconds, the caller's clock) */
    double waited; /* run-queue delay at that read (-1: unknown) */
    double own;    /* own seconds so far */
} cdch_own_clock;

void cdch_own_clock_start(cdch_own_clock *c, pid_t pid, double now);
double cdch_own_clock_read(cdch_own_clock *c, pid_t pid, double now);

/* Bytes in flight on the TCP connections of the local server on `port`:
 * the server side's send queue plus the client side's receive queue, over
 * every connection to 127.0.0.1:port (IPv4 and IPv6). 0 when there is
 * none; UINT64_MAX when /proc/net/tcp cannot be read (treat as busy). */
uint64_t cdch_activity_tcp_pending(uint16_t port);

#endif
