// Ops mapped onto existing Relay ops or composed from them (TVM v0.16
// onnx.py: Pad, DepthToSpace, SpaceToDepth, Resize, Upsample, ConvTranspose,
// Shrink, MeanVarianceNormalization, QuantizeLinear, DequantizeLinear), and
// ops whose result is a function of static operands only, computed at import
// (Range, EyeLike, the window functions). Tile, Trilu, LRN, Hardmax, OneHot
// and Compress are composed from registry ops where TVM uses a dedicated op
// the registry does not have yet; the values are the same.
#include <cmath>
#include <numbers>
#include <tuple>

#include "fmt/format.h"
#include "frontend/onnx/converter.h"
#include "frontend/onnx/model_reader.h"

namespace carve::onnx_import {
namespace {

absl::StatusOr<Outputs> One(absl::StatusOr<TValue> v) {
  if (!v.ok()) return v.status();
  return Outputs{*std::move(v)};
}

absl::StatusOr<std::vector<int64_t>> Static(NodeCall& c, const TValue& x) {
  std::vector<int64_t> s = x.shape();
  for (int64_t e : s) {
    if (e < 0) return c.NeedsStaticShape("a dynamic input shape");
  }
  return s;
}

absl::StatusOr<Outputs> ConvertPad(NodeCall& c) {
  const TValue& x = c.In(0);
  std::vector<int64_t> pads;
  if (c.opset < 11) {
    pads = c.attrs.Ints("pads").value_or(std::vector<int64_t>{});
  } else {
    CARVE_ASSIGN_OR_RETURN(pads, c.StaticInts(1));
  }
  int64_t rank = x.rank();
  // Opset 18's `axes` input: the pads are for those axes only.
  if (c.opset >= 18 && c.HasInput(3)) {
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, c.StaticInts(3));
    if (pads.size() != 2 * axes.size()) {
      return absl::InvalidArgumentError("pads must have 2 values for each of the axes");
    }
    std::vector<int64_t> full(2 * rank, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      CARVE_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axes[i], rank));
      full[a] = pads[i];
      full[a + rank] = pads[i + axes.size()];
    }
    pads = std::move(full);
  }
  if (int64_t(pads.size()) != 2 * rank) return absl::InvalidArgumentError("pads must have 2*rank values");
  std::vector<AttrValue> width;
  for (int64_t i = 0; i < rank; ++i) width.push_back(IntsAttr(std::vector<int64_t>{pads[i], pads[i + rank]}));
  std::string mode = c.attrs.Str("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    return c.Unsupported(fmt::format("mode '{}'", mode));
  }
  TValue value = c.ctx.Scalar(x.dtype(), c.opset < 11 ? c.attrs.Float("value", 0) : 0);
  if (c.opset >= 11 && c.HasInput(2)) {
    CARVE_ASSIGN_OR_RETURN(value, c.Op("reshape", {c.In(2)}, {{"newshape", IntsAttr(std::vector<int64_t>{})}}));
  }
  return One(c.Op("nn.pad", {x, value}, {{"pad_width", AttrValue::Array(width)},
                                        {"pad_mode", StrAttr(mode)}}));
}

absl::StatusOr<Outputs> ConvertDepthToSpace(NodeCall& c) {
  return One(c.Op("nn.depth_to_space", {c.In(0)},
                  {{"block_size", IntAttr(c.attrs.Int("blocksize", 1))},
                   {"mode", StrAttr(c.attrs.Str("mode", "DCR"))}}));
}

absl::StatusOr<Outputs> ConvertSpaceToDepth(NodeCall& c) {
  return One(c.Op("nn.space_to_depth", {c.In(0)},
                  {{"block_size", IntAttr(c.attrs.Int("blocksize", 1))}}));
}

