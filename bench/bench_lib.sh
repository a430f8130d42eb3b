# bench_lib.sh — sourced by the benchmarks that serve or rewrite a scaled bulk stream
# (serve_bench.sh, record_bench.sh, recompress_bench.sh, gen_ratio.sh).
#   bench_scale_bulk DIVISOR OUT    bench/bulk-1g.yaml with every target_bytes divided by DIVISOR
#   bench_serve YAML DIR LOGDIR     `cdcharness serve YAML --stream-dir DIR` (mysql_native_password)
#                                   on a free port: sets BENCH_SRV (its pid) and BENCH_PORT
# Needs: $build (the build directory holding cdcharness).
bench_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

bench_scale_bulk() {
    python3 - "$bench_here/bulk-1g.yaml" "$2" "$1" <<'PY'
import re, sys
units = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}
div = int(sys.argv[3])
def scale(m):
    return f"{m.group(1)}{int(m.group(2)) * units[m.group(3).upper()] // div}"
text = re.sub(r"(target_bytes:\s*)(\d+)([KMGkmg]?)", scale, open(sys.argv[1]).read())
open(sys.argv[2], "w").write(text)
PY
}

bench_serve() {
    "$build/cdcharness" serve "$1" --stream-dir "$2" --port 0 --auth mysql_native_password --quiet \
        >"$3/serve.out" 2>"$3/serve.err" &
    BENCH_SRV=$!
    BENCH_PORT=""
    for _ in $(seq 1 100); do
        BENCH_PORT=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$3/serve.out")
        [ -n "$BENCH_PORT" ] && return 0
        sleep 0.1
    done
    cat "$3/serve.err" >&2
    return 1
}
