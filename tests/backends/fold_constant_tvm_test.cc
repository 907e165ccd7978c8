// Ports of the TVM v0.16 FoldConstant / FoldScaleAxis test cases whose
// tensor constants Relay text cannot spell (tests/python/relay/
// test_pass_fold_constant.py: test_concatenate_const, test_fold_concat,
// test_fold_let_with_on_device, test_fold_const_with_on_device (with its
// virtual devices, through the #[metadata] section),
// test_fold_requantize, test_fold_batch_norm, test_pass_link_params;
// test_pass_fold_scale_axis.py:
// test_fold_bwd_simple_constant). TVM's relay.const tensors and
// create_workload's parameters are bound parameters here; each result is
// compared with TVM's expected module by structural equality. (In
// tests/backends/: folding needs the interpreter's kernels.)
#include <vector>

#include "backends/partition.h"
#include "gtest/gtest.h"
#include "passes/fold/bind_params.h"
#include "passes/fold/fold_constant.h"
#include "passes/fold/fold_scale_axis.h"
#include "passes/simplify/simplify_inference.h"
#include "tests/passes_byoc/byoc_test_util.h"

namespace carve::testing {
namespace {

// Runs `passes` on `before` (bound to `before_consts`) and compares the
// result with `expected` (bound to `expected_consts`), types included.
void ExpectResult(const std::vector<PassPtr>& passes, std::string_view before,
                  const ParamMap& before_consts, std::string_view expected,
                  const ParamMap& expected_consts) {
  EnsureConstantEvaluator();
  Module mod = ParseBound(before, before_consts);
  for (const PassPtr& pass : passes) RunOk(pass, mod);
  EXPECT_TRUE(SameModule(mod, ParseBound(expected, expected_consts), /*with_types=*/true));
}

// TVM's FoldScaleAxis: Sequential(Backward, Forward, FoldConstant).
std::vector<PassPtr> FoldScaleAxisSequence() {
  return {BackwardFoldScaleAxis(), ForwardFoldScaleAxis(), FoldConstant()};
}

TEST(FoldConstantTvm, ConcatenateConst) {
  // np.array([1.0, 2.0, 3.0]) is float64.
  ExpectResult({FoldConstant()}, R"(
def @main(%c: Tensor[(3), float64]) {
  concatenate((%c, %c))
})",
               {{"c", Values(DataType::Float(64), {3}, {1, 2, 3})}}, R"(
def @main(%k: Tensor[(6), float64]) {
  %k
})",
               {{"k", Values(DataType::Float(64), {6}, {1, 2, 3, 1, 2, 3})}});
}

TEST(FoldConstantTvm, FoldConcat) {
  ExpectResult({FoldConstant()}, R"(
def @main(%a: Tensor[(1, 3), float32], %b: Tensor[(1, 3), float32]) {
  concatenate((%a, %b))
})",
               {{"a", Values(DataType::Float(32), {1, 3}, {1, 2, 3})},
                {"b", Values(DataType::Float(32), {1, 3}, {1, 2, 3})}},
               R"(
def @main(%k: Tensor[(2, 3), float32]) {
  %k
})",
               {{"k", Values(DataType::Float(32), {2, 3}, {1, 2, 3, 1, 2, 3})}});
}

// One VirtualDevice, tvm.cpu() (device_type 1, id 0), as TVM's printer
// writes it in the #[metadata] section.
constexpr char kCpuMetadata[] = R"(
#[metadata]
{"root": 1, "nodes": [{"type_key": ""}, {"type_key": "Map", "keys": ["VirtualDevice"], "data": [2]}, {"type_key": "Array", "data": [3]}, {"type_key": "VirtualDevice", "attrs": {"device_type_int": "1", "memory_scope": "4", "target": "0", "virtual_device_id": "0"}}, {"type_key": "runtime.String"}], "b64ndarrays": [], "attrs": {"tvm_version": "0.16.0"}})";

