// `run --compare` compares integer tensors exactly (backends/compare.h):
// int64 and uint64 values beyond 2^53 that differ are not equal as doubles
// would make them, and the report gives the difference as an integer.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backends/compare.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kTwo53 = int64_t(1) << 53;

template <typename T>
NDArray Exact(DataType dtype, const std::vector<T>& values) {
  NDArray a = NDArray::Empty(dtype, {int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) a.data<T>()[i] = values[i];
  return a;
}

TEST(CompareIntegerTest, Int64BeyondTwoTo53DiffersByOne) {
  // As doubles both are 2^53: "all equal" before.
  NDArray ref = Exact<int64_t>(DataType::Int(64), {5, kTwo53});
  NDArray got = Exact<int64_t>(DataType::Int(64), {5, kTwo53 + 1});
  ErrorStats s = *CompareTensors(got, ref, 0, 0);
  EXPECT_TRUE(s.integral);
  EXPECT_FALSE(s.within);
  EXPECT_EQ(s.out_of_tolerance, 1);
  EXPECT_EQ(s.max_abs_integer, 1u);
  ASSERT_TRUE(s.has_worst);
  EXPECT_EQ(s.worst_index, std::vector<int64_t>{1});
  EXPECT_EQ(s.worst_got_text, "9007199254740993");
  EXPECT_EQ(s.worst_ref_text, "9007199254740992");
  // atol 1 (the quantized default) lets one step through, exactly.
  EXPECT_TRUE(CompareTensors(got, ref, 0, 1)->within);
}

TEST(CompareIntegerTest, Uint64AndInt64ExtremesGiveTheFullDifference) {
  constexpr uint64_t kMaxU = std::numeric_limits<uint64_t>::max();
  ErrorStats u = *CompareTensors(Exact<uint64_t>(DataType::UInt(64), {kMaxU}),
                                 Exact<uint64_t>(DataType::UInt(64), {0}), 0, 0);
  EXPECT_EQ(u.max_abs_integer, kMaxU);
  EXPECT_EQ(u.worst_got_text, "18446744073709551615");
  ErrorStats i = *CompareTensors(
      Exact<int64_t>(DataType::Int(64), {std::numeric_limits<int64_t>::max()}),
      Exact<int64_t>(DataType::Int(64), {std::numeric_limits<int64_t>::min()}), 0, 0);
  EXPECT_EQ(i.max_abs_integer, kMaxU);
  EXPECT_FALSE(i.within);
  // Equal tensors: no worst element, max_abs 0.
  ErrorStats same = *CompareTensors(Exact<int64_t>(DataType::Int(64), {kTwo53 + 1}),
                                    Exact<int64_t>(DataType::Int(64), {kTwo53 + 1}), 0, 0);
  EXPECT_TRUE(same.within);
  EXPECT_FALSE(same.has_worst);
}

TEST(CompareIntegerTest, MergeKeepsTheExactWorst) {
  ErrorStats merged = *CompareTensors(Exact<int64_t>(DataType::Int(64), {1}),
                                      Exact<int64_t>(DataType::Int(64), {1}), 0, 0);
  merged.Merge(*CompareTensors(Exact<int64_t>(DataType::Int(64), {kTwo53 + 3}),
                               Exact<int64_t>(DataType::Int(64), {kTwo53}), 0, 0));
  EXPECT_EQ(merged.max_abs_integer, 3u);
  EXPECT_EQ(merged.worst_call, 1);
  EXPECT_EQ(merged.worst_got_text, "9007199254740995");
}

TEST(CompareIntegerTest, ReportPrintsIntegers) {
  CompareReport report;
  report.backends = "dnnl";
  report.offloaded = 1;
  ErrorStats s = *CompareTensors(Exact<int64_t>(DataType::Int(64), {kTwo53 + 1}),
                                 Exact<int64_t>(DataType::Int(64), {kTwo53}), 0, 0);
  report.ok = s.within;
  report.outputs.push_back({"Tensor[(1), int64]", s});
  const std::string text = RenderCompareReport(report);
  EXPECT_THAT(text, HasSubstr("out0  Tensor[(1), int64]  max_abs=1 max_rel=1.1e-16 FAIL"));
  EXPECT_THAT(text, HasSubstr("worst [0]: 9007199254740993 vs reference 9007199254740992"));
  EXPECT_THAT(RenderCompareResult(report, false), HasSubstr("FAIL"));
}

}  // namespace
}  // namespace carve
