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
# Then session mode for go-mysql (see "session mode" below): canon's loop under `go test`, and each
# variant's adapter serving five cells in one process (good, good, dies, hangs, good).
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
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/consumer_e2e.sh"
e2e_init consumers_go_c "${1:?$usage}" "${2:-$here/../scenarios/crud-basic.yaml}"
verdict_py=$here/consumer_verdict.py

# check LABEL FAMILY VERSION SOURCE MODE EXPECTED_VERDICT [MESSAGE_SUBSTRING] -- CMD...
check() {
    local label=$1 fam=$2 ver=$3 source=$4 mode=$5 expect=$6 msg=$7
    shift 8
    setup "$fam" "$ver" bash setup.sh || return
    local out="$tmp/out.$fam.$ver.$mode.jsonl"
    if ! run_adapter "$fam" "$ver" "$source" "$mode" "$(grep -c '"op"' "$gen/$mode/expected.jsonl")" "$out" "$@"; then
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
            "$([ "$source" = server ] && echo "server: $(tail -4 "$srv_LOG" | tr '\n' ' ' | cut -c1-400)")"
        return
    fi
    if [ -n "$msg" ] && ! grep '"kind":"error"' "$out" | grep -qF -- "$msg"; then
        bad "$label [$mode]: $first, but no error line containing: $msg" "$(grep '"kind":"error"' "$out" | head -2)"
        return
    fi
    local detail
    detail=$(grep '"kind":"error"' "$out" | head -1 | cut -c1-240)
    check_ok "$label [$mode]: ${first#verdict: }${detail:+ -- $detail}"
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

# ------------------------------------------------------------ session mode (go-mysql)
# consumers/README.md "Session mode", go-mysql (canon/session.go, one loop for the three
# variants). First the loop on its own: `go test` in canon (exact lines of a good cell, a cell
# that dies, one whose library prints after the stop, one stuck until its connections are
# closed, a stop without a cell; a hung cell and a cell that leaves goroutines behind end the
# process with the status a one-shot run has). Then each variant's adapter, ONE process
# (CDCH_SESSION=1) for five cells, driven by consumers_py_node_check.py session: uncompressed
# (pass), compressed (the one-shot prediction), a consumer that dies (nothing listens: "ended"
# with the one-shot status and error lines), one that hangs (a port that accepts and never
# answers: "stopped" within 10 s, no rows) and uncompressed again (nothing of the dead and hung
# cells carried over). The good cells' own lines must also get the one-shot verdict from
# consumer_verdict.py (checkpoints included).
if command -v go >/dev/null; then
    if [ -z "${HOME:-}" ] && [ -z "${GOCACHE:-}" ]; then export GOCACHE=$tmp/gocache; fi
    if v=$(cd "$consumers/go-common/canon" && GOFLAGS=-buildvcs=false go test -count=1 . 2>&1); then
        check_ok "go-mysql canon: session loop (go test)"
    else
        bad "go-mysql canon: session loop (go test)" "$(tail -15 <<<"$v")"
    fi
else
    bad "go-mysql canon: session loop (go test)" "the Go toolchain (go) is needed"
fi

# check_session LABEL VERSION COMPRESSED_VERDICT KNOWN
check_session() {
    local label="$1 [session]" ver=$2 cverdict=$3 known=$4
    [ "${setup_ok[$gm/$ver]:-1}" = 0 ] || return 0 # setup failed: reported by check
    local out="$tmp/session.$ver" m n=0 ports=() pids=()
    for m in uncompressed compressed uncompressed; do
        n=$((n + 1))
        SERVE_MODE=$m
        if ! serve_start "gs$n" --user cdch --password cdch --quiet 2>"$out.serve"; then
            bad "$label: cdcharness serve ($m) did not start" "$(tail -3 "$out.serve")"
            for m in "${pids[@]}"; do stop_pid "$m"; done
            return 0
        fi
        local pv=gs${n}_PORT iv=gs${n}_PID
        ports+=("${!pv}")
        pids+=("${!iv}")
    done
    local pred=pass
    [ "$cverdict" = pass ] || pred=$cverdict
    env CDCH_HOST=127.0.0.1 CDCH_USER=cdch CDCH_PASSWORD=cdch CDCH_START_FILE="$first_file" CDCH_START_POS=4 \
        CDCH_DATABASES="$databases" CDCH_STATE_DIR="$tmp" CDCH_CACHE="$cache/$gm/$ver" CDCH_VERSION="$ver" \
        timeout 240 python3 "$here/consumers_py_node_check.py" session --label "$label" --cwd "$consumers/$gm" \
        --log "$out.err" --known "$known" \
        --cell "good:${ports[0]}:$gen/uncompressed/expected.jsonl:pass" \
        --cell "good:${ports[1]}:$gen/compressed/expected.jsonl:$pred" \
        --cell dies --cell hangs \
        --cell "good:${ports[2]}:$gen/uncompressed/expected.jsonl:pass" \
        -- "$cache/$gm/$ver/adapter" >"$out" 2>&1
    local rc=$?
    count_client_lines "$out"
    local results
    results=$(grep -c -E '^(PASS|FAIL) ' "$out")
    [ "$results" -eq 6 ] || bad "$label: $results results from the session driver, 6 expected" "$(tail -5 "$out")"
    [ $rc -le 1 ] || bad "$label: the session driver failed (status $rc)" "$(tail -3 "$out")"
    [ $rc -eq 0 ] || echo "       adapter stderr: $(grep -v '^\[\|^time=' "$out.err" | tail -3 | cut -c1-300)"
    for m in "${pids[@]}"; do stop_pid "$m"; done
    # the good cells' lines, judged as the one-shot runs are
    local c f v want
    for c in 1:uncompressed:pass 2:compressed:$cverdict 5:uncompressed:pass; do
        IFS=: read -r n m want <<<"$c"
        f="$out.err.cell_${n}_good.jsonl"
        v=$(python3 "$verdict_py" "$gen/$m/expected.jsonl" "$f" --checkpoints --allow enum-index,set-bitmap 2>&1)
        if [ "${v%%$'\n'*}" = "verdict: $want" ] || [[ "${v%%$'\n'*}" == "verdict: $want "* ]]; then
            check_ok "$label cell $n [$m]: ${v%%$'\n'*}"
        else
            bad "$label cell $n [$m]: expected $want, ${v%%$'\n'*}" "${v#*$'\n'}"
        fi
    done
}

# raw loops print ENUM as its index (no labels in the TABLE_MAP of this scenario)
check_session "go-mysql v1.7.0 raw BinlogSyncer" v1.7.0+raw silent-skip "orders.status"
check_session "go-mysql v1.16.0 canal" v1.16.0+canal pass ""
check_session "go-mysql v1.16.0 raw BinlogSyncer + TransactionPayloadEvent" v1.16.0+raw-payload pass "orders.status"

summary