TEST(FoldConstantTvm, FoldConstWithOnDevice) {
  // TVM's case: %x and the function live on the CPU (virtual_device_ set
  // from Python, printed as meta[VirtualDevice][0]); add(c, c) * 2 folds,
  // and neither BindParams nor FoldConstant drops the devices.
  const NDArray c = Values(DataType::Float(32), {3}, {1, 2, 3});
  const std::string before = std::string(R"(
def @main(%x {virtual_device=meta[VirtualDevice][0]}: Tensor[(1, 2, 3), float32], %c: Tensor[(3), float32], virtual_device=meta[VirtualDevice][0]) {
  %0 = add(%c, %c);
  %1 = multiply(%0, 2f);
  %2 = add(%x, %1);
  add(%2, %c)
})") + kCpuMetadata;
  const std::string expected = std::string(R"(
def @main(%x {virtual_device=meta[VirtualDevice][0]}: Tensor[(1, 2, 3), float32], %k: Tensor[(3), float32], %c: Tensor[(3), float32], virtual_device=meta[VirtualDevice][0]) {
  %0 = add(%x, %k);
  add(%0, %c)
})") + kCpuMetadata;
  EnsureConstantEvaluator();
  Module mod = ParseBound(before, {{"c", c}});
  RunOk(FoldConstant(), mod);
  EXPECT_TRUE(SameModule(
      mod, ParseBound(expected, {{"c", c}, {"k", Values(DataType::Float(32), {3}, {4, 8, 12})}}),
      /*with_types=*/true));
  const Function* main = mod.Lookup("main");
  ASSERT_NE(main->virtual_device(), nullptr);
  EXPECT_EQ(*main->virtual_device(), *NewVirtualDevice(1, 0));
  // A structural difference in a parameter's device is one.
  EXPECT_FALSE(SameModule(mod, ParseBound(R"(
def @main(%x: Tensor[(1, 2, 3), float32], %k: Tensor[(3), float32], %c: Tensor[(3), float32]) {
  %0 = add(%x, %k);
  add(%0, %c)
})", {{"c", c}, {"k", Values(DataType::Float(32), {3}, {4, 8, 12})}}), /*with_types=*/true));
}

TEST(FoldConstantTvm, FoldConstWithOnDeviceAnnotation) {
  // The same folding with on_device annotations in the body: they do not
  // stop add(c, c) * 2 from folding.
  const NDArray c = Values(DataType::Float(32), {3}, {1, 2, 3});
  ExpectResult({FoldConstant()}, R"(
def @main(%x: Tensor[(1, 2, 3), float32], %c: Tensor[(3), float32]) {
  %0 = add(%c, %c);
  %1 = multiply(%0, 2f);
  %2 = on_device(%1, virtual_device="cpu", constrain_result=True);
  %3 = add(%x, %2);
  add(%3, %c)
})",
               {{"c", c}}, R"(
def @main(%x: Tensor[(1, 2, 3), float32], %k: Tensor[(3), float32], %c: Tensor[(3), float32]) {
  %0 = on_device(%k, virtual_device="cpu", constrain_result=True);
  %1 = add(%x, %0);
  add(%1, %c)
})",
               {{"c", c}, {"k", Values(DataType::Float(32), {3}, {4, 8, 12})}});
}

TEST(FoldConstantTvm, FoldLetWithOnDevice) {
  // Inlined constants bring their on_device annotation with them.
  ExpectResult({FoldConstant()}, R"(
def @main(%x: Tensor[(1), float32]) {
  let %t1 = on_device(1f, virtual_device="cpu", constrain_result=True);
  let %t2 = on_device(add(%t1, %t1), virtual_device="cpu", constrain_result=True);
  let %t3 = on_device(add(%t2, %x), virtual_device="cpu", constrain_result=True);
  %t3
})",
               {}, R"(
def @main(%x: Tensor[(1), float32]) -> Tensor[(1), float32] {
  let %t3: Tensor[(1), float32] = on_device(add(on_device(2f, virtual_device="cpu", constrain_result=True), %x), virtual_device="cpu", constrain_result=True);
  %t3
})",
               {});
}

TEST(FoldConstantTvm, OnDeviceConditionAndTuple) {
  // The same look-through in FoldConstant's if and projection rules: an
  // on_device-wrapped constant condition picks its branch, and a field of
  // an on_device-wrapped tuple keeps the annotation unless it is a
  // variable (TVM's MaybeOnDeviceWithProps).
  ExpectResult({FoldConstant()}, R"(
def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float32]) {
  %0 = on_device(True, virtual_device="cpu", constrain_result=True);
  %1 = if (%0) { %x } else { %y };
  %2 = on_device((%x, add(%x, %y)), virtual_device="cpu", constrain_result=True);
  (%1, %2.0, %2.1)
})",
               {}, R"(
def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float32]) -> (Tensor[(2), float32], Tensor[(2), float32], Tensor[(2), float32]) {
  %0 = add(%x, %y);
  (%x, %x, on_device(%0, virtual_device="cpu", constrain_result=True))
})",
               {});
}

