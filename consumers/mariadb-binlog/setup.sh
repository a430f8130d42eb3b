#!/usr/bin/env bash
# Checks (or installs) the pinned Debian mariadb-client that provides mariadb-binlog:
#   setup.sh VERSION CACHE_DIR     (VERSION = "<mariadb-binlog version>+<variant>")
# Installs mariadb-client=1:10.11.19-0+deb12u1 with apt-get when it is missing and apt-get can
# run; fails when another version is installed. Records the program's path in
# CACHE_DIR/mariadb-binlog.path (read by adapter.py). Safe to re-run.
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
upstream=${version%%+*}
debian_version=1:$upstream-0+deb12u1

have=$(dpkg-query -W -f='${Version}' mariadb-client 2>/dev/null || true)
if [ -z "$have" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y --no-install-recommends "mariadb-client=$debian_version" >&2
        have=$(dpkg-query -W -f='${Version}' mariadb-client)
    else
        echo "setup.sh: mariadb-client is not installed (apt-get install mariadb-client=$debian_version)" >&2
        exit 1
    fi
fi
if [ "$have" != "$debian_version" ]; then
    echo "setup.sh: mariadb-client $have is installed, the manifest pins $debian_version" >&2
    exit 1
fi
prog=$(command -v mariadb-binlog) || { echo "setup.sh: mariadb-binlog not found" >&2; exit 1; }
command -v python3 >/dev/null || { echo "setup.sh: python3 is needed to run adapter.py" >&2; exit 1; }
mkdir -p "$cache"
echo "$prog" > "$cache/mariadb-binlog.path"
echo "setup.sh: $("$prog" --version) (mariadb-client $have) at $prog" >&2
