#!/usr/bin/env bash
# The first call in a fresh process, carve's dnnl partition against ONNX
# Runtime, one thread, alternating in one shell: carve's `run --repeat 1
# --warmup 0 --stats` (first_call_us: wall; run_cpu_seconds: CPU of that
# call) and bench/ort_run.mjs's first run after session creation
# (first_call_us, first_call_cpu_us). Both exclude loading and preparing
# (carve's prepare_us, ORT's session_us). Wall times on a loaded machine
# mostly measure the scheduler; the CPU columns are the steadier figures.
# Needs bench/ort_compare.sh to have run once. Not part of CI; about a minute.
#
#   bash bench/ort_first.sh [--carve PATH] [--rounds R] [--ort DIR] [--work DIR] [--models DIR]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/bench_lib.sh"
rounds=5
parse_ort_reuse_args ort_first.sh "$@"

# The value of KEY in the "key: value" lines on stdin.
value() { awk -v k="$1:" '$1 == k { print $2 }'; }

echo "# carve $carve, one thread, first call in us, median (min) over $rounds rounds"
printf '%-17s %17s %17s %17s %17s %9s\n' model dnnl_wall ort_wall dnnl_cpu ort_cpu cpu_ratio
for row in "${bench_models[@]}"; do
  read -r name file shape data _ <<<"$row"
  input=${shape%%=*}
  ort_args=("$root/bench/ort_run.mjs" "$models/$file" --ort "$ort" --out "$work/$name.inputs"
            --shape "$shape" --warmup 0 --threads 1 --repeat 1)
  [[ $data != - ]] && ort_args+=(--data "$input=$models/$data")
  dw=() dc=() ow=() oc=()
  for ((k = 0; k < rounds; ++k)); do
    o=$(node "${ort_args[@]}" 2>&1 >/dev/null)
    ow+=("$(value first_call_us <<<"$o")") oc+=("$(value first_call_cpu_us <<<"$o")")
    c=$("$carve" run "$work/$name.dnnl.relay" --input "$input=$work/$name.inputs/$input.npy" \
          --threads 1 --repeat 1 --warmup 0 --stats 2>&1 >/dev/null)
    dw+=("$(value first_call_us <<<"$c")")
    dc+=("$(value run_cpu_seconds <<<"$c" | awk '{ printf "%.1f", $1 * 1e6 }')")
  done
  stat() { local m lo; m=$(printf '%s\n' "$@" | median); lo=$(printf '%s\n' "$@" | sort -g | head -1)
           printf '%.0f (%.0f)' "$m" "$lo"; }
  mdc=$(printf '%s\n' "${dc[@]}" | median) moc=$(printf '%s\n' "${oc[@]}" | median)
  printf '%-17s %17s %17s %17s %17s %8.2fx\n' "$name" "$(stat "${dw[@]}")" "$(stat "${ow[@]}")" \
    "$(stat "${dc[@]}")" "$(stat "${oc[@]}")" "$(awk -v a="$mdc" -v b="$moc" 'BEGIN { print a / b }')"
done
