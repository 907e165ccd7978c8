// NDArray's two allocators: Empty (zero-filled) and Uninitialized (contents
// unspecified until written). Both give the same shape, size and alignment;
// only Empty promises zeros, even on memory a previous tensor dirtied.
#include "ir/ndarray.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace carve {
namespace {

constexpr DataType kF32 = DataType::Float(32);

bool AllBytesAre(const NDArray& a, unsigned char value) {
  const auto* p = static_cast<const unsigned char*>(a.raw_data());
  for (size_t i = 0; i < a.nbytes(); ++i) {
    if (p[i] != value) return false;
  }
  return true;
}

TEST(NDArrayUninitialized, HasTheShapeSizeAndAlignmentOfEmpty) {
  const std::vector<int64_t> shape = {2, 3, 5};
  for (DataType dtype : {kF32, DataType::Int(8),
                         DataType::Float(64)}) {
    NDArray raw = NDArray::Uninitialized(dtype, shape);
    NDArray zeros = NDArray::Empty(dtype, shape);
    ASSERT_TRUE(raw.defined());
    EXPECT_EQ(raw.dtype(), dtype);
    EXPECT_EQ(raw.shape(), shape);
    EXPECT_EQ(raw.num_elements(), 30);
    EXPECT_EQ(raw.nbytes(), zeros.nbytes());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(raw.raw_data()) % 64, 0u);
    // Every byte is writable (ASan flags a short buffer) and reads back.
    std::memset(raw.raw_data(), 0x5a, raw.nbytes());
    EXPECT_TRUE(AllBytesAre(raw, 0x5a));
  }
}

TEST(NDArrayUninitialized, RankZeroAndZeroSizedShapes) {
  NDArray scalar = NDArray::Uninitialized(kF32, std::span<const int64_t>{});
  EXPECT_EQ(scalar.rank(), 0u);
  EXPECT_EQ(scalar.nbytes(), 4u);
  scalar.data<float>()[0] = 1.5f;
  EXPECT_EQ(scalar.GetAsDouble(0), 1.5);

  const std::vector<int64_t> empty_shape = {4, 0};
  NDArray none = NDArray::Uninitialized(kF32, empty_shape);
  EXPECT_TRUE(none.defined());
  EXPECT_EQ(none.nbytes(), 0u);
}

// Dirty freed blocks of the same size first, so that an Empty which forgot
// its fill would most likely hand back 0xab bytes instead of zeros.
TEST(NDArrayEmpty, StillZeroFillsAfterUninitializedAllocations) {
  const std::vector<int64_t> shape = {64, 33};
  for (int round = 0; round < 8; ++round) {
    {
      NDArray dirty = NDArray::Uninitialized(kF32, shape);
      std::memset(dirty.raw_data(), 0xab, dirty.nbytes());
    }
    NDArray zeros = NDArray::Empty(kF32, shape);
    ASSERT_TRUE(AllBytesAre(zeros, 0)) << "round " << round;
    // An Uninitialized call in between leaves no state behind for Empty.
    NDArray raw = NDArray::Uninitialized(kF32, shape);
    std::memset(raw.raw_data(), 0xab, raw.nbytes());
    NDArray zeros_again = NDArray::Empty(kF32, shape);
    ASSERT_TRUE(AllBytesAre(zeros_again, 0)) << "round " << round;
  }
}

TEST(NDArrayUninitialized, CopyOfAWrittenTensorIsBitwiseEqual) {
  const std::vector<int64_t> shape = {3};
  NDArray a = NDArray::Uninitialized(kF32, shape);
  for (int i = 0; i < 3; ++i) a.data<float>()[i] = float(i) + 0.25f;
  NDArray b = a.Copy();
  EXPECT_TRUE(a.BitwiseEqual(b));
  EXPECT_NE(a.raw_data(), b.raw_data());
  EXPECT_EQ(NDArray::Scalar(kF32, 2.0).GetAsDouble(0), 2.0);
}

}  // namespace
}  // namespace carve
