// The pass rules of ir/ops.def against TVM v0.16's registrations: the ops
// with an FInferCorrectLayout that ConvertLayout models, the ops
// FoldScaleAxis registers forward / backward rules for, and the ops
// SimplifyInference / CanonicalizeOps / RemoveDropout rewrite. Every other
// op must have no rule, so a new row cannot pick one up by accident.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "ir/op.h"
#include "ir/op_rules.h"

namespace carve {
namespace {

// Every op has the rule `expected` lists for it, and the others kNone.
template <typename Rule>
void ExpectRules(const std::map<std::string, Rule>& expected, Rule (*rule_of)(const OpInfo&)) {
  for (const OpInfo* op : AllOps()) {
    auto it = expected.find(std::string(op->name));
    EXPECT_EQ(rule_of(*op), it == expected.end() ? Rule::kNone : it->second) << op->name;
  }
}

TEST(OpRulesTest, LayoutRules) {
  const std::map<std::string, LayoutRule> expected = {
      {"nn.conv2d", LayoutRule::kConv},          {"nn.max_pool2d", LayoutRule::kPool},
      {"nn.avg_pool2d", LayoutRule::kPool},      {"nn.global_max_pool2d", LayoutRule::kPool},
      {"nn.global_avg_pool2d", LayoutRule::kPool}, {"concatenate", LayoutRule::kConcat},
      {"nn.batch_norm", LayoutRule::kBatchNorm}, {"nn.pad", LayoutRule::kPad},
      {"sum", LayoutRule::kReduce},              {"mean", LayoutRule::kReduce},
      {"max", LayoutRule::kReduce},              {"min", LayoutRule::kReduce},
      {"prod", LayoutRule::kReduce},             {"nn.dense", LayoutRule::kDense},
      {"qnn.conv2d", LayoutRule::kConv},         {"qnn.dense", LayoutRule::kDense},
      {"qnn.requantize", LayoutRule::kAxis},     {"qnn.concatenate", LayoutRule::kConcat},
      {"qnn.add", LayoutRule::kBroadcast},       {"qnn.mul", LayoutRule::kBroadcast},
      {"qnn.subtract", LayoutRule::kBroadcast},  {"nn.conv1d", LayoutRule::kConv},
      {"nn.conv3d", LayoutRule::kConv},          {"nn.conv2d_transpose", LayoutRule::kConv},
      {"nn.conv3d_transpose", LayoutRule::kConv}, {"qnn.conv2d_transpose", LayoutRule::kConv},
      {"image.resize2d", LayoutRule::kPool},     {"image.resize1d", LayoutRule::kPool},
      {"image.resize3d", LayoutRule::kPool},     {"transpose", LayoutRule::kTranspose},
      {"strided_slice", LayoutRule::kStridedSlice}, {"split", LayoutRule::kSplit},
      {"all", LayoutRule::kReduce},              {"argmax", LayoutRule::kReduce},
      {"argmin", LayoutRule::kReduce},           {"squeeze", LayoutRule::kSqueeze},
      {"nn.layer_norm", LayoutRule::kNorm},      {"nn.instance_norm", LayoutRule::kNorm},
      {"nn.l2_normalize", LayoutRule::kNorm},
      {"nn.max_pool1d", LayoutRule::kPool},
      {"nn.avg_pool1d", LayoutRule::kPool},
      {"nn.max_pool3d", LayoutRule::kPool},
      {"nn.avg_pool3d", LayoutRule::kPool},
      {"nn.adaptive_avg_pool2d", LayoutRule::kPool},
      {"nn.adaptive_max_pool2d", LayoutRule::kPool},
      {"nn.adaptive_avg_pool1d", LayoutRule::kPool},
      {"nn.adaptive_max_pool1d", LayoutRule::kPool},
      {"nn.adaptive_avg_pool3d", LayoutRule::kPool},
      {"nn.adaptive_max_pool3d", LayoutRule::kPool},
      {"nn.upsampling", LayoutRule::kUpsampling},
      {"nn.upsampling3d", LayoutRule::kUpsampling},
      {"slice_like", LayoutRule::kSliceLike},
      {"topk", LayoutRule::kTopK},
      {"vision.roi_align", LayoutRule::kOwnLayout},
      {"vision.roi_pool", LayoutRule::kOwnLayout},
      {"image.dilation2d", LayoutRule::kOwnLayout},
      {"nn.correlation", LayoutRule::kOwnLayout},
      {"nn.deformable_conv2d", LayoutRule::kConv},
      {"nn.contrib_dense_pack", LayoutRule::kDense},
      {"nn.prelu", LayoutRule::kKeepData},
      {"annotation.bitpack_start", LayoutRule::kElemwise},
      {"annotation.bitpack_end", LayoutRule::kElemwise},
      {"annotation.cast_hint", LayoutRule::kElemwise},
      {"annotation.checkpoint", LayoutRule::kElemwise},
      {"annotation.stop_fusion", LayoutRule::kElemwise},
      {"annotation.compiler_begin", LayoutRule::kElemwise},
      {"annotation.compiler_end", LayoutRule::kElemwise},
      {"on_device", LayoutRule::kElemwise},
      {"relay.op.annotation.simulated_quantize", LayoutRule::kElemwise},
      {"device_copy", LayoutRule::kElemwise}};
  ExpectRules<LayoutRule>(expected, LayoutRuleOf);
}

TEST(OpRulesTest, AxisBroadcastOps) {
  for (const OpInfo* op : AllOps()) {
    bool axis = op->name == "nn.bias_add" || op->name == "nn.prelu";
    EXPECT_EQ(BroadcastsAlongAxis(*op), axis) << op->name;
  }
}

TEST(OpRulesTest, ScaleRules) {
  const std::map<std::string, ScaleRule> expected = {
      {"nn.relu", ScaleRule::kPassThrough},  {"nn.leaky_relu", ScaleRule::kPassThrough},
      {"add", ScaleRule::kAddSub},           {"subtract", ScaleRule::kAddSub},
      {"multiply", ScaleRule::kMultiply},    {"nn.conv2d", ScaleRule::kConv},
      {"nn.conv3d", ScaleRule::kConv},       {"nn.dense", ScaleRule::kDense},
      {"nn.bias_add", ScaleRule::kBiasAdd},  {"expand_dims", ScaleRule::kLookThrough},
      {"reshape", ScaleRule::kLookThrough},  {"transpose", ScaleRule::kLookThrough},
      {"squeeze", ScaleRule::kLookThrough},  {"repeat", ScaleRule::kLookThrough}};
  ExpectRules<ScaleRule>(expected, ScaleRuleOf);
}

TEST(OpRulesTest, SimplifyRules) {
  const std::map<std::string, SimplifyRule> expected = {
      {"nn.batch_norm", SimplifyRule::kBatchNorm},
      {"nn.layer_norm", SimplifyRule::kLayerNorm},
      {"nn.instance_norm", SimplifyRule::kInstanceNorm},
      {"nn.dropout", SimplifyRule::kDropout},
      {"nn.bias_add", SimplifyRule::kBiasAdd}};
  ExpectRules<SimplifyRule>(expected, SimplifyRuleOf);
}

// The ops the fused-chain decoder (backends/kernels/fusion.cc) gives a
// part: biases and sums, the requantize step, row-major matmul anchors.
TEST(OpRulesTest, FusionRules) {
  const std::map<std::string, FusionRule> expected = {
      {"add", FusionRule::kBias},           {"nn.bias_add", FusionRule::kBias},
      {"qnn.requantize", FusionRule::kRequantize}, {"nn.dense", FusionRule::kMatmul},
      {"qnn.dense", FusionRule::kMatmul},   {"nn.batch_matmul", FusionRule::kMatmul}};
  ExpectRules<FusionRule>(expected, FusionRuleOf);
}

// The QNN dialect's ops FoldConstant(fold_qnn=True) may evaluate: every
// non-computational qnn op, and nothing else.
TEST(OpRulesTest, QnnCanonicalizeOps) {
  int count = 0;
  for (const OpInfo* op : AllOps()) {
    bool expected = op->name.starts_with("qnn.") && (op->flags & kOpNonComputational) != 0;
    EXPECT_EQ((op->flags & kOpQnnCanonicalize) != 0, expected) << op->name;
    count += expected;
  }
  EXPECT_EQ(count, 23);
}

// The rule ranges do not overlap the single-bit flags.
TEST(OpRulesTest, RuleBitsAreDisjoint) {
  constexpr uint32_t kSingleBits = kOpCommutative | kOpStateful | kOpNonComputational |
                                   kOpAnnotation | kOpAxisBroadcast | kOpQnnCanonicalize |
                                   kOpReshapeView;
  // Rule fields: the layout rule's 5 bits at 7, then 4 bits each at 12,
  // 16, 20 and 24 (bits 7 to 27).
  constexpr uint32_t kRuleFields = 0x1FFFFFu << 7;
  EXPECT_EQ(kSingleBits & kRuleFields, 0u);
  EXPECT_EQ(kLayoutRuleMask << kLayoutRuleShift, 0x1Fu << 7);
  for (const OpInfo* op : AllOps()) {
    EXPECT_EQ(op->flags & ~(kSingleBits | kRuleFields), 0u) << op->name;
  }
}

// FoldConstant computes these from the input's type (TVM's EvaluateShapeOf
// and EvaluateNdarraySize); no other op has the fact.
TEST(OpRulesTest, TypeFoldOps) {
  for (const OpInfo* op : AllOps()) {
    TypeFoldRule rule = TypeFoldRuleOf(*op);
    if (op == FindOp("shape_of") || op == FindOp("vm.shape_of")) {
      EXPECT_EQ(rule, TypeFoldRule::kShape) << op->name;
    } else if (op == FindOp("ndarray_size")) {
      EXPECT_EQ(rule, TypeFoldRule::kSize) << op->name;
    } else {
      EXPECT_EQ(rule, TypeFoldRule::kNone) << op->name;
    }
  }
}

// FoldConstant folds these by reshaping a constant's data: their result is
// their input's elements in order. transpose and layout_transform move
// elements, so they must not have the fact.
TEST(OpRulesTest, ReshapeViewOps) {
  const std::set<std::string> expected = {"reshape", "squeeze", "expand_dims",
                                          "nn.batch_flatten", "copy"};
  for (const OpInfo* op : AllOps()) {
    EXPECT_EQ(IsReshapeView(*op), expected.contains(std::string(op->name))) << op->name;
  }
}

}  // namespace
}  // namespace carve
