#!/usr/bin/env bash
# Per-call CPU time of carve (reference kernels and dnnl partition) and ONNX
# Runtime on the models of ../shared/models, alternating in one shell: for
# each, (user + sys of N calls) - (user + sys of 1 call), over N - 1, to the
# microsecond (bench/cputime.py). On a loaded machine this is far steadier
# than the wall latencies of bench/ort_compare.sh (which must have run once:
# it installs ORT and writes the imported modules and inputs this script
# reuses). Not part of CI; a few minutes.
#
#   bash bench/ort_cpu.sh [--carve PATH] [--rounds R] [--ort DIR] [--work DIR] [--models DIR]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/bench_lib.sh"
rounds=3
parse_ort_reuse_args ort_cpu.sh "$@"

echo "# carve $carve, one thread, CPU us per call, median over $rounds rounds"
printf '%-17s %9s %9s %9s %8s %8s\n' model ref dnnl ort ref/ort dnnl/ort
for row in "${bench_models[@]}"; do
  read -r name file shape data n <<<"$row"
  input=${shape%%=*}
  in=(--input "$input=$work/$name.inputs/$input.npy" --warmup 2 --threads 1)
  ort_args=("$root/bench/ort_run.mjs" "$models/$file" --ort "$ort" --out "$work/$name.inputs"
            --shape "$shape" --warmup 2 --threads 1)
  [[ $data != - ]] && ort_args+=(--data "$input=$models/$data")
  o=() r=() d=()
  for ((k = 0; k < rounds; ++k)); do
    o+=("$(cpu_per_call "$n" node "${ort_args[@]}")")
    r+=("$(cpu_per_call "$n" "$carve" run "$work/$name.relay" "${in[@]}")")
    d+=("$(cpu_per_call "$n" "$carve" run "$work/$name.dnnl.relay" "${in[@]}")")
  done
  mo=$(printf '%s\n' "${o[@]}" | median) mr=$(printf '%s\n' "${r[@]}" | median)
  md=$(printf '%s\n' "${d[@]}" | median)
  awk -v nm="$name" -v o="$mo" -v r="$mr" -v d="$md" \
    'BEGIN { printf "%-17s %9.0f %9.0f %9.0f %7.2fx %7.2fx\n", nm, r, d, o, r / o, d / o }'
done
