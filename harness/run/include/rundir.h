/* rundir.h — the run's temporary directory, $TMPDIR/cdch-run-XXXXXX (the
 * streams, the cells' state, the adapters' private temporary directories),
 * and what is left of it when a harness dies.
 *
 * A harness that ends, or is interrupted (SIGINT, SIGTERM), removes its run
 * directory itself. One killed (SIGKILL: a CI job's time limit, the OOM
 * killer) or crashed cannot: its streams (hundreds of MB for the default
 * matrix) would stay until the machine's /tmp is cleaned. So each run
 * directory holds an owner file (the harness's pid and the start time the
 * kernel gives that pid, /proc/PID/stat field 22: a pid reused by another
 * process does not count as the owner), and making a run directory first
 * removes the run directories of owners that are gone, under the same
 * parent.
 *
 * The adapters such a harness launched may outlive it (a session adapter
 * waits on its stdin; a blocked consumer never ends): each had its own
 * temporary directory inside the run directory (proc.h private_tmp, its
 * TMPDIR, inherited by its children), so before a sweep removes a dead
 * owner's run directory it kills (SIGKILL) every process of this user
 * whose environment's TMPDIR lies inside that directory.
 *
 * Never removed by a sweep: a directory without an owner file (kept with
 * --keep-streams: cdch_rundir_release drops its owner file; made by an
 * older harness; any other program's), one whose owner still runs, or
 * one whose owner file cannot be read.
 *
 * Owns nothing: paths are the caller's buffers. */
#ifndef CDCH_RUNDIR_H
#define CDCH_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

#define CDCH_RUNDIR_PREFIX "cdch-run-"
#define CDCH_RUNDIR_OWNER "owner"

/* Sweep `parent` ($TMPDIR, else /tmp, when NULL), then make
 * PARENT/cdch-run-XXXXXX with its owner file into out. */
int cdch_rundir_make(const char *parent, char *out, size_t outsz, cdch_err *err);

/* At the run's end: remove the directory, or (keep) only its owner file,
 * so that no later sweep removes what the user asked to keep. */
void cdch_rundir_release(const char *dir, bool keep);

/* Remove the run directories under parent whose owner is gone, after
 * killing their orphaned adapters (cdch_rundir_kill_orphans); returns how
 * many were removed. */
size_t cdch_rundir_sweep(const char *parent);

/* SIGKILL every process of this user (the caller excepted) whose
 * /proc/PID/environ has TMPDIR inside dir (real paths compared; only
 * values naming a run directory, "/cdch-run-", are resolved); returns how
 * many were killed. For the run directory of a harness that is gone:
 * never call it on a live run's. */
size_t cdch_rundir_kill_orphans(const char *dir);

#endif
