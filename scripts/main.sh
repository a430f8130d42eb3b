#!/usr/bin/env bash
# The main job on the bundled default, on a fresh machine: install what is
# needed, build, install the default consumers from their registries (cached
# in ~/.cache/cdcharness), serve the default scenarios compressed and
# uncompressed from the fake primary, run each consumer against them, and
# print the verdict table. Reports go to reports/latest/.
#
#   scripts/main.sh                      the bundled default
#   scripts/main.sh --consumer F@V --scenario S ...   anything `cdcharness run` takes
#
# Exit status: 0 when every cell gave the verdict its manifest predicts
# (`--expect manifest`), 1 otherwise, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target cdcharness >/dev/null

if [ $# -eq 0 ]; then
  set -- \
    --consumer cdcharness-ref@builtin \
    --consumer go-mysql@v1.7.0+raw --consumer go-mysql@v1.16.0+canal \
    --consumer python-mysql-replication@1.0.17 \
    --consumer zongji@0.5.1 --consumer vlasky-zongji@0.9.0 \
    --consumer mariadb-binlog@10.11.19+decode-rows --consumer mariadb-binlog@10.11.19+force-read \
    --consumer mariadb-rpl@3.3.20 \
    --scenario scenarios/crud-basic.yaml --scenario scenarios/myisam-nontransactional.yaml \
    --mode both --expect manifest -j "$(nproc 2>/dev/null || echo 2)"
fi
exec build/cdcharness run "$@"
