#!/usr/bin/env bash
# Builds the Maxwell adapter (src/main/java/cdch/MaxwellAdapter.java) against
# com.zendesk:maxwell releases from Maven Central, into the cache dirs:
#   setup.sh VERSION CACHE_DIR [VERSION CACHE_DIR]...
# (several pairs: one Maven run for all, java-common/batch.sh; manifest `setup_batch: true`).
# VERSION: any version Maven Central serves, pinned or not (it serves 1.17.0 and 1.22.6); one it
# does not: exit 3, "setup: not served: <Maven's words>". VERSION "file:/PATH[+variant]": a local
# build (the maxwell jar, or a folder such as a release's lib/ holding it and its dependencies): its
# jars replace the registry's, the other dependencies are those of the newest release Maven serves
# at or below its version (java-common/batch.sh "Local builds").
# The adapter jar and Maxwell's dependency jars go to the cache dirs only (never into this folder).
# Maxwell's state store is a real MariaDB server (Debian mariadb-server: /usr/sbin/mariadbd,
# mariadb-install-db) that the adapter starts itself; setup only checks it is installed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=java-common/batch.sh
. "$here/java-common/batch.sh"

for b in mariadbd mariadb-install-db; do
    command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || [ -x "/usr/bin/$b" ] ||
        { echo "setup.sh: $b is needed (Debian package mariadb-server)" >&2; exit 1; }
done
# lv VERSION: the Maxwell version (a +variant stripped; a local build's from its maxwell jar)
lv() {
    local path lib
    path=$(local_path "$1")
    if [ -n "$path" ]; then
        lib=$(local_library "$path" maxwell) || exit 1
        echo "${lib#* }"
    else
        echo "${1%%+*}"
    fi
}
module_props() {
    local v
    v=$(lv "$1") || exit 1
    if [ -n "$(local_path "$1")" ]; then
        echo "maxwell.version=(,$v]"
    else
        echo "maxwell.version=$v"
    fi
}
maven_version() { lv "$1"; }
finish() {
    local v dir=$2 path
    v=$(lv "$1") || exit 1
    path=$(local_path "$1")
    if [ -n "$path" ]; then
        local_install "$dir" "$path" com.zendesk maxwell "$v"
    else
        record_artifact "$dir" com.zendesk maxwell "$v"
    fi
}
dep_args=(-DincludeScope=runtime)
java_batch "$@"
