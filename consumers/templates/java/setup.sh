#!/usr/bin/env bash
# Builds the adapter (src/main/java/cdch/Main.java) with Maven against one version of the library
# from Maven Central, into the cache dir:   setup.sh VERSION CACHE_DIR   (the harness appends both)
# java-common/batch.sh does the build (CACHE_DIR/adapter.jar, CACHE_DIR/lib/*.jar); a version Maven
# does not serve exits 3 ("setup: not served: ..."). Nothing is written into this folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=java-common/batch.sh
. "$here/java-common/batch.sh"
group=io.debezium artifact=mysql-binlog-connector-java   # CHANGE: your library (as in pom.xml)
module_props() { echo "lib.version=${1%%+*}"; }          # the pom.xml properties for VERSION
maven_version() { echo "${1%%+*}"; }
finish() { record_artifact "$2" "$group" "$artifact" "${1%%+*}"; }
dep_args=()
java_batch "$@"
