// The rules of ops whose axis attributes name axes of their input, so that
// following a new layout renumbers them: concatenate, batch_norm, pad,
// qnn.requantize, the reductions, transpose, strided_slice and split (TVM's
// ConcatenateLayout, BatchNormInferCorrectLayout, PadInferCorrectLayout,
// RequantizeInferCorrectLayout, ReduceInferCorrectLayout,
// TransposeInferCorrectLayout, StridedSliceInferCorrectLayout,
// SplitInferCorrectLayout, SqueezeInferCorrectLayout,
// NormalizationInferCorrectLayout, L2NormalizeInferCorrectLayout), for
// layouts without split axes; concatenate, split and the reductions also
// for a blocked one (NCHW4c: LayoutRewriter::TakesBlocked).
#include <optional>

#include "fmt/format.h"
#include "ir/layout.h"

#include "passes/layout/layout_names.h"
#include "passes/layout/layout_rewriter.h"

namespace carve::layout {
namespace {

// The position in alt's new layout of an axis of its old one.
std::optional<int64_t> MapAxis(const Alt& alt, int64_t axis) {
  return NewAxisIndex(alt.old_layout, alt.new_layout, axis);
}

// `attrs` with the int field `key` renumbered from alt's old layout to its
// new one; nullptr when the axis is out of range.
const Attrs* RenumberAxis(const Attrs* attrs, std::string_view key, int64_t fallback,
                          const Alt& alt) {
  std::optional<int64_t> axis = MapAxis(alt, attrs->GetInt(key, fallback));
  if (!axis.has_value()) return nullptr;
  return WithField(attrs, key, AttrValue::Int(*axis));
}

// begin / end / strides of a strided_slice, one entry per listed axis.
struct SliceBounds {
  std::vector<AttrValue> begin, end, strides;
};

// TVM's StridedSliceInferCorrectLayout for a permutation of the input's
// axes. With `axes` (renumbered into `new_axes`), the bounds stay; without,
// they are written per axis of the new layout: a missing begin is 0, a
// missing end the extent, a missing stride 1; slice_mode "size" strides
// become 1.
std::optional<SliceBounds> PermuteSlice(const Attrs* attrs, const Alt& alt,
                                        const TensorType* type,
                                        std::vector<AttrValue>& new_axes) {
  const AttrValue* fields[3] = {attrs->Find("begin"), attrs->Find("end"), attrs->Find("strides")};
  for (const AttrValue* f : fields) {
    if (f == nullptr || !f->AsInts().has_value() || f->as_array().empty()) return std::nullopt;
  }
  std::span<const AttrValue> begin = fields[0]->as_array(), end = fields[1]->as_array(),
                             strides = fields[2]->as_array();
  bool size_mode = attrs->GetString("slice_mode", "end") == "size";
  auto stride_at = [&](size_t i) {
    int64_t s = i < strides.size() ? strides[i].as_int() : 1;
    return AttrValue::Int(size_mode ? 1 : s, strides[0].int_bits());
  };
  SliceBounds out;
  if (std::optional<std::vector<int64_t>> axes = attrs->GetInts("axes")) {
    if (axes->size() > begin.size() || axes->size() > end.size()) return std::nullopt;
    for (size_t i = 0; i < axes->size(); ++i) {
      std::optional<int64_t> mapped = MapAxis(alt, (*axes)[i]);
      if (!mapped.has_value()) return std::nullopt;
      new_axes.push_back(AttrValue::Int(*mapped));
      out.begin.push_back(begin[i]);
      out.end.push_back(end[i]);
      out.strides.push_back(stride_at(i));
    }
    return out;
  }
  for (char axis : alt.new_layout) {
    size_t i = alt.old_layout.find(axis);
    if (i == std::string::npos) return std::nullopt;
    int64_t extent = type->shape()[i].value;
    if (i >= end.size() && extent < 0) return std::nullopt;
    out.begin.push_back(
        AttrValue::Int(i < begin.size() ? begin[i].as_int() : 0, begin[0].int_bits()));
    out.end.push_back(AttrValue::Int(i < end.size() ? end[i].as_int() : extent, end[0].int_bits()));
    out.strides.push_back(stride_at(i));
  }
  return out;
}

// split's indices_or_sections (a list of indices) divided by the factor
// of the split axis in alt's new layout; nullptr when one is not a
// multiple of it. A number of sections stays.
const Attrs* DivideSplitIndices(const Call* call, const Attrs* attrs, const Alt& alt) {
  int64_t rank = static_cast<int64_t>(alt.old_layout.size());
  int64_t axis = call->attrs()->GetInt("axis", 0);
  if (axis < 0) axis += rank;
  absl::StatusOr<Layout> layout = Layout::Parse(alt.new_layout);
  if (!layout.ok() || axis < 0 || axis >= rank) return nullptr;
  int64_t factor = layout->FactorOf(alt.old_layout[static_cast<size_t>(axis)]);
  const AttrValue* ios = attrs->Find("indices_or_sections");
  if (factor <= 1 || ios == nullptr || ios->kind() != AttrValue::Kind::kArray) return attrs;
  std::vector<AttrValue> divided;
  for (const AttrValue& v : ios->as_array()) {
    if (v.kind() != AttrValue::Kind::kInt || v.as_int() % factor != 0) return nullptr;
    divided.push_back(AttrValue::Int(v.as_int() / factor, v.int_bits()));
  }
  return WithField(attrs, "indices_or_sections", AttrValue::Array(divided));
}

// TVM's ReduceInferCorrectLayout on a blocked layout: a split axis is
// reduced with its primal axis (NCHW4c reducing C reduces axes 1 and 4);
// with keepdims the reduced split axis stays with factor 1 (NCHW1c). The
// reduced positions go to `new_axes`; the result is the output layout.
std::optional<std::string> ReduceBlocked(const std::string& layout, const std::string& reduced,
                                         bool keepdims, bool exclude,
                                         std::vector<AttrValue>& new_axes) {
  absl::StatusOr<Layout> parsed = Layout::Parse(layout);
  if (!parsed.ok()) return std::nullopt;
  std::string out;
  int64_t index = 0;
  for (const LayoutAxis& axis : parsed->axes()) {
    bool listed = reduced.find(axis.primal()) != std::string::npos;
    if (listed != exclude) new_axes.push_back(AttrValue::Int(index));
    ++index;
    if (axis.is_primal()) {
      if (!listed || keepdims) out += axis.name;
    } else if (listed && !exclude) {
      if (keepdims) out += fmt::format("1{}", axis.name);
    } else {
      out += fmt::format("{}{}", axis.factor, axis.name);
    }
  }
  // A split axis kept without its primal one is no layout: fall back.
  if (!Layout::Parse(out).ok()) return std::nullopt;
  return out;
}

}  // namespace

// qnn.requantize follows its data's layout, its `axis` renumbered (also
// when the layout is unchanged: TVM writes the axis it inferred, so -1
// becomes the last position).
const Expr* LayoutRewriter::AdaptAxis(const Call* call) {
  std::optional<Alt> lay = FindLayout(call->args()[0]);
  if (!lay.has_value() || call->attrs() == nullptr) return nullptr;
  const Alt copy = *lay;
  const Attrs* attrs = RenumberAxis(call->attrs(), "axis", -1, copy);
  if (attrs == nullptr) return nullptr;
  return RemakeUnary(call, attrs, copy.old_layout, copy.new_layout);
}

// batch_norm follows its data's layout (axis renumbered, also when the
// layout is unchanged: TVM writes the axis it inferred); its fields are
// read through projections, field 0 in the data's layout.
const Expr* LayoutRewriter::AdaptBatchNorm(const Call* call) {
  std::optional<Alt> lay = FindLayout(call->args()[0]);
  if (!lay.has_value() || call->attrs() == nullptr || !IsPlainLayout(lay->new_layout, 4) ||
      blocked_.contains(call)) {
    return nullptr;
  }
  for (size_t i = 1; i < call->args().size(); ++i) {
    if (FindAlt(call->args()[i]) != nullptr) return nullptr;
  }
  const Alt copy = *lay;
  const Attrs* attrs = RenumberAxis(call->attrs(), "axis", 1, copy);
  if (attrs == nullptr) return nullptr;
  std::vector<const Expr*> args;
  for (const Expr* a : call->args()) args.push_back(Mutated(a));
  tuple_alt_[call] = TupleAlt{copy, /*all_fields=*/false};
  const Call* out = builder().MakeCall(call->callee(), args, attrs, call->span());
  if (copy.old_layout == copy.new_layout) out->set_checked_type(call->checked_type());
  return out;
}

// The reduced axes are renumbered in the input's layout (in that layout's
// order; an axis of None becomes the explicit list), also when the layout
// is defined but unchanged, as TVM rebuilds the call with the inferred
// attributes; the result keeps the axes that are not reduced (all of them
// with keepdims).
const Expr* LayoutRewriter::AdaptReduce(const Call* call) {
  std::optional<Alt> lay = FindLayout(call->args()[0]);
  if (!lay.has_value() || call->attrs() == nullptr) return nullptr;
  const Alt copy = *lay;
  const Attrs* attrs = call->attrs();
  bool keepdims = attrs->GetInt("keepdims", 0) != 0;
  bool exclude = attrs->GetInt("exclude", 0) != 0;
  int64_t rank = static_cast<int64_t>(copy.old_layout.size());
  std::optional<std::vector<int64_t>> axes = attrs->GetInts("axis");
  std::vector<bool> listed(static_cast<size_t>(rank), !axes.has_value());
  for (int64_t a : axes.value_or(std::vector<int64_t>{})) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return nullptr;
    listed[static_cast<size_t>(a)] = true;
  }
  std::string reduced;  // letters of the reduced axes (TVM's GetReduceAxes)
  for (size_t a = 0; a < listed.size(); ++a) {
    if (axes.has_value() && exclude ? !listed[a] : listed[a]) reduced += copy.old_layout[a];
  }
  auto out_layout = [&](const std::string& layout) {
    std::string out;
    for (char c : layout) {
      if (keepdims || reduced.find(c) == std::string::npos) out += c;
    }
    return out;
  };
  // A rank-0 result has no layout (TVM's Layout("") is undefined): the
  // inference fails and the reduction reads its input as it was.
  if (out_layout(copy.old_layout).empty()) return nullptr;
  std::vector<AttrValue> new_axes;
  std::string new_out;
  if (IsBlocked(copy.new_layout)) {
    std::optional<std::string> blocked =
        ReduceBlocked(copy.new_layout, reduced, keepdims, exclude, new_axes);
    if (!blocked.has_value() || blocked->empty()) return nullptr;
    new_out = *blocked;
  } else {
    for (size_t i = 0; i < copy.new_layout.size(); ++i) {
      bool r = reduced.find(copy.new_layout[i]) != std::string::npos;
      if (r != exclude) new_axes.push_back(AttrValue::Int(static_cast<int64_t>(i)));
    }
    new_out = out_layout(copy.new_layout);
  }
  const Attrs* new_attrs = WithField(attrs, "axis", AttrValue::Array(new_axes));
  return RemakeUnary(call, new_attrs, out_layout(copy.old_layout), new_out);
}

