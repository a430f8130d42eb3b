#!/usr/bin/env bash
# Install every build and test dependency of cdcharness from Debian packages.
# Safe to run repeatedly; skips apt when everything is already installed.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libzstd-dev zstd libyaml-dev check libsubunit-dev
      libmariadb-dev libssl-dev zlib1g-dev clang libclang-rt-14-dev
      # real clients of the fake primary (tests/clients/*.sh): the mariadb CLI,
      # a venv for PyMySQL, Node for mysql2, Java 17 + Maven for Connector/J
      mariadb-server  # Maxwell's state store (consumers/maxwell starts its own mariadbd)
      chromium  # tests/html: report.html checked in headless Chromium (DevTools protocol)
      mariadb-client python3-venv nodejs openjdk-17-jdk-headless maven
      time  # /usr/bin/time: peak memory in tests/self_protect.sh
      python3-yaml  # scripts/bug_record.py, tests/soak_plan.sh read manifests
      curl  # consumers/java-common/mvn.sh fetches Maven 3.9.9 from Maven Central
      stress-ng  # CPU load beside the suite in scripts/stress.sh and bench/loaded_matrix.sh
      )
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Debian's nodejs ships npm separately (NodeSource's includes it)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: build dependencies present"
