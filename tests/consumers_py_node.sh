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
# "silent skip" = no error line and exactly the expected rows of the transactions that were not
# compressed. The default scenario interleaves never-compressed MyISAM/MEMORY transactions
# with compressed InnoDB ones, so a skip is told apart from a stall. Values a consumer cannot
# represent (documented in its adapter) are listed per adapter in KNOWN_* below: differences
# there are printed as "known" and do not fail; any other difference fails. With
# scenarios/all-types.yaml most versions show real decoding defects (see the manifests).
#
# Skips (exit 0, with a message) only when `cdcharness serve` does not exist. Needs python3
# (venv, PyPI) and node/npm (the npm registry). Environment: CONSUMERS_CACHE = reuse this setup
# cache (default: a temporary one); CONSUMERS_KEEP=1 keeps the temporary directory.
# Prints "N passed, N failed".
set -u

usage="usage: consumers_py_node.sh CDCHARNESS_BIN [SCENARIO]"
bin=${1:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
scenario=${2:-$root/scenarios/myisam-nontransactional.yaml}
check_py=$here/consumers_py_node_check.py
consumers=$root/consumers

[ -x "$bin" ] || { echo "consumers_py_node: $bin is not executable" >&2; exit 2; }
[ -f "$scenario" ] || { echo "consumers_py_node: no scenario $scenario" >&2; exit 2; }
if ! "$bin" serve --help >/dev/null 2>&1; then
    echo "consumers_py_node: '$(basename "$bin") serve --help' failed: the fake primary is missing or broken" >&2
    exit 1
fi
command -v python3 >/dev/null || { echo "consumers_py_node: python3 is needed" >&2; exit 2; }

bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
scenario=$(cd "$(dirname "$scenario")" && pwd)/$(basename "$scenario")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/consumers_py_node.XXXXXX")
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
    done
    sleep 0.2
    for p in "${pids[@]}"; do
        kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
    done
    if [ -n "${CONSUMERS_KEEP:-}" ]; then echo "consumers_py_node: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok:   $1"; }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $1"
    shift
    local l
    for l in "$@"; do [ -n "$l" ] && echo "      $l"; done
}

# stop PID (its process group): SIGTERM, then SIGKILL after 5 s
stop() {
    local p=$1 i
    kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
    for i in $(seq 50); do
        kill -0 "$p" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
    local q keep=()
    for q in "${pids[@]}"; do [ "$q" = "$p" ] || keep+=("$q"); done
    pids=("${keep[@]}")
}

# ------------------------------------------------------------ scenario
gen=$tmp/gen
if ! "$bin" gen "$scenario" --mode both --quiet --out "$gen" >"$tmp/gen.log" 2>&1; then
    cat "$tmp/gen.log"
    echo "consumers_py_node: cdcharness gen failed"
    echo "0 passed, 1 failed"
    exit 1
