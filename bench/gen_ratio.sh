#!/usr/bin/env bash
# The cost of compression in `gen` (issue 16): CPU (user+sys, /usr/bin/time) of `gen --mode compressed`
# against `gen --mode uncompressed` plus bare libzstd compressing the same transactions one by one
# (bench/zstd_txn_bench: one reused context, MySQL's frame parameters, nothing else), on
# bench/bulk-1g.yaml scaled down (default to a tenth, ~100 MB). Best of RUNS (default 3) for each.
# Target: ratio <= 1.15, and the compressed run's peak RSS no larger than the uncompressed one's + 2 MB.
#
#   bench/gen_ratio.sh [BUILD_DIR] [DIVISOR] [RUNS]     (default: build, 10, 3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
div=${2:-10}
runs=${3:-3}
. "$here/bench_lib.sh"
[ -x "$build/cdcharness" ] && [ -x "$build/zstd_txn_bench" ] ||
  { echo "gen_ratio: build cdcharness and zstd_txn_bench in $build first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench_scale_bulk "$div" "$tmp/bulk.yaml"
level=$(sed -n 's/^ *zstd_level: *\([0-9]*\).*/\1/p' "$tmp/bulk.yaml" | head -1)
level=${level:-3}
best() { sort -n | head -1; }
measure() { # LABEL COMMAND... -> "cpu rss" (best CPU of $runs)
  local label=$1; shift
  for _ in $(seq 1 "$runs"); do
    rm -rf "$tmp/out"
    /usr/bin/time -f '%U %S %M' -o "$tmp/t" "$@" >/dev/null
    awk '{printf "%.3f %d\n", $1 + $2, $3}' "$tmp/t"
  done | sort -n | head -1
}
read -r cu ru < <(measure uncompressed "$build/cdcharness" gen "$tmp/bulk.yaml" --mode uncompressed --quiet --out "$tmp/out")
read -r cc rc < <(measure compressed "$build/cdcharness" gen "$tmp/bulk.yaml" --mode compressed --quiet --out "$tmp/out")
rm -rf "$tmp/u"
"$build/cdcharness" gen "$tmp/bulk.yaml" --mode uncompressed --quiet --out "$tmp/u"
read -r cz _ < <(measure zstd "$build/zstd_txn_bench" "$level" "$tmp"/u/binlog.0*)
bytes=$(du -sb "$tmp/u" | cut -f1)
python3 - "$cu" "$cc" "$cz" "$ru" "$rc" "$bytes" "$level" <<'PY'
import sys
cu, cc, cz = map(float, sys.argv[1:4]); ru, rc, b, lvl = map(int, sys.argv[4:8])
ratio = cc / (cu + cz)
print("stream %.0f MB, zstd level %d, best of runs (CPU s = user + sys)" % (b / 1e6, lvl))
print("  gen uncompressed       %6.2f s   peak RSS %6d kB" % (cu, ru))
print("  gen compressed         %6.2f s   peak RSS %6d kB" % (cc, rc))
print("  bare libzstd per txn   %6.2f s" % cz)
print("  ratio compressed / (uncompressed + bare zstd) = %.2f (target <= 1.15)" % ratio)
sys.exit(0 if ratio <= 1.15 and rc <= ru + 2048 else 1)
PY
