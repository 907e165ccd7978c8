// Quantized ops onto the registry's qnn ops, as TVM v0.16's onnx.py:
// QLinearConv (qnn.conv2d + requantize), QLinearMatMul (qnn.dense /
// qnn.batch_matmul + requantize) and DynamicQuantizeLinear (the scale and
// zero point computed with min / max, then qnn.quantize). A y_scale not
// constant at import goes through dequantize + quantize, as TVM does
// (requantize wants a constant output scale).
#include "fmt/format.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {

namespace {

absl::StatusOr<Outputs> One(absl::StatusOr<TValue> v) {
  if (!v.ok()) return v.status();
  return Outputs{*std::move(v)};
}

// TVM's get_scalar: input `i` as a scalar of `dtype` (a 1-element vector
// squeezed).
absl::StatusOr<TValue> QScalar(NodeCall& c, size_t i, DataType dtype) {
  if (!c.HasInput(i)) return absl::InvalidArgumentError(fmt::format("input {} is missing", i));
  TValue x = c.In(i);
  if (x.rank() > 1 || (x.rank() == 1 && x.shape()[0] != 1)) {
    return absl::InvalidArgumentError(
        fmt::format("input {} ('{}') must be a scalar", i, c.node.input(int(i))));
  }
  if (x.rank() == 1) {
    CARVE_ASSIGN_OR_RETURN(x, c.Op("squeeze", {x}, {{"axis", IntsAttr(std::vector<int64_t>{0})}}));
  }
  return c.ctx.CastTo(x, dtype);
}

// TVM's get_scalar_or_1d_tensor.
absl::StatusOr<TValue> QScalarOrVector(NodeCall& c, size_t i, DataType dtype) {
  TValue x = c.In(i);
  if (x.rank() > 1) {
    return absl::InvalidArgumentError(
        fmt::format("input {} ('{}') must be a scalar or a vector", i, c.node.input(int(i))));
  }
  return c.ctx.CastTo(x, dtype);
}

const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);

// `acc` (int32, scale acc_scale, zero point 0) to y_scale / y_zero_point
// in y_zero_point's dtype.
absl::StatusOr<TValue> Requantize(NodeCall& c, const TValue& acc, const TValue& acc_scale,
                                  size_t y_scale_in, size_t y_zp_in, int64_t axis,
                                  std::optional<std::string_view> rounding) {
  CARVE_ASSIGN_OR_RETURN(TValue y_scale, QScalar(c, y_scale_in, kF32));
  CARVE_ASSIGN_OR_RETURN(TValue y_zp, QScalar(c, y_zp_in, kI32));
  std::string out_dtype = c.In(y_zp_in).dtype().ToString();
  TValue zero = c.ctx.Scalar(kI32, 0);
  if (y_scale.constant) {
    AttrList attrs = {{"axis", IntAttr(axis)}, {"out_dtype", StrAttr(out_dtype)}};
    if (rounding) attrs.push_back({"rounding", StrAttr(*rounding)});
    return c.Op("qnn.requantize", {acc, acc_scale, zero, y_scale, y_zp}, attrs);
  }
  int64_t deq_axis = axis < 0 ? 0 : axis;
  CARVE_ASSIGN_OR_RETURN(TValue deq, c.Op("qnn.dequantize", {acc, acc_scale, zero},
                                          {{"axis", IntAttr(deq_axis)},
                                           {"out_dtype", StrAttr("float32")}}));
  return c.Op("qnn.quantize", {deq, y_scale, y_zp},
              {{"axis", IntAttr(deq_axis)}, {"out_dtype", StrAttr(out_dtype)}});
}

