// Index and misc ops that map onto one registry op each (TVM v0.16 onnx.py:
// Einsum, GatherND, ScatterND, NonZero, ReverseSequence, GridSample, Mish,
// Gelu). Their Relay ops (einsum, gather_nd, scatter_nd, argwhere,
// reverse_sequence, image.grid_sample) have kernels, so imported models run.
#include <cmath>
#include <numbers>

#include "fmt/format.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {
namespace {

absl::StatusOr<Outputs> One(absl::StatusOr<TValue> v) {
  if (!v.ok()) return v.status();
  return Outputs{*std::move(v)};
}

// Moves the last axis of `indices` to the front: ONNX keeps the coordinate
// tuple innermost, Relay's gather_nd / scatter_nd outermost.
absl::StatusOr<TValue> IndexTupleFirst(NodeCall& c, const TValue& indices) {
  std::vector<int64_t> perm = {indices.rank() - 1};
  for (int64_t i = 0; i + 1 < indices.rank(); ++i) perm.push_back(i);
  return c.Op("transpose", {indices}, {{"axes", IntsAttr(perm)}});
}

// einsum(Tuple(inputs), equation). Blanks are dropped: ONNX allows them
// around the terms ("bij, bjk -> bik"), the registry's parser does not.
absl::StatusOr<Outputs> ConvertEinsum(NodeCall& c) {
  std::string equation;
  for (char ch : c.attrs.Str("equation", "")) {
    if (ch != ' ') equation += ch;
  }
  if (equation.empty()) return absl::InvalidArgumentError("the equation attribute is missing");
  std::vector<TValue> operands;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (!c.HasInput(i)) return absl::InvalidArgumentError(fmt::format("input {} is empty", i));
    operands.push_back(c.In(i));
  }
  return One(c.Op("einsum", {c.ctx.Tuple(std::move(operands))},
                  {{"equation", StrAttr(equation)}}));
}

// gather_nd(data, transpose(indices), batch_dims, index_rank = the extent of
// the indices' last axis), as TVM.
absl::StatusOr<Outputs> ConvertGatherND(NodeCall& c) {
  const TValue& indices = c.In(1);
  if (indices.rank() < 1) return absl::InvalidArgumentError("indices must have rank 1 or more");
  int64_t index_rank = indices.shape().back();
  if (index_rank < 0) return c.NeedsStaticShape("indices whose last extent is dynamic");
  CARVE_ASSIGN_OR_RETURN(TValue idx, IndexTupleFirst(c, indices));
  return One(c.Op("gather_nd", {c.In(0), idx},
                  {{"batch_dims", IntAttr(c.opset >= 12 ? c.attrs.Int("batch_dims", 0) : 0)},
                   {"index_rank", IntAttr(index_rank)}}));
}

// scatter_nd(data, transpose(indices), updates, mode = reduction); TVM takes
// update from opset 11, add and mul from 16, min and max from 18.
absl::StatusOr<Outputs> ConvertScatterND(NodeCall& c) {
  const TValue& indices = c.In(1);
  if (indices.rank() < 1 || c.In(0).rank() < 1) {
    return absl::InvalidArgumentError("data and indices must have rank 1 or more");
  }
  std::string reduction = c.attrs.Str("reduction", "none");
  if (reduction == "none") reduction = "update";
  bool known = reduction == "update" ||
               (c.opset >= 16 && (reduction == "add" || reduction == "mul")) ||
               (c.opset >= 18 && (reduction == "min" || reduction == "max"));
  if (!known) return c.Unsupported(fmt::format("reduction '{}'", reduction));
  CARVE_ASSIGN_OR_RETURN(TValue idx, IndexTupleFirst(c, indices));
  return One(c.Op("scatter_nd", {c.In(0), idx, c.In(2)}, {{"mode", StrAttr(reduction)}}));
}

// transpose(cast(argwhere(x), int64)): one row per axis, one column per
// non-zero element (a dynamic extent).
absl::StatusOr<Outputs> ConvertNonZero(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue w, c.Op("argwhere", {c.In(0)}));
  CARVE_ASSIGN_OR_RETURN(w, c.ctx.CastTo(w, DataType::Int(64)));
  int64_t perm[] = {1, 0};
  return One(c.Op("transpose", {w}, {{"axes", IntsAttr(perm)}}));
}

