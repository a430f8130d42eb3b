#!/usr/bin/env bash
# report.html in headless Chromium: a real report (`cdcharness run` with the
# reference consumer and the deliberately broken test consumers of
# tests/consumers/: passes, a silent-skip, mismatches, parse-failures,
# compression regressions) opened in Debian's chromium through the DevTools
# protocol (tests/html/cdp.py, over --remote-debugging-pipe: no package to
# install but the browser). tests/html/check_report.py asserts no console
# error or exception on load, nothing requested but the page, one grid cell
# per report cell with its verdict class, and that clicking failing cells
# opens their diff panel with the expected/observed events and the stderr
# tail. Then the checker must fail on pages broken four ways, and a report
# whose strings hold "</script>" and markup must still render as text.
#
#   tests/html/report_html.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
here=$src/tests/html
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDCH_CACHE=$work/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v chromium >/dev/null || command -v "${CDCH_CHROMIUM:-chromium}" >/dev/null ||
  fail "no chromium: install Debian's chromium (scripts/setup.sh)"

echo "== a real report: reference + broken test consumers against run-small"
args=()
for c in cdcharness-ref broken-value broken-skip broken-die broken-checkpoint broken-duplicate broken-announce-skip \
         documented-skip; do
  args+=(--consumer "$c")
done
"$bin" run --consumers-dir "$src/tests/consumers" --consumers-dir "$src/consumers" --quiet "${args[@]}" \
  --scenario "$src/tests/data/run-small.yaml" --expect manifest --timeout 20 -j 2 --report-dir "$work/r" >/dev/null ||
  fail "run: every cell should meet its manifest's expect"
[ -s "$work/r/report.html" ] || fail "no report.html"
grep -q 'http://\|https://' "$work/r/report.html" && grep -o '\(http\|https\)://[^" )]*' "$work/r/report.html" | grep -v 'www.w3.org/2000/svg' &&
  fail "report.html names a URL to load"

open_specs=(
  # silent-skip + compression regression: expected side only, nothing observed
  --open '{"cell": ["broken-skip@1", "run-small", "compressed"], "contains": {"#fd-expected": "\"txn\": 6", "#fd-observed": "nothing arrived", "#first-diff": "never arrived", "#p-summary": "missing while later ones arrived"}}'
  # a value mismatch: both events, the differing column
  --open '{"cell": ["broken-value@1", "run-small", "uncompressed"], "contains": {"#fd-expected": "\"note\": \"changed\"", "#fd-observed": "\"note\": \"CHANGED\"", "#fd-table tr.diff": "after.note"}}'
  # parse-failure: the consumer's stderr tail
  --open '{"cell": ["broken-die@1", "run-small", "compressed"], "contains": {"#stderr-tail": "unknown binlog event type 40", "#fd-expected": "\"compressed\": true"}}'
  # announced-skip: the consumer's own line, quoted
  --open '{"cell": ["broken-announce-skip@1", "run-small", "compressed"], "contains": {"#p-verdict": "announced-skip", "#p-said": "the consumer said: \u201cskipping unsupported event type 40 (txn 6)\u201d"}}'
  # a documented requirement beside the verdict, in the documentation's words
  --open '{"cell": ["documented-skip@1", "run-small", "compressed"], "contains": {"#p-requirement": "Documented requirement, not a defect: documented-skip documents that binlog_transaction_compression is not supported"}}'
)
grep -q '| documented-skip@1 | run-small | compressed | \*\*silent-skip\*\* ⚠ compression-regression — documented requirement, not a defect: documented-skip documents that binlog_transaction_compression is not supported' \
  "$work/r/summary.md" || fail "summary.md: the documented requirement is not beside its verdict"
grep -q '| broken-announce-skip@1 | run-small | compressed | \*\*announced-skip\*\* ⚠ compression-regression' "$work/r/summary.md" ||
  fail "summary.md: the announced-skip row"
echo "== the page in headless chromium"
python3 "$here/check_report.py" "$work/r/report.html" "${open_specs[@]}" || fail "report.html"

echo "== the checker fails on broken pages"
broken() { # NAME PYTHON-REPLACEMENT (old, new): must make the check fail with WANT in its output
  local name=$1 old=$2 new=$3 want=$4
  mkdir -p "$work/$name"
  cp "$work/r/report.json" "$work/$name/"
  python3 - "$work/r/report.html" "$work/$name/report.html" "$old" "$new" <<'PY'
import sys
s = open(sys.argv[1], encoding="utf-8").read()
assert sys.argv[3] in s, "marker %r not in the page" % sys.argv[3]
open(sys.argv[2], "w", encoding="utf-8").write(s.replace(sys.argv[3], sys.argv[4], 1))
PY
  set +e
  out=$(python3 "$here/check_report.py" "$work/$name/report.html" "${open_specs[@]:0:2}" 2>&1)
  rc=$?
  set -e
  [ $rc -eq 1 ] || fail "$name: the checker passed a broken page (rc $rc): $out"
  echo "$out" | grep -q "$want" || fail "$name: the checker failed without '$want': $out"
  echo "  $name: detected"
}
broken js-exception '"use strict";' '"use strict"; window.noSuchFunction();' "uncaught exception"
broken no-click 'grid.addEventListener("click"' 'grid.addEventListener("dblclick"' "did not open the panel"
broken verdict-class 'function vclass(v) { return "v-"' 'function vclass(v) { return "w-"' "lack v-"
broken network '<main>' '<main><img src="http://127.0.0.1:9/x.png" alt="">' "127.0.0.1:9"

echo "== markup in the data stays text"
mkdir -p "$work/x"
python3 - "$work/r/report.json" "$work/x/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
for c in r["cells"]:
    if c["consumer"] == "broken-die@1" and c["mode"] == "compressed":
        c["stderr_tail"] += "</script><script>window.pwned=1</script><!-- <b id=pwn>bold</b>\n"
        c["summary"] = "<img src=x onerror=\"window.pwned=2\"> & </SCRIPT " + c["summary"]
json.dump(r, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
PY
"$bin" report render "$work/x" || fail "report render"
python3 "$here/check_report.py" "$work/x/report.html" \
  --open '{"cell": ["broken-die@1", "run-small", "compressed"], "contains": {"#stderr-tail": "</script><script>window.pwned=1</script><!-- <b id=pwn>", "#p-summary": "<img src=x onerror="}}' ||
  fail "markup in report strings"
echo "== all report.html tests passed"
