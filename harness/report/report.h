/* report.h — the results of a `cdcharness run`, written for people and CI:
 *   report.json   every cell with its verdict, expectation, every finding of
 *                 its diff (missing transactions, mismatches with both values,
 *                 duplicates, reorders, checkpoints), stderr tail, exit status;
 *                 also the input of `run --baseline`
 *   junit.xml     one testcase per consumer × scenario × mode, a failure when
 *                 the cell does not meet its expectation, naming the first
 *                 differing event
 *   summary.md    the verdict table and the findings of each failing cell
 * and the verdict table printed by `run` on stdout.
 *
 * Owns: nothing; reads the run's cells. Files are written under a temporary
 * name and renamed into place.
 */
#ifndef CDCH_REPORT_H
#define CDCH_REPORT_H

#include <stdio.h>

#include "err.h"
#include "runner.h"

/* Write report.json, junit.xml and summary.md into dir (created). */
int cdch_report_write(cdch_run *r, const char *dir, cdch_err *err);

int cdch_report_json(cdch_run *r, FILE *f);
int cdch_report_junit(cdch_run *r, FILE *f);
int cdch_report_markdown(cdch_run *r, FILE *f);

/* The verdict table (one line per cell) and a totals line. */
void cdch_report_table(cdch_run *r, FILE *f);

#endif
