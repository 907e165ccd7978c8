#include "ir/rel_conv_common.h"

namespace carve::rel {

absl::StatusOr<ConvParams> ReadConvParams(const TypeRelCall& call, int spatial, bool transposed,
                                          bool padding_exact) {
  AttrReader attrs(call);
  ConvParams p;
  p.spatial = spatial;
  CARVE_ASSIGN_OR_RETURN(p.strides, attrs.Ints("strides"));
  CARVE_RETURN_IF_ERROR(ExpectCount(p.strides, spatial, "strides", /*positive=*/true));
  CARVE_ASSIGN_OR_RETURN(p.dilation, attrs.Ints("dilation"));
  CARVE_RETURN_IF_ERROR(ExpectCount(p.dilation, spatial, "dilation", /*positive=*/true));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> padding, attrs.Ints("padding"));
  if (padding_exact) CARVE_RETURN_IF_ERROR(ExpectCount(padding, 2 * spatial, "padding", false));
  CARVE_ASSIGN_OR_RETURN(p.pad_totals, PaddingTotals(padding, spatial));
  if (transposed) {
    CARVE_ASSIGN_OR_RETURN(p.output_padding, attrs.Ints("output_padding"));
    CARVE_RETURN_IF_ERROR(ExpectCount(p.output_padding, spatial, "output_padding", false));
  }
  CARVE_ASSIGN_OR_RETURN(p.groups, attrs.Int("groups"));
  if (p.groups < 1) return Error("groups must be positive, got {}", p.groups);
  CARVE_ASSIGN_OR_RETURN(p.channels, attrs.OptInt("channels"));
  if (p.channels && *p.channels < 1) return Error("channels must be positive, got {}", *p.channels);
  CARVE_ASSIGN_OR_RETURN(p.kernel_size, attrs.OptInts("kernel_size"));
  if (p.kernel_size) {
    CARVE_RETURN_IF_ERROR(ExpectCount(*p.kernel_size, spatial, "kernel_size", true));
  }
  CARVE_ASSIGN_OR_RETURN(p.data_layout, attrs.String("data_layout"));
  CARVE_ASSIGN_OR_RETURN(p.kernel_layout, attrs.String("kernel_layout"));
  CARVE_ASSIGN_OR_RETURN(p.out_layout, attrs.String("out_layout"));
  if (p.out_layout.empty()) p.out_layout = p.data_layout;
  CARVE_ASSIGN_OR_RETURN(p.out_dtype, attrs.DType("out_dtype"));
  return p;
}

std::string_view SpatialAxisName(int spatial, int i) {
  static constexpr std::string_view kNames[] = {"depth", "height", "width"};
  return kNames[3 - spatial + i];
}

absl::StatusOr<Dim> ConvOutputDim(const ConvParams& p, int i, Dim in, Dim kernel) {
  if (in.is_any() || kernel.is_any()) return Dim::Any();
  CARVE_ASSIGN_OR_RETURN(int64_t dilated, CheckedMul(kernel.value - 1, p.dilation[i]));
  CARVE_ASSIGN_OR_RETURN(dilated, CheckedAdd(dilated, 1));
  CARVE_ASSIGN_OR_RETURN(int64_t padded, CheckedAdd(in.value, p.pad_totals[i]));
  if (padded < dilated) {
    return Error("padded input {} {} is smaller than the dilated kernel {}",
                 SpatialAxisName(p.spatial, i), padded, dilated);
  }
  return Computed(FloorDiv(padded - dilated, p.strides[i]) + 1, {in, kernel});  // strides >= 1
}

absl::StatusOr<Dim> ConvTransposeOutputDim(const ConvParams& p, int i, Dim in, Dim kernel) {
  if (in.is_any() || kernel.is_any()) return Dim::Any();
  CARVE_ASSIGN_OR_RETURN(int64_t dilated, CheckedMul(kernel.value - 1, p.dilation[i]));
  CARVE_ASSIGN_OR_RETURN(dilated, CheckedAdd(dilated, 1));
  CARVE_ASSIGN_OR_RETURN(int64_t out, CheckedMul(in.value - 1, p.strides[i]));
  CARVE_ASSIGN_OR_RETURN(out, CheckedAdd(out, dilated));
  CARVE_ASSIGN_OR_RETURN(out, CheckedSub(out, p.pad_totals[i]));
  CARVE_ASSIGN_OR_RETURN(out, CheckedAdd(out, p.output_padding[i]));
  if (out < 1) {
    return Error("output {} {} is not positive (input {}, padding {})",
                 SpatialAxisName(p.spatial, i), out, in.value, p.pad_totals[i]);
  }
  return Computed(out, {in, kernel});
}

absl::Status CheckKernelSize(const ConvParams& p, std::span<const Dim> kernel) {
  if (!p.kernel_size) return absl::OkStatus();
  for (size_t i = 0; i < kernel.size(); ++i) {
    if (!DimMatches(kernel[i], D((*p.kernel_size)[i]))) {
      return Error("kernel_size {} does not match the weight's kernel {}",
                   IntsToString(*p.kernel_size), ShapeToString(kernel));
    }
  }
  return absl::OkStatus();
}

}  // namespace carve::rel
