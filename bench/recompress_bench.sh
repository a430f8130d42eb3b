#!/usr/bin/env bash
# `cdcharness recompress` benchmark (not part of the test suite):
#
#   bench/recompress_bench.sh [BUILD_DIR] [LEVEL]     (default: build, level 3)
#
# Generates bench/bulk-1g.yaml (JSON staging rewrite, then short random-key
# updates) scaled to ~100 MB and ~200 MB of uncompressed binlog, and for each
# size runs, one at a time under /usr/bin/time -v, five times alternating (the
# least CPU of each is kept, the largest peak RSS):
#   - cdcharness recompress --level LEVEL (read, verify CRC32, rewrite, compress,
#     write the files);
#   - BUILD_DIR/zstd_txn_bench LEVEL (bare libzstd compressing the same
#     transactions one by one with one reused context: the floor).
# Prints per size: CPU seconds (user+sys) of each, their ratio (target <= 1.2),
# peak RSS of recompress, and the largest transaction; then the RSS of the
# 200 MB run against the 100 MB run (memory = largest transaction + constant:
# it must not grow with the capture). Output under ${BENCH_TMP:-${TMPDIR:-/tmp}}
# (needs ~700 MB free), removed at the end.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
level=${2:-3}
bin=$build/cdcharness
base=$build/zstd_txn_bench
[ -x "$bin" ] || { echo "recompress_bench: $bin is not executable (build it first)" >&2; exit 2; }
[ -x "$base" ] || { echo "recompress_bench: $base is not built (cmake --build $build --target zstd_txn_bench)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "recompress_bench: python3 is needed" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "recompress_bench: GNU time is needed (apt-get install time)" >&2; exit 2; }

tmp=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/recompress_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# bench_scale_bulk DIVISOR OUT: bench/bulk-1g.yaml with every target_bytes divided
[ -f "$here/bench_lib.sh" ] || { echo "recompress_bench: $here/bench_lib.sh is missing" >&2; exit 2; }
# shellcheck source=bench_lib.sh
. "$here/bench_lib.sh"
cpu() { python3 -c "
import re,sys
t=open(sys.argv[1]).read()
u=float(re.search(r'User time \(seconds\): ([\d.]+)',t).group(1)); s=float(re.search(r'System time \(seconds\): ([\d.]+)',t).group(1))
print(f'{u+s:.2f}')" "$1"; }
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }

printf '%-9s %12s %10s %10s %8s %12s %12s\n' size binlog_MB recomp_cpu zstd_cpu ratio peak_RSS_kB max_txn_kB
declare -A RSS
for div in 10 5; do
    name=$((1000 / div))MB
    bench_scale_bulk "$div" "$tmp/bulk.yaml"
    "$bin" gen "$tmp/bulk.yaml" --mode uncompressed --quiet --out "$tmp/u"
    files=$(sed "s|^\./|$tmp/u/|" "$tmp/u/binlog.index")
    mb=$(du -cb $files | tail -1 | awk '{printf "%.0f", $1/1e6}')
    # warm the page cache so both runs read from memory
    cat $files >/dev/null
    # five alternating pairs; the least CPU of each (a 2-vCPU VM's noise only adds: +-10 % run to run)
    rc_cpu="" z_cpu="" rss_max=0
    for _ in 1 2 3 4 5; do
        rm -rf "$tmp/r"
        /usr/bin/time -v -o "$tmp/t.rc" "$bin" recompress "$tmp/u" --level "$level" --out "$tmp/r" 2>"$tmp/rc.log"
        # shellcheck disable=SC2086
        /usr/bin/time -v -o "$tmp/t.z" "$base" "$level" $files >"$tmp/z.log"
        c=$(cpu "$tmp/t.rc") z=$(cpu "$tmp/t.z") r=$(rss "$tmp/t.rc")
        rc_cpu=$(awk -v a="$c" -v b="$rc_cpu" 'BEGIN{print (b == "" || a < b) ? a : b}')
        z_cpu=$(awk -v a="$z" -v b="$z_cpu" 'BEGIN{print (b == "" || a < b) ? a : b}')
        [ "$r" -gt "$rss_max" ] && rss_max=$r
    done
    ratio=$(python3 -c "import sys; print(f'{float(sys.argv[1]) / max(float(sys.argv[2]), 0.01):.2f}')" "$rc_cpu" "$z_cpu")
    maxtx=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['stats']['max_transaction_bytes'] // 1024)" "$tmp/u/stream.json")
    RSS[$name]=$rss_max
    printf '%-9s %12s %10s %10s %8s %12s %12s\n' "$name" "$mb" "$rc_cpu" "$z_cpu" "${ratio}x" "${RSS[$name]}" "$maxtx"
    sed 's/^/    /' "$tmp/rc.log"
    echo "    baseline: $(cat "$tmp/z.log")"
    rm -rf "$tmp/u" "$tmp/r"
done
python3 -c "import sys; a,b=int(sys.argv[1]),int(sys.argv[2]); print(f'peak RSS 200MB / 100MB: {b/a:.2f} ({a} kB -> {b} kB)')" "${RSS[100MB]}" "${RSS[200MB]}"
