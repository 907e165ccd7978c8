// nn.conv1d / nn.conv2d / nn.conv3d (TVM's Conv{1,2,3}DRel).
//
// Data, weight and output are read in their canonical layouts (NCHW, OIHW,
// ...) through ir/layout, so every convertible layout (NHWC, HWIO, OHWI,
// NCHW16c, ...) is handled by the same code. TVM "assigns" the weight type
// when both channels and kernel_size are set; carve, which sees resolved
// argument types, checks the weight against that type instead.
#include <string>

#include "ir/rel_conv_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

struct ConvKind {
  int spatial;
  std::string_view data_canon;            // NCW / NCHW / NCDHW
  std::string_view kernel_canon;          // OIW / OIHW / OIDHW
  std::string_view grouped_kernel_canon;  // GOIHW for conv2d, "" otherwise
  // TVM's Conv2DRel and Conv3DRel (not Conv1DRel) assign a depthwise
  // weight (C, channels // C, k...) when groups == C == weight O.
  bool has_depthwise_rule;
  bool padding_exact;                     // conv1d reads padding[0] + padding[1]
  // conv1d quirk: with channels/kernel_size unset, TVM checks the input
  // channels against weight.I without dividing by groups.
  bool input_check_ignores_groups;
};

constexpr ConvKind kConv1D{1, "NCW", "OIW", "", false, true, true};
constexpr ConvKind kConv2D{2, "NCHW", "OIHW", "GOIHW", true, false, false};
constexpr ConvKind kConv3D{3, "NCDHW", "OIDHW", "", true, false, false};

// The weight in OIHW terms. A grouped GOIHW weight (G, O/G, I/G, kh, kw)
// reads as O = G * O/G.
struct WeightView {
  Dim groups;  // G of a grouped weight; unset otherwise
  Dim out_channels;
  Dim in_channels;
  Shape kernel;
};

absl::StatusOr<WeightView> ViewWeight(const Shape& w, bool grouped) {
  WeightView view;
  size_t k0 = grouped ? 3 : 2;
  if (grouped) {
    view.out_channels = Dim::Any();
    if (!w[0].is_any() && !w[1].is_any()) {
      CARVE_ASSIGN_OR_RETURN(int64_t product, CheckedMul(w[0].value, w[1].value));
      view.out_channels = Computed(product, {w[0], w[1]});
    }
    view.in_channels = w[2];
    view.groups = w[0];
  } else {
    view.out_channels = w[0];
    view.in_channels = w[1];
  }
  view.kernel.assign(w.begin() + k0, w.end());
  return view;
}

absl::Status CheckInputChannels(const ConvParams& p, Dim c, Dim weight_in, bool ignore_groups) {
  if (c.is_any() || weight_in.is_any()) return absl::OkStatus();
  int64_t groups = ignore_groups ? 1 : p.groups;
  if (FloorDiv(c.value, groups) == weight_in.value) return absl::OkStatus();
  if (groups == 1) {
    return Error("input channels {} do not match weight input channels {}", c.value,
                 weight_in.value);
  }
  return Error("input channels {} / groups {} = {} do not match weight input channels {}", c.value,
               groups, FloorDiv(c.value, groups), weight_in.value);
}

// Checks the weight against the attrs and the input channels `c`; returns
// the output channel count.
absl::StatusOr<Dim> CheckWeight(const ConvParams& p, const ConvKind& kind, Dim c,
                                const WeightView& w, bool grouped) {
  CARVE_RETURN_IF_ERROR(CheckKernelSize(p, w.kernel));
  bool assign = p.channels && p.kernel_size;
  // A G-layout weight takes TVM's grouped rule before the depthwise one.
  bool depthwise = kind.has_depthwise_rule && !grouped && p.groups > 1 && DimIs(c, p.groups) &&
                   DimIs(w.out_channels, p.groups);
  if (assign && depthwise) {
    // TVM's depthwise weight is (C, channels // C, k...) in OIHW terms: a
    // channel multiplier channels // C > 1 is read from the weight's I.
    int64_t multiplier = FloorDiv(*p.channels, c.value);
    if (!DimMatches(w.in_channels, D(multiplier))) {
      return Error("depthwise weight input channels {} do not match channels {} / groups {}",
                   w.in_channels.value, *p.channels, p.groups);
    }
    return D(*p.channels);
  }
  // TVM assigns a grouped weight (G, channels / G, ...): the split of
  // channels between G and O / G matters, not only their product.
  if (assign && grouped && !DimMatches(w.groups, D(p.groups))) {
    return Error("grouped weight groups {} do not match groups {}", w.groups.value, p.groups);
  }
  if (p.channels && !DimMatches(w.out_channels, D(*p.channels))) {
    return Error("channels {} does not match weight output channels {}", *p.channels,
                 w.out_channels.value);
  }
  bool ignore_groups = kind.input_check_ignores_groups && !assign;
  CARVE_RETURN_IF_ERROR(CheckInputChannels(p, c, w.in_channels, ignore_groups));
  return assign ? D(*p.channels) : w.out_channels;
}

