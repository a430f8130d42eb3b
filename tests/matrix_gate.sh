#!/usr/bin/env bash
# `cdcharness matrix` end to end on tests/data/matrix-test.yaml (test consumers of
# tests/consumers/ and the reference consumer, two scenarios): the manifest gate, exclusions,
# --quick, --list, --shard K/N + `report merge` (same report as one run), the baseline gate for a
# connector upgrade (a known-bad version fails with exit 1 naming its cells, a known-good one
# exits 0), --pre-flip (per consumer safe / not safe with evidence), exit 2 on a setup error,
# --setup-only (installs the plan's consumer versions, runs nothing).
#
#   tests/matrix_gate.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDCH_CACHE=$work/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
mx=$src/tests/data/matrix-test.yaml

echo "== --list: the plan, exclusions applied"
"$bin" matrix "$mx" --list >"$work/list.txt" 2>"$work/list.err"
cat "$work/list.err"
# 5 consumers x 2 scenarios x 2 modes = 20, minus broken-value x crud-basic (2 cells)
[ "$(wc -l <"$work/list.txt")" -eq 18 ] || fail "plan has $(wc -l <"$work/list.txt") cells, want 18"
grep -q "2 excluded" "$work/list.err" || fail "exclusions not counted: $(cat "$work/list.err")"
! grep -q "broken-value@1	crud-basic" "$work/list.txt" || fail "excluded cell planned"
"$bin" matrix "$mx" --list --quick >"$work/quick.txt" 2>/dev/null
[ "$(wc -l <"$work/quick.txt")" -eq 4 ] || fail "quick plan: $(cat "$work/quick.txt")"
# shards partition the plan
"$bin" matrix "$mx" --list --shard 1/3 >"$work/s1.txt" 2>/dev/null
"$bin" matrix "$mx" --list --shard 2/3 >"$work/s2.txt" 2>/dev/null
"$bin" matrix "$mx" --list --shard 3/3 >"$work/s3.txt" 2>/dev/null
cat "$work/s1.txt" "$work/s2.txt" "$work/s3.txt" | cmp -s - "$work/list.txt" || fail "shards do not partition the plan"

echo "== the whole matrix, gated on the manifests"
set +e
"$bin" matrix "$mx" -j 2 --report-dir "$work/full" >"$work/full.txt" 2>"$work/full.err"
rc=$?
set -e
cat "$work/full.txt"
[ $rc -eq 0 ] || { tail -20 "$work/full.err"; fail "matrix exited $rc, want 0"; }
grep -q '^\[18/18\]' "$work/full.err" || fail "no plain progress lines when stderr is not a terminal"
for f in report.json junit.xml summary.md report.html; do [ -s "$work/full/$f" ] || fail "no $f"; done
python3 - "$work/full/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["matrix"]
assert m["name"] == "matrix-test" and m["cells_total"] == 18 and m["excluded_cells"] == 2, m
assert m["exclude"][0]["reason"].startswith("broken-value alters"), m
idx = [c["index"] for c in r["cells"]]
assert idx == list(range(18)), idx
v = {(c["consumer"], c["scenario"], c["mode"]): c["verdict"] for c in r["cells"]}
assert v[("broken-skip@1", "run-small", "compressed")] == "silent-skip"
assert v[("upgrade-sim@1.0", "crud-basic", "compressed")] == "pass"
assert all(c["meets"] for c in r["cells"])
EOF

echo "== --shard 1/2 + 2/2, merged = one run"
"$bin" matrix "$mx" -j 2 --shard 1/2 --report-dir "$work/sh1" >/dev/null 2>&1 || fail "shard 1/2"
"$bin" matrix "$mx" -j 2 --shard 2/2 --report-dir "$work/sh2" >/dev/null 2>&1 || fail "shard 2/2"
"$bin" report merge --out "$work/merged" "$work/sh1" "$work/sh2" || fail "report merge"
python3 - "$work/full" "$work/merged" <<'EOF'
import json, re, sys
def norm(d):
    r = json.load(open(d + "/report.json"))
    r.pop("generated", None)
    r["matrix"].pop("shard", None)
    for c in r["cells"]:
        for k in ("seconds", "startup_seconds", "wait_seconds", "launched", "cpu_seconds", "cell_dir", "stderr_tail"):
            c.pop(k, None)
    return r
