#!/usr/bin/env bash
# Builds the adapter (src/main/java/cdch/Main.java) against mysql-binlog-connector-java artifacts
# from Maven Central, into the cache dirs:
#   setup.sh VERSION CACHE_DIR [VERSION CACHE_DIR]...
# (several pairs: one Maven run for all, java-common/batch.sh; manifest `setup_batch: true`).
# VERSION is "[GROUP:]<connector version>[+variant]", pinned or not (any version Maven Central
# serves: `--consumer mysql-binlog-connector-java@0.40.2`); without GROUP the group id is picked
# from the version:
#   0.21.0 and older        com.github.shyiko
#   0.22 .. 0.30.x           com.zendesk
#   0.31.0, 0.40+ (Debezium) io.debezium
# and "GROUP:" names it (`@com.zendesk:0.30.3`, for a version served under another group than the
# rule says). A version Maven does not serve: exit 3, "setup: not served: <Maven's words>".
# VERSION "file:/PATH[+variant]": a local build (one jar, or a folder holding it) of the library:
# its jars replace the registry's, the other dependencies are those of the newest release Maven
# serves at or below its version (java-common/batch.sh "Local builds").
# The build output and the dependency jars go to the cache dirs only (never into this folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=java-common/batch.sh
. "$here/java-common/batch.sh"
artifact=mysql-binlog-connector-java

group_of() {
    local major minor patch
    IFS=. read -r major minor patch <<<"$1"
    if [ "$major" = 0 ] && [ "$minor" -le 21 ]; then echo com.github.shyiko
    elif [ "$major" = 0 ] && [ "$minor" -le 30 ]; then echo com.zendesk
    else echo io.debezium
    fi
}
# gv VERSION: "GROUP VERSION" of the library VERSION names (a +variant and a local path resolved)
gv() {
    local v=${1%%+*} path lib g lv
    path=$(local_path "$1")
    if [ -n "$path" ]; then
        lib=$(local_library "$path" "$artifact") || exit 1
        g=${lib%% *} lv=${lib#* }
        [ "$g" != - ] || g=$(group_of "$lv")
        echo "$g $lv"
    elif [[ $v == *:* ]]; then
        echo "${v%%:*} ${v#*:}"
    else
        echo "$(group_of "$v") $v"
    fi
}
# the adapter reads TABLE_MAP's optional metadata (signedness, charsets) through
# TableMapEventMetadata, first in 0.19.0 (com.github.shyiko, commit 78eaa58)
supported() {
    local major minor rest
    IFS=. read -r major minor rest <<<"$2"
    if [ "$major" = 0 ] && [ "${minor:-0}" -lt 19 ] 2>/dev/null; then
        echo "setup: unsupported: mysql-binlog-connector-java $1: the adapter reads TABLE_MAP metadata through TableMapEventMetadata, first in 0.19.0" >&2
        exit 4
    fi
}
module_props() {
    local l
    l=$(gv "$1") || exit 1
    supported "$1" "${l#* }"
    if [ -n "$(local_path "$1")" ]; then
        echo "mbcj.group=${l% *} mbcj.version=(,${l#* }]"
    else
        echo "mbcj.group=${l% *} mbcj.version=${l#* }"
    fi
}
maven_version() {
    local l
    l=$(gv "$1") || exit 1
    echo "${l#* }"
}
finish() {
    local l dir=$2 path
    l=$(gv "$1") || exit 1
    path=$(local_path "$1")
    if [ -n "$path" ]; then
        local_install "$dir" "$path" "${l% *}" "$artifact" "${l#* }"
    else
        record_artifact "$dir" "${l% *}" "$artifact" "${l#* }"
    fi
}
dep_args=()
java_batch "$@"
