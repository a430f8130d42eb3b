#!/usr/bin/env bash
# Builds the adapter (src/main/java/cdch/*.java) against Debezium releases from Maven Central
# (io.debezium:debezium-api, debezium-embedded, debezium-connector-mysql and, from 2.0.0.Beta1 on,
# debezium-storage-file), into the cache dirs:
#   setup.sh VERSION CACHE_DIR [VERSION CACHE_DIR]...
# (several pairs: one Maven run for all, java-common/batch.sh; manifest `setup_batch: true`).
# VERSION is "<Debezium version>[+variant]": a variant (manifest.yaml, e.g. "+retry") is a setting
# the adapter reads from CDCH_VERSION at run time, built against the same release. Any version
# Maven Central serves from 1.2.0 on builds (unpinned: CDCH_UNPINNED=1): the adapter chooses by the
# jars it runs with (src/main/java/cdch/Lib.java), this script only by the line (pom.xml profiles):
#   < 1.2.0.Alpha1          unsupported (exit 4): DebeziumEngine's ChangeEvent / format.Json, the
#                           adapter's API, are new in 1.2.0.Alpha1 (1.1 has only ChangeEventFormat)
#   1.2 .. 2.0.0.Alpha3     line 1: the file schema history is in debezium-core
#   2.0.0.Beta1 and newer   line 2: debezium-storage-file (its first release is 2.0.0.Beta1)
# A version Maven Central does not serve: exit 3, "setup: not served: <Maven's error>".
#
# VERSION "file:/PATH[+variant]" (CDCH_LOCAL=/PATH): the user's own build, a Kafka Connect plugin
# directory of jars (as debezium-connector-mysql-X-plugin.tar.gz unpacks) or one jar (debezium-connector-mysql-X.jar). Its version X is read from the connector
# jar (META-INF/maven/io.debezium/debezium-connector-mysql/pom.properties, else the jar's name) and
# written to CACHE_DIR/local-version; the adapter is built against X from Maven Central (what the
# plugin lacks: debezium-embedded, the storage module, Kafka Connect's runtime; X must be served, or
# be in the local Maven repository after the user's `mvn install`), then every jar of the user's
# replaces the resolved jar of the same artifactId in CACHE_DIR/lib (jars of artifacts Maven did
# not resolve are added). CACHE_DIR/local-jars lists what was replaced and added.
# The build output and the dependency jars go to the cache dirs only (never into this folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=java-common/batch.sh
. "$here/java-common/batch.sh"

# connector_version PATH: debezium-connector-mysql's version in the user's build (batch.sh's
# local_library: its pom.properties, else the jar's name)
connector_version() {
    local lib
    lib=$(local_library "$1" debezium-connector-mysql) || exit 1
    echo "${lib#* }"
}

# maven_version VERSION: the Debezium version Maven builds against (batch.sh asks it too)
maven_version() {
    case $1 in
        file:*) connector_version "$(local_path "$1")" ;;
        *) echo "${1%%+*}" ;;
    esac
}

# line VERSION: 1 or 2 (pom.xml's profiles), or exit 4 for a release the adapter cannot drive
line_of() {
    local v=$1 major minor rest
    major=${v%%.*}
    rest=${v#*.}
    minor=${rest%%.*}
    if ! [[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]]; then
        echo 2   # not a Debezium version: Maven's answer (not served) says so
        return
    fi
    if [ "$major" -lt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -lt 2 ]; }; then
        echo "setup: unsupported: debezium $v: the adapter runs DebeziumEngine with ChangeEvent and format.Json, new in 1.2.0.Alpha1 (debezium-api at v1.1.x has only ChangeEventFormat)" >&2
        exit 4
    fi
    if [ "$major" -lt 2 ] || [[ $v =~ ^2\.0\.0\.Alpha ]]; then
        echo 1
    else
        echo 2
    fi
}

module_props() { # dbz.line 1 = no debezium-storage-file, 2 = with it (pom.xml's profiles)
    local v line
    v=$(maven_version "$1")
    line=$(line_of "$v")
    # a local build too is built at its own version exactly, not at a Maven range "(,V]": Maven
    # reads the descriptor of every Debezium version a range holds, and some released POMs have
    # parents Central lacks (io.debezium:debezium-storage:pom:3.4.3.Final for debezium-storage-file,
    # debezium-parent:pom:3.6.0.Beta2), which fails the whole resolution
    echo "dbz.version=$v dbz.line=$line"
}

finish() {
    local v dir=$2 path
    v=$(maven_version "$1")
    # one slf4j binding: 1.2-1.4 bring slf4j-log4j12 (configured by the adapter's log4j.properties)
    if ls "$dir/lib"/slf4j-log4j12-*.jar >/dev/null 2>&1; then rm -f "$dir/lib"/slf4j-simple-*.jar; fi
    path=$(local_path "$1")
    if [ -n "$path" ]; then
        # the user's jars over the resolved ones (same artifactId), local-version, artifact
        local_install "$dir" "$path" io.debezium debezium-connector-mysql "$v"
    else
        record_artifact "$dir" io.debezium debezium-connector-mysql "$v"
    fi
}

dep_args=(-DincludeScope=runtime)
# every version's line is checked first: an unsupported one fails alone, before Maven runs
args=("$@")
for ((k = 0; k + 1 < ${#args[@]}; k += 2)); do
    module_props "${args[$k]}" >/dev/null
done
java_batch "$@"