// Resize (opset 10+) of a 4-D NCHW tensor with image.resize2d; sizes from
// `sizes` or floor(extent * scale).
absl::StatusOr<Outputs> ConvertResize(NodeCall& c) {
  const TValue& x = c.In(0);
  if (x.rank() != 4) return c.Unsupported(fmt::format("a rank-{} input (only 2-D images)", x.rank()));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, Static(c, x));
  size_t scales_at = c.opset >= 11 ? 2 : 1, sizes_at = 3;
  std::vector<int64_t> size;
  if (c.opset >= 11 && c.HasInput(sizes_at) && c.In(sizes_at).rank() > 0 &&
      c.In(sizes_at).shape()[0] > 0) {
    CARVE_ASSIGN_OR_RETURN(size, c.StaticInts(sizes_at));
  } else {
    CARVE_ASSIGN_OR_RETURN(std::vector<double> scales, c.StaticDoubles(scales_at));
    if (scales.size() != 4) return absl::InvalidArgumentError("scales must have 4 values");
    for (int i = 0; i < 4; ++i) size.push_back(int64_t(double(shape[i]) * scales[i]));
  }
  if (size.size() != 4 || size[0] != shape[0] || size[1] != shape[1]) {
    return c.Unsupported("resizing the batch or channel axis");
  }
  // Opset 18's attributes, which TVM v0.16's converter does not read: only
  // their defaults are imported.
  if (c.attrs.Int("antialias", 0) != 0) return c.Unsupported("antialias");
  if (auto axes = c.attrs.Ints("axes")) {
    bool all_in_order = axes->size() == 4;
    for (size_t i = 0; all_in_order && i < 4; ++i) {
      all_in_order = (*axes)[i] == int64_t(i) || (*axes)[i] == int64_t(i) - 4;
    }
    if (!all_in_order) return c.Unsupported("resizing some axes only (the axes attribute)");
  }
  if (std::string p = c.attrs.Str("keep_aspect_ratio_policy", "stretch"); p != "stretch") {
    return c.Unsupported(fmt::format("keep_aspect_ratio_policy '{}'", p));
  }
  std::string mode = c.attrs.Str("mode", "nearest");
  std::string method = mode == "nearest" ? "nearest_neighbor" : mode;
  std::string coord = c.opset >= 11 ? c.attrs.Str("coordinate_transformation_mode", "half_pixel")
                                    : "asymmetric";
  std::string rounding = mode == "nearest" ? c.attrs.Str("nearest_mode", "round_prefer_floor") : "";
  std::vector<double> roi;
  if (coord == "tf_crop_and_resize") {
    CARVE_ASSIGN_OR_RETURN(std::vector<double> r, c.StaticDoubles(1));
    roi = {r[2], r[3], r[6], r[7]};
  }
  int64_t hw[] = {size[2], size[3]};
  return One(c.Op("image.resize2d", {x},
                  {{"size", IntsAttr(hw)},
                   {"roi", DoublesAttr(roi.empty() ? std::vector<double>{0, 0, 0, 0} : roi)},
                   {"method", StrAttr(method)},
                   {"coordinate_transformation_mode", StrAttr(coord)},
                   {"rounding_method", StrAttr(rounding)},
                   {"cubic_alpha", FloatAttr(c.attrs.Float("cubic_coeff_a", -0.75f))},
                   {"cubic_exclude", IntAttr(c.attrs.Int("exclude_outside", 0))},
                   {"extrapolation_value", FloatAttr(c.attrs.Float("extrapolation_value", 0))}}));
}

absl::StatusOr<Outputs> ConvertUpsample(NodeCall& c) {
  const TValue& x = c.In(0);
  std::vector<double> scales;
  if (c.opset >= 9) {
    CARVE_ASSIGN_OR_RETURN(scales, c.StaticDoubles(1));
  } else if (auto s = c.attrs.Floats("scales")) {
    scales.assign(s->begin(), s->end());
  }
  if (x.rank() != 4 || scales.size() != 4 || scales[0] != 1 || scales[1] != 1) {
    return c.Unsupported("only 4-D NCHW upsampling of the spatial axes");
  }
  std::string mode = c.attrs.Str("mode", "nearest");
  return One(c.Op("nn.upsampling", {x},
                  {{"scale_h", FloatAttr(scales[2])},
                   {"scale_w", FloatAttr(scales[3])},
                   {"method", StrAttr(mode == "nearest" ? "nearest_neighbor" : "bilinear")},
                   {"align_corners", BoolAttr(mode != "nearest")}}));
}

