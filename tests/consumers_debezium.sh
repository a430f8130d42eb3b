#!/usr/bin/env bash
# Every pinned Debezium version (consumers/debezium/manifest.yaml) against crud-basic and
# partial-json-full and restart-mid-payload, in both modes with `cdcharness run --expect manifest`
# (session mode: one JVM per version serves its cells). Passes when every cell gives the verdict
# its manifest records; prints "N passed, N failed" by cell.
# Then what a user runs (issue 25), on 3.6.1.Final:
#   * a configuration (tests/data/debezium-user.properties: decimal.handling.mode=double,
#     time.precision.mode=connect, binary.handling.mode=hex) on all-types, both modes: its config
#     line (effective settings, the harness-owned keys kept), the same verdict in both modes (no
#     compression regression), and every value equal to the default configuration's after
#     mapping but where the setting loses information: DECIMAL as a double (the nearest double),
#     DATETIME(4-6) in milliseconds (truncated), TIME outside 00:00:00..24:00:00 as null
#     (Kafka Connect's Time holds one day; Debezium warns and emits null). Each is listed;
#   * a Kafka Connect JSON configuration with an SMT the adapter cannot map
#     (tests/data/debezium-unwrap.json: ExtractNewRecordState): harness-error naming it;
#   * local builds (tests/lib/debezium_plugins.sh): a plugin folder of 3.6.1's jars passes
#     crud-basic in both modes; the same with the payload handler patched to drop the payload's
#     events passes uncompressed and is silent-skip compressed (the local build is what runs);
#   * an unpinned version (3.4.1.Final) passes crud-basic in both modes, and one Maven Central
#     does not serve (9.9.9.Final) is a harness-error quoting Maven ("not served").
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
[ $rc -eq 0 ] && [ $pyrc -eq 0 ] || exit 1

# ---- issue 25: configuration, local builds, unpinned versions (3.6.1.Final is installed above)
dbz=debezium@3.6.1.Final
"$bin" run --consumer "$dbz" --scenario "$src/scenarios/all-types.yaml" --mode both --expect manifest \
       --timeout 120 --report-dir "$rep/c0" --quiet >/dev/null 2>>"$rep/stderr.txt"
"$bin" run --consumer "$dbz" --consumer-config "debezium=$src/tests/data/debezium-user.properties" \
       --scenario "$src/scenarios/all-types.yaml" --mode both --expect mismatch \
       --timeout 120 --report-dir "$rep/c1" --quiet >/dev/null 2>>"$rep/stderr.txt"
"$bin" run --consumer "$dbz" --consumer-config "debezium=$src/tests/data/debezium-unwrap.json" \
       --scenario "$src/scenarios/crud-basic.yaml" --mode uncompressed --expect harness-error \
       --timeout 120 --report-dir "$rep/c2" --quiet >/dev/null 2>>"$rep/stderr.txt"
# shellcheck source=lib/debezium_plugins.sh
. "$src/tests/lib/debezium_plugins.sh"
cache=${CDCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdcharness}
debezium_plugins "$cache/debezium/3.6.1.Final/lib" "$rep/plug" >>"$rep/stderr.txt" 2>&1 ||
    { tail -n 5 "$rep/stderr.txt"; echo "0 passed, 1 failed"; exit 1; }
"$bin" run --consumer "debezium@file:$rep/plug/good/debezium-connector-mysql" \
       --consumer "debezium@file:$rep/plug/faulty/debezium-connector-mysql" \
       --consumer debezium@3.4.1.Final --consumer debezium@9.9.9.Final \
       --scenario "$src/scenarios/crud-basic.yaml" --mode both -j 2 --timeout 120 \
       --report-dir "$rep/d" --quiet >/dev/null 2>>"$rep/stderr.txt"
python3 - "$rep" <<'PY'
import json, os, re, sys
from decimal import Decimal
rep = sys.argv[1]
fails = []
def report(d):
    try:
        return json.load(open(os.path.join(rep, d, "report.json")))["cells"]
    except Exception as e:
        fails.append("cannot read %s/report.json: %s" % (d, e))
        return []
def observed(d, c):
    ev = []
    for l in open(os.path.join(rep, d, c["cell_dir"], "observed.jsonl")):
        o = json.loads(l)
        if "kind" not in o:
            ev.append(o)
    return ev
def effective(c):
    ce = c.get("config_effective") or {}
    return ce.get("effective", {}), ce.get("kept", {})
