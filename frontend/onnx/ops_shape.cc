// Shape and data-movement ops (TVM v0.16 onnx.py: Constant, Shape, Reshape,
// Flatten, Concat, Gather, Slice, Squeeze, Unsqueeze, Cast, Transpose,
// Split, ConstantOfShape, Expand, Size). Shapes are static: Shape of a
// tensor with known extents is a constant, and the arithmetic on it folds
// (ImportContext::Op), so Reshape / Slice / Expand see constant operands.
#include <algorithm>

#include "absl/algorithm/container.h"
#include "fmt/format.h"
#include "frontend/onnx/converter.h"
#include "frontend/onnx/model_reader.h"

namespace carve::onnx_import {
namespace {

absl::StatusOr<Outputs> One(absl::StatusOr<TValue> v) {
  if (!v.ok()) return v.status();
  return Outputs{*std::move(v)};
}

absl::StatusOr<Outputs> ConvertConstant(NodeCall& c) {
  if (const onnx::TensorProto* t = c.attrs.Tensor("value")) {
    CARVE_ASSIGN_OR_RETURN(NDArray a, TensorFromProto(*t, c.base_dir));
    return Outputs{c.ctx.Const(a)};
  }
  auto scalar = [&](DataType dt, double v) { return Outputs{c.ctx.Scalar(dt, v)}; };
  if (c.attrs.Has("value_float")) return scalar(DataType::Float(32), c.attrs.Float("value_float", 0));
  if (c.attrs.Has("value_int")) return scalar(DataType::Int(64), double(c.attrs.Int("value_int", 0)));
  if (auto v = c.attrs.Floats("value_floats")) {
    NDArray a = NDArray::Empty(DataType::Float(32), {int64_t(v->size())});
    for (size_t i = 0; i < v->size(); ++i) a.data<float>()[i] = (*v)[i];
    return Outputs{c.ctx.Const(a)};
  }
  if (auto v = c.attrs.Ints("value_ints")) return Outputs{c.ctx.Ints(*v)};
  return c.Unsupported("a Constant without a tensor, float or int value (sparse or string)");
}

absl::StatusOr<std::vector<int64_t>> StaticShape(NodeCall& c, const TValue& x) {
  std::vector<int64_t> s = x.shape();
  for (int64_t e : s) {
    if (e < 0) return c.NeedsStaticShape("a dynamic input shape");
  }
  return s;
}

// Shape (opset 15: with start / end) of a static shape: a constant.
absl::StatusOr<Outputs> ConvertShape(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> s, StaticShape(c, c.In(0)));
  int64_t rank = int64_t(s.size());
  int64_t start = c.attrs.Int("start", 0), end = c.attrs.Int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  return Outputs{c.ctx.Ints(std::span<const int64_t>(s).subspan(start, end - start))};
}

absl::StatusOr<Outputs> ConvertSize(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> s, StaticShape(c, c.In(0)));
  int64_t n = 1;
  for (int64_t e : s) n *= e;
  return Outputs{c.ctx.Scalar(DataType::Int(64), double(n))};
}

absl::StatusOr<Outputs> ConvertReshape(NodeCall& c) {
  std::vector<int64_t> shape;
  if (c.opset < 5 || !c.HasInput(1)) {
    shape = c.attrs.Ints("shape").value_or(std::vector<int64_t>{});
  } else {
    CARVE_ASSIGN_OR_RETURN(shape, c.StaticInts(1));
  }
  // allowzero (opset 14) passes on as reshape's own attribute, as TVM's
  // converter does: a 0 in the shape is then a literal zero extent.
  AttrList attrs = {{"newshape", IntsAttr(shape)}};
  if (c.attrs.Int("allowzero", 0) != 0) attrs.emplace_back("allowzero", BoolAttr(true));
  return One(c.Op("reshape", {c.In(0)}, attrs));
}

absl::StatusOr<Outputs> ConvertFlatten(NodeCall& c) {
  const TValue& x = c.In(0);
  // Flatten's axis runs over [-rank, rank]: rank itself is valid.
  int64_t axis = c.attrs.Int("axis", 1);
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis > x.rank()) return absl::InvalidArgumentError("axis out of range");
  if (axis == 1 && x.rank() >= 2) return One(c.Op("nn.batch_flatten", {x}));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> s, StaticShape(c, x));
  int64_t pre = 1, post = 1;
  for (int64_t i = 0; i < int64_t(s.size()); ++i) (i < axis ? pre : post) *= s[i];
  int64_t shape[] = {pre, post};
  return One(c.Op("reshape", {x}, {{"newshape", IntsAttr(shape)}}));
}

