#!/usr/bin/env bash
# The package checks of scripts/test.sh, after the build and CTest:
#   1. `cmake --install build` to a temporary prefix, then examples/embed
#      built against it with find_package(carve) and run;
#   2. examples/embed built again with carve's sources added through
#      add_subdirectory (-DCARVE_SOURCE_DIR), and run.
# (CTest's package/installed_anywhere already runs the installed binary with
# the source tree hidden.)
#
# Step 2 compiles carve's libraries a second time, with the same flags as the
# main build (Release): with ccache (scripts/build.sh uses it when installed;
# install-deps.sh installs it) every one of those compilations is a cache hit,
# because carve's libraries' compile commands name no build folder
# (cmake/CarveFlags.cmake) and every library is position-independent whoever
# adds carve (carve_library in CMakeLists.txt). That build folder sits next to the main one, so
# that paths ccache makes relative (its base_dir) match too. Without ccache
# this step is a second full build of the libraries (about 6 minutes of CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=${BUILD_DIR:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
launcher=$(sed -n 's/^CMAKE_CXX_COMPILER_LAUNCHER:[A-Z]*=//p' "$build/CMakeCache.txt")
launch=()
if [[ -n "$launcher" ]]; then launch=(-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"); fi

quiet() {  # quiet LOG COMMAND...: the command's output only when it fails
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    echo "error: failed: $*" >&2
    exit 1
  fi
}

run_example() {  # run_example BINARY
  "$1" >"$work/embed.out"
  if [[ "$(tail -n 1 "$work/embed.out")" != "embed: ok" ]]; then
    cat "$work/embed.out"
    echo "error: $1 did not end with 'embed: ok'" >&2
    exit 1
  fi
  grep -E "max \|difference\||offloaded" "$work/embed.out"
}

start=$SECONDS
echo "== install to a temporary prefix, build examples/embed with find_package(carve)"
quiet "$work/install.log" cmake --install "$build" --prefix "$work/prefix"
quiet "$work/configure1.log" cmake -S examples/embed -B "$work/embed-installed" "${generator[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" "${launch[@]}"
quiet "$work/build1.log" cmake --build "$work/embed-installed" --parallel "$(nproc)"
run_example "$work/embed-installed/embed"
echo "($((SECONDS - start)) s)"

start=$SECONDS
echo "== build examples/embed with carve added by add_subdirectory"
subdir="${build%/}-embed-subdir"
rm -rf "$subdir"
trap 'rm -rf "$work" "$subdir"' EXIT
quiet "$work/configure2.log" cmake -S examples/embed -B "$subdir" "${generator[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DCARVE_SOURCE_DIR="$src" "${launch[@]}"
quiet "$work/build2.log" cmake --build "$subdir" --parallel "$(nproc)"
run_example "$subdir/embed"
echo "($((SECONDS - start)) s)"
