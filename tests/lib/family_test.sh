# family_test.sh — sourced by consumers/<family>/test.sh (CTest consumers_canal, consumers_maxwell).
#
#   family_test FAMILY_DIR CDCHARNESS_BIN [SCENARIO...]   (default: the array default_scenarios)
#
# Every pinned version of the family must give the verdict its manifest records (expect +
# expect_by_scenario), over the scenarios given, both modes, twice: in session mode (the
# manifest's session: true: one JVM serves the cells) and one-shot (a copy of the family's folder
# whose manifest drops session; setup is cached per family name and folder content, so the copy
# reuses the installed versions). Prints each run's verdict table and "N passed, N failed" by
# cell; returns 0 only when every cell met its expectation.
#
# PARSE_FAILURE_CAUSE=TEXT (optional): a parse-failure counts as met only when TEXT is in the
# cell's summary or detail (the failure must be the consumer's own, not a failed adapter).
# $repo: the repository (for default_scenarios).

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

family_test() {
    local dir=$1 bin=$2
    shift 2
    [ $# -gt 0 ] || set -- "${default_scenarios[@]}"
    local fam work
    fam=$(basename "$dir")
    work=$(mktemp -d)
    # shellcheck disable=SC2064 # expand now: $work is local
    trap "rm -rf '$work'" EXIT
    # one-shot copy: same adapter sources, manifest without session; what the folder links to
    # (java-common) beside it, as in consumers/
    mkdir -p "$work/oneshot"
    cp -r "$dir" "$work/oneshot/$fam"
    local l
    for l in "$dir"/*; do
        [ -L "$l" ] && cp -rL "$l" "$work/oneshot/$(basename "$(readlink "$l")")"
    done
    # and the folders its manifest `shares:` (../go-common, ../python-common, ...), at the same
    # relative place
    local rel dst
    while read -r rel; do
        [ -n "$rel" ] && [ -e "$dir/$rel" ] || continue
        dst=$(realpath -m "$work/oneshot/$fam/$rel")
        [ -e "$dst" ] || { mkdir -p "$(dirname "$dst")" && cp -rL "$dir/$rel" "$dst"; }
    done < <(sed -n 's/^shares:[[:space:]]*\[\([^]]*\)\].*/\1/p' "$dir/manifest.yaml" | tr ',' '\n' | tr -d ' "'"'")
    sed -i '/^session:/d' "$work/oneshot/$fam/manifest.yaml"
    local args=() s
    for s in "$@"; do args+=(--scenario "$s"); done
    local total_ok=0 total=0 rc=0 variant rep dirs start end ok n
    for variant in session oneshot; do
        rep="$work/rep-$variant"
        dirs=()
        [ "$variant" = oneshot ] && dirs=(--consumers-dir "$work/oneshot")
        start=$(date +%s.%N)
        "$bin" run --consumer "$fam" "${args[@]}" --mode both --expect manifest -j 2 "${dirs[@]}" \
               --report-dir "$rep" --quiet >"$work/table-$variant.txt" 2>"$work/stderr-$variant.txt" || rc=1
        end=$(date +%s.%N)
        echo "== $variant ($(python3 -c "print(round($end-$start,1))") s)"
        cat "$work/table-$variant.txt"
        [ -s "$work/stderr-$variant.txt" ] && tail -n 20 "$work/stderr-$variant.txt"
        read -r ok n < <(python3 - "$rep/report.json" 2>>"$work/why.txt" <<'PY'
import json, os, sys
try:
    cells = json.load(open(sys.argv[1])).get("cells", [])
except Exception as e:
    print(0, 1)
    sys.exit(0)
cause = os.environ.get("PARSE_FAILURE_CAUSE", "")
def ok(c):
    if cause and c.get("verdict") == "parse-failure" and cause not in json.dumps([c.get("summary"), c.get("detail")]):
        print("cell %s %s: parse-failure for another reason: %s" % (c.get("scenario"), c.get("mode"),
              c.get("summary")), file=sys.stderr)
        return False
    return bool(c.get("meets"))
print(sum(1 for c in cells if ok(c)), len(cells))
PY
)
        total_ok=$((total_ok + ok)); total=$((total + n))
        [ "$n" -gt 0 ] || rc=1
    done
    [ -s "$work/why.txt" ] && cat "$work/why.txt"
    echo "$total_ok passed, $((total - total_ok)) failed"
    [ "$total_ok" -eq "$total" ] || rc=1
    # its work directory goes now: the caller's own `trap ... EXIT` (set after this returns)
    # replaces the one above
    rm -rf "$work"
    trap - EXIT
    return $rc
}
