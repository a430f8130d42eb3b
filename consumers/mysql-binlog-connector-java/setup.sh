#!/usr/bin/env bash
# Builds the adapter (src/main/java/cdch/Main.java) against one pinned mysql-binlog-connector-java
# artifact from Maven Central, into the cache dir:
#   setup.sh VERSION CACHE_DIR
# VERSION is "<connector version>[+variant]"; the group id is picked from the version:
#   0.21.0 and older        com.github.shyiko
#   0.22 .. 0.30.x           com.zendesk
#   0.31.0, 0.40+ (Debezium) io.debezium
# The build output and the dependency jars go to CACHE_DIR only (never into this folder).
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
mvn="$(cd "$(dirname "$0")" && pwd)/java-common/mvn.sh"  # Maven 3.9.9 from Maven Central, else the machine's
command -v java >/dev/null || { echo "setup.sh: java is needed" >&2; exit 1; }
lib=${version%%+*}
IFS=. read -r major minor patch <<<"$lib"
if [ "$major" = 0 ] && [ "$minor" -le 21 ]; then group=com.github.shyiko
elif [ "$major" = 0 ] && [ "$minor" -le 30 ]; then group=com.zendesk
else group=io.debezium
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
"$mvn" -q -B -f "$here/pom.xml" -Dmbcj.group="$group" -Dmbcj.version="$lib" -Dcdch.out="$cache" \
    package dependency:copy-dependencies -DoutputDirectory="$cache/lib" >&2
cp "$cache/target/adapter.jar" "$cache/adapter.jar"
ls "$cache/lib"/mysql-binlog-connector-java-"$lib".jar >/dev/null
echo "$group:mysql-binlog-connector-java:$lib" > "$cache/artifact"
echo "setup.sh: adapter built against $group:mysql-binlog-connector-java:$lib in $cache" >&2
