// SimplifyExpr's data-movement rules: SimplifyReshape, SimplifyTranspose
// (transpose and layout_transform pairs, including TVM's folding of rank
// changing layout transforms) and SimplifyNoOpTranspose.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/layout.h"
#include "passes/rewrite/rewrite_util.h"
#include "passes/simplify/simplify_expr_rules.h"
#include "patterns/builders.h"
#include "support/status_macros.h"

namespace carve::simplify {
namespace {

AttrValue IntArray(std::span<const int64_t> values) {
  std::vector<AttrValue> items;
  for (int64_t v : values) items.push_back(AttrValue::Int(v));
  return AttrValue::Array(items);
}

AttrValue Ints(std::span<const Dim> dims) {
  std::vector<int64_t> values;
  for (const Dim& d : dims) values.push_back(d.value);
  return IntArray(values);
}

Pattern ReshapeLike(const Pattern& p) {
  return IsOp("reshape")(p) | IsOp("expand_dims")(p) | IsOp("squeeze")(p) |
         IsOp("nn.batch_flatten")(p);
}

// reshape-like(reshape-like(x)) -> reshape(x, newshape=<result shape>)
absl::StatusOr<const Expr*> Reshape(const RewriteContext& ctx) {
  const TensorType* out = TensorTypeOf(ctx.pre());
  const Expr* x = ctx.Capture("x");
  if (out == nullptr || !out->is_static() || x == nullptr) return ctx.post();
  if (x->checked_type() == out) return x;
  // The new shape is the result's literal shape: a 0 in it is an empty
  // axis, which reshape reads as "copy the input dim" unless allowzero is
  // set (random-program finding F-4: dropping it made an ill-typed module).
  // TVM v0.16 builds the reshape with allowzero at its default whatever the
  // shape; carve sets it exactly when the shape has a 0, so every other
  // rewrite prints as before.
  const bool has_zero = std::any_of(out->shape().begin(), out->shape().end(),
                                    [](const Dim& d) { return d.value == 0; });
  const Attrs* attrs = has_zero ? OpAttrs("reshape", {{"newshape", Ints(out->shape())},
                                                      {"allowzero", AttrValue::Bool(true)}})
                                : OpAttrs("reshape", {{"newshape", Ints(out->shape())}});
  return TypedOpCall(ctx.builder(), "reshape", {x}, attrs);
}

bool IsLayoutTransform(const Call* call) {
  static const OpInfo* const kLayoutTransform = FindOp("layout_transform");
  return call->op() == kLayoutTransform;
}

std::string_view SrcLayout(const Call* c) { return c->attrs()->GetString("src_layout"); }
std::string_view DstLayout(const Call* c) { return c->attrs()->GetString("dst_layout"); }

// TVM's GetTransposeAxisOrder: result axis i reads input axis order[i]. A
// transpose without axes reverses; a layout_transform maps each dst axis to
// its position in src. nullopt when the call does not describe a
// permutation of `ndim` axes.
std::optional<std::vector<int64_t>> AxisOrder(const Call* call, size_t ndim) {
  std::vector<int64_t> order;
  if (IsLayoutTransform(call)) {
    absl::StatusOr<Layout> src = Layout::Parse(SrcLayout(call));
    absl::StatusOr<Layout> dst = Layout::Parse(DstLayout(call));
    if (!src.ok() || !dst.ok() || dst->ndim() != ndim) return std::nullopt;
    for (const LayoutAxis& axis : dst->axes()) {
      int at = src->IndexOf(axis.name);
      if (at < 0) return std::nullopt;
      order.push_back(at);
    }
    return order;
  }
  std::optional<std::vector<int64_t>> axes = call->attrs()->GetInts("axes");
  if (!axes.has_value() || axes->empty()) {
    for (size_t i = 0; i < ndim; ++i) order.push_back(static_cast<int64_t>(ndim - 1 - i));
    return order;
  }
  if (axes->size() != ndim) return std::nullopt;
  for (int64_t a : *axes) order.push_back(a < 0 ? a + static_cast<int64_t>(ndim) : a);
  return order;
}

// `layout`'s axes in the order `order` (TVM's PermuteLayout).
std::optional<std::string> Permute(std::string_view layout, std::span<const int64_t> order) {
  absl::StatusOr<Layout> parsed = Layout::Parse(layout);
  if (!parsed.ok() || parsed->ndim() != order.size()) return std::nullopt;
  std::string out;
  for (int64_t i : order) {
    const LayoutAxis& axis = parsed->axes()[static_cast<size_t>(i)];
    if (!axis.is_primal()) out += std::to_string(axis.factor);
    out += axis.name;
  }
  return out;
}

// A layout_transform whose layouts differ in length changes the rank (TVM
// compares the layout strings' lengths).
bool ChangesRank(const Call* call) {
  return IsLayoutTransform(call) && SrcLayout(call).size() != DstLayout(call).size();
}

absl::StatusOr<const Expr*> MakeLayoutTransform(IRBuilder& b, const Expr* x, std::string_view src,
                                                std::string_view dst) {
  return TypedOpCall(b, "layout_transform", {x},
                     OpAttrs("layout_transform", {{"src_layout", AttrValue::Str(src)},
                                                  {"dst_layout", AttrValue::Str(dst)}}));
}

// TVM's FoldRankChangingLayoutTrans: when either of the two transforms
// changes the rank, the pair becomes one layout_transform from x. nullptr
// when neither does, or when TVM would build nothing (a same-rank pair of
// a rank changing transform and a transpose), or when the pair is not a
// consistent chain (TVM aborts on those).
absl::StatusOr<const Expr*> FoldRankChanging(IRBuilder& b, const Expr* x, const Call* outer) {
  const Call* inner = Cast<Call>(outer->args()[0]);
  std::string src, dst;
  const Call* other = nullptr;
  if (ChangesRank(outer)) {
    src = SrcLayout(outer);
    dst = DstLayout(outer);
    other = inner;
  }
  if (ChangesRank(inner)) {
    if (other == nullptr) {
      src = SrcLayout(inner);
      dst = DstLayout(inner);
      other = outer;
    } else {
      if (src != DstLayout(inner)) return nullptr;
      src = SrcLayout(inner);
    }
  }
  if (other == nullptr) return nullptr;
  absl::StatusOr<Layout> src_layout = Layout::Parse(src);
  absl::StatusOr<Layout> dst_layout = Layout::Parse(dst);
  if (!src_layout.ok() || !dst_layout.ok()) return nullptr;
  if (src_layout->ndim() < dst_layout->ndim()) {
    // A transpose then a rank-increasing transform: transform from the
    // transpose's input layout.
    std::optional<std::vector<int64_t>> order = AxisOrder(other, src_layout->ndim());
    if (!order.has_value()) return nullptr;
    std::vector<int64_t> inverse(order->size());
    for (size_t i = 0; i < order->size(); ++i) inverse[(*order)[i]] = static_cast<int64_t>(i);
    std::optional<std::string> from = Permute(src, inverse);
    if (!from.has_value()) return nullptr;
    return MakeLayoutTransform(b, x, *from, dst);
  }
  if (src_layout->ndim() > dst_layout->ndim()) {
    // A rank-decreasing transform then a transpose.
    std::optional<std::vector<int64_t>> order = AxisOrder(other, dst_layout->ndim());
    if (!order.has_value()) return nullptr;
    std::optional<std::string> to = Permute(dst, *order);
    if (!to.has_value()) return nullptr;
    return MakeLayoutTransform(b, x, src, *to);
  }
  if (IsLayoutTransform(other)) return MakeLayoutTransform(b, x, src, dst);
  return nullptr;
}

// transpose|layout_transform(transpose|layout_transform(x)) -> one
// transform from x (a transpose of the composed axes when no layout
// transform changes the rank; NoOpTranspose then drops an identity).
absl::StatusOr<const Expr*> Transpose(const RewriteContext& ctx) {
  const Expr* x = ctx.Capture("x");
  const Call* outer = Cast<Call>(ctx.post());
  const TensorType* out = TensorTypeOf(ctx.pre());
  if (x == nullptr || out == nullptr) return ctx.post();
  CARVE_ASSIGN_OR_RETURN(const Expr* folded, FoldRankChanging(ctx.builder(), x, outer));
  if (folded != nullptr) {
    const Call* t = Cast<Call>(folded);
    return SrcLayout(t) == DstLayout(t) ? x : folded;
  }
  const size_t ndim = out->rank();
  std::optional<std::vector<int64_t>> b = AxisOrder(outer, ndim);
  std::optional<std::vector<int64_t>> a = AxisOrder(Cast<Call>(outer->args()[0]), ndim);
  if (!a.has_value() || !b.has_value()) return ctx.post();
  std::vector<int64_t> composed;
  for (size_t i = 0; i < ndim; ++i) {
    if ((*b)[i] < 0 || (*b)[i] >= static_cast<int64_t>(ndim)) return ctx.post();
    composed.push_back((*a)[(*b)[i]]);
  }
  return TypedOpCall(ctx.builder(), "transpose", {x},
                     OpAttrs("transpose", {{"axes", IntArray(composed)}}));
}

// A transpose or layout_transform that keeps every axis in place -> x.
absl::StatusOr<const Expr*> NoOpTranspose(const RewriteContext& ctx) {
  const Call* call = Cast<Call>(ctx.post());
  const TensorType* out = TensorTypeOf(ctx.pre());
  if (out == nullptr) return ctx.post();
  if (IsLayoutTransform(call) && SrcLayout(call) != DstLayout(call)) return ctx.post();
  std::optional<std::vector<int64_t>> order = AxisOrder(call, out->rank());
  if (!order.has_value()) return ctx.post();
  for (size_t i = 0; i < order->size(); ++i) {
    if ((*order)[i] != static_cast<int64_t>(i)) return ctx.post();
  }
  return ctx.Capture("x");
}

Pattern AnyTranspose(const Pattern& p) {
  return IsOp("transpose")(p) | IsOp("layout_transform")(p);
}

}  // namespace

RewriteRule SimplifyReshape() {
  return {"SimplifyReshape", ReshapeLike(ReshapeLike(Capture("x"))), Reshape};
}

RewriteRule SimplifyTranspose() {
  return {"SimplifyTranspose", AnyTranspose(AnyTranspose(Capture("x"))), Transpose};
}

RewriteRule SimplifyNoOpTranspose() {
  return {"SimplifyNoOpTranspose", AnyTranspose(Capture("x")), NoOpTranspose};
}

}  // namespace carve::simplify
