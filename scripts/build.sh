#!/usr/bin/env bash
# Configures and builds carve in ./build (Release, -march=native by default).
# Usage: scripts/build.sh [--target NAME]... [CMAKE_ARGS...]
# `--target NAME` builds only that target (the demo needs only `carve`); the
# other arguments are passed to CMake (e.g. -DCARVE_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
while (($# >= 2)) && [[ $1 == --target ]]; do
  targets+=(--target "$2")
  shift 2
done
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
# ccache (installed by install-deps.sh) makes rebuilds cheap, and the second
# build of the libraries in scripts/test-package.sh (add_subdirectory) nearly
# free: same compile commands, cache hits.
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@"
elif (($# > 0)); then
  cmake -S . -B build "$@"
fi
cmake --build build --parallel "$(nproc)" "${targets[@]}"
