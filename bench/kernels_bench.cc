// Throughput of the GEMM-backed nn kernels (dense, batch_matmul, conv2d)
// against this machine's measured single-core fp32 FMA peak.
//
//   build-kernels/bench/kernels_bench --benchmark_min_time=2
//
// BM_FmaPeak measures the peak with independent FMA chains (enough of them
// to cover FMA latency on both FMA pipes). Every kernel benchmark reports
// GFLOP/s and `peak_frac` = GFLOP/s / that peak. Rates are per CPU second
// (Google Benchmark's default for single-threaded runs, and process CPU
// time for the threaded ones, so a threaded peak_frac is the efficiency per
// core), which keeps the ratios meaningful on a shared, loaded machine;
// the wall time is printed alongside. Kernels run through the registry with
// a KernelContext, exactly as the evaluator calls them.
#define EIGEN_USE_THREADS
#include <immintrin.h>
#include <time.h>

#include <string>
#include <string_view>
#include <unsupported/Eigen/CXX11/Tensor>
#include <vector>

#include "benchmark/benchmark.h"
#include "interpreter/kernel.h"
#include "ir/attrs.h"
#include "ir/ndarray.h"
#include "ir/op.h"
#include "ir/type.h"

namespace carve {
namespace {

// Runs `iterations` rounds of kChains independent vector FMA chains and
// returns the flops executed. The chains keep both FMA pipes busy despite
// the 4-5 cycle FMA latency.
#if defined(__AVX512F__)
using Vec = __m512;
constexpr int kLanes = 16;
inline Vec Set1(float v) { return _mm512_set1_ps(v); }
inline Vec Fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline float Sum(Vec v) { return _mm512_reduce_add_ps(v); }
#elif defined(__FMA__)
using Vec = __m256;
constexpr int kLanes = 8;
inline Vec Set1(float v) { return _mm256_set1_ps(v); }
inline Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline float Sum(Vec v) {
  alignas(32) float f[8];
  _mm256_store_ps(f, v);
  return f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7];
}
#else
#error "kernels_bench measures the FMA peak with AVX2/FMA or AVX-512 intrinsics"
#endif

constexpr int kChains = 12;

double FmaRounds(int64_t iterations, float* sink) {
  Vec acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = Set1(float(i) * 1e-3f);
  const Vec a = Set1(0.999999f), b = Set1(1e-7f);
  for (int64_t it = 0; it < iterations; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = Fma(acc[i], a, b);
  }
  float s = 0;
  for (int i = 0; i < kChains; ++i) s += Sum(acc[i]);
  *sink = s;
  return double(iterations) * kChains * kLanes * 2;
}

// CPU time of the calling thread, in seconds.
double ThreadCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// The measured single-core fp32 peak in GFLOP/s per CPU second (best of a
// few runs).
double PeakGflops() {
  static const double peak = [] {
    double best = 0;
    float sink = 0;
    for (int run = 0; run < 5; ++run) {
      const double t0 = ThreadCpuSeconds();
      const double flops = FmaRounds(50'000'000, &sink);
      best = std::max(best, flops / (ThreadCpuSeconds() - t0) * 1e-9);
    }
    benchmark::DoNotOptimize(sink);
    return best;
  }();
  return peak;
}

void BM_FmaPeak(benchmark::State& state) {
  float sink = 0;
  double flops = 0;
  for (auto _ : state) {
    flops += FmaRounds(10'000'000, &sink);
    benchmark::DoNotOptimize(sink);
  }
  state.counters["GFLOPs"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsRate);
  state.counters["lanes"] = kLanes;
}
BENCHMARK(BM_FmaPeak)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------

NDArray RandomTensor(DataType dtype, const std::vector<int64_t>& shape) {
  NDArray a = NDArray::Empty(dtype, shape);
  uint32_t x = 12345;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    x = x * 1664525u + 1013904223u;
    a.SetFromDouble(i, double(x >> 8) / double(1 << 24) - 0.5);
  }
  return a;
}

