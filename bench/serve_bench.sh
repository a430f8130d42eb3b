#!/usr/bin/env bash
# Serving benchmark (not part of the test suite):
#
#   bench/serve_bench.sh [BUILD_DIR] [DIVISOR]     (default: build-lib, 10)
#
# Generates bench/bulk-1g.yaml with every target_bytes divided by DIVISOR
# (10: ~100 MB uncompressed / ~43 MB compressed), in --mode uncompressed and
# --mode compressed, serves each with `cdcharness serve --stream-dir`
# (mysql_native_password) and runs BUILD_DIR/dump_bench dump three times: connect, register, non-blocking
# COM_BINLOG_DUMP from the first file, read and discard to the EOF, over
# loopback. Then the ceiling: dump_bench rawcopy sends the same files through
# a loopback socket to a reader that discards them. Prints the best of three
# per row: MB/s (10^6 bytes of binlog per second) and events/s. Files are in
# the page cache (generated just before). Output goes to a temporary
# directory under ${BENCH_TMP:-${TMPDIR:-/tmp}}, removed at the end.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build-lib}
div=${2:-10}
for b in cdcharness dump_bench; do
    [ -x "$build/$b" ] || { echo "serve_bench: $build/$b is not built" >&2; exit 2; }
done

tmp=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/serve_bench.XXXXXX")
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT

. "$here/bench_lib.sh"
bench_scale_bulk "$div" "$tmp/bulk.yaml"

printf '%-13s %-24s %14s %10s %9s %12s\n' mode what bytes events "MB/s" "events/s"
for mode in uncompressed compressed; do
    out=$tmp/$mode
    "$build/cdcharness" gen "$tmp/bulk.yaml" --mode "$mode" --quiet --out "$out"
    bench_serve "$tmp/bulk.yaml" "$out" "$tmp" || exit 1
    srv=$BENCH_SRV
    port=$BENCH_PORT
    best=""
    for _ in 1 2 3; do
        r=$("$build/dump_bench" dump 127.0.0.1 "$port")
        mbs=$(echo "$r" | awk '{print $8}')
        if [ -z "$best" ] || awk -v a="$mbs" -v b="$(echo "$best" | awk '{print $8}')" 'BEGIN{exit !(a>b)}'; then
            best=$r
        fi
    done
    kill $srv
    wait $srv 2>/dev/null || true
    srv=""
    echo "$best" | awk -v m="$mode" '{printf "%-13s %-24s %14s %10s %9s %12s\n", m, "fake primary dump", $4, $2, $8, $10}'
    files=$(python3 -c "import json,sys;print(' '.join(sys.argv[1]+'/'+f['name'] for f in json.load(open(sys.argv[1]+'/stream.json'))['files']))" "$out")
    best=""
    for _ in 1 2 3; do
        # shellcheck disable=SC2086
        r=$("$build/dump_bench" rawcopy $files)
        mbs=$(echo "$r" | awk '{print $6}')
        if [ -z "$best" ] || awk -v a="$mbs" -v b="$(echo "$best" | awk '{print $6}')" 'BEGIN{exit !(a>b)}'; then
            best=$r
        fi
    done
    echo "$best" | awk -v m="$mode" '{printf "%-13s %-24s %14s %10s %9s %12s\n", m, "raw socket copy (ceiling)", $2, "-", $6, "-"}'
    rm -rf "$out"
done