absl::StatusOr<const Type*> ConvRel(const TypeRelCall& call, const ConvKind& kind) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* weight, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(
      ConvParams p, ReadConvParams(call, kind.spatial, /*transposed=*/false, kind.padding_exact));
  bool grouped = !kind.grouped_kernel_canon.empty() && p.groups > 1 &&
                 p.kernel_layout.find('G') != std::string_view::npos;
  std::string_view kernel_canon = grouped ? kind.grouped_kernel_canon : kind.kernel_canon;
  CARVE_ASSIGN_OR_RETURN(auto in_bij, LayoutTo(p.data_layout, kind.data_canon, "data_layout"));
  CARVE_ASSIGN_OR_RETURN(auto k_bij, LayoutTo(p.kernel_layout, kernel_canon, "kernel_layout"));
  CARVE_ASSIGN_OR_RETURN(auto out_bij, LayoutTo(p.out_layout, kind.data_canon, "out_layout"));
  CARVE_ASSIGN_OR_RETURN(Shape dshape, ToCanonical(data, in_bij, "input"));
  CARVE_ASSIGN_OR_RETURN(Shape wshape, ToCanonical(weight, k_bij, "weight"));
  CARVE_ASSIGN_OR_RETURN(WeightView w, ViewWeight(wshape, grouped));
  CARVE_ASSIGN_OR_RETURN(Dim out_channels, CheckWeight(p, kind, dshape[1], w, grouped));
  Shape out = {dshape[0], out_channels};
  for (int i = 0; i < kind.spatial; ++i) {
    Dim k = p.kernel_size ? D((*p.kernel_size)[i]) : w.kernel[i];
    CARVE_ASSIGN_OR_RETURN(Dim d, ConvOutputDim(p, i, dshape[2 + i], k));
    out.push_back(d);
  }
  CARVE_ASSIGN_OR_RETURN(Shape result, out_bij.BackwardShape(out));
  return TensorTy(p.out_dtype.is_void() ? data->dtype() : p.out_dtype, result);
}

}  // namespace

// TVM's Conv2DWinogradRel (convolution.h), which nn.contrib_conv2d_NCHWc and
// nn.contrib_conv2d_winograd_without_weight_transform share: the weight is
// in a form a schedule chose (packed, transformed), so its shape is not
// read; channels and kernel_size must be set, and the output is (N,
// channels, H', W') in NCHW terms, written back in out_layout (a blocked
// NCHW16c output has channels / 16 outer channels).
absl::StatusOr<const Type*> Conv2DWinograd(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(ConvParams p,
                         ReadConvParams(call, 2, /*transposed=*/false, /*padding_exact=*/false));
  CARVE_ASSIGN_OR_RETURN(auto in_bij, LayoutTo(p.data_layout, "NCHW", "data_layout"));
  CARVE_RETURN_IF_ERROR(LayoutTo(p.kernel_layout, "OIHW", "kernel_layout").status());
  CARVE_ASSIGN_OR_RETURN(auto out_bij, LayoutTo(p.out_layout, "NCHW", "out_layout"));
  if (!p.channels || !p.kernel_size) {
    return Error("channels and kernel_size must be set (the weight's shape is not read)");
  }
  CARVE_ASSIGN_OR_RETURN(Shape dshape, ToCanonical(data, in_bij, "input"));
  Shape out = {dshape[0], D(*p.channels)};
  for (int i = 0; i < 2; ++i) {
    CARVE_ASSIGN_OR_RETURN(Dim d, ConvOutputDim(p, i, dshape[2 + i], D((*p.kernel_size)[i])));
    out.push_back(d);
  }
  CARVE_ASSIGN_OR_RETURN(Shape result, out_bij.BackwardShape(out));
  return TensorTy(p.out_dtype.is_void() ? data->dtype() : p.out_dtype, result);
}

absl::StatusOr<const Type*> Conv1D(const TypeRelCall& call) { return ConvRel(call, kConv1D); }
absl::StatusOr<const Type*> Conv2D(const TypeRelCall& call) { return ConvRel(call, kConv2D); }
absl::StatusOr<const Type*> Conv3D(const TypeRelCall& call) { return ConvRel(call, kConv3D); }

}  // namespace carve::rel
