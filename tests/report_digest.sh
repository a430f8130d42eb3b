#!/usr/bin/env bash
# `cdcharness report digest`: the small committed form of a report (reports/default/).
# A run of the reference consumer and broken-skip against tests/data/run-small.yaml, digested:
# the exact grid and count rows of summary.md, the exact cell lines of verdicts.json, and
# verdicts.json as a `--baseline` (same verdicts -> 0, a cell now worse -> 1); error paths.
#
#   tests/report_digest.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDCH_CACHE=$work/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { "$bin" run --consumers-dir "$src/tests/consumers" --consumers-dir "$src/consumers" --quiet "$@"; }
scenario=$src/tests/data/run-small.yaml

run --consumer cdcharness-ref --consumer broken-skip --scenario "$scenario" --expect manifest --timeout 20 \
  --report-dir "$work/r1" >/dev/null || fail "the run should meet the manifests' expectations"
"$bin" report digest --out "$work/d1" "$work/r1" 2>"$work/err" || { cat "$work/err"; fail "digest failed"; }
grep -q "digest of $work/r1: $work/d1/{summary.md,verdicts.json}" "$work/err" || fail "digest: no confirmation line"

# summary.md: per family the counts row and the grid row, exactly
want_rows='| 1 | 2 | 1 | | | | | | | | | 1 | | 0 | 1 |
| 1 | ok/SKIP |
| builtin | 2 | 2 | | | | | | | | | | | 0 | 0 |
| builtin | ok/ok |'
got_rows=$(grep -E '^\| (builtin|1) \|' "$work/d1/summary.md")
[ "$got_rows" = "$want_rows" ] || { printf 'want:\n%s\ngot:\n%s\n' "$want_rows" "$got_rows"; fail "summary.md rows differ"; }
grep -q '^## cdcharness-ref$' "$work/d1/summary.md" && grep -q '^## broken-skip$' "$work/d1/summary.md" ||
  fail "summary.md: a section per family"
grep -q '^Generated .*: 4 cell(s), 0 not as expected, 1 compression regression(s). pass: 3. silent-skip: 1.$' \
  "$work/d1/summary.md" || fail "summary.md: totals line"

grep -q '^- `planted-fault` (' "$work/d1/summary.md" || fail "summary.md: the cause the cells cite"

# verdicts.json: one line per cell, exactly
want_cells='{"consumer":"broken-skip@1","scenario":"run-small","mode":"uncompressed","verdict":"pass","expected":"pass","classes":"","meets":true,"compression_regression":false,"cause":[]},
{"consumer":"broken-skip@1","scenario":"run-small","mode":"compressed","verdict":"silent-skip","expected":"silent-skip","classes":"silent-skip","meets":true,"compression_regression":true,"cause":["planted-fault"]},
{"consumer":"cdcharness-ref@builtin","scenario":"run-small","mode":"uncompressed","verdict":"pass","expected":"pass","classes":"","meets":true,"compression_regression":false,"cause":[]},
{"consumer":"cdcharness-ref@builtin","scenario":"run-small","mode":"compressed","verdict":"pass","expected":"pass","classes":"","meets":true,"compression_regression":false,"cause":[]}'
got_cells=$(grep '^{"consumer"' "$work/d1/verdicts.json")
[ "$got_cells" = "$want_cells" ] || { printf 'want:\n%s\ngot:\n%s\n' "$want_cells" "$got_cells"; fail "verdicts.json cells differ"; }
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["format"]=="cdcharness-report" and r["digest"] is True and len(r["cells"])==4' \
  "$work/d1/verdicts.json" || fail "verdicts.json is not valid JSON of the report format"

# as a baseline: the same verdicts pass; a baseline where the compressed cell passed fails
run --consumer broken-skip --scenario "$scenario" --baseline "$work/d1/verdicts.json" --timeout 20 \
  --report-dir "$work/r2" >/dev/null || fail "--baseline verdicts.json with the same verdicts should pass"
sed 's/"verdict":"silent-skip"/"verdict":"pass"/' "$work/d1/verdicts.json" >"$work/better.json"
set +e
run --consumer broken-skip --scenario "$scenario" --baseline "$work/better.json" --timeout 20 --report-dir "$work/r3" >/dev/null
rc=$?
set -e
[ $rc -eq 1 ] || fail "--baseline: a cell worse than the digest's should exit 1 (got $rc)"

# errors
set +e
"$bin" report digest --out "$work/d2" "$work/nope" 2>"$work/err"; rc=$?
set -e
[ $rc -eq 1 ] && grep -q "$work/nope/report.json" "$work/err" || { cat "$work/err"; fail "digest of a missing report: exit 1 naming the file"; }
set +e
"$bin" report digest "$work/r1" 2>"$work/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'give --out DIR' "$work/err" || fail "digest without --out: usage error"
echo "report_digest: all checks passed"