absl::StatusOr<Outputs> ConvertConcat(NodeCall& c) {
  std::vector<TValue> fields;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (c.HasInput(i)) fields.push_back(c.In(i));
  }
  if (fields.empty()) return absl::InvalidArgumentError("Concat of no inputs");
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c.attrs.Int("axis", 0), fields[0].rank()));
  return One(c.Op("concatenate", {c.ctx.Tuple(fields)}, {{"axis", IntAttr(axis)}}));
}

// Negative indices count from the end (TVM's normalize_gather_indices):
// where(i < 0, i + extent, i), folded when the indices are constant.
absl::StatusOr<TValue> NormalizeIndices(NodeCall& c, const TValue& data, const TValue& idx,
                                        int64_t axis) {
  std::vector<int64_t> s = data.shape();
  if (s[axis] < 0) return idx;
  TValue zero = c.ctx.Scalar(idx.dtype(), 0);
  TValue extent = c.ctx.Scalar(idx.dtype(), double(s[axis]));
  CARVE_ASSIGN_OR_RETURN(TValue neg, c.Op("less", {idx, zero}));
  CARVE_ASSIGN_OR_RETURN(TValue wrapped, c.Op("add", {idx, extent}));
  return c.Op("where", {neg, wrapped, idx});
}

absl::StatusOr<Outputs> ConvertGather(NodeCall& c) {
  const TValue& data = c.In(0);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c.attrs.Int("axis", 0), data.rank()));
  CARVE_ASSIGN_OR_RETURN(TValue idx, NormalizeIndices(c, data, c.In(1), axis));
  return One(c.Op("take", {data, idx}, {{"axis", IntAttr(axis)}}));
}

absl::StatusOr<Outputs> ConvertSlice(NodeCall& c) {
  std::vector<int64_t> starts, ends, axes, steps;
  bool has_axes;
  if (c.opset < 10) {
    starts = c.attrs.Ints("starts").value_or(std::vector<int64_t>{});
    ends = c.attrs.Ints("ends").value_or(std::vector<int64_t>{});
    auto a = c.attrs.Ints("axes");
    has_axes = a.has_value();
    if (a) axes = *a;
  } else {
    CARVE_ASSIGN_OR_RETURN(starts, c.StaticInts(1));
    CARVE_ASSIGN_OR_RETURN(ends, c.StaticInts(2));
    has_axes = c.HasInput(3);
    if (has_axes) {
      CARVE_ASSIGN_OR_RETURN(axes, c.StaticInts(3));
    }
    if (c.HasInput(4)) {
      CARVE_ASSIGN_OR_RETURN(steps, c.StaticInts(4));
    }
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || steps.size() != starts.size() ||
      (has_axes && axes.size() != starts.size())) {
    return absl::InvalidArgumentError("starts, ends, axes and steps differ in length");
  }
  AttrList attrs = {{"begin", IntsAttr(starts)}, {"end", IntsAttr(ends)},
                    {"strides", IntsAttr(steps)}};
  if (has_axes) {
    for (int64_t& a : axes) {
      CARVE_ASSIGN_OR_RETURN(a, NormalizeAxis(a, c.In(0).rank()));
    }
    attrs.push_back({"axes", IntsAttr(axes)});
  }
  return One(c.Op("strided_slice", {c.In(0)}, attrs));
}

absl::StatusOr<std::vector<int64_t>> AxesOf(NodeCall& c) {
  if (c.opset >= 13 && c.HasInput(1)) return c.StaticInts(1);
  auto a = c.attrs.Ints("axes");
  return a.value_or(std::vector<int64_t>{});
}

absl::StatusOr<Outputs> ConvertUnsqueeze(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesOf(c));
  int64_t out_rank = c.In(0).rank() + int64_t(axes.size());
  for (int64_t& a : axes) {
      CARVE_ASSIGN_OR_RETURN(a, NormalizeAxis(a, out_rank));
    }
  std::sort(axes.begin(), axes.end());
  TValue x = c.In(0);
  for (int64_t a : axes) {
    CARVE_ASSIGN_OR_RETURN(x, c.Op("expand_dims", {x}, {{"axis", IntAttr(a)}}));
  }
  return Outputs{x};
}

absl::StatusOr<Outputs> ConvertSqueeze(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesOf(c));
  if (axes.empty()) {
    std::vector<int64_t> s = c.In(0).shape();
    for (int64_t i = 0; i < int64_t(s.size()); ++i) {
      if (s[i] == 1) axes.push_back(i);
    }
  }
  for (int64_t& a : axes) {
      CARVE_ASSIGN_OR_RETURN(a, NormalizeAxis(a, c.In(0).rank()));
    }
  return One(c.Op("squeeze", {c.In(0)}, {{"axis", IntsAttr(axes)}}));
}

