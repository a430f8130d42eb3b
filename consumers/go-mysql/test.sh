#!/usr/bin/env bash
# CTest consumers_go_mysql.
#
# 1. Every pinned go-mysql version/variant must give the verdict its manifest records over the
#    scenarios given (default: crud-basic; all-types, where v1.15.0+parsetime shows #1147
#    compressed; start-by-gtid-set, where v1.15.0+canal's GTID set does not advance inside
#    payloads, #1153), both modes (tests/lib/family_test.sh). The manifest runs the adapters in
#    session mode, so family_test's two passes are a session run and a one-shot run of every
#    cell: a verdict that changed between them fails.
# 2. What a user brings (issue 25), on crud-basic and all-types, both modes, one run:
#    - an unpinned tag, built by setup from the Go module proxy: v1.12.0+canal and
#      v1.12.0+raw-payload (uncompressed pass; compressed bad-checkpoint, payload-pos-zero);
#    - a configuration file: v1.16.0+raw-payload with BinlogSyncerConfig JSON (ParseTime,
#      UseDecimal, TIMESTAMP strings in Asia/Kolkata, a ServerID the harness keeps) and
#      v1.16.0+canal with a canal TOML file (parse_time, use_decimal, harness-owned keys, a key
#      canal ignores): both pass, their config lines say what was kept; v1.15.0+raw-payload with
#      a field BinlogSyncerConfig lacks: harness-error naming it (config-error);
#    - a local checkout: two copies of go-mysql v1.16.0 from Go's module cache, one with a fault
#      planted in the payload decoder (TransactionPayloadEvent.decodePayload drops the inner
#      events): +canal of the untouched copy passes, of the faulty one gives silent-skip on
#      compressed streams (proof that the local build is what runs);
#    and setup's own answers: v1.99.0 not served (exit 3), v1.12.0+raw unsupported (exit 4),
#    an unknown variant (exit 2).
# Prints "N passed, N failed" by cell/check; exit 0 only when every one met its expectation.
#
#   consumers/go-mysql/test.sh CDCHARNESS_BIN [SCENARIO...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/family_test.sh"
default_scenarios=("$repo/scenarios/crud-basic.yaml" "$repo/scenarios/all-types.yaml"
                   "$repo/scenarios/start-by-gtid-set.yaml")
bin=${1:?usage: test.sh CDCHARNESS_BIN [SCENARIO...]}

# ---- 1. the pinned versions
tmp=$(mktemp -d)
family_test "$here" "$@" >"$tmp/family.txt"
rc=$?
grep -Ev '^[0-9]+ passed, [0-9]+ failed$' "$tmp/family.txt"
read -r ok fail < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$tmp/family.txt" | tail -1)
ok=${ok:-0} fail=${fail:-1}

