#!/usr/bin/env bash
# Regenerate reports/default/: the committed report of the default compatibility matrix
# (ci/matrix.yaml), so a reader sees what the harness found about real consumers without running
# anything. Runs the whole matrix (ci/gate.sh: setup, build, every cell; see bench/README.md for
# how long), then copies report.html, report.json and summary.md (not the per-cell
# logs, and not junit.xml: 4 MB that CI tools want, not readers) into reports/default/. Exit status: the matrix's (0 pass, 1 regression, 2 harness error);
# the report is copied in every case, so a regression is visible in the diff.
#
#   scripts/update-reports.sh [cdcharness matrix options, e.g. -j 4]
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CDCH_REPORT_DIR=$tmp/report ci/gate.sh ci/matrix.yaml "$@"
rc=$?
if [ -f "$tmp/report/report.json" ]; then
  mkdir -p reports/default
  for f in report.html report.json summary.md; do cp "$tmp/report/$f" reports/default/; done
  echo "reports/default/ updated (matrix exit status $rc)" >&2
fi
exit $rc
