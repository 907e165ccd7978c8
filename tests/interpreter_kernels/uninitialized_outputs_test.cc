// Kernels that allocate their output without the zero fill
// (AllocOutputUninitialized) must write every element: concatenate, stack,
// the pools, the binary element-wise ops and batch_norm. Each case first leaves freed blocks of the output's size
// full of 0xff bytes (a NaN pattern) on the heap, so an element a kernel
// skipped would most likely read back as that garbage (glibc hands such a
// block back for the next allocation of its size from about 6 KB up, so
// every output here is at least 2048 floats), and compares the result
// with a plain loop bit for bit. The pool cases also pin the AVX2 /
// AVX-512 3x3 and 2x2 stride-2 paths (whole windows) on NaN, -0 and +0:
// max keeps `v > acc ? v : acc` (a NaN never wins, the first of equal
// zeros stays), avg sums the taps in (kh, kw) order and divides once.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "interpreter/kernels/alloc_uninitialized.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

// Allocates and frees several tensors of `shape` filled with 0xff bytes,
// so the next allocation of that size is likely to reuse dirty memory.
void DirtyHeap(DataType dtype, const std::vector<int64_t>& shape) {
  std::vector<NDArray> dirty;
  for (int i = 0; i < 4; ++i) {
    dirty.push_back(NDArray::Uninitialized(dtype, shape));
    std::memset(dirty.back().raw_data(), 0xff, size_t(dirty.back().nbytes()));
  }
}

void ExpectSameFloats(const NDArray& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.num_elements(), int64_t(want.size())) << what;
  const float* g = got.data<float>();
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(0, std::memcmp(&g[i], &want[i], sizeof(float)))
        << what << " element " << i << ": got " << g[i] << ", want " << want[i];
  }
}

std::vector<float> Values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(-1, 1);
  std::uniform_int_distribution<int> pick(0, 11);
  std::vector<float> v(n);
  for (float& x : v) {
    const int k = pick(rng);
    x = k == 0   ? std::numeric_limits<float>::quiet_NaN()
        : k == 1 ? -0.0f
        : k == 2 ? 0.0f
        : k == 3 ? 1e8f * unit(rng)
                 : unit(rng);
  }
  return v;
}

NDArray FloatTensor(const std::vector<int64_t>& shape, const std::vector<float>& v) {
  NDArray a = NDArray::Empty(DataType::Float(32), shape);
  std::memcpy(a.raw_data(), v.data(), v.size() * sizeof(float));
  return a;
}

// concatenate of three NCHW parts along every axis, and stack of them.
TEST(UninitializedOutputs, ConcatenateAndStackWriteEveryElement) {
  const std::vector<int64_t> base = {2, 10, 16, 24};
  for (int axis = 0; axis < 4; ++axis) {
    std::vector<std::vector<int64_t>> shapes;
    std::vector<NDArray> parts;
    std::vector<std::vector<float>> values;
    std::vector<int64_t> out_shape = base;
    out_shape[axis] = 0;
    for (int i = 0; i < 3; ++i) {
      std::vector<int64_t> s = base;
      s[axis] = i + 1;
      out_shape[axis] += s[axis];
      int64_t n = 1;
      for (int64_t d : s) n *= d;
      values.push_back(Values(n, 10 * axis + i));
      parts.push_back(FloatTensor(s, values.back()));
      shapes.push_back(s);
    }
    // The definition: for each index of the axes before `axis`, each part's
    // block of rows in turn.
    std::vector<float> want;
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= base[d];
    for (int64_t o = 0; o < outer; ++o) {
      for (int i = 0; i < 3; ++i) {
        const int64_t block = int64_t(values[i].size()) / outer;
        want.insert(want.end(), values[i].begin() + o * block, values[i].begin() + (o + 1) * block);
      }
    }
    DirtyHeap(DataType::Float(32), out_shape);
    auto got = RunKernel1("concatenate", parts,
                          MakeAttrs("relay.attrs.ConcatenateAttrs", {{"axis", Int(axis)}}),
                          TypeOf(DataType::Float(32), out_shape));
    CARVE_ASSERT_OK(got);
    ExpectSameFloats(*got, want, "concatenate axis " + std::to_string(axis));
  }
  // stack of three [40, 32] tensors along axis 1: out[i][j][k] = part j
  // [i][k].
  std::vector<NDArray> parts;
  std::vector<std::vector<float>> values;
  for (int j = 0; j < 3; ++j) {
    values.push_back(Values(40 * 32, 100 + j));
    parts.push_back(FloatTensor({40, 32}, values.back()));
  }
  std::vector<float> want;
  for (int i = 0; i < 40; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 32; ++k) want.push_back(values[j][i * 32 + k]);
    }
  }
  DirtyHeap(DataType::Float(32), {40, 3, 32});
  auto got = RunKernel1("stack", parts, MakeAttrs("relay.attrs.StackAttrs", {{"axis", Int(1)}}),
                        TypeOf(DataType::Float(32), {40, 3, 32}));
  CARVE_ASSERT_OK(got);
  ExpectSameFloats(*got, want, "stack");
}

