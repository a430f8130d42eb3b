#!/usr/bin/env bash
# `cmake --install`: the installed tree (DESTDIR + prefix) holds the binary, the default matrix, the
# scenario library, the consumer adapters and the docs; the installed binary, run from an unrelated
# directory, finds its data next to itself (no source tree, no CDCH_HOME), plans the default matrix's
# quick subset, runs a cell of the reference consumer, and `--version` names the project version.
#
#   tests/install.sh BUILD_DIR PROJECT_VERSION
set -euo pipefail
build=$1
version=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

DESTDIR=$work/stage cmake --install "$build" --prefix /opt/cdch >"$work/install.log" ||
  { cat "$work/install.log"; fail "cmake --install failed"; }
root=$work/stage/opt/cdch
for f in bin/cdcharness share/cdcharness/ci/matrix.yaml share/cdcharness/scenarios/crud-basic.yaml \
         share/cdcharness/consumers/README.md share/cdcharness/consumers/cdcharness-ref/manifest.yaml \
         share/doc/cdcharness/README.md share/doc/cdcharness/consumers.md share/doc/cdcharness/reports/default/verdicts.json; do
  [ -e "$root/$f" ] || fail "not installed: $f"
done
[ -x "$root/bin/cdcharness" ] || fail "bin/cdcharness is not executable"

# move the prefix: the binary must find its data next to itself, not in the source tree
mv "$work/stage/opt/cdch" "$work/moved"
root=$work/moved
mkdir "$work/elsewhere"
cd "$work/elsewhere"
unset CDCH_HOME
[ "$("$root/bin/cdcharness" --version)" = "cdcharness $version" ] || fail "--version: $("$root/bin/cdcharness" --version)"

"$root/bin/cdcharness" matrix --quick --list >"$work/list.txt" 2>&1 || { cat "$work/list.txt"; fail "matrix --quick --list from an unrelated directory"; }
grep -q 'cdcharness-ref@builtin.*crud-basic.*compressed' "$work/list.txt" || { cat "$work/list.txt"; fail "the quick plan lacks the reference cell"; }
# a scenario only the installed tree has: the full plan must name it
cp "$root/share/cdcharness/scenarios/crud-basic.yaml" "$root/share/cdcharness/scenarios/zz-installed-only.yaml"
"$root/bin/cdcharness" matrix --list >"$work/full.txt" 2>&1 || { cat "$work/full.txt"; fail "matrix --list"; }
grep -q 'cdcharness-ref@builtin.zz-installed-only.compressed' "$work/full.txt" ||
  fail "the installed binary did not plan the installed scenario library"

CDCH_CACHE=$work/cache "$root/bin/cdcharness" run --consumer cdcharness-ref \
  --scenario "$root/share/cdcharness/scenarios/crud-basic.yaml" --quiet --report-dir "$work/r" >"$work/run.txt" 2>&1 ||
  { cat "$work/run.txt"; fail "run of the reference consumer from the installed tree"; }
python3 - "$work/r/report.json" <<'PY' || fail "the installed run's report"
import json, sys
r = json.load(open(sys.argv[1]))
v = sorted((c["mode"], c["verdict"]) for c in r["cells"])
assert v == [("compressed", "pass"), ("uncompressed", "pass")], v
PY
echo "install: all checks passed"
