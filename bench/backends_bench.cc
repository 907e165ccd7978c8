// Backend composites on the same shapes, three ways, through the JSON runtime
// exactly as `carve run` runs an offloaded function:
//
//   Dnnl     the dnnl runtime: one oneDNN primitive with bias / post-ops
//   Fused    carve's fused kernel: reference anchor + one-pass epilogue
//   OpByOp   the composite's body node by node on the reference kernels
//
//   build/bench/backends_bench --benchmark_min_time=1
//
// and the dnnl runtime's layout conversions alone (ToBlocks, FromBlocks).
//
// Weights and biases are constants of the graph (bound params).
//
// Everything runs on one thread (OMP_NUM_THREADS defaults to 1 here, set
// before libgomp loads by re-executing the benchmark, and the
// Eigen kernels get no thread pool), so the ratios compare kernels, not core
// counts. Counters: GFLOP/s of the anchor (2 * MACs).
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "backends/dnnl/dnnl_kernels.h"
#include "backends/dnnl/dnnl_transpose.h"
#include "backends/json/serializer.h"
#include "backends/kernels/eigen_backend.h"
#include "backends/kernels/fused_kernels.h"
#include "backends/runtime/backend_runtime.h"
#include "backends/runtime/json_runtime.h"
#include "benchmark/benchmark.h"
#include "fmt/format.h"
#include "grammar/parser.h"
#include "passes/infer/infer_type.h"

namespace carve {
namespace {

struct Workload {
  std::string name;
  std::string text;     // @part(%i0, ...) holding one composite call
  double flops = 0;     // of the anchor
};

// conv2d (3x3, pad 1) + bias + relu on [1, C, H, W] -> [1, O, H, W].
Workload Conv(int64_t c, int64_t o, int64_t h) {
  std::string x = fmt::format("Tensor[(1, {}, {}, {}), float32]", c, h, h);
  std::string w = fmt::format("Tensor[({}, {}, 3, 3), float32]", o, c);
  std::string b = fmt::format("Tensor[({}, 1, 1), float32]", o);
  std::string text = fmt::format(R"(#[version = "0.0.5"]
def @part(%i0: {0}, %i1: {1}, %i2: {2}, Compiler="bench") {{
  %0 = fn (%x: {0}, %w: {1}, %b: {2}, PartitionedFromPattern="nn.conv2d_add_nn.relu_",
           Composite="bench.conv2d_bias_relu") {{
    nn.relu(add(nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels={3}, kernel_size=[3, 3]), %b))
  }};
  %0(%i0, %i1, %i2)
}}
)",
                                 x, w, b, o);
  return {fmt::format("conv2d_bias_relu/{}x{}x{}->{}", c, h, h, o), text,
          2.0 * double(o) * c * 9 * h * h};
}

// dense + bias + erf-GELU on [M, K] x [N, K].
Workload DenseGelu(int64_t m, int64_t k, int64_t n) {
  std::string x = fmt::format("Tensor[({}, {}), float32]", m, k);
  std::string w = fmt::format("Tensor[({}, {}), float32]", n, k);
  std::string b = fmt::format("Tensor[({}), float32]", n);
  std::string text = fmt::format(R"(#[version = "0.0.5"]
def @part(%i0: {0}, %i1: {1}, %i2: {2}, Compiler="bench") {{
  %0 = fn (%x: {0}, %w: {1}, %b: {2},
           PartitionedFromPattern="nn.dense_add_divide_erf_add_multiply_multiply_",
           Composite="bench.dense_bias_gelu") {{
    %1 = add(nn.dense(%x, %w), %b);
    multiply(multiply(%1, add(erf(divide(%1, 1.41421f)), 1f)), 0.5f)
  }};
  %0(%i0, %i1, %i2)
}}
)",
                                 x, w, b);
  return {fmt::format("dense_bias_gelu/{}x{}x{}", m, k, n), text, 2.0 * double(m) * k * n};
}

std::shared_ptr<const BackendKernels> Kernels(const std::string& impl) {
  if (impl == "Dnnl") return dnnl_backend::MakeDnnlKernels("bench");
  if (impl == "Fused") return MakeEigenBackend("bench");
  auto k = std::make_shared<BackendKernels>("bench");
  k->SetCompositeDefault(MakeBodyKernel);
  return k;
}

