// sort, argsort, topk, searchsorted and unique order integers exactly
// (interpreter/kernels/sort_key.h): through double, 2^53 + 1 and 2^53 were
// one value (ties in index order), as were 2^64 - 1 and 2^64 - 2.
#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/kernels/sort_key.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;

constexpr int64_t kTwo53 = int64_t(1) << 53;
constexpr uint64_t kUInt64Max = std::numeric_limits<uint64_t>::max();

// Exact int64 / uint64 tensors (Tensor<> goes through double).
NDArray Int64s(const std::vector<int64_t>& values) {
  NDArray a = NDArray::Empty(DataType::Int(64), {int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) a.data<int64_t>()[i] = values[i];
  return a;
}

NDArray UInt64s(const std::vector<uint64_t>& values) {
  NDArray a = NDArray::Empty(DataType::UInt(64), {int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) a.data<uint64_t>()[i] = values[i];
  return a;
}

TEST(SortExact, SortAndArgsortInt64Beyond2To53) {
  NDArray x = Int64s({kTwo53 + 1, kTwo53, -kTwo53 - 1, -kTwo53});
  auto sorted = RunOp1("sort", {x});
  CARVE_ASSERT_OK(sorted);
  EXPECT_THAT(Values<int64_t>(*sorted), ElementsAre(-kTwo53 - 1, -kTwo53, kTwo53, kTwo53 + 1));
  auto order = RunOp1("argsort", {x}, {{"dtype", Str("int64")}});
  CARVE_ASSERT_OK(order);
  EXPECT_THAT(Values<int64_t>(*order), ElementsAre(2, 3, 1, 0));
  order = RunOp1("argsort", {x}, {{"is_ascend", Bool(false)}, {"dtype", Str("int64")}});
  CARVE_ASSERT_OK(order);
  EXPECT_THAT(Values<int64_t>(*order), ElementsAre(0, 1, 3, 2));
}

TEST(SortExact, SortUInt64NearItsMaximum) {
  NDArray x = UInt64s({kUInt64Max, kUInt64Max - 1, uint64_t(1) << 63});
  auto sorted = RunOp1("sort", {x});
  CARVE_ASSERT_OK(sorted);
  EXPECT_THAT(Values<uint64_t>(*sorted),
              ElementsAre(uint64_t(1) << 63, kUInt64Max - 1, kUInt64Max));
}

TEST(SortExact, TopKInt64Beyond2To53) {
  NDArray x = Int64s({kTwo53, kTwo53 + 1, 0});
  auto outs = RunOp("topk", {x}, {{"k", Int(1)}, {"dtype", Str("int64")}});
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(Values<int64_t>((*outs)[0]), ElementsAre(kTwo53 + 1));
  EXPECT_THAT(Values<int64_t>((*outs)[1]), ElementsAre(1));
  outs = RunOp("topk", {x}, {{"k", Int(2)}, {"is_ascend", Bool(true)}, {"dtype", Str("int64")}});
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(Values<int64_t>((*outs)[0]), ElementsAre(0, kTwo53));
}

TEST(SortExact, SearchsortedInt64Beyond2To53) {
  NDArray seq = Int64s({kTwo53, kTwo53 + 1, kTwo53 + 2});
  NDArray v = Int64s({kTwo53 + 1, kTwo53 + 3, kTwo53});
  auto out = RunOp1("searchsorted", {seq, v});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(1, 3, 0));
  out = RunOp1("searchsorted", {seq, v}, {{"right", Bool(true)}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(2, 3, 1));
}

TEST(SortExact, UniqueKeepsInt64sApart) {
  auto outs = RunOp("unique", {Int64s({kTwo53 + 1, kTwo53, kTwo53 + 1})},
                    {{"return_counts", Bool(true)}});
  CARVE_ASSERT_OK(outs);
  EXPECT_THAT(Values<int64_t>((*outs)[0]), ElementsAre(kTwo53, kTwo53 + 1, 0));
  EXPECT_THAT(Values<int32_t>((*outs)[2]), ElementsAre(1, 0, 1));
  EXPECT_THAT(Values<int32_t>((*outs)[3]), ElementsAre(2));
  EXPECT_THAT(Values<int32_t>((*outs)[4]), ElementsAre(1, 2, 0));
}

TEST(SortKey, MixedSignednessAndFloats) {
  EXPECT_TRUE(KeyLess(int64_t{-1}, uint64_t{0}));  // not -1 -> 2^64 - 1
  EXPECT_FALSE(KeyLess(kUInt64Max, int64_t{-1}));
  EXPECT_TRUE(KeyEqual(int64_t{5}, uint64_t{5}));
  // A NaN is neither below nor at or below anything, as with doubles.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(KeyLess(nan, 1.0));
  EXPECT_FALSE(KeyLessEqual(1.0, nan));
  EXPECT_TRUE(KeyLess(int64_t{1}, 1.5));
}

}  // namespace
}  // namespace carve::testing