fi
databases=$(python3 -c '
import json, sys
seen = []
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "op" in r and r["db"] not in seen:
        seen.append(r["db"])
print(",".join(seen))' "$gen/uncompressed/expected.jsonl")
first_file=$(head -1 "$gen/uncompressed/"*.index | sed 's#^\./##')
# rows a run must show before it may stop early: all of them (pass), or those outside
# compressed transactions (skip predictions)
rows_all() { grep -c '"op"' "$1"; }
rows_plain() { grep '"op"' "$1" | grep -c '"compressed":false'; }

# ------------------------------------------------------------ setup
cache=${CONSUMERS_CACHE:-$tmp/cache}
declare -A setup_ok
setup() { # family version setup-command... -> 0 if installed
    local fam=$1 ver=$2 dir="$cache/$1/$2"
    shift 2
    local key="$fam/$ver"
    if [ -n "${setup_ok[$key]:-}" ]; then return "${setup_ok[$key]}"; fi
    mkdir -p "$dir"
    if [ -f "$dir/.ok" ] || (cd "$consumers/$fam" && "$@" "$ver" "$dir") >"$tmp/setup.log" 2>&1; then
        touch "$dir/.ok"
        setup_ok[$key]=0
    else
        bad "$fam $ver: setup failed" "$(tail -5 "$tmp/setup.log")"
        setup_ok[$key]=1
    fi
    return "${setup_ok[$key]}"
}

# ------------------------------------------------------------ one run
serve_port=
serve_auth=caching_sha2_password   # the account's plugin (MySQL 8's default)
start_server() { # mode -> sets serve_port and server_pid
    local mode=$1 i
    setsid "$bin" serve "$scenario" --mode "$mode" --port 0 --user cdch --password cdch --quiet --log-queries \
        --auth "$serve_auth" >"$tmp/serve.out" 2>"$tmp/serve.err" &
    server_pid=$!
    pids+=("$server_pid")
    serve_port=
    for i in $(seq 100); do
        serve_port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$tmp/serve.out" "$tmp/serve.err" | head -1)
        [ -n "$serve_port" ] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    return 1
}

# run_adapter FAMILY VERSION MODE WANT_ROWS OUT CMD... : the adapter's stdout goes to OUT
run_adapter() {
    local fam=$1 ver=$2 mode=$3 want=$4 out=$5
    shift 5
    local dir="$cache/$fam/$ver" state="$tmp/state.$fam.$ver.$mode"
    mkdir -p "$state"
    server_pid=
    if ! start_server "$mode"; then
        echo "cdcharness serve did not report its port: $(tail -3 "$tmp/serve.err")" >"$out.err"
        : >"$out"
        [ -n "$server_pid" ] && stop "$server_pid"
        return 1
    fi
    local envs=(CDCH_HOST=127.0.0.1 CDCH_PORT="$serve_port" CDCH_USER=cdch CDCH_PASSWORD=cdch
                CDCH_SERVER_ID=$((1000 + RANDOM % 9000)) CDCH_START_FILE="$first_file" CDCH_START_POS=4
                CDCH_DATABASES="$databases" CDCH_STATE_DIR="$state" CDCH_CACHE="$dir" CDCH_VERSION="$ver")
    local cmd=() a
    for a in "$@"; do cmd+=("${a//\{cache\}/$dir}"); done
    (cd "$consumers/$fam" && exec env "${envs[@]}" setsid "${cmd[@]}") >"$out" 2>"$out.err" &
    local apid=$!
    pids+=("$apid")
    # wait: the wanted rows then 2 s idle, or an error line (+1 s idle), or an exit, or 5 s idle
    # after "ready"; at most 60 s
    local t=0 last=-1 idle=0 n
    while [ $t -lt 600 ]; do
        sleep 0.1
        t=$((t + 1))
        n=$(wc -l <"$out")
        if [ "$n" != "$last" ]; then last=$n; idle=0; else idle=$((idle + 1)); fi
        kill -0 "$apid" 2>/dev/null || break
        if grep -q '"kind":"error"' "$out"; then [ $idle -ge 10 ] && [ "$(grep -c '"op"' "$out")" -ge "$want" ] && break; fi
        if [ "$(grep -c '"op"' "$out")" -ge "$want" ] && [ $idle -ge 20 ]; then break; fi
        [ $idle -ge 50 ] && grep -q '"kind":"ready"' "$out" && break
    done
    stop "$apid"
    [ -n "$server_pid" ] && stop "$server_pid"
    return 0
}

# check LABEL FAMILY VERSION MODE PREDICTION KNOWN -- SETUP... -- RUN...
check() {
    local label=$1 fam=$2 ver=$3 mode=$4 pred=$5 known=$6
    shift 7
    local setup_cmd=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do setup_cmd+=("$1"); shift; done
    shift
    setup "$fam" "$ver" "${setup_cmd[@]}" || return
    local exp="$gen/$mode/expected.jsonl" out="$tmp/out.$fam.$ver.$mode.jsonl" want
    if [ "$pred" = pass ]; then want=$(rows_all "$exp"); else want=$(rows_plain "$exp"); fi
    if ! run_adapter "$fam" "$ver" "$mode" "$want" "$out" "$@"; then
        bad "$label [$mode]: $(cat "$out.err")"
        return
    fi
    if ! grep -q '"kind":"ready"' "$out"; then
        bad "$label [$mode]: the adapter never printed {\"kind\":\"ready\"}" \
            "stderr: $(grep -v -i deprecat "$out.err" | tail -3 | cut -c1-300)" \
            "server: $(tail -4 "$tmp/serve.err" | tr '\n' ' ' | cut -c1-400)"
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
            "server: $(tail -4 "$tmp/serve.err" | tr '\n' ' ' | cut -c1-400)"
        return
    fi
    ok "$label [$mode]: ${summary#ok: }"
    grep -E '^  known:' <<<"$v" | cut -c1-240
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
for mode in uncompressed compressed; do
    skip=$([ $mode = compressed ] && echo silent-skip || echo pass)
    err=$([ $mode = compressed ] && echo error-skip || echo pass)

    check "python-mysql-replication 0.45.1" $py 0.45.1 $mode "$skip" "$KNOWN_PY0" \
        -- bash setup.sh -- "{cache}/venv/bin/python" adapter.py
    check "python-mysql-replication 1.0.17" $py 1.0.17 $mode "$skip" "$KNOWN_PY1" \
        -- bash setup.sh -- "{cache}/venv/bin/python" adapter.py

    # mysqljs `mysql` (zongji, @rodrigogs) speaks only mysql_native_password: its users create
    # the replication account with that plugin (manifest: server_auth)
    serve_auth=mysql_native_password
    check "zongji 0.5.1" zongji 0.5.1 $mode "$skip" "$KNOWN_ZJ_OLD" \
        -- bash ../zongji/setup.sh zongji -- node ../zongji/adapter.js zongji "{cache}"
    check "@rodrigogs/zongji 0.4.14" rodrigogs-zongji 0.4.14 $mode "$skip" "$KNOWN_ZJ_OLD" \
        -- bash ../zongji/setup.sh @rodrigogs/zongji -- node ../zongji/adapter.js @rodrigogs/zongji "{cache}"
    serve_auth=caching_sha2_password
    for v in 0.1.0 0.6.2; do
        check "@powersync/mysql-zongji $v" powersync-mysql-zongji $v $mode "$skip" "$KNOWN_ZJ_OLD" \
            -- bash ../zongji/setup.sh @powersync/mysql-zongji \
            -- node ../zongji/adapter.js @powersync/mysql-zongji "{cache}"
    done
    check "@vlasky/zongji 0.6.1" vlasky-zongji 0.6.1 $mode "$skip" "$KNOWN_ZJ_OLD" \
        -- bash ../zongji/setup.sh @vlasky/zongji -- node ../zongji/adapter.js @vlasky/zongji "{cache}"
    check "@vlasky/zongji 0.7.1" vlasky-zongji 0.7.1 $mode "$err" "$KNOWN_VLASKY7" \
        -- bash ../zongji/setup.sh @vlasky/zongji -- node ../zongji/adapter.js @vlasky/zongji "{cache}"
    check "@vlasky/zongji 0.9.0" vlasky-zongji 0.9.0 $mode "$err" "$KNOWN_VLASKY9" \
        -- bash ../zongji/setup.sh @vlasky/zongji -- node ../zongji/adapter.js @vlasky/zongji "{cache}"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
