#!/usr/bin/env bash
# Two carve binaries against each other on `carve run --repeat`, alternating
# in one shell so both see the same machine load: per module, the median
# over rounds of each run's median latency (wall) and of the CPU time per
# call ((user + sys of `--repeat N`) - (user + sys of `--repeat 1`), over
# N - 1 calls: steadier than wall time on a loaded machine), and the ratios
# NEW/OLD. For the
# speed-ups of issue 18 when ONNX Runtime is not at hand (bench/ort_compare.sh
# compares against it). Not part of CI.
#
#   bash bench/run_ab.sh OLD_CARVE NEW_CARVE [--rounds R] [--repeat N] [--warmup K]
#        [--threads T] MODULE.relay...
#
# Modules: e.g. what bench/ort_compare.sh imports into $TMPDIR/carve-ort-bench
# (NAME.relay and its dnnl partition NAME.dnnl.relay).
set -euo pipefail

source "$(dirname "$0")/bench_lib.sh"
[[ $# -ge 3 ]] || { echo "usage: run_ab.sh OLD NEW [options] MODULE..." >&2; exit 2; }
old=$1 new=$2
shift 2
rounds=5 repeat=20 warmup=2 threads=1
modules=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    -*) echo "run_ab.sh: unknown option $1" >&2; exit 2 ;;
    *) modules+=("$1"); shift ;;
  esac
done
for b in "$old" "$new"; do [[ -x $b ]] || { echo "run_ab.sh: no carve at $b" >&2; exit 1; }; done

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.time"' EXIT
cpu_of() { # CARVE MODULE REPEAT -> user+sys seconds of the process (stderr kept in $tmp)
  python3 "$bench_dir/cputime.py" -o "$tmp.time" "$1" run "$2" --repeat "$3" --warmup "$warmup" \
    --threads "$threads" 2> "$tmp" > /dev/null
  cat "$tmp.time"
}
# "WALL CPU": the median= field of the latency_us line of `carve run
# --repeat`'s stderr, and the CPU microseconds per call.
measure() {
  local one many
  one=$(cpu_of "$1" "$2" 1)
  many=$(cpu_of "$1" "$2" "$repeat")
  local wall
  wall=$(awk '$1 == "latency_us:" { for (i = 2; i <= NF; ++i) if (index($i, "median=") == 1) print substr($i, 8) }' "$tmp")
  awk -v w="$wall" -v a="$one" -v b="$many" -v n="$repeat" 'BEGIN { printf "%s %.1f\n", w, (b - a) * 1e6 / (n - 1) }'
}

echo "# old=$old new=$new rounds=$rounds repeat=$repeat warmup=$warmup threads=$threads"
printf '%-32s %11s %11s %8s | %11s %11s %8s\n' module old_wall_us new_wall_us new/old \
  old_cpu_us new_cpu_us new/old
for m in "${modules[@]}"; do
  aw=() ac=() bw=() bc=()
  for ((r = 0; r < rounds; ++r)); do
    for side in $((r % 2)) $((1 - r % 2)); do
      if [[ $side == 0 ]]; then read -r w c <<<"$(measure "$old" "$m")"; aw+=("$w"); ac+=("$c")
      else read -r w c <<<"$(measure "$new" "$m")"; bw+=("$w"); bc+=("$c"); fi
    done
  done
  m1=$(printf '%s\n' "${aw[@]}" | median) m2=$(printf '%s\n' "${bw[@]}" | median)
  c1=$(printf '%s\n' "${ac[@]}" | median) c2=$(printf '%s\n' "${bc[@]}" | median)
  awk -v n="$(basename "$m")" -v a="$m1" -v b="$m2" -v c="$c1" -v d="$c2" \
    'BEGIN { printf "%-32s %11.0f %11.0f %7.3fx | %11.0f %11.0f %7.3fx\n", n, a, b, b / a, c, d, d / c }'
done
