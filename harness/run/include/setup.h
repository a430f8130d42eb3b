/* setup.h — install pinned consumer versions into the cache, once each.
 *
 * Owns: nothing persistent; it writes the cache directory
 *   $CDCH_CACHE (default ~/.cache/cdcharness)/<family>/<version>/
 * which the setup command fills (run in the family's folder with the
 * arguments VERSION CACHE_DIR appended, and CDCH_VERSION/CDCH_CACHE in its
 * environment), a `.ok` stamp in it when setup exited 0, and the log
 *   <cache root>/<family>/<version>.setup.log
 * next to it (stdout and stderr of the setup command, then its exit
 * status, wall time and CPU). The stamp holds a
 * fingerprint of the family's folder (every file but hidden ones,
 * __pycache__, node_modules, target and manifest.yaml, whose expectations
 * change often), the setup command and the version: a version without a
 * stamp, or whose adapter changed since (an edited adapter, manifest or
 * setup script, e.g. after a git pull into a CI machine's warm cache), is
 * set up again from an empty directory. Concurrent harness runs
 * serialise on <cache root>/<family>/<version>.lock (flock).
 *
 * A version the manifest does not pin (manifest.h cdch_manifest_unpinned) is
 * installed by the same setup command, alone, with CDCH_UNPINNED=1 in its
 * environment; a setup that exits 3 said the registry does not serve it (its
 * line "setup: not served: ..." is quoted in the error), 4 that the adapter
 * cannot drive that version ("setup: unsupported: ..."). A local build
 * (FAMILY@file:PATH) lives in <family>/local-<hash of PATH>[+variant]/, is
 * given VERSION "file:PATH[+variant]" and CDCH_LOCAL=PATH, and its stamp
 * holds a fingerprint of PATH's content (every file but hidden ones,
 * __pycache__ and node_modules): a rebuilt PATH is installed again.
 * A family's `shares` folders are part of its fingerprint.
 *
 * A family with `setup_batch: true` (manifest.h) installs several versions
 * in one run of its setup command, given every "VERSION DIR" pair (one
 * Maven JVM for all of a Java family's versions); the first version's log
 * holds the run's output and the others' a copy. When that run fails, each
 * version is installed alone, for an error of its own.
 *
 * A setup run is a child the harness must not leave behind. Given the run
 * directory's temporary folder (tmp_parent), each setup run gets a private
 * TMPDIR inside it (proc.h private_tmp, removed when the setup ends), so a
 * harness killed with SIGKILL mid-setup leaves a setup that the next run's
 * sweep of dead run directories kills (rundir.h). The version's lock was
 * the dead harness's and went with it; so before a harness installs into a
 * directory whose lock it just took, it sweeps the dead run directories
 * too: a setup orphaned a moment ago is killed before its directory is
 * emptied and set up again. The lock file names its holder's pid while it
 * is held (emptied before the lock is let go), and a harness that finds a
 * name there on taking the lock waits, at most 5 s, for that process to
 * end before it sweeps: the lock goes as a dead harness's files close, a
 * moment before the sweep can see it has ended.
 */
#ifndef CDCH_SETUP_H
#define CDCH_SETUP_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"
#include "manifest.h"

/* The cache root: $CDCH_CACHE, else $HOME/.cache/cdcharness. */
void cdch_setup_cache_root(char *out, size_t outsz);

/* One version to install (cdch_setup_ensure). */
typedef struct cdch_setup_item {
    const cdch_manifest_version *v; /* in */
    char dir[PATH_MAX];             /* out: its cache directory */
    char local_fp[24];              /* out: a local build's content fingerprint ("" otherwise) */
    char local_version[64];         /* out: a local build's library version, from the install's
                                     * `local-version` file ("" when setup found none) */
    int rc;                         /* out: 0 installed; -1: err says why */
    cdch_err err;
} cdch_setup_item;

/* Make sure versions items[0..n) of m are installed under cache_root (NULL:
 * the default), each with its cache directory in dir. tmp_parent (NULL:
 * none, setups inherit TMPDIR) is an existing directory inside a run
 * directory (rundir.h) where each setup run gets its private TMPDIR. With the family's
 * `variant_setup: shared`, a version "V+variant" is the install of "V" (one
 * directory, one lock, one setup for all of V's variants). With its
 * `setup_batch`, the versions not installed yet are installed by one run of
 * the setup command. Setup is given timeout_s seconds a version. On failure
 * err says which command failed, where the log is, and ends with the log's
 * last lines. log_to (NULL: none) gets a progress line for each setup run. */
void cdch_setup_ensure(const cdch_manifest *m, cdch_setup_item *items, size_t n, const char *cache_root,
                       const char *tmp_parent, double timeout_s, FILE *log_to);

/* Remove a directory tree (used for stale cache dirs and temp dirs). */
int cdch_rm_tree(const char *path);

/* mkdir -p. */
int cdch_mkdirs(const char *path, cdch_err *err);

#endif
