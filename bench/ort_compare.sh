#!/usr/bin/env bash
# carve against ONNX Runtime on the models of ../shared/models: per model,
# the median latency of `carve run --repeat` on the reference kernels, of
# the module partitioned for dnnl, and of ONNX Runtime (npm onnxruntime-node,
# CPU) on the same inputs, measured alternately in one run, with the ratios;
# and the first call of each (carve: in a fresh process, oneDNN primitives
# included; ORT: the first run after session creation). Not part of CI.
#
#   bash bench/ort_compare.sh [--install] [--carve PATH] [--models DIR] [--ort DIR]
#        [--work DIR] [--repeat N] [--warmup K] [--rounds R] [--threads T]
#
# --install puts onnxruntime-node into the --ort prefix with npm first (its
# install script would download from a host this machine cannot reach; the
# CPU library is inside the package, so ONNXRUNTIME_NODE_INSTALL=skip).
# Each round runs every model on ORT, carve reference and carve dnnl in turn;
# the figures are medians over the rounds of each run's median (latency) and
# of each run's first call.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/bench_lib.sh"
repeat=20 warmup=2 rounds=3 threads=1 install=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --install) install=1; shift ;;
    --carve) carve=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --ort) ort=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    *) echo "ort_compare.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [[ $install == 1 ]]; then
  mkdir -p "$ort"
  ONNXRUNTIME_NODE_INSTALL=skip npm install --prefix "$ort" --no-audit --no-fund \
    onnxruntime-node >&2
fi
if [[ ! -d $ort/node_modules/onnxruntime-node ]]; then
  echo "ort_compare.sh: no onnxruntime-node in $ort (run with --install)" >&2
  exit 1
fi
[[ -x $carve ]] || { echo "ort_compare.sh: no carve at $carve" >&2; exit 1; }
mkdir -p "$work"

table=("${bench_models[@]}")  # bench_lib.sh

# The value of KEY= in a "KEY: min=.. median=.. p90=.." or "KEY: X" line.
field() { # FILE LINE-KEY FIELD
  awk -v key="$2:" -v f="$3" '$1 == key {
    if (f == "") { print $2; exit }
    for (i = 2; i <= NF; ++i) if (index($i, f "=") == 1) { print substr($i, length(f) + 2); exit } }' "$1"
}

for row in "${table[@]}"; do
  read -r name file shape data _ <<<"$row"
  [[ -f $models/$file ]] || { echo "ort_compare.sh: missing $models/$file" >&2; exit 1; }
  "$carve" import "$models/$file" --freeze --shape "$shape" -o "$work/$name.relay"
  "$carve" partition "$work/$name.relay" --backend dnnl -o "$work/$name.dnnl.relay"
done

declare -A lat first
for ((r = 1; r <= rounds; ++r)); do
  for row in "${table[@]}"; do
    read -r name file shape data _ <<<"$row"
    input=${shape%%=*}
    args=(--ort "$ort" --out "$work/$name.inputs" --shape "$shape" --repeat "$repeat"
          --warmup "$warmup" --threads "$threads")
    [[ $data != - ]] && args+=(--data "$input=$models/$data")
    node "$root/bench/ort_run.mjs" "$models/$file" "${args[@]}" 2> "$work/t.ort"
    for side in ref dnnl; do
      f=$work/$name.relay
      [[ $side == dnnl ]] && f=$work/$name.dnnl.relay
      "$carve" run "$f" --input "$input=$work/$name.inputs/$input.npy" --repeat "$repeat" \
        --warmup "$warmup" --threads "$threads" > /dev/null 2> "$work/t.$side"
    done
    for side in ort ref dnnl; do
      lat[$name.$side]+="$(field "$work/t.$side" latency_us median) "
      first[$name.$side]+="$(field "$work/t.$side" first_call_us "") "
    done
  done
done

m() { tr ' ' '\n' <<<"$1" | grep . | median; }
echo "# carve $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), onnxruntime-node" \
  "$(node -p "require('$ort/node_modules/onnxruntime-node/package.json').version")," \
  "threads=$threads repeat=$repeat warmup=$warmup rounds=$rounds"
echo "# latency: median us over rounds of each run's median; first: first call us"
printf '%-17s %10s %10s %10s %8s %8s | %10s %10s %10s %8s\n' model ref dnnl ort ref/ort \
  dnnl/ort first:ref first:dnnl first:ort dnnl/ort
for row in "${table[@]}"; do
  read -r name _ <<<"$row"
  ref=$(m "${lat[$name.ref]}") dnnl=$(m "${lat[$name.dnnl]}") o=$(m "${lat[$name.ort]}")
  fref=$(m "${first[$name.ref]}") fdnnl=$(m "${first[$name.dnnl]}") fo=$(m "${first[$name.ort]}")
  awk -v n="$name" -v a="$ref" -v b="$dnnl" -v c="$o" -v d="$fref" -v e="$fdnnl" -v f="$fo" \
    'BEGIN { printf "%-17s %10.0f %10.0f %10.0f %7.2fx %7.2fx | %10.0f %10.0f %10.0f %7.2fx\n",
             n, a, b, c, a / c, b / c, d, e, f, e / f }'
done
