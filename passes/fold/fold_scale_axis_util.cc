#include "passes/fold/fold_scale_axis_util.h"

#include <algorithm>

#include "ir/attrs.h"
#include "ir/layout.h"

namespace carve::fold_scale {

MaybeMessage Intersect(const MaybeMessage& a, const MaybeMessage& b) {
  if (!a.has_value() || !b.has_value()) return std::nullopt;
  Message out;
  std::set_intersection(a->axes.begin(), a->axes.end(), b->axes.begin(), b->axes.end(),
                        std::back_inserter(out.axes));
  out.require_positive = a->require_positive || b->require_positive;
  return out;
}

namespace {

// The scalar case: expand_dims(s, axis=0, num_newaxis=|axes|), then one
// repeat per axis. TVM reads every repeat count from the first axis.
bool ExpandScalar(const TensorType* lhs, const std::vector<int64_t>& axes, IRBuilder* builder,
                  const Expr** rhs_value) {
  const Dim& extent = lhs->shape()[size_t(axes[0])];
  if (extent.is_any()) return false;
  const Expr* v = builder->MakeCall(
      GetOp("expand_dims"), {*rhs_value},
      OpAttrs("expand_dims", {{"axis", AttrValue::Int(0)},
                              {"num_newaxis", AttrValue::Int(int64_t(axes.size()))}}));
  for (size_t i = 0; i < axes.size(); ++i) {
    v = builder->MakeCall(GetOp("repeat"), {v},
                          OpAttrs("repeat", {{"repeats", AttrValue::Int(extent.value)},
                                             {"axis", AttrValue::Int(int64_t(i))}}));
  }
  *rhs_value = v;
  return true;
}

}  // namespace

bool MatchBroadcastToLeftAxes(const TensorType* lhs, const TensorType* rhs,
                              const std::vector<int64_t>& axes, IRBuilder* builder,
                              const Expr** rhs_value) {
  if (lhs == nullptr || rhs == nullptr || lhs->rank() < rhs->rank()) return false;
  if (rhs->rank() == 0 && rhs_value != nullptr && !axes.empty()) {
    return ExpandScalar(lhs, axes, builder, rhs_value);
  }
  size_t base = lhs->rank() - rhs->rank();
  size_t j = 0;
  std::vector<AttrValue> squeeze_axes;
  for (size_t i = 0; i < lhs->rank(); ++i) {
    if (j < axes.size() && int64_t(i) == axes[j]) {
      if (i < base || !(lhs->shape()[i] == rhs->shape()[i - base])) return false;
      ++j;
    } else if (i >= base) {
      const Dim& d = rhs->shape()[i - base];
      if (d.is_any() || d.value != 1) return false;
      squeeze_axes.push_back(AttrValue::Int(int64_t(i - base)));
    }
  }
  if (rhs_value != nullptr && !squeeze_axes.empty()) {
    *rhs_value = builder->MakeCall(GetOp("squeeze"), {*rhs_value},
                                   OpAttrs("squeeze", {{"axis", AttrValue::Array(squeeze_axes)}}));
  }
  return true;
}

bool IsAllPositiveConstant(const Expr* e) {
  // Peel the shape-only ops TVM looks through (a chain, so a loop).
  while (const auto* call = DynCast<Call>(e)) {
    if (ScaleRuleOf(call) != ScaleRule::kLookThrough) return false;
    e = call->args()[0];
  }
  const auto* constant = DynCast<Constant>(e);
  if (constant == nullptr) return false;
  const NDArray& data = constant->data();
  DataType dtype = data.dtype();
  if (dtype.lanes != 1) return false;
  if (dtype.code != DataType::kFloat && dtype.code != DataType::kInt &&
      dtype.code != DataType::kUInt) {
    return false;
  }
  for (int64_t i = 0; i < data.num_elements(); ++i) {
    if (!(data.GetAsDouble(i) >= 0)) return false;
  }
  return true;
}



ConvInfo ConvFacts(const Call* call, bool use_out_layout) {
  ConvInfo info;
  const Attrs* attrs = call->attrs();
  std::string_view data_text = attrs->GetString("data_layout");
  std::string_view out_text = attrs->GetString("out_layout");
  std::string_view layout_text = use_out_layout && !out_text.empty() ? out_text : data_text;
  auto layout = Layout::Parse(layout_text);
  auto kernel = Layout::Parse(attrs->GetString("kernel_layout"));
  if (!layout.ok() || !kernel.ok()) return info;
  info.channel_axis = layout->IndexOf('C');
  info.channel_small = layout->IndexOf('c');
  info.kernel_o = kernel->IndexOf('O');
  info.kernel_i = kernel->IndexOf('I');
  info.kernel_o_small = kernel->IndexOf('o');
  info.kernel_i_small = kernel->IndexOf('i');
  info.kernel_ndim = int64_t(kernel->ndim());
  // TVM: all three sub-axes absent (simple) or all present (blocked).
  bool simple = info.channel_small < 0 && info.kernel_o_small < 0 && info.kernel_i_small < 0;
  info.blocked = info.channel_small >= 0 && info.kernel_o_small >= 0 && info.kernel_i_small >= 0;
  if (info.channel_axis < 0 || info.kernel_o < 0 || info.kernel_i < 0) return info;
  if (!simple && !info.blocked) return info;
  int64_t groups = attrs->GetInt("groups", 1);
  const TensorType* w = TensorTypeOf(call->args()[1]);
  if (w != nullptr && int64_t(w->rank()) == info.kernel_ndim) {
    // TVM's IsDepthwiseConv reads the weight as OIHW: a split channel
    // counts as O * o (I * i).
    auto extent = [&](int64_t big, int64_t small) -> int64_t {
      const Dim& b = w->shape()[size_t(big)];
      if (b.is_any()) return -1;
      if (small < 0) return b.value;
      const Dim& s = w->shape()[size_t(small)];
      return s.is_any() ? -1 : b.value * s.value;
    };
    info.depthwise = extent(info.kernel_o, info.kernel_o_small) == groups &&
                     extent(info.kernel_i, info.kernel_i_small) == 1;
  }
  info.foldable = groups == 1 || info.depthwise;
  return info;
}

const Expr* ReshapeToMatchAxis(IRBuilder& builder, const Expr* scale, const TensorType* shape,
                               std::vector<int64_t> axes) {
  if (shape == nullptr) return nullptr;
  std::vector<AttrValue> newshape;
  for (size_t i = 0; i < shape->rank(); ++i) {
    if (std::find(axes.begin(), axes.end(), int64_t(i)) == axes.end()) {
      newshape.push_back(AttrValue::Int(1));
      continue;
    }
    const Dim& d = shape->shape()[i];
    if (d.is_any()) return nullptr;  // TVM: not a constant extent
    newshape.push_back(AttrValue::Int(d.value));
  }
  return MakeOpCall(builder, "reshape", {scale},
                    OpAttrs("reshape", {{"newshape", AttrValue::Array(newshape)}}));
}

const Expr* ReshapeOrExpandToMatchAxis(IRBuilder& builder, const Expr* scale,
                                       const TensorType* shape, const std::vector<int64_t>& axes) {
  if (axes.size() > 1) return ReshapeToMatchAxis(builder, scale, shape, axes);
  if (shape == nullptr || axes.empty()) return nullptr;
  return ExpandBiasToMatchAxis(builder, scale, int64_t(shape->rank()), axes[0]);
}

bool IsMatrixDense(const Call* call) {
  const auto* data = DynCast<TensorType>(call->args()[0]->checked_type());
  return data != nullptr && data->rank() == 2;
}

}  // namespace carve::fold_scale