absl::StatusOr<Outputs> ConvertConvTranspose(NodeCall& c) {
  const TValue& data = c.In(0);
  const TValue& weight = c.In(1);
  std::vector<int64_t> ws = weight.shape();
  size_t n = ws.size() >= 2 ? ws.size() - 2 : 0;
  if (n < 1 || n > 3) return c.Unsupported(fmt::format("{}-D transposed convolution", n));
  int64_t groups = c.attrs.Int("group", 1);
  std::vector<int64_t> kernel = c.attrs.Ints("kernel_shape").value_or(
      std::vector<int64_t>(ws.begin() + 2, ws.end()));
  std::vector<int64_t> strides = c.attrs.Ints("strides").value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> dilation = c.attrs.Ints("dilations").value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> out_pad =
      c.attrs.Ints("output_padding").value_or(std::vector<int64_t>(n, 0));
  std::vector<int64_t> pads = c.attrs.Ints("pads").value_or(std::vector<int64_t>(2 * n, 0));
  std::string auto_pad = c.attrs.Str("auto_pad", "NOTSET");
  auto out_shape = c.attrs.Ints("output_shape");
  for (auto [name, size, want] : {std::tuple{"kernel_shape", kernel.size(), n},
                                  {"strides", strides.size(), n},
                                  {"dilations", dilation.size(), n},
                                  {"output_padding", out_pad.size(), n},
                                  {"pads", pads.size(), 2 * n}}) {
    if (size != want) {
      return absl::InvalidArgumentError(
          fmt::format("{} has {} value{}, a {}-D transposed convolution takes {}", name, size,
                      size == 1 ? "" : "s", n, want));
    }
  }
  if (out_shape && out_shape->size() < n) {
    return absl::InvalidArgumentError(fmt::format(
        "output_shape has {} value{}, a {}-D transposed convolution takes {} (or N, C and them)",
        out_shape->size(), out_shape->size() == 1 ? "" : "s", n, n));
  }
  if (out_shape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> in, Static(c, data));
    for (size_t i = 0; i < n; ++i) {
      int64_t extent = in[i + 2];
      int64_t target = out_shape ? (*out_shape)[out_shape->size() - n + i] : extent * strides[i];
      int64_t total = strides[i] * (extent - 1) + out_pad[i] + (kernel[i] - 1) * dilation[i] + 1 -
                      target;
      if (total < 0) {  // the output is longer than the padding-free result
        out_pad[i] += -total;
        total = 0;
      }
      bool lower = auto_pad == "SAME_LOWER";
      pads[i] = lower ? total - total / 2 : total / 2;
      pads[i + n] = total - pads[i];
    }
  }
  std::string_view ops[] = {"nn.conv1d_transpose", "nn.conv2d_transpose", "nn.conv3d_transpose"};
  std::string_view layouts[][2] = {{"NCW", "IOW"}, {"NCHW", "IOHW"}, {"NCDHW", "IODHW"}};
  CARVE_ASSIGN_OR_RETURN(
      TValue out, c.Op(ops[n - 1], {data, weight},
                       {{"channels", IntAttr(ws[1] * groups)},
                        {"kernel_size", IntsAttr(kernel)},
                        {"strides", IntsAttr(strides)},
                        {"output_padding", IntsAttr(out_pad)},
                        {"padding", IntsAttr(pads)},
                        {"dilation", IntsAttr(dilation)},
                        {"groups", IntAttr(groups)},
                        {"data_layout", StrAttr(layouts[n - 1][0])},
                        {"kernel_layout", StrAttr(layouts[n - 1][1])}}));
  if (c.HasInput(2)) return One(c.Op("nn.bias_add", {out, c.In(2)}));
  return Outputs{out};
}

absl::StatusOr<Outputs> ConvertShrink(NodeCall& c) {
  const TValue& x = c.In(0);
  double lambd = c.attrs.Float("lambd", 0.5f), bias = c.attrs.Float("bias", 0.0f);
  TValue neg_l = c.ctx.Scalar(x.dtype(), -lambd), pos_l = c.ctx.Scalar(x.dtype(), lambd);
  TValue b = c.ctx.Scalar(x.dtype(), bias);
  CARVE_ASSIGN_OR_RETURN(TValue zeros, c.Op("zeros_like", {x}));
  CARVE_ASSIGN_OR_RETURN(TValue lo, c.Op("less", {x, neg_l}));
  CARVE_ASSIGN_OR_RETURN(TValue xpb, c.Op("add", {x, b}));
  CARVE_ASSIGN_OR_RETURN(TValue w1, c.Op("where", {lo, xpb, zeros}));
  CARVE_ASSIGN_OR_RETURN(TValue hi, c.Op("greater", {x, pos_l}));
  CARVE_ASSIGN_OR_RETURN(TValue xmb, c.Op("subtract", {x, b}));
  CARVE_ASSIGN_OR_RETURN(TValue w2, c.Op("where", {hi, xmb, zeros}));
  return One(c.Op("add", {w1, w2}));
}

