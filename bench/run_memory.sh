#!/usr/bin/env bash
# Peak resident memory of `carve run` against what the run must hold, per
# model of ../shared/models (the modules bench/ort_compare.sh imports into
# $TMPDIR/carve-ort-bench): the weights (tensor bytes of the module's
# constants, bench/weights_bytes.py), the largest live activation set of the
# static memory plan (`--stats` peak_live_bytes: inputs, live intermediates
# and the output of the step where they peak) and the peak RSS of the run
# (`/usr/bin/time` max RSS, minimum over rounds) minus that of the same
# binary running a one-tensor module (the executable and its shared
# libraries). ratio = (max RSS - process) / (weights + live): issue 18's
# target is at most 1.5. check_rss is the same for `carve check MODULE`
# (reading, parsing and type-checking the module, no run): when run_rss is
# not above it, the run's peak is the parser's, not the interpreter's.
# A module missing from DIR is imported here from ../shared/models (`carve
# import --freeze`, and `carve partition --backend dnnl` for --dnnl, as
# ort_compare.sh does), so ONNX Runtime is not needed; a model without the
# input file ort_compare.sh writes runs on carve's generated input (seed 0:
# the same shapes, so the same memory). Several --carve options measure
# each binary in turn, model by model (an old and a new build in one run).
# Not part of CI; a few seconds.
#
#   bash bench/run_memory.sh [--carve PATH]... [--rounds R] [--work DIR] [--dnnl]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/bench_lib.sh"
rounds=3 suffix=
binaries=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --carve) binaries+=("$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --dnnl) suffix=.dnnl; shift ;;
    *) echo "run_memory.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ ${#binaries[@]} -gt 0 ]] || binaries=("$carve")
for b in "${binaries[@]}"; do
  [[ -x $b ]] || { echo "run_memory.sh: no carve at $b" >&2; exit 1; }
done
mkdir -p "$work"
for row in "${bench_models[@]}"; do
  read -r name file shape data n <<<"$row"
  if [[ ! -f $work/$name.relay ]]; then
    "${binaries[0]}" import "$models/$file" --freeze --shape "$shape" -o "$work/$name.relay"
  fi
  if [[ -n $suffix && ! -f $work/$name$suffix.relay ]]; then
    "${binaries[0]}" partition "$work/$name.relay" --backend dnnl -o "$work/$name$suffix.relay"
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(1), float32]) { %%x }\n' > "$tmp/one.relay"

# Minimum over rounds of the max RSS (bytes) of CMD.
max_rss() {
  local best= kb
  for ((k = 0; k < rounds; ++k)); do
    /usr/bin/time -o "$tmp/time" -f %M "$@" > /dev/null 2> "$tmp/err"
    kb=$(tail -n 1 "$tmp/time")
    [[ -z $best || $kb -lt $best ]] && best=$kb
  done
  echo $((best * 1024))
}

declare -A process
for carve in "${binaries[@]}"; do
  process[$carve]=$(max_rss "$carve" run "$tmp/one.relay")
  echo "# carve $carve: process (one-tensor module) max RSS ${process[$carve]} bytes"
done
echo "# modules NAME$suffix.relay in $work, $rounds rounds (minimum)"
printf '%-17s %10s %10s %10s %10s %10s %10s %6s  %s\n' model weights live needed max_rss run_rss \
  check_rss ratio carve
for row in "${bench_models[@]}"; do
  read -r name file shape data n <<<"$row"
  input=${shape%%=*}
  module=$work/$name$suffix.relay
  run_args=(--threads 1)
  npy=$work/$name.inputs/$input.npy
  [[ -f $npy ]] && run_args+=(--input "$input=$npy")
  weights=$(python3 "$root/bench/weights_bytes.py" "$module")
  for carve in "${binaries[@]}"; do
    p=${process[$carve]}
    rss=$(max_rss "$carve" run "$module" "${run_args[@]}")
    "$carve" run "$module" "${run_args[@]}" --stats > /dev/null 2> "$tmp/stats"
    check=$(max_rss "$carve" check "$module")
    live=$(awk '$1 == "peak_live_bytes:" { print $2 }' "$tmp/stats")
    awk -v nm="$name" -v w="$weights" -v l="$live" -v r="$rss" -v p="$p" -v c="$check" \
      -v b="$carve" 'BEGIN { printf "%-17s %10d %10d %10d %10d %10d %10d %5.2fx  %s\n", nm, w, l,
               w + l, r, r - p, c - p, (r - p) / (w + l), b }'
  done
done
