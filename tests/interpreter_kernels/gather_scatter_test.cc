// gather, scatter_elements, cumsum and topk (added for the ONNX import) against
// hand-computed values, with their relations' errors.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Gather, PicksAlongAxis) {
  NDArray data = Tensor<float>({2, 2}, {1, 2, 3, 4});
  NDArray idx = Tensor<int64_t>({2, 2}, {0, 0, 1, 0});
  auto out = RunOp1("gather", {data, idx}, {{"axis", AttrValue::Int(1)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 1, 4, 3));
  out = RunOp1("gather", {data, idx}, {{"axis", AttrValue::Int(0)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 2, 3, 2));
}

TEST(Gather, OutOfRangeIndexIsAnError) {
  auto out = RunOp1("gather", {Tensor<float>({2}, {1, 2}), Tensor<int64_t>({1}, {5})},
                    {{"axis", AttrValue::Int(0)}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("out of range"));
}

TEST(ScatterElements, UpdateAndAdd) {
  NDArray data = Tensor<float>({1, 5}, {1, 2, 3, 4, 5});
  NDArray idx = Tensor<int64_t>({1, 2}, {1, -2});  // -2 counts from the end
  NDArray upd = Tensor<float>({1, 2}, {10, 20});
  auto out = RunOp1("scatter_elements", {data, idx, upd}, {{"axis", AttrValue::Int(1)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 10, 3, 20, 5));
  out = RunOp1("scatter_elements", {data, Tensor<int64_t>({1, 2}, {1, 1}), upd},
               {{"axis", AttrValue::Int(1)}, {"reduction", AttrValue::Str("add")}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 32, 3, 4, 5));
}

TEST(ScatterElements, RelationChecksRanks) {
  auto out = RunOp1("scatter_elements", {Tensor<float>({2, 2}, {1, 2, 3, 4}),
                                         Tensor<int64_t>({2}, {0, 1}), Tensor<float>({2}, {1, 1})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("one rank"));
}

TEST(Cumsum, AxisExclusiveAndFlattened) {
  NDArray x = Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = RunOp1("cumsum", {x}, {{"axis", AttrValue::Int(1)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 3, 6, 4, 9, 15));
  out = RunOp1("cumsum", {x}, {{"axis", AttrValue::Int(0)}, {"exclusive", AttrValue::Bool(true)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 0, 0, 1, 2, 3));
  out = RunOp1("cumsum", {x});  // axis None: over the flattened tensor
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), std::vector<int64_t>{6});
  EXPECT_THAT(Values<float>(*out), ElementsAre(1, 3, 6, 10, 15, 21));
}

TEST(TopK, LargestFirstTiesByLowerIndex) {
  NDArray x = Tensor<float>({2, 4}, {1, 3, 3, 2, 5, 4, 6, 0});
  auto outs = RunOp("topk", {x}, {{"k", AttrValue::Int(2)}, {"dtype", AttrValue::Str("int64")}});
  ASSERT_TRUE(outs.ok()) << outs.status();
  ASSERT_EQ(outs->size(), 2u);
  EXPECT_THAT(Values<float>((*outs)[0]), ElementsAre(3, 3, 6, 5));
  EXPECT_THAT(Values<int64_t>((*outs)[1]), ElementsAre(1, 2, 2, 0));
  outs = RunOp("topk", {x}, {{"k", AttrValue::Int(1)}, {"is_ascend", AttrValue::Bool(true)},
                             {"axis", AttrValue::Int(0)}});
  ASSERT_TRUE(outs.ok()) << outs.status();
  EXPECT_THAT(Values<float>((*outs)[0]), ElementsAre(1, 3, 3, 0));
  EXPECT_THAT(Values<int32_t>((*outs)[1]), ElementsAre(0, 0, 0, 1));
}

}  // namespace
}  // namespace carve::testing
