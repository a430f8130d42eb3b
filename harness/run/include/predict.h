/* predict.h — the expected verdict of a consumer version the manifest does
 * not pin, from the family's known_issues (issue 25; consumers/README.md
 * "Versions the manifest does not pin").
 *
 * Owns: nothing (fills a caller's struct).
 *
 * The known issues whose range (and variants) hold the version are "in
 * range". An in-range issue with `startup: true` (the consumer fails before
 * it reads the stream, or on the watermark every stream has) decides every
 * cell by its `effect` (its effect_by_scenario entry for the cell, when it
 * has one). Next an in-range issue's own effect_by_scenario entry for the
 * (scenario, mode) decides, over the pins: it says which issue stops the
 * consumer first where no pinned version has that combination; when several
 * give one, the first listed in known_issues decides (an issue is listed
 * before those it hides). An entry `pass` says the issue does not decide that
 * cell: a pinned version's expectation citing it is no candidate there.
 * Else what an issue does to a (scenario, mode) is read from the pinned
 * versions that show it: each pinned version's expectation for that
 * (scenario, mode) (expect_by_scenario, else expect) is a candidate when it
 * is not pass and every cause it cites is in range; for compressed and flip
 * cells its uncompressed one too when no cause is about compression and the
 * pin does not show the mode itself (its own expectation there passes or
 * cites only in-range issues). The prediction is the
 * candidate of the pinned version that shares most of the in-range issues
 * (it shows how they combine: which one stops the consumer first), then
 * citing the most causes, then the pinned version nearest in version order,
 * then the worse verdict, with the
 * causes of every candidate of that verdict. The pinned versions of the
 * same variant are asked first; when they give no candidate, every pinned
 * version is, but an issue is left out where a pinned version of the
 * variant lies in its range and does not show it there (a +canal tag is
 * predicted from a +raw pin's no-type-40, a +unwrap tag not from a plain
 * listener's bug that the +unwrap pins do not have). No candidate: the
 * worst `effect` an in-range issue declares for the mode (issues no pinned
 * version shows), else pass.
 */
#ifndef CDCH_PREDICT_H
#define CDCH_PREDICT_H

#include "manifest.h"
#include "verdict.h"

typedef struct cdch_prediction {
    cdch_verdict verdict;
    char causes[256];   /* "id id": the known issues that predict the verdict ("" for pass) */
    char in_range[512]; /* "id id": every known issue whose range holds the version */
} cdch_prediction;

/* Predict version's verdict on scenario (name) in mode. version is "V[+variant]";
 * a local build ("file:...") is predicted from the version its setup found
 * (local_version, NULL when unknown: then only "*" ranges are in range). */
void cdch_predict(const cdch_manifest *m, const char *version, const char *scenario, const char *mode,
                  cdch_prediction *out);

#endif
