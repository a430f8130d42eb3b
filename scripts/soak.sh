#!/usr/bin/env bash
# The soak run: the matrix of bugs only a multi-gigabyte stream shows (ci/soak.yaml), kept out of the
# default matrix. Builds and installs like ci/gate.sh, runs ci/soak.yaml one cell at a time (-j 1: the
# cells' memory does not add up) into $CDCH_REPORT_DIR (default reports/soak-latest: report.json,
# report.html, the cells' logs; build artifacts, not committed), writes its digest into reports/soak/
# (summary.md, verdicts.json: committed, read by scripts/bug_record.py beside reports/default/), and
# removes the cells' observed.jsonl (2.3 GB each) unless CDCH_KEEP_OBSERVED=1 (the harness itself drops a
# passing cell's large one as it is judged; CDCH_KEEP_OBSERVED=1 passes --keep-observed).
#
#   scripts/soak.sh [cdcharness matrix options]
#   python3 scripts/bug_record.py --check          # then regenerate docs/BUG-RECORD.md
#
# Needs (bench/README.md "Soak: payload-over-2gib"): ~10 GB free under $TMPDIR (default /tmp) and the
# report directory, ~10 GB of free memory, a few minutes on 2 cores.
# Exit status: the matrix's (0 every cell gave its recorded verdict, 1 a regression, 2 a harness or
# setup error); the digest is written whenever report.json was.
set -uo pipefail
cd "$(dirname "$0")/.."
report=${CDCH_REPORT_DIR:-reports/soak-latest}
keep=()
[ "${CDCH_KEEP_OBSERVED:-0}" != 1 ] || keep=(--keep-observed)
CDCH_REPORT_DIR=$report CDCH_JOBS=${CDCH_JOBS:-1} ci/gate.sh ci/soak.yaml "${keep[@]}" "$@"
rc=$?
if [ -f "$report/report.json" ]; then
  build/cdcharness report digest --out reports/soak "$report" || exit 2
  echo "reports/soak/ updated from $report (matrix exit status $rc)" >&2
fi
if [ "${CDCH_KEEP_OBSERVED:-0}" != 1 ] && [ -d "$report/cells" ]; then
  find "$report/cells" -name observed.jsonl -size +100M -delete
fi
exit $rc
