#!/usr/bin/env bash
# The main job on the bundled default, on a fresh machine: install what is needed (Debian packages;
# each consumer from its own registry at its pinned version, cached in ~/.cache/cdcharness), build,
# and run the default compatibility matrix (ci/matrix.yaml: every pinned consumer version × the
# scenario library × compressed and uncompressed), gated on the verdicts the manifests record.
# Reports: reports/latest/{report.html,report.json,junit.xml,summary.md}.
#
#   scripts/main.sh                   the whole default matrix
#   scripts/main.sh --quick           its pull-request subset (2 scenarios)
#   scripts/main.sh --pre-flip        the pre-flip answer for every consumer of the default matrix
#   scripts/main.sh OTHER.yaml ...    another matrix file; any `cdcharness matrix` option
#
# Exit status: 0 every cell met its gate, 1 a regression, 2 a harness or setup error (ci/gate.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
exec ci/gate.sh "$@"
