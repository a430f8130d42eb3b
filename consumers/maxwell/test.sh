#!/usr/bin/env bash
# CTest consumers_maxwell: every pinned Maxwell version must give the verdict its manifest records,
# in session mode (one JVM + one MariaDB for all cells) and one-shot, over scenarios/crud-basic.yaml
# and probe/crud-no-ddl.yaml, both modes (tests/lib/family_test.sh). Prints "N passed, N failed"
# by cell; exit 0 only when every cell met its expectation.
#
#   consumers/maxwell/test.sh CDCHARNESS_BIN [SCENARIO...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/family_test.sh"
default_scenarios=("$repo/scenarios/crud-basic.yaml" "$here/probe/crud-no-ddl.yaml")
# No tolerance for timing: the adapter reports Maxwell's fatal error as soon as Maxwell records it
# (before its shutdown can stall in BinaryLogClient.disconnect), so the verdict is the manifest's;
# a parse-failure must be Maxwell's own (its DDL parser), not a failed adapter or state store.
PARSE_FAILURE_CAUSE=MaxwellSQLSyntaxError family_test "$here" "$@"
