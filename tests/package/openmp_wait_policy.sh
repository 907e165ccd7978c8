#!/usr/bin/env bash
# `carve repl` and `carve run --threads N` (N > 1) execute themselves again
# with OMP_WAIT_POLICY=passive unless the user chose a policy
# (tools/cli/openmp_wait_policy.h): read from the running process's
# environment, which the re-execution replaces under the same PID.
set -euo pipefail
carve=$1

# The OMP_WAIT_POLICY in the environment of `carve repl` (started with
# ENV...), once it has run for a moment; "unset" when it has none.
policy_of_repl() {
  sleep 3 | env "$@" "$carve" repl > /dev/null 2>&1 &
  local pid=$! value=unset
  for _ in $(seq 30); do
    value=$({ tr '\0' '\n' < /proc/$pid/environ; } 2>/dev/null | sed -n 's/^OMP_WAIT_POLICY=//p')
    [[ -n $value ]] && break
    sleep 0.1
  done
  wait $pid || true
  echo "${value:-unset}"
}

got=$(policy_of_repl -u OMP_WAIT_POLICY)
[[ $got == passive ]] || { echo "error: carve repl runs with OMP_WAIT_POLICY=$got, expected passive" >&2; exit 1; }
sleep 0.5
got=$(policy_of_repl OMP_WAIT_POLICY=active)
[[ $got == active ]] || { echo "error: the user's OMP_WAIT_POLICY=active became $got" >&2; exit 1; }
echo ok
