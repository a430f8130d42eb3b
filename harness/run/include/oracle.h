/* oracle.h — the differential oracle: a consumer judged against itself.
 *
 * A program that is not an adapter (command.h) prints rows in its own
 * format, so there is nothing to compare them with but its own output on
 * the plain stream of the same scenario. Its rows on the compressed (and
 * flip) stream must equal its rows on the uncompressed stream line for line,
 * after the optional normalisation (--normalize REGEX: every match removed
 * from the line before comparing; positions, timestamps). Lines matching an
 * --ignore REGEX are not rows. The uncompressed cell passes when it printed
 * as many rows as the scenario has expected rows (the watermark's included).
 * Any family can be judged so too (--oracle differential, or both beside the
 * canonical diff): for an adapter, its change-event lines are the rows.
 *
 * The comparison gives a cdch_diff, so verdicts, severity, flags and
 * reports are those of every other cell (verdict.h): the plain run's rows
 * take the place of the expected rows. Base row i is taken to be expected
 * row i of the cell's stream when the plain run printed exactly the expected
 * number of rows (its transaction, compressed or not, is then named);
 * otherwise each base row is its own "transaction" numbered by its line.
 * Observed rows are walked in order against a cursor in the base rows:
 *   equal to the base row at the cursor          in order
 *   equal to a later unmatched base row          a jump (the rows skipped are
 *                                                missing unless they come later)
 *   equal to an earlier base row arrived after   reorder
 *     a later one
 *   equal to base rows that all matched          duplicate
 *   equal to no base row                         mismatch with the row at the
 *                                                cursor ("line differs"), or
 *                                                "unexpected line" when the next
 *                                                observed row is the cursor's
 * Base rows never matched are missing: a hole when a later base row arrived,
 * else the tail (verdict.h decides silent-skip, parse-failure on an error
 * exit, hang, ...). A difference present in both modes is the same on both
 * sides, so it is never a compression regression.
 *
 * Owns: a cdch_oracle_filter (compiled regexes), a cdch_oracle_lines (its
 * copies of every row, raw and normalised). Diffs returned are the caller's
 * (cdch_diff_free). The change list and stream index passed in are only read.
 */
#ifndef CDCH_ORACLE_H
#define CDCH_ORACLE_H

#include <stdbool.h>
#include <stddef.h>

#include "diff.h"
#include "err.h"
#include "events.h"
#include "streamidx.h"
#include "verdict.h"

typedef enum cdch_oracle_kind {
    CDCH_ORACLE_CANONICAL = 0, /* expected.jsonl, by column type (diff.h); the default for adapters */
    CDCH_ORACLE_DIFFERENTIAL,  /* the consumer against its own plain run; always for a command consumer */
    CDCH_ORACLE_BOTH,          /* canonical verdict, differential beside it (it decides compression-regression) */
} cdch_oracle_kind;

/* "canonical", "differential", "both" -> kind; -1 otherwise. */
int cdch_oracle_kind_parse(const char *s, cdch_oracle_kind *out);
const char *cdch_oracle_kind_name(cdch_oracle_kind k);

/* The run's --ignore and --normalize regexes (POSIX extended), compiled. */
typedef struct cdch_oracle_filter cdch_oracle_filter;

/* NULL with err naming the bad regex and regerror's reason. */
cdch_oracle_filter *cdch_oracle_filter_new(const char *const *ignore, size_t nignore, const char *const *normalize,
                                           size_t nnormalize, cdch_err *err);
void cdch_oracle_filter_free(cdch_oracle_filter *f); /* accepts NULL */

/* One cell's rows. */
typedef struct cdch_oracle_lines {
    char **raw;      /* as printed */
    char **norm;     /* after --normalize (what is compared) */
    size_t n, cap;
    size_t ignored;  /* lines an --ignore matched, and blank lines */
} cdch_oracle_lines;

cdch_oracle_lines *cdch_oracle_lines_new(void);
void cdch_oracle_lines_free(cdch_oracle_lines *l); /* accepts NULL */
/* Add one stdout line (no newline); f may be NULL. True when it is a row.
 * canonical: the line is an adapter's change event (consumers/README.md):
 * what is compared is its op, db, table, before, after and gtid, in that
 * order, as written ("pos" differs between the modes by construction, and a
 * reference adapter's "txn"/"compressed" too), then --normalize. */
bool cdch_oracle_lines_add(cdch_oracle_lines *l, const cdch_oracle_filter *f, const char *line, size_t len,
                           bool canonical);

/* The uncompressed cell: rows counted against the expected rows (expected
 * and idx may be NULL: no transaction named). Fewer rows: the rest are the
 * tail, or holes before the last expected row when the last row printed
 * names the watermark table; more: each extra row is an "unexpected line". */
cdch_diff *cdch_oracle_count_diff(const cdch_oracle_lines *obs, const cdch_change_list *expected,
                                  const cdch_stream_index *idx);

/* A compressed or flip cell against the plain run's rows (base). expected
 * and idx (the cell's stream; may be NULL) name the transactions. */
cdch_diff *cdch_oracle_diff(const cdch_oracle_lines *base, const cdch_oracle_lines *obs,
                            const cdch_change_list *expected, const cdch_stream_index *idx);

/* The first differing rows of both runs side by side: from the row before
 * the first position where the normalised rows differ, at most max pairs, as
 * a JSON array of {"plain_line":N|null,"plain":TEXT|null,"this_line":N|null,
 * "this":TEXT|null,"same":BOOL} (1-based row numbers; null: that run has no
 * row there). Returns malloc'd text, or NULL when the rows are equal. */
char *cdch_oracle_side_json(const cdch_oracle_lines *base, const cdch_oracle_lines *obs, size_t max);

/* A cell judged by the differential oracle. */
typedef struct cdch_oracle_result {
    cdch_verdict verdict;
    unsigned classes;
    char *summary, *detail, *warnings; /* malloc'd (warnings NULL when none) */
    size_t nwarnings;
    char *side;                        /* cdch_oracle_side_json's answer (NULL: none) */
    cdch_diff *diff;                   /* the comparison (the caller's: cdch_diff_free) */
} cdch_oracle_result;

/* Judge rows against base (the plain run's rows; NULL: this is the plain
 * run, judged by the count of expected rows) with the cell's outcome
 * (verdict.h). A harness error in oc is the verdict as it is. */
void cdch_oracle_judge(const cdch_oracle_lines *base, const cdch_oracle_lines *rows, const cdch_change_list *expected,
                       const cdch_stream_index *idx, const cdch_outcome *oc, cdch_oracle_result *out);

/* The same for an adapter, whose error lines (said: its change list's
 * {"kind":"error"} lines; NULL for a program, whose lines are all rows) count
 * as the canonical judgement counts them: a missing transaction after which
 * later rows arrived is announced by an error line that names its event
 * (announce.h), the ones where it stopped by its first error line. */
void cdch_oracle_judge_said(const cdch_oracle_lines *base, const cdch_oracle_lines *rows,
                            const cdch_change_list *expected, const cdch_stream_index *idx,
                            const cdch_change_list *said, const cdch_outcome *oc, cdch_oracle_result *out);

/* Whether a row line looks like the watermark row (watermark.h): it names
 * the watermark table. The runner's end-of-stream accelerator for programs
 * that print table names; a program that does not falls back to idleness. */
bool cdch_oracle_line_is_watermark(const char *line, size_t len);

#endif
