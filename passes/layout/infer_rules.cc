// The rules of ops TVM v0.16 gives an FInferCorrectLayout of their own
// outside the common families: nn.upsampling / nn.upsampling3d
// (UpsamplingInferCorrectLayout), slice_like (SliceLikeInferCorrectLayout)
// and topk (TopKInferCorrectLayout). vision.roi_align / roi_pool
// (ROIAlignInferCorrectLayout) read their data in their `layout` attribute,
// which the rewriter's fallback does; their result's layout is noted in
// NoteKnownLayout. Like TVM's rewriter, an axis attribute is re-derived
// whenever the input's layout is defined, also when it is unchanged.
#include <optional>

#include "passes/layout/layout_names.h"
#include "passes/layout/layout_rewriter.h"

namespace carve::layout {
namespace {

// H, W (and D, when `layout` has it) at the same positions in both layouts.
bool SpatialAxesStay(const std::string& layout, const std::string& other) {
  for (char axis : {'D', 'H', 'W'}) {
    if (layout.find(axis) != other.find(axis)) return false;
  }
  return true;
}

}  // namespace

// An upsampling follows its input's new layout only when that layout keeps
// the spatial axes where its `layout` has them (e.g. NCHW -> CNHW); else
// its input goes back to `layout` (the fallback).
const Expr* LayoutRewriter::AdaptUpsampling(const Call* call) {
  const Alt* alt = FindAlt(call->args()[0]);
  if (alt == nullptr || call->attrs() == nullptr) return nullptr;
  std::string layout = AttrOrDefault(call, "layout");
  if (layout != alt->old_layout || !IsPlainLayout(alt->new_layout, layout.size()) ||
      !SpatialAxesStay(layout, alt->new_layout)) {
    return nullptr;
  }
  Alt copy = *alt;
  const Attrs* attrs = WithField(call->attrs(), "layout", AttrValue::Str(copy.new_layout));
  return RemakeUnary(call, attrs, copy.old_layout, copy.new_layout);
}

// slice_like follows when both inputs have defined layouts, the same old
// and the same new one; its axes are renumbered into the new layout. When
// the inputs disagree (TVM stops with a check failure), they are read in
// their original layouts.
const Expr* LayoutRewriter::AdaptSliceLike(const Call* call) {
  std::optional<Alt> lay[2] = {FindLayout(call->args()[0]), FindLayout(call->args()[1])};
  if (!lay[0].has_value() || !lay[1].has_value() || call->attrs() == nullptr ||
      lay[0]->old_layout != lay[1]->old_layout || lay[0]->new_layout != lay[1]->new_layout) {
    return nullptr;
  }
  const Alt copy = *lay[0];
  std::optional<std::vector<int64_t>> axes = call->attrs()->GetInts("axes");
  if (!axes.has_value() || axes->empty()) return nullptr;  // TVM: the old layouts
  std::vector<AttrValue> new_axes;
  for (int64_t axis : *axes) {
    std::optional<int64_t> mapped = NewAxisIndex(copy.old_layout, copy.new_layout, axis);
    if (!mapped.has_value()) return nullptr;
    new_axes.push_back(AttrValue::Int(*mapped));
  }
  const Attrs* attrs = WithField(call->attrs(), "axes", AttrValue::Array(new_axes));
  std::vector<const Expr*> args = {Mutated(call->args()[0]), Mutated(call->args()[1])};
  return Record(call, Remake(call, std::move(args), attrs, copy.old_layout, copy.new_layout),
                copy.old_layout, copy.new_layout);
}

// topk follows its input's defined layout, its axis renumbered (a negative
// axis written as its position); values and indices are both in that
// layout (a tuple result read whole goes back field by field:
// RealizeTuple).
const Expr* LayoutRewriter::AdaptTopK(const Call* call) {
  std::optional<Alt> lay = FindLayout(call->args()[0]);
  if (!lay.has_value() || call->attrs() == nullptr) return nullptr;
  const Alt copy = *lay;
  std::optional<int64_t> axis =
      NewAxisIndex(copy.old_layout, copy.new_layout, call->attrs()->GetInt("axis", -1));
  if (!axis.has_value()) return nullptr;
  const Attrs* attrs = WithField(call->attrs(), "axis", AttrValue::Int(*axis));
  if (!Isa<TupleType>(call->checked_type())) {
    return RemakeUnary(call, attrs, copy.old_layout, copy.new_layout);
  }
  tuple_alt_[call] = TupleAlt{copy, /*all_fields=*/true};
  const Call* out = builder().MakeCall(call->callee(), {Mutated(call->args()[0])}, attrs,
                                       call->span());
  if (copy.old_layout == copy.new_layout) out->set_checked_type(call->checked_type());
  return out;
}

}  // namespace carve::layout