a, b = norm(sys.argv[1]), norm(sys.argv[2])
for x, y in zip(a["cells"], b["cells"]):  # what differs, named (a failure must say where)
    for k in sorted(set(x) | set(y)):
        if x.get(k) != y.get(k):
            print("one run / merged differ: %s %s %s %s: %r / %r" % (x["consumer"], x["scenario"], x["mode"], k,
                                                                      x.get(k), y.get(k)))
assert a["cells"] == b["cells"], "cells differ"
assert a["totals"] == b["totals"], (a["totals"], b["totals"])
assert a["matrix"] == b["matrix"], (a["matrix"], b["matrix"])
print("merged report == single-run report (%d cells)" % len(a["cells"]))
EOF

echo "== baseline gate: a connector upgrade"
sed 's/upgrade-sim@1.0/upgrade-sim@2.0/' "$mx" >"$work/upgrade-bad.yaml"
sed -i "s#consumers_dirs: \[../consumers, ../../consumers\]#consumers_dirs: [$src/tests/consumers, $src/consumers]#; s#  - run-small.yaml#  - $src/tests/data/run-small.yaml#; s#  - ../../scenarios/crud-basic.yaml#  - $src/scenarios/crud-basic.yaml#" "$work/upgrade-bad.yaml"
sed 's/upgrade-sim@2.0/upgrade-sim@2.1/' "$work/upgrade-bad.yaml" >"$work/upgrade-good.yaml"
set +e
"$bin" matrix "$work/upgrade-bad.yaml" -j 2 --baseline "$work/full/report.json" --report-dir "$work/bad" \
  >"$work/bad.txt" 2>"$work/bad.err"
rc=$?
set -e
cat "$work/bad.txt"
[ $rc -eq 1 ] || fail "upgrade to a known-bad version: exit $rc, want 1"
python3 - "$work/bad/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
bad = sorted((c["consumer"], c["scenario"], c["mode"]) for c in r["cells"] if not c["meets"])
want = [("upgrade-sim@2.0", "crud-basic", "compressed"), ("upgrade-sim@2.0", "run-small", "compressed")]
assert bad == want, bad
for c in r["cells"]:
    if c["consumer"] == "upgrade-sim@2.0":
        assert c["expect_source"] == "baseline (upgrade-sim@1.0)", c["expect_source"]
EOF
grep -q "upgrade-sim@2.0" "$work/bad.err" || fail "the regressed consumer is not named on stderr"
"$bin" matrix "$work/upgrade-good.yaml" -j 2 --baseline "$work/full/report.json" --report-dir "$work/good" \
  >"$work/good.txt" 2>&1 || fail "upgrade to a known-good version: exit $?, want 0"

echo "== --pre-flip"
cat >"$work/preflip.yaml" <<EOF
name: preflip-test
consumers_dirs: [$src/tests/consumers, $src/consumers]
consumers: [cdcharness-ref, broken-skip, broken-value]
scenarios: [$src/tests/data/run-small.yaml]
timeout: 20
grace: 0.5
EOF
set +e
"$bin" matrix "$work/preflip.yaml" -j 2 --pre-flip --report-dir "$work/pf" >"$work/pf.txt" 2>"$work/pf.err"
rc=$?
set -e
cat "$work/pf.txt"
[ $rc -eq 1 ] || fail "pre-flip with an unsafe consumer: exit $rc, want 1"
python3 - "$work/pf/preflip.json" <<'EOF'
import json, sys
r = {c["consumer"]: c for c in json.load(open(sys.argv[1]))["consumers"]}
assert r["cdcharness-ref@builtin"]["answer"] == "safe", r
assert r["broken-skip@1"]["answer"] == "not-safe" and "silent-skip" in r["broken-skip@1"]["evidence"], r
# broken-value is wrong with or without compression: safe to flip, the finding listed as pre-existing
assert r["broken-value@1"]["answer"] == "safe" and r["broken-value@1"]["preexisting"] == 1, r
EOF
grep -q "NOT SAFE broken-skip@1" "$work/pf.txt" || fail "pre-flip table"

