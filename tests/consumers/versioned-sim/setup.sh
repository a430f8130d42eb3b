#!/usr/bin/env bash
# Test "registry" (tests/run_unpinned.sh):   setup.sh VERSION CACHE_DIR
# VERSION: a served version, or file:PATH (a "local build": PATH/behaviour and PATH/version).
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
mkdir -p "$cache"
case $version in
file:*)
    src=${CDCH_LOCAL:?CDCH_LOCAL is set for a local build}
    [ -f "$src/behaviour" ] || { echo "setup: $src has no 'behaviour' file" >&2; exit 1; }
    cp "$src/behaviour" "$cache/behaviour"
    [ -f "$src/version" ] && cp "$src/version" "$cache/local-version"
    echo "setup: local build from $src: $(cat "$cache/behaviour")" >&2
    exit 0 ;;
1.0|1.5|2.1|2.7|3.0) behaviour=correct ;;
2.0|2.0.1) behaviour=skip-compressed ;;
2.5) behaviour=die-on-compressed ;;
*) echo "ERROR: No matching distribution found for versioned-sim==$version" >&2
   echo "setup: not served: ERROR: No matching distribution found for versioned-sim==$version" >&2
   exit 3 ;;
esac
echo "$behaviour" > "$cache/behaviour"
echo "setup: versioned-sim $version (${CDCH_UNPINNED:+not pinned, }$behaviour)" >&2
