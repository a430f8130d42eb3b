#!/usr/bin/env bash
# mvn.sh — the Maven the Java adapters' setups run (debezium, mysql-binlog-connector-java, canal,
# maxwell: `java-common/mvn.sh ARGS...` in place of `mvn ARGS...`).
#
# It runs Apache Maven 3.9.9, fetched once from Maven Central (the Java families' own registry) into
# the harness cache's _tools/ folder and checked against the SHA-512 below, with two settings of its
# resolver (Maven Resolver 1.9):
#   aether.dependencyCollector.impl=bf   the breadth-first collector, which fetches the POMs of a
#                                        dependency tree in parallel (MRESOLVER-7); Maven 3.8 fetches
#                                        them one at a time, and a cold setup is bound by that latency
#   aether.syncContext.named.factory=file-lock (+ nameMapper file-gav)
#                                        locks per artifact in the local repository, so two setups may
#                                        share one local repository at the same time
# When Maven 3.9.9 cannot be fetched (no route to Maven Central, a checksum mismatch) the machine's
# own `mvn` runs instead, with a warning, and one at a time (a lock file in _tools/): Maven 3.8's
# local repository is not safe for two processes (MNG-2802). Set CDCH_MAVEN=system to use the
# machine's `mvn` always, CDCH_MAVEN_CENTRAL to fetch from a mirror of Maven Central.
#
# The cache root is $CDCH_CACHE_ROOT (the harness sets it for a setup), else ~/.cache/cdcharness as the
# harness's default. Exit status: Maven's, or 1 when no Maven can run.
set -euo pipefail
MAVEN_VERSION=3.9.9
MAVEN_SHA512=a555254d6b53d267965a3404ecb14e53c3827c09c3b94b5678835887ab404556bfaf78dcfe03ba76fa2508649dca8531c74bca4d5846513522404d48e8c4ac8b
root=${CDCH_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/cdcharness}
tools=$root/_tools
home=$tools/apache-maven-$MAVEN_VERSION
mkdir -p "$tools"

fetch_maven() {
    local base=${CDCH_MAVEN_CENTRAL:-https://repo.maven.apache.org/maven2}
    local url=$base/org/apache/maven/apache-maven/$MAVEN_VERSION/apache-maven-$MAVEN_VERSION-bin.tar.gz
    local tmp
    tmp=$(mktemp -d "$tools/.maven-XXXXXX") || return 1
    if ! curl -fsS --retry 2 --connect-timeout 20 -o "$tmp/maven.tar.gz" "$url"; then
        echo "mvn.sh: cannot fetch $url" >&2
        rm -rf "$tmp"
        return 1
    fi
    local got
    got=$(sha512sum "$tmp/maven.tar.gz" | cut -d' ' -f1)
    if [ "$got" != "$MAVEN_SHA512" ]; then
        echo "mvn.sh: $url has SHA-512 $got, expected $MAVEN_SHA512: not used" >&2
        rm -rf "$tmp"
        return 1
    fi
    tar -xzf "$tmp/maven.tar.gz" -C "$tmp" && mv "$tmp/apache-maven-$MAVEN_VERSION" "$home"
    local rc=$?
    rm -rf "$tmp"
    return $rc
}

if [ "${CDCH_MAVEN:-}" != system ] && [ ! -x "$home/bin/mvn" ]; then
    # one fetch for concurrent setups: the others wait for it
    # a failed fetch is not tried again for 10 minutes (the other setups of a run go straight to the fallback)
    exec 8>"$tools/.maven-fetch.lock"
    flock 8
    failed=$tools/.maven-fetch-failed
    if [ ! -x "$home/bin/mvn" ] && [ -z "$(find "$failed" -newermt '-10 minutes' 2>/dev/null)" ]; then
        fetch_maven && rm -f "$failed" || touch "$failed"
    fi
    flock -u 8
    exec 8>&-
fi

if [ "${CDCH_MAVEN:-}" != system ] && [ -x "$home/bin/mvn" ]; then
    exec "$home/bin/mvn" -Daether.dependencyCollector.impl=bf \
        -Daether.syncContext.named.factory=file-lock -Daether.syncContext.named.nameMapper=file-gav "$@"
fi

command -v mvn >/dev/null || { echo "mvn.sh: neither Maven $MAVEN_VERSION (see above) nor a mvn on PATH" >&2; exit 1; }
[ "${CDCH_MAVEN:-}" = system ] ||
    echo "mvn.sh: warning: Maven $MAVEN_VERSION unavailable; using $(command -v mvn), one setup at a time" >&2
exec 9>"$tools/.system-maven.lock"
flock 9
mvn "$@"
