/* paths.h — where the command line finds what ships with cdcharness: the
 * scenario library, the consumer adapters and the default matrix.
 *
 * Owns: nothing (returns a static string).
 *
 * The data directory holds ci/matrix.yaml, consumers/ and scenarios/. It is,
 * in order: $CDCH_HOME; <exe>/../share/cdcharness when cdcharness runs from
 * an installed prefix (relocatable: a DESTDIR or moved prefix works); the
 * source tree it was built from (a build tree's binary); the install prefix
 * configured at build time.
 */
#ifndef CDCH_CLI_PATHS_H
#define CDCH_CLI_PATHS_H

const char *cli_data_dir(void);

#endif
