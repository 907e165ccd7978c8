// Data-movement kernels against hand-computed values: reshape views,
// transpose, concatenate / split / stack, strided_slice (negative strides,
// axes, size mode), take (modes, axis null, batch_dims), nn.pad (modes),
// layout_transform.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/interpreter_core/test_util.h"

namespace carve::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

std::vector<int32_t> Iota(int n, int start = 0) {
  std::vector<int32_t> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + i;
  return v;
}

TEST(TransformKernel, ReshapeIsAViewWithTheInferredShape) {
  auto x = Tensor<int32_t>({2, 3, 4}, Iota(24));
  auto out = RunOp1("reshape", {x}, {{"newshape", Ints({-1, 0, 2})}});
  CARVE_ASSERT_OK(out);
  // (2,3,4) with (-1, 0, 2): 0 copies 3, -1 infers 24 / (3 * 2) = 4.
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(out->raw_data(), x.raw_data());
  auto flat = RunOp1("nn.batch_flatten", {x});
  CARVE_ASSERT_OK(flat);
  EXPECT_EQ(flat->shape(), (std::vector<int64_t>{2, 12}));
  auto sq = RunOp1("squeeze", {Tensor<int32_t>({1, 3, 1}, {1, 2, 3})}, {{"axis", Ints({0})}});
  CARVE_ASSERT_OK(sq);
  EXPECT_EQ(sq->shape(), (std::vector<int64_t>{3, 1}));
  auto ex = RunOp1("expand_dims", {Tensor<int32_t>({3}, {1, 2, 3})},
                   {{"axis", Int(-1)}, {"num_newaxis", Int(2)}});
  CARVE_ASSERT_OK(ex);
  EXPECT_EQ(ex->shape(), (std::vector<int64_t>{3, 1, 1}));
}

TEST(TransformKernel, ReshapeRejectsAMismatchedOutputType) {
  auto out = RunOp1("reshape", {Tensor<int32_t>({2, 3}, Iota(6))}, {{"newshape", Ints({7})}},
                    TensorTy(DataType::Int(32), {7}));
  EXPECT_FALSE(out.ok());
}

TEST(TransformKernel, TransposeWithAxesAndDefault) {
  auto x = Tensor<int32_t>({2, 3, 4}, Iota(24));
  auto t = RunOp1("transpose", {x}, {{"axes", Ints({1, 0, 2})}});
  CARVE_ASSERT_OK(t);
  EXPECT_EQ(t->shape(), (std::vector<int64_t>{3, 2, 4}));
  std::vector<int32_t> want;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) want.push_back((i * 3 + j) * 4 + k);
  EXPECT_THAT(Values<int32_t>(*t), ElementsAreArray(want));
  auto rev = RunOp1("transpose", {Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})});
  CARVE_ASSERT_OK(rev);
  EXPECT_THAT(Values<float>(*rev), ElementsAre(1, 4, 2, 5, 3, 6));
  auto neg =
      RunOp1("transpose", {Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}, {{"axes", Ints({-1, 0})}});
  CARVE_ASSERT_OK(neg);
  EXPECT_THAT(Values<float>(*neg), ElementsAre(1, 4, 2, 5, 3, 6));
}

TEST(TransformKernel, ConcatenateAlongMiddleAxis) {
  auto a = Tensor<int32_t>({2, 1, 2}, {1, 2, 3, 4});
  auto b = Tensor<int32_t>({2, 2, 2}, {10, 11, 12, 13, 14, 15, 16, 17});
  auto out = RunOp1("concatenate", {a, b}, {{"axis", Int(1)}}, nullptr, /*tuple_input=*/true);
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(1, 2, 10, 11, 12, 13, 3, 4, 14, 15, 16, 17));
  auto neg = RunOp1("concatenate", {a, a}, {{"axis", Int(-1)}}, nullptr, true);
  CARVE_ASSERT_OK(neg);
  EXPECT_THAT(Values<int32_t>(*neg), ElementsAre(1, 2, 1, 2, 3, 4, 3, 4));
}

