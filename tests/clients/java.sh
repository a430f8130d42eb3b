#!/usr/bin/env bash
# MySQL Connector/J (Maven Central com.mysql:mysql-connector-j, pinned in
# tests/clients/java/pom.xml; the JDBC driver of Debezium and Maxwell) against
# `cdcharness serve`: both password plugins with and without TLS, the
# driver's own session probe, Debezium's and Maxwell's queries, a server-side
# prepared statement, KILL, a wrong password, an unknown statement.
#
#   tests/clients/java.sh CDCHARNESS_BIN [WORKDIR]
#
# Builds with `mvn -q` into WORKDIR/java (default WORKDIR: <dir of
# CDCHARNESS_BIN>/clients, i.e. under build/); prints "N passed, N failed".
set -u
BIN=${1:?usage: java.sh CDCHARNESS_BIN [WORKDIR]}
WORK=${2:-$(dirname "$BIN")/clients}
mkdir -p "$WORK"
. "$(dirname "$0")/serve_lib.sh"

for tool in java mvn; do
    command -v $tool >/dev/null || {
        echo "java.sh: $tool is needed (Java 17 and Maven)"
        echo "0 passed, 1 failed"
        exit 1
    }
done
out=$WORK/java
if ! mvn -q -B -f "$HERE/java/pom.xml" -Dcdch.build.dir="$out" compile \
        dependency:build-classpath -Dmdep.outputFile="$out/classpath.txt" >"$WORK/java-build.log" 2>&1; then
    cat "$WORK/java-build.log"
    echo "java.sh: mvn build of $HERE/java failed (log above)"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "Connector/J $(sed -n 's:.*<version>\(9[^<]*\)</version>.*:\1:p' "$HERE/java/pom.xml"), $(java -version 2>&1 | head -1)"

serve_start sha2 || exit 1
serve_start native --auth mysql_native_password || exit 1
java -cp "$out/classes:$(cat "$out/classpath.txt")" Check "$sha2_PORT" "$native_PORT" >"$WORK/java.out" 2>&1
count_client_lines "$WORK/java.out"
check_auth_paths connector-j
summary
