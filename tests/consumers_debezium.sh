#!/usr/bin/env bash
# Every pinned Debezium version (consumers/debezium/manifest.yaml) against crud-basic,
# partial-json-full and restart-mid-payload in both modes with `cdcharness run --expect manifest`
# (session mode: one JVM per version serves its cells). Passes when every cell gives the verdict
# its manifest records; prints "N passed, N failed" by cell.
#
#   tests/consumers_debezium.sh CDCHARNESS_BIN SOURCE_DIR
set -u
bin=$1 src=$2
command -v java >/dev/null && command -v mvn >/dev/null || { echo "java/mvn missing: skipped"; echo "0 passed, 0 failed"; exit 0; }
rep=$(mktemp -d)
trap 'rm -rf "$rep"' EXIT
"$bin" run --consumer debezium --mode both --expect manifest -j 2 --timeout 120 \
       --scenario "$src/scenarios/crud-basic.yaml" --scenario "$src/scenarios/partial-json-full.yaml" \
       --scenario "$src/scenarios/restart-mid-payload.yaml" \
       --report-dir "$rep" --quiet >"$rep/table.txt" 2>"$rep/stderr.txt"
rc=$?
cat "$rep/table.txt"
[ -s "$rep/stderr.txt" ] && tail -n 20 "$rep/stderr.txt"
python3 - "$rep/report.json" <<'PY'
import json, sys
try:
    cells = json.load(open(sys.argv[1])).get("cells", [])
except Exception as e:
    print(f"cannot read the report: {e}")
    print("0 passed, 1 failed")
    sys.exit(1)
ok = sum(1 for c in cells if c.get("meets"))
if len(cells) != 36:
    print(f"expected 36 cells (6 versions x 3 scenarios x 2 modes), got {len(cells)}")
    print(f"{ok} passed, {len(cells) - ok + 1} failed")
    sys.exit(1)
print(f"{ok} passed, {len(cells) - ok} failed")
PY
pyrc=$?
[ $rc -eq 0 ] && [ $pyrc -eq 0 ]
