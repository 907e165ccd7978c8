// Relations of the Arm Ethos-U NPU ops TVM v0.16 registers
// (src/relay/op/contrib/ethosu/): contrib.ethosu.conv2d, depthwise_conv2d,
// pooling, binary_elementwise, unary_elementwise and identity. Feature maps
// are NHWC or NHCWB16 (the NPU's brick format: (N, H, C/16, W, 16)); the
// dtype checks and messages follow TVM's (common.cc CheckDataType).
#include <algorithm>

#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

Dim AddD(Dim a, int64_t b) { return a.is_any() ? Dim::Any() : D(a.value + b); }
Dim MulD(Dim a, int64_t b) { return a.is_any() ? Dim::Any() : D(a.value * b); }

// The dtype sets TVM's relations allow, in the order its messages list them.
constexpr DataType kU8 = DataType::UInt(8), kI8 = DataType::Int(8), kI16 = DataType::Int(16),
                   kI32 = DataType::Int(32);
const std::initializer_list<DataType> kU8I8 = {kU8, kI8};
const std::initializer_list<DataType> kI8U8 = {kI8, kU8};
const std::initializer_list<DataType> kU8I8I16 = {kU8, kI8, kI16};
const std::initializer_list<DataType> kU8I8I16I32 = {kU8, kI8, kI16, kI32};
const std::initializer_list<DataType> kI8U8I16I32 = {kI8, kU8, kI16, kI32};

std::string DTypeList(std::initializer_list<DataType> allowed) {
  std::string out;
  for (DataType t : allowed) {
    if (!out.empty()) out += ", ";
    out += DTypeName(t);
  }
  return out;
}

// TVM's CheckDataType: "expected ethosu_conv2d to have type in {uint8, int8}
// for ifm but was float32".
absl::Status CheckDType(DataType actual, std::initializer_list<DataType> allowed,
                        std::string_view op, std::string_view tensor,
                        std::string_view op_type = "") {
  if (std::find(allowed.begin(), allowed.end(), actual) != allowed.end()) {
    return absl::OkStatus();
  }
  std::string prefix = op_type.empty() ? std::string(op) : fmt::format("{} {}", op, op_type);
  return Error("expected {} to have type in {{{}}} for {} but was {}", prefix, DTypeList(allowed),
               tensor, DTypeName(actual));
}

absl::Status CheckDTypeMatch(DataType a, DataType b, std::string_view op, std::string_view a_name,
                             std::string_view b_name, std::string_view op_type) {
  if (a == b) return absl::OkStatus();
  return Error("expected {} {} data types for {} and {} to match, but was {} and {}", op, op_type,
               a_name, b_name, DTypeName(a), DTypeName(b));
}

absl::Status CheckUpscale(std::string_view upscale, std::string_view op) {
  if (upscale == "NONE" || upscale == "ZEROS" || upscale == "NEAREST") return absl::OkStatus();
  return Error("expected {} to have upscale method in {{NONE, ZEROS, NEAREST}} but was {}", op,
               upscale);
}

absl::StatusOr<DataType> OfmDType(const AttrReader& attrs) {
  CARVE_ASSIGN_OR_RETURN(std::string_view text, attrs.String("ofm_dtype"));
  std::optional<DataType> dtype = DataType::Parse(text);
  if (!dtype) return Error("ofm_dtype '{}' is not a data type", text);
  return *dtype;
}

// A static channel count attribute (ofm_channels, ifm_channels): TVM reads
// it as an IntImm to size the NHCWB16 bricks.
absl::StatusOr<int64_t> Channels(const AttrReader& attrs, std::string_view name) {
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> v, attrs.OptInt(name));
  if (!v) return Error("attribute '{}' must be set", name);
  if (*v < 1) return Error("attribute '{}' must be positive, got {}", name, *v);
  return *v;
}

// The (N, H, W) of a feature map in `layout` (TVM indexes the dims without
// checking the rank; carve checks it so that a short shape is an error).
absl::StatusOr<std::vector<Dim>> NHW(const TensorType* ifm, std::string_view layout) {
  auto shape = ifm->shape();
  if (layout == "NHCWB16") {
    if (shape.size() < 4)
      return Error("ifm must be 5-d in layout NHCWB16, got {}", TypeToString(ifm));
    return std::vector<Dim>{shape[0], shape[1], shape[3]};
  }
  if (shape.size() < 3) return Error("ifm must be 4-d in layout NHWC, got {}", TypeToString(ifm));
  return std::vector<Dim>{shape[0], shape[1], shape[2]};
}

