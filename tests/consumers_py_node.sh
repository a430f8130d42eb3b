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
# the hung one stopped within 6 s (check_session below).
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
    local exp="$gen/$mode/expected.jsonl" out="$tmp/out.$fam.$ver.$mode.jsonl" want
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
# (a port that accepts and never answers: "stop" answered within 6 s, no rows) and uncompressed
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
    local dead
    dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    local cmd=() a
    for a in "$@"; do cmd+=("${a//\{cache\}/$dir}"); done
    env CDCH_HOST=127.0.0.1 CDCH_USER=cdch CDCH_PASSWORD=cdch CDCH_START_FILE="$first_file" CDCH_START_POS=4 \
        CDCH_DATABASES="$databases" CDCH_STATE_DIR="$state" CDCH_CACHE="$dir" CDCH_VERSION="$ver" \
        timeout 240 python3 "$check_py" session --label "$label" --cwd "$consumers/$fam" --log "$out.err" --known "$known" \
        --cell "good:${ports[0]}:$gen/uncompressed/expected.jsonl:pass" \
        --cell "good:${ports[1]}:$gen/compressed/expected.jsonl:$pred" \
        --cell "dies:$dead" --cell hangs \
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

# session mode, every version: one adapter process, five cells (check_session)
check_session "python-mysql-replication 0.45.1" $py 0.45.1 silent-skip "$KNOWN_PY0" \
    -- "{cache}/venv/bin/python" adapter.py
check_session "python-mysql-replication 1.0.17" $py 1.0.17 silent-skip "$KNOWN_PY1" \
    -- "{cache}/venv/bin/python" adapter.py
serve_auth=mysql_native_password
check_session "zongji 0.5.1" zongji 0.5.1 silent-skip "$KNOWN_ZJ_OLD" -- node ../zongji/adapter.js zongji "{cache}"
check_session "@rodrigogs/zongji 0.4.14" rodrigogs-zongji 0.4.14 silent-skip "$KNOWN_ZJ_OLD" \
    -- node ../zongji/adapter.js @rodrigogs/zongji "{cache}"
serve_auth=caching_sha2_password
for v in 0.1.0 0.6.2; do
    check_session "@powersync/mysql-zongji $v" powersync-mysql-zongji $v silent-skip "$KNOWN_ZJ_OLD" \
        -- node ../zongji/adapter.js @powersync/mysql-zongji "{cache}"
done
check_session "@vlasky/zongji 0.6.1" vlasky-zongji 0.6.1 silent-skip "$KNOWN_ZJ_OLD" \
    -- node ../zongji/adapter.js @vlasky/zongji "{cache}"
check_session "@vlasky/zongji 0.7.1" vlasky-zongji 0.7.1 error-skip "$KNOWN_VLASKY7" \
    -- node ../zongji/adapter.js @vlasky/zongji "{cache}"
check_session "@vlasky/zongji 0.9.0" vlasky-zongji 0.9.0 error-skip "$KNOWN_VLASKY9" \
    -- node ../zongji/adapter.js @vlasky/zongji "{cache}"

summary