absl::StatusOr<Outputs> ConvertQLinearConv(NodeCall& c) {
  const TValue& data = c.In(0);
  const TValue& weight = c.In(3);
  if (data.rank() != 4 || weight.rank() != 4) {
    return c.Unsupported(fmt::format("a {}-D QLinearConv (TVM converts 2-D ones only)",
                                     data.rank() - 2));
  }
  CARVE_ASSIGN_OR_RETURN(TValue x_scale, QScalar(c, 1, kF32));
  CARVE_ASSIGN_OR_RETURN(TValue x_zp, QScalar(c, 2, kI32));
  CARVE_ASSIGN_OR_RETURN(TValue w_scale, QScalarOrVector(c, 4, kF32));
  CARVE_ASSIGN_OR_RETURN(TValue w_zp, QScalarOrVector(c, 5, kI32));
  std::vector<int64_t> wshape = weight.shape();
  for (const TValue* v : {&w_scale, &w_zp}) {
    if (v->rank() == 1 && v->shape()[0] != wshape[0]) {
      return absl::InvalidArgumentError(
          "w_scale and w_zero_point must have one value per output channel");
    }
  }
  std::vector<int64_t> kernel(wshape.begin() + 2, wshape.end());
  if (auto k = c.attrs.Ints("kernel_shape")) kernel = *k;
  std::vector<int64_t> strides = c.attrs.Ints("strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> dilation = c.attrs.Ints("dilations").value_or(std::vector<int64_t>{1, 1});
  // qnn.conv2d pads with the input zero point, as ONNX's QLinearConv does.
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ConvPads(c, data, kernel, strides, dilation));
  CARVE_ASSIGN_OR_RETURN(
      TValue out, c.Op("qnn.conv2d", {data, weight, x_zp, w_zp, x_scale, w_scale},
                       {{"strides", IntsAttr(strides)},
                        {"padding", IntsAttr(pads)},
                        {"dilation", IntsAttr(dilation)},
                        {"groups", IntAttr(c.attrs.Int("group", 1))},
                        {"channels", IntAttr(wshape[0])},
                        {"kernel_size", IntsAttr(kernel)},
                        {"out_dtype", StrAttr("int32")}}));
  if (c.HasInput(8)) {
    CARVE_ASSIGN_OR_RETURN(out, c.Op("nn.bias_add", {out, c.In(8)}));
  }
  CARVE_ASSIGN_OR_RETURN(TValue acc_scale, c.Op("multiply", {x_scale, w_scale}));
  return One(Requantize(c, out, acc_scale, 6, 7, 1, std::nullopt));
}

// QLinearMatMul: qnn.dense when B is 2-D (A flattened to 2-D around it),
// qnn.batch_matmul of 3-D operands with equal batches otherwise.
absl::StatusOr<Outputs> ConvertQLinearMatMul(NodeCall& c) {
  TValue a = c.In(0), b = c.In(3);
  CARVE_ASSIGN_OR_RETURN(TValue a_scale, QScalar(c, 1, kF32));
  CARVE_ASSIGN_OR_RETURN(TValue a_zp, QScalar(c, 2, kI32));
  CARVE_ASSIGN_OR_RETURN(TValue b_scale, QScalar(c, 4, kF32));
  CARVE_ASSIGN_OR_RETURN(TValue b_zp, QScalar(c, 5, kI32));
  std::vector<int64_t> as = a.shape(), bs = b.shape();
  for (int64_t d : as) {
    if (d < 0) return c.NeedsStaticShape("a QLinearMatMul of a dynamic shape");
  }
  for (int64_t d : bs) {
    if (d < 0) return c.NeedsStaticShape("a QLinearMatMul of a dynamic shape");
  }
  if (as.size() < 2 || bs.size() < 2) return c.Unsupported("a QLinearMatMul of a vector");
  int64_t n = bs.back();
  TValue acc;
  if (bs.size() == 2) {
    std::vector<int64_t> out_shape(as.begin(), as.end() - 1);
    out_shape.push_back(n);
    CARVE_ASSIGN_OR_RETURN(TValue a2, c.Op("reshape", {a}, {{"newshape", IntsAttr(std::vector<int64_t>{-1, as.back()})}}));
    CARVE_ASSIGN_OR_RETURN(TValue bt, c.Op("transpose", {b}, {{"axes", IntsAttr(std::vector<int64_t>{1, 0})}}));
    CARVE_ASSIGN_OR_RETURN(acc, c.Op("qnn.dense", {a2, bt, a_zp, b_zp, a_scale, b_scale},
                                     {{"units", IntAttr(n)}, {"out_dtype", StrAttr("int32")}}));
    if (as.size() != 2) {
      CARVE_ASSIGN_OR_RETURN(acc, c.Op("reshape", {acc}, {{"newshape", IntsAttr(out_shape)}}));
    }
  } else {
    if (as.size() != bs.size() ||
        !std::equal(as.begin(), as.end() - 2, bs.begin(), bs.end() - 2)) {
      return c.Unsupported("a QLinearMatMul whose batch dimensions broadcast");
    }
    int64_t batch = 1;
    for (size_t i = 0; i + 2 < as.size(); ++i) batch *= as[i];
    std::vector<int64_t> out_shape(as.begin(), as.end() - 1);
    out_shape.push_back(n);
    std::vector<int64_t> a3 = {batch, as[as.size() - 2], as.back()};
    std::vector<int64_t> b3 = {batch, bs[bs.size() - 2], n};
    CARVE_ASSIGN_OR_RETURN(a, c.Op("reshape", {a}, {{"newshape", IntsAttr(a3)}}));
    CARVE_ASSIGN_OR_RETURN(b, c.Op("reshape", {b}, {{"newshape", IntsAttr(b3)}}));
    CARVE_ASSIGN_OR_RETURN(TValue bt, c.Op("transpose", {b}, {{"axes", IntsAttr(std::vector<int64_t>{0, 2, 1})}}));
    CARVE_ASSIGN_OR_RETURN(acc, c.Op("qnn.batch_matmul", {a, bt, a_zp, b_zp, a_scale, b_scale},
                                     {{"out_dtype", StrAttr("int32")}, {"transpose_b", BoolAttr(true)}}));
    CARVE_ASSIGN_OR_RETURN(acc, c.Op("reshape", {acc}, {{"newshape", IntsAttr(out_shape)}}));
  }
  CARVE_ASSIGN_OR_RETURN(TValue acc_scale, c.Op("multiply", {a_scale, b_scale}));
  return One(Requantize(c, acc, acc_scale, 6, 7, -1, "TONEAREST"));
}

