#!/usr/bin/env bash
# Installs the Debian packages carve needs to build and test, when missing.
# Idempotent: does nothing (not even apt-get update) when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache git
  libre2-dev libfmt-dev libabsl-dev libeigen3-dev
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
  libedit-dev libdnnl-dev
  libgraphviz-dev  # carve viz --format svg/html lays graphs out with libgvc (its plugins come with libgvc6)
  llvm-14-tools  # FileCheck: tests/tools_cli/filecheck_diff_test.cc checks carve test against it
  clang-14 libclang-rt-14-dev  # libFuzzer targets and the sanitizer build (scripts/fuzz.sh, sanitize.sh)
  python3 python3-numpy
  python3-dev pybind11-dev python3-pytest  # the Python module (python/) and its tests
  python3-onnx  # python/tests/test_frontend.py: from_onnx of an onnx.ModelProto (skipped without)
)

# The ONNX importer (frontend/onnx) and ONNX's node tests (tests/frontend_onnx).
packages+=(libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata)

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
