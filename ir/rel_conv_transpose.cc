// nn.conv1d_transpose / nn.conv2d_transpose / nn.conv3d_transpose (TVM's
// Conv{1,2,3}DTransposeRel). Weights are read in IOHW terms.
#include "ir/rel_conv_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

struct ConvTransposeKind {
  int spatial;
  std::string_view data_canon;            // NCW / NCHW / NCDHW
  std::string_view kernel_canon;          // IOW / IOHW / IODHW
  std::string_view grouped_kernel_canon;  // GIOHW for 2-d, "" otherwise
};

// TVM v0.16's three relations check the weight alike: channels // groups ==
// weight.O and C == weight.I (groups do not divide the input channels).
constexpr ConvTransposeKind kConv1DT{1, "NCW", "IOW", ""};
constexpr ConvTransposeKind kConv2DT{2, "NCHW", "IOHW", "GIOHW"};
constexpr ConvTransposeKind kConv3DT{3, "NCDHW", "IODHW", ""};

// The weight in IOHW terms; a grouped GIOHW weight (G, I/G, O/G, kh, kw)
// reads as I = G * I/G, O = O/G (as TVM does).
struct TransposeWeight {
  Dim in_channels;
  Dim out_channels;
  Shape kernel;
};

absl::StatusOr<TransposeWeight> ViewWeight(const Shape& w, bool grouped) {
  TransposeWeight view;
  size_t k0 = grouped ? 3 : 2;
  if (grouped) {
    view.in_channels = Dim::Any();
    if (!w[0].is_any() && !w[1].is_any()) {
      CARVE_ASSIGN_OR_RETURN(int64_t product, CheckedMul(w[0].value, w[1].value));
      view.in_channels = Computed(product, {w[0], w[1]});
    }
    view.out_channels = w[2];
  } else {
    view.in_channels = w[0];
    view.out_channels = w[1];
  }
  view.kernel.assign(w.begin() + k0, w.end());
  return view;
}

// Checks the weight against the attrs and the input channels `c`; returns
// the output channel count (channels when set with kernel_size, else the
// weight's O, not multiplied by groups, as in TVM).
absl::StatusOr<Dim> CheckWeight(const ConvParams& p, Dim c, const TransposeWeight& w) {
  CARVE_RETURN_IF_ERROR(CheckKernelSize(p, w.kernel));
  bool assign = p.channels && p.kernel_size;
  if (p.channels) {
    // The assigned weight is (C, channels // groups, k...) for every rank.
    int64_t want = FloorDiv(*p.channels, p.groups);
    if (!DimMatches(w.out_channels, D(want))) {
      return Error("weight output channels {} do not match channels {} / groups {}",
                   w.out_channels.value, *p.channels, p.groups);
    }
  }
  if (!c.is_any() && !w.in_channels.is_any()) {
    if (c.value != w.in_channels.value) {
      return Error("input channels {} do not match weight input channels {} (groups {})", c.value,
                   w.in_channels.value, p.groups);
    }
  }
  return assign ? D(*p.channels) : w.out_channels;
}

absl::StatusOr<const Type*> ConvTransposeRel(const TypeRelCall& call,
                                             const ConvTransposeKind& kind) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* weight, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(ConvParams p, ReadConvParams(call, kind.spatial, /*transposed=*/true,
                                                      /*padding_exact=*/false));
  bool grouped = !kind.grouped_kernel_canon.empty() && p.groups > 1 &&
                 p.kernel_layout.find('G') != std::string_view::npos;
  std::string_view kernel_canon = grouped ? kind.grouped_kernel_canon : kind.kernel_canon;
  CARVE_ASSIGN_OR_RETURN(auto in_bij, LayoutTo(p.data_layout, kind.data_canon, "data_layout"));
  CARVE_ASSIGN_OR_RETURN(auto k_bij, LayoutTo(p.kernel_layout, kernel_canon, "kernel_layout"));
  CARVE_ASSIGN_OR_RETURN(auto out_bij, LayoutTo(p.out_layout, kind.data_canon, "out_layout"));
  CARVE_ASSIGN_OR_RETURN(Shape dshape, ToCanonical(data, in_bij, "input"));
  CARVE_ASSIGN_OR_RETURN(Shape wshape, ToCanonical(weight, k_bij, "weight"));
  CARVE_ASSIGN_OR_RETURN(TransposeWeight w, ViewWeight(wshape, grouped));
  CARVE_ASSIGN_OR_RETURN(Dim out_channels, CheckWeight(p, dshape[1], w));
  Shape out = {dshape[0], out_channels};
  for (int i = 0; i < kind.spatial; ++i) {
    Dim k = p.kernel_size ? D((*p.kernel_size)[i]) : w.kernel[i];
    CARVE_ASSIGN_OR_RETURN(Dim d, ConvTransposeOutputDim(p, i, dshape[2 + i], k));
    out.push_back(d);
  }
  CARVE_ASSIGN_OR_RETURN(Shape result, out_bij.BackwardShape(out));
  return TensorTy(p.out_dtype.is_void() ? data->dtype() : p.out_dtype, result);
}

}  // namespace

absl::StatusOr<const Type*> Conv1DTranspose(const TypeRelCall& call) {
  return ConvTransposeRel(call, kConv1DT);
}
absl::StatusOr<const Type*> Conv2DTranspose(const TypeRelCall& call) {
  return ConvTransposeRel(call, kConv2DT);
}
absl::StatusOr<const Type*> Conv3DTranspose(const TypeRelCall& call) {
  return ConvTransposeRel(call, kConv3DT);
}

}  // namespace carve::rel
