#!/usr/bin/env bash
# The main demo: the seed BYOC annotation module (a while loop written as a
# let-bound recursive function, conv2d + bias_add + relu inside) through carve.
set -euo pipefail
cd "$(dirname "$0")/.."
carve=build/tools/carve
echo "== carve check examples/byoc_demo.relay"
$carve check examples/byoc_demo.relay && echo "ok: well typed"
echo
echo "== carve fmt --types examples/byoc_demo.relay"
$carve fmt --types examples/byoc_demo.relay
