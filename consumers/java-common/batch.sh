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

# maven_not_served LOG VERSION...: when Maven's LOG says an artifact at one of the VERSIONs (a
# +variant stripped) is not in the repository ("Could not find artifact G:A:TYPE:V in central (URL)",
# or, cached from an earlier try, "G:A:TYPE:V was not found in URL during a previous attempt" (Maven
# 3.9) / "Failure to find G:A:TYPE:V in URL was cached ..." (3.8), or "The following artifacts could
# not be resolved: G:A:TYPE:V (absent)": a release whose modules are not all on Maven Central, e.g.
# debezium-connector-binlog 3.6.0.Final), prints
# "setup: not served: <Maven's words>" (consumers/README.md, issue 25) and exits 3. Else returns.
maven_not_served() {
    local log=$1 said v
    shift
    for v in "$@"; do
        v=${v%%+*}
        [ -n "$v" ] || continue
        said=$(grep -o -m1 -E "(Could not find artifact|Failure to find) [^[:space:]]+:${v//./\\.} in [^[:space:]]+( \([^)]*\))?|[^[:space:]]+:${v//./\\.} was not found in [^[:space:]]+ during a previous attempt|The following artifacts could not be resolved: [^[:space:]]+:${v//./\\.} \(absent\)" "$log" || true)
        if [ -n "$said" ]; then
            echo "setup: not served: $said" >&2
            exit 3
        fi
    done
}

