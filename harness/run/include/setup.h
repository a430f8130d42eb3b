/* setup.h — install one pinned consumer version into the cache, once.
 *
 * Owns: nothing persistent; it writes the cache directory
 *   $CDCH_CACHE (default ~/.cache/cdcharness)/<family>/<version>/
 * which the setup command fills (run in the family's folder with the
 * arguments VERSION CACHE_DIR appended, and CDCH_VERSION/CDCH_CACHE in its
 * environment), a `.ok` stamp in it when setup exited 0, and the log
 *   <cache root>/<family>/<version>.setup.log
 * next to it (stdout and stderr of the setup command). The stamp holds a
 * fingerprint of the family's folder (every file but hidden ones,
 * __pycache__, node_modules, target and manifest.yaml, whose expectations
 * change often), the setup command and the version: a version without a
 * stamp, or whose adapter changed since (an edited adapter, manifest or
 * setup script, e.g. after a git pull into a CI machine's warm cache), is
 * set up again from an empty directory. Concurrent harness runs
 * serialise on <cache root>/<family>/<version>.lock (flock).
 */
#ifndef CDCH_SETUP_H
#define CDCH_SETUP_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"
#include "manifest.h"

/* The cache root: $CDCH_CACHE, else $HOME/.cache/cdcharness. */
void cdch_setup_cache_root(char *out, size_t outsz);

/* Make sure version v of m is installed under cache_root (NULL: the
 * default); its cache directory in out. With the family's `variant_setup:
 * shared`, a version "V+variant" is the install of "V" (one directory, one
 * lock, one setup for all of V's variants). Setup is given timeout_s seconds.
 * On failure err says which command failed, where the log is, and ends with
 * the log's last lines. log_to (NULL: none) gets one progress line. */
int cdch_setup_ensure(const cdch_manifest *m, const cdch_manifest_version *v, const char *cache_root,
                      double timeout_s, FILE *log_to, char *out, size_t outsz, cdch_err *err);

/* Remove a directory tree (used for stale cache dirs and temp dirs). */
int cdch_rm_tree(const char *path);

/* mkdir -p. */
int cdch_mkdirs(const char *path, cdch_err *err);

#endif
