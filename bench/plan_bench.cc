// Execution plans (interpreter/plan.h) against the tree walker on the models
// of ../shared/models, imported as `carve import --freeze` does, one thread.
//
//   build/bench/plan_bench [--benchmark_filter=squeezenet]
//
// Each iteration runs @main once with the tree walker and once with plans,
// alternately, on the same interpreter-cached state, and times each call's
// CPU time; the counters are the medians (walk_us, plan_us) and their ratio
// (walk_over_plan), so both sides see the same machine load. Outputs are
// checked bit-equal on the first iteration.
#include <time.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "frontend/onnx/import.h"
#include "interpreter/evaluator.h"
#include "passes/infer/infer_type.h"

namespace carve {
namespace {

std::string SharedDir() {
  const char* shared = std::getenv("CARVE_SHARED_DIR");
  return shared ? shared : "../shared";
}

double ThreadCpuMicros() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e6 + double(t.tv_nsec) * 1e-3;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Inputs in [-1, 1) from a fixed linear congruential sequence.
std::vector<NDArray> MakeInputs(const Function& main) {
  std::vector<NDArray> inputs;
  uint32_t state = 12345;
  for (const Var* p : main.params()) {
    const TensorType* t = DynCast<TensorType>(p->checked_type());
    std::vector<int64_t> shape;
    for (const auto& d : t->shape()) shape.push_back(d.value);
    NDArray a = NDArray::Empty(t->dtype(), shape);
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      state = state * 1664525u + 1013904223u;
      a.SetFromDouble(i, double(state >> 8) / double(1 << 23) - 1.0);
    }
    inputs.push_back(std::move(a));
  }
  return inputs;
}

void PlanVsWalk(benchmark::State& state, const char* file, const char* input,
                std::vector<int64_t> shape) {
  std::ifstream in(SharedDir() + "/models/" + file, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  onnx_import::ImportOptions options;
  options.freeze = true;
  if (input[0] != '\0') options.shapes[input] = shape;
  auto imported = onnx_import::ImportOnnx(bytes.str(), options);
  if (!imported.ok() || !InferType(imported->module).ok()) {
    state.SkipWithError(("cannot import " + std::string(file) + " (set CARVE_SHARED_DIR)").c_str());
    return;
  }
  const Module& mod = imported->module;
  const std::vector<NDArray> inputs = MakeInputs(*mod.Lookup("main"));
  InterpreterOptions walk_options;
  walk_options.use_plans = false;
  Interpreter walker(mod, walk_options), planner(mod);
  std::vector<double> walk_us, plan_us;
  bool checked = false;
  for (auto _ : state) {
    double t0 = ThreadCpuMicros();
    auto walked = walker.RunFlat("main", inputs);
    double t1 = ThreadCpuMicros();
    auto planned = planner.RunFlat("main", inputs);
    double t2 = ThreadCpuMicros();
    if (!walked.ok() || !planned.ok()) {
      state.SkipWithError("run failed");
      return;
    }
    if (!checked && !(*walked)[0].BitwiseEqual((*planned)[0])) {
      state.SkipWithError("plan and tree walker differ");
      return;
    }
    checked = true;
    walk_us.push_back(t1 - t0);
    plan_us.push_back(t2 - t1);
  }
  const double walk = Median(walk_us), plan = Median(plan_us);
  state.counters["walk_us"] = walk;
  state.counters["plan_us"] = plan;
  state.counters["walk_over_plan"] = plan > 0 ? walk / plan : 0;
}

BENCHMARK_CAPTURE(PlanVsWalk, fmnist_cnn, "fmnist_cnn.onnx", "input", {1, 1, 28, 28});
BENCHMARK_CAPTURE(PlanVsWalk, ppocr_cls, "ch_ppocr_mobile_v2.0_cls_infer.onnx", "x",
                  {1, 3, 48, 192});
BENCHMARK_CAPTURE(PlanVsWalk, squeezenet1_1, "squeezenet1_1.onnx", "", {});
BENCHMARK_CAPTURE(PlanVsWalk, tiny_transformer, "tiny_transformer.onnx", "", {});

}  // namespace
}  // namespace carve

BENCHMARK_MAIN();