absl::StatusOr<Outputs> ConvertReverseSequence(NodeCall& c) {
  // ONNX's defaults (time axis 0, batch axis 1); TVM reads both attributes.
  return One(c.Op("reverse_sequence", {c.In(0), c.In(1)},
                  {{"seq_axis", IntAttr(c.attrs.Int("time_axis", 0))},
                   {"batch_axis", IntAttr(c.attrs.Int("batch_axis", 1))}}));
}

// image.grid_sample(x, transpose(grid, (0, 3, 1, 2))): ONNX's grid is
// (N, H, W, 2), Relay's (N, 2, H, W).
absl::StatusOr<Outputs> ConvertGridSample(NodeCall& c) {
  if (c.In(0).rank() != 4 || c.In(1).rank() != 4) {
    return c.Unsupported("a grid sample of other than 4-D input and grid");
  }
  int64_t perm[] = {0, 3, 1, 2};
  CARVE_ASSIGN_OR_RETURN(TValue grid, c.Op("transpose", {c.In(1)}, {{"axes", IntsAttr(perm)}}));
  std::string mode = c.attrs.Str("mode", "bilinear");
  std::string padding = c.attrs.Str("padding_mode", "zeros");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic") {
    return c.Unsupported(fmt::format("mode '{}'", mode));
  }
  if (padding != "zeros" && padding != "border" && padding != "reflection") {
    return c.Unsupported(fmt::format("padding_mode '{}'", padding));
  }
  return One(c.Op("image.grid_sample", {c.In(0), grid},
                  {{"method", StrAttr(mode)},
                   {"padding_mode", StrAttr(padding)},
                   {"align_corners", BoolAttr(c.attrs.Int("align_corners", 0) != 0)}}));
}

// x * tanh(log(1 + exp(x))), TVM's Mish.
absl::StatusOr<Outputs> ConvertMish(NodeCall& c) {
  const TValue& x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(TValue e, c.Op("exp", {x}));
  CARVE_ASSIGN_OR_RETURN(TValue s, c.Op("add", {c.ctx.Scalar(x.dtype(), 1.0), e}));
  CARVE_ASSIGN_OR_RETURN(TValue l, c.Op("log", {s}));
  CARVE_ASSIGN_OR_RETURN(TValue t, c.Op("tanh", {l}));
  return One(c.Op("multiply", {x, t}));
}

// 0.5 x (1 + erf(x / sqrt 2)), TVM's Gelu. The tanh approximation (opset
// 20's approximate="tanh") is a different function, which TVM's converter
// does not read: refused rather than computed the other way.
absl::StatusOr<Outputs> ConvertGelu(NodeCall& c) {
  if (std::string a = c.attrs.Str("approximate", "none"); a != "none") {
    return c.Unsupported(fmt::format("approximate '{}'", a));
  }
  const TValue& x = c.In(0);
  DataType dt = x.dtype();
  CARVE_ASSIGN_OR_RETURN(TValue half_x, c.Op("multiply", {c.ctx.Scalar(dt, 0.5), x}));
  CARVE_ASSIGN_OR_RETURN(TValue scaled,
                         c.Op("divide", {x, c.ctx.Scalar(dt, std::numbers::sqrt2)}));
  CARVE_ASSIGN_OR_RETURN(TValue erf, c.Op("erf", {scaled}));
  CARVE_ASSIGN_OR_RETURN(TValue sum, c.Op("add", {c.ctx.Scalar(dt, 1.0), erf}));
  return One(c.Op("multiply", {half_x, sum}));
}

}  // namespace

std::vector<ConverterEntry> IndexConverters() {
  return {
      {"Einsum", ConvertEinsum},
      {"GatherND", ConvertGatherND},
      {"ScatterND", ConvertScatterND},
      {"NonZero", ConvertNonZero},
      {"ReverseSequence", ConvertReverseSequence},
      {"GridSample", ConvertGridSample},
      {"Mish", ConvertMish},
      {"Gelu", ConvertGelu},
  };
}

}  // namespace carve::onnx_import
