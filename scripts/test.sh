#!/usr/bin/env bash
# The whole test suite on a fresh machine: install dependencies, build
# (RelWithDebInfo; also Release and clang Debug, build only, warning-free with
# -Werror), run the unit and integration tests (CTest), then the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer, then a bounded fuzz run.
#
#   scripts/test.sh            everything (what CI runs)
#   FUZZ_SECONDS=0 scripts/test.sh   skip the fuzz run
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

bash scripts/setup.sh

echo "== build (RelWithDebInfo) =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
# Build only, no test run, both -Werror: Release (GCC's -Wmaybe-uninitialized
# sees other flow at -O3 than at -O2) and clang. Clang's warnings come from its
# front end, the same at every -O, so its cheapest build (Debug) covers them, for
# the whole tree (build-fuzz compiles only the libraries and the fuzz targets).
echo "== build (Release, build only) =="
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release -j"$jobs"
if command -v clang >/dev/null; then
  echo "== build (clang, Debug, build only) =="
  CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Debug >/dev/null
  cmake --build build-clang -j"$jobs"
else
  echo "== build (clang): skipped, clang not found (scripts/setup.sh installs it) =="
fi
echo "== tests =="
(cd build && ctest --output-on-failure -j"$jobs")

echo "== build (ASan + UBSan) =="
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCDCH_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
echo "== tests under ASan + UBSan =="
# Everything but the real-consumer and real-client suites, which exercise the
# same server code as dump_clients/test_server (run here) and take minutes.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j"$jobs" -E '^(consumers_|client_)')

echo "== the default matrix's quick subset (ci/matrix.yaml --quick), gated on the manifests =="
build/cdcharness matrix ci/matrix.yaml --quick -j 4 --report-dir build/matrix-quick

secs=${FUZZ_SECONDS:-30}
if [ "$secs" -gt 0 ]; then
  echo "== fuzz every target, ${secs}s in all =="
  bash scripts/fuzz.sh "$secs"
fi
echo "== all tests passed =="
