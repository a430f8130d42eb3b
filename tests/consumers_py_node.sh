#!/usr/bin/env bash
# End-to-end check of the Python and Node consumer adapters (registered in CTest as
# consumers_py_node):
#
#   tests/consumers_py_node.sh CDCHARNESS_BIN [SCENARIO]
#                                   (default: scenarios/myisam-nontransactional.yaml)
#
# For each pinned version below and each mode (uncompressed, compressed) it generates the
# scenario (`cdcharness gen --mode both`), installs the version the way the harness does
# (consumers/README.md: the family's setup.sh into a cache dir), runs the adapter with the
# CDCH_* environment against `cdcharness serve SCENARIO --mode M --port 0`, stops it once its
# output is complete or idle, and asserts what shared/reference/consumers.md predicts (the
# `expect` in each manifest), with tests/consumers_py_node_check.py:
#
#   python-mysql-replication 0.45.1, 1.0.17      uncompressed: rows == expected
#                                                compressed:   silent skip
#   zongji 0.5.1, @rodrigogs/zongji 0.4.14,      uncompressed: rows == expected
#   @powersync/mysql-zongji 0.1.0, 0.6.2,        compressed:   silent skip
#   @vlasky/zongji 0.6.1
#   @vlasky/zongji 0.7.1, 0.9.0                  uncompressed: rows == expected
#                                                compressed:   an error line about
#                                                TRANSACTION_PAYLOAD, the consumer goes on
#
# Then session mode (consumers/README.md "Session mode"), every version: one adapter process
# serves five cells - uncompressed, compressed, a consumer that dies, one that hangs, and
# uncompressed again - with the same predictions, the dead cell ending as a one-shot run does and
# the hung one stopped within 10 s (check_session below).
#
# Then the user's consumers (issue 25; consumers/README.md, the families' setup.sh and adapters):
#   * a version the manifest does not pin (python-mysql-replication 1.0.9, @vlasky/zongji 0.5.9),
#     installed with CDCH_UNPINNED=1, as pinned ones are predicted; a version the registry does not
#     serve (9.9.9): setup exits 3 with "setup: not served: <the registry's answer>";
#   * a configuration (CDCH_CONFIG): python-mysql-replication with only_events naming the three
#     row classes and GtidEvent, freeze_schema, and harness-owned keys (server_id, a host in
#     connection_settings) that must be kept and said so in the {"kind":"config"} line; only_events
#     [WriteRowsEvent] (the consumer then emits the inserts alone: its behaviour under that
#     setting); @vlasky/zongji with includeEvents/excludeSchema and kept serverId/startAtEnd;
#     settings an adapter cannot honour -> {"kind":"config-error"} and exit 2;
#   * local builds (CDCH_LOCAL, VERSION file:/PATH): python-mysql-replication 1.0.17's sdist
#     unpacked as it is (compressed: silent skip, as from PyPI), taught to decode
#     TRANSACTION_PAYLOAD by tests/consumers_py_node_payload.py (compressed: every row), and the
#     same with a fault planted in that decoder (compressed: silent skip again); @vlasky/zongji
#     0.9.0 as the registry's tarball (its error about TRANSACTION_PAYLOAD) and as a package
#     directory whose warning is planted away (silent skip); local-version holds the build's
#     version and the user's tree is left as it was.
#
# "silent skip" = no error line and exactly the expected rows of the transactions that were not
# compressed. The default scenario interleaves never-compressed MyISAM/MEMORY transactions
# with compressed InnoDB ones, so a skip is told apart from a stall. Values a consumer cannot
# represent (documented in its adapter) are listed per adapter in KNOWN_* below: differences
# there are printed as "known" and do not fail; any other difference fails. With
# scenarios/all-types.yaml most versions show real decoding defects (see the manifests).
#
# The checks run as independent jobs (a version's install, runs and session; a local build; ...),
# CONSUMERS_JOBS (default 4) at a time; each job's output is printed whole, in a fixed order.
#
# Skips (exit 0, with a message) only when `cdcharness serve` does not exist. Needs python3
# (venv, PyPI) and node/npm (the npm registry). Environment: CONSUMERS_CACHE = reuse this setup
# cache (default: a temporary one); CONSUMERS_KEEP=1 keeps the temporary directory;
# CONSUMERS_JOBS = jobs at once (1: one after the other).
# Prints "N passed, N failed".
set -u

