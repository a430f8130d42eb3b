#!/usr/bin/env bash
# The CI gate: build cdcharness (installing what it needs), run a compatibility matrix, write the
# reports, exit with the gate's answer. Copy ci/ into your repository's CI (examples:
# ci/github-actions.yml, ci/gitlab-ci.yml).
#
#   ci/gate.sh [MATRIX] [cdcharness matrix options]
#
#   ci/gate.sh                                   the default matrix (ci/matrix.yaml), manifest gate
#   ci/gate.sh ci/matrix.yaml --quick            the pull-request subset
#   ci/gate.sh ci/matrix.yaml --shard 2/4        one CI machine's slice (join: cdcharness report merge)
#   ci/gate.sh my-upgrade.yaml --baseline reports/default/verdicts.json
#                                                may we upgrade? (fails only on cells worse than before)
#   ci/gate.sh ci/preflip-example.yaml --pre-flip
#                                                may we turn binlog_transaction_compression on?
#
# Reports go to $CDCH_REPORT_DIR (default reports/latest): report.html, report.json, junit.xml,
# summary.md (+ preflip.md/json). Consumers are installed once into $CDCH_CACHE
# (default ~/.cache/cdcharness): cache that directory and ~/.m2, ~/.npm, ~/go/pkg/mod between CI runs.
#
# Exit status (cdcharness matrix): 0 pass, 1 a regression (a cell worse than its gate, or a consumer
# not safe to flip), 2 a harness or setup error (also: this script could not build).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
matrix=ci/matrix.yaml
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then matrix=$1; shift; fi
jobs=$(nproc 2>/dev/null || echo 2)
{
  bash scripts/setup.sh >/dev/null &&
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
  cmake --build build -j"$jobs" --target cdcharness >/dev/null
} || { echo "ci/gate.sh: setup or build failed" >&2; exit 2; }
# -j: the matrix's default, ten cells a core (cells mostly wait on their consumers: sockets, library
# timers; measured in bench/README.md "The -j default"). CDCH_JOBS overrides.
exec build/cdcharness matrix "$matrix" ${CDCH_JOBS:+-j "$CDCH_JOBS"} --report-dir "${CDCH_REPORT_DIR:-reports/latest}" "$@"
