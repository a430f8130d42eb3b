#!/usr/bin/env bash
# Install every build and test dependency of cdcharness from Debian packages.
# Safe to run repeatedly; skips apt when everything is already installed.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libzstd-dev zstd libyaml-dev check libsubunit-dev
      libmariadb-dev libssl-dev zlib1g-dev clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: build dependencies present"
