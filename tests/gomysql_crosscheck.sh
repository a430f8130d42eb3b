#!/usr/bin/env bash
# Independent cross-check of cdcharness with go-mysql's binlog parser
# (registered in CTest as gomysql_crosscheck):
#
#   tests/gomysql_crosscheck.sh CDCHARNESS_BIN SCENARIOS_DIR [FIXTURES_DIR]
#
# 1. Builds tests/gomysql (gomysql-decode, pinned go-mysql; `go build` fetches
#    the modules from the Go module proxy the first time, the Go build and
#    module caches make later runs take about a second). The binary goes to
#    $GOMYSQL_DECODE_DIR, default <dir of CDCHARNESS_BIN>/gomysql.
# 2. FIXTURES_DIR (optional): every real MySQL binlog in it (a file starting
#    with the binlog magic) is decoded with `cdcharness decode --json` and
#    with gomysql-decode; their row changes must agree (validates both
#    readers, and this comparator, on bytes MySQL itself wrote).
# 3. Every scenario SCENARIOS_DIR/*.yaml is generated with
#    `cdcharness gen --mode both` (and `--mode flip` when the scenario sets
#    `compression: flip`) into a temporary directory; for each stream,
#    gomysql-decode's rows must match expected.jsonl row by row (op, db,
#    table, gtid, pos, compressed, every column value). tests/gomysql/compare.py
#    says exactly how values are compared; the first mismatch of a stream
#    is printed with both rows.
#
# Set GOMYSQL_CROSSCHECK_KEEP=1 to keep the temporary directory.
# Prints "N passed, N failed" (one check per fixture file and per generated
# stream); exits non-zero on any failure.
set -u

usage="usage: gomysql_crosscheck.sh CDCHARNESS_BIN SCENARIOS_DIR [FIXTURES_DIR]"
bin=${1:?$usage}
scenarios=${2:?$usage}
fixtures=${3:-}

here=$(cd "$(dirname "$0")" && pwd)
gomod=$here/gomysql
compare=$gomod/compare.py

[ -x "$bin" ] || { echo "gomysql_crosscheck: $bin is not executable" >&2; exit 2; }
[ -d "$scenarios" ] || { echo "gomysql_crosscheck: $scenarios is not a directory" >&2; exit 2; }
command -v python3 >/dev/null || { echo "gomysql_crosscheck: python3 is needed" >&2; exit 2; }
command -v go >/dev/null || {
    echo "gomysql_crosscheck: the Go toolchain (go) is needed to build tests/gomysql" >&2
    exit 2
}

bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gomysql_crosscheck.XXXXXX")
if [ -n "${GOMYSQL_CROSSCHECK_KEEP:-}" ]; then
    echo "gomysql_crosscheck: keeping $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL: $1"
    shift
    for line in "$@"; do echo "      $line"; done
}
now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}s')" "$1" "$(now)"; }

# ------------------------------------------------------------ build
# Go keeps its build and module caches under $HOME; give it a place when the
# environment has no HOME (the caches then last as long as $TMPDIR does).
if [ -z "${HOME:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ] && [ -z "${GOCACHE:-}" ]; then
    export GOCACHE=${TMPDIR:-/tmp}/gomysql-crosscheck-gocache
fi
if [ -z "${HOME:-}" ] && [ -z "${GOPATH:-}" ] && [ -z "${GOMODCACHE:-}" ]; then
    export GOPATH=${TMPDIR:-/tmp}/gomysql-crosscheck-gopath
fi
t0=$(now)
outdir=${GOMYSQL_DECODE_DIR:-$(dirname "$bin")/gomysql}
mkdir -p "$outdir"
decoder=$outdir/gomysql-decode
if ! (cd "$gomod" && GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=false" go build -o "$decoder" .) >"$tmp/build.log" 2>&1; then
    cat "$tmp/build.log"
    echo "gomysql_crosscheck: go build of $gomod failed"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "built $decoder ($(elapsed "$t0"))"

# ------------------------------------------------------------ fixtures
is_binlog() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = "fe62696e" ]; }

