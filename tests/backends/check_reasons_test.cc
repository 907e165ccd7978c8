// Every rejection says which check and why: the built-in C++ checks of
// tensorrt and dnnl composites state the condition that failed with the
// values they saw, and the placement record (which `partition --report`,
// `why` and `viz` print) carries it. Each case also asserts that the check
// MergeComposite applies agrees with the reason (rejected iff a reason).
#include <string>
#include <string_view>

#include "backends/partition.h"
#include "backends/placement.h"
#include "backends_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

using ::testing::HasSubstr;
using testing::ParseTyped;  // carve::testing

// The text of `backend`'s verdict on the only call of `op` in `text`.
std::string VerdictOn(std::string_view text, std::string_view backend, std::string_view op) {
  absl::StatusOr<std::vector<TargetSpecPtr>> specs = ResolveBackends(backend);
  EXPECT_TRUE(specs.ok());
  absl::StatusOr<PartitionResult> result = PartitionWithRecord(ParseTyped(text), *specs);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return "";
  std::string found;
  for (const Placement& p : result->record.placements()) {
    if (p.op != op) continue;
    EXPECT_TRUE(found.empty()) << "two calls of " << op;
    found = p.verdicts[0].Text();
  }
  return found;
}

TEST(CheckReasonsTest, TensorRtTransposeMovingTheBatch) {
  EXPECT_EQ(VerdictOn(R"(
def @main(%x: Tensor[(1, 4, 8), float32]) {
  transpose(%x, axes=[1, 0, 2])
})",
                      "tensorrt", "transpose"),
            "failed check: tensorrt.transpose: axes [1, 0, 2] move the batch axis (axes[0] is 1, "
            "not 0; implicit batch mode)");
  EXPECT_THAT(VerdictOn(R"(
def @main(%x: Tensor[(1, 4, 8), float32]) {
  transpose(%x)
})",
                        "tensorrt", "transpose"),
              HasSubstr("axes are not given"));
}

TEST(CheckReasonsTest, TensorRtReshapeAndReductions) {
  EXPECT_EQ(VerdictOn(R"(
def @main(%x: Tensor[(1, 4, 8), float32]) {
  reshape(%x, newshape=[-2])
})",
                      "tensorrt", "reshape"),
            "failed check: tensorrt.reshape: newshape [-2] uses the special value -2 (only -1 "
            "is supported)");
  EXPECT_EQ(VerdictOn(R"(
def @main(%x: Tensor[(1, 4, 8), float32]) {
  sum(%x, axis=[0, 2])
})",
                      "tensorrt", "sum"),
            "failed check: tensorrt.sum: axis [0, 2] reduces the batch axis 0 (implicit batch "
            "mode)");
}

TEST(CheckReasonsTest, TensorRtDynamicDimBeyondTheBatch) {
  EXPECT_EQ(VerdictOn(R"(
def @main(%x: Tensor[(?, 4, ?), float32]) {
  tanh(%x)
})",
                      "tensorrt", "tanh"),
            "failed check: tensorrt.tanh: arg 0: dim 2 of Tensor[(?, 4, ?), float32] is dynamic "
            "(implicit batch mode: only dim 0 may be)");
  // A dynamic batch alone is fine.
  EXPECT_EQ(VerdictOn(R"(
def @main(%x: Tensor[(?, 4, 8), float32]) {
  tanh(%x)
})",
                      "tensorrt", "tanh"),
            "offloaded by composite tensorrt.tanh");
}

TEST(CheckReasonsTest, TensorRtConcatenateAndStridedSlice) {
  // tensorrt's FoldConstant turns the full(...) into a constant field.
  EXPECT_EQ(VerdictOn(R"(
def @main(%x: Tensor[(1, 4), float32]) {
  %0 = full(1f, shape=[1, 1], dtype="float32");
  %1 = (%x, %0);
  concatenate(%1, axis=1)
})",
                      "tensorrt", "concatenate"),
            "failed check: tensorrt.concatenate: field 1 of its input tuple is a constant");
  EXPECT_EQ(VerdictOn(R"(
def @main(%x: Tensor[(2, 4), float32]) {
  strided_slice(%x, begin=[1, 0], end=[2, 4], strides=[1, 1])
})",
                      "tensorrt", "strided_slice"),
            "failed check: tensorrt.strided_slice: begin[0] is 1: it slices the batch axis "
            "(implicit batch mode)");
}

