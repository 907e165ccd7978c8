// Convolution, pooling, normalisation and softmax (TVM v0.16 onnx.py: Conv,
// Pool / MaxPool / AveragePool, GlobalAveragePool, BatchNorm, InstanceNorm,
// Softmax, LogSoftmax, Dropout).
#include "fmt/format.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {
namespace {

absl::StatusOr<Outputs> One(absl::StatusOr<TValue> v) {
  if (!v.ok()) return v.status();
  return Outputs{*std::move(v)};
}

std::vector<int64_t> IntsOr(const NodeAttrs& a, std::string_view name, size_t n, int64_t fill) {
  auto v = a.Ints(name);
  return v ? *v : std::vector<int64_t>(n, fill);
}

// The explicit padding of auto_pad SAME_UPPER / SAME_LOWER for static input
// extents (ONNX: total = max((ceil(in / s) - 1) * s + (k - 1) * d + 1 - in, 0),
// the odd unit at the end for SAME_UPPER), in ONNX's [begins..., ends...]
// order.
std::vector<int64_t> SamePads(std::span<const int64_t> in, std::span<const int64_t> k,
                              std::span<const int64_t> s, std::span<const int64_t> d,
                              bool upper) {
  size_t n = k.size();
  std::vector<int64_t> pads(2 * n);
  for (size_t i = 0; i < n; ++i) {
    int64_t out = (in[i] + s[i] - 1) / s[i];
    int64_t total = std::max<int64_t>((out - 1) * s[i] + (k[i] - 1) * d[i] + 1 - in[i], 0);
    int64_t small = total / 2, big = total - small;
    pads[i] = upper ? small : big;
    pads[i + n] = upper ? big : small;
  }
  return pads;
}

// The `pads` attribute after auto_pad, or an error for an unknown mode.
absl::StatusOr<std::vector<int64_t>> ResolvePads(NodeCall& c, const TValue& data,
                                                 std::span<const int64_t> kernel,
                                                 std::span<const int64_t> strides,
                                                 std::span<const int64_t> dilations) {
  size_t n = kernel.size();
  std::string mode = c.attrs.Str("auto_pad", "NOTSET");
  if (mode == "NOTSET") return IntsOr(c.attrs, "pads", 2 * n, 0);
  if (mode == "VALID") return std::vector<int64_t>(2 * n, 0);
  if (mode != "SAME_UPPER" && mode != "SAME_LOWER") {
    return absl::InvalidArgumentError(fmt::format("auto_pad '{}' is invalid", mode));
  }
  std::vector<int64_t> shape = data.shape();
  std::vector<int64_t> spatial(shape.end() - int64_t(n), shape.end());
  for (int64_t e : spatial) {
    if (e < 0) return c.NeedsStaticShape("auto_pad SAME needs static spatial extents");
  }
  return SamePads(spatial, kernel, strides, dilations, mode == "SAME_UPPER");
}

std::string_view ConvOpName(size_t spatial, bool transpose) {
  static constexpr std::string_view kConv[] = {"nn.conv1d", "nn.conv2d", "nn.conv3d"};
  static constexpr std::string_view kConvT[] = {"nn.conv1d_transpose", "nn.conv2d_transpose",
                                                "nn.conv3d_transpose"};
  if (spatial < 1 || spatial > 3) return "";
  return transpose ? kConvT[spatial - 1] : kConv[spatial - 1];
}

absl::StatusOr<Outputs> ConvertConv(NodeCall& c) {
  const TValue& data = c.In(0);
  const TValue& weight = c.In(1);
  std::vector<int64_t> wshape = weight.shape();
  size_t n = wshape.size() >= 2 ? wshape.size() - 2 : 0;
  std::string_view op = ConvOpName(n, false);
  if (op.empty()) return c.Unsupported(fmt::format("{}-D convolution", n));
  std::vector<int64_t> kernel = IntsOr(c.attrs, "kernel_shape", 0, 0);
  if (kernel.empty()) kernel.assign(wshape.begin() + 2, wshape.end());
  std::vector<int64_t> strides = IntsOr(c.attrs, "strides", n, 1);
  std::vector<int64_t> dilation = IntsOr(c.attrs, "dilations", n, 1);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                         ResolvePads(c, data, kernel, strides, dilation));
  std::string_view layouts[][2] = {{"NCW", "OIW"}, {"NCHW", "OIHW"}, {"NCDHW", "OIDHW"}};
  CARVE_ASSIGN_OR_RETURN(
      TValue out, c.Op(op, {data, weight},
                       {{"strides", IntsAttr(strides)},
                        {"padding", IntsAttr(pads)},
                        {"dilation", IntsAttr(dilation)},
                        {"groups", IntAttr(c.attrs.Int("group", 1))},
                        {"channels", IntAttr(wshape[0])},
                        {"kernel_size", IntsAttr(kernel)},
                        {"data_layout", StrAttr(layouts[n - 1][0])},
                        {"kernel_layout", StrAttr(layouts[n - 1][1])}}));
  if (c.HasInput(2)) return One(c.Op("nn.bias_add", {out, c.In(2)}));
  return Outputs{out};
}

