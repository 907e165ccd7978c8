// Detection and index ops onto the registry's vision and dynamic ops, as
// TVM v0.16's onnx.py: NonMaxSuppression (vision.all_class_non_max_
// suppression, its rows cut to the detection count with dyn.strided_slice:
// a dynamic extent), RoiAlign (vision.roi_align of [batch, x1, y1, x2, y2]
// rows), Unique (unique, cut to the count) and MaxUnpool (zeros with the
// values scattered to their indices).
#include "fmt/format.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {
namespace {

absl::StatusOr<Outputs> One(absl::StatusOr<TValue> v) {
  if (!v.ok()) return v.status();
  return Outputs{*std::move(v)};
}

// A scalar operand: a 1-element vector squeezed (TVM's
// conditionally_squeeze_scalar).
absl::StatusOr<TValue> ScalarOf(NodeCall& c, const TValue& x) {
  if (x.rank() > 1 || (x.rank() == 1 && x.shape()[0] != 1)) {
    return absl::InvalidArgumentError("the thresholds and the box limit must be scalars");
  }
  if (x.rank() == 0) return x;
  return c.Op("squeeze", {x}, {{"axis", IntsAttr(std::vector<int64_t>{0})}});
}

// data[0:end] along axis 0, `end` a 1-element tensor known at run time.
absl::StatusOr<TValue> CutTo(NodeCall& c, const TValue& data, const TValue& end) {
  CARVE_ASSIGN_OR_RETURN(TValue end64, c.ctx.CastTo(end, DataType::Int(64)));
  std::vector<int64_t> zero = {0}, one = {1};
  return c.Op("dyn.strided_slice", {data, c.ctx.Ints(zero), end64, c.ctx.Ints(one)});
}

absl::StatusOr<Outputs> ConvertNonMaxSuppression(NodeCall& c) {
  TValue boxes = c.In(0);
  const TValue& scores = c.In(1);
  if (c.attrs.Int("center_point_box", 0) != 0) {
    // [x_center, y_center, width, height] -> [y1, x1, y2, x2].
    CARVE_ASSIGN_OR_RETURN(TValue parts, c.Op("split", {boxes}, {{"indices_or_sections", IntAttr(4)},
                                                                 {"axis", IntAttr(2)}}));
    std::vector<TValue> p;
    for (int i = 0; i < 4; ++i) {
      CARVE_ASSIGN_OR_RETURN(TValue f, c.ctx.GetItem(parts, i));
      p.push_back(f);
    }
    TValue two = c.ctx.Scalar(boxes.dtype(), 2.0);
    CARVE_ASSIGN_OR_RETURN(TValue half_w, c.Op("divide", {p[2], two}));
    CARVE_ASSIGN_OR_RETURN(TValue half_h, c.Op("divide", {p[3], two}));
    CARVE_ASSIGN_OR_RETURN(TValue x1, c.Op("subtract", {p[0], half_w}));
    CARVE_ASSIGN_OR_RETURN(TValue x2, c.Op("add", {p[0], half_w}));
    CARVE_ASSIGN_OR_RETURN(TValue y1, c.Op("subtract", {p[1], half_h}));
    CARVE_ASSIGN_OR_RETURN(TValue y2, c.Op("add", {p[1], half_h}));
    CARVE_ASSIGN_OR_RETURN(boxes, c.Op("concatenate", {c.ctx.Tuple({y1, x1, y2, x2})},
                                       {{"axis", IntAttr(2)}}));
  }
  // Omitted inputs take ONNX's defaults: no boxes per class, thresholds 0.
  TValue max_out = c.HasInput(2) ? c.In(2) : c.ctx.Scalar(DataType::Int(64), 0);
  TValue iou = c.HasInput(3) ? c.In(3) : c.ctx.Scalar(DataType::Float(32), 0);
  TValue score = c.HasInput(4) ? c.In(4) : c.ctx.Scalar(DataType::Float(32), 0);
  CARVE_ASSIGN_OR_RETURN(max_out, ScalarOf(c, max_out));
  CARVE_ASSIGN_OR_RETURN(iou, ScalarOf(c, iou));
  CARVE_ASSIGN_OR_RETURN(score, ScalarOf(c, score));
  CARVE_ASSIGN_OR_RETURN(TValue nms, c.Op("vision.all_class_non_max_suppression",
                                          {boxes, scores, max_out, iou, score}));
  CARVE_ASSIGN_OR_RETURN(TValue selected, c.ctx.GetItem(nms, 0));
  CARVE_ASSIGN_OR_RETURN(TValue count, c.ctx.GetItem(nms, 1));
  return One(CutTo(c, selected, count));
}

// RoiAlign: TVM's converter passes the ROIs with their batch index in
// front; ONNX's half_pixel coordinates (opset 16's default, which TVM's
// converter ignores) shift the ROIs by half a pixel of the feature map.
absl::StatusOr<Outputs> ConvertRoiAlign(NodeCall& c) {
  std::string mode = c.attrs.Str("mode", "avg");
  if (mode != "avg" && mode != "max") return c.Unsupported(fmt::format("mode '{}'", mode));
  std::string transform = c.attrs.Str("coordinate_transformation_mode",
                                      c.opset >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return c.Unsupported(fmt::format("coordinate_transformation_mode '{}'", transform));
  }
  float spatial_scale = c.attrs.Float("spatial_scale", 1.0f);
  TValue rois = c.In(1);
  if (transform == "half_pixel") {
    // topi scales the ROI by spatial_scale before sampling: -0.5 there.
    CARVE_ASSIGN_OR_RETURN(rois, c.Op("subtract", {rois, c.ctx.Scalar(rois.dtype(),
                                                                       0.5 / spatial_scale)}));
  }
  CARVE_ASSIGN_OR_RETURN(TValue idx, c.Op("expand_dims", {c.In(2)}, {{"axis", IntAttr(1)}}));
  CARVE_ASSIGN_OR_RETURN(idx, c.ctx.CastTo(idx, rois.dtype()));
  CARVE_ASSIGN_OR_RETURN(TValue all, c.Op("concatenate", {c.ctx.Tuple({idx, rois})},
                                          {{"axis", IntAttr(1)}}));
  std::vector<int64_t> pooled = {c.attrs.Int("output_height", 1), c.attrs.Int("output_width", 1)};
  return One(c.Op("vision.roi_align", {c.In(0), all},
                  {{"pooled_size", IntsAttr(pooled)},
                   {"spatial_scale", FloatAttr(spatial_scale)},
                   {"sample_ratio", IntAttr(c.attrs.Int("sampling_ratio", 0))},
                   {"mode", StrAttr(mode)}}));
}

absl::StatusOr<Outputs> ConvertUnique(NodeCall& c) {
  TValue data = c.In(0);
  if (c.attrs.Has("axis")) {
    if (data.rank() != 1) {
      return c.Unsupported("an axis on a tensor of rank above 1 (TVM's unique is 1-D)");
    }
  } else {
    CARVE_ASSIGN_OR_RETURN(data, c.Op("reshape", {data}, {{"newshape", IntsAttr(std::vector<int64_t>{-1})}}));
  }
  bool sorted = c.attrs.Int("sorted", 1) == 1;
  CARVE_ASSIGN_OR_RETURN(TValue u, c.Op("unique", {data}, {{"sorted", BoolAttr(sorted)},
                                                          {"return_counts", BoolAttr(true)}}));
  std::vector<TValue> f;
  for (int i = 0; i < 5; ++i) {
    CARVE_ASSIGN_OR_RETURN(TValue v, c.ctx.GetItem(u, i));
    f.push_back(v);
  }
  const TValue& count = f[3];
  const DataType i64 = DataType::Int(64);
  CARVE_ASSIGN_OR_RETURN(TValue values, CutTo(c, f[0], count));
  CARVE_ASSIGN_OR_RETURN(TValue first, CutTo(c, f[1], count));
  CARVE_ASSIGN_OR_RETURN(first, c.ctx.CastTo(first, i64));
  CARVE_ASSIGN_OR_RETURN(TValue inverse, c.ctx.CastTo(f[2], i64));
  CARVE_ASSIGN_OR_RETURN(TValue counts, CutTo(c, f[4], count));
  CARVE_ASSIGN_OR_RETURN(counts, c.ctx.CastTo(counts, i64));
  return Outputs{values, first, inverse, counts};
}

// MaxUnpool: zeros of the unpooled extents ((in - 1) * stride + kernel
// less the pads), the values scattered to their flat indices. An
// output_shape larger than that pads the result at the end of each axis,
// as ONNX's reference does (test_maxunpool_export_with_output_shape: the
// indices address the unpooled extents); TVM's converter scatters into
// output_shape instead.
absl::StatusOr<Outputs> ConvertMaxUnpool(NodeCall& c) {
  const TValue& data = c.In(0);
  std::vector<int64_t> shape = data.shape();
  for (int64_t d : shape) {
    if (d < 0) return c.NeedsStaticShape("a MaxUnpool of a dynamic shape");
  }
  auto kernel = c.attrs.Ints("kernel_shape");
  if (!kernel) return absl::InvalidArgumentError("missing kernel_shape");
  size_t n = kernel->size();
  if (shape.size() != n + 2) return absl::InvalidArgumentError("kernel_shape does not fit X");
  std::vector<int64_t> strides = c.attrs.Ints("strides").value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = c.attrs.Ints("pads").value_or(std::vector<int64_t>(2 * n, 0));
  if (strides.size() != n || pads.size() != 2 * n) {
    return absl::InvalidArgumentError("strides and pads must match kernel_shape");
  }
  std::vector<int64_t> unpooled = shape;
  for (size_t i = 0; i < n; ++i) {
    unpooled[i + 2] = (shape[i + 2] - 1) * strides[i] + (*kernel)[i] - pads[i] - pads[i + n];
  }
  std::vector<int64_t> out = unpooled;
  if (c.HasInput(2)) {
    CARVE_ASSIGN_OR_RETURN(out, c.StaticInts(2));
    if (out.size() != shape.size()) return absl::InvalidArgumentError("output_shape of a wrong rank");
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] < unpooled[i]) {
        return c.Unsupported(fmt::format(
            "output_shape {} smaller than the unpooled extent {} on axis {}", out[i],
            unpooled[i], i));
      }
    }
  }
  CARVE_ASSIGN_OR_RETURN(TValue zeros, c.Op("zeros", {}, {{"shape", IntsAttr(unpooled)},
                                                          {"dtype", StrAttr(data.dtype().ToString())}}));
  AttrList flat = {{"newshape", IntsAttr(std::vector<int64_t>{-1})}};
  CARVE_ASSIGN_OR_RETURN(TValue z, c.Op("reshape", {zeros}, flat));
  CARVE_ASSIGN_OR_RETURN(TValue idx, c.Op("reshape", {c.In(1)}, flat));
  CARVE_ASSIGN_OR_RETURN(TValue val, c.Op("reshape", {data}, flat));
  CARVE_ASSIGN_OR_RETURN(TValue s, c.Op("scatter_elements", {z, idx, val}, {{"axis", IntAttr(0)}}));
  CARVE_ASSIGN_OR_RETURN(TValue y, c.Op("reshape", {s}, {{"newshape", IntsAttr(unpooled)}}));
  if (out == unpooled) return Outputs{y};
  std::vector<AttrValue> width;
  for (size_t i = 0; i < out.size(); ++i) {
    width.push_back(IntsAttr(std::vector<int64_t>{0, out[i] - unpooled[i]}));
  }
  return One(c.Op("nn.pad", {y, c.ctx.Scalar(data.dtype(), 0)},
                  {{"pad_width", AttrValue::Array(width)}}));
}

}  // namespace

std::vector<ConverterEntry> VisionConverters() {
  return {{"NonMaxSuppression", ConvertNonMaxSuppression},
          {"RoiAlign", ConvertRoiAlign},
          {"Unique", ConvertUnique},
          {"MaxUnpool", ConvertMaxUnpool}};
}

}  // namespace carve::onnx_import
