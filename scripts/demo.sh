#!/usr/bin/env bash
# Installs what is missing, builds carve and runs the main demo: the seed
# BYOC module (a while loop with conv2d + bias_add + relu) through carve.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
bash examples/demo.sh
