#!/usr/bin/env bash
# Builds the libFuzzer targets in ./build-fuzz (clang-14, ASan + UBSan;
# the normal ./build is untouched) and runs one of them.
#
#   scripts/fuzz.sh TARGET SECONDS [LIBFUZZER ARGS...]
#   scripts/fuzz.sh all SECONDS        # each target in turn, SECONDS each
#
# TARGET: relay, pat, npy, byoc or run (fuzz/<TARGET>_fuzz.cc). The run
# starts from the checked-in seeds in fuzz/corpus/TARGET and keeps what it
# finds in $CARVE_FUZZ_DIR/corpus/TARGET (not checked in); crashes, leaks and
# time-outs are written to $CARVE_FUZZ_DIR/artifacts/TARGET/ and make the
# script exit non-zero. CARVE_FUZZ_DIR defaults to build-fuzz; point it
# outside the checkout to keep a corpus across clones and long runs (add
# -fork=1 for those, docs/fuzzing.md). CARVE_FUZZ_IDLE=1 builds and fuzzes
# under `chrt -i 0` (SCHED_IDLE: only CPU nothing else wants, for long runs
# on a shared machine; `nice` does not keep a fuzzer out of others' way).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(relay pat npy byoc run)
if (($# < 2)); then
  echo "usage: scripts/fuzz.sh TARGET|all SECONDS [LIBFUZZER ARGS...]" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
if [[ $target != all && ! " ${targets[*]} " =~ " $target " ]]; then
  echo "scripts/fuzz.sh: unknown target '$target' (known: ${targets[*]} all)" >&2
  exit 2
fi
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "scripts/fuzz.sh: SECONDS must be a positive integer, got '$seconds'" >&2
  exit 2
fi

idle=()
if [[ ${CARVE_FUZZ_IDLE:-0} == 1 ]]; then idle=(chrt -i 0); fi
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [[ ! -f build-fuzz/CMakeCache.txt ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" -DCARVE_FUZZ=ON \
    -DCARVE_BUILD_TESTS=OFF -DCARVE_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
fi
if [[ $target == all ]]; then run=("${targets[@]}"); else run=("$target"); fi
"${idle[@]}" ninja -C build-fuzz "${run[@]/#/fuzz_}"

work=${CARVE_FUZZ_DIR:-build-fuzz}
status=0
for t in "${run[@]}"; do
  mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
  echo "== fuzz_$t for ${seconds}s" >&2
  # Leaks are looked for after every input that ends with more mallocs than
  # frees (libFuzzer's default): each target drops the texts its input
  # registered (SourceManager::Scope), so a clean input frees what it
  # allocated and pays no heap scan. -rss_limit_mb bounds a runaway input.
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "${idle[@]}" "build-fuzz/fuzz/fuzz_$t" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/$t/" \
      "$@" "$work/corpus/$t" "fuzz/corpus/$t"; then
    status=1
  fi
done
exit $status
