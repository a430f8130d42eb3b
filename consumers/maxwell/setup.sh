#!/usr/bin/env bash
# Builds the Maxwell adapter (src/main/java/cdch/MaxwellAdapter.java) against one pinned
# com.zendesk:maxwell release from Maven Central, into the cache dir:
#   setup.sh VERSION CACHE_DIR
# The adapter jar and Maxwell's dependency jars go to CACHE_DIR only (never into this folder).
# Maxwell's state store is a real MariaDB server (Debian mariadb-server: /usr/sbin/mariadbd,
# mariadb-install-db) that the adapter starts itself; setup only checks it is installed.
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
mvn="$(cd "$(dirname "$0")" && pwd)/java-common/mvn.sh"  # Maven 3.9.9 from Maven Central, else the machine's
command -v java >/dev/null || { echo "setup.sh: java is needed" >&2; exit 1; }
for b in mariadbd mariadb-install-db; do
    command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || [ -x "/usr/bin/$b" ] ||
        { echo "setup.sh: $b is needed (Debian package mariadb-server)" >&2; exit 1; }
done
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
"$mvn" -q -B -f "$here/pom.xml" -Dmaxwell.version="$version" -Dcdch.out="$cache" \
    package dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$cache/lib" >&2
cp "$cache/target/adapter.jar" "$cache/adapter.jar"
ls "$cache/lib/maxwell-$version.jar" >/dev/null
echo "com.zendesk:maxwell:$version" > "$cache/artifact"
echo "setup.sh: adapter built against com.zendesk:maxwell:$version in $cache" >&2
