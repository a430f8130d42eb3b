#!/usr/bin/env bash
# Generation benchmark (not part of the test suite):
#
#   bench/gen_bench.sh [CDCHARNESS_BIN]      (default: build-lib/cdcharness)
#
# Generates bench/bulk-1g.yaml (json_staging then random_keys, ~1 GB of
# uncompressed binlog) and the same scenario scaled to a tenth (~100 MB),
# each in --mode uncompressed and --mode compressed, one run at a time under
# /usr/bin/time -v, and prints per run:
#   binlog bytes written, wall time, MB/s of binlog written, row-data MB/s
#   (uncompressed row images generated per second: the same work in both
#   modes), events/s (top-level + inside payloads), peak RSS.
# Then the peak RSS of the 1 GB runs against the 100 MB runs: the generator
# holds one transaction at a time, so RSS must not grow with stream length.
# MB = 10^6 bytes. Output goes to a temporary directory under
# ${BENCH_TMP:-${TMPDIR:-/tmp}} (needs ~1.2 GB free), removed after each run;
# wall time includes writing to the page cache, not fsync.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
bin=${1:-$root/build-lib/cdcharness}
[ -x "$bin" ] || { echo "gen_bench: $bin is not executable (build it first)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "gen_bench: python3 is needed" >&2; exit 2; }
if [ ! -x /usr/bin/time ]; then
    echo "gen_bench: installing GNU time (apt-get install time)"
    apt-get update -qq >/dev/null && apt-get install -y -qq time >/dev/null
fi

tmp=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/gen_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# the 100 MB variant: every target_bytes divided by 10
python3 - "$here/bulk-1g.yaml" "$tmp/bulk-100m.yaml" <<'PY'
import re, sys
units = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}
def scale(m):
    n = int(m.group(2)) * units[m.group(3).upper()]
    return f"{m.group(1)}{n // 10}"
text = open(sys.argv[1]).read()
text = re.sub(r"(target_bytes:\s*)(\d+)([KMGkmg]?)", scale, text)
open(sys.argv[2], "w").write(text)
PY
cp "$here/bulk-1g.yaml" "$tmp/bulk-1g.yaml"

printf '%-10s %-12s %14s %8s %9s %9s %12s %10s\n' scenario mode bytes wall_s "MB/s" "rowMB/s" "events/s" peak_RSS
results=$tmp/results.txt
: >"$results"
for sc in bulk-100m bulk-1g; do
    for mode in uncompressed compressed; do
        out=$tmp/out.$sc.$mode
        t0=$(date +%s.%N)
        /usr/bin/time -v -o "$tmp/time.txt" "$bin" gen "$tmp/$sc.yaml" --mode "$mode" --quiet --out "$out"
        t1=$(date +%s.%N)
        python3 - "$sc" "$mode" "$t0" "$t1" "$out/stream.json" "$tmp/time.txt" >>"$results" <<'PY'
import json, re, sys
sc, mode, t0, t1, manifest, timef = sys.argv[1:]
wall = float(t1) - float(t0)
st = json.load(open(manifest))["stats"]
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(timef).read()).group(1))
ev = st["events"] + st["inner_events"]
print(f"{sc:<10} {mode:<12} {st['bytes']:>14} {wall:>8.2f} {st['bytes'] / 1e6 / wall:>9.1f} "
      f"{st['row_data_bytes'] / 1e6 / wall:>9.1f} {ev / wall:>12.0f} {rss / 1024:>7.1f} MiB")
PY
        tail -1 "$results"
        rm -rf "$out"
    done
done
python3 - "$results" <<'PY'
import sys
rss = {}
for line in open(sys.argv[1]):
    f = line.split()
    rss[(f[0], f[1])] = float(f[7])
for mode in ("uncompressed", "compressed"):
    a, b = rss[("bulk-100m", mode)], rss[("bulk-1g", mode)]
    print(f"peak RSS {mode}: {a:.1f} MiB at ~100 MB, {b:.1f} MiB at ~1 GB (x{b / a:.2f} for x10 the stream)")
PY
