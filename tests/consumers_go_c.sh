#!/usr/bin/env bash
# End-to-end check of the Go and C/C++-program consumer adapters (registered in CTest as
# consumers_go_c):
#
#   tests/consumers_go_c.sh CDCHARNESS_BIN [SCENARIO]     (default: scenarios/crud-basic.yaml)
#
# For each adapter below and each mode (uncompressed, compressed) it generates the scenario
# (`cdcharness gen --mode both`), runs the adapter the way the harness does (consumers/README.md:
# setup once into a cache dir, then the manifest's run command with the CDCH_* environment)
# against `cdcharness serve SCENARIO --mode M --port 0` (source: server) or against the generated
# files (source: files), stops it once its output is complete or idle, and asserts the verdict
# tests/consumer_verdict.py gives (design.md section 6) against the reference's prediction
# (shared/reference/consumers.md; the `expect` in each manifest):
#
#   go-mysql v1.7.0+raw            uncompressed pass          compressed silent-skip
#   go-mysql v1.16.0+canal         uncompressed pass          compressed pass
#   go-mysql v1.16.0+raw-payload   uncompressed pass          compressed pass
#   mariadb-binlog +decode-rows    uncompressed pass          compressed parse-failure (type 40)
#   mariadb-binlog +force-read     uncompressed pass          compressed silent-skip
#   mariadb-binlog +remote         refuses the 8.0 server in both modes (parse-failure, message)
#   mariadb_rpl (Connector/C 3.3.20) uncompressed parse-failure (rows it cannot decode)
#                                  compressed parse-failure (5020 on type 40)
#     (uncompressed: mariadb_rpl_extract_rows mis-decodes MySQL 8 rows events, see
#      consumers/mariadb-rpl/manifest.yaml; consumers.md predicts only the type-40 failure)
#
# "pass" allows what the consumer cannot represent (documented in the adapters): ENUM as its
# index where the consumer has no labels (--allow enum-index,set-bitmap). Checkpoints (gtid,
# pos) are checked where the consumer reports them.
#
# Skips (exit 0, with a message) only when `cdcharness serve` does not exist yet. Needs go,
# python3, cc + libmariadb-dev, mariadb-client; a missing one fails its checks.
# Environment: CONSUMERS_CACHE = reuse this setup cache (default: a temporary one);
# CONSUMERS_KEEP=1 keeps the temporary directory. Prints "N passed, N failed".
set -u

