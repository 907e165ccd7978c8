#!/usr/bin/env bash
# Configures and builds carve in ./build (Release, -march=native by default).
# Extra arguments are passed to CMake (e.g. -DCARVE_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
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
cmake --build build --parallel "$(nproc)"