echo "== a consumer that cannot be installed: exit 2"
mkdir -p "$work/cons/bad-setup"
cat >"$work/cons/bad-setup/manifest.yaml" <<'EOF'
family: bad-setup
source: files
versions: ["1"]
setup: ["sh", "-c", "echo 'E: package not found' >&2; exit 3"]
run: ["true"]
EOF
cat >"$work/setup.yaml" <<EOF
name: setup-error
consumers_dirs: [$work/cons]
consumers: [bad-setup]
scenarios: [$src/tests/data/run-small.yaml]
EOF
set +e
"$bin" matrix "$work/setup.yaml" --report-dir "$work/se" >"$work/se.txt" 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || fail "setup error: exit $rc, want 2"
echo "== --setup-only: installs what the plan needs, runs no cell"
"$bin" matrix "$mx" --setup-only --report-dir "$work/so" >"$work/so.txt" 2>"$work/so.err" \
  || fail "--setup-only: exit $?: $(cat "$work/so.err")"
[ "$(cut -f1 "$work/so.txt" | LC_ALL=C sort | tr '\n' ' ')" = "broken-skip@1 broken-value@1 cdcharness-ref@builtin session-die@1 upgrade-sim@1.0 " ] \
  || fail "--setup-only: installed $(cat "$work/so.txt")"
grep -q "^upgrade-sim@1.0	$CDCH_CACHE/upgrade-sim/1.0$" "$work/so.txt" || fail "--setup-only: no cache dir: $(cat "$work/so.txt")"
[ ! -e "$work/so" ] || fail "--setup-only wrote a report"
grep -q "every consumer version the plan needs is installed" "$work/so.err" || fail "--setup-only: $(cat "$work/so.err")"
set +e
"$bin" matrix "$work/setup.yaml" --setup-only >"$work/so2.txt" 2>"$work/so2.err"; rc=$?
"$bin" matrix "$mx" --setup-only --list >/dev/null 2>"$work/so3.err"; rc3=$?
set -e
[ $rc -eq 2 ] && grep -q "^not installed: bad-setup@1: setup of bad-setup@1 failed (exit status 3)" "$work/so2.err" \
  && [ ! -s "$work/so2.txt" ] || fail "--setup-only, a setup that fails: exit $rc: $(cat "$work/so2.err")"
[ $rc3 -eq 2 ] && grep -q "give one" "$work/so3.err" || fail "--setup-only --list: exit $rc3"
echo "== bad matrix files: exit 2 with FILE:LINE:COL"
printf 'name: x\nconsumers: [cdcharness-ref]\nscenarios: [nothing-here/*.yaml]\n' >"$work/m1.yaml"
set +e
out=$("$bin" matrix "$work/m1.yaml" 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && echo "$out" | grep -q "m1.yaml:3:.*no scenario file matches 'nothing-here/\*.yaml'" || fail "bad glob: $rc $out"
printf 'name: x\nconsumers: [cdcharness-ref]\nscenarios: [%s]\nmode: both\n' "$src/tests/data/run-small.yaml" >"$work/m2.yaml"
set +e
out=$("$bin" matrix "$work/m2.yaml" 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && echo "$out" | grep -q "m2.yaml:4:1: unknown key 'mode'" || fail "unknown key: $rc $out"

echo "== all matrix tests passed"
