#!/usr/bin/env bash
# The soak matrix (ci/soak.yaml) stays out of the default one: it plans exactly its three cells (its
# scenario ci/soak/payload-over-2gib.yaml and the manifest load), and no `named_only` version of any
# manifest is planned by ci/matrix.yaml. Plans only (--list): nothing is generated or installed.
#
#   tests/soak_plan.sh CDCHARNESS_BIN SOURCE_DIR
set -u
bin=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" matrix "$src/ci/soak.yaml" --list >"$work/soak.txt" 2>"$work/soak.err" || { cat "$work/soak.err"; fail "soak --list"; }
cut -f2- "$work/soak.txt" >"$work/soak.cells"
printf '%s\t%s\t%s\n' \
  mysql-binlog-connector-java@0.40.3+unwrap payload-over-2gib compressed \
  mysql-binlog-connector-java@0.40.4+unwrap payload-over-2gib compressed \
  debezium@3.6.1.Final payload-over-2gib compressed >"$work/want"
diff "$work/want" "$work/soak.cells" || fail "ci/soak.yaml plans other cells"
"$bin" matrix "$src/ci/matrix.yaml" --list >"$work/default.txt" 2>"$work/default.err" ||
  { cat "$work/default.err"; fail "default --list"; }
python3 - "$src" "$work/default.txt" <<'PY' || exit 1
import glob, os, sys, yaml
src, listing = sys.argv[1], sys.argv[2]
planned = {line.split("\t")[1] for line in open(listing) if "\t" in line}
named = []
for m in glob.glob(os.path.join(src, "consumers", "*", "manifest.yaml")):
    doc = yaml.safe_load(open(m))
    for v in doc.get("versions") or []:
        if isinstance(v, dict) and v.get("named_only"):
            named.append(f"{doc['family']}@{v['version']}")
if not named:
    sys.exit("FAIL: no named_only version in the manifests (the soak pins are gone?)")
leaked = [n for n in named if n in planned]
if leaked:
    sys.exit(f"FAIL: the default matrix plans named_only versions: {', '.join(leaked)}")
print(f"ok: {len(named)} named_only version(s) outside the default matrix ({len(planned)} consumer versions in it)")
PY
echo "== soak plan ok"