// One max or avg pool output, taps in (kh, kw) order, windows inside the
// plane (no padding).
float PoolAt(const std::vector<float>& x, int64_t plane, int64_t h, int64_t w, int64_t k,
             int64_t s, int64_t i, int64_t j, bool max) {
  float acc = max ? std::numeric_limits<float>::lowest() : 0.0f;
  for (int64_t a = 0; a < k; ++a) {
    for (int64_t b = 0; b < k; ++b) {
      const float e = x[(plane * h + i * s + a) * w + j * s + b];
      acc = max ? (e > acc ? e : acc) : acc + e;
    }
  }
  return max ? acc : acc / float(k * k);
}

// SqueezeNet's 3x3 / 2 (ceil_mode, which adds no window when the windows
// fit) and LeNet's 2x2 / 2 over every width from 1 to 45: the vector
// columns (8 or 16 at a time) and the scalar rest.
TEST(UninitializedOutputs, WholeWindowStride2PoolsMatchTheDefinition) {
  for (int64_t k : {3, 2}) {
    const int64_t h = 2 * 4 + k;  // 5 output rows, every window whole
    for (int64_t w = k; w <= 45; ++w) {
      const int64_t oh = (h - k) / 2 + 1, ow = (w - k) / 2 + 1;
      if (k == 3 && (w - k) % 2 != 0) continue;  // ceil_mode would add a partial window
      const int64_t planes = (2048 + oh * ow - 1) / (oh * ow);
      const std::vector<float> x = Values(planes * h * w, uint32_t(100 * k + w));
      for (bool max : {true, false}) {
        std::vector<float> want;
        for (int64_t p = 0; p < planes; ++p) {
          for (int64_t i = 0; i < oh; ++i) {
            for (int64_t j = 0; j < ow; ++j) want.push_back(PoolAt(x, p, h, w, k, 2, i, j, max));
          }
        }
        DirtyHeap(DataType::Float(32), {1, planes, oh, ow});
        auto got = RunKernel1(
            max ? "nn.max_pool2d" : "nn.avg_pool2d", {FloatTensor({1, planes, h, w}, x)},
            MakeAttrs(max ? "relay.attrs.MaxPool2DAttrs" : "relay.attrs.AvgPool2DAttrs",
                      {{"pool_size", Ints({k, k})},
                       {"strides", Ints({2, 2})},
                       {"padding", Ints({0, 0, 0, 0})},
                       {"ceil_mode", Bool(k == 3)}}),
            TypeOf(DataType::Float(32), {1, planes, oh, ow}));
        CARVE_ASSERT_OK(got);
        ExpectSameFloats(*got, want,
                         std::string(max ? "max" : "avg") + " k " + std::to_string(k) +
                             " width " + std::to_string(w));
      }
    }
  }
}

// An NHWC pool (pooled through a permuted buffer, then stored back) and a
// global pool also write every element.
TEST(UninitializedOutputs, PermutedAndGlobalPools) {
  const int64_t h = 7, w = 9, c = 200;
  const std::vector<float> x = Values(h * w * c, 7);
  std::vector<float> want;  // NHWC output of a 3x3 / 2 max pool
  const int64_t oh = 3, ow = 4;
  for (int64_t i = 0; i < oh; ++i) {
    for (int64_t j = 0; j < ow; ++j) {
      for (int64_t ch = 0; ch < c; ++ch) {
        float acc = std::numeric_limits<float>::lowest();
        for (int64_t a = 0; a < 3; ++a) {
          for (int64_t b = 0; b < 3; ++b) {
            const float e = x[((i * 2 + a) * w + j * 2 + b) * c + ch];
            acc = e > acc ? e : acc;
          }
        }
        want.push_back(acc);
      }
    }
  }
  DirtyHeap(DataType::Float(32), {1, oh, ow, c});
  auto got = RunKernel1("nn.max_pool2d", {FloatTensor({1, h, w, c}, x)},
                        MakeAttrs("relay.attrs.MaxPool2DAttrs", {{"pool_size", Ints({3, 3})},
                                                                 {"strides", Ints({2, 2})},
                                                                 {"layout", Str("NHWC")}}),
                        TypeOf(DataType::Float(32), {1, oh, ow, c}));
  CARVE_ASSERT_OK(got);
  ExpectSameFloats(*got, want, "NHWC max pool");

  // global average of 2051 NCHW planes (groups of eight and a rest)
  const int64_t planes = 2051;
  const std::vector<float> g = Values(planes * h * w, 8);
  std::vector<float> avg;
  for (int64_t p = 0; p < planes; ++p) {
    float sum = 0.0f;
    for (int64_t i = 0; i < h * w; ++i) sum = sum + g[p * h * w + i];
    avg.push_back(sum / float(h * w));
  }
  DirtyHeap(DataType::Float(32), {1, planes, 1, 1});
  auto global = RunKernel1("nn.global_avg_pool2d", {FloatTensor({1, planes, h, w}, g)},
                           MakeAttrs("relay.attrs.GlobalPool2DAttrs", {}),
                           TypeOf(DataType::Float(32), {1, planes, 1, 1}));
  CARVE_ASSERT_OK(global);
  ExpectSameFloats(*global, avg, "global avg pool");
}