usage="usage: consumers_py_node.sh CDCHARNESS_BIN [SCENARIO]"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/consumer_e2e.sh"
e2e_init consumers_py_node "${1:?$usage}" "${2:-$here/../scenarios/myisam-nontransactional.yaml}"
check_py=$here/consumers_py_node_check.py
# an error line ends a run only once the wanted rows are in (error-skip predictions)
E2E_ERROR_WAITS_FOR_ROWS=1
# rows a run must show before it may stop early: all of them (pass), or those outside
# compressed transactions (skip predictions)
rows_all() { grep -c '"op"' "$1"; }
rows_plain() { grep '"op"' "$1" | grep -c '"compressed":false'; }

# check LABEL FAMILY VERSION MODE PREDICTION KNOWN -- SETUP... -- RUN...
check() {
    local label=$1 fam=$2 ver=$3 mode=$4 pred=$5 known=$6
    shift 7
    local setup_cmd=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do setup_cmd+=("$1"); shift; done
    shift
    setup "$fam" "$ver" "${setup_cmd[@]}" || return
    local exp="$gen/$mode/expected.jsonl" out="$tmp/out.$fam.$ver.$mode${OUT_TAG:+.$OUT_TAG}.jsonl" want
    if [ "$pred" = pass ]; then want=$(rows_all "$exp"); else want=$(rows_plain "$exp"); fi
    if ! run_adapter "$fam" "$ver" server "$mode" "$want" "$out" "$@"; then
        bad "$label [$mode]: $(cat "$out.err")"
        return
    fi
    if ! grep -q '"kind":"ready"' "$out"; then
        bad "$label [$mode]: the adapter never printed {\"kind\":\"ready\"}" \
            "stderr: $(grep -v -i deprecat "$out.err" | tail -3 | cut -c1-300)" \
            "server: $(tail -4 "$srv_LOG" | tr '\n' ' ' | cut -c1-400)"
        return
    fi
    local v rc
    v=$(python3 "$check_py" "$exp" "$out" "$pred" "$known" 2>&1)
    rc=$?
    local summary
    summary=$(grep -E '^(ok|FAIL):' <<<"$v" | head -1)
    if [ $rc -ne 0 ]; then
        bad "$label [$mode]: $summary" "$(grep -v -E '^(ok|FAIL):' <<<"$v")" \
            "stderr: $(grep -v -i deprecat "$out.err" | tail -3 | cut -c1-300)" \
            "server: $(tail -4 "$srv_LOG" | tr '\n' ' ' | cut -c1-400)"
        return
    fi
    check_ok "$label [$mode]: ${summary#ok: }"
    grep -E '^  known:' <<<"$v" | cut -c1-240
}