// ConvInteger: Conv of (x - x_zp) and (w - w_zp) in int32 (TVM lowers it
// through qnn with unit scales to the same values).
absl::StatusOr<Outputs> ConvertConvInteger(NodeCall& c) {
  auto centred = [&](size_t in, size_t zp_in) -> absl::StatusOr<TValue> {
    CARVE_ASSIGN_OR_RETURN(TValue x, c.ctx.CastTo(c.In(in), DataType::Int(32)));
    if (!c.HasInput(zp_in)) return x;
    CARVE_ASSIGN_OR_RETURN(TValue zp, c.ctx.CastTo(c.In(zp_in), DataType::Int(32)));
    if (zp.rank() == 1 && zp.shape()[0] > 1) {  // per output channel
      std::vector<int64_t> shape(x.rank(), 1);
      shape[0] = -1;
      CARVE_ASSIGN_OR_RETURN(zp, c.Op("reshape", {zp}, {{"newshape", IntsAttr(shape)}}));
    }
    return c.Op("subtract", {x, zp});
  };
  CARVE_ASSIGN_OR_RETURN(TValue x, centred(0, 2));
  CARVE_ASSIGN_OR_RETURN(TValue w, centred(1, 3));
  NodeCall inner{c.ctx, c.node, c.opset, {x, w}, c.attrs, c.base_dir};
  return ConvertConv(inner);
}

// MaxPool / AveragePool (TVM's Pool: pool_size, strides, dilation, padding,
// ceil_mode, count_include_pad passed through).
absl::StatusOr<Outputs> ConvertPool(NodeCall& c, bool is_max) {
  const TValue& data = c.In(0);
  if (is_max && c.node.output_size() > 1 && !c.node.output(1).empty()) {
    return c.Unsupported("the Indices output of MaxPool");
  }
  if (c.attrs.Int("storage_order", 0) != 0) return c.Unsupported("storage_order 1");
  auto kernel_attr = c.attrs.Ints("kernel_shape");
  if (!kernel_attr) return absl::InvalidArgumentError("missing kernel_shape");
  std::vector<int64_t> kernel = *kernel_attr;
  size_t n = kernel.size();
  if (n < 1 || n > 3 || size_t(data.rank()) != n + 2) {
    return c.Unsupported(fmt::format("{}-D pooling of a rank-{} input", n, data.rank()));
  }
  std::vector<int64_t> strides = IntsOr(c.attrs, "strides", n, 1);
  std::vector<int64_t> dilation = IntsOr(c.attrs, "dilations", n, 1);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                         ResolvePads(c, data, kernel, strides, dilation));
  std::string_view layouts[] = {"NCW", "NCHW", "NCDHW"};
  std::string op = fmt::format("nn.{}_pool{}d", is_max ? "max" : "avg", n);
  AttrList attrs = {{"pool_size", IntsAttr(kernel)},
                    {"strides", IntsAttr(strides)},
                    {"dilation", IntsAttr(dilation)},
                    {"padding", IntsAttr(pads)},
                    {"layout", StrAttr(layouts[n - 1])},
                    {"ceil_mode", BoolAttr(c.attrs.Int("ceil_mode", 0) != 0)}};
  if (!is_max) {
    attrs.push_back({"count_include_pad", BoolAttr(c.attrs.Int("count_include_pad", 0) != 0)});
  }
  return One(c.Op(op, {data}, attrs));
}
absl::StatusOr<Outputs> ConvertMaxPool(NodeCall& c) { return ConvertPool(c, true); }
absl::StatusOr<Outputs> ConvertAveragePool(NodeCall& c) { return ConvertPool(c, false); }

