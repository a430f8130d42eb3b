#!/usr/bin/env bash
# Builds the adapter (src/main/java/cdch/Main.java) against pinned mysql-binlog-connector-java
# artifacts from Maven Central, into the cache dirs:
#   setup.sh VERSION CACHE_DIR [VERSION CACHE_DIR]...
# (several pairs: one Maven run for all, java-common/batch.sh; manifest `setup_batch: true`).
# VERSION is "<connector version>[+variant]"; the group id is picked from the version:
#   0.21.0 and older        com.github.shyiko
#   0.22 .. 0.30.x           com.zendesk
#   0.31.0, 0.40+ (Debezium) io.debezium
# The build output and the dependency jars go to the cache dirs only (never into this folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=java-common/batch.sh
. "$here/java-common/batch.sh"

group_of() {
    local major minor patch
    IFS=. read -r major minor patch <<<"$1"
    if [ "$major" = 0 ] && [ "$minor" -le 21 ]; then echo com.github.shyiko
    elif [ "$major" = 0 ] && [ "$minor" -le 30 ]; then echo com.zendesk
    else echo io.debezium
    fi
}
module_props() {
    local lib=${1%%+*}
    echo "mbcj.group=$(group_of "$lib") mbcj.version=$lib"
}
finish() {
    local lib=${1%%+*} dir=$2
    record_artifact "$dir" "$(group_of "$lib")" mysql-binlog-connector-java "$lib"
}
dep_args=()
java_batch "$@"