check() { # check LABEL CONDITION-STATUS [DETAIL]
    if [ "$2" = 0 ]; then ok=$((ok + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1${3:+: $3}"; fi
}

# ---- 2a. setup's answers (no harness)
echo "== setup.sh answers"
setup_rc() { # setup_rc VERSION -> exit status; stderr in $tmp/setup.err
    CDCH_UNPINNED=1 CDCH_VERSION=$1 bash "$here/setup.sh" "$1" "$tmp/setup-cache" 2>"$tmp/setup.err" >/dev/null
}
setup_rc v1.99.0+canal; r=$?
[ $r = 3 ] && grep -q '^setup: not served: ".*v1\.99\.0' "$tmp/setup.err"
check "v1.99.0+canal: exit 3, setup: not served (got $r)" $? "$(tail -2 "$tmp/setup.err")"
setup_rc v1.12.0+raw; r=$?
[ $r = 4 ] && grep -q '^setup: unsupported: go-mysql v1.12.0+raw: ' "$tmp/setup.err"
check "v1.12.0+raw: exit 4, setup: unsupported (got $r)" $? "$(tail -2 "$tmp/setup.err")"
setup_rc v1.12.0+nosuch; r=$?
[ $r = 2 ] && grep -q 'unknown variant' "$tmp/setup.err"
check "v1.12.0+nosuch: exit 2, unknown variant (got $r)" $? "$(tail -2 "$tmp/setup.err")"

# ---- 2b. unpinned tag, configuration files, local checkout: one harness run
echo "== unpinned, configured, local"
cat >"$tmp/raw.json" <<'EOF'
{"ParseTime": true, "UseDecimal": true, "TimestampStringLocation": "Asia/Kolkata", "ServerID": 7}
EOF
cat >"$tmp/bad.json" <<'EOF'
{"Bogus": 1}
EOF
cat >"$tmp/canal.toml" <<'EOF'
server_id = 7
flavor = "mariadb"
parse_time = true
use_decimal = true
heartbeat_period = "30s"
not_a_canal_key = 1

[dump]
mysqldump = "mysqldump"
EOF
mkdir -p "$tmp/dl" && printf 'module dl\n\ngo 1.21\n' >"$tmp/dl/go.mod"
gmdir=$(cd "$tmp/dl" && go mod download -json github.com/go-mysql-org/go-mysql@v1.16.0 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin).get("Dir",""))' 2>/dev/null)
local_ok=1
if [ -n "$gmdir" ] && [ -d "$gmdir" ]; then
    cp -r "$gmdir" "$tmp/good" && cp -r "$gmdir" "$tmp/faulty" && chmod -R u+w "$tmp/good" "$tmp/faulty" &&
    python3 - "$tmp/faulty/replication/transaction_payload_event.go" <<'EOF' || local_ok=0
import sys
p = sys.argv[1]
s = open(p).read()
old = "\t\te.Events = append(e.Events, pe)\n"
assert s.count(old) == 1, "decodePayload's append not found"
open(p, "w").write(s.replace(old, "\t\t_ = pe // planted fault: the payload's inner events are dropped\n"))
EOF
else
    local_ok=0
fi
check "local copies of go-mysql v1.16.0 (module cache: ${gmdir:-none}), fault planted" $((1 - local_ok))
args=(--consumer go-mysql@v1.12.0+canal --consumer go-mysql@v1.12.0+raw-payload
      --consumer go-mysql@v1.16.0+raw-payload --consumer-config "go-mysql@v1.16.0+raw-payload=$tmp/raw.json"
      --consumer go-mysql@v1.16.0+canal --consumer-config "go-mysql@v1.16.0+canal=$tmp/canal.toml"
      --consumer go-mysql@v1.15.0+raw-payload --consumer-config "go-mysql@v1.15.0+raw-payload=$tmp/bad.json")
[ $local_ok = 1 ] && args+=(--consumer "go-mysql@file:$tmp/good+canal" --consumer "go-mysql@file:$tmp/faulty+canal")
"$bin" run "${args[@]}" --scenario "$repo/scenarios/crud-basic.yaml" --scenario "$repo/scenarios/all-types.yaml" \
       --mode both --expect pass -j 2 --report-dir "$tmp/rep" --quiet >"$tmp/table.txt" 2>"$tmp/run.err"
cat "$tmp/table.txt"
[ -s "$tmp/run.err" ] && tail -n 20 "$tmp/run.err"
read -r xok xfail < <(python3 - "$tmp/rep/report.json" "$tmp" <<'PY'
import json, sys
tmp = sys.argv[2]
try:
    cells = json.load(open(sys.argv[1]))["cells"]
except Exception as e:
    print("no report:", e, file=sys.stderr); print(0, 1); sys.exit(0)
def want(c):
    v, s, m = c["version"], c["scenario"], c["mode"]
    if v in ("v1.12.0+canal", "v1.12.0+raw-payload"):
        return "pass" if m == "uncompressed" else "bad-checkpoint"
    if v == "file:%s/faulty+canal" % tmp:
        return "pass" if m == "uncompressed" else "silent-skip"
    if v == "v1.15.0+raw-payload":
        return "harness-error"
    return "pass"
ok = bad = 0
for c in cells:
    why = []
    if c["verdict"] != want(c):
        why.append("verdict %s, expected %s" % (c["verdict"], want(c)))
    eff = c.get("config_effective") or {}
    e, k = eff.get("effective", {}), eff.get("kept", {})
    v = c["version"]
    if v == "v1.16.0+raw-payload" and not (e.get("TimestampStringLocation") == "Asia/Kolkata"
                                          and e.get("ParseTime") == "true" and "ServerID" in k):
        why.append("config line: %s" % json.dumps(eff))
    if v == "v1.16.0+canal" and not (e.get("parse_time") == "true" and e.get("flavor") == "mysql"
                                    and {"server_id", "flavor", "dump.mysqldump", "not_a_canal_key"} <= set(k)):
        why.append("config line: %s" % json.dumps(eff))
    if v == "v1.15.0+raw-payload" and "Bogus=1" not in (c.get("summary") or ""):
        why.append("summary does not name Bogus=1: %s" % c.get("summary"))
    label = "%s %s %s: %s" % (c["consumer"], c["scenario"], c["mode"], c["verdict"])
    if why:
        bad += 1
        print("FAIL " + label + ": " + "; ".join(why), file=sys.stderr)
    else:
        ok += 1
        print("ok   " + label, file=sys.stderr)
print(ok, bad)
PY
)
ok=$((ok + ${xok:-0})) fail=$((fail + ${xfail:-1}))
expect_cells=$(( 2 * 2 * (local_ok == 1 ? 7 : 5) ))
[ $((${xok:-0} + ${xfail:-0})) = "$expect_cells" ]
check "the run has its $expect_cells cells" $?

rm -rf "$tmp"
echo "$ok passed, $fail failed"
[ "$fail" = 0 ] && [ "$rc" = 0 ]