// (N, H, W, C) to the ofm layout: NHCWB16 holds C in bricks of 16.
Shape ToOfmLayout(Dim n, Dim h, Dim w, int64_t channels, std::string_view ofm_layout) {
  if (ofm_layout == "NHCWB16") return Shape{n, h, D(1 + (channels - 1) / 16), w, D(16)};
  return Shape{n, h, w, D(channels)};
}

// TVM's EthosuInferUpscaledInput: H and W doubled, as (N, H, W) here.
std::vector<Dim> Upscaled(std::vector<Dim> nhw) {
  return {nhw[0], MulD(nhw[1], 2), MulD(nhw[2], 2)};
}

// TVM's EthosuInferKernelOutput on (N, H, W) of the ifm.
absl::StatusOr<Shape> KernelOutput(const std::vector<Dim>& nhw, const AttrReader& attrs,
                                   std::string_view kernel_name, bool has_dilation,
                                   int64_t ofm_channels, std::string_view ofm_layout) {
  CARVE_ASSIGN_OR_RETURN(MaybeInts kernel, attrs.OptInts(kernel_name));
  if (!kernel) return Error("attribute '{}' must be set", kernel_name);
  CARVE_RETURN_IF_ERROR(ExpectCount(*kernel, 2, kernel_name, true));
  std::vector<int64_t> dilation = {1, 1};
  if (has_dilation) {
    CARVE_ASSIGN_OR_RETURN(dilation, attrs.Ints("dilation"));
    CARVE_RETURN_IF_ERROR(ExpectCount(dilation, 2, "dilation", true));
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, attrs.Ints("strides"));
  CARVE_RETURN_IF_ERROR(ExpectCount(strides, 2, "strides", true));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> padding, attrs.Ints("padding"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> pad, PaddingTotals(padding, 2));
  Dim out[2];
  for (int i = 0; i < 2; ++i) {
    Dim in = nhw[1 + i];
    if (in.is_any()) {
      out[i] = Dim::Any();
      continue;
    }
    int64_t dilated = 1 + ((*kernel)[i] - 1) * dilation[i];
    int64_t extent = FloorDiv(in.value + pad[i] - dilated, strides[i]) + 1;
    if (extent < 1) {
      return Error("the {} window ({}) does not fit the padded ifm ({})", kernel_name, dilated,
                   in.value + pad[i]);
    }
    out[i] = D(extent);
  }
  return ToOfmLayout(nhw[0], out[0], out[1], ofm_channels, ofm_layout);
}

// Shared by conv2d and depthwise_conv2d: the dtype checks on ifm / weight /
// scale_bias and the weight's shape (ofm_channels, kh, kw, weight.shape[3]).
absl::Status CheckConvInputs(const TypeRelCall& call, const AttrReader& attrs, std::string_view op,
                             int64_t ofm_channels) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* ifm, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* weight, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(const TensorType* scale_bias, TensorArg(call, 2));
  CARVE_RETURN_IF_ERROR(CheckDType(ifm->dtype(), kU8I8, op, "ifm"));
  CARVE_RETURN_IF_ERROR(
      CheckDType(weight->dtype(), kU8I8, op, "weight"));
  CARVE_RETURN_IF_ERROR(CheckDType(scale_bias->dtype(), {DataType::UInt(8)}, op, "scale bias"));
  if (weight->rank() != 4) return Error("weight must be 4-d (OHWI), got {}", TypeToString(weight));
  CARVE_ASSIGN_OR_RETURN(MaybeInts kernel, attrs.OptInts("kernel_shape"));
  if (!kernel) return Error("attribute 'kernel_shape' must be set");
  CARVE_RETURN_IF_ERROR(ExpectCount(*kernel, 2, "kernel_shape", true));
  Dim want[4] = {D(ofm_channels), D((*kernel)[0]), D((*kernel)[1]), weight->shape()[3]};
  CARVE_RETURN_IF_ERROR(ExpectType(weight, weight->dtype(), want, "weight"));
  // conv2d assigns scale_bias (weight.shape[0], 10) uint8; depthwise does not.
  return absl::OkStatus();
}

// The ofm shape of a windowed op: the ifm's (N, H, W) in ifm_layout (doubled
// when `upscale` is not NONE), through the window, in ofm_layout.
absl::StatusOr<Shape> WindowedOfm(const TensorType* ifm, const AttrReader& attrs,
                                  std::string_view kernel_name, bool has_dilation, int64_t channels,
                                  std::string_view upscale) {
  CARVE_ASSIGN_OR_RETURN(std::string_view ifm_layout, attrs.String("ifm_layout"));
  CARVE_ASSIGN_OR_RETURN(std::string_view ofm_layout, attrs.String("ofm_layout"));
  CARVE_ASSIGN_OR_RETURN(std::vector<Dim> nhw, NHW(ifm, ifm_layout));
  if (upscale != "NONE") nhw = Upscaled(nhw);
  return KernelOutput(nhw, attrs, kernel_name, has_dilation, channels, ofm_layout);
}

