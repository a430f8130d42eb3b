#!/usr/bin/env bash
# Builds the Canal adapter (src/main/java/cdch/Main.java) against one pinned
# com.alibaba.otter:canal.parse release from Maven Central, into the cache dir:
#   setup.sh VERSION CACHE_DIR
# The build output and the dependency jars go to CACHE_DIR only (never into this folder).
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
mvn="$(cd "$(dirname "$0")" && pwd)/java-common/mvn.sh"  # Maven 3.9.9 from Maven Central, else the machine's
command -v java >/dev/null || { echo "setup.sh: java is needed" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
"$mvn" -q -B -f "$here/pom.xml" -Dcanal.version="$version" -Dcdch.out="$cache" \
    package dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$cache/lib" >&2
cp "$cache/target/adapter.jar" "$cache/adapter.jar"
ls "$cache/lib"/canal.parse-"$version".jar "$cache/lib"/canal.parse.dbsync-"$version".jar \
   "$cache/lib"/canal.parse.driver-"$version".jar >/dev/null
echo "com.alibaba.otter:canal.parse:$version" > "$cache/artifact"
echo "setup.sh: adapter built against com.alibaba.otter:canal.parse:$version in $cache" >&2
