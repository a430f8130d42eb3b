#!/usr/bin/env bash
# Hashes of what the codec and the stream writer produce, for refactors that must not change them:
# `gen --mode both` and `--mode flip` of every library scenario, and `decode` (text,
# --json, --canonical, --json --hexdump) of every real binlog fixture. Run it with the binary before
# and after a change and diff the two files: they must be identical.
#
#   scripts/output_hashes.sh CDCHARNESS OUT_FILE [FIXTURES_DIR]
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
cd "$(dirname "$0")/.."
fixtures=${3:-${CDCH_FIXTURES:-../shared/fixtures/mysql-binlog}}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
: >"$out"
for s in scenarios/*.yaml; do
  n=$(basename "$s" .yaml)
  for m in both flip; do
    rm -rf "$t/g"
    "$bin" gen "$s" --out "$t/g" --mode "$m" --quiet >/dev/null 2>&1
    echo "gen $n $m rc=$?" >>"$out"
    [ -d "$t/g" ] && (cd "$t/g" && find . -type f | sort | xargs sha256sum) >>"$out"
  done
done
for f in "$fixtures"/*; do
  for o in "" --json --canonical "--json --hexdump"; do
    # shellcheck disable=SC2086
    echo "decode $(basename "$f") $o: $("$bin" decode $o "$f" 2>&1 | sed "s|$fixtures/||g" | sha256sum | cut -c1-16)" >>"$out"
  done
done
echo "$(grep -c . "$out") lines in $out"
