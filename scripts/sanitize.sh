#!/usr/bin/env bash
# The sanitizer step of CI (scripts/test.sh runs it after the normal suite):
# an ASan + UBSan build (clang-14, the libFuzzer configuration of
# scripts/fuzz.sh in ./build-fuzz; the gcc build in ./build is untouched),
# then, each under a time limit:
#   1. the unit tests that exercise the most code: parser, BYOC passes,
#      backends, interpreter kernels, the CLI, the random-program generator;
#   2. every golden file through the sanitized `carve test`;
#   3. 200 random programs through the differential test (carve-random);
#   4. a short deterministic run of each libFuzzer target (-seed=1, a fixed
#      number of executions) from the checked-in seed corpus.
# A sanitizer report, a leak or a failure fails the step. The whole suite
# does not fit the CI budget sanitized (docs/fuzzing.md has the timings).
set -euo pipefail
cd "$(dirname "$0")/.."

launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" -DCARVE_FUZZ=ON \
  -DCARVE_BUILD_TESTS=ON -DCARVE_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
tests=(grammar_parser_tests passes_byoc_tests backends_tests interpreter_kernels_tests
       tools_cli_tests random_tests)
fuzzers=(relay pat npy byoc run)
ninja -C build-fuzz carve carve-random "${tests[@]}" "${fuzzers[@]/#/fuzz_}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tests/sanitizers/ubsan.supp
export CARVE_SHARED_DIR=${CARVE_SHARED_DIR:-$PWD/../shared}

status=0
step() {  # step SECONDS COMMAND...: runs COMMAND, fails the step on error
  local seconds=$1
  shift
  echo "== sanitize: $* (limit ${seconds}s)" >&2
  local start=$SECONDS
  if ! timeout "$seconds" "$@"; then
    echo "== sanitize: FAILED: $*" >&2
    status=1
  fi
  echo "== sanitize: $((SECONDS - start))s" >&2
}

for t in "${tests[@]}"; do
  step 300 "build-fuzz/tests/$t" --gtest_brief=1
done
step 300 build-fuzz/tools/carve test tests/golden
step 180 build-fuzz/testing/carve-random --diff --seed 1 --count 200 --time-limit 120 --quiet \
  --known tests/random/known_failures.txt
# Executions per target: about 10 s each on an idle 2-core machine.
declare -A runs=([relay]=2000 [pat]=500 [npy]=200000 [byoc]=100 [run]=200)
for t in "${fuzzers[@]}"; do
  step 120 scripts/fuzz.sh "$t" 60 -seed=1 -runs="${runs[$t]}"
done
exit $status
