// Exhaustive sweeps against naive index arithmetic: transpose under every
// permutation of rank-4 shapes (with extent-1 axes and sizes past the copy
// tiles), and sum / max / mean / argmax / variance over every subset of
// axes (leading, trailing, middle and scattered blocks).
#include <algorithm>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

NDArray Iota(const std::vector<int64_t>& shape) {
  NDArray a = NDArray::Empty(DataType::Float(32), shape);
  for (int64_t i = 0; i < a.num_elements(); ++i) a.data<float>()[i] = float((i * 37) % 101) - 50;
  return a;
}

// The multi-index of flat index `flat` in `shape`.
std::vector<int64_t> Unflatten(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

AttrValue IntList(const std::vector<int64_t>& v) {
  std::vector<AttrValue> items;
  for (int64_t x : v) items.push_back(AttrValue::Int(x));
  return AttrValue::Array(std::span<const AttrValue>(items));
}

int64_t Flatten(const std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

TEST(Sweep, TransposeEveryPermutation) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{2, 3, 4, 5}, {1, 37, 1, 45}, {3, 1, 40, 33}, {70, 2, 1, 66}}) {
    NDArray in = Iota(shape);
    std::vector<int64_t> perm = {0, 1, 2, 3};
    do {
      auto out = RunOp1("transpose", {in}, {{"axes", IntList(perm)}});
      CARVE_ASSERT_OK(out);
      std::vector<int64_t> out_shape;
      for (int64_t p : perm) out_shape.push_back(shape[p]);
      ASSERT_EQ(out->num_elements(), in.num_elements());
      bool ok = true;
      for (int64_t f = 0; f < out->num_elements() && ok; ++f) {
        const std::vector<int64_t> oi = Unflatten(f, out_shape);
        std::vector<int64_t> ii(4);
        for (size_t d = 0; d < 4; ++d) ii[perm[d]] = oi[d];
        ok = out->data<float>()[f] == in.data<float>()[Flatten(ii, shape)];
      }
      EXPECT_TRUE(ok) << "shape " << ::testing::PrintToString(shape) << " perm "
                      << ::testing::PrintToString(perm);
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST(Sweep, ReductionsOverEveryAxisSubset) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{3, 4, 5, 6}, {5, 1, 7, 2}, {1, 9, 1, 8}}) {
    NDArray in = Iota(shape);
    for (int mask = 1; mask < 16; ++mask) {
      std::vector<int64_t> axes;
      for (int d = 0; d < 4; ++d) {
        if (mask & (1 << d)) axes.push_back(d);
      }
      // Naive: group input elements by their kept index, in row-major order.
      std::vector<int64_t> kept_shape;
      for (int d = 0; d < 4; ++d) {
        if (!(mask & (1 << d))) kept_shape.push_back(shape[d]);
      }
      const int64_t outputs = std::accumulate(kept_shape.begin(), kept_shape.end(), int64_t{1},
                                              std::multiplies<int64_t>());
      std::vector<double> sum(outputs, 0), max(outputs, -1e30), sq(outputs, 0);
      std::vector<int64_t> argmax(outputs, 0), seen(outputs, 0);
      for (int64_t f = 0; f < in.num_elements(); ++f) {
        const std::vector<int64_t> ii = Unflatten(f, shape);
        std::vector<int64_t> ki;
        for (int d = 0; d < 4; ++d) {
          if (!(mask & (1 << d))) ki.push_back(ii[d]);
        }
        const int64_t o = Flatten(ki, kept_shape);
        const double v = in.data<float>()[f];
        sum[o] += v;
        if (v > max[o]) {
          max[o] = v;
          argmax[o] = seen[o];
        }
        ++seen[o];
      }
      const double count = double(in.num_elements() / outputs);
      for (int64_t f = 0; f < in.num_elements(); ++f) {
        const std::vector<int64_t> ii = Unflatten(f, shape);
        std::vector<int64_t> ki;
        for (int d = 0; d < 4; ++d) {
          if (!(mask & (1 << d))) ki.push_back(ii[d]);
        }
        const int64_t o = Flatten(ki, kept_shape);
        const double diff = in.data<float>()[f] - sum[o] / count;
        sq[o] += diff * diff;
      }
      const AttrList attrs = {{"axis", IntList(axes)}};
      const std::string what =
          ::testing::PrintToString(shape) + " axes " + ::testing::PrintToString(axes);
      auto s = RunOp1("sum", {in}, attrs);
      auto m = RunOp1("max", {in}, attrs);
      auto mean = RunOp1("mean", {in}, {{"axis", IntList(axes)}, {"keepdims", Bool(true)}});
      auto am = RunOp1("argmax", {in}, attrs);
      CARVE_ASSERT_OK(s);
      CARVE_ASSERT_OK(m);
      CARVE_ASSERT_OK(mean);
      CARVE_ASSERT_OK(am);
      auto var = RunOp1("variance", {in, *mean}, attrs);
      CARVE_ASSERT_OK(var);
      ASSERT_EQ(s->num_elements(), outputs) << what;
      for (int64_t o = 0; o < outputs; ++o) {
        EXPECT_NEAR(s->data<float>()[o], sum[o], 1e-3) << what;
        EXPECT_EQ(m->data<float>()[o], max[o]) << what;
        EXPECT_NEAR(mean->data<float>()[o], sum[o] / count, 1e-4) << what;
        EXPECT_EQ(am->GetAsDouble(o), double(argmax[o])) << what;
        EXPECT_NEAR(var->data<float>()[o], sq[o] / count, 1e-2) << what;
      }
    }
  }
}

}  // namespace
}  // namespace carve::testing
