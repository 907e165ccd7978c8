# Shared by bench/ort_compare.sh, bench/ort_cpu.sh and bench/run_ab.sh
# (sourced): the models of ../shared/models, medians and CPU times.

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Defaults of the scripts' --carve, --models, --ort and --work options.
carve=$bench_dir/../build/tools/carve
models=$bench_dir/../../shared/models
ort=${TMPDIR:-/tmp}/carve-ort
work=${TMPDIR:-/tmp}/carve-ort-bench

# name, ONNX file, input shape, raw float32 input data ("-": generated),
# calls per CPU measurement (a few hundred ms of work per run)
bench_models=(
  "squeezenet1_1 squeezenet1_1.onnx input=1,3,224,224 squeezenet1_1.input.f32 60"
  "ppocr_cls ch_ppocr_mobile_v2.0_cls_infer.onnx x=1,3,48,192 - 300"
  "fmnist_cnn fmnist_cnn.onnx input=1,1,28,28 - 3000"
  "tiny_transformer tiny_transformer.onnx input=1,32,64 tiny_transformer.input.f32 600"
)

# Median of the numbers on stdin, one per line.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# User + system CPU seconds of CMD (output discarded), to the microsecond.
cpu_seconds() { # CMD [ARG...]
  local f
  f=$(mktemp)
  python3 "$bench_dir/cputime.py" -o "$f" "$@" > /dev/null 2>&1 || true
  cat "$f"
  rm -f "$f"
}

# CPU microseconds per call: (CPU of CMD --repeat N) - (CPU of CMD --repeat
# 1), over N - 1 (load, parse, planning and the first call cancel out).
cpu_per_call() { # N CMD [ARG...]
  local n=$1 one many
  shift
  one=$(cpu_seconds "$@" --repeat 1)
  many=$(cpu_seconds "$@" --repeat "$n")
  awk -v a="$one" -v b="$many" -v n="$n" 'BEGIN { printf "%.1f", (b - a) * 1e6 / (n - 1) }'
}

# The options of ort_cpu.sh and ort_first.sh (--carve, --rounds, --ort,
# --work, --models; sets those variables), then their shared checks.
# `script` names the caller in errors.
parse_ort_reuse_args() { # SCRIPT [ARG...]
  local script=$1
  shift
  while [[ $# -gt 0 ]]; do
    case $1 in
      --carve) carve=$2; shift 2 ;;
      --rounds) rounds=$2; shift 2 ;;
      --ort) ort=$2; shift 2 ;;
      --work) work=$2; shift 2 ;;
      --models) models=$2; shift 2 ;;
      *) echo "$script: unknown argument $1" >&2; exit 2 ;;
    esac
  done
  [[ -d $work ]] || { echo "$script: no $work (run bench/ort_compare.sh first)" >&2; exit 1; }
  [[ -x $carve ]] || { echo "$script: no carve at $carve" >&2; exit 1; }
}
