#!/usr/bin/env bash
# Builds the mariadb_rpl adapter against Debian's Connector/C:   setup.sh VERSION CACHE_DIR
# VERSION is the Connector/C version (MARIADB_PACKAGE_VERSION in mariadb_version.h) the
# installed libmariadb-dev must be; if libmariadb-dev is missing and apt-get can run, installs
# the pinned Debian package. Compiles adapter.c to CACHE_DIR/adapter. Safe to re-run.
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
debian_version=1:10.11.19-0+deb12u1

if ! pkg-config --exists libmariadb 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y --no-install-recommends "libmariadb-dev=$debian_version" "libmariadb3=$debian_version" >&2
    else
        echo "setup.sh: libmariadb-dev is not installed (apt-get install libmariadb-dev=$debian_version)" >&2
        exit 1
    fi
fi
cflags=$(pkg-config --cflags libmariadb)
libs=$(pkg-config --libs libmariadb)
hdr=$(for d in $cflags; do case $d in -I*) echo "${d#-I}";; esac; done | head -1)
have=$(sed -n 's/^#define MARIADB_PACKAGE_VERSION "\(.*\)"/\1/p' "${hdr%/}/mariadb_version.h" 2>/dev/null || true)
if [ "$have" != "$version" ]; then
    echo "setup.sh: installed Connector/C is '$have', manifest pins $version" >&2
    exit 1
fi
mkdir -p "$cache"
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -o "$cache/adapter.tmp" "$here/adapter.c" $cflags $libs >&2
mv -f "$cache/adapter.tmp" "$cache/adapter"
echo "setup.sh: mariadb_rpl adapter built against Connector/C $have: $cache/adapter" >&2
