#!/usr/bin/env bash
# Installs the Debian packages carve needs to build and test, when missing.
# Idempotent: does nothing (not even apt-get update) when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libre2-dev libfmt-dev libabsl-dev libeigen3-dev
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
  libedit-dev libdnnl-dev
  clang-14 libclang-rt-14-dev
  python3 python3-numpy
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
