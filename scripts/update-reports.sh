#!/usr/bin/env bash
# Regenerate reports/default/: the committed digest of the default compatibility matrix
# (ci/matrix.yaml), so a reader sees what the harness found about real consumers without running
# anything. Runs the whole matrix (ci/gate.sh: setup, build, every cell; see bench/README.md for
# how long) into reports/latest/ (the full report.json, report.html, junit.xml, summary.md and the
# per-cell logs: build artifacts, not committed), then writes its digest into reports/default/:
# summary.md (per consumer family: verdict counts per version, the causes cited, the verdict grid)
# and verdicts.json (a line per cell; a `--baseline`). Exit status: the matrix's (0 pass,
# 1 regression, 2 harness error); the digest is written in every case, so a regression is visible
# in the diff.
#
#   scripts/update-reports.sh [cdcharness matrix options, e.g. -j 4]
set -uo pipefail
cd "$(dirname "$0")/.."
report=${CDCH_REPORT_DIR:-reports/latest}
CDCH_REPORT_DIR=$report ci/gate.sh ci/matrix.yaml "$@"
rc=$?
if [ -f "$report/report.json" ]; then
  build/cdcharness report digest --out reports/default "$report" || exit 2
  echo "reports/default/ updated from $report (matrix exit status $rc)" >&2
fi
exit $rc
