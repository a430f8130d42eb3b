# debezium_plugins.sh — sourced by tests/consumers_debezium.sh: two local builds of Debezium's MySQL
# connector for `--consumer debezium@file:PATH` (issue 25 "your own build"):
#
#   debezium_plugins LIB OUT
#
# LIB: the lib/ folder of an installed Debezium version (the harness cache's, 3.6.1.Final in the
# test). OUT/good/debezium-connector-mysql: a Kafka Connect plugin folder as
# debezium-connector-mysql-X-plugin.tar.gz unpacks, made of LIB's jars (the connector's runtime
# dependencies: debezium-*, but not embedded/storage, which a plugin lacks, the binlog client,
# Connector/J, ANTLR). OUT/faulty/debezium-connector-mysql: the same with a fault planted in the
# connector's payload handler: debezium-connector-binlog's BinlogStreamingChangeEventSource compiled
# from its own sources (the -sources jar from Maven Central, the connector's registry, fetched with
# java-common/mvn.sh) with handleTransactionPayload no longer handing the payload's events to
# handleEvent, so every row inside a TRANSACTION_PAYLOAD is dropped silently. The faulty jar is the
# released jar with that class (and its inner classes) replaced, so the fault is all that differs.
# Returns non-zero with a message when a step fails (e.g. the patch no longer applies).
debezium_plugins() {
    local lib=$1 out=$2 here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    local good=$out/good/debezium-connector-mysql bad=$out/faulty/debezium-connector-mysql
    mkdir -p "$good" "$bad" "$out/src" "$out/classes"
    local j n=0
    for j in "$lib"/*.jar; do
        case $(basename "$j") in
            debezium-embedded-* | debezium-storage-* | debezium-connect-plugins-*) ;;
            debezium-*.jar | antlr4-runtime-*.jar | mysql-binlog-connector-java-*.jar | mysql-connector-j-*.jar)
                cp "$j" "$good/"
                n=$((n + 1)) ;;
        esac
    done
    local binlog
    binlog=$(cd "$good" && ls debezium-connector-binlog-*.jar 2>/dev/null | head -1)
    [ -n "$binlog" ] || { echo "debezium_plugins: no debezium-connector-binlog jar in $lib (Debezium 2.7+ needed)"; return 1; }
    local ver=${binlog#debezium-connector-binlog-}
    ver=${ver%.jar}
    (cd "$out/src" && "$here/consumers/java-common/mvn.sh" -q -B \
        org.apache.maven.plugins:maven-dependency-plugin:3.7.0:copy \
        "-Dartifact=io.debezium:debezium-connector-binlog:$ver:jar:sources" "-DoutputDirectory=$out/src") ||
        { echo "debezium_plugins: cannot fetch debezium-connector-binlog $ver sources"; return 1; }
    local cls=io/debezium/connector/binlog/BinlogStreamingChangeEventSource
    (cd "$out/src" && python3 -m zipfile -e "debezium-connector-binlog-$ver-sources.jar" x >/dev/null) || return 1
    python3 - "$out/src/x/$cls.java" <<'PY' || return 1
import re, sys
p = sys.argv[1]
s = open(p).read()
# the loop of handleTransactionPayload: each uncompressed event -> handleEvent(...)
m = re.search(r"(protected void handleTransactionPayload\([^)]*\) \{.*?for \(Event uncompressedEvent : [^\n]*?\) \{)(\s*handleEvent\([^;]*;)", s, re.S)
if not m:
    sys.exit("debezium_plugins: handleTransactionPayload's loop not found: the fault no longer applies")
s = s[:m.start(2)] + "\n            // cdcharness test fault: the payload's events are dropped" + s[m.end(2):]
open(p, "w").write(s)
PY
    javac -nowarn --release 17 -proc:none -cp "$lib/*" -d "$out/classes" "$out/src/x/$cls.java" 2>"$out/javac.log" ||
        { echo "debezium_plugins: the patched class does not compile:"; tail -5 "$out/javac.log"; return 1; }
    cp "$good"/*.jar "$bad/"
    (cd "$out/classes" && jar uf "$bad/$binlog" "$cls".class "$cls"\$*.class) || return 1
    echo "debezium_plugins: $n jars in $good; $bad/$binlog with handleTransactionPayload dropping the payload's events"
}