# check_session LABEL FAMILY VERSION PREDICTION KNOWN -- RUN...
# Session mode (consumers/README.md "Session mode"): ONE adapter process (CDCH_SESSION=1) serves
# five cells one after the other, driven by consumers_py_node_check.py session: uncompressed
# (every row), compressed (PREDICTION), a consumer that dies (nothing listens on its port: it
# must end by itself with the status and error lines of a one-shot run), a consumer that hangs
# (a port that accepts and never answers: "stop" answered within 10 s, no rows) and uncompressed
# again (every row: nothing of the dead and the hung cell carried over). Each cell has its own
# fake primary; the adapter's own environment has none of the cells' settings.
check_session() {
    local label="$1 [session]" fam=$2 ver=$3 pred=$4 known=$5
    shift 6
    [ "${setup_ok[$fam/$ver]:-1}" = 0 ] || return 0 # setup failed: reported by check
    local dir="$cache/$fam/$ver" state="$tmp/state.session.$fam.$ver" out="$tmp/session.$fam.$ver"
    local m n=0 name ports=() pids=()
    mkdir -p "$state"
    for m in uncompressed compressed uncompressed; do
        n=$((n + 1))
        name=sess$n
        SERVE_MODE=$m
        if ! serve_start "$name" --user cdch --password cdch --quiet --auth "$serve_auth" 2>"$out.serve"; then
            bad "$label: cdcharness serve ($m) did not start" "$(tail -3 "$out.serve")"
            for m in "${pids[@]}"; do stop_pid "$m"; done
            return 0
        fi
        local pv=${name}_PORT iv=${name}_PID
        ports+=("${!pv}")
        pids+=("${!iv}")
    done
    local cmd=() a
    for a in "$@"; do cmd+=("${a//\{cache\}/$dir}"); done
    env CDCH_HOST=127.0.0.1 CDCH_USER=cdch CDCH_PASSWORD=cdch CDCH_START_FILE="$first_file" CDCH_START_POS=4 \
        CDCH_DATABASES="$databases" CDCH_STATE_DIR="$state" CDCH_CACHE="$dir" CDCH_VERSION="$ver" \
        timeout 240 python3 "$check_py" session --label "$label" --cwd "$consumers/$fam" --log "$out.err" --known "$known" \
        --cell "good:${ports[0]}:$gen/uncompressed/expected.jsonl:pass" \
        --cell "good:${ports[1]}:$gen/compressed/expected.jsonl:$pred" \
        --cell dies --cell hangs \
        --cell "good:${ports[2]}:$gen/uncompressed/expected.jsonl:pass" \
        -- "${cmd[@]}" >"$out" 2>&1
    local rc=$?
    count_client_lines "$out"
    # one result per cell and one for the session's end; fewer: the driver stopped early
    local results
    results=$(grep -c -E '^(PASS|FAIL) ' "$out")
    [ "$results" -eq 6 ] || bad "$label: $results results from the session driver, 6 expected"
    if [ $rc -ne 0 ]; then
        [ $rc -eq 1 ] || bad "$label: the session driver failed (status $rc)"
        echo "       adapter stderr: $(grep -v -i deprecat "$out.err" | tail -3 | cut -c1-300)"
    fi
    for m in "${pids[@]}"; do stop_pid "$m"; done
}

# ------------------------------------------------------------ the adapters
# KNOWN_*: table.column values the consumer itself cannot represent (documented in the adapters
# and manifests); they matter only for scenarios that have such columns (crud-basic, all-types).
#   python-mysql-replication: zero DATE/DATETIME -> None, zero TIMESTAMP -> 1970-01-01, YEAR 0
#   -> 1900, negative TIME with fraction off by the fraction (-838:59:58.9 -> -838:59:58.1),
#   empty SET -> None; BINARY(n) padded to n bytes (0.x; MySQL pads, expected.jsonl holds the
#   binlog's unpadded bytes); 1.x without binlog_row_metadata=FULL: no ENUM labels (None).
KNOWN_PY0="temporal.*,enums.s,enums.s64,binaries.bn,binaries.bn255"
KNOWN_PY1="temporal.*,enums.s,enums.s64,orders.status"
#   zongji family: YEAR 0 -> 1900, GEOMETRY parsed to {x,y} without SRID, BINARY(n) padded;
#   before @vlasky 0.7: DECIMAL via float, JSON via JSON.stringify (integers beyond 2^53 lossy);
#   before @vlasky 0.8: latin1 CHAR/VARCHAR decoded as UTF-8; zongji 0.5.1/@rodrigogs: FLOAT and
#   DOUBLE zero/subnormals mis-decoded, BIGINT beyond 2^53 lossy.
KNOWN_ZJ_OLD="temporal.y,geo.*,binaries.bn,binaries.bn255,nums.d65,nums.d30,docs.doc,strings.cl,strings.vcl,strings.txl,nums.f,nums.fu,nums.dbl,ints.bi,ints.biu"
KNOWN_VLASKY7="temporal.y,geo.*,binaries.bn,binaries.bn255,strings.cl,strings.vcl,strings.txl"
KNOWN_VLASKY9="temporal.y,geo.*,binaries.bn,binaries.bn255"

py=python-mysql-replication
skip_for() { [ "$1" = compressed ] && echo "$2" || echo pass; } # MODE PREDICTION-WHEN-COMPRESSED

