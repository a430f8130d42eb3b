/* expect.h — what each cell of a run is expected to give, and whether it
 * did: `run`'s exit status.
 *
 * Owns: the cdch_expect and its rules (strings copied).
 *
 * Sources:
 *   1. a baseline (a previous report.json), when given, decides alone: a
 *      cell meets it unless its verdict is worse (cdch_verdict_worse) than
 *      the recorded one; a cell whose consumer@version the baseline does not
 *      record is held to the best verdict recorded for another version of
 *      the same family and variant ("+suffix") — the connector-upgrade case:
 *      the old version's row against the new one's; else it expects pass;
 *   2. else an expect file: lines "CONSUMER SCENARIO MODE VERDICT" where
 *      CONSUMER is family@version, family (any version) or *, SCENARIO a
 *      scenario name (or file name without .yaml) or *, MODE compressed |
 *      uncompressed | flip | *; '#' starts a comment; the first matching
 *      line applies; the cell meets it when its verdict is exactly that;
 *   3. else the manifests' `expect_by_scenario`/`expect` (when enabled):
 *      exactly that verdict;
 *   4. else the default verdict (pass unless set): exactly that.
 */
#ifndef CDCH_EXPECT_H
#define CDCH_EXPECT_H

#include <stdbool.h>

#include "err.h"
#include "runner.h"
#include "verdict.h"

typedef struct cdch_expect cdch_expect;

cdch_expect *cdch_expect_new(void);
void cdch_expect_free(cdch_expect *e); /* accepts NULL */

void cdch_expect_set_default(cdch_expect *e, cdch_verdict v);
void cdch_expect_use_manifests(cdch_expect *e, bool on);
int cdch_expect_load_file(cdch_expect *e, const char *path, cdch_err *err);   /* errors: PATH:LINE: ... */
int cdch_expect_load_baseline(cdch_expect *e, const char *path, cdch_err *err);

/* Fill every cell's expected / expect_source / meets. Returns the number of
 * cells that do not meet their expectation. */
size_t cdch_expect_apply(const cdch_expect *e, cdch_run *r);
/* The same for one cell (e.g. as it finishes); returns its `meets`. */
bool cdch_expect_cell(const cdch_expect *e, const cdch_run *r, cdch_cell *c);

#endif
