#!/usr/bin/env bash
# The consumers a user actually runs (issue 25), end to end with the test family
# tests/consumers/versioned-sim, whose setup.sh plays a registry that serves more versions than
# the manifest pins:
#   * FAMILY@VERSION the manifest does not pin: installed by the same setup (CDCH_UNPINNED=1),
#     its expectation predicted from the known issues whose range holds it (report.json
#     "prediction", "~" in the table), a wrong prediction reported as not held;
#   * a version the registry does not serve: harness-error quoting the registry's answer;
#   * an unknown +variant: a usage error naming the family's variants;
#   * FAMILY@file:PATH: a local build, installed under its content's fingerprint and installed
#     again when the content changes, predicted from the version its setup found;
#   * --consumer-config and a matrix file's `config:`: CDCH_CONFIG reaches the adapter, its
#     config line is in report.json (config_effective, with the kept settings), a setting it
#     cannot honour is a harness-error naming it.
#
#   tests/run_unpinned.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDCH_CACHE=$work/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { "$bin" run --consumers-dir "$src/tests/consumers" --quiet --scenario "$src/tests/data/run-small.yaml" \
        --expect manifest --timeout 8 "$@"; }
# report.json -> "consumer mode verdict expected source held causes" lines
cells() {
    python3 - "$1" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    p = c.get("prediction")
    print(c["consumer"], c["mode"], c["verdict"], c["expected"], c["expect_source"],
          "-" if p is None else ("held" if p["held"] else "not-held"),
          "-" if p is None else (",".join(p["causes"]) or "none"))
PY
}
want() { # FILE LINE: the exact line is in FILE
    grep -qxF "$2" "$1" || { cat "$1" >&2; fail "missing line: $2"; }
}

echo "== versions the manifest does not pin: predicted from known_issues ranges"
set +e
run --consumer versioned-sim@1.5 --consumer versioned-sim@2.0.1 --consumer versioned-sim@2.7 \
    --report-dir "$work/r1" >"$work/t1.txt"
rc=$?
set -e
cat "$work/t1.txt"
[ $rc -eq 1 ] || fail "a failed prediction must fail the run (rc $rc)"
cells "$work/r1/report.json" >"$work/c1.txt"
want "$work/c1.txt" "versioned-sim@1.5 compressed pass pass predicted held none"
want "$work/c1.txt" "versioned-sim@2.0.1 uncompressed pass pass predicted held none"
want "$work/c1.txt" "versioned-sim@2.0.1 compressed silent-skip silent-skip predicted held planted-skip"
# planted-die's range is deliberately too wide: 2.7 is correct, the prediction does not hold
want "$work/c1.txt" "versioned-sim@2.7 compressed pass parse-failure predicted not-held planted-die"
grep -q "ok ~silent-skip" "$work/t1.txt" || fail "the table marks predicted expectations with '~'"
grep -q "^~ a predicted expectation" "$work/t1.txt" || fail "the table explains '~'"
python3 - "$work/r1/report.json" <<'PY'
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["cells"] if c["consumer"] == "versioned-sim@2.0.1" and c["mode"] == "compressed"][0]
assert c["unpinned"] is True, c
assert c["prediction"]["in_range"] == ["planted-skip"], c["prediction"]
assert [x["id"] for x in c["cause"]] == ["planted-skip"], c["cause"]
PY
grep -q "CDCH_UNPINNED" "$src/tests/consumers/versioned-sim/setup.sh"
grep -q "not pinned" "$CDCH_CACHE/versioned-sim/2.7.setup.log" || fail "setup was not told CDCH_UNPINNED=1"
# the summary and the HTML report carry the prediction too
grep -q "Predictions" "$work/r1/summary.md" || fail "summary.md has no Predictions section"
grep -q "planted-die" "$work/r1/summary.md" || fail "summary.md does not name the known issue that predicted"

echo "== a version the registry does not serve"
set +e
run --consumer versioned-sim@9.9 --report-dir "$work/r2" >"$work/t2.txt"
set -e
grep -q "versioned-sim@9.9 is not served by the family's registry; it answered: ERROR: No matching distribution found for versioned-sim==9.9" \
    "$work/t2.txt" || { cat "$work/t2.txt"; fail "the registry's answer is not quoted"; }

echo "== an unknown variant"
set +e
run --consumer versioned-sim@2.0+nope --report-dir "$work/r3" 2>"$work/e3.txt"
rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown variant: rc $rc, want 2"
grep -q "unknown variant '+nope' in '2.0+nope'" "$work/e3.txt" || { cat "$work/e3.txt"; fail "variant message"; }

echo "== a local build: its content's fingerprint, installed again when it changes"
mkdir -p "$work/build"
echo skip-compressed >"$work/build/behaviour"
echo 2.0.3 >"$work/build/version"
run --consumer "versioned-sim@file:$work/build" --report-dir "$work/r4" >"$work/t4.txt"
cells "$work/r4/report.json" >"$work/c4.txt"
want "$work/c4.txt" "versioned-sim@file:$work/build compressed silent-skip silent-skip predicted held planted-skip"
fp1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cells"][0]["local"]["fingerprint"])' "$work/r4/report.json")
echo correct >"$work/build/behaviour"
echo 2.1 >"$work/build/version"
"$bin" run --consumers-dir "$src/tests/consumers" --scenario "$src/tests/data/run-small.yaml" --expect manifest \
    --timeout 8 --consumer "versioned-sim@file:$work/build" --report-dir "$work/r5" >"$work/t5.txt" 2>"$work/e5.txt"