# version_checks LABEL FAMILY VERSION AUTH COMPRESSED KNOWN -- SETUP... -- RUN...
# One pinned version: its install, a one-shot run per mode (uncompressed: pass; compressed: the
# prediction COMPRESSED), then session mode with the same predictions (check_session). AUTH is
# the account's plugin: mysqljs `mysql` (zongji, @rodrigogs) speaks only mysql_native_password,
# its users create the replication account with that plugin (manifest: server_auth).
version_checks() {
    local label=$1 fam=$2 ver=$3 comp=$5 known=$6 setup_cmd=() mode
    serve_auth=$4
    shift 7
    while [ $# -gt 0 ] && [ "$1" != -- ]; do setup_cmd+=("$1"); shift; done
    shift
    for mode in uncompressed compressed; do
        check "$label" "$fam" "$ver" $mode "$(skip_for $mode "$comp")" "$known" -- "${setup_cmd[@]}" -- "$@"
    done
    check_session "$label" "$fam" "$ver" "$comp" "$known" -- "$@"
}
# ------------------------------------------------------------ the user's consumers (issue 25)
# setup_status LABEL FAMILY WANT_STATUS WANT_LINE -- SETUP...: runs a setup into a scratch dir
# and checks its exit status and that stderr holds WANT_LINE
setup_status() {
    local label=$1 fam=$2 want=$3 line=$4
    shift 5
    local dir="$WORK/setup-status.$RANDOM" rc=0
    (cd "$consumers/$fam" && env CDCH_UNPINNED=1 "$@" "$dir") >"$dir.log" 2>&1 || rc=$?
    if [ $rc -eq "$want" ] && grep -qxF -- "$line" "$dir.log"; then
        check_ok "$label: setup exits $want with '$line'"
    else
        bad "$label: setup exited $rc, stderr: $(tail -2 "$dir.log" | tr '\n' ' ' | cut -c1-300)" \
            "wanted status $want and the line $line"
    fi
}
# config_has LABEL OUT PYTHON-EXPR: the {"kind":"config"} line of OUT (c: the object) makes the
# expression true, and there is exactly one, before ready
config_has() {
    local label=$1 out=$2 expr=$3
    if python3 - "$out" "$expr" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
kinds = [o.get("kind") for o in lines if "kind" in o]
cfg = [o for o in lines if o.get("kind") == "config"]
ok = len(cfg) == 1 and "ready" in kinds and kinds.index("config") < kinds.index("ready")
c = cfg[0] if cfg else {}
sys.exit(0 if ok and eval(sys.argv[2], {"json": json, "c": c, "e": c.get("effective", {}), "k": c.get("kept", {})}) else 1)
PY
    then check_ok "$label: the config line holds the merged settings and the kept keys"
    else bad "$label: config line not as wanted: $expr" "$(grep -m1 '"kind":"config"' "$out" | cut -c1-400)"
    fi
}
# config_refused LABEL FAMILY CONFIG MESSAGE_PART -- RUN...: a one-shot run with CONFIG exits 2
# after one config-error line naming MESSAGE_PART (no server needed: refused before connecting)
config_refused() {
    local label=$1 fam=$2 conf=$3 part=$4 ver=$5
    shift 6
    local dir="$cache/$fam/$ver" out="$WORK/refused.$RANDOM" cmd=() a rc=0
    for a in "$@"; do cmd+=("${a//\{cache\}/$dir}"); done
    (cd "$consumers/$fam" && env CDCH_CONFIG="$conf" CDCH_HOST=127.0.0.1 CDCH_PORT=9 CDCH_START_FILE=binlog.000001 \
        CDCH_START_POS=4 timeout 30 "${cmd[@]}") >"$out" 2>"$out.err" || rc=$?
    if [ $rc -eq 2 ] && [ "$(grep -c . "$out")" -eq 1 ] && grep -q '^{"kind":"config-error","message":".*'"$part" "$out"; then
        check_ok "$label: refused (exit 2): $(cut -c1-160 "$out")"
    else
        bad "$label: wanted exit 2 and one config-error line naming $part" "status $rc: $(head -c 300 "$out") $(tail -2 "$out.err")"
    fi
}
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha1sum | sha1sum); }