absl::StatusOr<Outputs> ConvertCast(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(DataType dt, DTypeFromOnnx(int(c.attrs.Int("to", 1))));
  return One(c.Op("cast", {c.In(0)}, {{"dtype", StrAttr(dt.ToString())}}));
}

absl::StatusOr<Outputs> ConvertCastLike(NodeCall& c) {
  return One(c.Op("cast", {c.In(0)}, {{"dtype", StrAttr(c.In(1).dtype().ToString())}}));
}

absl::StatusOr<Outputs> ConvertTranspose(NodeCall& c) {
  std::vector<int64_t> perm = c.attrs.Ints("perm").value_or(std::vector<int64_t>{});
  if (perm.empty()) {
    for (int64_t i = c.In(0).rank() - 1; i >= 0; --i) perm.push_back(i);
  }
  return One(c.Op("transpose", {c.In(0)}, {{"axes", IntsAttr(perm)}}));
}

// The parts of `x` along `axis` of extents `sizes`, one strided_slice each.
absl::StatusOr<Outputs> SplitBySlices(NodeCall& c, const TValue& x, int64_t axis,
                                      const std::vector<int64_t>& sizes) {
  Outputs outs;
  int64_t at = 0;
  for (int64_t size : sizes) {
    int64_t begin[] = {at}, end[] = {at + size}, strides[] = {1}, axes[] = {axis};
    CARVE_ASSIGN_OR_RETURN(TValue part, c.Op("strided_slice", {x},
                                             {{"begin", IntsAttr(begin)},
                                              {"end", IntsAttr(end)},
                                              {"strides", IntsAttr(strides)},
                                              {"axes", IntsAttr(axes)}}));
    outs.push_back(part);
    at += size;
  }
  return outs;
}

// Split into the sizes of the `split` attribute / input, or equal parts:
// TVM's split takes the cut indices.
absl::StatusOr<Outputs> ConvertSplit(NodeCall& c) {
  const TValue& x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c.attrs.Int("axis", 0), x.rank()));
  std::vector<int64_t> sizes;
  if (c.opset >= 13 && c.HasInput(1)) {
    CARVE_ASSIGN_OR_RETURN(sizes, c.StaticInts(1));
  } else if (auto s = c.attrs.Ints("split")) {
    sizes = *s;
  }
  int64_t n = c.node.output_size();
  // Opset 18's num_outputs: parts of ceil(extent / n), the last one
  // smaller when the extent does not divide (equal parts otherwise, as
  // without it).
  if (int64_t k = c.attrs.Int("num_outputs", 0); sizes.empty() && k > 0) {
    if (k != n) {
      return absl::InvalidArgumentError(
          fmt::format("num_outputs is {}, but the node has {} outputs", k, n));
    }
    // A dynamic extent is split in equal parts, as TVM's split does.
    int64_t extent = x.shape()[axis];
    if (extent >= 0 && extent % k != 0) {
      int64_t part = (extent + k - 1) / k;
      for (int64_t i = 0; i < k; ++i) {
        sizes.push_back(std::max<int64_t>(0, std::min(part, extent - i * part)));
      }
    }
  }
  // A part of extent 0 (a cut index repeated) is one the registry's split
  // refuses: every part is then a strided_slice, with the same values.
  if (absl::c_find(sizes, 0) != sizes.end()) return SplitBySlices(c, x, axis, sizes);
  AttrList attrs = {{"axis", IntAttr(axis)}};
  if (sizes.empty()) {
    attrs.push_back({"indices_or_sections", IntAttr(n)});
  } else {
    std::vector<int64_t> cuts;
    int64_t at = 0;
    for (size_t i = 0; i + 1 < sizes.size(); ++i) cuts.push_back(at += sizes[i]);
    attrs.push_back({"indices_or_sections", IntsAttr(cuts)});
  }
  CARVE_ASSIGN_OR_RETURN(TValue parts, c.Op("split", {x}, attrs));
  Outputs outs;
  for (int64_t i = 0; i < n; ++i) {
    CARVE_ASSIGN_OR_RETURN(TValue p, c.ctx.GetItem(parts, int(i)));
    outs.push_back(p);
  }
  return outs;
}