// pad follows its data's new layout, its pad_width rows permuted to it
// (the pad value is a scalar).
const Expr* LayoutRewriter::AdaptPad(const Call* call) {
  const Alt* alt = FindAlt(call->args()[0]);
  if (alt == nullptr || call->attrs() == nullptr || FindAlt(call->args()[1]) != nullptr) {
    return nullptr;
  }
  Alt copy = *alt;
  const AttrValue* widths = call->attrs()->Find("pad_width");
  if (widths == nullptr || widths->kind() != AttrValue::Kind::kArray ||
      widths->as_array().size() != copy.old_layout.size()) {
    return nullptr;
  }
  std::vector<AttrValue> rows;
  for (char axis : copy.new_layout) {
    size_t old_index = copy.old_layout.find(axis);
    if (old_index == std::string::npos) return nullptr;
    rows.push_back(widths->as_array()[old_index]);
  }
  const Attrs* attrs = WithField(call->attrs(), "pad_width", AttrValue::Array(rows));
  return RemakeUnary(call, attrs, copy.old_layout, copy.new_layout);
}

// TVM's ConcatenateLayout: a field without a defined layout counts as in
// the first defined field's old layout; when every field then has the same
// new layout (and the same old one), the concatenation is in it, its axis
// renumbered (also when nothing moves: TVM writes the axis it inferred).
const Expr* LayoutRewriter::AdaptConcat(const Call* call) {
  const Tuple* tuple = DynCast<Tuple>(call->args()[0]);
  if (tuple == nullptr || tuple->fields().empty() || call->attrs() == nullptr) return nullptr;
  std::optional<Alt> first;
  for (const Expr* f : tuple->fields()) {
    first = FindLayout(f);
    if (first.has_value()) break;
  }
  if (!first.has_value()) return nullptr;
  std::vector<const Expr*> fields;
  for (const Expr* f : tuple->fields()) {
    std::optional<Alt> lay = FindLayout(f);
    std::string old_layout = lay.has_value() ? lay->old_layout : first->old_layout;
    std::string new_layout = lay.has_value() ? lay->new_layout : first->old_layout;
    if (new_layout != first->new_layout || old_layout != first->old_layout) return nullptr;
    fields.push_back(Mutated(f));
  }
  const Alt copy = *first;
  const Attrs* attrs = RenumberAxis(call->attrs(), "axis", 0, copy);
  if (attrs == nullptr) return nullptr;
  const Tuple* new_tuple = builder().MakeTuple(fields, tuple->span());
  if (copy.old_layout == copy.new_layout) new_tuple->set_checked_type(tuple->checked_type());
  std::vector<const Expr*> args = {new_tuple};
  AppendRealized(call, 1, args);
  return Record(call, Remake(call, std::move(args), attrs, copy.old_layout, copy.new_layout),
                copy.old_layout, copy.new_layout);
}