# ------------------------------------------------------------ the jobs
# Each job below is independent of the others (its own fake primaries, output files and
# installs; an install shared by two jobs is made once, under the cache's lock), so they run
# E2E_JOBS at a time (most of a job's time is waiting on an adapter); their output is printed
# in this order. The longest (the local builds' installs) start first.

# -- local builds (VERSION file:/PATH, CDCH_LOCAL): the adapter runs the user's build
local=$tmp/local
mkdir -p "$local"
# local_py_prepare / local_vl_prepare: once, whichever job comes first (the others wait on the
# lock); 0 when the downloaded build is there (its failure is reported by the job that tried)
local_py_prepare() {
    {
        flock 9
        if [ ! -f "$local/py.status" ]; then
            if python3 -m pip download --disable-pip-version-check --no-deps --no-binary :all: -d "$local" \
                    "mysql-replication==1.0.17" >"$local/pip.log" 2>&1 &&
                    tar -xzf "$local/mysql_replication-1.0.17.tar.gz" -C "$local"; then
                src=$local/mysql_replication-1.0.17
                cp -a "$src" "$local/decoder" && cp -a "$src" "$local/fault" &&
                    python3 "$here/consumers_py_node_payload.py" "$local/decoder" >/dev/null &&
                    python3 "$here/consumers_py_node_payload.py" "$local/fault" --fault >/dev/null ||
                    bad "tests/consumers_py_node_payload.py could not patch mysql-replication 1.0.17"
                echo ok >"$local/py.status"
            else
                bad "pip download mysql-replication==1.0.17 (sdist) failed" "$(tail -2 "$local/pip.log")"
                echo failed >"$local/py.status"
            fi
        fi
    } 9>"$local/py.lock"
    [ "$(cat "$local/py.status")" = ok ]
}
local_vl_prepare() {
    {
        flock 9
        if [ ! -f "$local/vl.status" ]; then
            if (cd "$local" && npm pack --silent @vlasky/zongji@0.9.0 >npm-pack.log 2>&1) &&
                    mkdir -p "$local/vl" && tar -xzf "$local/vlasky-zongji-0.9.0.tgz" -C "$local/vl"; then
                sed -i 's|^  _warnUnsupportedEvent(EventClass) {$|&\n    return; // planted fault: the warning about undecodable events is never emitted|' \
                    "$local/vl/package/index.js"
                grep -q 'planted fault' "$local/vl/package/index.js" ||
                    bad "@vlasky/zongji 0.9.0: the fault could not be planted (_warnUnsupportedEvent)"
                echo ok >"$local/vl.status"
            else
                bad "npm pack @vlasky/zongji@0.9.0 failed" "$(tail -2 "$local/npm-pack.log")"
                echo failed >"$local/vl.status"
            fi
        fi
    } 9>"$local/vl.lock"
    [ "$(cat "$local/vl.status")" = ok ]
}
# one install per build (the key names the patch, so a changed patch re-installs)
key=$(sha1sum "$here/consumers_py_node_payload.py" | cut -c1-8)
# local_py NAME TREE COMPRESSED: python-mysql-replication 1.0.17's sdist unpacked as it is
# (untouched), taught to decode TRANSACTION_PAYLOAD (decoder), with a fault planted in that
# decoder (fault)
local_py() {
    local name=$1 tree=$2 pred=$3 before mode lv
    local_py_prepare || return 0
    before=$(tree_sum "$tree")
    for mode in uncompressed compressed; do
        check "python-mysql-replication file: 1.0.17 sdist, $name" $py "local-$name-$key" $mode \
            "$(skip_for $mode "$pred")" "$KNOWN_PY1" \
            -- bash -c 'CDCH_UNPINNED=1 CDCH_LOCAL=$0 exec bash setup.sh "file:$0" "$2"' "$tree" \
            -- "{cache}/venv/bin/python" adapter.py
    done
    lv=$(cat "$cache/$py/local-$name-$key/local-version" 2>/dev/null)
    [ "$lv" = 1.0.17 ] && [ "$(tree_sum "$tree")" = "$before" ] &&
        check_ok "python-mysql-replication file: $name: local-version $lv, the tree left as it was" ||
        bad "python-mysql-replication file: $name: local-version '$lv', tree unchanged: $([ "$(tree_sum "$tree")" = "$before" ] && echo yes || echo no)"
}
# local_vl NAME TREE COMPRESSED: @vlasky/zongji 0.9.0 as the registry's tarball and as a package
# directory whose warning is planted away
local_vl() {
    local name=$1 tree=$2 pred=$3 before after mode lv
    local_vl_prepare || return 0
    before=$(if [ -d "$tree" ]; then tree_sum "$tree"; else sha1sum <"$tree"; fi)
    for mode in uncompressed compressed; do
        check "@vlasky/zongji file: 0.9.0 $name" vlasky-zongji "local-$name" $mode \
            "$(skip_for $mode "$pred")" "$KNOWN_VLASKY9" \
            -- bash -c 'CDCH_UNPINNED=1 CDCH_LOCAL=$0 exec bash ../zongji/setup.sh @vlasky/zongji "file:$0" "$2"' "$tree" \
            -- node ../zongji/adapter.js @vlasky/zongji "{cache}"
    done
    lv=$(cat "$cache/vlasky-zongji/local-$name/local-version" 2>/dev/null)
    after=$(if [ -d "$tree" ]; then tree_sum "$tree"; else sha1sum <"$tree"; fi)
    [ "$lv" = 0.9.0 ] && [ "$after" = "$before" ] &&
        check_ok "@vlasky/zongji file: $name: local-version $lv, the build left as it was" ||
        bad "@vlasky/zongji file: $name: local-version '$lv', build unchanged: $([ "$after" = "$before" ] && echo yes || echo no)"
}
e2e_job "local python-mysql-replication untouched" local_py untouched "$local/mysql_replication-1.0.17" silent-skip
e2e_job "local python-mysql-replication decoder" local_py decoder "$local/decoder" pass
e2e_job "local python-mysql-replication fault" local_py fault "$local/fault" silent-skip
e2e_job "local @vlasky/zongji tarball" local_vl tarball "$local/vlasky-zongji-0.9.0.tgz" error-skip
e2e_job "local @vlasky/zongji dir-fault" local_vl dir-fault "$local/vl/package" silent-skip

