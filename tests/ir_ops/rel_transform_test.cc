// Shape and data-movement relations (spec/ops.md §12).
#include <gtest/gtest.h>

#include "tests/ir_ops/rel_test_util.h"

namespace carve::testing {
namespace {

std::string Reshape(const TensorType* t, std::initializer_list<int64_t> newshape,
                    bool allowzero = false) {
  return Infer("reshape", {t}, {{"newshape", Ints(newshape)}, {"allowzero", Bool(allowzero)}});
}

TEST(ReshapeRelTest, SpecExamples) {
  const TensorType* x = T({2, 3, 4});
  EXPECT_EQ(Reshape(x, {4, 0, 2}), "Tensor[(4, 3, 2), float32]");
  EXPECT_EQ(Reshape(x, {-1}), "Tensor[(24), float32]");
  EXPECT_EQ(Reshape(x, {2, -2}), "Tensor[(2, 3, 4), float32]");
  EXPECT_EQ(Reshape(x, {-3, 4}), "Tensor[(6, 4), float32]");
  EXPECT_EQ(Reshape(x, {-4, 1, 2, -2}), "Tensor[(1, 2, 3, 4), float32]");
  EXPECT_EQ(Reshape(x, {2, -4, -1, 3, -2}), "Tensor[(2, 1, 3, 4), float32]");
  EXPECT_EQ(Reshape(T({1, 8, 7, 7}), {1, -1}), "Tensor[(1, 392), float32]");
}

TEST(ReshapeRelTest, AllowZeroAndDynamic) {
  EXPECT_EQ(Reshape(T({0, 3}), {0, 3}, /*allowzero=*/true), "Tensor[(0, 3), float32]");
  EXPECT_EQ(Reshape(T({2, 3}), {0, 3}, /*allowzero=*/true),
            "error: cannot reshape (2, 3) (6 elements) to (0, 3) (0 elements)");
  EXPECT_EQ(Reshape(T({kAny, 3, 4}), {0, -1}), "Tensor[(?, 12), float32]");
  EXPECT_EQ(Reshape(T({kAny, 3, 4}), {-1, 4}), "Tensor[(?, 4), float32]");
  EXPECT_EQ(Reshape(T({kAny, 3, 4}), {-3, 4}), "Tensor[(?, 4), float32]");
  // Copied dims keep their width.
  EXPECT_EQ(Reshape(TWide({2, 3}), {0, 0, 1}), "Tensor[(2i64, 3i64, 1), float32]");
}

TEST(ReshapeRelTest, Errors) {
  EXPECT_EQ(Reshape(T({2, 3}), {4, 2}),
            "error: cannot reshape (2, 3) (6 elements) to (4, 2) (8 elements)");
  EXPECT_EQ(Reshape(T({2, 3}), {-1, 4}),
            "error: cannot reshape (2, 3) (6 elements) to (1, 4) (4 elements)");
  EXPECT_EQ(Reshape(T({2, 3}), {-1, -1}), "error: newshape [-1, -1] has more than one -1");
  EXPECT_EQ(Reshape(T({2, 3}), {-5}), "error: unsupported special value -5 in newshape");
  EXPECT_EQ(Reshape(T({6}), {-4, 2}),
            "error: -4 in newshape [-4, 2] must be followed by two values");
  EXPECT_EQ(Reshape(T({6}), {-4, -1, -1}), "error: -4 split dims cannot both be -1");
  EXPECT_EQ(Reshape(T({6}), {-3}), "error: newshape [-3] reads past the input shape (6,) at -3");
  EXPECT_EQ(Infer("reshape", {T({2, 3})}), "error: attribute 'newshape' must be set");
}

std::string Slice(const TensorType* t, Fields fields) {
  return Infer("strided_slice", {t}, fields);
}

TEST(StridedSliceRelTest, Basics) {
  const TensorType* x = T({1, 10});
  EXPECT_EQ(Slice(x, {{"begin", Ints({0, 0})}, {"end", Ints({1, 5})}, {"strides", Ints({1})}}),
            "Tensor[(1, 5), float32]");
  EXPECT_EQ(Slice(T({8, 8}), {{"begin", Ints({1})}, {"end", Ints({7})}, {"strides", Ints({2})}}),
            "Tensor[(3, 8), float32]");
  // Negative begin/end count from the end; out-of-range ends clamp.
  EXPECT_EQ(Slice(T({10}), {{"begin", Ints({-3})}, {"end", Ints({100})}, {"strides", Ints({1})}}),
            "Tensor[(3), float32]");
  EXPECT_EQ(Slice(T({4, 10}),
                  {{"begin", Ints({0, -4})}, {"end", Ints({4, -1})}, {"strides", Ints({1, 1})}}),
            "Tensor[(4, 3), float32]");
}

TEST(StridedSliceRelTest, NegativeStrides) {
  EXPECT_EQ(Slice(T({10}), {{"begin", Ints({9})}, {"end", Ints({0})}, {"strides", Ints({-1})}}),
            "Tensor[(9), float32]");
  EXPECT_EQ(Slice(T({10}), {{"begin", Ints({-1})}, {"end", Ints({-11})}, {"strides", Ints({-2})}}),
            "Tensor[(5), float32]");
  // Filled entries: begin INT64_MAX (clamped to n-1) and end 0 for stride<0.
  EXPECT_EQ(Slice(T({4, 6}), {{"begin", Ints({})}, {"end", Ints({})}, {"strides", Ints({1, -1})}}),
            "Tensor[(4, 5), float32]");
  EXPECT_EQ(Slice(T({10}), {{"begin", Ints({2})}, {"end", Ints({5})}, {"strides", Ints({-1})}}),
            "error: slice [2, 5) with stride -1 is empty in the wrong direction on axis 0");
  EXPECT_EQ(Slice(T({10}), {{"begin", Ints({2})}, {"end", Ints({5})}, {"strides", Ints({0})}}),
            "error: stride on axis 0 must be nonzero");
}

TEST(StridedSliceRelTest, AxesAndSizeMode) {
  EXPECT_EQ(Slice(T({4, 6, 8}), {{"begin", Ints({1, 2})},
                                 {"end", Ints({3, 8})},
                                 {"strides", Ints({1, 2})},
                                 {"axes", Ints({0, 2})}}),
            "Tensor[(2, 6, 3), float32]");
  EXPECT_EQ(Slice(T({4, 6, 8}), {{"begin", Ints({1})},
                                 {"end", Ints({3, 8})},
                                 {"strides", Ints({1})},
                                 {"axes", Ints({0})}}),
            "error: axes, begin, end and strides must have the same length, got [0], [1], [3, 8] "
            "and [1]");
  // slice_mode="size": end is a size (negative = to the end), strides ignored.
  EXPECT_EQ(Slice(T({4, 10}), {{"begin", Ints({1, 2})},
                               {"end", Ints({2, -1})},
                               {"strides", Ints({3, 3})},
                               {"slice_mode", Str("size")}}),
            "Tensor[(2, 8), float32]");
  EXPECT_EQ(Slice(T({4}), {{"begin", Ints({0})},
                           {"end", Ints({2})},
                           {"strides", Ints({1})},
                           {"slice_mode", Str("step")}}),
            "error: slice_mode must be \"end\" or \"size\", got \"step\"");
}

// Lists of different lengths are each filled to the rank (TVM's
// StridedSliceRel), so end / strides entries past begin slice their axes;
// the interpreter's kernel shares this plan (ir/strided_slice.h).
TEST(StridedSliceRelTest, ListsOfDifferentLengths) {
  EXPECT_EQ(Slice(T({1, 64, 56, 56}),
                  {{"begin", Ints({0, 1})}, {"end", Ints({1, -1, 10})}, {"strides", Ints({1})}}),
            "Tensor[(1, 62, 10, 56), float32]");
  EXPECT_EQ(
      Slice(T({2, 3, 4}), {{"begin", Ints({0})}, {"end", Ints({1})}, {"strides", Ints({1, 2})}}),
      "Tensor[(1, 2, 4), float32]");
  // A backward stride fills begin with the last element and end with 0
  // (excluded).
  EXPECT_EQ(
      Slice(T({2, 3, 4}), {{"begin", Ints({0})}, {"end", Ints({1})}, {"strides", Ints({1, -1})}}),
      "Tensor[(1, 2, 4), float32]");
  EXPECT_EQ(Slice(T({2, 3, 4}), {{"begin", Ints({1})},
                                 {"end", Ints({1, 2})},
                                 {"strides", Ints({1, 5})},
                                 {"slice_mode", Str("size")}}),
            "Tensor[(1, 2, 4), float32]");
}

TEST(StridedSliceRelTest, DynamicAndRequired) {
  EXPECT_EQ(Slice(T({kAny, 10}),
                  {{"begin", Ints({0, 2})}, {"end", Ints({1, 4})}, {"strides", Ints({1, 1})}}),
            "Tensor[(?, 2), float32]");
  EXPECT_EQ(Slice(T({4}), {{"begin", Ints({0})}, {"end", Ints({2})}}),
            "error: attribute 'strides' must be set");
  EXPECT_EQ(Slice(T({4}), {{"begin", Ints({0, 0})}, {"end", Ints({2})}, {"strides", Ints({1})}}),
            "error: begin, end and strides must have at most 1 entries for rank 1, got [0, 0]");
}

TEST(SplitRelTest, SectionsAndIndices) {
  EXPECT_EQ(Infer("split", {T({6, 4})}, {{"indices_or_sections", Int(3)}}),
            "(Tensor[(2, 4), float32], Tensor[(2, 4), float32], Tensor[(2, 4), float32])");
  EXPECT_EQ(Infer("split", {T({2, 12})}, {{"indices_or_sections", Ints({3, 7})}, {"axis", Int(1)}}),
            "(Tensor[(2, 3), float32], Tensor[(2, 4), float32], Tensor[(2, 5), float32])");
  EXPECT_EQ(Infer("split", {T({2, 12})}, {{"indices_or_sections", Int(2)}, {"axis", Int(-1)}}),
            "(Tensor[(2, 6), float32], Tensor[(2, 6), float32])");
  EXPECT_EQ(Infer("split", {T({kAny, 4})}, {{"indices_or_sections", Int(2)}}),
            "(Tensor[(?, 4), float32], Tensor[(?, 4), float32])");
  EXPECT_EQ(Infer("split", {T({5, 4})}, {{"indices_or_sections", Int(2)}}),
            "error: cannot split dim 0 of extent 5 into 2 equal sections");
  EXPECT_EQ(Infer("split", {T({12})}, {{"indices_or_sections", Ints({7, 3})}}),
            "error: split indices [7, 3] must be positive and strictly ascending");
  EXPECT_EQ(Infer("split", {T({12})}, {{"indices_or_sections", Ints({3, 12})}}),
            "error: split index 12 is not below the extent 12 of dim 0");
  EXPECT_EQ(Infer("split", {T({12})}),
            "error: indices_or_sections must be an integer or a list "
            "of integers, got None");
}

TEST(TransformRelTest, Transpose) {
  EXPECT_EQ(Infer("transpose", {T({1, 2, 3})}), "Tensor[(3, 2, 1), float32]");
  EXPECT_EQ(Infer("transpose", {T({1, 2, 3})}, {{"axes", Ints({0, -1, 1})}}),
            "Tensor[(1, 3, 2), float32]");
  EXPECT_EQ(Infer("transpose", {T({1, 2, 3})}, {{"axes", Ints({0, 1})}}),
            "error: axes [0, 1] must have 3 entries for rank 3");
  EXPECT_EQ(Infer("transpose", {T({1, 2, 3})}, {{"axes", Ints({0, 1, 1})}}),
            "error: duplicate axis 1 in axes [0, 1, 1]");
}

TEST(TransformRelTest, ConcatenateAndStack) {
  EXPECT_EQ(Infer("concatenate", {Tup({T({1, 2}), T({1, 3})})}, {{"axis", Int(1)}}),
            "Tensor[(1, 5), float32]");
  EXPECT_EQ(Infer("concatenate", {Tup({T({1, 2}), T({kAny, 3})})}, {{"axis", Int(-1)}}),
            "Tensor[(?, 5), float32]");
  EXPECT_EQ(Infer("concatenate", {Tup({T({1, kAny}), T({1, 3})})}, {{"axis", Int(1)}}),
            "Tensor[(1, ?), float32]");
  EXPECT_EQ(Infer("concatenate", {Tup({T({1, 2}), T({2, 3})})}, {{"axis", Int(1)}}),
            "error: fields must agree on dim 0 outside the concatenation axis, got 1 and 2");
  EXPECT_EQ(Infer("concatenate", {Tup({T({1, 2}), T({1, 3}, DataType::Int(32))})}),
            "error: tuple fields must have the same rank and dtype, got Tensor[(1, 2), float32] "
            "and Tensor[(1, 3), int32]");
  EXPECT_EQ(Infer("concatenate", {T({1, 2})}),
            "error: expected a tuple of tensors, got Tensor[(1, 2), float32]");
  EXPECT_EQ(Infer("concatenate", {Tup({T({1, 2})})}, {{"axis", Int(2)}}),
            "error: axis 2 is out of range for rank 2");
  EXPECT_EQ(Infer("stack", {Tup({T({2, 3}), T({2, 3})})}), "Tensor[(2, 2, 3), float32]");
  EXPECT_EQ(Infer("stack", {Tup({T({2, 3}), T({2, 3}), T({2, 3})})}, {{"axis", Int(-1)}}),
            "Tensor[(2, 3, 3), float32]");
  EXPECT_EQ(Infer("stack", {Tup({T({2, 3}), T({2, 4})})}, {{"axis", Int(1)}}),
            "error: tuple fields must have the same shape, got Tensor[(2, 3), float32] and "
            "Tensor[(2, 4), float32]");
}

TEST(TransformRelTest, SqueezeAndExpandDims) {
  EXPECT_EQ(Infer("squeeze", {T({1, 3, 1, 2})}), "Tensor[(3, 2), float32]");
  EXPECT_EQ(Infer("squeeze", {T({1, 3, 1, 2})}, {{"axis", Ints({-2})}}),
            "Tensor[(1, 3, 2), float32]");
  EXPECT_EQ(Infer("squeeze", {T({1, 3})}, {{"axis", Ints({1})}}),
            "error: cannot squeeze axis 1 of extent 3");
  EXPECT_EQ(Infer("squeeze", {T({1, kAny})}),
            "error: axis must be set to squeeze a shape with dynamic dims");
  EXPECT_EQ(Infer("expand_dims", {T({3, 4})}, {{"axis", Int(1)}, {"num_newaxis", Int(2)}}),
            "Tensor[(3, 1, 1, 4), float32]");
  EXPECT_EQ(Infer("expand_dims", {T({3, 4})}, {{"axis", Int(-1)}}), "Tensor[(3, 4, 1), float32]");
  EXPECT_EQ(Infer("expand_dims", {T({3, 4})}, {{"axis", Int(3)}}),
            "error: axis 3 is out of range [-3, 2]");
  EXPECT_EQ(Infer("expand_dims", {T({3, 4})}), "error: attribute 'axis' must be set");
}

TEST(TransformRelTest, Take) {
  const DataType i64 = DataType::Int(64);
  EXPECT_EQ(Infer("take", {T({5, 6}), T({2, 3}, i64)}), "Tensor[(2, 3), float32]");
  EXPECT_EQ(Infer("take", {T({5, 6, 7}), T({2, 3}, i64)}, {{"axis", Int(1)}}),
            "Tensor[(5, 2, 3, 7), float32]");
  EXPECT_EQ(Infer("take", {T({5, 6, 7}), T({4}, i64)}, {{"axis", Int(-1)}}),
            "Tensor[(5, 6, 4), float32]");
  EXPECT_EQ(
      Infer("take", {T({4, 6, 7}), T({4, 3}, i64)}, {{"axis", Int(1)}, {"batch_dims", Int(1)}}),
      "Tensor[(4, 3, 7), float32]");
  EXPECT_EQ(Infer("take", {T({5, 6}), T({2})}),
            "error: indices must be integers, got Tensor[(2), float32]");
  EXPECT_EQ(Infer("take", {T({5, 6}), T({2}, i64)}, {{"axis", Int(2)}}),
            "error: axis 2 is out of range for rank 2");
  EXPECT_EQ(Infer("take", {T({5}), T({}, i64)}, {{"axis", Int(0)}}), "float32");
}

TEST(TransformRelTest, LayoutTransformAndRepeat) {
  EXPECT_EQ(Infer("layout_transform", {T({1, 32, 7, 7})},
                  {{"src_layout", Str("NCHW")}, {"dst_layout", Str("NCHW16c")}}),
            "Tensor[(1, 2, 7, 7, 16), float32]");
  EXPECT_EQ(Infer("layout_transform", {T({1, 32, 7, 7})},
                  {{"src_layout", Str("NCHW")}, {"dst_layout", Str("NHWC")}}),
            "Tensor[(1, 7, 7, 32), float32]");
  EXPECT_EQ(Infer("layout_transform", {T({1, 32, 7})},
                  {{"src_layout", Str("NCHW")}, {"dst_layout", Str("NHWC")}}),
            "error: expected 4-d input in layout NCHW, got (1, 32, 7)");
  EXPECT_EQ(Infer("layout_transform", {T({1, 32, 7, 7})},
                  {{"src_layout", Str("NCHW")}, {"dst_layout", Str("NCW")}}),
            "error: layout NCHW is not convertible to NCW");
  EXPECT_EQ(Infer("repeat", {T({2, 3})}, {{"repeats", Int(2)}, {"axis", Int(1)}}),
            "Tensor[(2, 6), float32]");
}

}  // namespace
}  // namespace carve::testing
