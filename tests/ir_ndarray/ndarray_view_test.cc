// NDArray::ViewAt and IsFollowedBy: one allocation handed out as adjacent
// tensors (a JSON runtime's outputs, backends/runtime/json_runtime.h) and
// the test a concatenation uses to view them instead of copying.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "ir/ndarray.h"

namespace carve {
namespace {

constexpr DataType kF32 = DataType::Float(32);

TEST(NDArrayView, SlicesOfOneAllocationShareItsBytes) {
  NDArray block = NDArray::Uninitialized(DataType::UInt(8), std::vector<int64_t>{40});
  const std::vector<int64_t> a_shape = {1, 2, 2}, b_shape = {1, 6};
  NDArray a = block.ViewAt(0, kF32, a_shape);
  NDArray b = block.ViewAt(16, kF32, b_shape);
  ASSERT_TRUE(a.defined() && b.defined());
  EXPECT_EQ(a.shape(), a_shape);
  EXPECT_EQ(b.dtype(), kF32);
  EXPECT_EQ(a.raw_data(), block.raw_data());
  EXPECT_EQ(static_cast<const std::byte*>(b.raw_data()),
            static_cast<const std::byte*>(block.raw_data()) + 16);
  b.data<float>()[0] = 2.5f;
  EXPECT_EQ(block.ViewAt(16, kF32, std::vector<int64_t>{1}).data<float>()[0], 2.5f);
  // Adjacency is in order, without a gap, in one allocation.
  EXPECT_TRUE(a.IsFollowedBy(b));
  EXPECT_FALSE(b.IsFollowedBy(a));
  EXPECT_FALSE(a.IsFollowedBy(block.ViewAt(20, kF32, std::vector<int64_t>{4})));
  NDArray elsewhere = NDArray::Uninitialized(kF32, b_shape);
  EXPECT_FALSE(a.IsFollowedBy(elsewhere));
  EXPECT_FALSE(NDArray().IsFollowedBy(a));
  // A view of a view counts from the view's data, and may reach its
  // neighbour: a's view of 10 floats is a and b together.
  NDArray both = a.ViewAt(0, kF32, std::vector<int64_t>{10});
  ASSERT_TRUE(both.defined());
  EXPECT_EQ(both.data<float>()[4], 2.5f);
  EXPECT_TRUE(b.ViewAt(4, kF32, std::vector<int64_t>{5}).defined());
}

TEST(NDArrayView, NeverPastTheAllocation) {
  // 40 bytes round up to one 64-byte allocation: 16 floats at most.
  NDArray block = NDArray::Uninitialized(DataType::UInt(8), std::vector<int64_t>{40});
  EXPECT_TRUE(block.ViewAt(0, kF32, std::vector<int64_t>{16}).defined());
  EXPECT_FALSE(block.ViewAt(0, kF32, std::vector<int64_t>{17}).defined());
  EXPECT_FALSE(block.ViewAt(4, kF32, std::vector<int64_t>{16}).defined());
  EXPECT_FALSE(block.ViewAt(65, kF32, std::vector<int64_t>{}).defined());
  EXPECT_FALSE(block.ViewAt(0, kF32, std::vector<int64_t>{-1}).defined());
  EXPECT_FALSE(NDArray().ViewAt(0, kF32, std::vector<int64_t>{1}).defined());
}

}  // namespace
}  // namespace carve
