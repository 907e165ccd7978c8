#!/usr/bin/env bash
# Installs what is missing, builds carve and runs every test (unit tests and
# golden-file tests) through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure --parallel "$(nproc)" --timeout 600
