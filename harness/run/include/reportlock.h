/* reportlock.h — one harness at a time in a report directory.
 *
 * A run writes its cells under REPORT_DIR/cells/<consumer>/<scenario>/<mode>
 * (each cell truncates its observed.jsonl there and reads its events back
 * from it at judgment), reads REPORT_DIR/report.json for its cells'
 * estimates and writes the reports there at its end. Two harnesses in one
 * report directory at once (two `run`s in one working directory, both into
 * reports/latest; two CI jobs sharing a workspace) would truncate and read
 * each other's cell files: an abort when a line no longer parses, or worse,
 * the other run's events judged as this run's. So a run holds an exclusive
 * lock on REPORT_DIR/.cdcharness.lock (flock(2), taken without waiting) from
 * the start of its cells to its end, and a second harness is refused at once
 * with the first one's pid.
 *
 * The lock is the kernel's: it ends with the process that holds it, however
 * that process ends (SIGKILL included), so a stale lock file never blocks a
 * later run. The descriptor is close-on-exec: the adapters a run launches do
 * not hold it, and one left running after its harness died does not block
 * the next run. On a file system without flock (some network mounts) the run
 * goes on unlocked, with a warning on stderr.
 *
 * Owns: the lock's descriptor (cdch_reportlock_release closes it). The lock
 * file itself stays (removing it would race with a harness about to lock it).
 */
#ifndef CDCH_REPORTLOCK_H
#define CDCH_REPORTLOCK_H

#include "err.h"

#define CDCH_REPORTLOCK_FILE ".cdcharness.lock"

/* Create dir (and its parents) when missing, then lock it: the descriptor
 * of its lock file (>= 0), or -2 when the file system has no flock (warned
 * on stderr; the run goes on unlocked). -1 with err set when another process
 * holds the lock ("... is in use by cdcharness pid N ...") or dir or its lock
 * file cannot be created. */
int cdch_reportlock_take(const char *dir, cdch_err *err);

/* Unlock and close (fd < 0: nothing). */
void cdch_reportlock_release(int fd);

#endif
