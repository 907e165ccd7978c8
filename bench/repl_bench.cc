// The REPL's answer times on a 100k-op generated ResNet-like graph (issue 16:
// each within 100 ms after the pass itself). Every benchmark runs REPL
// command lines on one Session, as a user types them:
//
//   BM_PassOverhead:   `pass MergeComposite(dnnl)` minus the pass's own time
//                      (recording the step: node counts of changed functions)
//   BM_Undo, BM_Goto:  moving in the history
//   BM_DiffOneFunction: `diff` of a step where one small function changed
//                      (@tiny; @main's 100k ops are the same pointer), both
//                      steps printed for the first time
//   BM_PrintNeighbourhood: `print %N 2` on a step printed for the first time
//   BM_CompleteNode:   completion of `print %12` on such a step
//
// Times are milliseconds per command (manual timing: setup commands such as
// the pass that makes a new step are not counted).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/relay_gen.h"
#include "benchmark/benchmark.h"
#include "tools/cli/env.h"
#include "tools/repl/commands.h"
#include "tools/repl/completion.h"
#include "tools/repl/session.h"

namespace carve::repl {
namespace {

constexpr int64_t kOps = 100000;

// The generated graph plus a small second function, which `RemoveDropout`
// changes while leaving @main as it is.
std::string GraphFile() {
  static const std::string path = [] {
    std::string text = bench::GenerateRelay(bench::GraphKind::kResNet, kOps);
    text +=
        "\ndef @tiny(%x: Tensor[(1, 8), float32]) {\n"
        "  %0 = nn.dropout(%x);\n  %1 = %0.0;\n  nn.relu(%1)\n}\n";
    std::string p = (std::filesystem::temp_directory_path() / "carve_repl_bench.relay").string();
    std::ofstream(p) << text;
    return p;
  }();
  return path;
}

struct Fixture {
  std::ostringstream out;
  cli::Env env = cli::RealEnv();
  Session session{env, {}};
  Fixture() {
    env.out = &out;
    env.err = &out;
    session.show_timing = false;
    Run("load " + GraphFile());
  }
  void Run(const std::string& line) {
    absl::Status s = RunCommandLine(session, line);
    if (!s.ok()) {  // a benchmark of a failing command measures nothing
      std::fprintf(stderr, "%s: %s\n", line.c_str(), std::string(s.message()).c_str());
      std::abort();
    }
    out.str("");
  }
};

Fixture& Shared() {
  static Fixture* f = new Fixture;
  return *f;
}

double Ms(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Runs `setup` untimed, then times `measured`, once per iteration.
template <typename Setup, typename Measured>
void Timed(benchmark::State& state, Setup setup, Measured measured) {
  for (auto _ : state) {
    setup();
    auto t0 = std::chrono::steady_clock::now();
    measured();
    auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(Ms(t0, t1) / 1e3);
  }
}

void BM_PassOverhead(benchmark::State& state) {
  Fixture& f = Shared();
  double pass_ms = 0;
  for (auto _ : state) {
    f.Run("goto 0");
    auto t0 = std::chrono::steady_clock::now();
    f.Run("pass MergeComposite(dnnl)");
    auto t1 = std::chrono::steady_clock::now();
    pass_ms = f.session.history().Current().seconds * 1e3;
    state.SetIterationTime((Ms(t0, t1) - pass_ms) / 1e3);
  }
  state.counters["pass_ms"] = pass_ms;
}
BENCHMARK(BM_PassOverhead)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_Undo(benchmark::State& state) {
  Fixture& f = Shared();
  f.Run("goto 0");
  f.Run("pass MergeComposite(dnnl)");
  Timed(
      state, [&] { f.Run("goto 1"); }, [&] { f.Run("undo"); });
}
BENCHMARK(BM_Undo)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(20);

void BM_Goto(benchmark::State& state) {
  Fixture& f = Shared();
  f.Run("goto 0");
  f.Run("pass MergeComposite(dnnl)");
  Timed(
      state, [&] { f.Run("goto 0"); }, [&] { f.Run("goto 1"); });
}
BENCHMARK(BM_Goto)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(20);

void BM_DiffOneFunction(benchmark::State& state) {
  Fixture& f = Shared();
  // Each iteration diffs two steps never printed before: a fresh load (step
  // 0) and RemoveDropout (step 1, @tiny changed).
  Timed(
      state,
      [&] {
        f.Run("load " + GraphFile());
        f.Run("pass RemoveDropout");
      },
      [&] { f.Run("diff"); });
}
BENCHMARK(BM_DiffOneFunction)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_PrintNeighbourhood(benchmark::State& state) {
  Fixture& f = Shared();
  Timed(
      state,
      [&] {
        f.Run("goto 0");
        f.Run("pass MergeComposite(dnnl)");
      },
      [&] { f.Run("print %5000 2"); });
}
BENCHMARK(BM_PrintNeighbourhood)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_CompleteNode(benchmark::State& state) {
  Fixture& f = Shared();
  size_t candidates = 0;
  Timed(
      state,
      [&] {
        f.Run("goto 0");
        f.Run("pass MergeComposite(dnnl)");
      },
      [&] { candidates = Complete(f.session, "print %12").candidates.size(); });
  state.counters["candidates"] = double(candidates);
}
BENCHMARK(BM_CompleteNode)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_CompletePass(benchmark::State& state) {
  Fixture& f = Shared();
  Timed(
      state, [] {}, [&] { benchmark::DoNotOptimize(Complete(f.session, "pass Merge")); });
}
BENCHMARK(BM_CompletePass)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace
}  // namespace carve::repl

BENCHMARK_MAIN();
