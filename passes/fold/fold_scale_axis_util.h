// Shared pieces of the two FoldScaleAxis directions (passes/fold_scale_axis.h):
// the message a prepare phase attaches to a node, TVM's
// MatchBroadcastToLeftAxes / ExpandBiasToMatchAxis / IsAllPositiveConstant
// and the convolution layout facts both directions read.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/expr.h"
#include "ir/op_rules.h"
#include "passes/rewrite/rewrite_util.h"

namespace carve::fold_scale {

// Axes (sorted) that may carry a scale, and whether the scale must be a
// non-negative constant (a relu lies on the way). std::nullopt is TVM's
// null message: no scaling possible.
struct Message {
  std::vector<int64_t> axes;
  bool require_positive = false;
};
using MaybeMessage = std::optional<Message>;

// TVM's Intersect of two messages (null wins; axes intersected; positive
// required when either requires it).
MaybeMessage Intersect(const MaybeMessage& a, const MaybeMessage& b);

// TVM's MatchBroadcastToLeftAxes: `rhs` broadcasts against `lhs` so that
// only `axes` of lhs see non-unit extents. With `rhs_value`, it is replaced
// by its squeezed form (a scalar is expanded and repeated to the axes'
// extents).
bool MatchBroadcastToLeftAxes(const TensorType* lhs, const TensorType* rhs,
                              const std::vector<int64_t>& axes, IRBuilder* builder = nullptr,
                              const Expr** rhs_value = nullptr);

// TVM's IsAllPositiveConstant: a constant (seen through the ops whose
// ScaleRule is kLookThrough: expand_dims, reshape, transpose, squeeze,
// repeat) whose elements are all >= 0.
bool IsAllPositiveConstant(const Expr* e);

// TVM's ReshapeOrExpandToMatchAxis: a scale along one axis of `shape` is
// expanded (ExpandBiasToMatchAxis); along several (a split channel, C and
// c of NCHW2c) it is reshaped to `shape`'s extents on `axes` and 1
// elsewhere (TVM's ReshapeToMatchAxis), nullptr when one of those extents
// is not static.
const Expr* ReshapeOrExpandToMatchAxis(IRBuilder& builder, const Expr* scale,
                                       const TensorType* shape, const std::vector<int64_t>& axes);
const Expr* ReshapeToMatchAxis(IRBuilder& builder, const Expr* scale, const TensorType* shape,
                               std::vector<int64_t> axes);

// Layout facts of a conv2d / conv3d call: simple layouts (NCHW / OIHW, ...)
// or blocked ones (NCHW2c with OIHW2i4o, ...: TVM folds both).
struct ConvInfo {
  int64_t channel_axis = -1;  // 'C' of the data (or out) layout
  int64_t channel_small = -1;  // 'c' of that layout (blocked), else -1
  int64_t kernel_o = -1;      // 'O' of the kernel layout
  int64_t kernel_i = -1;      // 'I' of the kernel layout
  int64_t kernel_o_small = -1;  // 'o' (blocked), else -1
  int64_t kernel_i_small = -1;  // 'i' (blocked), else -1
  int64_t kernel_ndim = 0;
  bool blocked = false;    // c, o and i all present
  bool depthwise = false;  // weight O == groups and I == 1
  bool foldable = false;   // simple or blocked layouts and (groups == 1 or depthwise)
  // The message's axes: {C}, or {C, c} when blocked.
  std::vector<int64_t> Axes() const {
    return blocked ? std::vector<int64_t>{channel_axis, channel_small}
                   : std::vector<int64_t>{channel_axis};
  }
};
// `use_out_layout`: read the channel axis from out_layout (data_layout when
// empty), as the backward direction does; else from data_layout.
ConvInfo ConvFacts(const Call* call, bool use_out_layout);

// Shorthands for ScaleRuleOf(e) == ScaleRule::k... (ir/expr.h): a conv (conv2d,
// conv3d); an op a positive scale passes through (relu, leaky_relu); add /
// subtract; multiply; dense; bias_add.
inline bool IsConv(const Expr* e) { return ScaleRuleOf(e) == ScaleRule::kConv; }
inline bool PassesScale(const Expr* e) { return ScaleRuleOf(e) == ScaleRule::kPassThrough; }
inline bool IsAddSub(const Expr* e) { return ScaleRuleOf(e) == ScaleRule::kAddSub; }
inline bool IsMultiply(const Expr* e) { return ScaleRuleOf(e) == ScaleRule::kMultiply; }
inline bool IsDense(const Expr* e) { return ScaleRuleOf(e) == ScaleRule::kDense; }
inline bool IsBiasAdd(const Expr* e) { return ScaleRuleOf(e) == ScaleRule::kBiasAdd; }
// Whether the data of nn.dense `call` is 2-d (typed): the only dense whose
// axis 1 is its feature axis (input) and units axis (output).
bool IsMatrixDense(const Call* call);

}  // namespace carve::fold_scale