// DynamicQuantizeLinear (uint8): scale = (max(0, max x) - min(0, min x)) /
// 255, zero point = round(clip(-min x / scale, 0, 255)), as TVM.
absl::StatusOr<Outputs> ConvertDynamicQuantizeLinear(NodeCall& c) {
  const TValue& x = c.In(0);
  if (x.dtype() != kF32) return c.Unsupported("an input that is not float32");
  TValue zero = c.ctx.Scalar(kF32, 0);
  CARVE_ASSIGN_OR_RETURN(TValue mx, c.Op("max", {x}));
  CARVE_ASSIGN_OR_RETURN(TValue mn, c.Op("min", {x}));
  CARVE_ASSIGN_OR_RETURN(TValue hi, c.Op("maximum", {zero, mx}));
  CARVE_ASSIGN_OR_RETURN(TValue lo, c.Op("minimum", {zero, mn}));
  CARVE_ASSIGN_OR_RETURN(TValue range, c.Op("subtract", {hi, lo}));
  CARVE_ASSIGN_OR_RETURN(TValue scale, c.Op("divide", {range, c.ctx.Scalar(kF32, 255)}));
  CARVE_ASSIGN_OR_RETURN(TValue q, c.Op("divide", {mn, scale}));
  CARVE_ASSIGN_OR_RETURN(TValue zp, c.Op("subtract", {zero, q}));
  CARVE_ASSIGN_OR_RETURN(zp, c.Op("clip", {zp}, {{"a_min", FloatAttr(0)}, {"a_max", FloatAttr(255)}}));
  CARVE_ASSIGN_OR_RETURN(zp, c.Op("round", {zp}));
  CARVE_ASSIGN_OR_RETURN(zp, c.ctx.CastTo(zp, DataType::UInt(8)));
  CARVE_ASSIGN_OR_RETURN(TValue zp32, c.ctx.CastTo(zp, kI32));
  CARVE_ASSIGN_OR_RETURN(TValue y, c.Op("qnn.quantize", {x, scale, zp32},
                                        {{"axis", IntAttr(0)}, {"out_dtype", StrAttr("uint8")}}));
  return Outputs{y, scale, zp};
}

}  // namespace

std::vector<ConverterEntry> QuantConverters() {
  return {{"QLinearConv", ConvertQLinearConv},
          {"QLinearMatMul", ConvertQLinearMatMul},
          {"DynamicQuantizeLinear", ConvertDynamicQuantizeLinear}};
}

}  // namespace carve::onnx_import