usage="usage: consumers_go_c.sh CDCHARNESS_BIN [SCENARIO]"
bin=${1:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
scenario=${2:-$root/scenarios/crud-basic.yaml}
verdict_py=$here/consumer_verdict.py
consumers=$root/consumers

[ -x "$bin" ] || { echo "consumers_go_c: $bin is not executable" >&2; exit 2; }
[ -f "$scenario" ] || { echo "consumers_go_c: no scenario $scenario" >&2; exit 2; }
if ! "$bin" serve --help >/dev/null 2>&1; then
    echo "consumers_go_c: '$(basename "$bin") serve --help' failed: the fake primary is missing or broken" >&2
    exit 1
fi
command -v python3 >/dev/null || { echo "consumers_go_c: python3 is needed" >&2; exit 2; }

bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/consumers_go_c.XXXXXX")
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
    if [ -n "${CONSUMERS_KEEP:-}" ]; then echo "consumers_go_c: kept $tmp"; else rm -rf "$tmp"; fi
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
    for l in "$@"; do echo "      $l"; done
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
    echo "consumers_go_c: cdcharness gen failed"
    echo "0 passed, 1 failed"
    exit 1
fi
nrows() { grep -c '"op"' "$1"; }
databases=$(python3 -c '
import json, sys
seen = []
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "op" in r and r["db"] not in seen:
        seen.append(r["db"])
print(",".join(seen))' "$gen/uncompressed/expected.jsonl")
first_file=$(head -1 "$gen/uncompressed/"*.index | sed 's#^\./##')
files_of() { sed 's#^\./##' "$1"/*.index | tr '\n' ' '; }

# ------------------------------------------------------------ setup
cache=${CONSUMERS_CACHE:-$tmp/cache}
declare -A setup_ok
setup() { # family version -> 0 if installed
    local fam=$1 ver=$2 dir="$cache/$1/$2"
    local key="$fam/$ver"
    if [ -n "${setup_ok[$key]:-}" ]; then return "${setup_ok[$key]}"; fi
    mkdir -p "$dir"
    if [ -f "$dir/.ok" ] || (cd "$consumers/$fam" && bash setup.sh "$ver" "$dir") >"$tmp/setup.log" 2>&1; then
        touch "$dir/.ok"
        setup_ok[$key]=0
    else
        bad "$fam $ver: setup.sh failed" "$(tail -5 "$tmp/setup.log")"
        setup_ok[$key]=1
    fi
    return "${setup_ok[$key]}"
}

# ------------------------------------------------------------ one run
# run_adapter FAMILY VERSION SOURCE MODE OUT CMD... : runs the adapter, writes its stdout to OUT
serve_port=
start_server() { # mode -> sets serve_port, returns pid in server_pid
    local mode=$1 i
    setsid "$bin" serve "$scenario" --mode "$mode" --port 0 --user cdch --password cdch --quiet --log-queries \
        >"$tmp/serve.out" 2>"$tmp/serve.err" &
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

run_adapter() {
    local fam=$1 ver=$2 source=$3 mode=$4 out=$5
    shift 5
    local dir="$cache/$fam/$ver" state="$tmp/state.$fam.$ver.$mode"
    mkdir -p "$state"
    local want
    want=$(nrows "$gen/$mode/expected.jsonl")
    local envs=(CDCH_SERVER_ID=$((1000 + RANDOM % 9000)) CDCH_START_FILE="$first_file" CDCH_START_POS=4
                CDCH_DATABASES="$databases" CDCH_STATE_DIR="$state" CDCH_CACHE="$dir" CDCH_VERSION="$ver"
                CDCH_USER=cdch CDCH_PASSWORD=cdch)
    server_pid=
    if [ "$source" = server ]; then
        if ! start_server "$mode"; then
            echo "cdcharness serve did not report its port: $(tail -3 "$tmp/serve.err")" >"$out.err"
            : >"$out"
            [ -n "$server_pid" ] && stop "$server_pid"
            return 1
        fi
        envs+=(CDCH_HOST=127.0.0.1 CDCH_PORT="$serve_port")
    else
        envs+=(CDCH_BINLOG_DIR="$gen/$mode" CDCH_BINLOG_FILES="$(files_of "$gen/$mode")")
    fi
    local cmd=() a
    for a in "$@"; do cmd+=("${a//\{cache\}/$dir}"); done
    (cd "$consumers/$fam" && exec env "${envs[@]}" setsid "${cmd[@]}") >"$out" 2>"$out.err" &
    local apid=$!
    pids+=("$apid")
    # wait: all expected rows then 2 s idle, or an error line / exit (+1 s), or 5 s idle after
    # the last output, at most 60 s
    local t=0 last=-1 idle=0 n
    while [ $t -lt 600 ]; do
        sleep 0.1
        t=$((t + 1))
        n=$(wc -l <"$out")
        if [ "$n" != "$last" ]; then last=$n; idle=0; else idle=$((idle + 1)); fi
        kill -0 "$apid" 2>/dev/null || break
        if grep -q '"kind":"error"' "$out"; then [ $idle -ge 10 ] && break; fi
        if [ "$(grep -c '"op"' "$out")" -ge "$want" ] && [ $idle -ge 20 ]; then break; fi
        [ $idle -ge 50 ] && grep -q '"kind":"ready"' "$out" && break
    done
    stop "$apid"
    [ -n "$server_pid" ] && stop "$server_pid"
    return 0
}

# check LABEL FAMILY VERSION SOURCE MODE EXPECTED_VERDICT [MESSAGE_SUBSTRING] -- CMD...
check() {
    local label=$1 fam=$2 ver=$3 source=$4 mode=$5 expect=$6 msg=$7
    shift 8
    setup "$fam" "$ver" || return
    local out="$tmp/out.$fam.$ver.$mode.jsonl"
    if ! run_adapter "$fam" "$ver" "$source" "$mode" "$out" "$@"; then
        bad "$label [$mode]: $(cat "$out.err")"
        return
    fi
    local v
    v=$(python3 "$verdict_py" "$gen/$mode/expected.jsonl" "$out" --checkpoints --allow enum-index,set-bitmap 2>&1)
    local first=${v%%$'\n'*}
    local got=${first#verdict: }
    got=${got%% *}
    if [ "$got" != "$expect" ]; then
        bad "$label [$mode]: expected $expect, $first" "${v#*$'\n'}" "stderr: $(tail -3 "$out.err" | cut -c1-300)" \
            "$([ "$source" = server ] && echo "server: $(tail -4 "$tmp/serve.err" | tr '\n' ' ' | cut -c1-400)")"
        return
    fi
    if [ -n "$msg" ] && ! grep '"kind":"error"' "$out" | grep -qF -- "$msg"; then
        bad "$label [$mode]: $first, but no error line containing: $msg" "$(grep '"kind":"error"' "$out" | head -2)"
        return
    fi
    local detail
    detail=$(grep '"kind":"error"' "$out" | head -1 | cut -c1-240)
    ok "$label [$mode]: ${first#verdict: }${detail:+ -- $detail}"
}

# ------------------------------------------------------------ the adapters
# Expected verdicts: the reference's predictions (manifest `expect`).
EXPECT_RPL_UNCOMPRESSED=${EXPECT_RPL_UNCOMPRESSED:-parse-failure}
EXPECT_RPL_COMPRESSED=${EXPECT_RPL_COMPRESSED:-parse-failure}

gm=go-mysql
for mode in uncompressed compressed; do
    check "go-mysql v1.7.0 raw BinlogSyncer" $gm v1.7.0+raw server $mode \
        "$([ $mode = compressed ] && echo silent-skip || echo pass)" "" -- "{cache}/adapter"
    check "go-mysql v1.16.0 canal" $gm v1.16.0+canal server $mode pass "" -- "{cache}/adapter"
    check "go-mysql v1.16.0 raw BinlogSyncer + TransactionPayloadEvent" $gm v1.16.0+raw-payload server $mode \
        pass "" -- "{cache}/adapter"

    check "mariadb-binlog --base64-output=decode-rows -vv FILE" mariadb-binlog 10.11.19+decode-rows files $mode \
        "$([ $mode = compressed ] && echo parse-failure || echo pass)" \
        "$([ $mode = compressed ] && echo "Found incompatible MySQL 8.0 TRANSACTION_PAYLOAD_EVENT")" \
        -- python3 adapter.py
    check "mariadb-binlog --force-read FILE" mariadb-binlog 10.11.19+force-read files $mode \
        "$([ $mode = compressed ] && echo silent-skip || echo pass)" "" -- python3 adapter.py
    check "mariadb-binlog --read-from-remote-server" mariadb-binlog 10.11.19+remote server $mode \
        parse-failure "Master reported unrecognized MariaDB version" -- python3 adapter.py

    check "mariadb_rpl (Connector/C 3.3.20)" mariadb-rpl 3.3.20 server $mode \
        "$([ $mode = compressed ] && echo "$EXPECT_RPL_COMPRESSED" || echo "$EXPECT_RPL_UNCOMPRESSED")" \
        "$([ $mode = compressed ] && echo "Unknown event type (40)" || echo "Malformed row data packet stream")" \
        -- "{cache}/adapter"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