const TensorType* TypeOf(DataType dtype, const std::vector<int64_t>& shape) {
  std::vector<Dim> dims;
  for (int64_t d : shape) dims.push_back(Dim{d, false});
  return TensorTy(dtype, dims);
}

const Attrs* AttrsOf(std::string_view type_key,
                     std::initializer_list<std::pair<std::string_view, AttrValue>> fields) {
  const AttrsSchema* schema = FindAttrsSchema(type_key);
  const Attrs* attrs = schema != nullptr ? DefaultAttrs(schema) : EmptyAttrs();
  for (const auto& [k, v] : fields) attrs = WithAttr(attrs, k, v);
  return attrs;
}

// Runs the kernel of `op` in the benchmark loop and reports throughput for
// `flops` per call.
void RunOp(benchmark::State& state, std::string_view op, std::vector<NDArray> inputs,
           const Attrs* attrs, const Type* out_type, double flops, int threads) {
  KernelFn fn = FindKernel(op);
  if (fn == nullptr) {
    state.SkipWithError("kernel not registered");
    return;
  }
  Eigen::ThreadPool pool(std::max(threads, 1));
  Eigen::ThreadPoolDevice device(&pool, std::max(threads, 1));
  KernelContext ctx;
  ctx.op = FindOp(op);
  ctx.inputs = inputs;
  ctx.attrs = attrs;
  ctx.out_type = out_type;
  ctx.device = threads > 1 ? &device : nullptr;
  for (auto _ : state) {
    auto out = fn(ctx);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out->front().raw_data());
  }
  const double gflops = flops * double(state.iterations()) * 1e-9;
  state.counters["GFLOPs"] = benchmark::Counter(gflops, benchmark::Counter::kIsRate);
  state.counters["peak_frac"] =
      benchmark::Counter(gflops / PeakGflops(), benchmark::Counter::kIsRate);
}