// GlobalAveragePool / GlobalMaxPool: the 2-D op for 4-D inputs; 1-D and 3-D
// as the mean / max over the spatial axes with keepdims (TVM uses
// adaptive pools there, which carve's registry has only in 2-D).
absl::StatusOr<Outputs> ConvertGlobalPool(NodeCall& c, bool is_max) {
  const TValue& data = c.In(0);
  if (data.rank() == 4) {
    return One(c.Op(is_max ? "nn.global_max_pool2d" : "nn.global_avg_pool2d", {data}));
  }
  if (data.rank() < 3) return c.Unsupported(fmt::format("a rank-{} input", data.rank()));
  std::vector<int64_t> axes;
  for (int i = 2; i < data.rank(); ++i) axes.push_back(i);
  return One(c.Op(is_max ? "max" : "mean", {data},
                  {{"axis", IntsAttr(axes)}, {"keepdims", BoolAttr(true)}}));
}
absl::StatusOr<Outputs> ConvertGlobalAveragePool(NodeCall& c) {
  return ConvertGlobalPool(c, false);
}
absl::StatusOr<Outputs> ConvertGlobalMaxPool(NodeCall& c) { return ConvertGlobalPool(c, true); }

absl::StatusOr<Outputs> ConvertBatchNorm(NodeCall& c) {
  if (c.attrs.Int("training_mode", 0) != 0) return c.Unsupported("training_mode 1");
  AttrList attrs;
  if (c.attrs.Has("epsilon")) attrs.push_back({"epsilon", FloatAttr(c.attrs.Float("epsilon", 0))});
  CARVE_ASSIGN_OR_RETURN(
      TValue bn, c.Op("nn.batch_norm", {c.In(0), c.In(1), c.In(2), c.In(3), c.In(4)}, attrs));
  CARVE_ASSIGN_OR_RETURN(TValue out, c.ctx.GetItem(bn, 0));
  return Outputs{out, c.In(3), c.In(4)};
}

absl::StatusOr<Outputs> ConvertInstanceNorm(NodeCall& c) {
  return One(c.Op("nn.instance_norm", {c.In(0), c.In(1), c.In(2)},
                  {{"epsilon", FloatAttr(c.attrs.Float("epsilon", 1e-5f))}}));
}

// Softmax before opset 13 normalises over the axes from `axis` on (TVM
// reshapes to 2-D around nn.softmax); from 13 over one axis.
absl::StatusOr<TValue> SoftmaxOf(NodeCall& c) {
  const TValue& x = c.In(0);
  int64_t rank = x.rank();
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(c.attrs.Int("axis", c.opset < 13 ? 1 : -1), rank));
  if (c.opset >= 13 || axis == rank - 1) {
    return c.Op("nn.softmax", {x}, {{"axis", IntAttr(axis)}});
  }
  std::vector<int64_t> shape = x.shape();
  std::vector<int64_t> flat = {-1};
  if (axis != 0) {
    int64_t outer = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= shape[i];
    flat = {outer, -1};
  }
  CARVE_ASSIGN_OR_RETURN(TValue r, c.Op("reshape", {x}, {{"newshape", IntsAttr(flat)}}));
  CARVE_ASSIGN_OR_RETURN(TValue s, c.Op("nn.softmax", {r}, {{"axis", IntAttr(-1)}}));
  return c.Op("reshape", {s}, {{"newshape", IntsAttr(shape)}});
}

absl::StatusOr<Outputs> ConvertSoftmax(NodeCall& c) { return One(SoftmaxOf(c)); }

absl::StatusOr<Outputs> ConvertLogSoftmax(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue s, SoftmaxOf(c));
  return One(c.Op("log", {s}));
}

