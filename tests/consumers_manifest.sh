#!/usr/bin/env bash
# Run every pinned version of a consumer family against one scenario in both
# modes with `cdcharness run --expect manifest`: passes when every cell gives
# the verdict its manifest records (prints "N passed, N failed" by cell).
#
#   tests/consumers_manifest.sh CDCHARNESS_BIN FAMILY SCENARIO
set -u
bin=$1 family=$2 scenario=$3
rep=$(mktemp -d)
trap 'rm -rf "$rep"' EXIT
"$bin" run --consumer "$family" --scenario "$scenario" --mode both --expect manifest -j 2 \
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
print(f"{ok} passed, {len(cells) - ok} failed")
PY
exit $rc
