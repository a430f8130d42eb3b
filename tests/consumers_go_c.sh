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

summary