// Inference: Dropout is the identity (TVM's nn.dropout, whose first field
// the interpreter passes through); the mask output is all true.
absl::StatusOr<Outputs> ConvertDropout(NodeCall& c) {
  if (c.HasInput(2) && (!c.In(2).value.defined() || c.In(2).value.GetAsDouble(0) != 0)) {
    return c.Unsupported("training_mode (carve imports inference graphs)");
  }
  double rate = c.opset < 12 ? c.attrs.Float("ratio", 0.5f) : 0.5;
  if (c.HasInput(1) && c.In(1).value.defined()) rate = c.In(1).value.GetAsDouble(0);
  CARVE_ASSIGN_OR_RETURN(TValue d, c.Op("nn.dropout", {c.In(0)}, {{"rate", FloatAttr(rate)}}));
  CARVE_ASSIGN_OR_RETURN(TValue out, c.ctx.GetItem(d, 0));
  Outputs outs = {out};
  if (c.node.output_size() > 1 && !c.node.output(1).empty()) {
    std::vector<int64_t> shape = c.In(0).shape();
    for (int64_t e : shape) {
      if (e < 0) return c.Unsupported("the mask output of a dynamic-shape Dropout");
    }
    NDArray mask = NDArray::Empty(DataType::Bool(), shape);
    for (int64_t i = 0; i < mask.num_elements(); ++i) mask.data<uint8_t>()[i] = 1;
    outs.push_back(c.ctx.Const(mask));
  }
  return outs;
}

// Normalisation over the axes from `axis` on, composed as TVM does
// (mean, variance with that mean, 1 / sqrt(var + eps)); outputs Y, Mean,
// InvStdDev.
absl::StatusOr<Outputs> ConvertLayerNorm(NodeCall& c) {
  const TValue& x = c.In(0);
  int64_t rank = x.rank();
  int64_t axis = c.attrs.Int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError("axis out of range");
  std::vector<int64_t> axes;
  for (int64_t i = axis; i < rank; ++i) axes.push_back(i);
  AttrList keep = {{"axis", IntsAttr(axes)}, {"keepdims", BoolAttr(true)}};
  CARVE_ASSIGN_OR_RETURN(TValue mean, c.Op("mean", {x}, keep));
  CARVE_ASSIGN_OR_RETURN(TValue var, c.Op("variance", {x, mean}, keep));
  TValue eps = c.ctx.Scalar(x.dtype(), c.attrs.Float("epsilon", 1e-5f));
  CARVE_ASSIGN_OR_RETURN(TValue ve, c.Op("add", {var, eps}));
  CARVE_ASSIGN_OR_RETURN(TValue sd, c.Op("sqrt", {ve}));
  CARVE_ASSIGN_OR_RETURN(TValue inv, c.Op("divide", {c.ctx.Scalar(x.dtype(), 1), sd}));
  CARVE_ASSIGN_OR_RETURN(TValue centred, c.Op("subtract", {x, mean}));
  CARVE_ASSIGN_OR_RETURN(TValue norm, c.Op("multiply", {centred, inv}));
  CARVE_ASSIGN_OR_RETURN(TValue y, c.Op("multiply", {norm, c.In(1)}));
  if (c.HasInput(2)) {
    CARVE_ASSIGN_OR_RETURN(y, c.Op("add", {y, c.In(2)}));
  }
  return Outputs{y, mean, inv};
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ConvPads(NodeCall& c, const TValue& data,
                                              const std::vector<int64_t>& kernel,
                                              const std::vector<int64_t>& strides,
                                              const std::vector<int64_t>& dilation) {
  return ResolvePads(c, data, kernel, strides, dilation);
}

std::vector<ConverterEntry> NNConverters() {
  return {
      {"Conv", ConvertConv},
      {"ConvInteger", ConvertConvInteger},
      {"MaxPool", ConvertMaxPool},
      {"AveragePool", ConvertAveragePool},
      {"GlobalAveragePool", ConvertGlobalAveragePool},
      {"GlobalMaxPool", ConvertGlobalMaxPool},
      {"BatchNormalization", ConvertBatchNorm},
      {"InstanceNormalization", ConvertInstanceNorm},
      {"Softmax", ConvertSoftmax},
      {"LogSoftmax", ConvertLogSoftmax},
      {"Dropout", ConvertDropout},
      {"LayerNormalization", ConvertLayerNorm},
  };
}

}  // namespace carve::onnx_import