// transpose reads its input in the input's (new) layout, its axes
// renumbered so that it moves the same axes (None: reversed, written out);
// its result's layout is that layout permuted by the axes. Also when the
// layout is unchanged, as TVM rebuilds the call with the inferred axes.
const Expr* LayoutRewriter::AdaptTranspose(const Call* call) {
  std::optional<Alt> lay = FindLayout(call->args()[0]);
  if (!lay.has_value() || call->attrs() == nullptr) return nullptr;
  const Alt copy = *lay;
  int64_t rank = static_cast<int64_t>(copy.old_layout.size());
  std::vector<int64_t> axes = call->attrs()->GetInts("axes").value_or(std::vector<int64_t>{});
  if (axes.empty()) {
    for (int64_t i = rank - 1; i >= 0; --i) axes.push_back(i);
  }
  if (static_cast<int64_t>(axes.size()) != rank) return nullptr;
  std::string old_out, new_out;
  std::vector<AttrValue> new_axes;
  for (int64_t axis : axes) {
    std::optional<int64_t> mapped = MapAxis(copy, axis);
    if (!mapped.has_value()) return nullptr;
    old_out += copy.old_layout[static_cast<size_t>(axis < 0 ? axis + rank : axis)];
    new_out += copy.new_layout[static_cast<size_t>(*mapped)];
    new_axes.push_back(AttrValue::Int(*mapped));
  }
  const Attrs* attrs = WithField(call->attrs(), "axes", AttrValue::Array(new_axes));
  return RemakeUnary(call, attrs, old_out, new_out);
}


