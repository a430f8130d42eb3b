#!/usr/bin/env bash
# Builds the Maxwell adapter (src/main/java/cdch/MaxwellAdapter.java) against pinned
# com.zendesk:maxwell releases from Maven Central, into the cache dirs:
#   setup.sh VERSION CACHE_DIR [VERSION CACHE_DIR]...
# (several pairs: one Maven run for all, java-common/batch.sh; manifest `setup_batch: true`).
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
module_props() { echo "maxwell.version=$1"; }
finish() {
    local v=$1 dir=$2
    record_artifact "$dir" com.zendesk maxwell "$v"
}
dep_args=(-DincludeScope=runtime)
java_batch "$@"