# -- the pinned versions: both modes and session mode; the settings each refuses (CDCH_CONFIG)
conf=$tmp/conf
mkdir -p "$conf"
printf '%s\n' '{"only_events": ["WriteRowsEvent", "UpdateRowsEvent", "DeleteRowsEvent", "GtidEvent"],' \
    ' "freeze_schema": true, "server_id": 7, "connection_settings": {"host": "192.0.2.1", "connect_timeout": 20}}' \
    >"$conf/py-rows.json"
echo '{"only_events": ["WriteRowsEvent", "GtidEvent"]}' >"$conf/py-inserts.json"
echo '{"only_events": ["NoSuchEvent"]}' >"$conf/py-bad-class.json"
echo '{"pymysql_wrapper": "x"}' >"$conf/py-wrapper.json"
echo '{"includeEvents": ["tablemap", "writerows", "updaterows", "deleterows", "rotate"], "excludeSchema": {"nosuch": true}, "serverId": 5, "startAtEnd": true}' \
    >"$conf/zj.json"
echo '{"bogusOption": 1}' >"$conf/zj-bad.json"

job_py0() {
    version_checks "python-mysql-replication 0.45.1" $py 0.45.1 caching_sha2_password silent-skip "$KNOWN_PY0" \
        -- bash setup.sh -- "{cache}/venv/bin/python" adapter.py
    config_refused "python-mysql-replication 0.45.1 + pymysql_wrapper" $py "$conf/py-wrapper.json" "pymysql_wrapper=x: " 0.45.1 \
        -- "{cache}/venv/bin/python" adapter.py
}
job_py1() {
    version_checks "python-mysql-replication 1.0.17" $py 1.0.17 caching_sha2_password silent-skip "$KNOWN_PY1" \
        -- bash setup.sh -- "{cache}/venv/bin/python" adapter.py
    config_refused "python-mysql-replication 1.0.17 + only_events [NoSuchEvent]" $py "$conf/py-bad-class.json" \
        "only_events=NoSuchEvent: mysql-replication 1.0.17 has no event class NoSuchEvent" 1.0.17 -- "{cache}/venv/bin/python" adapter.py
}
job_zongji() {
    version_checks "zongji 0.5.1" zongji 0.5.1 mysql_native_password silent-skip "$KNOWN_ZJ_OLD" \
        -- bash ../zongji/setup.sh zongji -- node ../zongji/adapter.js zongji "{cache}"
    config_refused "zongji 0.5.1 + bogusOption" zongji "$conf/zj-bad.json" "bogusOption=1: not a start() option of zongji@0.5.1" 0.5.1 \
        -- node ../zongji/adapter.js zongji "{cache}"
}
e2e_job "python-mysql-replication 1.0.17" job_py1
e2e_job "python-mysql-replication 0.45.1" job_py0
e2e_job "zongji 0.5.1" job_zongji
e2e_job "@rodrigogs/zongji 0.4.14" version_checks "@rodrigogs/zongji 0.4.14" rodrigogs-zongji 0.4.14 mysql_native_password \
    silent-skip "$KNOWN_ZJ_OLD" \
    -- bash ../zongji/setup.sh @rodrigogs/zongji -- node ../zongji/adapter.js @rodrigogs/zongji "{cache}"