// strided_slice follows a new layout that permutes its input's axes
// (PermuteSlice); an unchanged layout passes through (NoteKnownLayout).
const Expr* LayoutRewriter::AdaptStridedSlice(const Call* call) {
  const Alt* alt = FindAlt(call->args()[0]);
  const auto* type = DynCast<TensorType>(call->args()[0]->checked_type());
  if (alt == nullptr || call->attrs() == nullptr || type == nullptr) return nullptr;
  const Alt copy = *alt;
  std::vector<AttrValue> new_axes;
  std::optional<SliceBounds> bounds = PermuteSlice(call->attrs(), copy, type, new_axes);
  if (!bounds.has_value()) return nullptr;
  const Attrs* attrs = call->attrs();
  if (!new_axes.empty()) attrs = WithField(attrs, "axes", AttrValue::Array(new_axes));
  attrs = WithField(attrs, "begin", AttrValue::Array(bounds->begin));
  attrs = WithField(attrs, "end", AttrValue::Array(bounds->end));
  attrs = WithField(attrs, "strides", AttrValue::Array(bounds->strides));
  return RemakeUnary(call, attrs, copy.old_layout, copy.new_layout);
}

// split follows its input's layout, its axis renumbered (also when the
// layout is unchanged: TVM writes the axis it inferred); every field of
// the result is in that layout. When that layout splits the axis (NCHW4c
// for C), listed indices are divided by the factor; when one is not a
// multiple of it the input goes back to its old layout (TVM's
// SplitInferCorrectLayout keeps the old layout then).
const Expr* LayoutRewriter::AdaptSplit(const Call* call) {
  std::optional<Alt> lay = FindLayout(call->args()[0]);
  if (!lay.has_value() || call->attrs() == nullptr || blocked_.contains(call)) return nullptr;
  const Alt copy = *lay;
  const Attrs* attrs = RenumberAxis(call->attrs(), "axis", 0, copy);
  if (attrs == nullptr) return nullptr;
  if (IsBlocked(copy.new_layout)) {
    attrs = DivideSplitIndices(call, attrs, copy);
    if (attrs == nullptr) return nullptr;
  }
  tuple_alt_[call] = TupleAlt{copy, /*all_fields=*/true};
  const Call* out = builder().MakeCall(call->callee(), {Mutated(call->args()[0])}, attrs,
                                       call->span());
  if (copy.old_layout == copy.new_layout) out->set_checked_type(call->checked_type());
  return out;
}

