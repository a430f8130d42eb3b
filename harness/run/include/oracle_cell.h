/* oracle_cell.h — the differential oracle (oracle.h) on the cells of a run
 * (runner.h): which cell is a cell's plain twin, when a differential cell
 * may start, and its judgement written into the cell.
 *
 * Owns: nothing; what it writes into a cell (oracle_summary, oracle_side,
 * and with --oracle differential summary, detail, warnings, diff) the cell
 * owns, freed by cdch_run_free.
 */
#ifndef CDCH_ORACLE_CELL_H
#define CDCH_ORACLE_CELL_H

#include <stdbool.h>
#include <stddef.h>

#include "oracle.h"
#include "runner.h"

/* The uncompressed cell of the same consumer, scenario and start as cells[i]
 * (the differential oracle's base), SIZE_MAX when the plan has none. */
size_t cdch_oracle_plain_twin(const cdch_cell *cells, size_t ncells, size_t i);

/* Whether cells[i] may start: a differential cell of a compressed or flip
 * stream waits until its plain twin is judged (finished[twin]). */
bool cdch_oracle_may_start(const cdch_cell *cells, size_t ncells, const bool *finished, size_t i);

/* Judge cells[i] by the differential oracle against its plain twin's rows
 * (its own row count when it is the uncompressed cell), with its outcome and
 * its stream's expected rows and index (transactions named). With
 * CDCH_ORACLE_DIFFERENTIAL the judgement is the cell's verdict; with
 * CDCH_ORACLE_BOTH it goes beside it (oracle_*). A compressed or flip cell's
 * rows are freed (only plain rows are compared with later). said: an
 * adapter's change list, whose error lines count (cdch_oracle_judge_said);
 * NULL for a program. */
void cdch_oracle_judge_cell(cdch_cell *cells, size_t ncells, size_t i, const cdch_change_list *expected,
                            const cdch_stream_index *idx, const cdch_change_list *said, const cdch_outcome *oc);

#endif