// args: M, K, N, threads. Y[M, N] = X[M, K] · W[N, K]ᵀ.
void BM_Dense(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const DataType f32 = DataType::Float(32);
  RunOp(state, "nn.dense", {RandomTensor(f32, {m, k}), RandomTensor(f32, {n, k})},
        AttrsOf("relay.attrs.DenseAttrs", {}), TypeOf(f32, {m, n}), 2.0 * m * n * k,
        int(state.range(3)));
}
BENCHMARK(BM_Dense)
    ->ArgNames({"M", "K", "N", "threads"})
    ->Args({512, 512, 512, 1})
    ->Args({1024, 1024, 1024, 1})
    ->Args({64, 2048, 1000, 1})
    ->Args({1, 2048, 1000, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Dense)
    ->ArgNames({"M", "K", "N", "threads"})
    ->Args({512, 512, 512, 2})
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

// args: batch, M, K, N, threads; B stored (batch, N, K) (transpose_b).
void BM_BatchMatmul(benchmark::State& state) {
  const int64_t b = state.range(0), m = state.range(1), k = state.range(2), n = state.range(3);
  const DataType f32 = DataType::Float(32);
  RunOp(state, "nn.batch_matmul", {RandomTensor(f32, {b, m, k}), RandomTensor(f32, {b, n, k})},
        AttrsOf("relay.attrs.BatchMatmulAttrs", {{"transpose_b", AttrValue::Bool(true)}}),
        TypeOf(f32, {b, m, n}), 2.0 * b * m * n * k, int(state.range(4)));
}
BENCHMARK(BM_BatchMatmul)
    ->ArgNames({"B", "M", "K", "N", "threads"})
    ->Args({1, 512, 512, 512, 1})
    ->Args({12, 128, 64, 128, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BatchMatmul)
    ->ArgNames({"B", "M", "K", "N", "threads"})
    ->Args({8, 256, 256, 256, 2})
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

// args: layout (0 = NCHW/OIHW, 1 = NHWC/HWIO), C, H=W, O, kernel, threads;
// batch 1, stride 1, "same" padding.
void BM_Conv2D(benchmark::State& state) {
  const bool nhwc = state.range(0) == 1;
  const int64_t c = state.range(1), hw = state.range(2), o = state.range(3), k = state.range(4);
  const int64_t pad = k / 2;
  const DataType f32 = DataType::Float(32);
  const std::vector<int64_t> data =
      nhwc ? std::vector<int64_t>{1, hw, hw, c} : std::vector<int64_t>{1, c, hw, hw};
  const std::vector<int64_t> weight =
      nhwc ? std::vector<int64_t>{k, k, c, o} : std::vector<int64_t>{o, c, k, k};
  const std::vector<int64_t> out =
      nhwc ? std::vector<int64_t>{1, hw, hw, o} : std::vector<int64_t>{1, o, hw, hw};
  RunOp(state, "nn.conv2d", {RandomTensor(f32, data), RandomTensor(f32, weight)},
        AttrsOf("relay.attrs.Conv2DAttrs",
                {{"padding", AttrValue::Ints({pad, pad, pad, pad})},
                 {"kernel_size", AttrValue::Ints({k, k})},
                 {"data_layout", AttrValue::Str(nhwc ? "NHWC" : "NCHW")},
                 {"kernel_layout", AttrValue::Str(nhwc ? "HWIO" : "OIHW")}}),
        TypeOf(f32, out), 2.0 * o * hw * hw * c * k * k, int(state.range(5)));
}
BENCHMARK(BM_Conv2D)
    ->ArgNames({"nhwc", "C", "HW", "O", "k", "threads"})
    ->Args({0, 64, 56, 64, 3, 1})
    ->Args({1, 64, 56, 64, 3, 1})
    ->Args({0, 64, 56, 256, 1, 1})
    ->Args({1, 64, 56, 256, 1, 1})
    ->Args({0, 64, 28, 128, 3, 1})
    ->Args({1, 64, 28, 128, 3, 1})
    ->Unit(benchmark::kMillisecond);
// ResNet-50 layers (NCHW): stride-2 3x3 and 1x1 convs, deep 1x1 stages,
// the 7x7 stem on 3 channels.
void BM_Conv2DStrided(benchmark::State& state) {
  const int64_t c = state.range(0), hw = state.range(1), o = state.range(2), k = state.range(3),
                s = state.range(4);
  const int64_t pad = k / 2, out_hw = (hw + 2 * pad - k) / s + 1;
  const DataType f32 = DataType::Float(32);
  RunOp(state, "nn.conv2d", {RandomTensor(f32, {1, c, hw, hw}), RandomTensor(f32, {o, c, k, k})},
        AttrsOf("relay.attrs.Conv2DAttrs", {{"strides", AttrValue::Ints({s, s})},
                                            {"padding", AttrValue::Ints({pad, pad, pad, pad})},
                                            {"kernel_size", AttrValue::Ints({k, k})}}),
        TypeOf(f32, {1, o, out_hw, out_hw}), 2.0 * o * out_hw * out_hw * c * k * k, 1);
}
BENCHMARK(BM_Conv2DStrided)
    ->ArgNames({"C", "HW", "O", "k", "stride"})
    ->Args({3, 224, 64, 7, 2})
    ->Args({256, 56, 64, 1, 1})
    ->Args({128, 56, 128, 3, 2})
    ->Args({512, 28, 128, 1, 1})
    ->Args({256, 14, 256, 3, 1})
    ->Args({1024, 14, 256, 1, 1})
    ->Args({512, 7, 512, 3, 1})
    ->Args({512, 7, 2048, 1, 1})
    ->Args({1024, 14, 2048, 1, 2})
    ->Unit(benchmark::kMillisecond);

// Depthwise convolutions (NCHW, groups = C, "same" padding, W stride 1):
// the PaddleOCR direction classifier's, whose planes are a few rows of 96
// columns, a MobileNet 3x3, and a single input channel with a channel
// multiplier (the Fashion-MNIST CNN's first layer, groups = 1).
// args: C, H, W, k, H stride, multiplier.
void BM_Depthwise(benchmark::State& state) {
  const int64_t c = state.range(0), h = state.range(1), w = state.range(2), k = state.range(3),
                sh = state.range(4), mult = state.range(5);
  const int64_t pad = k / 2, oh = (h + 2 * pad - k) / sh + 1;
  const DataType f32 = DataType::Float(32);
  RunOp(state, "nn.conv2d",
        {RandomTensor(f32, {1, c, h, w}), RandomTensor(f32, {c * mult, 1, k, k})},
        AttrsOf("relay.attrs.Conv2DAttrs", {{"strides", AttrValue::Ints({sh, 1})},
                                            {"padding", AttrValue::Ints({pad, pad, pad, pad})},
                                            {"groups", AttrValue::Int(c)},
                                            {"channels", AttrValue::Int(c * mult)},
                                            {"kernel_size", AttrValue::Ints({k, k})}}),
        TypeOf(f32, {1, c * mult, oh, w}), 2.0 * c * mult * oh * w * k * k, 1);
}
BENCHMARK(BM_Depthwise)
    ->ArgNames({"C", "H", "W", "k", "sh", "mult"})
    ->Args({200, 2, 96, 5, 1, 1})
    ->Args({88, 3, 96, 5, 1, 1})
    ->Args({104, 3, 96, 5, 2, 1})
    ->Args({32, 6, 96, 3, 1, 1})
    ->Args({24, 12, 96, 3, 2, 1})
    ->Args({32, 56, 56, 3, 1, 1})
    ->Args({1, 28, 28, 3, 1, 16})
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_Conv2D)
    ->ArgNames({"nhwc", "C", "HW", "O", "k", "threads"})
    ->Args({0, 64, 56, 64, 3, 2})
    ->Args({1, 64, 56, 64, 3, 2})
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

// Memory-bound data movement, reported as bytes read + written per CPU
// second: sum over a leading / trailing axis of (4096, 4096), and
// transposes (a 2-D matrix and NCHW -> NHWC).
void RunMoved(benchmark::State& state, std::string_view op, NDArray in, const Attrs* attrs,
              const Type* out_type, double bytes) {
  KernelFn fn = FindKernel(op);
  KernelContext ctx;
  ctx.op = FindOp(op);
  std::vector<NDArray> inputs = {std::move(in)};
  ctx.inputs = inputs;
  ctx.attrs = attrs;
  ctx.out_type = out_type;
  for (auto _ : state) {
    auto out = fn(ctx);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out->front().raw_data());
  }
  state.counters["GBps"] =
      benchmark::Counter(bytes * double(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
}

void BM_SumAxis(benchmark::State& state) {
  const int64_t axis = state.range(0), n = 4096;
  const DataType f32 = DataType::Float(32);
  RunMoved(state, "sum", RandomTensor(f32, {n, n}),
           AttrsOf("relay.attrs.ReduceAttrs", {{"axis", AttrValue::Ints({axis})}}),
           TypeOf(f32, {n}), 4.0 * n * (n + 1));
}
BENCHMARK(BM_SumAxis)->ArgName("axis")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Transpose(benchmark::State& state) {
  const DataType f32 = DataType::Float(32);
  if (state.range(0) == 0) {
    RunMoved(state, "transpose", RandomTensor(f32, {2048, 2048}),
             AttrsOf("relay.attrs.TransposeAttrs", {{"axes", AttrValue::Ints({1, 0})}}),
             TypeOf(f32, {2048, 2048}), 8.0 * 2048 * 2048);
  } else {
    RunMoved(state, "transpose", RandomTensor(f32, {1, 64, 112, 112}),
             AttrsOf("relay.attrs.TransposeAttrs", {{"axes", AttrValue::Ints({0, 2, 3, 1})}}),
             TypeOf(f32, {1, 112, 112, 64}), 8.0 * 64 * 112 * 112);
  }
}
BENCHMARK(BM_Transpose)->ArgName("nchw_to_nhwc")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace carve

BENCHMARK_MAIN();
