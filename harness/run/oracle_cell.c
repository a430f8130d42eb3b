/* oracle_cell.c — the differential oracle on a run's cells (oracle_cell.h). */
#include "oracle_cell.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

size_t cdch_oracle_plain_twin(const cdch_cell *cells, size_t ncells, size_t i)
{
    const cdch_cell *c = &cells[i];
    for (size_t k = 0; k < ncells; k++) {
        const cdch_cell *u = &cells[k];
        if (k != i && u->consumer_idx == c->consumer_idx && u->scenario_idx == c->scenario_idx &&
            u->attach == c->attach && strcmp(u->mode, "uncompressed") == 0)
            return k;
    }
    return SIZE_MAX;
}

bool cdch_oracle_may_start(const cdch_cell *cells, size_t ncells, const bool *finished, size_t i)
{
    const cdch_cell *c = &cells[i];
    if (c->oracle == CDCH_ORACLE_CANONICAL || strcmp(c->mode, "uncompressed") == 0)
        return true;
    size_t k = cdch_oracle_plain_twin(cells, ncells, i);
    return k == SIZE_MAX || finished[k];
}

void cdch_oracle_judge_cell(cdch_cell *cells, size_t ncells, size_t i, const cdch_change_list *expected,
                            const cdch_stream_index *idx, const cdch_change_list *said, const cdch_outcome *oc_in)
{
    cdch_cell *cell = &cells[i];
    const cdch_oracle_lines *base = NULL;
    cdch_outcome oc = *oc_in;
    char msg[600];
    if (strcmp(cell->mode, "uncompressed") != 0) {
        size_t k = cdch_oracle_plain_twin(cells, ncells, i);
        base = k == SIZE_MAX ? NULL : cells[k].rows;
        if (!base) {
            snprintf(msg, sizeof msg,
                     "the differential oracle compares this cell's rows with the uncompressed cell of the same "
                     "consumer and scenario, which %s; run the uncompressed mode too (--mode both)",
                     k == SIZE_MAX ? "is not in this run" : "did not run (see its verdict)");
            oc.harness_error = msg;
        }
    }
    cdch_oracle_result res;
    cdch_oracle_judge_said(base, cell->rows, expected, idx, said, &oc, &res);
    if (base) { /* only a plain cell's rows are compared with later: these go now */
        cdch_oracle_lines_free(cell->rows);
        cell->rows = NULL;
    }
    cell->oracle_judged = true;
    cell->oracle_verdict = res.verdict;
    cell->oracle_classes = res.classes;
    cell->oracle_summary = cdch_xstrdup(res.summary);
    cell->oracle_side = res.side;
    if (cell->oracle == CDCH_ORACLE_DIFFERENTIAL) {
        cell->verdict = res.verdict;
        cell->classes = res.classes;
        cell->summary = res.summary;
        cell->detail = res.detail;
        cell->warnings = res.warnings;
        cell->nwarnings = res.nwarnings;
        cell->diff = res.diff;
        return;
    }
    free(res.summary);
    free(res.detail);
    free(res.warnings);
    cdch_diff_free(res.diff);
}
