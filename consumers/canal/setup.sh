#!/usr/bin/env bash
# Builds the Canal adapter (src/main/java/cdch/Main.java) against pinned
# com.alibaba.otter:canal.parse releases from Maven Central, into the cache dirs:
#   setup.sh VERSION CACHE_DIR [VERSION CACHE_DIR]...
# (several pairs: one Maven run for all, java-common/batch.sh; manifest `setup_batch: true`).
# The build output and the dependency jars go to the cache dirs only (never into this folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=java-common/batch.sh
. "$here/java-common/batch.sh"

module_props() { echo "canal.version=$1"; }
finish() {
    local v=$1 dir=$2
    ls "$dir/lib"/canal.parse.dbsync-"$v".jar "$dir/lib"/canal.parse.driver-"$v".jar >/dev/null
    record_artifact "$dir" com.alibaba.otter canal.parse "$v"
}
dep_args=(-DincludeScope=runtime)
java_batch "$@"