// squeeze drops the same axes in the input's layout: the listed ones (None:
// every axis of extent 1, written out) renumbered; the result is the
// layout without them. Also when the layout is unchanged, as TVM rebuilds
// the call with the axes it inferred.
const Expr* LayoutRewriter::AdaptSqueeze(const Call* call) {
  std::optional<Alt> lay = FindLayout(call->args()[0]);
  const auto* type = DynCast<TensorType>(call->args()[0]->checked_type());
  if (!lay.has_value() || call->attrs() == nullptr || type == nullptr) return nullptr;
  const Alt copy = *lay;
  std::optional<std::vector<int64_t>> axes = call->attrs()->GetInts("axis");
  if (!axes.has_value()) {
    axes.emplace();
    for (size_t i = 0; i < type->rank(); ++i) {
      if (type->shape()[i].value < 0) return nullptr;
      if (type->shape()[i].value == 1) axes->push_back(static_cast<int64_t>(i));
    }
  }
  std::string squeezed;
  std::vector<AttrValue> new_axes;
  for (int64_t axis : *axes) {
    std::optional<int64_t> mapped = MapAxis(copy, axis);
    if (!mapped.has_value()) return nullptr;
    squeezed += copy.new_layout[static_cast<size_t>(*mapped)];
    new_axes.push_back(AttrValue::Int(*mapped));
  }
  auto kept = [&](const std::string& layout) {
    std::string out;
    for (char c : layout) {
      if (squeezed.find(c) == std::string::npos) out += c;
    }
    return out;
  };
  const Attrs* attrs = WithField(call->attrs(), "axis", AttrValue::Array(new_axes));
  if (kept(copy.old_layout).empty()) {
    // TVM's Layout of no axes is defined here (unlike a reduction's
    // Layout("")): the squeeze reads the new layout; its scalar result is
    // not given a layout for the broadcast rule.
    return Remake(call, {Mutated(call->args()[0])}, attrs, "", "");
  }
  return RemakeUnary(call, attrs, kept(copy.old_layout), kept(copy.new_layout));
}

// layer_norm / instance_norm (an `axis`) and l2_normalize (a list of axes)
// follow their data's layout, the axes renumbered (also when the layout is
// unchanged); gamma and beta are per channel and read as they are.
const Expr* LayoutRewriter::AdaptNorm(const Call* call) {
  std::optional<Alt> lay = FindLayout(call->args()[0]);
  if (!lay.has_value() || call->attrs() == nullptr) return nullptr;
  const Alt copy = *lay;
  const AttrValue* axis = call->attrs()->Find("axis");
  if (axis == nullptr) return nullptr;
  const Attrs* attrs = nullptr;
  if (axis->kind() == AttrValue::Kind::kInt) {
    attrs = RenumberAxis(call->attrs(), "axis", 0, copy);
  } else if (std::optional<std::vector<int64_t>> list = axis->AsInts()) {
    std::vector<AttrValue> mapped_list;
    for (int64_t a : *list) {
      std::optional<int64_t> mapped = MapAxis(copy, a);
      if (!mapped.has_value()) return nullptr;
      mapped_list.push_back(AttrValue::Int(*mapped));
    }
    attrs = WithField(call->attrs(), "axis", AttrValue::Array(mapped_list));
  }
  if (attrs == nullptr) return nullptr;
  return RemakeUnary(call, attrs, copy.old_layout, copy.new_layout);
}

}  // namespace carve::layout
