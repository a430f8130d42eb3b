#!/usr/bin/env bash
# Generate every scenario of the library and check the streams with our
# reference consumer (registered in CTest as gen_library):
#
#   tests/gen_library.sh CDCHARNESS_BIN SCENARIOS_DIR [SCENARIO_NAME...]
#
# For each SCENARIOS_DIR/*.yaml (or only the named ones):
#   1. the first line is "# probes: <risk>" and `description:` holds the
#      same sentence (the library convention, scenarios/README.md);
#   2. `cdcharness gen --mode both` succeeds (and `--mode flip` too when the
#      scenario sets `compression: flip`);
#   3. for each stream (compressed, uncompressed[, flip]), its binlog files,
#      taken in <basename>.index order:
#        `decode --canonical --scenario S FILES` == expected.jsonl, byte for byte;
#        `decode FILES` (the mysqlbinlog-style printer) exits 0;
#        stream.json lists the same files, with their sizes.
# One check per scenario convention and per stream. Prints "N passed, N
# failed"; exits non-zero on any failure. GEN_LIBRARY_KEEP=1 keeps the
# temporary directory.
set -u

usage="usage: gen_library.sh CDCHARNESS_BIN SCENARIOS_DIR [SCENARIO_NAME...]"
bin=${1:?$usage}
scenarios=${2:?$usage}
shift 2

[ -x "$bin" ] || { echo "gen_library: $bin is not executable" >&2; exit 2; }
[ -d "$scenarios" ] || { echo "gen_library: $scenarios is not a directory" >&2; exit 2; }
command -v python3 >/dev/null || { echo "gen_library: python3 is needed" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gen_library.XXXXXX")
if [ -n "${GEN_LIBRARY_KEEP:-}" ]; then
    echo "gen_library: keeping $tmp"
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

# $1 = scenario file: the "# probes:" line and description: agree.
check_convention() {
    python3 - "$1" <<'EOF'
import re, sys
path = sys.argv[1]
lines = open(path, encoding="utf-8").read().split("\n")
first = lines[0]
if not first.startswith("# probes: "):
    sys.exit(f"first line is not '# probes: <risk>': {first!r}")
probe = first[len("# probes: "):].strip()
desc = None
for l in lines:
    m = re.match(r"^description:\s*(.*)$", l)
    if m:
        desc = m.group(1).strip()
        if len(desc) >= 2 and desc[0] == desc[-1] and desc[0] in "\"'":
            desc = desc[1:-1]
        break
if desc is None:
    sys.exit("no top-level description:")
if desc != probe:
    sys.exit(f"description differs from the probes line:\n  probes:      {probe}\n  description: {desc}")
EOF
}

# $1 = label, $2 = stream dir, $3 = scenario file
check_stream() {
    local label=$1 dir=$2 sc=$3 t index base
    t=$(now)
    index=$(ls "$dir"/*.index 2>/dev/null | head -1)
    if [ -z "$index" ] || [ ! -f "$dir/expected.jsonl" ] || [ ! -f "$dir/stream.json" ]; then
        fail "$label: $dir lacks an .index, expected.jsonl or stream.json"
        return
    fi
    local files=()
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        files+=("$dir/${line#./}")
    done <"$index"
    if [ "${#files[@]}" -eq 0 ]; then
        fail "$label: empty index $index"
        return
    fi
    if ! "$bin" decode --canonical --scenario "$sc" "${files[@]}" >"$dir.canon" 2>"$dir.canon.err"; then
        fail "$label: decode --canonical failed" "$(head -5 "$dir.canon.err")"
        return
    fi
    if ! cmp -s "$dir.canon" "$dir/expected.jsonl"; then
        local line
        line=$(cmp "$dir.canon" "$dir/expected.jsonl" 2>&1 | head -1)
        local n
        n=$(cmp "$dir.canon" "$dir/expected.jsonl" 2>/dev/null | sed -n 's/.* line \([0-9]*\)$/\1/p')
        fail "$label: decode --canonical differs from expected.jsonl ($line)" \
            "decoded:  $(sed -n "${n:-1}p" "$dir.canon" | cut -c1-400)" \
            "expected: $(sed -n "${n:-1}p" "$dir/expected.jsonl" | cut -c1-400)"
        return
    fi
    if ! "$bin" decode "${files[@]}" >/dev/null 2>"$dir.text.err"; then
        fail "$label: decode (text) failed" "$(head -5 "$dir.text.err")"
        return
    fi
    local msg
    if ! msg=$(python3 - "$dir" "${files[@]}" <<'EOF'
import json, os, sys
d = sys.argv[1]
files = sys.argv[2:]
m = json.load(open(os.path.join(d, "stream.json")))
listed = [(f["name"], f["size"]) for f in m["files"]]
actual = [(os.path.basename(f), os.path.getsize(f)) for f in files]
if listed != actual:
    sys.exit(f"stream.json files {listed} != index/disk {actual}")
st = m["stats"]
if st["files"] != len(files) or st["bytes"] != sum(s for _, s in actual):
    sys.exit(f"stream.json stats files={st['files']} bytes={st['bytes']} disagree with the files")
rows = sum(1 for _ in open(os.path.join(d, "expected.jsonl"), "rb"))
if st["row_changes"] != rows:
    sys.exit(f"stream.json row_changes={st['row_changes']} but expected.jsonl has {rows} lines")
print(f"{len(files)} file(s), {st['bytes']} bytes, {rows} row changes, "
      f"{st['compressed_transactions']}/{st['transactions']} transactions compressed")
EOF
    ); then
        fail "$label: $msg"
        return
    fi
    pass
    echo "  ok $label: $msg ($(elapsed "$t"))"
}

nsc=0
t_all=$(now)
if [ $# -gt 0 ]; then
    list=()
    for n in "$@"; do list+=("$scenarios/$n.yaml"); done
else
    list=("$scenarios"/*.yaml)
fi
for sc in "${list[@]}"; do
    [ -f "$sc" ] || { [ $# -gt 0 ] && fail "scenario $sc: no such file"; continue; }
    nsc=$((nsc + 1))
    name=$(basename "$sc" .yaml)
    if err=$(check_convention "$sc" 2>&1); then
        pass
    else
        fail "scenario $name: library convention" "$err"
    fi
    modes=both
    grep -Eq '^[[:space:]]*compression:[[:space:]]*["'\'']?flip' "$sc" && modes="both flip"
    for mode in $modes; do
        out=$tmp/$name.$mode
        t0=$(now)
        if ! "$bin" gen "$sc" --mode "$mode" --quiet --out "$out" >"$tmp/gen.log" 2>&1; then
            fail "scenario $name: cdcharness gen --mode $mode failed" "$(head -5 "$tmp/gen.log")"
            continue
        fi
        echo "scenario $name: generated --mode $mode ($(elapsed "$t0"))"
        if [ "$mode" = both ]; then
            for sub in compressed uncompressed; do
                if [ -d "$out/$sub" ]; then
                    check_stream "$name [$sub]" "$out/$sub" "$sc"
                else
                    fail "scenario $name: gen --mode both wrote no $sub/ stream"
                fi
            done
        else
            check_stream "$name [$mode]" "$out" "$sc"
        fi
        [ -n "${GEN_LIBRARY_KEEP:-}" ] || rm -rf "$out" "$out".*
    done
done
[ "$nsc" -gt 0 ] || fail "no scenarios in $scenarios"
echo "scenarios: $nsc checked ($(elapsed "$t_all"))"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
