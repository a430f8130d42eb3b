#!/usr/bin/env bash
# Builds the Canal adapter (src/main/java/cdch/Main.java) against com.alibaba.otter:canal.parse
# releases from Maven Central, into the cache dirs:
#   setup.sh VERSION CACHE_DIR [VERSION CACHE_DIR]...
# (several pairs: one Maven run for all, java-common/batch.sh; manifest `setup_batch: true`).
# VERSION is any canal.parse version Maven Central serves, pinned or not (`--consumer
# canal@1.1.4`); one it does not serve: exit 3, "setup: not served: <Maven's words>"; one the
# adapter cannot drive (before 1.1.0: no EntryPosition GTID / tsdb switch): exit 4, "setup: unsupported".
# VERSION "file:/PATH[+variant]": a local build of Canal (its canal.parse / canal.parse.dbsync /
# canal.parse.driver jars, or a folder such as a deployer's lib/ holding them): its jars replace
# the registry's, the other dependencies are those of the newest canal.parse release Maven serves
# at or below its version (java-common/batch.sh "Local builds").
# The build output and the dependency jars go to the cache dirs only (never into this folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=java-common/batch.sh
. "$here/java-common/batch.sh"

# lv VERSION: the library version (a +variant stripped; a local build's from its jars)
lv() {
    local path lib
    path=$(local_path "$1")
    if [ -n "$path" ]; then
        lib=$(local_library "$path" canal.parse canal.parse.dbsync canal.parse.driver) || exit 1
        echo "${lib#* }"
    else
        echo "${1%%+*}"
    fi
}
module_props() {
    local v major minor rest
    v=$(lv "$1") || exit 1
    IFS=. read -r major minor rest <<<"$v"
    if [ "${major:-0}" = 1 ] && [ "${minor:-0}" -lt 1 ] 2>/dev/null || [ "${major:-0}" = 0 ] 2>/dev/null; then
        echo "setup: unsupported: canal $1: the adapter drives the canal.parse 1.1 API (MysqlEventParser with setEnableTsdb, EntryPosition GTIDs)" >&2
        exit 4
    fi
    if [ -n "$(local_path "$1")" ]; then
        echo "canal.version=(,$v]"
    else
        echo "canal.version=$v"
    fi
}
maven_version() { lv "$1"; }
finish() {
    local v dir=$2 path
    v=$(lv "$1") || exit 1
    path=$(local_path "$1")
    if [ -n "$path" ]; then
        local_install "$dir" "$path" com.alibaba.otter canal.parse "$v"
    else
        ls "$dir/lib"/canal.parse.dbsync-"$v".jar "$dir/lib"/canal.parse.driver-"$v".jar >/dev/null
        record_artifact "$dir" com.alibaba.otter canal.parse "$v"
    fi
}
dep_args=(-DincludeScope=runtime)
java_batch "$@"
