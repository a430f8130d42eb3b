#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan+UBSan) in build-fuzz/ and run
# fuzz_decode for a bounded time, seeded from the real MySQL binlog fixtures.
#
#   scripts/fuzz.sh [SECONDS]      default 60
#
# Environment: CDCH_FIXTURES  fixture dir (default ../shared/fixtures/mysql-binlog
#                             relative to the repository)
#              FUZZ_JOBS      parallel fuzzing jobs (default 1)
#              FUZZ_ARGS      extra libFuzzer arguments
# Exit status: 0 no crash, 1 the fuzzer found a crash/leak/timeout (the
# reproducer is left in build-fuzz/artifacts/), 2 usage or build failure.
set -euo pipefail

secs=${1:-60}
case "$secs" in ''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fixtures=${CDCH_FIXTURES:-$repo/../shared/fixtures/mysql-binlog}
build=$repo/build-fuzz
jobs=${FUZZ_JOBS:-1}

command -v clang >/dev/null || { echo "fuzz.sh: clang not found (run scripts/setup.sh)" >&2; exit 2; }

mkdir -p "$build"
# CDCH_SANITIZE instruments the library with ASan/UBSan too; CDCH_FUZZ
# builds everything with -fsanitize=fuzzer-no-link so libFuzzer gets coverage
# feedback from the whole codec.
cmake -S "$repo" -B "$build" -DCDCH_FUZZ=ON -DCDCH_SANITIZE=ON -DCMAKE_C_COMPILER=clang \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log" >&2; echo "fuzz.sh: configure failed" >&2; exit 2; }
cmake --build "$build" --target fuzz_decode -j"$(nproc 2>/dev/null || echo 2)" \
  || { echo "fuzz.sh: build failed" >&2; exit 2; }

corpus=$build/corpus/fuzz_decode
artifacts=$build/artifacts
mkdir -p "$corpus" "$artifacts"
# Seeds: every fixture (binlogs, payload blobs, JSON documents), plus each
# binlog cut into single events so the mutator starts from small inputs.
if [ -d "$fixtures" ]; then
  for f in "$fixtures"/*; do
    [ -f "$f" ] || continue
    case "$f" in *.txt|*.md) continue ;; esac
    cp -f "$f" "$corpus/seed-$(basename "$f")"
  done
  python3 - "$fixtures" "$corpus" <<'PY' || true
import os, sys, struct
src, dst = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(src)):
    p = os.path.join(src, name)
    data = open(p, 'rb').read()
    if not data.startswith(b'\xfebin'):
        continue
    off, i = 4, 0
    fde = None
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
else
  echo "fuzz.sh: warning: fixture dir $fixtures not found; starting from an empty corpus" >&2
fi

echo "fuzz.sh: running fuzz_decode for ${secs}s (corpus $corpus)"
par=()
[ "$jobs" -gt 1 ] 2>/dev/null && par=(-jobs="$jobs" -workers="$jobs")
set +e
# shellcheck disable=SC2086
(cd "$artifacts" && "$build/fuzz_decode" "$corpus" \
    -max_total_time="$secs" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
    "${par[@]}" -artifact_prefix="$artifacts/" -print_final_stats=1 ${FUZZ_ARGS:-})
rc=$?
set -e
if [ $rc -ne 0 ]; then
  echo "fuzz.sh: FAILED (exit $rc); reproducers:" >&2
  ls -1 "$artifacts" >&2 || true
  exit 1
fi
echo "fuzz.sh: no crash in ${secs}s"
