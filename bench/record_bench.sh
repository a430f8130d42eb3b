#!/usr/bin/env bash
# `cdcharness record` throughput against the serve rate (not part of the test suite):
#
#   bench/record_bench.sh [BUILD_DIR] [DIVISOR]     (default: build, 3)
#
# Generates bench/bulk-1g.yaml with every target_bytes divided by DIVISOR (3: ~336 MB
# uncompressed / ~144 MB compressed; 10: ~100 MB / ~43 MB, where a record run's fixed cost —
# process start, login, the schema queries, the rename, ~20 ms — is a fifth of the run), in --mode uncompressed and --mode compressed, serves each
# with `cdcharness serve --stream-dir` (mysql_native_password, as bench/serve_bench.sh), and runs,
# three times each, alternating:
#   serve   BUILD_DIR/dump_bench dump: connect, register, non-blocking COM_BINLOG_DUMP from the
#           first file, read and discard to the EOF (the serve rate, as serve_bench.sh measures it)
#   record  cdcharness record --start FIRST:4 --until-end --ssl-mode DISABLED --out DIR: the same
#           dump through MariaDB Connector/C, every event's CRC32 checked, the files written,
#           schema.sql (every table: the default --tables all), capture.json, the rename
#   touched the same with --tables touched: every payload decompressed to find the tables it maps
#           (the cost of listing the touched tables; for information, no target)
# and checks that the capture is byte-identical to the served files (the last file's FDE differs
# only in LOG_EVENT_BINLOG_IN_USE_F, which the dump clears). Prints the best of three per row
# (MB = 10^6 bytes of binlog per second of wall-clock time, the record process's whole run) and
# the ratio record / serve (target >= 0.8 for record). Output in a temporary directory under
# ${BENCH_TMP:-${TMPDIR:-/tmp}}, removed at the end.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
div=${2:-3}
for b in cdcharness dump_bench; do
    [ -x "$build/$b" ] || { echo "record_bench: $build/$b is not built" >&2; exit 2; }
done

tmp=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/record_bench.XXXXXX")
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT

# shellcheck source=bench/bench_lib.sh
. "$here/bench_lib.sh"
bench_scale_bulk "$div" "$tmp/bulk.yaml"

now() { date +%s.%N; }
better() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(b == "" || a > b)}'; }

printf '%-13s %-8s %14s %10s %9s %7s\n' mode what bytes events "MB/s" ratio
for mode in uncompressed compressed; do
    out=$tmp/$mode
    "$build/cdcharness" gen "$tmp/bulk.yaml" --mode "$mode" --quiet --out "$out"
    bench_serve "$tmp/bulk.yaml" "$out" "$tmp" || exit 1
    srv=$BENCH_SRV port=$BENCH_PORT
    first=$(head -1 "$out"/*.index | sed 's|^\./||')
    serve_best="" serve_line="" rec_best="" rec_bytes="" rec_events="" touch_best=""
    order="all touched"
    for _ in 1 2 3; do
        r=$("$build/dump_bench" dump 127.0.0.1 "$port")
        mbs=$(echo "$r" | awk '{print $8}')
        if better "$mbs" "$serve_best"; then serve_best=$mbs serve_line=$r; fi
        # alternate which goes first: a run's files are removed before the next, whose writes then
        # reuse those page-cache pages (the VM's first touch of fresh pages is slower)
        order=$(echo $order | awk '{print $2, $1}')
        for tables in $order; do
            rm -rf "$tmp/cap"
            t0=$(now)
            "$build/cdcharness" record --user cdch --password cdch --port "$port" --ssl-mode DISABLED \
                --start "$first:4" --until-end --tables "$tables" --quiet --out "$tmp/cap"
            t1=$(now)
            read -r bytes events < <(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["bytes"], c["events"])' "$tmp/cap/capture.json")
            mbs=$(awk -v b="$bytes" -v a="$t0" -v z="$t1" 'BEGIN{printf "%.1f", b / 1e6 / (z - a)}')
            if [ "$tables" = touched ]; then
                if better "$mbs" "$touch_best"; then touch_best=$mbs; fi
            elif better "$mbs" "$rec_best"; then
                rec_best=$mbs rec_bytes=$bytes rec_events=$events
            fi
        done
    done
    kill $srv
    wait $srv 2>/dev/null || true
    srv=""
    # the capture is the served stream (last file: the in-use flag of its FDE aside)
    python3 - "$out" "$tmp/cap" <<'PY'
import json, os, sys
src, cap = sys.argv[1], sys.argv[2]
files = [f["name"] for f in json.load(open(os.path.join(src, "stream.json")))["files"]]
for i, name in enumerate(files):
    a = bytearray(open(os.path.join(src, name), "rb").read())
    b = bytearray(open(os.path.join(cap, name), "rb").read())
    if i == len(files) - 1:
        a[4 + 17] &= 0xFE
    if a != b:
        sys.exit(f"record_bench: {name} differs from the served file")
PY
    echo "$serve_line" | awk -v m="$mode" '{printf "%-13s %-8s %14s %10s %9s %7s\n", m, "serve", $4, $2, $8, "-"}'
    ratio=$(awk -v a="$rec_best" -v b="$serve_best" 'BEGIN{printf "%.2f", a / b}')
    printf '%-13s %-8s %14s %10s %9s %7s\n' "$mode" record "$rec_bytes" "$rec_events" "$rec_best" "${ratio}x"
    ratio=$(awk -v a="$touch_best" -v b="$serve_best" 'BEGIN{printf "%.2f", a / b}')
    printf '%-13s %-8s %14s %10s %9s %7s\n' "$mode" touched "$rec_bytes" "$rec_events" "$touch_best" "${ratio}x"
    rm -rf "$out" "$tmp/cap"
done