grep -q "file:$work/build: $work/build or the adapter changed since it was installed" "$work/e5.txt" \
    || { cat "$work/e5.txt"; fail "a changed local build is installed again, and says so"; }
cells "$work/r5/report.json" >"$work/c5.txt"
want "$work/c5.txt" "versioned-sim@file:$work/build compressed pass pass predicted held none"
python3 - "$work/r5/report.json" "$work/build" "$fp1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
assert c["local"]["path"] == sys.argv[2] and c["local"]["version"] == "2.1", c["local"]
assert len(c["local"]["fingerprint"]) == 16 and c["local"]["fingerprint"] != sys.argv[3], c["local"]
PY

echo "== the user's configuration"
printf '{"behaviour": "skip-compressed", "host": "db1", "batch": 50}\n' >"$work/cfg.json"
set +e
run --consumer versioned-sim@1.0 --consumer-config "versioned-sim=$work/cfg.json" --report-dir "$work/r6" >"$work/t6.txt"
set -e
grep -q "versioned-sim@1.0 (config cfg.json)" "$work/t6.txt" || { cat "$work/t6.txt"; fail "the table names the config"; }
python3 - "$work/r6/report.json" "$work/cfg.json" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
c = [c for c in cells if c["mode"] == "compressed"][0]
assert c["config"] == sys.argv[2], c.get("config")
eff = c["config_effective"]
assert eff["effective"] == {"behaviour": "skip-compressed", "host": "harness", "batch": "50"}, eff
assert eff["kept"] == {"host": "the harness's fake primary"}, eff
assert c["verdict"] == "silent-skip", c["verdict"]  # the setting reached the consumer
PY
printf '{"unsupported": "zz"}\n' >"$work/cfg2.json"
set +e
run --consumer versioned-sim@1.0 --consumer-config "versioned-sim=$work/cfg2.json" --report-dir "$work/r7" >"$work/t7.txt"
set -e
grep -q "harness-error.*cannot honour the configuration $work/cfg2.json: unsupported=zz: no such setting" "$work/t7.txt" \
    || { cat "$work/t7.txt"; fail "a setting the adapter cannot honour is a harness-error naming it"; }
set +e
run --consumer versioned-sim@1.0 --consumer-config "other=$work/cfg.json" --report-dir "$work/r8" 2>"$work/e8.txt"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "no consumer of the run is 'other'" "$work/e8.txt" || { cat "$work/e8.txt"; fail "unused --consumer-config"; }

echo "== a matrix file: unpinned, local and configured consumers side by side"
cat >"$work/deploy.yaml" <<YAML
name: deploy
consumers_dirs: [$src/tests/consumers]
consumers:
  - versioned-sim@2.0.1
  - versioned-sim@file:build
  - {consumer: versioned-sim@1.0, config: cfg.json}
  - versioned-sim@1.0
scenarios: [$src/tests/data/run-small.yaml]
timeout: 8
YAML
set +e
"$bin" matrix "$work/deploy.yaml" --report-dir "$work/r9" --quiet >"$work/t9.txt" 2>&1
rc=$?
set -e
# 1: a cell not as expected (the configured 1.0 is silent-skip against its manifest's pass); more is a failure
[ $rc -le 1 ] || { cat "$work/t9.txt"; fail "the matrix exited with status $rc"; }
cells "$work/r9/report.json" >"$work/c9.txt"
want "$work/c9.txt" "versioned-sim@2.0.1 compressed silent-skip silent-skip predicted held planted-skip"
want "$work/c9.txt" "versioned-sim@file:$work/build compressed pass pass predicted held none"
want "$work/c9.txt" "versioned-sim@1.0 (config cfg.json) compressed silent-skip pass manifest - -"
want "$work/c9.txt" "versioned-sim@1.0 compressed pass pass manifest - -"
# the configured 1.0 and the plain 1.0 have a cell directory each: a cell writes its observed.jsonl there and
# reads its events back from it (sharing one, each cell truncated the other's file: an abort, or a cell judged
# on the other's events)
python3 - "$work/r9" <<'PY' || fail "one cell directory per consumer"
import json, os, sys
d = sys.argv[1]
cells = json.load(open(os.path.join(d, "report.json")))["cells"]
dirs = [c["cell_dir"] for c in cells]
assert len(set(dirs)) == len(dirs), sorted(dirs)
for c in cells:
    if c["version"] != "1.0":
        continue
    want = "versioned-sim@1.0,config=cfg.json" if c.get("config") else "versioned-sim@1.0"
    assert c["cell_dir"].split("/")[1] == want, (c["cell_dir"], want)
    with open(os.path.join(d, c["cell_dir"], "observed.jsonl")) as f:
        rows = sum(1 for line in f if '"kind"' not in line)
    assert rows == c["observed_rows"], (c["cell_dir"], rows, c["observed_rows"])
PY
echo "run_unpinned: all checks passed"
