#!/usr/bin/env bash
# `cdcharness estimate` benchmark (not part of the test suite):
#
#   bench/estimate_bench.sh [BUILD_DIR] [DIVISOR] [LINK]    (default: build, 10, 256kbit/100ms)
#
# The two workloads of bench/bulk-1g.yaml, each on its own and scaled down by DIVISOR (10: the
# JSON staging rewrite ~54 MB, the random-key updates ~13.5 MB of uncompressed binlog):
#   1. `cdcharness estimate --levels 1-7` on each (`gen --mode uncompressed` output): the table
#      per level (bytes, ratio, row part vs scaffolding, CPU per GB of row data, peak memory),
#      the JSON kept as BENCH_OUT/<workload>.json when BENCH_OUT is set;
#   2. catch-up over LINK (the fake primary's link emulation, the harness's replica): the same
#      two workloads at ~1 MB (bulk-1g.yaml / 540; a 256 kbit/s link moves 32 KB/s), served by `cdcharness serve`,
#      recorded with `cdcharness record --until-end` (the capture with its schema.sql), then
#      `estimate --levels 1,3,7 --link LINK`.
# Also prints the wall time of each estimate run. Output under ${BENCH_TMP:-${TMPDIR:-/tmp}}
# (needs ~200 MB free at DIVISOR 10), removed at the end.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
div=${2:-10}
link=${3:-256kbit/100ms}
bin=$build/cdcharness
[ -x "$bin" ] || { echo "estimate_bench: $bin is not executable (build it first)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "estimate_bench: python3 is needed" >&2; exit 2; }
[ -f "$here/bench_lib.sh" ] || { echo "estimate_bench: $here/bench_lib.sh is missing" >&2; exit 2; }
# shellcheck source=bench_lib.sh
. "$here/bench_lib.sh"

tmp=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/estimate_bench.XXXXXX")
BENCH_SRV=""
trap '[ -n "$BENCH_SRV" ] && kill "$BENCH_SRV" 2>/dev/null; rm -rf "$tmp"' EXIT

# split YAML OUT_JSON OUT_KEYS: the scaled bulk scenario as two scenarios, one bulk item each
split() {
    python3 - "$1" "$2" "$3" <<'PY'
import sys
text = open(sys.argv[1]).read()
head, tx = text.split("transactions:\n")
items = ["  - bulk:" + i for i in tx.split("  - bulk:")[1:]]
json_item = [i for i in items if "json_staging" in i][0]
keys_item = [i for i in items if "random_keys" in i][0]
for out, item in ((sys.argv[2], json_item), (sys.argv[3], keys_item)):
    body = "\n".join(l for l in item.splitlines() if not l.lstrip().startswith("#"))
    open(out, "w").write(head + "transactions:\n" + body + "\n")
PY
}

run_estimate() { # NAME ARGS...
    local name=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    "$bin" estimate "$@" --quiet --json "$tmp/$name.json"
    t1=$(date +%s.%N)
    python3 -c "import sys; print(f'wall {float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$t0" "$t1"
    [ -z "${BENCH_OUT:-}" ] || { mkdir -p "$BENCH_OUT"; cp "$tmp/$name.json" "$BENCH_OUT/$name.json"; }
}

echo "== estimate --levels 1-7, bulk-1g.yaml / $div, each workload on its own"
bench_scale_bulk "$div" "$tmp/bulk.yaml"
split "$tmp/bulk.yaml" "$tmp/json.yaml" "$tmp/keys.yaml"
for w in json keys; do
    "$bin" gen "$tmp/$w.yaml" --mode uncompressed --quiet --out "$tmp/$w"
    files=$(sed "s|^\./|$tmp/$w/|" "$tmp/$w/binlog.index")
    # shellcheck disable=SC2086
    cat $files >/dev/null # warm the page cache: every level reads the same files
    echo "-- $w ($([ $w = json ] && echo 'json_staging: 50 rows of ~3 KB JSON per transaction' ||
        echo 'random_keys: 2 narrow rows per transaction'))"
    run_estimate "$w-levels" "$tmp/$w" --levels 1-7
    rm -rf "$tmp/$w"
done

echo "== catch-up over $link (the harness's replica), ~1 MB of each workload"
for w in json keys; do
    # json_staging's 540M / 540 (~1.2 MB), random_keys' 135M / 540 (~0.8 MB: its target_bytes
    # counts row images, the stream is ~3x that)
    d=540
    bench_scale_bulk "$d" "$tmp/small.yaml"
    split "$tmp/small.yaml" "$tmp/small-json.yaml" "$tmp/small-keys.yaml"
    "$bin" gen "$tmp/small-$w.yaml" --mode uncompressed --quiet --out "$tmp/s-$w"
    bench_serve "$tmp/small-$w.yaml" "$tmp/s-$w" "$tmp"
    "$bin" record --user cdch --password cdch --port "$BENCH_PORT" --start binlog.000001:4 --until-end --quiet \
        --out "$tmp/cap-$w"
    kill "$BENCH_SRV"
    wait "$BENCH_SRV" 2>/dev/null || true
    BENCH_SRV=""
    echo "-- $w"
    run_estimate "$w-link" "$tmp/cap-$w" --levels 1,3,7 --link "$link"
    rm -rf "$tmp/s-$w" "$tmp/cap-$w"
done