# Local builds (issue 25): VERSION "file:/PATH[+variant]" (the harness also sets CDCH_LOCAL=/PATH):
# the user's jars (one jar, or a directory of jars such as a Kafka Connect plugin folder or a Maven
# target/) replace the registry's jars of the same artifactId; the dependencies they lack come from
# Maven at the library's version (module_props builds against the newest release Maven serves at or
# below it, a Maven range "(,V]", so a -SNAPSHOT build takes its dependencies from the release before).
# local_path VERSION: the PATH of "file:/PATH[+variant]" (a trailing +word without '/' is the variant)
local_path() {
    case $1 in
        file:*) ;;
        *) return 0 ;;
    esac
    local p=${1#file:}
    [[ $p =~ ^(.*)\+[A-Za-z0-9_.-]+$ ]] && p=${BASH_REMATCH[1]}
    echo "$p"
}
# local_jars PATH: localjars.py's lines (GROUP ARTIFACT VERSION JAR, tab-separated)
local_jars() {
    python3 "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/localjars.py" "$1"
}
# local_library PATH ARTIFACT...: "GROUP VERSION" of the first ARTIFACT (in the order given) that
# PATH's jars hold (GROUP "-" when the jar does not say); exits 1 naming what it looked for
local_library() {
    local path=$1 list a line
    shift
    list=$(local_jars "$path") || exit 1
    for a in "$@"; do
        line=$(awk -F'\t' -v a="$a" '$2 == a && $3 != "-" {print $1 " " $3; exit}' <<<"$list")
        if [ -n "$line" ]; then
            echo "$line"
            return 0
        fi
    done
    echo "setup: local build $path: none of its jars is $* (read from META-INF/maven/**/pom.properties, or a file name ARTIFACT-VERSION.jar)" >&2
    exit 1
}
# local_install DIR PATH GROUP ARTIFACT VERSION: after the build, PATH's jars replace DIR/lib's jars
# of the same artifactId (or join them); DIR/local-version holds VERSION, DIR/artifact says what runs
local_install() {
    local dir=$1 path=$2 group=$3 artifact=$4 version=$5 g a v jar old base
    base=$(cd "$dir/lib" && ls | grep -E "^${artifact//./\\.}-[0-9][^/]*\.jar$" | head -1 || true)
    base=${base#"$artifact"-}
    base=${base%.jar}
    while IFS=$'\t' read -r g a v jar; do
        for old in "$dir/lib/$a"-*.jar; do
            [[ $(basename "$old") =~ ^${a//./\\.}-[0-9][^/]*\.jar$ ]] && rm -f "$old"
        done
        cp "$jar" "$dir/lib/"
        echo "setup.sh: local jar $(basename "$jar") ($g:$a:$v)" >&2
    done < <(local_jars "$path")
    echo "$version" > "$dir/local-version"
    echo "$group:$artifact:$version local:$path (other dependencies as of ${base:-?})" > "$dir/artifact"
    echo "setup.sh: adapter built for the local build $path ($group:$artifact:$version; Maven's dependencies of ${base:-?})" >&2
}

# maven_local_failed LOG VERSION...: a local build whose dependencies Maven could not take from a
# release at or below its version (the range "(,V]" holds no served version): exit 1 with Maven's words
maven_local_failed() {
    local log=$1 said v
    shift
    for v in "$@"; do
        case $v in file:*) ;; *) continue ;; esac
        said=$(grep -o -m1 -E "No versions available for [^[:space:]]+ within specified range|Could not resolve version range[^\r]*" "$log" || true)
        if [ -n "$said" ]; then
            echo "setup: local build $(local_path "$v"): Maven serves no release at or below its version to take the other dependencies from: $said" >&2
            exit 1
        fi
    done
}
# maven_unsupported LOG FAMILY_DIR VERSION...: with CDCH_UNPINNED=1, a failure to compile the adapter
# against a version is "setup: unsupported: FAMILY VERSION: ..." (exit 4, INTERFACE issue 25): the
# adapter cannot drive what that version offers. Module vN of the reactor is the Nth VERSION.
maven_unsupported() {
    local log=$1 fam i said
    fam=$(basename "$2")
    shift 2
    [ "${CDCH_UNPINNED:-}" = 1 ] || return 0
    i=$(grep -o -m1 -E "Failed to execute goal [^ ]+maven-compiler-plugin[^ ]*:compile [^ ]+ on project [^ :]+-v[0-9]+" "$log" | sed -E 's/.*-v([0-9]+)$/\1/' || true)
    [ -n "$i" ] || return 0
    said=$(grep -m1 -A2 -E "^\[ERROR\] /[^ ]+\.java:\[[0-9]+,[0-9]+\] " "$log" |
        sed -E -e 's/^\[ERROR\] [^ ]*\/([^/ ]+\.java:\[[0-9]+,[0-9]+\]) /\1 /' -e 's/^ +(symbol|location): +/\1 /' |
        grep -v '^\[ERROR\]' | paste -sd ';' - || true)
    shift "$i"
    echo "setup: unsupported: $fam $1: the adapter does not compile against it (${said:-see the setup log})" >&2
    exit 4
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
    local specs=() versions=() mvers=() dirs=() i=0 version dir
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
        # the version Maven resolves (a family whose VERSION is not Maven's defines maven_version)
        if declare -F maven_version >/dev/null; then mvers+=("$(maven_version "$version")"); else mvers+=("$version"); fi
        dirs+=("$dir")
        i=$((i + 1))
    done
    python3 "$common/reactor.py" "$here/pom.xml" "$tmp" "${specs[@]}"
    # Maven's output goes to stderr (the setup log) and to $tmp/mvn.log, where a failure is read:
    # a version the registry does not serve is exit 3 with Maven's own words (maven_not_served)
    local mvn_rc=0
    { "$common/mvn.sh" -q -B -f "$tmp/pom.xml" -Dmaven.test.skip=true \
        package dependency:copy-dependencies "${dep_args[@]}" 2>&1 || echo $? >"$tmp/mvn.rc"; } | tee "$tmp/mvn.log" >&2
    [ -f "$tmp/mvn.rc" ] && mvn_rc=$(cat "$tmp/mvn.rc")
    if [ "$mvn_rc" -ne 0 ]; then
        maven_not_served "$tmp/mvn.log" "${mvers[@]}"
        maven_local_failed "$tmp/mvn.log" "${versions[@]}"
        maven_unsupported "$tmp/mvn.log" "$here" "${versions[@]}"
        exit "$mvn_rc"
    fi
    for ((i = 0; i < ${#dirs[@]}; i++)); do
        dir=${dirs[$i]}
        cp "$dir/target/adapter.jar" "$dir/adapter.jar"
        mv "$dir/target/dependency" "$dir/lib"
        rm -rf "$dir/target"
        finish "${versions[$i]}" "$dir"
    done
}
