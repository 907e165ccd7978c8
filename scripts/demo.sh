#!/usr/bin/env bash
# Installs what is missing, builds carve and runs the main demo: the seed
# BYOC module (a while loop with conv2d + bias_add + relu) through carve.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Only the CLI: the tests and the Python module are built by scripts/test.sh.
bash scripts/build.sh --target carve
bash examples/demo.sh