if [ -n "$fixtures" ]; then
    if [ ! -d "$fixtures" ]; then
        fail "fixtures: $fixtures is not a directory"
    else
        t0=$(now)
        nfix=0
        for f in "$fixtures"/*; do
            [ -f "$f" ] && is_binlog "$f" || continue
            nfix=$((nfix + 1))
            name=$(basename "$f")
            if ! "$bin" decode --json "$f" >"$tmp/fix.cdch" 2>"$tmp/fix.err"; then
                fail "fixture $name: cdcharness decode --json failed" "$(head -5 "$tmp/fix.err")"
                continue
            fi
            if ! "$decoder" "$f" >"$tmp/fix.gm" 2>"$tmp/fix.err"; then
                fail "fixture $name: gomysql-decode failed" "$(head -5 "$tmp/fix.err")"
                continue
            fi
            if python3 "$compare" decode "$tmp/fix.cdch" "$tmp/fix.gm" "fixture $name" >"$tmp/fix.cmp" 2>&1; then
                pass
                echo "  $(cat "$tmp/fix.cmp")"
            else
                failed=$((failed + 1))
                echo "FAIL: $(cat "$tmp/fix.cmp")"
            fi
        done
        echo "fixtures: $nfix binlog files checked ($(elapsed "$t0"))"
        [ "$nfix" -gt 0 ] || fail "fixtures: no binlog files in $fixtures"
    fi
fi

# ------------------------------------------------------------ scenarios
check_stream() { # $1 = label, $2 = stream dir
    local label=$1 dir=$2 t
    t=$(now)
    if [ ! -f "$dir/expected.jsonl" ]; then
        fail "$label: no expected.jsonl in $dir"
        return
    fi
    if ! "$decoder" -ddl "$dir" >"$dir.gm" 2>"$dir.gm.err"; then
        fail "$label: gomysql-decode failed" "$(head -5 "$dir.gm.err")"
        return
    fi
    if python3 "$compare" expected "$dir/expected.jsonl" "$dir.gm" "$label" >"$dir.cmp" 2>&1; then
        pass
        echo "  $(cat "$dir.cmp") $(elapsed "$t")"
    else
        failed=$((failed + 1))
        echo "FAIL: $(cat "$dir.cmp")"
    fi
}

nsc=0
for sc in "$scenarios"/*.yaml "$scenarios"/*.yml; do
    [ -f "$sc" ] || continue
    nsc=$((nsc + 1))
    name=$(basename "$sc")
    name=${name%.*}
    modes=both
    grep -Eq '^[[:space:]]*compression:[[:space:]]*["'\'']?flip' "$sc" && modes="both flip"
    for mode in $modes; do
        out=$tmp/sc/$name.$mode
        mkdir -p "$tmp/sc"
        t0=$(now)
        if ! "$bin" gen "$sc" --mode "$mode" --quiet --out "$out" >"$tmp/gen.log" 2>&1; then
            fail "scenario $name: cdcharness gen --mode $mode failed" "$(head -5 "$tmp/gen.log")"
            continue
        fi
        echo "scenario $name: generated --mode $mode ($(elapsed "$t0"))"
        if [ "$mode" = both ]; then
            for sub in compressed uncompressed; do
                if [ -d "$out/$sub" ]; then
                    check_stream "scenario $name [$sub]" "$out/$sub"
                else
                    fail "scenario $name: gen --mode both wrote no $sub/ stream"
                fi
            done
        else
            check_stream "scenario $name [$mode]" "$out"
        fi
        [ -n "${GOMYSQL_CROSSCHECK_KEEP:-}" ] || rm -rf "$out" "$out".*
    done
done
if [ "$nsc" -eq 0 ]; then
    echo "scenarios: none in $scenarios (0 checked)"
else
    echo "scenarios: $nsc checked"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
