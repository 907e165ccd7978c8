#!/usr/bin/env bash
# Per-call CPU time of carve (reference kernels and dnnl partition) and ONNX
# Runtime on the models of ../shared/models, alternating in one shell: for
# each, (user + sys of N calls) - (user + sys of 1 call), over N - 1, to the
# microsecond (bench/cputime.py). On a loaded machine this is far steadier
# than the wall latencies of bench/ort_compare.sh (which must have run once:
# it installs ORT and writes the imported modules and inputs this script
# reuses). Also the first call of a fresh process (wall microseconds, the
# first_call_us of `--repeat 1 --warmup 0`: carve after loading and
# preparing, ORT after session creation), median over the rounds: issue 18
# asks for at most 2x ORT's. Not part of CI; a few minutes.
#
#   bash bench/ort_cpu.sh [--carve PATH] [--rounds R] [--ort DIR] [--work DIR] [--models DIR]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/bench_lib.sh"
rounds=3
parse_ort_reuse_args ort_cpu.sh "$@"

# first_call_us of one fresh process of CMD (stderr of `--repeat 1 --warmup 0`).
first_call() { # CMD [ARG...]
  "$@" --repeat 1 --warmup 0 2>&1 > /dev/null |
    awk '$1 == "first_call_us:" { print $2 }'
}

echo "# carve $carve, one thread, CPU us per call and wall us of a fresh process's first call, median over $rounds rounds"
printf '%-17s %9s %9s %9s %8s %8s | %9s %9s %9s %8s %8s\n' model ref dnnl ort ref/ort dnnl/ort \
  ref1 dnnl1 ort1 ref1/ort1 dnnl1/ort1
for row in "${bench_models[@]}"; do
  read -r name file shape data n <<<"$row"
  input=${shape%%=*}
  in=(--input "$input=$work/$name.inputs/$input.npy" --warmup 2 --threads 1)
  ort1=("$root/bench/ort_run.mjs" "$models/$file" --ort "$ort" --out "$work/$name.inputs"
        --shape "$shape" --threads 1)
  [[ $data != - ]] && ort1+=(--data "$input=$models/$data")
  ort_args=("${ort1[@]}" --warmup 2)
  in1=(--input "$input=$work/$name.inputs/$input.npy" --threads 1)
  o=() r=() d=() o1=() r1=() d1=()
  for ((k = 0; k < rounds; ++k)); do
    o+=("$(cpu_per_call "$n" node "${ort_args[@]}")")
    r+=("$(cpu_per_call "$n" "$carve" run "$work/$name.relay" "${in[@]}")")
    d+=("$(cpu_per_call "$n" "$carve" run "$work/$name.dnnl.relay" "${in[@]}")")
    o1+=("$(first_call node "${ort1[@]}")")
    r1+=("$(first_call "$carve" run "$work/$name.relay" "${in1[@]}")")
    d1+=("$(first_call "$carve" run "$work/$name.dnnl.relay" "${in1[@]}")")
  done
  mo=$(printf '%s\n' "${o[@]}" | median) mr=$(printf '%s\n' "${r[@]}" | median)
  md=$(printf '%s\n' "${d[@]}" | median)
  fo=$(printf '%s\n' "${o1[@]}" | median) fr=$(printf '%s\n' "${r1[@]}" | median)
  fd=$(printf '%s\n' "${d1[@]}" | median)
  awk -v nm="$name" -v o="$mo" -v r="$mr" -v d="$md" -v fo="$fo" -v fr="$fr" -v fd="$fd" \
    'BEGIN { printf "%-17s %9.0f %9.0f %9.0f %7.2fx %7.2fx | %9.0f %9.0f %9.0f %8.2fx %9.2fx\n",
             nm, r, d, o, r / o, d / o, fr, fd, fo, fr / fo, fd / fo }'
done
