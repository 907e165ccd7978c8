// concatenate returns a view of its inputs when they are adjacent slices of
// one allocation, in order, of one dtype, with only 1s before the axis (a
// dnnl region's outputs, backends/runtime/json_runtime.h): their bytes are
// then exactly the result. Every other case copies, with the same values.
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/interpreter_kernels/kernel_test_util.h"

namespace carve::kernel_testing {
namespace {

constexpr DataType kF32 = DataType::Float(32);

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Tensors of `shapes`, adjacent in one allocation, filled with distinct
// values.
std::vector<NDArray> AdjacentParts(const std::vector<std::vector<int64_t>>& shapes) {
  int64_t total = 0;
  for (const auto& s : shapes) total += Elements(s);
  NDArray block = NDArray::Uninitialized(kF32, std::vector<int64_t>{total});
  for (int64_t i = 0; i < total; ++i) block.data<float>()[i] = float(i) * 0.25f - 3;
  std::vector<NDArray> parts;
  size_t offset = 0;
  for (const auto& s : shapes) {
    parts.push_back(block.ViewAt(offset, kF32, s));
    offset += parts.back().nbytes();
  }
  return parts;
}

// The same tensors, each in its own allocation.
std::vector<NDArray> Copies(const std::vector<NDArray>& parts) {
  std::vector<NDArray> out;
  for (const NDArray& p : parts) out.push_back(p.Copy());
  return out;
}

NDArray Concat(const std::vector<NDArray>& parts, int64_t axis, const std::vector<int64_t>& shape) {
  auto got = RunKernel1("concatenate", parts,
                        MakeAttrs("relay.attrs.ConcatenateAttrs", {{"axis", Int(axis)}}),
                        TypeOf(kF32, shape));
  EXPECT_TRUE(got.ok()) << got.status().message();
  return got.ok() ? *got : NDArray();
}

bool SharesFirst(const NDArray& out, const std::vector<NDArray>& parts) {
  return out.raw_data() == parts[0].raw_data();
}

TEST(ConcatenateView, AdjacentPartsWithOnesBeforeTheAxisAreViewed) {
  struct Case {
    std::vector<std::vector<int64_t>> shapes;
    int64_t axis;
    std::vector<int64_t> out;
  };
  const std::vector<Case> cases = {
      {{{1, 64, 5, 5}, {1, 64, 5, 5}}, 1, {1, 128, 5, 5}},   // a fire module
      {{{1, 3, 4}, {1, 5, 4}, {1, 1, 4}}, -2, {1, 9, 4}},     // three, negative axis
      {{{2, 3}, {1, 3}}, 0, {3, 3}},                          // the leading axis
      {{{1, 1, 2, 3}, {1, 1, 4, 3}}, 2, {1, 1, 6, 3}},        // 1s before a later axis
  };
  for (const Case& c : cases) {
    std::vector<NDArray> parts = AdjacentParts(c.shapes);
    NDArray view = Concat(parts, c.axis, c.out);
    NDArray copy = Concat(Copies(parts), c.axis, c.out);
    ASSERT_TRUE(view.defined() && copy.defined());
    EXPECT_TRUE(SharesFirst(view, parts)) << "axis " << c.axis;
    EXPECT_FALSE(SharesFirst(copy, parts));
    EXPECT_TRUE(view.BitwiseEqual(copy)) << "axis " << c.axis;
  }
}

TEST(ConcatenateView, OtherPartsAreCopied) {
  struct Case {
    std::string what;
    std::vector<std::vector<int64_t>> shapes;
    bool reversed;
    int64_t axis;
    std::vector<int64_t> out;
  };
  const std::vector<Case> cases = {
      {"batch 2", {{2, 3, 4}, {2, 5, 4}}, false, 1, {2, 8, 4}},
      {"a non-leading axis", {{1, 2, 3, 4}, {1, 2, 5, 4}}, false, 2, {1, 2, 8, 4}},
      {"the last axis", {{1, 3, 2}, {1, 3, 2}}, false, 2, {1, 3, 4}},
      {"out of order", {{1, 3, 4}, {1, 5, 4}}, true, 1, {1, 8, 4}},
  };
  for (const Case& c : cases) {
    std::vector<NDArray> parts = AdjacentParts(c.shapes);
    std::vector<NDArray> in = parts;
    if (c.reversed) std::swap(in[0], in[1]);
    NDArray got = Concat(in, c.axis, c.out);
    NDArray want = Concat(Copies(in), c.axis, c.out);
    ASSERT_TRUE(got.defined()) << c.what;
    EXPECT_FALSE(SharesFirst(got, parts)) << c.what;
    EXPECT_FALSE(SharesFirst(got, in)) << c.what;
    EXPECT_TRUE(got.BitwiseEqual(want)) << c.what;
  }
  // Separate allocations, and adjacent bytes of two dtypes (never one
  // tensor), copy too.
  std::vector<NDArray> apart = Copies(AdjacentParts({{1, 2, 3}, {1, 2, 3}}));
  EXPECT_FALSE(SharesFirst(Concat(apart, 1, {1, 4, 3}), apart));
  NDArray block = NDArray::Uninitialized(kF32, std::vector<int64_t>{12});
  std::memset(block.raw_data(), 0, block.nbytes());
  std::vector<NDArray> mixed = {block.ViewAt(0, kF32, std::vector<int64_t>{1, 2, 3}),
                                block.ViewAt(24, DataType::Int(32), std::vector<int64_t>{1, 2, 3})};
  auto bad = RunKernel1("concatenate", mixed,
                        MakeAttrs("relay.attrs.ConcatenateAttrs", {{"axis", Int(1)}}),
                        TypeOf(kF32, {1, 4, 3}));
  EXPECT_FALSE(bad.ok());  // the copy's checks reject the int32 part
}

}  // namespace
}  // namespace carve::kernel_testing