absl::StatusOr<Outputs> ConvertConstantOfShape(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.StaticInts(0));
  NDArray fill = NDArray::Scalar(DataType::Float(32), 0);
  if (const onnx::TensorProto* t = c.attrs.Tensor("value")) {
    CARVE_ASSIGN_OR_RETURN(fill, TensorFromProto(*t, c.base_dir));
  }
  return One(c.Op("full", {c.ctx.Const(fill.Reshape({}))},
                  {{"shape", IntsAttr(shape)}, {"dtype", StrAttr(fill.dtype().ToString())}}));
}

// Expand: broadcasting multiply by ones of the target shape (the registry
// has no broadcast_to yet; the values are identical).
absl::StatusOr<Outputs> ConvertExpand(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.StaticInts(1));
  const TValue& x = c.In(0);
  TValue one = c.ctx.Scalar(x.dtype(), 1);
  CARVE_ASSIGN_OR_RETURN(TValue ones, c.Op("full", {one}, {{"shape", IntsAttr(shape)},
                                                          {"dtype", StrAttr(x.dtype().ToString())}}));
  if (x.dtype().is_bool()) return One(c.Op("logical_and", {x, ones}));
  return One(c.Op("multiply", {x, ones}));
}

// GatherElements -> gather with normalised indices (TVM's GatherElements).
absl::StatusOr<Outputs> ConvertGatherElements(NodeCall& c) {
  const TValue& data = c.In(0);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c.attrs.Int("axis", 0), data.rank()));
  CARVE_ASSIGN_OR_RETURN(TValue idx, NormalizeIndices(c, data, c.In(1), axis));
  return One(c.Op("gather", {data, idx}, {{"axis", IntAttr(axis)}}));
}

// ScatterElements (and opset-9 Scatter) -> scatter_elements; reduction
// "none" is TVM's "update".
absl::StatusOr<Outputs> ConvertScatterElements(NodeCall& c) {
  const TValue& data = c.In(0);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c.attrs.Int("axis", 0), data.rank()));
  std::string reduction = c.attrs.Str("reduction", "none");
  if (reduction == "none") reduction = "update";
  return One(c.Op("scatter_elements", {data, c.In(1), c.In(2)},
                  {{"axis", IntAttr(axis)}, {"reduction", StrAttr(reduction)}}));
}

// x reversed along `axis` (TVM's reverse) as a take of n-1 .. 0.
absl::StatusOr<TValue> Reverse(NodeCall& c, const TValue& x, int64_t axis) {
  int64_t n = x.shape()[axis];
  if (n < 0) return c.Unsupported("reverse of a dynamic extent");
  std::vector<int64_t> idx;
  for (int64_t i = n - 1; i >= 0; --i) idx.push_back(i);
  return c.Op("take", {x, c.ctx.Ints(idx)}, {{"axis", IntAttr(axis)}});
}

absl::StatusOr<Outputs> ConvertCumSum(NodeCall& c) {
  TValue x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> axis_v, c.StaticInts(1));
  if (axis_v.size() != 1) return absl::InvalidArgumentError("axis must be a single value");
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_v[0], x.rank()));
  bool reverse = c.attrs.Int("reverse", 0) != 0;
  if (reverse) {
    CARVE_ASSIGN_OR_RETURN(x, Reverse(c, x, axis));
  }
  CARVE_ASSIGN_OR_RETURN(TValue out, c.Op("cumsum", {x}, {{"axis", IntAttr(axis)},
                                                          {"exclusive", IntAttr(c.attrs.Int("exclusive", 0))}}));
  if (reverse) {
    CARVE_ASSIGN_OR_RETURN(out, Reverse(c, out, axis));
  }
  return Outputs{out};
}

}  // namespace

std::vector<ConverterEntry> ShapeConverters() {
  return {
      {"Constant", ConvertConstant},
      {"Shape", ConvertShape},
      {"Size", ConvertSize},
      {"Reshape", ConvertReshape},
      {"Flatten", ConvertFlatten},
      {"Concat", ConvertConcat},
      {"Gather", ConvertGather},
      {"Slice", ConvertSlice},
      {"Unsqueeze", ConvertUnsqueeze},
      {"Squeeze", ConvertSqueeze},
      {"Cast", ConvertCast},
      {"CastLike", ConvertCastLike},
      {"Transpose", ConvertTranspose},
      {"Split", ConvertSplit},
      {"ConstantOfShape", ConvertConstantOfShape},
      {"Expand", ConvertExpand},
      {"GatherElements", ConvertGatherElements},
      {"ScatterElements", ConvertScatterElements},
      {"Scatter", ConvertScatterElements},
      {"CumSum", ConvertCumSum},
  };
}

}  // namespace carve::onnx_import