// TVM's EthosuInferElementwiseOutputShape: the ifm's (N, H, W) with
// `channels` channels, in ofm_layout.
absl::StatusOr<Shape> ElementwiseOfm(const TensorType* ifm, const AttrReader& attrs,
                                     std::string_view channels_name) {
  CARVE_ASSIGN_OR_RETURN(int64_t channels, Channels(attrs, channels_name));
  CARVE_ASSIGN_OR_RETURN(std::string_view ifm_layout, attrs.String("ifm_layout"));
  CARVE_ASSIGN_OR_RETURN(std::string_view ofm_layout, attrs.String("ofm_layout"));
  CARVE_ASSIGN_OR_RETURN(std::vector<Dim> nhw, NHW(ifm, ifm_layout));
  return ToOfmLayout(nhw[0], nhw[1], nhw[2], channels, ofm_layout);
}

}  // namespace

// contrib.ethosu.conv2d(ifm, weight OHWI, scale_bias (O, 10) uint8, lut).
absl::StatusOr<const Type*> EthosuConv2D(const TypeRelCall& call) {
  constexpr std::string_view kOp = "ethosu_conv2d";
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t channels, Channels(attrs, "ofm_channels"));
  CARVE_RETURN_IF_ERROR(CheckConvInputs(call, attrs, kOp, channels));
  CARVE_ASSIGN_OR_RETURN(const TensorType* ifm, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* weight, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(const TensorType* scale_bias, TensorArg(call, 2));
  CARVE_ASSIGN_OR_RETURN(std::string_view upscale, attrs.String("upscale"));
  CARVE_RETURN_IF_ERROR(CheckUpscale(upscale, kOp));
  Dim sb[2] = {weight->shape()[0], D(10)};
  CARVE_RETURN_IF_ERROR(ExpectType(scale_bias, DataType::UInt(8), sb, "scale_bias"));
  CARVE_ASSIGN_OR_RETURN(Shape out,
                         WindowedOfm(ifm, attrs, "kernel_shape", true, channels, upscale));
  return TensorTy(ifm->dtype(), out);
}

// contrib.ethosu.depthwise_conv2d: as conv2d, the ofm in `ofm_dtype`, and (as
// TVM) no upscaling of the ifm in the shape.
absl::StatusOr<const Type*> EthosuDepthwiseConv2D(const TypeRelCall& call) {
  constexpr std::string_view kOp = "ethosu_depthwise_conv2d";
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t channels, Channels(attrs, "ofm_channels"));
  CARVE_RETURN_IF_ERROR(CheckConvInputs(call, attrs, kOp, channels));
  CARVE_ASSIGN_OR_RETURN(DataType ofm_dtype, OfmDType(attrs));
  CARVE_RETURN_IF_ERROR(CheckDType(
      ofm_dtype, kU8I8I16I32, kOp,
      "ofm"));
  CARVE_ASSIGN_OR_RETURN(const TensorType* ifm, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(Shape out,
                         WindowedOfm(ifm, attrs, "kernel_shape", true, channels, "NONE"));
  return TensorTy(ofm_dtype, out);
}

// contrib.ethosu.pooling(ifm, lut): AVG / MAX keep the ifm's dtype, SUM
// gives int32.
absl::StatusOr<const Type*> EthosuPooling(const TypeRelCall& call) {
  constexpr std::string_view kOp = "ethosu_pooling";
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(const TensorType* ifm, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::string_view type, attrs.String("pooling_type"));
  bool sum = type == "SUM";
  if (type != "AVG" && type != "MAX" && !sum) {
    return Error("expected {} type 'AVG', 'MAX', or 'SUM' but was {}", kOp, type);
  }
  if (sum) {
    CARVE_RETURN_IF_ERROR(CheckDType(
        ifm->dtype(), kU8I8I16I32,
        kOp, "ifm", type));
  } else {
    CARVE_RETURN_IF_ERROR(CheckDType(
        ifm->dtype(), kU8I8I16, kOp, "ifm", type));
  }
  CARVE_ASSIGN_OR_RETURN(DataType ofm_dtype, OfmDType(attrs));
  if (sum) {
    CARVE_RETURN_IF_ERROR(CheckDType(ofm_dtype, {kI32}, kOp, "ofm", type));
  } else {
    CARVE_RETURN_IF_ERROR(CheckDType(
        ofm_dtype, {kI8, kU8, kI16}, kOp, "ofm", type));
    CARVE_RETURN_IF_ERROR(CheckDTypeMatch(ofm_dtype, ifm->dtype(), kOp, "ifm", "ofm", type));
  }
  CARVE_ASSIGN_OR_RETURN(std::string_view upscale, attrs.String("upscale"));
  CARVE_RETURN_IF_ERROR(CheckUpscale(upscale, kOp));
  CARVE_ASSIGN_OR_RETURN(int64_t channels, Channels(attrs, "ofm_channels"));
  CARVE_ASSIGN_OR_RETURN(Shape out,
                         WindowedOfm(ifm, attrs, "pool_shape", false, channels, upscale));
  return TensorTy(ofm_dtype, out);
}

