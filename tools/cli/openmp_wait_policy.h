// Whether a carve invocation should run with OpenMP's passive wait policy.
//
// oneDNN runs on libgomp, whose default wait policy spins at every barrier
// for ~300,000 iterations before sleeping. With more than one thread and
// another process on a core, each spinning worker holds a core the others
// need: `carve run squeezenet1_1.dnnl.relay --threads 2` took 656 ms a call
// (median) against 33 ms with one thread while a build ran; with
// OMP_WAIT_POLICY=passive, 44 ms. libgomp reads the policy once, when it is
// loaded (before main), so carve sets it and executes itself again
// (tools/carve_main.cc); a user who sets OMP_WAIT_POLICY keeps their choice.
#pragma once

#include <string>
#include <vector>

namespace carve::cli {

// True for the commands that may run oneDNN on more than one thread: `run`
// with `--threads` other than 1, and `repl` (whose `run` takes --threads).
bool MayRunOpenMpThreads(const std::vector<std::string>& args);

}  // namespace carve::cli
