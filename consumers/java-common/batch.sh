# batch.sh — sourced by the Java families' setup.sh: builds the adapter against one or several
# pinned versions in one Maven run (the harness gives a family with `setup_batch: true` every
# version a run needs at once: setup.sh VERSION DIR [VERSION DIR]...).
#
# The sourcing setup.sh sets, before calling java_batch "$@":
#   module_props VERSION    prints the Maven properties (PROP=VALUE ...) that build VERSION: what
#                           `mvn -f pom.xml -DPROP=VALUE...` would be given for it alone
#   finish VERSION DIR      checks one install after the build and writes its artifact file
#                           (record_artifact below)
#   dep_args                extra arguments of dependency:copy-dependencies (an array, may be empty)
# java_batch writes, for each pair, DIR/adapter.jar and DIR/lib/ (the runtime dependencies), then
# runs finish. The build runs in a temporary reactor (java-common/reactor.py: one module per
# version, the family's pom.xml with that version's properties), so Maven starts, loads its plugins
# and resolves shared artifacts once for all versions. Tests are skipped (there are none; it spares
# Maven resolving the surefire plugin's providers). Nothing is written into the family's folder.
# record_artifact DIR GROUP ARTIFACT VERSION: the install in DIR holds lib/ARTIFACT-VERSION.jar
# (else it fails), and DIR/artifact names GROUP:ARTIFACT:VERSION (the library the adapter runs).
record_artifact() {
    local dir=$1 gav="$2:$3:$4"
    ls "$dir/lib/$3-$4.jar" >/dev/null
    echo "$gav" > "$dir/artifact"
    echo "setup.sh: adapter built against $gav in $dir" >&2
}

java_batch() {
    local common
    common=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    local here
    here=$(cd "$(dirname "$0")" && pwd)
    if [ $# -lt 2 ] || [ $(($# % 2)) -ne 0 ]; then
        echo "usage: setup.sh VERSION CACHE_DIR [VERSION CACHE_DIR]..." >&2
        exit 2
    fi
    command -v java >/dev/null || { echo "setup.sh: java is needed" >&2; exit 1; }
    command -v python3 >/dev/null || { echo "setup.sh: python3 is needed (java-common/reactor.py)" >&2; exit 1; }
    local tmp
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/cdch-reactor.XXXXXX")
    # shellcheck disable=SC2064 # expanded now: the trap outlives this function's locals
    trap "rm -rf '$tmp'" EXIT
    local specs=() versions=() dirs=() i=0 version dir
    while [ $# -gt 0 ]; do
        version=$1 dir=$2
        shift 2
        mkdir -p "$dir"
        dir=$(cd "$dir" && pwd)
        rm -rf "$dir/lib" "$dir/target" "$dir/adapter.jar"
        local props
        props=$(module_props "$version")
        # shellcheck disable=SC2206 # PROP=VALUE words, no spaces in them
        specs+=(--module "v$i" $props "cdch.out=$dir")
        versions+=("$version")
        dirs+=("$dir")
        i=$((i + 1))
    done
    python3 "$common/reactor.py" "$here/pom.xml" "$tmp" "${specs[@]}"
    "$common/mvn.sh" -q -B -f "$tmp/pom.xml" -Dmaven.test.skip=true \
        package dependency:copy-dependencies "${dep_args[@]}" >&2
    for ((i = 0; i < ${#dirs[@]}; i++)); do
        dir=${dirs[$i]}
        cp "$dir/target/adapter.jar" "$dir/adapter.jar"
        mv "$dir/target/dependency" "$dir/lib"
        rm -rf "$dir/target"
        finish "${versions[$i]}" "$dir"
    done
}
