#!/usr/bin/env bash
# CTest consumers_canal: every pinned Canal version must give the verdict its manifest records, in
# session mode (one JVM, a fresh MysqlEventParser per cell) and one-shot, over the scenarios given
# (default: crud-basic, all-types, rotation), both modes (tests/lib/family_test.sh). Prints
# "N passed, N failed" by cell; exit 0 only when every cell met its expectation.
#
#   consumers/canal/test.sh CDCHARNESS_BIN [SCENARIO...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/family_test.sh"
default_scenarios=("$repo/scenarios/crud-basic.yaml" "$repo/scenarios/all-types.yaml" "$repo/scenarios/rotation.yaml")
family_test "$here" "$@"
