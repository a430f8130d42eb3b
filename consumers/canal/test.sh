#!/usr/bin/env bash
# CTest consumers_canal: every pinned Canal version must give the verdict its manifest records, in
# session mode (one JVM, a fresh MysqlEventParser per cell) and one-shot, over the scenarios given
# (default: crud-basic, all-types, rotation), both modes (tests/lib/family_test.sh). Prints
# "N passed, N failed" by cell; exit 0 only when every cell met its expectation.
#
#   consumers/canal/test.sh CDCHARNESS_BIN [SCENARIO...]
set -u
bin=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/lib/family_test.sh"
scen=("$@")
[ ${#scen[@]} -gt 0 ] || scen=("$root/scenarios/crud-basic.yaml" "$root/scenarios/all-types.yaml"
                               "$root/scenarios/rotation.yaml")
family_test "$here" "$bin" "${scen[@]}"
