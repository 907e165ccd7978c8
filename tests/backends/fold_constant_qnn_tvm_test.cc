// Ports of TVM v0.16 tests/python/relay/test_pass_fold_constant.py's qnn
// cases (test_fold_qnn_const, test_fold_quantize,
// test_fold_qnn_conv2d_qnn_mul): FoldConstant leaves qnn ops alone, and
// FoldConstant(fold_qnn=True) folds them (TVM's QNN canonicalization), each
// result compared with TVM's expected module by structural equality. The
// tensor constants of TVM's tests are bound parameters here. (In
// tests/backends/: folding needs the interpreter's kernels.)
#include <vector>

#include "backends/partition.h"
#include "gtest/gtest.h"
#include "passes/fold/bind_params.h"
#include "passes/fold/fold_constant.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

// TVM's two assertions: nothing changes without fold_qnn; with it, the
// result is `expected`.
void ExpectQnnFold(std::string_view before, const ParamMap& before_consts,
                   std::string_view expected, const ParamMap& expected_consts) {
  EnsureConstantEvaluator();  // the interpreter's kernels compute the folds
  Module plain = ParseBound(before, before_consts);
  RunOk(FoldConstant(), plain);
  EXPECT_TRUE(SameModule(plain, ParseBound(before, before_consts), /*with_types=*/true));
  Module folded = ParseBound(before, before_consts);
  RunOk(FoldConstant(/*fold_qnn=*/true), folded);
  EXPECT_TRUE(SameModule(folded, ParseBound(expected, expected_consts), /*with_types=*/true));
}

TEST(FoldConstantQnnTvm, FoldQnnConst) {
  const NDArray ones = Values(DataType::UInt(8), {2, 3}, {1});
  ExpectQnnFold(R"(
def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(2), float32], %c1: Tensor[(2, 3), uint8], %c2: Tensor[(2, 3), uint8]) {
  %0 = qnn.quantize(%a, 1f, 0, out_dtype="int8");
  %1 = qnn.add(%c1, %c2, 2f, 0, 2f, 0, 1f, 0);
  %2 = qnn.dense(%0, %1, 0, 0, 2f, 2f, units=None, out_dtype="int32");
  %3 = qnn.quantize(%b, 1f, 0, out_dtype="int32");
  qnn.add(%2, %3, 2f, 0, 2f, 0, 1f, 0)
})",
                {{"c1", ones}, {"c2", ones}}, R"(
def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(2), float32], %k: Tensor[(2, 3), uint8]) {
  %0 = qnn.quantize(%a, 1f, 0, out_dtype="int8");
  %1 = qnn.dense(%0, %k, 0, 0, 2f, 2f, units=None, out_dtype="int32");
  %2 = qnn.quantize(%b, 1f, 0, out_dtype="int32");
  qnn.add(%1, %2, 2f, 0, 2f, 0, 1f, 0)
})",
                {{"k", Values(DataType::UInt(8), {2, 3}, {4})}});
}

TEST(FoldConstantQnnTvm, FoldQuantize) {
  ExpectQnnFold(R"(
def @main(%x: Tensor[(1, 2, 3), int8], %c: Tensor[(3), float32]) {
  %0 = qnn.quantize(%c, 0.5f, 0, out_dtype="int8");
  subtract(%x, %0)
})",
                {{"c", Values(DataType::Float(32), {3}, {1, 2, 3})}}, R"(
def @main(%x: Tensor[(1, 2, 3), int8], %k: Tensor[(3), int8]) {
  subtract(%x, %k)
})",
                {{"k", Values(DataType::Int(8), {3}, {2, 4, 6})}});
}

TEST(FoldConstantQnnTvm, FoldQnnConv2dQnnMul) {
  const NDArray ones = Values(DataType::UInt(8), {1, 1, 2, 2}, {1});
  ExpectQnnFold(R"(
def @main(%d: Tensor[(1, 1, 2, 2), uint8], %w: Tensor[(1, 1, 2, 2), uint8], %ten: Tensor[(1), int32]) {
  %0 = qnn.conv2d(%d, %w, 0, 0, 1f, 1f, padding=[0, 0, 0, 0], channels=1, kernel_size=[2, 2], out_dtype="int32");
  qnn.mul(%0, %ten, 1f, 0, 1f, 0, 1f, 0)
})",
                {{"d", ones}, {"w", ones}, {"ten", Values(DataType::Int(32), {1}, {10})}}, R"(
def @main(%k: Tensor[(1, 1, 1, 1), int32]) {
  %k
})",
                {{"k", Values(DataType::Int(32), {1, 1, 1, 1}, {40})}});
}

}  // namespace
}  // namespace carve::testing
