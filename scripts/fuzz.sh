#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan+UBSan) and run one or all of
# them for a bounded time, each from its committed seed corpus
# (fuzz/seeds/<target>/) plus what earlier runs found (BUILD/corpus/<target>/).
#
#   scripts/fuzz.sh [SECONDS] [TARGET|all]     default: 60 all
#
# TARGET is fuzz_decode, fuzz_server, fuzz_scenario, fuzz_events or
# fuzz_report (fuzz/README.md). With `all`, SECONDS is the whole budget,
# split evenly between the targets (at least 5 s each); with one target it
# is that target's time.
#
# Environment: FUZZ_BUILD     build directory (default build-fuzz/ in the repository)
#              CDCH_FIXTURES  fixture dir (default ../shared/fixtures/mysql-binlog
#                             relative to the repository): more fuzz_decode seeds
#              FUZZ_JOBS      parallel fuzzing jobs (default 1)
#              FUZZ_ARGS      extra libFuzzer arguments
# Exit status: 0 no crash, 1 a fuzzer found a crash/leak/timeout (the
# reproducer is left in BUILD/artifacts/), 2 usage or build failure.
set -euo pipefail

usage() { echo "usage: $0 [SECONDS] [fuzz_decode|fuzz_server|fuzz_scenario|fuzz_events|fuzz_report|fuzz_ddl|all]" >&2; exit 2; }
secs=${1:-60}
which=${2:-all}
case "$secs" in ''|*[!0-9]*) usage ;; esac
all_targets=(fuzz_decode fuzz_server fuzz_scenario fuzz_events fuzz_report fuzz_ddl)
if [ "$which" = all ]; then
  targets=("${all_targets[@]}")
  per=$((secs / ${#targets[@]}))
  [ "$per" -ge 5 ] || per=5
else
  case " ${all_targets[*]} " in *" $which "*) ;; *) usage ;; esac
  targets=("$which")
  per=$secs
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fixtures=${CDCH_FIXTURES:-$repo/../shared/fixtures/mysql-binlog}
build=${FUZZ_BUILD:-$repo/build-fuzz}
case "$build" in /*) ;; *) build=$repo/$build ;; esac
jobs=${FUZZ_JOBS:-1}

command -v clang >/dev/null || { echo "fuzz.sh: clang not found (run scripts/setup.sh)" >&2; exit 2; }

mkdir -p "$build"
# CDCH_SANITIZE instruments the libraries with ASan/UBSan too; CDCH_FUZZ
# builds everything with -fsanitize=fuzzer-no-link so libFuzzer gets coverage
# feedback from the whole harness, not just the target file.
cmake -S "$repo" -B "$build" -DCDCH_FUZZ=ON -DCDCH_SANITIZE=ON -DCMAKE_C_COMPILER=clang \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log" >&2; echo "fuzz.sh: configure failed" >&2; exit 2; }
cmake --build "$build" --target "${targets[@]}" -j"$(nproc 2>/dev/null || echo 2)" >"$build/build.log" 2>&1 \
  || { tail -40 "$build/build.log" >&2; echo "fuzz.sh: build failed (log: $build/build.log)" >&2; exit 2; }

artifacts=$build/artifacts
mkdir -p "$artifacts"

# fuzz_decode also starts from every fixture, and each binlog cut into
# single events (behind its FDE) so the mutator starts from small inputs.
decode_fixture_seeds() {
  local corpus=$1
  if [ ! -d "$fixtures" ]; then
    echo "fuzz.sh: warning: fixture dir $fixtures not found; fuzz_decode starts from its committed seeds only" >&2
    return 0
  fi
  for f in "$fixtures"/*; do
    [ -f "$f" ] || continue
    case "$f" in *.txt|*.md) continue ;; esac
    cp -f "$f" "$corpus/seed-$(basename "$f")"
  done
  python3 - "$fixtures" "$corpus" <<'PY'
import os, sys, struct
src, dst = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(src)):
    data = open(os.path.join(src, name), 'rb').read()
    if not data.startswith(b'\xfebin'):
        continue
    off, i, fde = 4, 0, None
    while off + 19 <= len(data):
        size = struct.unpack_from('<I', data, off + 9)[0]
        if size < 19 or off + size > len(data):
            break
        ev = data[off:off + size]
        if ev[4] == 15:
            fde = ev
        elif fde is not None:
            with open(os.path.join(dst, 'ev-%s-%04d' % (name, i)), 'wb') as f:
                f.write(b'\xfebin' + fde + ev)
        off += size
        i += 1
PY
}

# Per target: the largest input (scenario files run to 134 kB) and the
# per-input timeout (a fuzz_server session that hangs is a bug; its own
# drain gives up after 2 s).
max_len() { case "$1" in fuzz_scenario) echo 160000 ;; *) echo 65536 ;; esac; }

par=()
[ "$jobs" -gt 1 ] 2>/dev/null && par=(-jobs="$jobs" -workers="$jobs")
failed=()
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  mkdir -p "$corpus"
  [ "$t" = fuzz_decode ] && decode_fixture_seeds "$corpus"
  seeds=$repo/fuzz/seeds/$t
  [ -d "$seeds" ] || { echo "fuzz.sh: $seeds is missing (committed seed corpus)" >&2; exit 2; }
  echo "fuzz.sh: running $t for ${per}s (corpus $corpus, seeds $seeds)"
  set +e
  # shellcheck disable=SC2086
  (cd "$artifacts" && "$build/$t" "$corpus" "$seeds" \
      -max_total_time="$per" -max_len="$(max_len "$t")" -timeout=20 -rss_limit_mb=2048 \
      "${par[@]}" -artifact_prefix="$artifacts/$t-" -print_final_stats=1 ${FUZZ_ARGS:-})
  rc=$?
  set -e
  [ $rc -eq 0 ] || failed+=("$t (exit $rc)")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: FAILED: ${failed[*]}; reproducers:" >&2
  ls -1 "$artifacts" >&2 || true
  exit 1
fi
echo "fuzz.sh: no crash in ${targets[*]} (${per}s each)"
