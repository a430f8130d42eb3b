#!/usr/bin/env bash
# Builds the adapter (src/main/java/cdch/*.java) against Flink CDC's MySQL source from Maven
# Central (flink-connector-mysql-cdc) and the Flink runtime that release was built for
# (flink-streaming-java, flink-clients, flink-connector-base), into the cache dirs:
#   setup.sh VERSION CACHE_DIR [VERSION CACHE_DIR]...
# (several pairs: one Maven run for all, java-common/batch.sh; manifest `setup_batch: true`).
# The Flink a release runs on (its pom.xml's flink.version, the newest patch Maven Central serves):
#   2.4.x   com.ververica, Flink 1.17 (release-2.4.2 pom.xml: flink.version 1.17.0) -> 1.17.2
#   3.0.x   com.ververica, Flink 1.18 (release-3.0.1 pom.xml: flink.version 1.18.0) -> 1.18.1
# Others: exit 4 (unsupported): releases before 2.4.0 (Flink 1.13-1.16) are not mapped to a Flink
# runtime here (not tried); from 3.1.0 on the artifact is org.apache.flink:flink-connector-mysql-cdc
# and its classes moved to org.apache.flink.cdc.* (Maven Central serves 3.1.1 here, 3.6.0 not): the
# adapter compiles against com.ververica's packages only.
# A version Maven Central does not serve: exit 3, "setup: not served: <Maven's error>".
# Flink CDC's jars (flink-connector-mysql-cdc, flink-connector-debezium) go to CACHE_DIR/first/:
# they hold Flink CDC's own copies of Debezium classes (io.debezium.connector.mysql.
# MySqlStreamingChangeEventSource, ...) that must shadow debezium-connector-mysql's, as they do in
# the connector's shaded SQL jar; the manifest's class path puts first/ before lib/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=java-common/batch.sh
. "$here/java-common/batch.sh"

flink_of() {
    case $1 in
        2.4.*) echo "com.ververica 1.17.2" ;;
        3.0.*) echo "com.ververica 1.18.1" ;;
        file:*)
            echo "setup: unsupported: flink-cdc $1: local builds are not supported by this family yet" >&2
            exit 4 ;;
        *)
            echo "setup: unsupported: flink-cdc $1: the adapter knows the Flink runtime of 2.4.x (1.17) and 3.0.x (1.18) only; releases before 2.4.0 are not mapped to a Flink runtime, and from 3.1.0 on the artifact is org.apache.flink's with classes in org.apache.flink.cdc.* (the adapter compiles against com.ververica.cdc.*)" >&2
            exit 4 ;;
    esac
}

module_props() {
    local l
    l=$(flink_of "$1")
    echo "cdc.group=${l% *} cdc.version=$1 flink.version=${l#* }"
}

finish() {
    local v=$1 dir=$2 l
    l=$(flink_of "$v")
    mkdir -p "$dir/first"
    mv "$dir/lib"/flink-connector-mysql-cdc-*.jar "$dir/lib"/flink-connector-debezium-*.jar "$dir/first/"
    ls "$dir/first/flink-connector-mysql-cdc-$v.jar" >/dev/null
    echo "${l% *}:flink-connector-mysql-cdc:$v" > "$dir/artifact"
    echo "setup.sh: adapter built against ${l% *}:flink-connector-mysql-cdc:$v on Flink ${l#* } in $dir" >&2
}

dep_args=(-DincludeScope=runtime)
args=("$@")
for ((k = 0; k + 1 < ${#args[@]}; k += 2)); do
    module_props "${args[$k]}" >/dev/null
done
java_batch "$@"
