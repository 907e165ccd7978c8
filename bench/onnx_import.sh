#!/usr/bin/env bash
# Import speed of `carve import` (docs/performance.md): writes a 128 MB model
# with python3-onnx (bench/gen_big_onnx.py), then runs onnx_import_bench and
# times the CLI end to end on it and on squeezenet1_1. Not run by CI.
# Usage: bench/onnx_import.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$root/bench/gen_big_onnx.py" "$tmp/big.onnx" 128
CARVE_SHARED_DIR="$root/../shared" CARVE_BIG_ONNX="$tmp/big.onnx" "$build/bench/onnx_import_bench" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true
for model in "$root/../shared/models/squeezenet1_1.onnx" "$tmp/big.onnx"; do
  best=""
  for _ in 1 2 3; do
    rm -rf "$tmp/params"
    t=$( { /usr/bin/time -f "%e" "$build/tools/carve" import "$model" -o "$tmp/out.relay" \
           --params-out "$tmp/params" >/dev/null; } 2>&1 )
    if [[ -z "$best" ]] || (( $(echo "$t < $best" | bc) )); then best=$t; fi
  done
  echo "carve import $(basename "$model") -o OUT --params-out DIR: best of 3 = ${best} s"
done