TEST(FoldConstantTvm, DeviceCopyStays) {
  // TVM's FoldConstant never evaluates device_copy (the copy is what moves
  // a constant to its device); its operand still folds.
  ExpectResult({FoldConstant()}, R"(
def @main() {
  %0 = add(1f, 2f);
  device_copy(%0)
})",
               {}, R"(
def @main() -> float32 {
  device_copy(3f)
})",
               {});
}

TEST(FoldConstantTvm, FoldRequantize) {
  const char* before = R"(
def @main(%x: Tensor[(3), int8], %c: Tensor[(3), int8]) {
  %0 = qnn.requantize(%c, 2f, 1, 1f, 1, out_dtype="int8");
  add(%0, %x)
})";
  const ParamMap consts = {{"c", Values(DataType::Int(8), {3}, {1, 2, 3})}};
  // Nothing changes without fold_qnn.
  ExpectResult({FoldConstant()}, before, consts, before, consts);
  ExpectResult({FoldConstant(/*fold_qnn=*/true)}, before, consts, R"(
def @main(%x: Tensor[(3), int8], %k: Tensor[(3), int8]) {
  add(%k, %x)
})",
               {{"k", Values(DataType::Int(8), {3}, {1, 3, 5})}});
}

TEST(FoldConstantTvm, FoldBatchNorm) {
  // create_workload's parameters are zeros. (TVM's expected() writes its
  // zeros as float64 constants, which could not type against the float32
  // conv; the parameters the pass folds are float32.)
  std::vector<PassPtr> passes = {SimplifyInference(), FoldConstant()};
  for (PassPtr& p : FoldScaleAxisSequence()) passes.push_back(std::move(p));
  const NDArray z16 = Values(DataType::Float(32), {16}, {0});
  ExpectResult(passes, R"(
def @main(%data: Tensor[(1, 3, 224, 224), float32], %weight: Tensor[(16, 3, 3, 3), float32], %bn_gamma: Tensor[(16), float32], %bn_beta: Tensor[(16), float32], %bn_mean: Tensor[(16), float32], %bn_var: Tensor[(16), float32]) {
  %0 = nn.conv2d(%data, %weight, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %1 = nn.batch_norm(%0, %bn_gamma, %bn_beta, %bn_mean, %bn_var);
  %1.0
})",
               {{"weight", Values(DataType::Float(32), {16, 3, 3, 3}, {0})},
                {"bn_gamma", z16},
                {"bn_beta", z16},
                {"bn_mean", z16},
                {"bn_var", z16}},
               R"(
def @main(%data: Tensor[(1, 3, 224, 224), float32], %w: Tensor[(16, 3, 3, 3), float32], %b: Tensor[(16, 1, 1), float32]) {
  %0 = nn.conv2d(%data, %w, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  add(%0, %b)
})",
               {{"w", Values(DataType::Float(32), {16, 3, 3, 3}, {0})},
                {"b", Values(DataType::Float(32), {16, 1, 1}, {0})}});
}

TEST(FoldConstantTvm, PassLinkParams) {
  // TVM's test only checks that folding an int8 cast does not fail under an
  // AOT executor with link-params (carve's modules carry no executor).
  ExpectResult({FoldConstant()}, R"(
def @main() {
  cast(10i8, dtype="int32")
})",
               {}, R"(
def @main() -> int32 {
  10
})",
               {});
}

TEST(FoldScaleAxisTvm, FoldBwdSimpleConstant) {
  // A scalar 2.0 after relu goes into the bound (zero) weight and bias;
  // FoldScaleAxis' FoldConstant leaves them constants again.
  const ParamMap consts = {{"weight", Values(DataType::Float(32), {16, 3, 3, 3}, {0})},
                           {"in_bias", Values(DataType::Float(32), {16, 1, 1}, {0})}};
  ExpectResult(FoldScaleAxisSequence(), R"(
def @main(%data: Tensor[(1, 3, 200, 200), float32], %weight: Tensor[(16, 3, 3, 3), float32], %in_bias: Tensor[(16, 1, 1), float32]) {
  %0 = nn.conv2d(%data, %weight, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %1 = add(%0, %in_bias);
  %2 = nn.relu(%1);
  multiply(%2, 2f)
})",
               consts, R"(
def @main(%data: Tensor[(1, 3, 200, 200), float32], %weight: Tensor[(16, 3, 3, 3), float32], %in_bias: Tensor[(16, 1, 1), float32]) {
  %0 = nn.conv2d(%data, %weight, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %1 = add(%0, %in_bias);
  nn.relu(%1)
})",
               consts);
}

}  // namespace
}  // namespace carve::testing
