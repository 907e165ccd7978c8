#!/usr/bin/env bash
# Times two carve binaries on the text path and the BYOC flow, alternating
# runs in one shell so that both see the same machine load, and prints the
# minimum wall time and the largest peak RSS of each over the rounds:
#   bench/compare-speed.sh BASE_CARVE CANDIDATE_CARVE [ROUNDS]   (default 3)
# Inputs (made once with build/bench/carve-gen, under $GRAPHS, default /tmp):
# resnet100k.relay, chain1m.relay, resnet1m.relay. About 2 minutes at 3
# rounds on 2 quiet cores.
set -euo pipefail
cd "$(dirname "$0")/.."
base=$(readlink -f "$1"); cand=$(readlink -f "$2"); rounds=${3:-3}
graphs=${GRAPHS:-/tmp}
gen=build/bench/carve-gen
for spec in resnet:100000:resnet100k chain:1000000:chain1m resnet:1000000:resnet1m; do
  IFS=: read -r kind n name <<< "$spec"
  [ -s "$graphs/$name.relay" ] || "$gen" "$kind" "$n" > "$graphs/$name.relay"
done
cases=(
  "fmt 100k|fmt $graphs/resnet100k.relay"
  "check 100k|check $graphs/resnet100k.relay"
  "fmt --types 100k|fmt --types $graphs/resnet100k.relay"
  "fmt chain 1M|fmt $graphs/chain1m.relay"
  "partition dnnl 100k|partition $graphs/resnet100k.relay --backend dnnl"
  "partition dnnl 1M|partition $graphs/resnet1m.relay --backend dnnl"
)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# One timed run: prints "seconds kilobytes".
run() {
  /usr/bin/time -f "%e %M" -o "$tmp/t" "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  cat "$tmp/t"
}
printf "%-22s %12s %12s %8s %12s %12s %8s\n" case base_s cand_s ratio base_MB cand_MB ratio
for c in "${cases[@]}"; do
  label=${c%%|*}; read -r -a args <<< "${c#*|}"
  bt=""; ct=""; bm=0; cm=0
  for ((r = 0; r < rounds; r++)); do
    read -r t m < <(run "$base" "${args[@]}"); bt="$bt $t"; bm=$((m > bm ? m : bm))
    read -r t m < <(run "$cand" "${args[@]}"); ct="$ct $t"; cm=$((m > cm ? m : cm))
  done
  bt=$(echo $bt | tr ' ' '\n' | sort -g | head -1); ct=$(echo $ct | tr ' ' '\n' | sort -g | head -1)
  awk -v l="$label" -v bt="$bt" -v ct="$ct" -v bm="$bm" -v cm="$cm" 'BEGIN {
    printf "%-22s %12.2f %12.2f %8.2f %12d %12d %8.2f\n", l, bt, ct, ct / bt, bm / 1024, cm / 1024, cm / bm }'
done
