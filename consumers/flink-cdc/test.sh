#!/usr/bin/env bash
# CTest consumers_flink_cdc: every pinned Flink CDC version must give the verdict its manifest
# records, in session mode (one JVM and one mini-cluster, a job per cell) and one-shot, over the
# scenarios given (default: crud-basic, start-by-gtid-set), both modes (tests/lib/family_test.sh):
# crud-basic pass uncompressed, silent-skip compressed (payload-no-handler). Then the cause itself:
# the compressed crud-basic cell run with Flink CDC's copy of MySqlStreamingChangeEventSource at
# TRACE (CDCH_FLINK_TRACE) must log "Ignoring event due to missing handler" for TRANSACTION_PAYLOAD
# events, from the class in flink-connector-mysql-cdc's own jar, and print no error line; its config
# line must show the 60 s checkpoint interval and minimum pause (Main.java CHECKPOINT_MS); what the
# session's JVM left in its temporary directory (the mini-cluster's, the extracted RPC jar) must be
# gone after the run, from /tmp and from the run's TMPDIR (consumers/README.md, TMPDIR).
# Prints "N passed, N failed" by cell and by check; exit 0 only when every cell met its
# expectation and every check held.
#
#   consumers/flink-cdc/test.sh CDCHARNESS_BIN [SCENARIO...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/family_test.sh"
default_scenarios=("$repo/scenarios/crud-basic.yaml" "$repo/scenarios/start-by-gtid-set.yaml")
flink_tmp() { ls -d /tmp/minicluster_* /tmp/flink-rpc-akka* /tmp/flink-web-* 2>/dev/null | sort; }
tmp_before=$(flink_tmp)
family_test "$here" "$@"
rc=$?

bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
echo "$tmp_before" >"$work/before.txt"
CDCH_FLINK_TRACE=io.debezium.connector.mysql.MySqlStreamingChangeEventSource TMPDIR="$work/tmp" \
    "$bin" run --consumer flink-cdc@2.4.2 --scenario "$repo/scenarios/crud-basic.yaml" --mode compressed \
    --expect manifest --report-dir "$work/rep" --quiet >"$work/table.txt" 2>&1
cat "$work/table.txt"
err=$(ls "$work"/rep/cells/*/crud-basic/compressed/stderr.log 2>/dev/null | head -1)
ok=0 bad=0
check() { # NAME CONDITION-EXIT-STATUS
    if [ "$2" = 0 ]; then ok=$((ok + 1)); echo "ok: $1"; else bad=$((bad + 1)); echo "FAILED: $1"; fi
}
grep -q "MySqlStreamingChangeEventSource from flink-connector-mysql-cdc-2.4.2.jar" "$err" 2>/dev/null
check "Flink CDC's own copy of the streaming source runs (not debezium-connector-mysql's)" $?
n=$(grep -c "Ignoring event due to missing handler: Event{header=EventHeaderV4{.*eventType=TRANSACTION_PAYLOAD" "$err" 2>/dev/null)
[ "${n:-0}" -ge 10 ]
check "TRACE 'Ignoring event due to missing handler' for each of crud-basic's 10 compressed transactions (seen: ${n:-0})" $?
python3 - "$work/rep/report.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
sys.exit(0 if c["verdict"] == "silent-skip" and c["meets"] else 1)
PY
check "the traced cell is still silent-skip, as recorded" $?
python3 - "$work/rep/report.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["cells"][0]["config_effective"]["effective"]
sys.exit(0 if e.get("execution.checkpointing.interval") == "60000" and e.get("execution.checkpointing.min-pause") == "60000" else 1)
PY
check "checkpoints every 60 s with a 60 s minimum pause: no job checkpoints within a cell (Flink puts the first at a random time between the two)" $?
grep -q '"kind":"error"' "$work"/rep/cells/*/crud-basic/compressed/observed.jsonl 2>/dev/null
[ $? -ne 0 ]
check "no error line: the loss is silent" $?
flink_tmp >"$work/after.txt"
left=$( (comm -13 "$work/before.txt" "$work/after.txt"; ls -A "$work/tmp") | head -3 | tr '\n' ' ')
[ -z "$left" ]
check "what the JVMs left in their temporary directory (mini-cluster directories, the extracted RPC jar; sessions and one-shot cells, stopped or not) went with them: nothing new in /tmp, the traced run's TMPDIR empty (left: ${left:-none})" $?
echo "checks: $ok passed, $bad failed"
[ $bad -eq 0 ] && exit $rc
exit 1