// contrib.ethosu.binary_elementwise(ifm, ifm2, lut): the ifm's (N, H, W) with
// ifm_channels channels (TVM's EthosuInferElementwiseOutputShape), in
// `ofm_dtype`.
absl::StatusOr<const Type*> EthosuBinaryElementwise(const TypeRelCall& call) {
  constexpr std::string_view kOp = "ethosu_binary_elementwise";
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(const TensorType* ifm, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* ifm2, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(std::string_view type, attrs.String("operator_type"));
  CARVE_ASSIGN_OR_RETURN(DataType ofm_dtype, OfmDType(attrs));
  DataType in = ifm->dtype();
  CARVE_RETURN_IF_ERROR(CheckDTypeMatch(in, ifm2->dtype(), kOp, "ifm", "ifm2", type));
  if (type == "ADD" || type == "SUB" || type == "MUL") {
    CARVE_RETURN_IF_ERROR(CheckDType(in, kI8U8I16I32, kOp, "ifm", type));
    CARVE_RETURN_IF_ERROR(CheckDType(ofm_dtype, kI8U8I16I32, kOp, "ofm", type));
  } else if (type == "MIN" || type == "MAX") {
    CARVE_RETURN_IF_ERROR(CheckDType(in, kI8U8, kOp, "ifm", type));
    CARVE_RETURN_IF_ERROR(CheckDTypeMatch(in, ofm_dtype, kOp, "ifm", "ofm", type));
  } else if (type == "SHR") {
    CARVE_RETURN_IF_ERROR(CheckDType(in, {kI32}, kOp, "ifm", type));
    CARVE_RETURN_IF_ERROR(CheckDType(
        ofm_dtype, {kU8, kI8, kI32}, kOp, "ofm", type));
  } else if (type == "SHL") {
    CARVE_RETURN_IF_ERROR(CheckDType(in, {kI32}, kOp, "ifm", type));
    CARVE_RETURN_IF_ERROR(CheckDType(ofm_dtype, {kI32}, kOp, "ofm", type));
  } else {
    return Error(
        "expected {} 'ADD' or 'SUB' or 'MUL' or 'MIN' or 'MAX' or 'SHR' or 'SHL' for "
        "operator_type but was {}",
        kOp, type);
  }
  CARVE_ASSIGN_OR_RETURN(Shape out, ElementwiseOfm(ifm, attrs, "ifm_channels"));
  return TensorTy(ofm_dtype, out);
}

// contrib.ethosu.unary_elementwise(ifm, lut): ABS on 8-bit, CLZ on int32; the
// ifm's dtype, ofm_channels channels.
absl::StatusOr<const Type*> EthosuUnaryElementwise(const TypeRelCall& call) {
  constexpr std::string_view kOp = "ethosu_unary_elementwise";
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(const TensorType* ifm, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::string_view type, attrs.String("operator_type"));
  if (type != "ABS" && type != "CLZ") {
    return Error("expected {} 'ABS' or 'CLZ' for operator_type but was {}", kOp, type);
  }
  if (type == "CLZ") {
    CARVE_RETURN_IF_ERROR(CheckDType(ifm->dtype(), {kI32}, kOp, "ifm", type));
  } else {
    CARVE_RETURN_IF_ERROR(
        CheckDType(ifm->dtype(), kU8I8, kOp, "ifm", type));
  }
  CARVE_ASSIGN_OR_RETURN(Shape out, ElementwiseOfm(ifm, attrs, "ofm_channels"));
  return TensorTy(ifm->dtype(), out);
}

// contrib.ethosu.identity(ifm, lut): the ifm's type, at most 4-d.
absl::StatusOr<const Type*> EthosuIdentity(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* ifm, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(CheckDType(ifm->dtype(),
                                   kU8I8I16,
                                   "ethosu_identity", "ifm"));
  if (ifm->rank() > 4) {
    return Error("Input Feature Map should be at most 4 dimensional, but was {}",
                 TypeToString(ifm));
  }
  return ifm;
}

}  // namespace carve::rel