absl::StatusOr<Outputs> ConvertMVN(NodeCall& c) {
  const TValue& x = c.In(0);
  std::vector<int64_t> axes = c.attrs.Ints("axes").value_or(std::vector<int64_t>{0, 2, 3});
  AttrList keep = {{"axis", IntsAttr(axes)}, {"keepdims", BoolAttr(true)}};
  TValue two = c.ctx.Scalar(x.dtype(), 2);
  CARVE_ASSIGN_OR_RETURN(TValue mean, c.Op("mean", {x}, keep));
  CARVE_ASSIGN_OR_RETURN(TValue mean_sq, c.Op("power", {mean, two}));
  CARVE_ASSIGN_OR_RETURN(TValue sq, c.Op("power", {x, two}));
  CARVE_ASSIGN_OR_RETURN(TValue sq_mean, c.Op("mean", {sq}, keep));
  CARVE_ASSIGN_OR_RETURN(TValue var, c.Op("subtract", {sq_mean, mean_sq}));
  CARVE_ASSIGN_OR_RETURN(TValue sd, c.Op("sqrt", {var}));
  CARVE_ASSIGN_OR_RETURN(TValue den, c.Op("add", {sd, c.ctx.Scalar(x.dtype(), 1e-9)}));
  CARVE_ASSIGN_OR_RETURN(TValue num, c.Op("subtract", {x, mean}));
  return One(c.Op("divide", {num, den}));
}

absl::StatusOr<Outputs> ConvertQuantize(NodeCall& c) {
  const TValue& x = c.In(0);
  TValue zp = c.HasInput(2) ? c.In(2) : c.ctx.Scalar(DataType::UInt(8), 0);
  int64_t axis = c.attrs.Int("axis", 1);
  if (axis < 0) axis += x.rank();
  if (x.rank() <= 1) axis = 0;  // per-tensor on vectors, as TVM
  CARVE_ASSIGN_OR_RETURN(TValue zp32, c.ctx.CastTo(zp, DataType::Int(32)));
  return One(c.Op("qnn.quantize", {x, c.In(1), zp32},
                  {{"out_dtype", StrAttr(zp.dtype().ToString())}, {"axis", IntAttr(axis)}}));
}

absl::StatusOr<Outputs> ConvertDequantize(NodeCall& c) {
  const TValue& x = c.In(0);
  TValue zp = c.HasInput(2) ? c.In(2) : c.ctx.Scalar(x.dtype(), 0);
  int64_t axis = c.attrs.Int("axis", 1);
  if (axis < 0) axis += x.rank();
  if (x.rank() <= 1) axis = 0;  // per-tensor on vectors, as TVM
  CARVE_ASSIGN_OR_RETURN(TValue zp32, c.ctx.CastTo(zp, DataType::Int(32)));
  return One(c.Op("qnn.dequantize", {x, c.In(1), zp32},
                  {{"out_dtype", StrAttr("float32")}, {"axis", IntAttr(axis)}}));
}

// Tile: x reshaped to [1, d0, 1, d1, ...], broadcast against ones of
// [r0, d0, r1, d1, ...], reshaped to [r0*d0, r1*d1, ...].
absl::StatusOr<Outputs> ConvertTile(NodeCall& c) {
  const TValue& x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> s, Static(c, x));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> reps, c.StaticInts(1));
  if (reps.size() != s.size()) return absl::InvalidArgumentError("repeats must have rank values");
  std::vector<int64_t> inter, wide, out;
  for (size_t i = 0; i < s.size(); ++i) {
    inter.insert(inter.end(), {1, s[i]});
    wide.insert(wide.end(), {reps[i], s[i]});
    out.push_back(reps[i] * s[i]);
  }
  CARVE_ASSIGN_OR_RETURN(TValue r, c.Op("reshape", {x}, {{"newshape", IntsAttr(inter)}}));
  CARVE_ASSIGN_OR_RETURN(TValue ones, c.Op("full", {c.ctx.Scalar(x.dtype(), 1)},
                                           {{"shape", IntsAttr(wide)},
                                            {"dtype", StrAttr(x.dtype().ToString())}}));
  CARVE_ASSIGN_OR_RETURN(TValue b, c.Op(x.dtype().is_bool() ? "logical_and" : "multiply", {r, ones}));
  return One(c.Op("reshape", {b}, {{"newshape", IntsAttr(out)}}));
}

