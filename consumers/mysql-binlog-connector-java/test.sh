#!/usr/bin/env bash
# CTest consumers_mbcj: every pinned mysql-binlog-connector-java version must give the verdict its
# manifest records on crud-basic, both modes (tests/consumers_manifest.sh); then what a user runs
# (issue 25, tests/lib/java_user.sh):
#   * unpinned versions Maven Central serves: io.debezium 0.40.2 (plain and +unwrap) and com.zendesk
#     0.29.2+unwrap, their expectations predicted from the known issues' ranges;
#   * a configuration (tests/data/mbcj-user.properties: millisecond temporals, integers as bytes,
#     client timers; hostname and password kept): crud-basic passes in both modes, the config line
#     (report.json config_effective) holds the user's values, the kept keys, the password masked;
#     all-types uncompressed gives the milliseconds' mismatch, not another;
#   * a setting the adapter cannot honour: harness-error naming it;
#   * session mode, a consumer that dies on a type-40 event: 0.21.0 and 0.23.2 on many-tables
#     compressed (two cells in one session each) end at the first failure, as the one-shot process
#     exits there: parse-failure, ended with status 1 at once, one error line (before, the cell
#     waited for the desynchronised client to disconnect: 46-68 s of keep-alive reconnections,
#     more error lines, judged announced-skip);
#   * a local build (a folder holding the registry's 0.40.2 jar, +unwrap) passes, and setup.sh says
#     "not served" (exit 3) for 0.40.0, "unsupported" (exit 4) for 0.13.0.
# Prints "N passed, N failed"; exit 0 only when every check held.
#
#   consumers/mysql-binlog-connector-java/test.sh CDCHARNESS_BIN
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
"$repo/tests/consumers_manifest.sh" "$1" mysql-binlog-connector-java "$repo/scenarios/crud-basic.yaml"
rc=$?

user_bin=$1 user_family=mysql-binlog-connector-java user_dir=$here
. "$repo/tests/lib/java_user.sh"
crud=$repo/scenarios/crud-basic.yaml
f=mysql-binlog-connector-java

user_run unpinned --consumer $f@0.40.2 --consumer $f@0.40.2+unwrap --consumer $f@0.29.2+unwrap \
    --scenario "$crud" --expect manifest -j 2
user_check unpinned "0.40.2, 0.40.2+unwrap, 0.29.2+unwrap: 6 cells, each as predicted" \
    'len(cells) == 6 and all(c["meets"] and c["expect_source"] != "manifest" for c in cells)'
user_check unpinned "0.40.2 compressed is the plain listener's silent-skip (payload-wrapper-only)" \
    'cell("'$f'@0.40.2", "crud-basic", "compressed")["verdict"] == "silent-skip"'

user_run config --consumer $f@0.41.0+unwrap --consumer-config $f="$repo/tests/data/mbcj-user.properties" \
    --scenario "$crud" --mode both -j 2
user_check config "crud-basic passes in both modes with the user's modes" \
    'len(cells) == 2 and all(c["verdict"] == "pass" for c in cells)'
user_check config "config line: the user's modes and timers, the harness's host, password masked" \
    'all(effective(c).get("compatibilityMode") == "DATE_AND_TIME_AS_LONG,CHAR_AND_BINARY_AS_BYTE_ARRAY,INTEGER_AS_BYTE_ARRAY"
         and effective(c).get("keepAliveInterval") == "10000" and effective(c).get("heartbeatInterval") == "2000"
         and effective(c).get("connectTimeout") == "30000" and effective(c).get("hostname") == "127.0.0.1"
         and effective(c).get("password") == "***" and set(kept(c)) == {"hostname", "password"} for c in cells)'
user_run config-types --consumer $f@0.41.0+unwrap --consumer-config $f="$repo/tests/data/mbcj-user.properties" \
    --scenario "$repo/scenarios/all-types.yaml" --mode uncompressed
user_check config-types "all-types in milliseconds: fractions past 3 digits cut, integers right" \
    'all(c["verdict"] == "mismatch" and "after.dt4" in text(c) and "1000-01-06 00:00:00.0000" in text(c) for c in cells)'

printf 'compatibilityMode=DATE_AND_TIME_AS_LONG_MICRO\nnoSuchOption=1\n' >"$user_work/bad.properties"
user_run config-error --consumer $f@0.41.0 --consumer-config $f="$user_work/bad.properties" \
    --scenario "$crud" --mode uncompressed
user_check config-error "an unknown option is a harness-error naming it" \
    'cells[0]["verdict"] == "harness-error" and "noSuchOption=1" in text(cells[0])'

mt=$repo/scenarios/many-tables.yaml
user_run session-dies --consumer $f@0.21.0 --consumer $f@0.23.2 --scenario "$mt" --scenario "$mt" \
    --mode compressed --expect manifest -j 1
# the CPU bound on the warm cells only: a launched cell's CPU includes the JVM's start-up (load-dependent)
user_check session-dies "a consumer that dies on type 40 ends its session cell at once: parse-failure, exit 1, one error" \
    'len(cells) == 4 and all(c["verdict"] == "parse-failure" and c["stop"] == "exited" and c["exit_status"] == 1
         and c["warnings"] == [] and (c["launched"] or c["cpu_seconds"] < 3) for c in cells)'

mkdir -p "$user_work/local/target"
cp "$(ls "${CDCH_CACHE:-$HOME/.cache/cdcharness}"/$f/0.40.2/lib/mysql-binlog-connector-java-0.40.2.jar)" "$user_work/local/target/"
user_run local --consumer "$f@file:$user_work/local+unwrap" --scenario "$crud" --mode both -j 2
user_check local "a local build (folder of jars) runs: pass in both modes" \
    'len(cells) == 2 and all(c["verdict"] == "pass" for c in cells)'

user_setup_rc 0.40.0 3 "setup: not served: "
user_setup_rc 0.13.0 4 "setup: unsupported: mysql-binlog-connector-java 0.13.0"
user_summary || rc=1
exit $rc
