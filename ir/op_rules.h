// Op facts that generic passes ask for instead of op names: the rule each
// pass applies to an op (TVM registers these as per-op attributes:
// FInferCorrectLayout, FForwardRewrite / FBackwardTransform, the ops
// SimplifyInference and CanonicalizeOps rewrite) and the axis-broadcast
// fact. They are stored in OpInfo::flags and written in the flags column of
// ir/ops.def (kOpLayout*, kOpScale*, kOpSimplify*, kOpAxisBroadcast,
// kOpQnnCanonicalize, kOpReshapeView) next to
// ir/op.h's single-bit flags, which use bits 0-3.
#pragma once

#include <cstdint>

#include "ir/expr.h"
#include "ir/op.h"

namespace carve {

// How ConvertLayout treats an op: the kind of TVM's FInferCorrectLayout
// registered for it. kNone: a unary elementwise op follows its input's
// layout, a numpy-style broadcast follows its operands', any other op reads
// its inputs in their original layout.
enum class LayoutRule : uint8_t {
  kNone = 0,
  kConv = 1,       // converted to the desired layout (the convolutions)
  kPool = 2,       // follows its input's layout attribute (pools, image.resize1d/2d/3d)
  kConcat = 3,     // follows its inputs, axis remapped
  kBatchNorm = 4,  // follows its input, axis remapped
  kPad = 5,        // follows its input, pad_width permuted
  kReduce = 6,     // follows its input, reduced axes remapped
  kDense = 7,      // reads and writes "NC" (TVM's DenseInferCorrectLayout)
  kAxis = 8,       // follows its data (input 0), its `axis` remapped (qnn.requantize)
  kBroadcast = 9,  // numpy-style broadcast of inputs 0 and 1; the others (quantization
                   // parameters) are read as they are (TVM's QnnBinaryBroadcastLayout)
  kTranspose = 10,     // follows its input, axes remapped; the result is permuted
  kStridedSlice = 11,  // follows its input, begin / end / strides (or axes) remapped
  kSplit = 12,         // follows its input, axis remapped; every field follows
  kSqueeze = 13,       // follows its input, squeezed axes remapped and dropped
  kNorm = 14,          // follows its data (input 0), its axis / axes remapped (the norms)
  kUpsampling = 15,    // follows its input when H, W (and D) keep their positions
  kSliceLike = 16,     // follows its two inputs when they share a layout, axes remapped
  kTopK = 17,          // follows its input, axis remapped; values and indices follow
  kOwnLayout = 18,     // reads its inputs in its own `layout` (or `data_layout`)
                       // attribute; the result is in it (vision.roi_align / roi_pool,
                       // image.dilation2d, nn.correlation)
  kElemwise = 19,      // follows its only input although its TOpPattern is not
                       // kElemWise (TVM's ElemwiseArbitraryLayout: device_copy, ...)
  kKeepData = 20,      // reads its data in its original layout (nn.prelu: alpha is per
                       // channel); the result is in that layout
};

// How FoldScaleAxis treats an op: the kind of TVM's FForwardPrep /
// FBackwardPrep / ...Rewrite / ...Transform registered for it.
enum class ScaleRule : uint8_t {
  kNone = 0,
  kPassThrough = 1,  // a positive per-channel scale commutes with it (relu-like)
  kAddSub = 2,       // both operands take the scale
  kMultiply = 3,     // the scale itself (the op folded away)
  kConv = 4,         // folded into the weight along its output / input channels
  kDense = 5,        // folded into the weight's rows / columns
  kBiasAdd = 6,      // the bias takes the scale
  kLookThrough = 7,  // moves data only: a constant seen through it keeps its signs
};

// How the inference-time simplifications (SimplifyInference, RemoveDropout,
// CanonicalizeOps) rewrite an op into simpler ones.
enum class SimplifyRule : uint8_t {
  kNone = 0,
  kBatchNorm = 1,     // scale and shift by the moving statistics
  kLayerNorm = 2,     // mean / variance over the axis
  kInstanceNorm = 3,  // mean / variance over the spatial axes
  kDropout = 4,       // the identity on its data
  kBiasAdd = 5,       // expand_dims of the bias, then add
};

// The part an op plays in the fused chains of the backends' composite
// kernels (backends/kernels/fusion.h), besides anchors (TOpPattern above
// injective) and activations (label sequences).
enum class FusionRule : uint8_t {
  kNone = 0,
  kBias = 1,        // a bias or residual sum after the anchor (add, nn.bias_add)
  kRequantize = 2,  // requantizes a quantized anchor's accumulator
  kMatmul = 3,      // an anchor whose output channels are its last axis
};

// What FoldConstant can compute from the static type of an op's input
// alone, whatever its value (TVM's EvaluateShapeOf / EvaluateNdarraySize):
// the call folds even when its argument is not a constant.
enum class TypeFoldRule : uint8_t {
  kNone = 0,
  kShape = 1,  // the input's dims (shape_of, vm.shape_of)
  kSize = 2,   // the input's element count (ndarray_size)
};

// The flags column's names for these facts: the 5-bit layout rule field at
// bits 7-11, 4-bit rule fields at bits 12, 16, 20 and 24, and single bits. Plain constants, not an enum: a row ORs
// them with ir/op.h's OpFlag enumerators.

// Broadcasts an operand along an `axis` attribute rather than numpy-style
// (nn.bias_add, nn.prelu): the op is layout-sensitive.
inline constexpr uint32_t kOpAxisBroadcast = 1u << 4;
// Has a QNN canonicalization (TVM's FTVMQnnCanonicalize): a
// non-computational op FoldConstant evaluates when fold_qnn is set.
inline constexpr uint32_t kOpQnnCanonicalize = 1u << 5;
// The result holds the only input's elements in order, in the shape of the
// result's type (reshape, squeeze, expand_dims, nn.batch_flatten, copy):
// FoldConstant folds such a call of a constant by reshaping the constant's
// data, with no kernel and no copy of the elements.
inline constexpr uint32_t kOpReshapeView = 1u << 6;

// The layout rule's field: 5 bits from bit 7 (LayoutRule has more than 15
// values).
inline constexpr uint32_t kLayoutRuleShift = 7;
inline constexpr uint32_t kLayoutRuleMask = 0x1F;
inline constexpr uint32_t kOpLayoutConv = uint32_t(LayoutRule::kConv) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutPool = uint32_t(LayoutRule::kPool) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutConcat = uint32_t(LayoutRule::kConcat) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutBatchNorm = uint32_t(LayoutRule::kBatchNorm) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutPad = uint32_t(LayoutRule::kPad) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutReduce = uint32_t(LayoutRule::kReduce) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutDense = uint32_t(LayoutRule::kDense) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutAxis = uint32_t(LayoutRule::kAxis) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutBroadcast = uint32_t(LayoutRule::kBroadcast) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutTranspose = uint32_t(LayoutRule::kTranspose) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutStridedSlice = uint32_t(LayoutRule::kStridedSlice) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutSplit = uint32_t(LayoutRule::kSplit) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutSqueeze = uint32_t(LayoutRule::kSqueeze) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutNorm = uint32_t(LayoutRule::kNorm) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutUpsampling = uint32_t(LayoutRule::kUpsampling) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutSliceLike = uint32_t(LayoutRule::kSliceLike) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutTopK = uint32_t(LayoutRule::kTopK) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutOwn = uint32_t(LayoutRule::kOwnLayout) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutElemwise = uint32_t(LayoutRule::kElemwise) << kLayoutRuleShift;
inline constexpr uint32_t kOpLayoutKeepData = uint32_t(LayoutRule::kKeepData) << kLayoutRuleShift;
static_assert((uint32_t(LayoutRule::kKeepData) & ~kLayoutRuleMask) == 0 &&
              ((kLayoutRuleMask << kLayoutRuleShift) & (kOpReshapeView | (0xFu << 12))) == 0);

inline constexpr uint32_t kOpScalePassThrough = uint32_t(ScaleRule::kPassThrough) << 12;
inline constexpr uint32_t kOpScaleAddSub = uint32_t(ScaleRule::kAddSub) << 12;
inline constexpr uint32_t kOpScaleMultiply = uint32_t(ScaleRule::kMultiply) << 12;
inline constexpr uint32_t kOpScaleConv = uint32_t(ScaleRule::kConv) << 12;
inline constexpr uint32_t kOpScaleDense = uint32_t(ScaleRule::kDense) << 12;
inline constexpr uint32_t kOpScaleBiasAdd = uint32_t(ScaleRule::kBiasAdd) << 12;
inline constexpr uint32_t kOpScaleLookThrough = uint32_t(ScaleRule::kLookThrough) << 12;

inline constexpr uint32_t kOpSimplifyBatchNorm = uint32_t(SimplifyRule::kBatchNorm) << 16;
inline constexpr uint32_t kOpSimplifyLayerNorm = uint32_t(SimplifyRule::kLayerNorm) << 16;
inline constexpr uint32_t kOpSimplifyInstanceNorm = uint32_t(SimplifyRule::kInstanceNorm) << 16;
inline constexpr uint32_t kOpSimplifyDropout = uint32_t(SimplifyRule::kDropout) << 16;
inline constexpr uint32_t kOpSimplifyBiasAdd = uint32_t(SimplifyRule::kBiasAdd) << 16;

inline constexpr uint32_t kOpFusionBias = uint32_t(FusionRule::kBias) << 20;
inline constexpr uint32_t kOpFusionRequantize = uint32_t(FusionRule::kRequantize) << 20;
inline constexpr uint32_t kOpFusionMatmul = uint32_t(FusionRule::kMatmul) << 20;

inline constexpr uint32_t kOpTypeFoldShape = uint32_t(TypeFoldRule::kShape) << 24;
inline constexpr uint32_t kOpTypeFoldSize = uint32_t(TypeFoldRule::kSize) << 24;

inline LayoutRule LayoutRuleOf(const OpInfo& op) {
  return LayoutRule((op.flags >> kLayoutRuleShift) & kLayoutRuleMask);
}
inline ScaleRule ScaleRuleOf(const OpInfo& op) { return ScaleRule((op.flags >> 12) & 0xF); }
inline SimplifyRule SimplifyRuleOf(const OpInfo& op) {
  return SimplifyRule((op.flags >> 16) & 0xF);
}
inline FusionRule FusionRuleOf(const OpInfo& op) { return FusionRule((op.flags >> 20) & 0xF); }
inline TypeFoldRule TypeFoldRuleOf(const OpInfo& op) {
  return TypeFoldRule((op.flags >> 24) & 0xF);
}
inline bool BroadcastsAlongAxis(const OpInfo& op) { return (op.flags & kOpAxisBroadcast) != 0; }
inline bool IsReshapeView(const OpInfo& op) { return (op.flags & kOpReshapeView) != 0; }
// A quantized op of the QNN dialect (see kOpQnnCanonicalize).
inline bool IsQnnOp(const OpInfo& op) { return (op.flags & kOpQnnCanonicalize) != 0; }

// The op `e` calls, or nullptr when `e` is not a call of an op.
inline const OpInfo* OpOf(const Expr* e) {
  const Call* call = DynCast<Call>(e);
  return call != nullptr ? call->op() : nullptr;
}
// The facts of the op `e` calls; kNone when `e` is not a call of an op.
inline LayoutRule LayoutRuleOf(const Expr* e) {
  const OpInfo* op = OpOf(e);
  return op != nullptr ? LayoutRuleOf(*op) : LayoutRule::kNone;
}
inline ScaleRule ScaleRuleOf(const Expr* e) {
  const OpInfo* op = OpOf(e);
  return op != nullptr ? ScaleRuleOf(*op) : ScaleRule::kNone;
}
inline SimplifyRule SimplifyRuleOf(const Expr* e) {
  const OpInfo* op = OpOf(e);
  return op != nullptr ? SimplifyRuleOf(*op) : SimplifyRule::kNone;
}

}  // namespace carve
