#!/usr/bin/env bash
# Every pinned Debezium version (consumers/debezium/manifest.yaml) against crud-basic and
# partial-json-full and restart-mid-payload, in both modes with `cdcharness run --expect manifest`
# (session mode: one JVM per version serves its cells). Passes when every cell gives the verdict
# its manifest records; prints "N passed, N failed" by cell.
#
#   tests/consumers_debezium.sh CDCHARNESS_BIN SOURCE_DIR
set -u
bin=$1 src=$2
# java and mvn are prerequisites (scripts/setup.sh installs them): missing = a failure, not a skip
for tool in java mvn; do
    command -v "$tool" >/dev/null || { echo "$tool is missing (scripts/setup.sh installs it)"; echo "0 passed, 1 failed"; exit 1; }
done
rep=$(mktemp -d)
trap 'rm -rf "$rep"' EXIT
# restart-mid-payload: the harness holds its cut until the consumer has emitted what it received, so every
# version's verdict is fixed (2.7.4 compressed: duplicate, DBZ-9564)
"$bin" run --consumer debezium --mode both --expect manifest -j 2 --timeout 120 \
       --scenario "$src/scenarios/crud-basic.yaml" --scenario "$src/scenarios/partial-json-full.yaml" \
       --report-dir "$rep/a" --quiet >"$rep/table.txt" 2>"$rep/stderr.txt"
rc1=$?
"$bin" run --consumer debezium --mode both --expect manifest -j 2 \
       --timeout 120 --scenario "$src/scenarios/restart-mid-payload.yaml" \
       --report-dir "$rep/b" --quiet >>"$rep/table.txt" 2>>"$rep/stderr.txt"
rc2=$?
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]; rc=$?
cat "$rep/table.txt"
[ -s "$rep/stderr.txt" ] && tail -n 20 "$rep/stderr.txt"
python3 - "$src/consumers/debezium/manifest.yaml" "$rep/a/report.json" "$rep/b/report.json" <<'PY'
import json, sys
import yaml
try:
    nver = len(yaml.safe_load(open(sys.argv[1]))["versions"])
    cells = [c for f in sys.argv[2:] for c in json.load(open(f)).get("cells", [])]
except Exception as e:
    print(f"cannot read the manifest or the report: {e}")
    print("0 passed, 1 failed")
    sys.exit(1)
ok = sum(1 for c in cells if c.get("meets"))
want = nver * 3 * 2
if len(cells) != want:
    print(f"expected {want} cells ({nver} pinned versions x 3 scenarios, 2 modes), got {len(cells)}")
    print(f"{ok} passed, {len(cells) - ok + 1} failed")
    sys.exit(1)
print(f"{ok} passed, {len(cells) - ok} failed")
PY
pyrc=$?
[ $rc -eq 0 ] && [ $pyrc -eq 0 ]