for v in 0.1.0 0.6.2; do
    e2e_job "@powersync/mysql-zongji $v" version_checks "@powersync/mysql-zongji $v" powersync-mysql-zongji $v \
        caching_sha2_password silent-skip "$KNOWN_ZJ_OLD" \
        -- bash ../zongji/setup.sh @powersync/mysql-zongji -- node ../zongji/adapter.js @powersync/mysql-zongji "{cache}"
done
e2e_job "@vlasky/zongji 0.6.1" version_checks "@vlasky/zongji 0.6.1" vlasky-zongji 0.6.1 caching_sha2_password \
    silent-skip "$KNOWN_ZJ_OLD" \
    -- bash ../zongji/setup.sh @vlasky/zongji -- node ../zongji/adapter.js @vlasky/zongji "{cache}"
e2e_job "@vlasky/zongji 0.7.1" version_checks "@vlasky/zongji 0.7.1" vlasky-zongji 0.7.1 caching_sha2_password \
    error-skip "$KNOWN_VLASKY7" \
    -- bash ../zongji/setup.sh @vlasky/zongji -- node ../zongji/adapter.js @vlasky/zongji "{cache}"
e2e_job "@vlasky/zongji 0.9.0" version_checks "@vlasky/zongji 0.9.0" vlasky-zongji 0.9.0 caching_sha2_password \
    error-skip "$KNOWN_VLASKY9" \
    -- bash ../zongji/setup.sh @vlasky/zongji -- node ../zongji/adapter.js @vlasky/zongji "{cache}"

# -- versions the manifests do not pin, and one no registry serves
# (python-mysql-replication and @vlasky/zongji speak caching_sha2_password, the default)
job_unpinned_py() {
    local mode
    for mode in uncompressed compressed; do
        check "python-mysql-replication 1.0.9 (unpinned)" $py 1.0.9 $mode "$(skip_for $mode silent-skip)" "$KNOWN_PY1" \
            -- env CDCH_UNPINNED=1 bash setup.sh -- "{cache}/venv/bin/python" adapter.py
    done
}
job_unpinned_vl() {
    local mode
    for mode in uncompressed compressed; do
        check "@vlasky/zongji 0.5.9 (unpinned)" vlasky-zongji 0.5.9 $mode "$(skip_for $mode silent-skip)" "$KNOWN_ZJ_OLD" \
            -- env CDCH_UNPINNED=1 bash ../zongji/setup.sh @vlasky/zongji -- node ../zongji/adapter.js @vlasky/zongji "{cache}"
    done
}
job_not_served() {
    setup_status "python-mysql-replication 9.9.9" $py 3 \
        'setup: not served: "ERROR: No matching distribution found for mysql-replication==9.9.9"' -- bash setup.sh 9.9.9
    setup_status "@vlasky/zongji 9.9.9" vlasky-zongji 3 \
        'setup: not served: "No matching version found for @vlasky/zongji@9.9.9."' -- bash ../zongji/setup.sh @vlasky/zongji 9.9.9
}
e2e_job "python-mysql-replication 1.0.9 (unpinned)" job_unpinned_py
e2e_job "@vlasky/zongji 0.5.9 (unpinned)" job_unpinned_vl
e2e_job "9.9.9 (not served)" job_not_served