// Trilu: where(mask, x, 0) with the constant mask of the last two axes.
absl::StatusOr<Outputs> ConvertTrilu(NodeCall& c) {
  const TValue& x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> s, Static(c, x));
  if (s.size() < 2) return absl::InvalidArgumentError("Trilu needs rank >= 2");
  int64_t k = 0;
  if (c.HasInput(1)) {
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> kv, c.StaticInts(1));
    if (!kv.empty()) k = kv[0];
  }
  bool upper = c.attrs.Int("upper", 1) != 0;
  int64_t n = s[s.size() - 2], m = s[s.size() - 1];
  NDArray mask = NDArray::Empty(DataType::Bool(), {n, m});
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) mask.data<uint8_t>()[i * m + j] = upper ? j - i >= k : j - i <= k;
  }
  CARVE_ASSIGN_OR_RETURN(TValue zeros, c.Op("zeros_like", {x}));
  return One(c.Op("where", {c.ctx.Const(mask), x, zeros}));
}

// LRN: x / (bias + alpha / size * window_sum(x^2)) ^ beta; the window sum
// over channels is an average pool (count_include_pad) times size.
absl::StatusOr<Outputs> ConvertLRN(NodeCall& c) {
  const TValue& x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> s, Static(c, x));
  if (s.size() < 3) return c.Unsupported("LRN of rank < 3");
  int64_t size = c.attrs.Int("size", 1);
  double alpha = c.attrs.Float("alpha", 1e-4f), beta = c.attrs.Float("beta", 0.75f);
  double bias = c.attrs.Float("bias", 1.0f);
  int64_t rest = 1;
  for (size_t i = 2; i < s.size(); ++i) rest *= s[i];
  CARVE_ASSIGN_OR_RETURN(TValue sq, c.Op("multiply", {x, x}));
  int64_t shape4[] = {s[0], 1, s[1], rest};
  CARVE_ASSIGN_OR_RETURN(TValue r, c.Op("reshape", {sq}, {{"newshape", IntsAttr(shape4)}}));
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  int64_t pool[] = {size, 1}, pad[] = {before, 0, after, 0};
  CARVE_ASSIGN_OR_RETURN(TValue avg, c.Op("nn.avg_pool2d", {r},
                                          {{"pool_size", IntsAttr(pool)},
                                           {"padding", IntsAttr(pad)},
                                           {"count_include_pad", BoolAttr(true)}}));
  CARVE_ASSIGN_OR_RETURN(TValue back, c.Op("reshape", {avg}, {{"newshape", IntsAttr(s)}}));
  CARVE_ASSIGN_OR_RETURN(TValue scaled, c.Op("multiply", {back, c.ctx.Scalar(x.dtype(), alpha)}));
  CARVE_ASSIGN_OR_RETURN(TValue biased, c.Op("add", {scaled, c.ctx.Scalar(x.dtype(), bias)}));
  CARVE_ASSIGN_OR_RETURN(TValue den, c.Op("power", {biased, c.ctx.Scalar(x.dtype(), beta)}));
  return One(c.Op("divide", {x, den}));
}

// 0..n-1 along `axis` of a rank-`rank` tensor, as int32 (argmax's dtype).
TValue Iota(NodeCall& c, int64_t n, int64_t axis, int64_t rank, DataType dt) {
  std::vector<int64_t> shape(rank, 1);
  shape[axis] = n;
  NDArray a = NDArray::Empty(dt, shape);
  for (int64_t i = 0; i < n; ++i) a.SetFromDouble(i, double(i));
  return c.ctx.Const(a);
}

