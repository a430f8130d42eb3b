#!/usr/bin/env bash
# CTest consumers_maxwell: every pinned Maxwell version must give the verdict its manifest records,
# in session mode (one JVM + one MariaDB for all cells) and one-shot, over scenarios/crud-basic.yaml
# and probe/crud-no-ddl.yaml, both modes (tests/lib/family_test.sh). The manifest starts 1.22.6
# attached to the existing schema (`start: attach`): uncompressed pass, compressed silent-skip
# (no-type-40-warn-desync). Then the same version with `--start empty` on crud-basic: Maxwell's own
# DDL parser must stop on MySQL 8's CREATE DATABASE in both modes (MaxwellSQLSyntaxError), which is
# what attaching avoids. Prints "N passed, N failed" by cell; exit 0 only when every cell met its
# expectation.
#
#   consumers/maxwell/test.sh CDCHARNESS_BIN [SCENARIO...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/family_test.sh"
default_scenarios=("$repo/scenarios/crud-basic.yaml" "$here/probe/crud-no-ddl.yaml")
family_test "$here" "$@"
rc=$?

# --start empty: the stream from its first event, CREATE DATABASE ... /*!80016 DEFAULT ENCRYPTION='N' */
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" run --consumer maxwell@1.22.6 --scenario "$repo/scenarios/crud-basic.yaml" --start empty \
       --expect parse-failure --report-dir "$work/empty" --quiet >"$work/empty.txt" 2>&1 || rc=1
cat "$work/empty.txt"
python3 - "$work/empty/report.json" <<'PY' || rc=1
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
bad = [c for c in cells if c["verdict"] != "parse-failure" or
       "MaxwellSQLSyntaxError" not in json.dumps([c.get("summary"), c.get("detail")])]
print("--start empty: %d cell(s), %d without Maxwell's own DDL parse failure" % (len(cells), len(bad)))
sys.exit(1 if bad or len(cells) != 2 else 0)
PY
exit $rc
