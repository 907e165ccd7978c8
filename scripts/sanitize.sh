#!/usr/bin/env bash
# ASan + UBSan runs of carve (docs/fuzzing.md, "Sanitizers").
#
#   scripts/sanitize.sh --ci   the step scripts/test.sh runs last (CI): a
#       small build in ./build-asan (clang-14, -O0, CARVE_SANITIZE with
#       libFuzzer's coverage instrumentation: only the carve tool,
#       carve-random and the five fuzz targets, no tests), then,
#       each under a time limit: every golden file through the sanitized
#       `carve test`; random programs through the differential test
#       (carve-random, fixed seeds, 60 s); each fuzz target fuzzed for
#       FUZZ_SECONDS (25; two targets at a time, so about 75 s), starting
#       from its checked-in seed corpus. About 9 minutes on an idle 2-core
#       machine with a cold compiler cache, under 4 with a warm one
#       (docs/fuzzing.md, "Sanitizers", for the measurements).
#   scripts/sanitize.sh        the long run: the libFuzzer configuration of
#       scripts/fuzz.sh in ./build-fuzz (clang-14, -O1, coverage), the unit
#       tests that exercise the most code (parser, BYOC passes, backends,
#       interpreter kernels, CLI, generator), the golden files, 200 random
#       programs and a deterministic run of each libFuzzer target (-seed=1, a
#       fixed number of executions). About 20 minutes.
#
# The gcc build in ./build is untouched. A sanitizer report, a leak or a
# failure fails the step.
set -euo pipefail
cd "$(dirname "$0")/.."
ci=0
if (($# > 0)); then
  if [[ $1 != --ci || $# -gt 1 ]]; then
    echo "usage: scripts/sanitize.sh [--ci]" >&2
    exit 2
  fi
  ci=1
fi

launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
fuzzers=(relay pat npy byoc run)
if ((ci)); then
  # -O0: a third of -O1's compile time under ASan + UBSan, and the random
  # programs are small enough that run time does not matter.
  # -fsanitize=fuzzer-no-link: libFuzzer's coverage instrumentation, so that
  # the fuzz targets fuzz (the bounded runs below); carve and carve-random
  # get the sanitizer runtime's no-op coverage callbacks.
  build=build-asan
  CC=clang-14 CXX=clang++-14 cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -gline-tables-only -fsanitize=fuzzer-no-link" -DCARVE_SANITIZE=ON \
    -DCARVE_BUILD_TESTS=OFF -DCARVE_BUILD_BENCH=OFF -DCARVE_BUILD_PYTHON=OFF \
    -DCARVE_INSTALL=OFF "${launcher[@]}" >/dev/null
  tests=()
else
  build=build-fuzz
  CC=clang-14 CXX=clang++-14 cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" -DCARVE_FUZZ=ON \
    -DCARVE_BUILD_TESTS=ON -DCARVE_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
  tests=(grammar_parser_tests passes_byoc_tests backends_tests interpreter_kernels_tests
         tools_cli_tests random_tests)
fi
start_build=$SECONDS
ninja -C $build carve carve-random "${tests[@]}" "${fuzzers[@]/#/fuzz_}"
echo "== sanitize: build $((SECONDS - start_build))s" >&2

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tests/sanitizers/ubsan.supp
export CARVE_SHARED_DIR=${CARVE_SHARED_DIR:-$PWD/../shared}

status=0
step() {  # step SECONDS COMMAND...: runs COMMAND; on error fails the step and returns 1
  local seconds=$1
  shift
  echo "== sanitize: $* (limit ${seconds}s)" >&2
  local start=$SECONDS
  local ok=0
  if ! timeout "$seconds" "$@"; then
    echo "== sanitize: FAILED: $*" >&2
    status=1
    ok=1
  fi
  echo "== sanitize: $((SECONDS - start))s: $1" >&2
  return $ok
}

for t in "${tests[@]}"; do
  step 300 "$build/tests/$t" --gtest_brief=1 || true
done
# The golden folders in two halves, one per core: `carve test` runs its
# cases one after another, and under ASan at -O0 the whole tree takes about
# a minute of CPU.
golden=(tests/golden/*/)
half=$(((${#golden[@]} + 1) / 2))
step 420 $build/tools/carve test "${golden[@]:0:half}" &
first=$!
step 420 $build/tools/carve test "${golden[@]:half}" || status=1
wait $first || status=1
if ((ci)); then
  # Programs 1..300, or as many as start within 60 s (about 100 at -O0 on
  # an idle machine): the random step's share of CI's budget.
  step 150 $build/testing/carve-random --diff --seed 1 --count 300 --time-limit 60 --quiet \
    --known tests/random/known_failures.txt || true
  # A bounded libFuzzer run of each target, two at a time (one per core):
  # FUZZ_SECONDS each (25 by default; 5 targets, about 75 s of wall time on
  # an idle machine). Each run first replays the checked-in seed corpus,
  # then mutates it; leak detection is on for every input (each target drops
  # its input's texts: SourceManager::Scope). New inputs go to a scratch
  # corpus in $build, never into fuzz/corpus. A crash, leak, sanitizer report
  # or hang (-timeout: 60 s for one input, generous for a loaded -O0 build)
  # fails the step, and the reproducer's path is printed with the command
  # that replays it.
  fuzz_seconds=${FUZZ_SECONDS:-25}
  fuzz_one() {  # fuzz_one TARGET: exit status of the libFuzzer run
    local t=$1 dir=$build/fuzz-ci
    rm -rf "$dir/corpus/$t" "$dir/artifacts/$t"
    mkdir -p "$dir/corpus/$t" "$dir/artifacts/$t"
    # The outer timeout only guards against libFuzzer itself not stopping.
    if timeout $((fuzz_seconds + 300)) "$build/fuzz/fuzz_$t" -max_total_time="$fuzz_seconds" -max_len=4096 -timeout=60 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$t/" \
        "$dir/corpus/$t" "fuzz/corpus/$t" >"$dir/fuzz_$t.log" 2>&1; then
      grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec)' "$dir/fuzz_$t.log" |
        sed "s/^/== sanitize: fuzz_$t: /" >&2 || true
      return 0
    fi
    tail -n 60 "$dir/fuzz_$t.log" >&2
    local f
    for f in "$dir/artifacts/$t"/*; do
      [[ -e $f ]] && echo "== sanitize: FAILED: fuzz_$t: reproducer $f" \
        "(replay: $build/fuzz/fuzz_$t $f)" >&2
    done
    return 1
  }
  echo "== sanitize: fuzzing each target for ${fuzz_seconds}s, two at a time" >&2
  start=$SECONDS
  pending=("${fuzzers[@]}")
  while ((${#pending[@]} > 0)); do
    pids=()
    for t in "${pending[@]:0:2}"; do
      fuzz_one "$t" &
      pids+=($!)
    done
    pending=("${pending[@]:2}")
    for pid in "${pids[@]}"; do
      wait "$pid" || status=1
    done
  done
  echo "== sanitize: $((SECONDS - start))s: fuzzing" >&2
  exit $status
fi
step 180 $build/testing/carve-random --diff --seed 1 --count 200 --time-limit 120 --quiet \
  --known tests/random/known_failures.txt || true
# Executions per target: about 10 s each on an idle 2-core machine.
declare -A runs=([relay]=2000 [pat]=500 [npy]=200000 [byoc]=100 [run]=200)
for t in "${fuzzers[@]}"; do
  step 120 scripts/fuzz.sh "$t" 60 -seed=1 -runs="${runs[$t]}" || true
done
exit $status