NDArray Random(const std::vector<int64_t>& shape, uint32_t seed) {
  NDArray t = NDArray::Empty(DataType::Float(32), shape);
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = float(s >> 8) / float(1 << 24) - 0.5f;
  }
  return t;
}

void Run(benchmark::State& state, const Workload& w, const std::string& impl) {
  absl::StatusOr<Module> mod = ParseModule("bench.relay", w.text);
  if (!mod.ok() || !InferType(*mod).ok()) {
    state.SkipWithError("bad workload");
    return;
  }
  absl::StatusOr<SerializedFunction> s = SerializeFunction(mod->Lookup("part"), "part");
  if (!s.ok()) {
    state.SkipWithError(std::string(s.status().message()).c_str());
    return;
  }
  // The GELU's scalars are const nodes of the graph; weights and bias become
  // constants too, as the bound params of partition_for_<backend> (oneDNN
  // packs constant weights once).
  std::map<std::string, NDArray, std::less<>> constants(s->constants.begin(), s->constants.end());
  for (uint32_t nid : s->graph.ArgNodes()) {
    JsonNode& node = s->graph.nodes[nid];
    if (node.op != "input" || nid == 0) continue;
    node.op = "const";
    node.name = fmt::format("weight_{}", nid);
    constants.emplace(node.name, Random(node.shapes[0], nid));
  }
  auto rt = JsonRuntime::Create(s->graph, constants, *Kernels(impl));
  if (!rt.ok()) {
    state.SkipWithError(std::string(rt.status().message()).c_str());
    return;
  }
  std::vector<NDArray> inputs;
  for (uint32_t nid : s->graph.ArgNodes()) {
    const JsonNode& node = s->graph.nodes[nid];
    if (node.op == "input") inputs.push_back(Random(node.shapes[0], nid));
  }
  for (auto _ : state) {
    auto out = (*rt)->Run(inputs);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out->front().raw_data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(w.flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// carve's conversions between NCHW and oneDNN's channel blocks of 8 (what
// a dnnl region does to each input and output on AVX2), on squeezenet1_1's
// fire-module shapes: "ToBlocks/C/HxW" and "FromBlocks/C/HxW".
void Transpose(benchmark::State& state, int64_t channels, int64_t side, bool to_blocked) {
  dnnl_backend::ChannelsTranspose t;
  t.batch = 1, t.rows = channels, t.channels = channels, t.cols = side * side;
  t.block = 8, t.to_blocked = to_blocked;
  std::vector<float> src(size_t(channels * side * side), 1.f), dst(src.size());
  for (auto _ : state) {
    t.Run(src.data(), dst.data());
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(src.size() * 8));
}

void RegisterAll() {
  for (auto [channels, side] : std::vector<std::pair<int64_t, int64_t>>{{64, 55}, {128, 27}, {256, 13}}) {
    for (bool to_blocked : {true, false}) {
      benchmark::RegisterBenchmark(
          fmt::format("{}/{}/{}x{}", to_blocked ? "ToBlocks" : "FromBlocks", channels, side, side)
              .c_str(),
          [=](benchmark::State& st) { Transpose(st, channels, side, to_blocked); })
          ->Unit(benchmark::kMicrosecond);
    }
  }
  std::vector<Workload> workloads = {Conv(64, 64, 56), Conv(128, 128, 28), Conv(3, 32, 112),
                                     DenseGelu(1, 1024, 1000), DenseGelu(128, 768, 3072)};
  for (const Workload& w : workloads) {
    for (const char* impl : {"Dnnl", "Fused", "OpByOp"}) {
      benchmark::RegisterBenchmark(fmt::format("{}/{}", impl, w.name).c_str(),
                                   [w, impl](benchmark::State& st) { Run(st, w, impl); })
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace
}  // namespace carve

int main(int argc, char** argv) {
  // libgomp reads OMP_NUM_THREADS when it is loaded, before main: set it and
  // start again, or oneDNN runs one OpenMP thread per core, whose spinning
  // barriers dominate on a loaded machine.
  if (std::getenv("OMP_NUM_THREADS") == nullptr) {
    setenv("OMP_NUM_THREADS", "1", /*overwrite=*/1);
    execv("/proc/self/exe", argv);  // returns only on failure: run as is
  }
  carve::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
