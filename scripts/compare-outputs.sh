#!/usr/bin/env bash
# Compares what two carve binaries print, for optimisation work that must not
# change any output: every ../shared/corpus and tests/golden .relay file x
# `fmt --types` and `partition --backend B` for the five backends, and the
# BYOC pipeline with bench/dnnl_like.pat on generated graphs (5k ops; add
# larger ones with EXTRA="/tmp/resnet100k.relay ...").
#   scripts/compare-outputs.sh BASE_CARVE CANDIDATE_CARVE
# Prints one DIFF line per differing output; exits 1 if any differs.
set -uo pipefail
cd "$(dirname "$0")/.."
base=$(readlink -f "$1"); cand=$(readlink -f "$2")
gen=build/bench/carve-gen
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pipeline='InferType,MergeComposite(dnnl),AnnotateTarget(dnnl),MergeCompilerRegions,PartitionGraph'
n=0; fail=0
run() {
  "$base" "$@" > "$tmp/a" 2>&1; echo "rc=$?" >> "$tmp/a"
  "$cand" "$@" > "$tmp/b" 2>&1; echo "rc=$?" >> "$tmp/b"
  n=$((n + 1))
  if ! cmp -s "$tmp/a" "$tmp/b"; then echo "DIFF: $*"; fail=1; fi
}
for f in ../shared/corpus/*.relay $(find tests/golden -name '*.relay' | sort); do
  run fmt --types "$f"
  for b in dnnl tensorrt arm_compute_lib nnapi bnns; do run partition "$f" --backend "$b"; done
done
graphs=()
for kind in resnet transformer chain; do
  "$gen" "$kind" 5000 > "$tmp/$kind.relay" && graphs+=("$tmp/$kind.relay")
done
for g in "${graphs[@]}" ${EXTRA:-}; do
  run opt "$g" --patterns bench/dnnl_like.pat -p "$pipeline"
  run opt "$g" --patterns bench/dnnl_like.pat -p "$pipeline" --types
  for b in dnnl tensorrt; do run partition "$g" --backend "$b"; done
done
echo "compared $n outputs: $([ $fail = 0 ] && echo all identical || echo DIFFERENCES)"
exit $fail
