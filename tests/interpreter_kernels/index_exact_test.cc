// Index tensors are read exactly (interpreter/kernels/index_value.h): an
// int64 index or value above 2^53 is not rounded to a neighbouring double,
// and one beyond any extent is out of range, reported with its own value.
#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/kernels/index_value.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kTwo53 = int64_t(1) << 53;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// An int64 tensor holding `values` exactly (Tensor<> goes through double).
NDArray Int64s(const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
  NDArray a = NDArray::Empty(DataType::Int(64), shape);
  for (size_t i = 0; i < values.size(); ++i) a.data<int64_t>()[i] = values[i];
  return a;
}

NDArray UInt64s(const std::vector<int64_t>& shape, const std::vector<uint64_t>& values) {
  NDArray a = NDArray::Empty(DataType::UInt(64), shape);
  for (size_t i = 0; i < values.size(); ++i) a.data<uint64_t>()[i] = values[i];
  return a;
}

std::string Message(const absl::StatusOr<NDArray>& out) {
  return out.ok() ? "" : std::string(out.status().message());
}

TEST(IndexElement, ReadsEveryIntegerDtypeExactly) {
  EXPECT_EQ(IndexElement(Int64s({1}, {kTwo53 + 1}), 0), kTwo53 + 1);
  EXPECT_EQ(IndexElement(Int64s({1}, {-kTwo53 - 1}), 0), -kTwo53 - 1);
  EXPECT_EQ(IndexElement(UInt64s({1}, {uint64_t(kTwo53) + 1}), 0), kTwo53 + 1);
  // Beyond int64: saturated, so out of every range.
  EXPECT_EQ(IndexElement(UInt64s({1}, {~uint64_t(0)}), 0), kInt64Max);
  EXPECT_EQ(IndexElement(Tensor<uint32_t>({1}, {4294967295u}), 0), 4294967295);
  EXPECT_EQ(IndexElement(Tensor<int8_t>({1}, {-3}), 0), -3);
  // Floats: truncated, saturated, NaN out of range.
  EXPECT_EQ(IndexElement(Tensor<float>({1}, {2.9f}), 0), 2);
  EXPECT_EQ(IndexElement(Tensor<double>({1}, {1e300}), 0), kInt64Max);
  EXPECT_EQ(IndexElement(Tensor<double>({1}, {std::nan("")}), 0),
            std::numeric_limits<int64_t>::min());
}

TEST(IndexExact, GatherReportsAHugeIndexAsItIs) {
  // Through double, INT64_MAX became 2^63, whose conversion back is
  // undefined (INT64_MIN on x86, then "counted from the end").
  auto out = RunOp1("gather", {Tensor<float>({2}, {1, 2}), Int64s({1}, {kInt64Max})},
                    {{"axis", Int(0)}});
  EXPECT_THAT(Message(out), HasSubstr("index 9223372036854775807 is out of range for extent 2"));
  out = RunOp1("scatter_elements",
               {Tensor<float>({2}, {1, 2}), Int64s({1}, {-kTwo53 - 1}), Tensor<float>({1}, {5})},
               {{"axis", Int(0)}});
  EXPECT_THAT(Message(out), HasSubstr("index -9007199254740993 is out of range"));
}

TEST(IndexExact, GatherNdAndOneHotSeeTheExactIndex) {
  auto out = RunOp1("gather_nd", {Tensor<float>({2}, {1, 2}), Int64s({1, 1}, {kTwo53 + 1})});
  EXPECT_THAT(Message(out), HasSubstr("index 9007199254740993 is out of range"));
  // one_hot: an index that misses every depth position gives all off.
  out = RunOp1("one_hot",
               {Int64s({1}, {kInt64Max}), Tensor<float>({}, {1}), Tensor<float>({}, {0})},
               {{"depth", Int(3)}, {"axis", Int(-1)}, {"dtype", Str("float32")}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 0, 0));
}

TEST(IndexExact, TakeUInt64BeyondInt64) {
  NDArray data = Tensor<float>({4}, {10, 11, 12, 13});
  NDArray idx = UInt64s({1}, {~uint64_t(0)});  // 2^64 - 1
  // clip: the largest index clamps to the last element, not the first.
  auto out = RunOp1("take", {data, idx}, {{"axis", Int(0)}, {"mode", Str("clip")}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(*out), ElementsAre(13));
  // wrap: (2^64 - 1) mod 4 = 3.
  out = RunOp1("take", {data, idx}, {{"axis", Int(0)}, {"mode", Str("wrap")}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(*out), ElementsAre(13));
  out = RunOp1("take", {data, idx}, {{"axis", Int(0)}, {"mode", Str("fast")}});
  EXPECT_THAT(Message(out), HasSubstr("out of range"));
}

TEST(IndexExact, UnravelIndexKeepsEveryDigit) {
  // 2^53 + 1 = 9007199254740993: its last digit is 3 (through double: 2).
  auto out = RunOp1("unravel_index", {Int64s({1}, {kTwo53 + 1}), Int64s({2}, {kTwo53, 10})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->dtype(), DataType::Int(64));
  EXPECT_EQ(out->data<int64_t>()[0], 900719925474099);
  EXPECT_EQ(out->data<int64_t>()[1], 3);
}

TEST(IndexExact, ScatterNdAddsInt64Exactly) {
  NDArray data = Int64s({2}, {kTwo53, 0});
  auto out = RunOp1("scatter_nd", {data, Int64s({1, 1}, {0}), Int64s({1}, {1})},
                    {{"mode", Str("add")}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->data<int64_t>()[0], kTwo53 + 1);
}

TEST(IndexExact, SparseToDenseCopiesValuesExactly) {
  auto out = RunOp1("sparse_to_dense",
                    {Int64s({1}, {1}), Int64s({1}, {kTwo53 + 1}), Int64s({}, {kTwo53 + 3})},
                    {{"output_shape", Ints({3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->data<int64_t>()[0], kTwo53 + 3);
  EXPECT_EQ(out->data<int64_t>()[1], kTwo53 + 1);
  out = RunOp1("sparse_to_dense",
               {Int64s({1}, {kTwo53 + 1}), Int64s({1}, {1}), Int64s({}, {0})},
               {{"output_shape", Ints({3})}});
  EXPECT_THAT(Message(out), HasSubstr("index 9007199254740993 is out of range"));
}

TEST(IndexExact, SparseDenseChecksIndptrAndColumns) {
  // A 2x2 CSR matrix whose indptr runs past its 1 nonzero: an error, not a
  // read past the data.
  NDArray dense = Tensor<float>({1, 2}, {1, 1});
  NDArray data = Tensor<float>({1}, {5});
  auto out = RunOp1("nn.sparse_dense",
                    {dense, data, Int64s({1}, {0}), Int64s({3}, {0, 1, kTwo53 + 1})});
  EXPECT_THAT(Message(out), HasSubstr("is not a range of the 1 nonzeros"));
  out = RunOp1("nn.sparse_dense", {dense, data, Int64s({1}, {-1}), Int64s({3}, {0, 1, 1})});
  EXPECT_THAT(Message(out), HasSubstr("indices[0] = -1 is negative"));
  out = RunOp1("nn.sparse_dense", {dense, data, Int64s({1}, {1}), Int64s({3}, {0, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(*out), ElementsAre(5, 0));
}

}  // namespace
}  // namespace carve::testing
