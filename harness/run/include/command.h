/* command.h — any program as a consumer (`--consumer-cmd`, a matrix file's
 * `command:` entries): not an adapter, so no ready line, no canonical JSON,
 * no watermark line of ours.
 *
 * The program runs under /bin/sh -c COMMAND in the directory the harness was
 * started from (a matrix file's command: the file's folder), with an adapter's environment (consumers/README.md
 * "Environment of a run"). Every stdout line is a row (but --ignore's and
 * blank lines); stderr is its log (the cell's stderr.log), as an adapter's.
 * It is judged by the differential oracle (oracle.h). How the runner treats
 * it (cell.c):
 *   ready    when its dump connection arrives at the fake primary (the first
 *            event sent; source files: at once), not on a line of its own;
 *   the end  it exits; or it printed a row naming the watermark table
 *            (oracle.h cdch_oracle_line_is_watermark) and went quiet for the
 *            grace (0.5 s); or the whole stream was sent and it has been quiet
 *            (no output, no thread runnable, no byte in flight: activity.h) for
 *            the idle-after-stream time (2 s); or it printed the scenario's
 *            expected number of rows and was quiet for the grace; or the
 *            run's timeouts (hang), as any adapter.
 *
 * Owns: the manifest it returns (cdch_manifest_free): family = the name,
 * one version CDCH_COMMAND_VERSION, run = /bin/sh -c COMMAND, no setup.
 */
#ifndef CDCH_COMMAND_H
#define CDCH_COMMAND_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "manifest.h"

#define CDCH_COMMAND_VERSION "command"

/* A consumer manifest for COMMAND named NAME (letters, digits, '.', '_',
 * '-'; it names the cells and their folders), run in directory cwd (NULL:
 * the harness's). files: the program reads the binlog files
 * (CDCH_BINLOG_DIR/CDCH_BINLOG_FILES) instead of connecting. NULL with err
 * when the name or command is unusable. */
cdch_manifest *cdch_command_manifest(const char *name, const char *command, const char *cwd, bool files,
                                     cdch_err *err);

/* The name of a command given none: the base name, without its extension,
 * of its last word that names a file (has a '/' or a '.'), else of its first
 * word; characters a name cannot hold become '_'. */
void cdch_command_default_name(const char *command, char *out, size_t outsz);

#endif