// add with a broadcast operand and with two full ones, and less (a bool
// output): every element is a op b.
TEST(UninitializedOutputs, BinaryOpsWriteEveryElement) {
  const std::vector<int64_t> shape = {1, 8, 16, 20};
  const std::vector<float> a = Values(8 * 16 * 20, 21), b = Values(8 * 16 * 20, 22);
  const std::vector<float> bias = Values(8, 23);
  std::vector<float> sum, bsum;
  for (int64_t i = 0; i < int64_t(a.size()); ++i) {
    sum.push_back(a[i] + b[i]);
    bsum.push_back(a[i] + bias[i / (16 * 20)]);
  }
  DirtyHeap(DataType::Float(32), shape);
  auto got = RunKernel1("add", {FloatTensor(shape, a), FloatTensor(shape, b)}, EmptyAttrs(),
                        TypeOf(DataType::Float(32), shape));
  CARVE_ASSERT_OK(got);
  ExpectSameFloats(*got, sum, "add");
  DirtyHeap(DataType::Float(32), shape);
  got = RunKernel1("add", {FloatTensor(shape, a), FloatTensor({8, 1, 1}, bias)}, EmptyAttrs(),
                   TypeOf(DataType::Float(32), shape));
  CARVE_ASSERT_OK(got);
  ExpectSameFloats(*got, bsum, "add, broadcast");
  const std::vector<int64_t> big = {1, 8, 32, 40};  // 10240 bools
  const std::vector<float> x = Values(8 * 32 * 40, 24), y = Values(8 * 32 * 40, 25);
  DirtyHeap(DataType::Bool(), big);
  auto less = RunKernel1("less", {FloatTensor(big, x), FloatTensor(big, y)}, EmptyAttrs(),
                         TypeOf(DataType::Bool(), big));
  CARVE_ASSERT_OK(less);
  const bool* l = less->data<bool>();
  for (size_t i = 0; i < x.size(); ++i) {
    uint8_t byte;
    std::memcpy(&byte, &l[i], 1);
    ASSERT_EQ(byte, x[i] < y[i] ? 1 : 0) << "less element " << i;
  }
}

// batch_norm's three outputs: x * s + t per channel (s and t as
// SimplifyInference computes them), the mean and the variance.
TEST(UninitializedOutputs, BatchNormWritesEveryElement) {
  const int64_t c = 8, h = 16, w = 20;
  std::vector<float> x = Values(c * h * w, 31);
  for (float& v : x) v = std::isnan(v) ? 0.5f : v;
  const std::vector<float> gamma = Values(c, 32), beta = Values(c, 33), mean = Values(c, 34);
  std::vector<float> var = Values(c, 35);
  for (float& v : var) v = std::isnan(v) ? 1.0f : std::abs(v) + 0.5f;
  std::vector<float> g(gamma), bt(beta), mn(mean);
  for (float* p : {g.data(), bt.data(), mn.data()}) {
    for (int64_t i = 0; i < c; ++i) p[i] = std::isnan(p[i]) ? 0.25f : p[i];
  }
  std::vector<double> want;
  for (int64_t ch = 0; ch < c; ++ch) {
    const float s = (1.0f / std::sqrt(var[ch] + 1e-5f)) * g[ch], t = (-mn[ch]) * s + bt[ch];
    for (int64_t i = 0; i < h * w; ++i) want.push_back(double(x[ch * h * w + i] * s + t));
  }
  const std::vector<const Type*> fields = {TypeOf(DataType::Float(32), {1, c, h, w}),
                                           TypeOf(DataType::Float(32), {c}),
                                           TypeOf(DataType::Float(32), {c})};
  DirtyHeap(DataType::Float(32), {1, c, h, w});
  auto outs = RunKernel(
      "nn.batch_norm",
      {FloatTensor({1, c, h, w}, x), FloatTensor({c}, g), FloatTensor({c}, bt),
       FloatTensor({c}, mn), FloatTensor({c}, var)},
      MakeAttrs("relay.attrs.BatchNormAttrs", {}),
      TupleTy(fields));
  CARVE_ASSERT_OK(outs);
  ASSERT_EQ(outs->size(), 3u);
  // One rounding of x * s + t may be fused or not: compare within 1e-6.
  ExpectNear(AsDoubles((*outs)[0]), want, 1e-6, "batch_norm data");
  ExpectSameFloats((*outs)[1], mn, "batch_norm mean");
  ExpectSameFloats((*outs)[2], var, "batch_norm var");
}

}  // namespace
}  // namespace carve::kernel_testing