TEST(TransformKernel, StackInsertsAnAxis) {
  auto a = Tensor<float>({2}, {1, 2});
  auto b = Tensor<float>({2}, {3, 4});
  auto s0 = RunOp1("stack", {a, b}, {{"axis", Int(0)}}, nullptr, true);
  auto s1 = RunOp1("stack", {a, b}, {{"axis", Int(-1)}}, nullptr, true);
  CARVE_ASSERT_OK(s0);
  CARVE_ASSERT_OK(s1);
  EXPECT_EQ(s1->shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_THAT(Values<float>(*s0), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(Values<float>(*s1), ElementsAre(1, 3, 2, 4));
}

TEST(TransformKernel, SplitBySectionsAndIndices) {
  auto x = Tensor<int32_t>({2, 6}, Iota(12));
  auto sections = RunOp("split", {x}, {{"indices_or_sections", Int(3)}, {"axis", Int(1)}});
  CARVE_ASSERT_OK(sections);
  ASSERT_EQ(sections->size(), 3u);
  EXPECT_THAT(Values<int32_t>((*sections)[1]), ElementsAre(2, 3, 8, 9));
  auto indices = RunOp("split", {x}, {{"indices_or_sections", Ints({1, 4})}, {"axis", Int(-1)}});
  CARVE_ASSERT_OK(indices);
  ASSERT_EQ(indices->size(), 3u);
  EXPECT_THAT(Values<int32_t>((*indices)[0]), ElementsAre(0, 6));
  EXPECT_THAT(Values<int32_t>((*indices)[1]), ElementsAre(1, 2, 3, 7, 8, 9));
  EXPECT_THAT(Values<int32_t>((*indices)[2]), ElementsAre(4, 5, 10, 11));
}

TEST(SliceKernel, StridedSliceBasicAndNegativeStride) {
  auto x = Tensor<int32_t>({3, 4}, Iota(12));
  auto basic = RunOp1("strided_slice", {x},
                      {{"begin", Ints({1, 0})}, {"end", Ints({3, 4})}, {"strides", Ints({1, 2})}});
  CARVE_ASSERT_OK(basic);
  EXPECT_EQ(basic->shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_THAT(Values<int32_t>(*basic), ElementsAre(4, 6, 8, 10));
  // Reverse the last axis from index 3 down to (excluding) 0.
  auto rev = RunOp1("strided_slice", {x},
                    {{"begin", Ints({0, 3})}, {"end", Ints({1, 0})}, {"strides", Ints({1, -1})}});
  CARVE_ASSERT_OK(rev);
  EXPECT_THAT(Values<int32_t>(*rev), ElementsAre(3, 2, 1));
  // Negative begin counts from the end; end beyond the extent clamps.
  auto neg = RunOp1("strided_slice", {x},
                    {{"begin", Ints({-1, -3})}, {"end", Ints({100, 100})}, {"strides", Ints({1})}});
  CARVE_ASSERT_OK(neg);
  EXPECT_THAT(Values<int32_t>(*neg), ElementsAre(9, 10, 11));
}

TEST(SliceKernel, StridedSliceAxesAndSizeMode) {
  auto x = Tensor<int32_t>({2, 3, 4}, Iota(24));
  auto axes = RunOp1(
      "strided_slice", {x},
      {{"begin", Ints({1})}, {"end", Ints({3})}, {"strides", Ints({1})}, {"axes", Ints({2})}});
  CARVE_ASSERT_OK(axes);
  EXPECT_EQ(axes->shape(), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_THAT(Values<int32_t>(*axes), ElementsAre(1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22));
  // size mode: begin (1, 1), sizes (1, -1 = to the end); strides ignored.
  auto size = RunOp1("strided_slice", {x},
                     {{"begin", Ints({1, 1})},
                      {"end", Ints({1, -1})},
                      {"strides", Ints({5})},
                      {"slice_mode", Str("size")}});
  CARVE_ASSERT_OK(size);
  EXPECT_EQ(size->shape(), (std::vector<int64_t>{1, 2, 4}));
  EXPECT_THAT(Values<int32_t>(*size), ElementsAre(16, 17, 18, 19, 20, 21, 22, 23));
}

TEST(SliceKernel, TakeModes) {
  auto data = Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto idx = Tensor<int64_t>({4}, {0, 2, -1, 7});
  auto clip = RunOp1("take", {data, idx}, {{"axis", Int(1)}, {"mode", Str("clip")}});
  auto wrap = RunOp1("take", {data, idx}, {{"axis", Int(1)}, {"mode", Str("wrap")}});
  CARVE_ASSERT_OK(clip);
  CARVE_ASSERT_OK(wrap);
  EXPECT_EQ(clip->shape(), (std::vector<int64_t>{2, 4}));
  EXPECT_THAT(Values<float>(*clip), ElementsAre(1, 3, 1, 3, 4, 6, 4, 6));
  EXPECT_THAT(Values<float>(*wrap), ElementsAre(1, 3, 3, 2, 4, 6, 6, 5));
  auto fast = RunOp1("take", {data, idx}, {{"axis", Int(1)}, {"mode", Str("fast")}});
  EXPECT_FALSE(fast.ok());
  EXPECT_THAT(std::string(fast.status().message()), HasSubstr("out of range"));
}

TEST(SliceKernel, TakeFlattenedAndBatched) {
  auto data = Tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto flat = RunOp1("take", {data, Tensor<int32_t>({2, 2}, {5, 0, 3, 1})});
  CARVE_ASSERT_OK(flat);
  EXPECT_EQ(flat->shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_THAT(Values<int32_t>(*flat), ElementsAre(6, 1, 4, 2));
  // batch_dims 1: row b takes its own indices.
  auto batched = RunOp1("take", {data, Tensor<int32_t>({2, 2}, {2, 0, 1, 1})},
                        {{"axis", Int(1)}, {"batch_dims", Int(1)}});
  CARVE_ASSERT_OK(batched);
  EXPECT_EQ(batched->shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_THAT(Values<int32_t>(*batched), ElementsAre(3, 1, 5, 5));
}

AttrValue PadWidth(std::initializer_list<std::pair<int64_t, int64_t>> pairs) {
  std::vector<AttrValue> rows;
  for (auto [a, b] : pairs) rows.push_back(AttrValue::Ints({a, b}));
  return AttrValue::Array(rows);
}

TEST(PadKernel, ConstantEdgeReflect) {
  auto x = Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto constant =
      RunOp1("nn.pad", {x, Tensor<float>({}, {9})}, {{"pad_width", PadWidth({{1, 0}, {0, 2}})}});
  CARVE_ASSERT_OK(constant);
  EXPECT_EQ(constant->shape(), (std::vector<int64_t>{3, 5}));
  EXPECT_THAT(Values<float>(*constant), ElementsAre(9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 4, 5, 6, 9, 9));
  auto edge = RunOp1("nn.pad", {x, Tensor<float>({}, {0})},
                     {{"pad_width", PadWidth({{0, 0}, {2, 1}})}, {"pad_mode", Str("edge")}});
  CARVE_ASSERT_OK(edge);
  EXPECT_THAT(Values<float>(*edge), ElementsAre(1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6));
  auto reflect = RunOp1("nn.pad", {x, Tensor<float>({}, {0})},
                        {{"pad_width", PadWidth({{1, 1}, {2, 2}})}, {"pad_mode", Str("reflect")}});
  CARVE_ASSERT_OK(reflect);
  EXPECT_EQ(reflect->shape(), (std::vector<int64_t>{4, 7}));
  EXPECT_THAT(Values<float>(*reflect), ElementsAre(6, 5, 4, 5, 6, 5, 4,  //
                                                   3, 2, 1, 2, 3, 2, 1,  //
                                                   6, 5, 4, 5, 6, 5, 4,  //
                                                   3, 2, 1, 2, 3, 2, 1));
}

TEST(PadKernel, IntegerPadValueFromAnotherDtype) {
  // The pad value is an int32 constant (as relay.nn.pad(x, 0) builds it).
  auto out = RunOp1("nn.pad", {Tensor<uint8_t>({2}, {7, 8}), Tensor<int32_t>({}, {3})},
                    {{"pad_width", PadWidth({{1, 1}})}});
  CARVE_ASSERT_OK(out);
  EXPECT_THAT(Values<uint8_t>(*out), ElementsAre(3, 7, 8, 3));
}

TEST(LayoutKernel, NchwToNhwcAndBack) {
  auto x = Tensor<int32_t>({1, 2, 2, 3}, Iota(12));
  auto nhwc =
      RunOp1("layout_transform", {x}, {{"src_layout", Str("NCHW")}, {"dst_layout", Str("NHWC")}});
  CARVE_ASSERT_OK(nhwc);
  EXPECT_EQ(nhwc->shape(), (std::vector<int64_t>{1, 2, 3, 2}));
  EXPECT_THAT(Values<int32_t>(*nhwc), ElementsAre(0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11));
  auto back = RunOp1("layout_transform", {*nhwc},
                     {{"src_layout", Str("NHWC")}, {"dst_layout", Str("NCHW")}});
  CARVE_ASSERT_OK(back);
  EXPECT_THAT(Values<int32_t>(*back), ElementsAreArray(Iota(12)));
}

TEST(LayoutKernel, NchwToNchw2cSplitsChannels) {
  // C = 4 into (C/2, H, W, 2): out[n, co, h, w, ci] = in[n, co * 2 + ci, h, w].
  auto x = Tensor<int32_t>({1, 4, 1, 2}, Iota(8));
  auto out =
      RunOp1("layout_transform", {x}, {{"src_layout", Str("NCHW")}, {"dst_layout", Str("NCHW2c")}});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{1, 2, 1, 2, 2}));
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(0, 2, 1, 3, 4, 6, 5, 7));
  auto back = RunOp1("layout_transform", {*out},
                     {{"src_layout", Str("NCHW2c")}, {"dst_layout", Str("NCHW")}});
  CARVE_ASSERT_OK(back);
  EXPECT_THAT(Values<int32_t>(*back), ElementsAreArray(Iota(8)));
}

}  // namespace
}  // namespace carve::testing

namespace carve::testing {
namespace {

TEST(TransformKernel, RepeatAlongAnAxis) {
  auto out = RunOp1("repeat", {Tensor<int32_t>({2, 2}, {1, 2, 3, 4})},
                    {{"repeats", Int(2)}, {"axis", Int(1)}});
  CARVE_ASSERT_OK(out);
  EXPECT_EQ(out->shape(), (std::vector<int64_t>{2, 4}));
  EXPECT_THAT(Values<int32_t>(*out), ::testing::ElementsAre(1, 1, 2, 2, 3, 3, 4, 4));
}

}  // namespace
}  // namespace carve::testing
