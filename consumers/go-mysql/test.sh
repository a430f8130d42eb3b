#!/usr/bin/env bash
# CTest consumers_go_mysql: every pinned go-mysql version/variant must give the verdict its manifest
# records over the scenarios given (default: crud-basic; all-types, where v1.15.0+parsetime shows
# #1147 compressed; start-by-gtid-set, where v1.15.0+canal's GTID set does not advance inside
# payloads, #1153), both modes (tests/lib/family_test.sh). The manifest runs the adapters in
# session mode, so family_test's two passes are a session run and a one-shot run of every cell: a
# verdict that changed between them fails. Prints "N passed, N failed" by cell; exit 0 only when every cell met
# its expectation.
#
#   consumers/go-mysql/test.sh CDCHARNESS_BIN [SCENARIO...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/family_test.sh"
default_scenarios=("$repo/scenarios/crud-basic.yaml" "$repo/scenarios/all-types.yaml"
                   "$repo/scenarios/start-by-gtid-set.yaml")
family_test "$here" "$@"
