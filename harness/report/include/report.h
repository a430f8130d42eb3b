/* report.h — the results of a `cdcharness run` (or of a matrix, or of the
 * shards of one merged), written for people and CI. report.json is the
 * single source: every other file is rendered from it, so a report merged
 * from shards renders exactly as one written by a single run.
 *   report.json   every cell with its verdict, expectation, the findings of
 *                 its diff (missing transactions, mismatches with both values,
 *                 ...; each list capped at 20 entries, findings text at 40
 *                 lines, stderr at its last 16 KiB; the totals count all;
 *                 duplicates, reorders, checkpoints), the first differing
 *                 events side by side (expected | observed), stderr tail, exit
 *                 status, the stream's size; also the input of
 *                 `run --baseline`
 *   junit.xml     one testcase per consumer × scenario × mode, a failure when
 *                 the cell does not meet its expectation, naming the first
 *                 differing event
 *   summary.md    the verdict table and the findings of each failing cell
 *   report.html   one self-contained page: the verdict grid, each cell
 *                 opening to its diff, bytes on the wire per scenario
 * and the verdict table printed by `run` on stdout.
 *
 * report.json layout (format "cdcharness-report", version 1): one object
 *   {"format","version","generated", ["matrix":{...}], ["deployment":{...}], "cells":[...], "totals":{...}}
 * one cell per line, cells sorted by "index" when every cell has one (a
 * matrix's plan order), else by family, version (numerically), scenario,
 * mode (uncompressed, compressed, flip). "cell_dir" is relative to the
 * report's directory when the logs are under it. Totals are recomputed
 * from the cells whenever the file is written.
 *
 * Owns: nothing; reads the run's cells. Files are written under a temporary
 * name and renamed into place.
 */
#ifndef CDCH_REPORT_H
#define CDCH_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"
#include "runner.h"

/* What a matrix adds to a run's report (cdcharness matrix). */
typedef struct cdch_report_meta {
    const char *matrix_json;   /* NULL, or a JSON object written as the top-level "matrix"
                                * (shards of one matrix must have equal objects apart from
                                * their "shard" member) */
    const size_t *cell_index;  /* NULL, or per run cell its position in the whole matrix
                                * plan (written as the cell's "index") */
    const char *deployment_json; /* NULL, or a JSON object written as the top-level "deployment"
                                * (matrix --pre-flip): {"preflip": preflip.json's object,
                                * "estimates": [`estimate --json` object per capture]}; rendered
                                * as the first sections of summary.md and report.html
                                * (report_deploy.c: answers, evidence, estimate tables and
                                * inline SVG charts) */
} cdch_report_meta;

/* Write report.json from the run, then render junit.xml, summary.md and
 * report.html from it, into dir (created). meta may be NULL. */
int cdch_report_write(cdch_run *r, const char *dir, cdch_err *err);
int cdch_report_write_meta(cdch_run *r, const char *dir, const cdch_report_meta *meta, cdch_err *err);

/* The run's cells as report.json text (before normalisation: cells in run
 * order, totals as counted). dir: the report directory cell_dir is made
 * relative to (NULL: kept as is). */
int cdch_report_json(cdch_run *r, const char *dir, const cdch_report_meta *meta, FILE *f);

/* Render junit.xml, summary.md and report.html from dir/report.json. */
int cdch_report_render(const char *dir, cdch_err *err);

/* Join the reports of shards of one matrix (each a report directory or a
 * report.json) into out_dir: cells sorted, totals recomputed, per-cell logs
 * copied; then render. Overlapping cells and reports of different matrices
 * are errors. */
int cdch_report_merge(const char *out_dir, const char *const *inputs, size_t n, cdch_err *err);

/* The verdict table (one line per cell) and a totals line. */
void cdch_report_table(cdch_run *r, FILE *f);

/* The small form of a report, for committing: out_dir/summary.md (per
 * consumer family: verdict counts per version, the causes cited, the verdict
 * grid) and out_dir/verdicts.json (one line per cell; a valid `--baseline`).
 * report: a report directory or a report.json. */
int cdch_report_digest(const char *report, const char *out_dir, cdch_err *err);

#endif
