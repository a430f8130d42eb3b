/* matrix.h — a compatibility matrix file (ci/matrix.yaml): which consumers
 * and versions run against which scenarios in which modes, what each cell
 * must give, and the --quick subset for pull requests.
 *
 * Owns: the cdch_matrix and every string in it (cdch_matrix_free). Paths in
 * the file are relative to the file's folder; scenario entries (files,
 * folders of *.yaml, or globs) are expanded to sorted absolute paths with
 * duplicates removed. Errors are "PATH:LINE:COL: message".
 *
 *   name: default                       # required: names the matrix in reports
 *   description: "..."                  # optional
 *   consumers_dirs: [../consumers]      # optional (default: the caller's)
 *   consumers: [debezium, go-mysql@v1.16.0+canal, ...]   # FAMILY = every pinned version; "*" = every
 *                                       # family of consumers_dirs (cmd_matrix expands it)
 *     - debezium@3.4.1.Final            # any version the registry serves (expectation predicted)
 *     - go-mysql@file:../go-mysql+canal # a local build (path relative to this file)
 *     - {consumer: debezium@3.6.1.Final, config: dbz.properties}   # with the user's configuration
 *     - {command: "python3 rows.py", name: rows, source: server}  # any program (command.h; run in this
 *                                       # file's folder; source: server (default) or files; name: default
 *                                       # from the program's file name), judged by the differential oracle
 *   scenarios: [../scenarios]           # files, folders, globs
 *   modes: both                         # both | compressed | uncompressed | flip
 *   expect: manifest                    # manifest | a verdict name
 *   timeout: 120                        # per cell, seconds
 *   grace: 1                            # idle seconds after the last expected event
 *   idle_after_stream: auto             # or seconds (runner.h)
 *   exclude:                            # cells not run, each with its reason
 *     - {consumer: FAMILY[@VERSION], scenario: NAME, mode: MODE, reason: "..."}   # "*" = any
 *   quick:                              # --quick: the pull-request subset
 *     consumers: [...]                  # default: all of `consumers`
 *     scenarios: [crud-basic, ...]      # scenario names (file names without .yaml)
 *   capture: [cap, nightly.yaml]        # a deployment's own streams (issue 27 item 3): capture
 *                                       # directories (`cdcharness record`; served compressed at zstd
 *                                       # level 3, MySQL's default, and uncompressed: cmd_matrix writes
 *                                       # the scenario file) or scenario files naming a capture; each is
 *                                       # a scenario of the run. `scenarios` is optional then.
 *   estimate:                           # with --pre-flip, `cdcharness estimate` of each capture in the report
 *     levels: 1-7                       # as `estimate --levels` (default 1-7); or a list [1, 3, 7]
 *     link: 10mbit/20ms                 # as `estimate --link` (optional): catch-up over that link
 *                                       # (syntax checked by cmd_matrix, which owns the link parsers,
 *                                       # at estimate_link_line:estimate_link_col)
 */
#ifndef CDCH_MATRIX_H
#define CDCH_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "runner.h"

typedef struct cdch_matrix_exclude {
    char *consumer, *scenario, *mode, *reason;
} cdch_matrix_exclude;

typedef struct cdch_matrix {
    char *path, *dir;
    char *name, *description;
    char **consumers_dirs; /* absolute */
    size_t nconsumers_dirs;
    char **consumers;
    char **consumer_configs; /* per consumer: its `config` file (absolute), NULL: none */
    size_t nconsumers;
    char **commands;       /* `command:` entries: the command lines */
    char **command_names;  /* per command: its `name` (NULL: derived, command.h) */
    bool *command_files;   /* per command: `source: files` */
    size_t ncommands;
    char **scenarios;      /* absolute file paths, sorted, unique */
    size_t nscenarios;
    char *modes;           /* default "both" */
    char *expect;          /* default "manifest" */
    double timeout, grace, idle_after_stream; /* 0: the runner's default (idle: auto) */
    cdch_matrix_exclude *exclude;
    size_t nexclude;
    char **quick_consumers; /* NULL: every consumer */
    size_t nquick_consumers;
    char **quick_scenarios; /* names */
    size_t nquick_scenarios;
    /* capture: */
    char **capture_dirs;      /* per capture entry: the capture directory (absolute) */
    char **capture_scenarios; /* per capture entry: its scenario file (absolute), NULL for a bare directory */
    size_t ncaptures;
    /* estimate: (has_estimate false: absent; the defaults then) */
    bool has_estimate;
    char *estimate_levels;    /* "1-7" form, checked by cdch_estimate_parse_levels; default "1-7" */
    char *estimate_link;      /* NULL: no catch-up */
    size_t estimate_link_line, estimate_link_col; /* where `link` is, for cmd_matrix's message */
} cdch_matrix;

cdch_matrix *cdch_matrix_load(const char *path, cdch_err *err);
void cdch_matrix_free(cdch_matrix *m); /* accepts NULL */

/* Whether a planned cell is excluded; *reason is the rule's reason. */
bool cdch_matrix_excluded(const cdch_matrix *m, const cdch_cell *c, const char **reason);

/* Whether a cell belongs to the --quick subset. */
bool cdch_matrix_quick(const cdch_matrix *m, const cdch_cell *c);

/* "name.yaml" or "/x/name.yaml" -> "name" in out. */
void cdch_matrix_scenario_name(const char *path, char *out, size_t outsz);

#endif