base = {c["mode"]: c for c in report("c0")}
conf = {c["mode"]: c for c in report("c1")}
# the configuration: config line, same verdict in both modes, values as the default's after mapping
for mode, c in conf.items():
    eff, kept = effective(c)
    for k, v in [("decimal.handling.mode", "double"), ("time.precision.mode", "connect"), ("binary.handling.mode", "hex")]:
        if eff.get(k) != v:
            fails.append("%s: config line: %s=%r, not %s" % (mode, k, eff.get(k), v))
    for k in ["name", "database.hostname", "database.port", "database.user", "database.password", "topic.prefix"]:
        if k not in kept:
            fails.append("%s: config line: the harness-owned %s is not reported as kept" % (mode, k))
    if eff.get("database.password") != "***" or eff.get("database.hostname") != "127.0.0.1":
        fails.append("%s: config line: the harness's server or a masked password is not in effect" % mode)
    if c.get("compression_regression"):
        fails.append("%s: compression regression under the configuration" % mode)
    if mode in base and effective(base[mode])[1]:
        fails.append("%s: the default run reports kept settings" % mode)
if len({c["verdict"] for c in conf.values()}) > 1:
    fails.append("the configuration's verdicts differ by mode: %s" % {m: c["verdict"] for m, c in conf.items()})
NUM = re.compile(r"^-?\d+(\.\d+)?$")
TEMPORAL = re.compile(r"^(-?[\d: -]+?)(?:\.(\d{1,6}))?$")
def micros(frac):
    return int((frac or "").ljust(6, "0"))
def lost(a, b):
    """why b (under the configuration) may differ from a (default), or None"""
    if isinstance(a, str) and NUM.match(a) and isinstance(b, (int, float)) and not isinstance(b, bool):
        if float(a) == b:
            return "DECIMAL as a double" if Decimal(a) != Decimal(repr(float(b))) else "same"
        return None
    if isinstance(a, str) and isinstance(b, str):
        ma, mb = TEMPORAL.match(a), TEMPORAL.match(b)
        if ma and mb and ma.group(1) == mb.group(1) and micros(mb.group(2)) == micros(ma.group(2)) // 1000 * 1000:
            return "milliseconds"
    if isinstance(a, str) and b is None and re.match(r"^-?\d+:\d\d:\d\d", a):
        h = int(a.split(":")[0])
        if a.startswith("-") or h >= 24:
            return "TIME out of a day: null"
    return None
cats = {}
for mode in sorted(conf):
    if mode not in base:
        fails.append("%s: no default-configuration cell" % mode)
        continue
    a_ev, b_ev = observed("c0", base[mode]), observed("c1", conf[mode])
    if len(a_ev) != len(b_ev):
        fails.append("%s: %d events by default, %d under the configuration" % (mode, len(a_ev), len(b_ev)))
    for x, y in zip(a_ev, b_ev):
        for img in ("before", "after"):
            X, Y = x.get(img) or {}, y.get(img) or {}
            for k in sorted(set(X) | set(Y)):
                if X.get(k) == Y.get(k):
                    continue
                why = lost(X.get(k), Y.get(k))
                col = "%s.%s" % (x.get("table"), k)
                if why is None:
                    fails.append("%s %s %s: %r by default, %r under the configuration" % (mode, img, col, X.get(k), Y.get(k)))
                elif why != "same":
                    cats.setdefault(why, {}).setdefault(col, 0)
                    cats[why][col] += 1
for why, cols in sorted(cats.items()):
    print("configuration loses: %s: %s" % (why, ", ".join("%s (%d)" % kv for kv in sorted(cols.items()))))
print("configuration verdicts: %s" % {m: c["verdict"] for m, c in sorted(conf.items())})
# the SMT the adapter cannot map
for c in report("c2"):
    if c["verdict"] != "harness-error" or "transforms.unwrap.type=io.debezium.transforms.ExtractNewRecordState" not in json.dumps(c):
        fails.append("unwrap SMT: %s, not a harness-error naming transforms.unwrap.type" % c["verdict"])
# local builds and unpinned versions
want = {("good", "uncompressed"): "pass", ("good", "compressed"): "pass",
        ("faulty", "uncompressed"): "pass", ("faulty", "compressed"): "silent-skip",
        ("3.4.1.Final", "uncompressed"): "pass", ("3.4.1.Final", "compressed"): "pass",
        ("9.9.9.Final", "uncompressed"): "harness-error", ("9.9.9.Final", "compressed"): "harness-error"}
got = {}
for c in report("d"):
    name = c["consumer"]
    key = "good" if "/plug/good/" in name else "faulty" if "/plug/faulty/" in name else c.get("version", name)
    got[(key, c["mode"])] = c["verdict"]
    if key == "9.9.9.Final" and "not served" not in json.dumps(c):
        fails.append("9.9.9.Final %s: the harness-error does not say 'not served'" % c["mode"])
for k, v in sorted(want.items()):
    print("%s %s: %s (want %s)" % (k[0], k[1], got.get(k), v))
    if got.get(k) != v:
        fails.append("%s %s: %s, want %s" % (k[0], k[1], got.get(k), v))
for f in fails:
    print("FAIL: " + f)
print("%d passed, %d failed" % (0 if fails else 1, len(fails)))
sys.exit(1 if fails else 0)
PY
