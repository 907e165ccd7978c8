#!/usr/bin/env bash
# Per-call CPU time of carve (reference kernels and dnnl partition) and ONNX
# Runtime on the models of ../shared/models, alternating in one shell: for
# each, (user + sys of N calls) - (user + sys of 1 call), over N - 1, with
# /usr/bin/time. On a loaded machine this is far steadier than the wall
# latencies of bench/ort_compare.sh (which must have run once: it installs
# ORT and writes the imported modules and inputs this script reuses).
# Not part of CI; a few minutes.
#
#   bash bench/ort_cpu.sh [--carve PATH] [--rounds R] [--ort DIR] [--work DIR]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
carve=$root/build/tools/carve
models=$root/../shared/models
ort=${TMPDIR:-/tmp}/carve-ort
work=${TMPDIR:-/tmp}/carve-ort-bench
rounds=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --carve) carve=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --ort) ort=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    *) echo "ort_cpu.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x /usr/bin/time ]] || { echo "ort_cpu.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }
[[ -d $work ]] || { echo "ort_cpu.sh: no $work (run bench/ort_compare.sh first)" >&2; exit 1; }

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cpu() { /usr/bin/time -f '%U %S' -o "$tmp" "$@" > /dev/null 2>&1; awk '{ print $1 + $2 }' "$tmp"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# name, ONNX file, input shape, calls (enough for /usr/bin/time's 10 ms ticks)
table=(
  "squeezenet1_1 squeezenet1_1.onnx input=1,3,224,224 30"
  "ppocr_cls ch_ppocr_mobile_v2.0_cls_infer.onnx x=1,3,48,192 150"
  "fmnist_cnn fmnist_cnn.onnx input=1,1,28,28 1000"
  "tiny_transformer tiny_transformer.onnx input=1,32,64 300"
)
echo "# carve $carve, one thread, CPU us per call, median over $rounds rounds"
printf '%-17s %9s %9s %9s %8s %8s\n' model ref dnnl ort ref/ort dnnl/ort
for row in "${table[@]}"; do
  read -r name file shape n <<<"$row"
  input=${shape%%=*}
  in=(--input "$input=$work/$name.inputs/$input.npy" --warmup 2 --threads 1)
  o=() r=() d=()
  per_call() { awk -v a="$1" -v b="$2" -v n="$n" 'BEGIN { printf "%.1f", (b - a) * 1e6 / (n - 1) }'; }
  for ((k = 0; k < rounds; ++k)); do
    ort_args=("$root/bench/ort_run.mjs" "$models/$file" --ort "$ort" --out "$work/$name.inputs"
              --shape "$shape" --warmup 2 --threads 1)
    o+=("$(per_call "$(cpu node "${ort_args[@]}" --repeat 1)" "$(cpu node "${ort_args[@]}" --repeat "$n")")")
    r+=("$(per_call "$(cpu "$carve" run "$work/$name.relay" "${in[@]}" --repeat 1)" \
                    "$(cpu "$carve" run "$work/$name.relay" "${in[@]}" --repeat "$n")")")
    d+=("$(per_call "$(cpu "$carve" run "$work/$name.dnnl.relay" "${in[@]}" --repeat 1)" \
                    "$(cpu "$carve" run "$work/$name.dnnl.relay" "${in[@]}" --repeat "$n")")")
  done
  mo=$(printf '%s\n' "${o[@]}" | median) mr=$(printf '%s\n' "${r[@]}" | median)
  md=$(printf '%s\n' "${d[@]}" | median)
  awk -v nm="$name" -v o="$mo" -v r="$mr" -v d="$md" \
    'BEGIN { printf "%-17s %9.0f %9.0f %9.0f %7.2fx %7.2fx\n", nm, r, d, o, r / o, d / o }'
done
