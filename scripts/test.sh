#!/usr/bin/env bash
# Installs what is missing, builds carve and runs every test (unit tests and
# golden-file tests) through CTest, then the package checks: install to a
# temporary prefix and build + run examples/embed against it, and again with
# carve added by add_subdirectory (scripts/test-package.sh); last the ASan +
# UBSan subset (scripts/sanitize.sh --ci, its own build in build-asan).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's wall time goes to stderr, so a slow CI run says where it went.
timed() {  # timed COMMAND...
  local start=$SECONDS
  "$@"
  echo "== test.sh: $((SECONDS - start))s: $*" >&2
}
timed bash scripts/install-deps.sh
timed bash scripts/build.sh
timed ctest --test-dir build --output-on-failure --parallel "$(nproc)" --timeout 600
timed bash scripts/test-package.sh
timed bash scripts/sanitize.sh --ci