# -- configurations (CDCH_CONFIG), on the pinned installs above (made once: the cache's lock)
job_config_py() {
    local mode
    for mode in uncompressed compressed; do
        OUT_TAG=rows check "python-mysql-replication 1.0.17 + config only_events (rows, GTID)" $py 1.0.17 $mode \
            "$(skip_for $mode silent-skip)" "$KNOWN_PY1" \
            -- bash setup.sh -- env CDCH_CONFIG="$conf/py-rows.json" "{cache}/venv/bin/python" adapter.py
        config_has "python-mysql-replication 1.0.17 + config [$mode]" "$tmp/out.$py.1.0.17.$mode.rows.jsonl" \
            'e["only_events"] == json.dumps(["WriteRowsEvent","UpdateRowsEvent","DeleteRowsEvent","GtidEvent"], separators=(",",":")) and e["freeze_schema"] == "true" and e["connection_settings.connect_timeout"] == "20" and e["connection_settings.host"] == "127.0.0.1" and e["server_id"] != "7" and e["connection_settings.passwd"] == "***" and set(k) == {"server_id", "connection_settings.host"}'
    done
    # only_events without the update/delete classes: the consumer delivers the inserts alone
    [ "${setup_ok[$py/1.0.17]:-1}" = 0 ] || return 0 # setup failed: reported by check
    OUT_TAG=inserts run_adapter $py 1.0.17 server uncompressed 1000 "$tmp/inserts.jsonl" \
        env CDCH_CONFIG="$conf/py-inserts.json" "{cache}/venv/bin/python" adapter.py
    if python3 - "$gen/uncompressed/expected.jsonl" "$tmp/inserts.jsonl" <<'PY'
import json, sys
want = [json.loads(l) for l in open(sys.argv[1]) if '"op":"insert"' in l]
got = [json.loads(l) for l in open(sys.argv[2]) if '"op"' in l]
sys.exit(0 if got and len(got) == len(want) and all(o["op"] == "insert" for o in got) else 1)
PY
    then check_ok "python-mysql-replication 1.0.17 + config only_events [WriteRowsEvent]: the inserts alone ($(grep -c '"op"' "$tmp/inserts.jsonl") rows)"
    else bad "python-mysql-replication 1.0.17 + config only_events [WriteRowsEvent]: not the inserts alone" "$(grep -c '"op"' "$tmp/inserts.jsonl") rows; $(tail -2 "$tmp/inserts.jsonl.err")"
    fi
}
job_config_vl() {
    local mode
    for mode in uncompressed compressed; do
        OUT_TAG=rows check "@vlasky/zongji 0.9.0 + config includeEvents, excludeSchema" vlasky-zongji 0.9.0 $mode \
            "$(skip_for $mode error-skip)" "$KNOWN_VLASKY9" \
            -- bash ../zongji/setup.sh @vlasky/zongji -- env CDCH_CONFIG="$conf/zj.json" node ../zongji/adapter.js @vlasky/zongji "{cache}"
        config_has "@vlasky/zongji 0.9.0 + config [$mode]" "$tmp/out.vlasky-zongji.0.9.0.$mode.rows.jsonl" \
            'e["excludeSchema"] == "{\"nosuch\":true}" and e["startAtEnd"] == "false" and e["serverId"] != "5" and e["connection.password"] == "***" and set(k) == {"serverId", "startAtEnd"}'
    done
}
e2e_job "python-mysql-replication 1.0.17 + config" job_config_py
e2e_job "@vlasky/zongji 0.9.0 + config" job_config_vl

e2e_wait
summary