absl::StatusOr<Outputs> ConvertHardmax(NodeCall& c) {
  TValue x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> s, Static(c, x));
  int64_t axis = c.attrs.Int("axis", c.opset < 13 ? 1 : -1);
  if (axis < 0) axis += int64_t(s.size());
  if (c.opset < 13) {  // coerced to 2-D around `axis`
    int64_t outer = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= s[i];
    int64_t flat[] = {outer, -1};
    CARVE_ASSIGN_OR_RETURN(x, c.Op("reshape", {x}, {{"newshape", IntsAttr(flat)}}));
    axis = 1;
  }
  std::vector<int64_t> xs = x.shape();
  int64_t ax[] = {axis};
  CARVE_ASSIGN_OR_RETURN(TValue am, c.Op("argmax", {x}, {{"axis", IntsAttr(ax)},
                                                         {"keepdims", BoolAttr(true)}}));
  TValue iota = Iota(c, xs[axis], axis, int64_t(xs.size()), am.dtype());
  CARVE_ASSIGN_OR_RETURN(TValue eq, c.Op("equal", {am, iota}));
  CARVE_ASSIGN_OR_RETURN(TValue out, c.ctx.CastTo(eq, x.dtype()));
  if (c.opset < 13) {
    CARVE_ASSIGN_OR_RETURN(out, c.Op("reshape", {out}, {{"newshape", IntsAttr(s)}}));
  }
  return Outputs{out};
}

absl::StatusOr<Outputs> ConvertOneHot(NodeCall& c) {
  TValue idx = c.In(0);
  CARVE_ASSIGN_OR_RETURN(std::vector<double> depth_v, c.StaticDoubles(1));
  if (depth_v.empty()) return absl::InvalidArgumentError("depth is empty");
  int64_t depth = int64_t(depth_v[0]);
  const TValue& values = c.In(2);
  int64_t rank = idx.rank() + 1;
  int64_t axis = c.attrs.Int("axis", -1);
  if (axis < 0) axis += rank;
  TValue d = c.ctx.Scalar(idx.dtype(), double(depth)), zero = c.ctx.Scalar(idx.dtype(), 0);
  CARVE_ASSIGN_OR_RETURN(TValue neg, c.Op("less", {idx, zero}));
  CARVE_ASSIGN_OR_RETURN(TValue wrapped, c.Op("add", {idx, d}));
  CARVE_ASSIGN_OR_RETURN(idx, c.Op("where", {neg, wrapped, idx}));
  CARVE_ASSIGN_OR_RETURN(TValue e, c.Op("expand_dims", {idx}, {{"axis", IntAttr(axis)}}));
  CARVE_ASSIGN_OR_RETURN(TValue eq, c.Op("equal", {e, Iota(c, depth, axis, rank, idx.dtype())}));
  TValue zero_i = c.ctx.Scalar(DataType::Int(64), 0), one_i = c.ctx.Scalar(DataType::Int(64), 1);
  CARVE_ASSIGN_OR_RETURN(TValue off, c.Op("take", {values, zero_i}, {{"axis", IntAttr(0)}}));
  CARVE_ASSIGN_OR_RETURN(TValue on, c.Op("take", {values, one_i}, {{"axis", IntAttr(0)}}));
  return One(c.Op("where", {eq, on, off}));
}

absl::StatusOr<Outputs> ConvertCompress(NodeCall& c) {
  TValue x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> cond, c.StaticInts(1));
  int64_t axis = 0;
  if (c.attrs.Has("axis")) {
    CARVE_ASSIGN_OR_RETURN(axis, NormalizeAxis(c.attrs.Int("axis", 0), x.rank()));
  } else {
    int64_t flat[] = {-1};
    CARVE_ASSIGN_OR_RETURN(x, c.Op("reshape", {x}, {{"newshape", IntsAttr(flat)}}));
  }
  std::vector<int64_t> picked;
  int64_t extent = x.shape()[axis];
  for (int64_t i = 0; i < int64_t(cond.size()) && i < extent; ++i) {
    if (cond[i]) picked.push_back(i);
  }
  return One(c.Op("take", {x, c.ctx.Ints(picked)}, {{"axis", IntAttr(axis)}}));
}

// ---- Computed at import: the result depends on static operands only. ----

