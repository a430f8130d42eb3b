/* version.h — consumer version order and version ranges (manifest
 * known_issues `versions`, consumers/README.md "Version ranges").
 *
 * Owns: a cdch_vrange owns its items (free with cdch_vrange_free).
 *
 * Order: one comparator for every family's version strings (Maven's
 * ComparableVersion, semver and PEP 440 agree with it on the versions the
 * registries serve): a leading `v` is ignored, a `+variant` never takes
 * part; the rest splits into numbers and qualifiers at '.', '-', '_' and at
 * digit/letter boundaries; numbers compare numerically (any length), and
 * qualifiers by rank
 *   dev < alpha|a < beta|b < milestone|m < rc|cr|c|pre|preview < snapshot
 *     < (none)|final|ga|release|r < sp|post|p < any other word (by name),
 * case-insensitively; a missing part is 0 (before a number) or the release
 * (before a qualifier), so 1.0 == 1.0.0 == 1.0.0.Final, 2.6.0.CR1 <
 * 2.6.0.Final, v1.0.0-rc.1 < v1.0.0, 1.0.0a1 < 1.0.0 < 1.0.0.post1.
 *
 * Ranges: "ITEM, ITEM, ..." where ITEM is a bare version (exactly that
 * version), a bound ">= V", "> V", "<= V", "< V", or "*" (every version).
 * Bounds pair up into intervals in order: a lower bound opens one, the next
 * upper bound closes it; an upper bound with nothing open starts at the
 * first version ever, a lower bound left open runs to the newest. A version
 * is in the range when it equals a bare item or lies in an interval.
 */
#ifndef CDCH_VERSION_H
#define CDCH_VERSION_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* <0, 0, >0 as a is before, the same as, after b (variants ignored). */
int cdch_version_cmp(const char *a, const char *b);

/* How many leading parts a and b share (1.0.9 and 1.0.17: 2; 1.0.9 and
 * 0.45.1: 0): how near two versions are, for predict.h. */
size_t cdch_version_common(const char *a, const char *b);

/* Whether s is a version the comparator can order: non-empty, at least one
 * digit, only letters, digits, '.', '-', '_' (and a leading 'v', a
 * trailing "+variant"). */
bool cdch_version_valid(const char *s);

/* The variant of "V+variant" ("" when none); points into version. */
const char *cdch_version_variant(const char *version);

typedef struct cdch_vrange_item {
    char *lo, *hi;      /* bounds, NULL: open on that side; both equal for a bare version */
    bool lo_incl, hi_incl;
} cdch_vrange_item;

typedef struct cdch_vrange {
    cdch_vrange_item *items;
    size_t n;
    bool any;           /* "*" */
} cdch_vrange;

/* Parse a range; -1 with err saying what is wrong (the item and why). */
int cdch_vrange_parse(const char *text, cdch_vrange *out, cdch_err *err);
void cdch_vrange_free(cdch_vrange *r); /* accepts an empty/zeroed range */

/* Whether version (its "+variant" ignored) is in the range. */
bool cdch_vrange_holds(const cdch_vrange *r, const char *version);

#endif
