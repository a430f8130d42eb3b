#!/usr/bin/env bash
# Builds the adapter (src/main/java/cdch/Main.java) against one pinned Debezium release from Maven
# Central (io.debezium:debezium-api, debezium-embedded, debezium-connector-mysql and, from 2.0 on,
# debezium-storage-file), into the cache dir:
#   setup.sh VERSION CACHE_DIR
# VERSION is "<Debezium version>[+variant]": a variant (manifest.yaml, e.g. "+retry") is a setting
# the adapter reads from CDCH_VERSION at run time, built against the same release.
# The build output and the dependency jars go to CACHE_DIR only (never into this folder).
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
version=${version%%+*}
mvn="$(cd "$(dirname "$0")" && pwd)/java-common/mvn.sh"  # Maven 3.9.9 from Maven Central, else the machine's
command -v java >/dev/null || { echo "setup.sh: java is needed" >&2; exit 1; }
major=${version%%.*}
line=2
[ "$major" -lt 2 ] && line=1
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
rm -rf "$cache/lib"
"$mvn" -q -B -f "$here/pom.xml" -Ddbz.version="$version" -Ddbz.line="$line" -Dcdch.out="$cache" \
    package dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$cache/lib" >&2
# one slf4j binding: 1.2-1.4 bring slf4j-log4j12 (configured by the adapter's log4j.properties)
if ls "$cache/lib"/slf4j-log4j12-*.jar >/dev/null 2>&1; then rm -f "$cache/lib"/slf4j-simple-*.jar; fi
cp "$cache/target/adapter.jar" "$cache/adapter.jar"
rm -rf "$cache/target"
ls "$cache/lib"/debezium-connector-mysql-"$version".jar >/dev/null
echo "io.debezium:debezium-connector-mysql:$version" > "$cache/artifact"
echo "setup.sh: adapter built against io.debezium:debezium-connector-mysql:$version in $cache" >&2