// dnnl's bias check (make_bias_add_pattren_predicate) on the module as
// dnnl's preparation passes leave it (nn.bias_add became an add of a
// (C, 1, 1) bias): the conv2d's channels against the bias's size. (The ops
// are offloaded one by one all the same, so the record says "single-op
// rule"; `carve why @dnnl:conv2d_bias_relu` prints this reason.)
std::string DnnlBiasRefusal(std::string_view text) {
  absl::StatusOr<std::vector<TargetSpecPtr>> specs = ResolveBackends("dnnl");
  EXPECT_TRUE(specs.ok());
  Module mod = ParseTyped(text);
  const Expr* relu = mod.Lookup("main")->body();
  for (const CompositeRule& rule : specs->front()->composites()) {
    if (rule.name == "dnnl.conv2d_bias_relu") return CompositeCheckRefusal(rule, relu);
  }
  ADD_FAILURE() << "no dnnl.conv2d_bias_relu";
  return "";
}

TEST(CheckReasonsTest, DnnlBiasCheckNamesChannels) {
  EXPECT_EQ(DnnlBiasRefusal(R"(
def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(4, 8, 3, 3), float32], %b: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], kernel_size=[3, 3]);
  %1 = add(%0, %b);
  nn.relu(%1)
})"),
            "the conv2d's channels attribute is not set (the bias check compares it with the "
            "bias's size)");
  EXPECT_EQ(DnnlBiasRefusal(R"(
def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(4, 8, 3, 3), float32], %b: Tensor[(1, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = add(%0, %b);
  nn.relu(%1)
})"),
            "the bias Tensor[(1, 1, 1), float32] has 1 element, the conv2d 4 channels");
  EXPECT_EQ(DnnlBiasRefusal(R"(
def @main(%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(4, 8, 3, 3), float32], %b: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = add(%0, %b);
  nn.relu(%1)
})"),
            "");
}

// ACL's conv2d pattern takes an optional nn.pad before the data: a conv
// without one fails on its layout clause, not on "expected nn.pad".
TEST(CheckReasonsTest, AclConvWithoutPadFailsOnItsClause) {
  constexpr std::string_view kNchw = R"(
def @main(%x: Tensor[(1, 8, 8, 8), float32]) {
  %0 = nn.conv2d(%x, meta[relay.Constant][0], padding=[0, 0, 0, 0], channels=2, kernel_size=[1, 1]);
  nn.relu(%0)
}
#[metadata]
{"root": 1, "nodes": [{"type_key": ""}, {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]}, {"type_key": "Array", "data": [3]}, {"type_key": "relay.Constant", "attrs": {"_checked_type_": "6", "data": "0", "span": "0", "virtual_device_": "4"}}, {"type_key": "VirtualDevice", "attrs": {"device_type_int": "-1", "memory_scope": "5", "target": "0", "virtual_device_id": "-1"}}, {"type_key": "runtime.String"}, {"type_key": "relay.TensorType", "attrs": {"dtype": "float32", "shape": "7", "span": "0"}}, {"type_key": "Array", "data": [8, 9, 10, 11]}, {"type_key": "IntImm", "attrs": {"dtype": "int32", "span": "0", "value": "2"}}, {"type_key": "IntImm", "attrs": {"dtype": "int32", "span": "0", "value": "8"}}, {"type_key": "IntImm", "attrs": {"dtype": "int32", "span": "0", "value": "1"}}, {"type_key": "IntImm", "attrs": {"dtype": "int32", "span": "0", "value": "1"}}], "b64ndarrays": ["P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAABAAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAQAAAAAAAAABAAAAAAAAAEAAAAAAAAAAAACAPwAAgD8AAIA/AACAPwAAgD8AAIA/AACAPwAAgD8AAIA/AACAPwAAgD8AAIA/AACAPwAAgD8AAIA/AACAPw=="], "attrs": {"tvm_version": "0.16.0"}}
)";
  std::string relu = VerdictOn(kNchw, "arm_compute_lib", "nn.relu");
  EXPECT_EQ(relu,
            "failed check: arm_compute_lib.conv2d: arg 0: where clause: `?conv.data_layout == "
            "\"NHWC\"` is false (?conv.data_layout is \"NCHW\")");
  EXPECT_THAT(relu, ::testing::Not(HasSubstr("nn.pad")));
}

}  // namespace
}  // namespace carve