absl::StatusOr<Outputs> ConvertRange(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(std::vector<double> start, c.StaticDoubles(0));
  CARVE_ASSIGN_OR_RETURN(std::vector<double> limit, c.StaticDoubles(1));
  CARVE_ASSIGN_OR_RETURN(std::vector<double> delta, c.StaticDoubles(2));
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1 || delta[0] == 0) {
    return absl::InvalidArgumentError("start, limit and delta must be scalars, delta non-zero");
  }
  int64_t n = std::max<int64_t>(int64_t(std::ceil((limit[0] - start[0]) / delta[0])), 0);
  NDArray a = NDArray::Empty(c.In(0).dtype(), {n});
  for (int64_t i = 0; i < n; ++i) a.SetFromDouble(i, start[0] + double(i) * delta[0]);
  return Outputs{c.ctx.Const(a)};
}

absl::StatusOr<Outputs> ConvertEyeLike(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> s, Static(c, c.In(0)));
  if (s.size() != 2) return absl::InvalidArgumentError("EyeLike needs a 2-D input");
  DataType dt = c.In(0).dtype();
  if (c.attrs.Has("dtype")) {
    CARVE_ASSIGN_OR_RETURN(dt, DTypeFromOnnx(int(c.attrs.Int("dtype", 1))));
  }
  int64_t k = c.attrs.Int("k", 0);
  NDArray a = NDArray::Empty(dt, s);
  for (int64_t i = 0; i < s[0]; ++i) {
    if (i + k >= 0 && i + k < s[1]) a.SetFromDouble(i * s[1] + i + k, 1);
  }
  return Outputs{c.ctx.Const(a)};
}

// Hann, Hamming and Blackman windows: sums of cosines of 2*pi*n/N (N = size
// when periodic, size - 1 otherwise).
absl::StatusOr<Outputs> Window(NodeCall& c, std::span<const double> coeffs) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> size_v, c.StaticInts(0));
  if (size_v.size() != 1 || size_v[0] < 0) return absl::InvalidArgumentError("size must be a scalar >= 0");
  int64_t n = size_v[0];
  CARVE_ASSIGN_OR_RETURN(DataType dt, DTypeFromOnnx(int(c.attrs.Int("output_datatype", 1))));
  double denom = c.attrs.Int("periodic", 1) ? double(n) : double(n - 1);
  NDArray a = NDArray::Empty(dt, {n});
  for (int64_t i = 0; i < n; ++i) {
    double v = 0, sign = 1;
    for (size_t k = 0; k < coeffs.size(); ++k, sign = -sign) {
      v += sign * coeffs[k] * std::cos(2 * std::numbers::pi * double(k) * double(i) / denom);
    }
    a.SetFromDouble(i, v);
  }
  return Outputs{c.ctx.Const(a)};
}
absl::StatusOr<Outputs> ConvertHannWindow(NodeCall& c) {
  const double k[] = {0.5, 0.5};
  return Window(c, k);
}
absl::StatusOr<Outputs> ConvertHammingWindow(NodeCall& c) {
  const double k[] = {25.0 / 46.0, 1 - 25.0 / 46.0};
  return Window(c, k);
}
absl::StatusOr<Outputs> ConvertBlackmanWindow(NodeCall& c) {
  const double k[] = {0.42, 0.5, 0.08};
  return Window(c, k);
}

}  // namespace

std::vector<ConverterEntry> ExtraConverters() {
  return {
      {"Pad", ConvertPad},
      {"DepthToSpace", ConvertDepthToSpace},
      {"SpaceToDepth", ConvertSpaceToDepth},
      {"Resize", ConvertResize},
      {"Upsample", ConvertUpsample},
      {"ConvTranspose", ConvertConvTranspose},
      {"Shrink", ConvertShrink},
      {"MeanVarianceNormalization", ConvertMVN},
      {"QuantizeLinear", ConvertQuantize},
      {"DequantizeLinear", ConvertDequantize},
      {"Tile", ConvertTile},
      {"Trilu", ConvertTrilu},
      {"LRN", ConvertLRN},
      {"Hardmax", ConvertHardmax},
      {"OneHot", ConvertOneHot},
      {"Compress", ConvertCompress},
      {"Range", ConvertRange},
      {"EyeLike", ConvertEyeLike},
      {"HannWindow", ConvertHannWindow},
      {"HammingWindow", ConvertHammingWindow},
      {"BlackmanWindow", ConvertBlackmanWindow},
  };
}

}  // namespace carve::onnx_import
