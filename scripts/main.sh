#!/usr/bin/env bash
# The main job on the bundled default, on a fresh machine: install what is
# needed, build, then for every scenario of the default set generate the
# compressed and the uncompressed stream and run the reference consumer
# (cdcharness's own decoder) over it, diffing what it emits against the
# expected change events. Prints one line per (scenario, mode).
#
#   scripts/main.sh [SCENARIO.yaml ...]     default: scenarios/*.yaml
#   OUT=dir scripts/main.sh                 keep the streams in dir (default: a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target cdcharness >/dev/null
bin=build/cdcharness

if [ $# -eq 0 ]; then set -- scenarios/*.yaml; fi
out=${OUT:-$(mktemp -d)}
keep=${OUT:+1}
trap '[ -n "$keep" ] || rm -rf "$out"' EXIT

printf '%-28s %-13s %6s %10s %8s %8s %s\n' scenario mode files bytes trx rows verdict
fail=0
for sc in "$@"; do
  name=$(basename "$sc" .yaml)
  dir=$out/$name
  rm -rf "$dir"
  if ! "$bin" gen "$sc" --mode both --out "$dir" --quiet 2>"$out/$name.err"; then
    printf '%-28s %-13s %s\n' "$name" "-" "harness-error: $(head -c 300 "$out/$name.err")"
    fail=1
    continue
  fi
  for mode in uncompressed compressed; do
    s=$dir/$mode
    mapfile -t files < <(sed 's|^\./||' "$s"/*.index)
    paths=()
    for f in "${files[@]}"; do paths+=("$s/$f"); done
    if "$bin" decode --canonical --scenario "$sc" "${paths[@]}" >"$s/observed.jsonl" 2>"$s/decode.err" &&
       cmp -s "$s/observed.jsonl" "$s/expected.jsonl"; then
      verdict=pass
    else
      verdict="FAIL (see $s)"; fail=1; keep=1
    fi
    read -r nfiles bytes trx rows < <(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stats"]; print(s["files"], s["bytes"], s["transactions"], s["row_changes"])' "$s/stream.json")
    printf '%-28s %-13s %6s %10s %8s %8s %s\n' "$name" "$mode" "$nfiles" "$bytes" "$trx" "$rows" "$verdict"
  done
done
exit $fail
