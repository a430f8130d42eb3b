/* admit.h — admission of heavy work: how many CPU-heavy cells (and cold
 * setups) may run at once (issue 26: "does not start more heavy cells than
 * there are cores").
 *
 * A cell is heavy when it is expected to keep a core busy for a while: its
 * CPU-seconds in the last report of the same run directory, else its
 * family's CPU per MB of stream there times its stream's size, else its
 * stream's size alone (cdch_admit_heavy). A setup that runs a build (Maven,
 * go build, pip, npm) is heavy work too. At most `slots` heavy things run at
 * once (default: the cores); light cells fill the other -j workers. With
 * nothing heavy running one may always start, so progress is never blocked.
 * `-j` stays the ceiling of cells at once.
 *
 * Owns: its counters. Not locked: callers hold their run's lock.
 */
#ifndef CDCH_ADMIT_H
#define CDCH_ADMIT_H

#include <stdbool.h>
#include <stdint.h>

/* CPU-seconds from which a cell is heavy, and the stream size that makes one
 * heavy when nothing better is known. */
#define CDCH_ADMIT_HEAVY_CPU_S 8.0
#define CDCH_ADMIT_HEAVY_BYTES ((uint64_t)32 << 20)

typedef struct cdch_admit {
    unsigned slots;   /* heavy things at once */
    unsigned running; /* heavy cells and setups running now */
} cdch_admit;

/* slots 0: the online cores. */
void cdch_admit_init(cdch_admit *a, unsigned slots);

/* Whether a cell (or setup) of that weight may start now. */
bool cdch_admit_may_start(const cdch_admit *a, bool heavy);
void cdch_admit_started(cdch_admit *a, bool heavy);
void cdch_admit_ended(cdch_admit *a, bool heavy);

/* Whether a cell is heavy: est_cpu_s (its expected CPU-seconds; < 0 when
 * unknown) at or over CDCH_ADMIT_HEAVY_CPU_S, or, unknown, a stream of at
 * least CDCH_ADMIT_HEAVY_BYTES. */
bool cdch_admit_heavy(double est_cpu_s, uint64_t stream_bytes);

#endif
