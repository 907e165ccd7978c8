// What the convolution relations (ir/rel_conv.cc, ir/rel_conv_transpose.cc)
// share: the Conv*Attrs fields read and checked once, and the spatial
// output-extent rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/rel_common.h"

namespace carve::rel {

// The fields of Conv{1,2,3}DAttrs / Conv{1,2,3}DTransposeAttrs, checked:
// strides and dilation have `spatial` positive entries, kernel_size (when
// set) too, groups >= 1, channels (when set) > 0.
struct ConvParams {
  int spatial = 2;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilation;
  std::vector<int64_t> pad_totals;      // before + after, per spatial axis
  std::vector<int64_t> output_padding;  // transposed convolutions only
  int64_t groups = 1;
  std::optional<int64_t> channels;
  MaybeInts kernel_size;
  std::string_view data_layout;
  std::string_view kernel_layout;
  std::string_view out_layout;  // "" = data_layout
  DataType out_dtype;           // void = the data dtype
};

// Reads and checks the attrs of a (transposed) convolution with `spatial`
// spatial axes. `padding_exact` demands exactly 2*spatial padding values
// (conv1d, whose relation reads padding[0] + padding[1]).
absl::StatusOr<ConvParams> ReadConvParams(const TypeRelCall& call, int spatial, bool transposed,
                                          bool padding_exact);

// "height" / "width" / "depth" names of spatial axis `i` of `spatial`.
std::string_view SpatialAxisName(int spatial, int i);

// A convolution's output extent on spatial axis `i`:
// (in + pad - ((k - 1) * dilation + 1)) floordiv stride + 1; `?` in, `?` out.
absl::StatusOr<Dim> ConvOutputDim(const ConvParams& p, int i, Dim in, Dim kernel);
// A transposed convolution's output extent on spatial axis `i`:
// (in - 1) * stride + ((k - 1) * dilation + 1) - pad + output_padding.
absl::StatusOr<Dim> ConvTransposeOutputDim(const ConvParams& p, int i, Dim in, Dim kernel);

// "kernel_size [3, 3] does not match the weight's kernel (5, 5)" unless
// `kernel` (the weight's spatial dims) matches p.kernel_size.
absl::Status CheckKernelSize(const ConvParams& p, std::span<const Dim> kernel);

}  // namespace carve::rel
