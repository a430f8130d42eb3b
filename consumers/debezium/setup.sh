#!/usr/bin/env bash
# Builds the adapter (src/main/java/cdch/Main.java) against pinned Debezium releases from Maven
# Central (io.debezium:debezium-api, debezium-embedded, debezium-connector-mysql and, from 2.0 on,
# debezium-storage-file), into the cache dirs:
#   setup.sh VERSION CACHE_DIR [VERSION CACHE_DIR]...
# (several pairs: one Maven run for all, java-common/batch.sh; manifest `setup_batch: true`).
# VERSION is "<Debezium version>[+variant]": a variant (manifest.yaml, e.g. "+retry") is a setting
# the adapter reads from CDCH_VERSION at run time, built against the same release.
# The build output and the dependency jars go to the cache dirs only (never into this folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=java-common/batch.sh
. "$here/java-common/batch.sh"

module_props() { # 1 = 1.x, 2 = 2.x and newer (pom.xml's profiles)
    local v=${1%%+*} line=2
    [ "${v%%.*}" -lt 2 ] && line=1
    echo "dbz.version=$v dbz.line=$line"
}
finish() {
    local v=${1%%+*} dir=$2
    # one slf4j binding: 1.2-1.4 bring slf4j-log4j12 (configured by the adapter's log4j.properties)
    if ls "$dir/lib"/slf4j-log4j12-*.jar >/dev/null 2>&1; then rm -f "$dir/lib"/slf4j-simple-*.jar; fi
    record_artifact "$dir" io.debezium debezium-connector-mysql "$v"
}
dep_args=(-DincludeScope=runtime)
java_batch "$@"
