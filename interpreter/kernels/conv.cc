// Kernels for nn.conv1d/2d/3d and nn.conv1d/2d/3d_transpose (ops.md §7).
// Any data/kernel/out layout that is a permutation of the canonical letters
// works (NCHW, NHWC, OIHW, HWIO, OHWI, HWOI, ...), and so do conv2d's and
// conv2d_transpose's grouped G-layouts (GOIHW / GIOHW, what dnnl's
// legalize_group_conv produces) when groups > 1. Split layouts (NCHW16c data,
// OIHW16i16o kernels: TVM's x86 conv2d_NCHWc) run through their primal
// layouts, moved there and back by the layout_transform kernel. A depthwise
// convolution also takes TVM's channel-multiplier weight (C, M, k...) in any
// kernel layout (HWOI for NHWC).

#include "interpreter/kernels/conv.h"

#include <array>
#include <memory>
#include <string>

#include "interpreter/kernels/alloc_uninitialized.h"
#include "interpreter/kernels/conv_engine.h"
#include "interpreter/kernels/nn_util.h"
#include "ir/layout.h"
#include "ir/op.h"

namespace carve::nn_kernels {
namespace {

// "W", "HW" or "DHW".
std::string SpatialLetters(int spatial) { return std::string("DHW").substr(3 - spatial); }

// The attributes every convolution shares, decoded with TVM's defaults.
struct ConvAttrs {
  std::vector<int64_t> strides, dilation, padding;  // padding: befores, then afters
  std::vector<int64_t> output_padding;              // transposed convolutions only
  int64_t groups = 1;
  std::string data_layout, kernel_layout, out_layout;
  // TVM's Conv2DRel / Conv2DTransposeRel read a 2-d kernel layout holding a
  // 'G' as GOIHW / GIOHW when groups > 1: a 5-d weight (G, O/G, I/G, kh, kw)
  // or (G, I/G, O/G, kh, kw) whose row-major order is that of OIHW / IOHW,
  // so the kernels read it through the canonical order with G first.
  bool grouped_kernel = false;
};

// The weight's canonical axis order: OI / IO then the spatial letters,
// prefixed by G for a grouped kernel layout.
std::string KernelAxes(const ConvAttrs& a, int spatial, bool transposed) {
  std::string axes = a.grouped_kernel ? "G" : "";
  axes += transposed ? "IO" : "OI";
  axes += SpatialLetters(spatial);
  return axes;
}

absl::StatusOr<ConvAttrs> DecodeConvAttrs(const KernelContext& ctx, int spatial,
                                          bool transposed) {
  const std::string sp = SpatialLetters(spatial);
  ConvAttrs a;
  CARVE_ASSIGN_OR_RETURN(a.strides, SpatialInts(ctx, "strides", spatial, 1));
  CARVE_ASSIGN_OR_RETURN(a.dilation, SpatialInts(ctx, "dilation", spatial, 1));
  const std::vector<int64_t> padding =
      AttrInts(ctx, "padding").value_or(std::vector<int64_t>(size_t(spatial), 0));
  CARVE_ASSIGN_OR_RETURN(a.padding, ExpandPadding(ctx, padding, spatial));
  if (transposed) {
    CARVE_ASSIGN_OR_RETURN(a.output_padding, SpatialInts(ctx, "output_padding", spatial, 0));
  }
  a.groups = AttrInt(ctx, "groups", 1);
  a.data_layout = std::string(AttrString(ctx, "data_layout", "NC" + sp));
  a.kernel_layout = std::string(AttrString(ctx, "kernel_layout", (transposed ? "IO" : "OI") + sp));
  a.out_layout = std::string(AttrString(ctx, "out_layout", ""));
  if (a.out_layout.empty()) a.out_layout = a.data_layout;
  a.grouped_kernel =
      spatial == 2 && a.groups > 1 && a.kernel_layout.find('G') != std::string::npos;
  if (a.groups < 1) return KernelError(ctx, "groups must be positive");
  for (int i = 0; i < spatial; ++i) {
    if (a.strides[i] < 1 || a.dilation[i] < 1) {
      return KernelError(ctx, "strides and dilation must be positive");
    }
  }
  return a;
}

// Extent of the tensor axis holding layout letter `letter`.
int64_t Extent(const NDArray& t, const std::string& layout, char letter) {
  return t.shape()[layout.find(letter)];
}

// Extent of the weight's `letter` axis in the ungrouped view: a grouped
// layout's `whole` axis (O for conv2d, I for conv2d_transpose) spans all
// groups, G times its per-group extent.
int64_t WeightExtent(const NDArray& w, const ConvAttrs& a, char letter, char whole) {
  const int64_t e = Extent(w, a.kernel_layout, letter);
  return a.grouped_kernel && letter == whole ? e * Extent(w, a.kernel_layout, 'G') : e;
}

// Fills the spatial arrays of `g` (right-aligned into D, H, W) from the
// tensors' layouts.
void FillSpatial(ConvGeometry& g, const ConvAttrs& a, int spatial, const NDArray& data,
                 const NDArray& weight, const NDArray& out) {
  const std::string sp = SpatialLetters(spatial);
  for (int i = 0; i < spatial; ++i) {
    const int axis = 3 - spatial + i;
    g.in[axis] = Extent(data, a.data_layout, sp[i]);
    g.kernel[axis] = Extent(weight, a.kernel_layout, sp[i]);
    g.out[axis] = Extent(out, a.out_layout, sp[i]);
    g.stride[axis] = a.strides[i];
    g.dilation[axis] = a.dilation[i];
    g.pad[axis] = a.padding[i];
  }
}

absl::Status CheckLayouts(const KernelContext& ctx, const ConvAttrs& a, int spatial, bool transposed, const NDArray& data,
                          const NDArray& weight, const NDArray& out) {
  const std::string sp = SpatialLetters(spatial);
  CARVE_RETURN_IF_ERROR(LayoutPermutation(ctx, a.data_layout, "NC" + sp).status());
  CARVE_RETURN_IF_ERROR(
      LayoutPermutation(ctx, a.kernel_layout, KernelAxes(a, spatial, transposed)).status());
  CARVE_RETURN_IF_ERROR(LayoutPermutation(ctx, a.out_layout, "NC" + sp).status());
  const size_t rank = spatial + 2;
  const size_t weight_rank = rank + (a.grouped_kernel ? 1 : 0);
  if (data.rank() != rank || weight.rank() != weight_rank || out.rank() != rank) {
    return KernelError(ctx, "needs rank-{} data and output and a rank-{} weight", rank,
                       weight_rank);
  }
  // The engines write batch * channels * spatial elements from the data's
  // batch: an output of another batch would be overrun or left partly unset.
  if (Extent(data, a.data_layout, 'N') != Extent(out, a.out_layout, 'N')) {
    return KernelError(ctx, "output batch {} does not match the data batch {}",
                       Extent(out, a.out_layout, 'N'), Extent(data, a.data_layout, 'N'));
  }
  return absl::OkStatus();
}

// Checks the geometry against the weight and the output type.
absl::Status CheckGeometry(const KernelContext& ctx, const ConvGeometry& g, const ConvAttrs& a, int spatial,
                           int64_t weight_i, int64_t weight_o, bool transposed) {
  if (g.in_channels % g.groups != 0 || g.out_channels % g.groups != 0) {
    return KernelError(ctx, "channels ({} in, {} out) are not divisible by groups={}",
                       g.in_channels, g.out_channels, g.groups);
  }
  const bool ok = transposed
                      ? weight_i == g.in_channels && weight_o == g.out_per_group()
                      : weight_i == g.in_per_group() && weight_o == g.out_channels;
  if (!ok) {
    return KernelError(ctx,
                       "weight (O={}, I={}) does not match {} input and {} output channels "
                       "with groups={}",
                       weight_o, weight_i, g.in_channels, g.out_channels, g.groups);
  }
  for (int i = 0; i < spatial; ++i) {
    const int axis = 3 - spatial + i;
    const int64_t dk = (g.kernel[axis] - 1) * g.dilation[axis] + 1;
    const int64_t pads = a.padding[i] + a.padding[spatial + i];
    const int64_t expect =
        transposed ? (g.in[axis] - 1) * g.stride[axis] + dk - pads + a.output_padding[i]
                   : (g.in[axis] + pads - dk) / g.stride[axis] + 1;
    if (expect != g.out[axis] || expect < 1) {
      return KernelError(ctx, "output extent {} on spatial axis {} does not match the computed {}",
                         g.out[axis], i, expect);
    }
  }
  return absl::OkStatus();
}

// TVM's Conv2DRel / Conv3DRel type a depthwise convolution (groups == C ==
// weight O) with channels = M * C from a weight whose I is the channel
// multiplier M (topi's depthwise_conv2d_nchw / _nhwc filters, e.g. HWOI
// (kh, kw, C, M)); an M of 1 is also the plain grouped form.
bool IsDepthwiseMultiplierWeight(const ConvAttrs& a, int spatial, const ConvGeometry& g,
                                 int64_t weight_i, int64_t weight_o) {
  return spatial >= 2 && !a.grouped_kernel && g.groups > 1 && g.in_channels == g.groups &&
         weight_o == g.groups && weight_i > 1 && weight_i * g.groups == g.out_channels;
}

// Converts `weight` to the accumulation type in canonical `axes` order and
// subtracts the per-output-channel zero points (qnn.conv2d).
template <typename Acc>
absl::StatusOr<Buffer<Acc>> CanonicalWeight(const KernelContext& ctx, const NDArray& weight, const std::string& layout,
                                            const std::string& axes, const ConvZeroPoints* zp,
                                            int64_t out_channels) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int> perm, LayoutPermutation(ctx, layout, axes));
  CARVE_ASSIGN_OR_RETURN(Buffer<Acc> w, Buffer<Acc>::Permuted(ctx, weight, perm));
  if (zp == nullptr) return w;
  if (zp->kernel.size() != 1 && int64_t(zp->kernel.size()) != out_channels) {
    return KernelError(ctx, "kernel zero point has {} values for {} output channels",
                       zp->kernel.size(), out_channels);
  }
  Acc* p = w.mutable_data();
  const int64_t per_channel = w.size() / std::max<int64_t>(out_channels, 1);
  for (int64_t o = 0; o < out_channels; ++o) {
    const Acc z = Acc(zp->kernel.size() == 1 ? zp->kernel[0] : zp->kernel[o]);
    for (int64_t i = 0; i < per_channel; ++i) p[o * per_channel + i] -= z;
  }
  return w;
}

// Runs `compute(data, weight, out)` in the accumulation type of `out`,
// converting/permuting data from its layout into `canonical` order and the
// result back into out's layout. Writes straight into `out` when it already
// has the accumulation dtype and canonical layout.
template <typename Acc, typename Compute>
absl::Status RunTyped(const KernelContext& ctx, const NDArray& data, const ConvAttrs& a, const std::string& canonical,
                      const Buffer<Acc>& weight, int64_t data_zero_point, NDArray& out,
                      Compute compute) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int> data_perm,
                         LayoutPermutation(ctx, a.data_layout, canonical));
  CARVE_ASSIGN_OR_RETURN(std::vector<int> out_perm, LayoutPermutation(ctx, a.out_layout, canonical));
  CARVE_ASSIGN_OR_RETURN(Buffer<Acc> d, Buffer<Acc>::Permuted(ctx, data, data_perm));
  if (data_zero_point != 0) {
    Acc* p = d.mutable_data();
    for (int64_t i = 0; i < d.size(); ++i) p[i] -= Acc(data_zero_point);
  }
  bool identity = out.dtype() == DTypeOf<Acc>();
  for (size_t i = 0; i < out_perm.size(); ++i) identity &= out_perm[i] == int(i);
  if (identity) {
    compute(d.data(), weight.data(), out.data<Acc>());
    return absl::OkStatus();
  }
  std::unique_ptr<Acc[]> result(new Acc[std::max<int64_t>(out.num_elements(), 1)]);
  compute(d.data(), weight.data(), result.get());
  return StorePermuted(ctx, result.get(), out_perm, out);
}

// `layout` without its sub-axes ("NCHW16c" -> "NCHW", "OIHW4o4i" -> "OIHW").
std::string PrimalLayout(std::string_view layout) {
  std::string primal;
  for (char c : layout) {
    if (c >= 'A' && c <= 'Z') primal += c;
  }
  return primal;
}

// `t` moved from layout `from` to `to` (same primal axes) by the
// layout_transform kernel, so that the data movement has one definition.
absl::StatusOr<NDArray> TransformLayout(const KernelContext& ctx, const NDArray& t,
                                        const std::string& from, const std::string& to) {
  absl::StatusOr<BijectiveLayout> bijection = BijectiveLayout::Make(from, to);
  if (!bijection.ok()) return KernelError(ctx, "{}", std::string(bijection.status().message()));
  std::vector<Dim> dims;
  for (int64_t e : t.shape()) dims.push_back(Dim{e});
  CARVE_ASSIGN_OR_RETURN(std::vector<Dim> shape, bijection->ForwardShape(dims));
  const OpInfo* op = FindOp("layout_transform");
  KernelFn kernel = FindKernel("layout_transform");
  if (op == nullptr || kernel == nullptr) return KernelError(ctx, "no layout_transform kernel");
  const Attrs* attrs = WithField(DefaultAttrs(op->attrs), "src_layout", AttrValue::Str(from));
  attrs = WithField(attrs, "dst_layout", AttrValue::Str(to));
  KernelContext inner{op, {&t, 1}, attrs, TensorTy(t.dtype(), shape), ctx.device};
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> out, kernel(inner));
  return std::move(out[0]);
}

// Runs `run` (RunConv or RunConvTranspose without the split-layout step) on
// the call with its split data / kernel / out layouts replaced by their
// primal ones, and moves the result back into the out layout.
template <typename Run>
absl::StatusOr<std::vector<NDArray>> RunInPrimalLayouts(const KernelContext& ctx,
                                                        const ConvAttrs& a, Run run) {
  const std::string data = PrimalLayout(a.data_layout), kernel = PrimalLayout(a.kernel_layout);
  const std::string out = PrimalLayout(a.out_layout);
  std::vector<NDArray> inputs(ctx.inputs.begin(), ctx.inputs.end());
  CARVE_ASSIGN_OR_RETURN(inputs[0], TransformLayout(ctx, inputs[0], a.data_layout, data));
  CARVE_ASSIGN_OR_RETURN(inputs[1], TransformLayout(ctx, inputs[1], a.kernel_layout, kernel));
  const auto* out_type = DynCast<TensorType>(ctx.out_type);
  if (out_type == nullptr) return KernelError(ctx, "needs a tensor output type");
  absl::StatusOr<BijectiveLayout> out_bijection = BijectiveLayout::Make(a.out_layout, out);
  if (!out_bijection.ok()) {
    return KernelError(ctx, "{}", std::string(out_bijection.status().message()));
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<Dim> out_shape,
                         out_bijection->ForwardShape(out_type->shape()));
  const Attrs* attrs = WithField(ctx.attrs, "data_layout", AttrValue::Str(data));
  attrs = WithField(attrs, "kernel_layout", AttrValue::Str(kernel));
  attrs = WithField(attrs, "out_layout", AttrValue::Str(out));
  KernelContext inner{ctx.op, inputs, attrs, TensorTy(out_type->dtype(), out_shape), ctx.device};
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> result, run(inner));
  CARVE_ASSIGN_OR_RETURN(result[0], TransformLayout(ctx, result[0], out, a.out_layout));
  return result;
}

bool HasSplitLayout(const ConvAttrs& a) {
  for (const std::string* layout : {&a.data_layout, &a.kernel_layout, &a.out_layout}) {
    if (PrimalLayout(*layout).size() != layout->size()) return true;
  }
  return false;
}

absl::StatusOr<std::vector<NDArray>> ConvKernel(const KernelContext& ctx, int spatial) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  return RunConv(ctx, spatial, nullptr);
}

absl::StatusOr<std::vector<NDArray>> Conv1D(const KernelContext& ctx) { return ConvKernel(ctx, 1); }
absl::StatusOr<std::vector<NDArray>> Conv2D(const KernelContext& ctx) { return ConvKernel(ctx, 2); }
absl::StatusOr<std::vector<NDArray>> Conv3D(const KernelContext& ctx) { return ConvKernel(ctx, 3); }

absl::StatusOr<std::vector<NDArray>> ConvTransposeKernel(const KernelContext& ctx, int spatial) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  return RunConvTranspose(ctx, spatial);
}
absl::StatusOr<std::vector<NDArray>> Conv1DTranspose(const KernelContext& ctx) {
  return ConvTransposeKernel(ctx, 1);
}
absl::StatusOr<std::vector<NDArray>> Conv2DTranspose(const KernelContext& ctx) {
  return ConvTransposeKernel(ctx, 2);
}
absl::StatusOr<std::vector<NDArray>> Conv3DTranspose(const KernelContext& ctx) {
  return ConvTransposeKernel(ctx, 3);
}

}  // namespace

absl::StatusOr<std::vector<NDArray>> RunConv(const KernelContext& ctx, int spatial,
                                             const ConvZeroPoints* zero_points) {
  CARVE_ASSIGN_OR_RETURN(ConvAttrs a, DecodeConvAttrs(ctx, spatial, false));
  if (HasSplitLayout(a)) {
    return RunInPrimalLayouts(ctx, a, [&](const KernelContext& inner) {
      return RunConv(inner, spatial, zero_points);
    });
  }
  const NDArray& data = ctx.inputs[0];
  const NDArray& weight = ctx.inputs[1];
  // Every element is written: by the engine (ConvForward / ConvTransposeForward
  // fill all of it) or by RunTyped's store.
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutputUninitialized(ctx));
  CARVE_RETURN_IF_ERROR(CheckLayouts(ctx, a, spatial, false, data, weight, out));
  ConvGeometry g;
  g.batch = Extent(data, a.data_layout, 'N');
  g.in_channels = Extent(data, a.data_layout, 'C');
  g.out_channels = Extent(out, a.out_layout, 'C');
  g.groups = a.groups;
  FillSpatial(g, a, spatial, data, weight, out);
  int64_t weight_i = WeightExtent(weight, a, 'I', 'O');
  int64_t weight_o = WeightExtent(weight, a, 'O', 'O');
  if (IsDepthwiseMultiplierWeight(a, spatial, g, weight_i, weight_o)) {
    // TVM's depthwise weight (C, M, k...) holds output channel c * M + m at
    // (c, m): in row-major OI.. order that is the grouped (C * M, 1, k...)
    // weight the engine takes, so only the extents are re-read.
    weight_o *= weight_i;
    weight_i = 1;
  }
  CARVE_RETURN_IF_ERROR(CheckGeometry(ctx, g, a, spatial, weight_i, weight_o, false));
  const std::string sp = SpatialLetters(spatial);
  // Channels-last data (NHWC, NWC, NDHWC) keeps its order: its im2col rows
  // are contiguous channel runs. Everything else computes channels-first.
  const ChannelOrder order =
      a.data_layout.back() == 'C' ? ChannelOrder::kLast : ChannelOrder::kFirst;
  const std::string canonical = order == ChannelOrder::kFirst ? "NC" + sp : "N" + sp + "C";
  // A constant weight (the same tensor on every call of this plan step) is
  // packed once; its canonical form derives from it alone (the layout
  // attributes are the step's).
  ConvWeightCache cache;
  if (ctx.state != nullptr && (ctx.constant_inputs & 2) != 0 && zero_points == nullptr) {
    cache = ConvWeightCache{ctx.state, weight.raw_data()};
  }
  CARVE_RETURN_IF_ERROR(VisitAccType(ctx, out.dtype(), [&]<typename Acc>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(Buffer<Acc> w, CanonicalWeight<Acc>(ctx, weight, a.kernel_layout, KernelAxes(a, spatial, false),
                                                               zero_points, g.out_channels));
    const int64_t data_zp = zero_points == nullptr ? 0 : zero_points->data;
    return RunTyped<Acc>(ctx, data, a, canonical, w, data_zp, out,
                         [&](const Acc* d, const Acc* wt, Acc* o) {
                           ConvForward<Acc>(g, order, d, wt, o, ctx.device, cache);
                         });
  }));
  return std::vector<NDArray>{std::move(out)};
}

absl::StatusOr<std::vector<NDArray>> RunConvTranspose(const KernelContext& ctx, int spatial) {
  CARVE_ASSIGN_OR_RETURN(ConvAttrs a, DecodeConvAttrs(ctx, spatial, true));
  if (HasSplitLayout(a)) {
    return RunInPrimalLayouts(
        ctx, a, [&](const KernelContext& inner) { return RunConvTranspose(inner, spatial); });
  }
  const NDArray& data = ctx.inputs[0];
  const NDArray& weight = ctx.inputs[1];
  // Every element is written: by the engine (ConvForward / ConvTransposeForward
  // fill all of it) or by RunTyped's store.
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutputUninitialized(ctx));
  CARVE_RETURN_IF_ERROR(CheckLayouts(ctx, a, spatial, true, data, weight, out));
  ConvGeometry g;
  g.batch = Extent(data, a.data_layout, 'N');
  g.in_channels = Extent(data, a.data_layout, 'C');
  g.out_channels = Extent(out, a.out_layout, 'C');
  g.groups = a.groups;
  FillSpatial(g, a, spatial, data, weight, out);
  CARVE_RETURN_IF_ERROR(CheckGeometry(ctx, g, a, spatial, WeightExtent(weight, a, 'I', 'I'),
                                      WeightExtent(weight, a, 'O', 'I'), true));
  const std::string sp = SpatialLetters(spatial);
  CARVE_RETURN_IF_ERROR(VisitAccType(ctx, out.dtype(), [&]<typename Acc>() -> absl::Status {
    CARVE_ASSIGN_OR_RETURN(Buffer<Acc> w, CanonicalWeight<Acc>(ctx, weight, a.kernel_layout,
                                                               KernelAxes(a, spatial, true), nullptr, 0));
    return RunTyped<Acc>(ctx, data, a, "NC" + sp, w, 0, out, [&](const Acc* d, const Acc* wt, Acc* o) {
      ConvTransposeForward<Acc>(g, d, wt, o, ctx.device);
    });
  }));
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace carve::nn_kernels

CARVE_REGISTER_KERNEL("nn.conv1d", carve::nn_kernels::Conv1D);
CARVE_REGISTER_KERNEL("nn.conv2d", carve::nn_kernels::Conv2D);
CARVE_REGISTER_KERNEL("nn.conv3d", carve::nn_kernels::Conv3D);
CARVE_REGISTER_KERNEL("nn.conv1d_transpose", carve::nn_kernels::Conv1DTranspose);
CARVE_REGISTER_KERNEL("nn.conv2d_transpose", carve::nn_kernels::Conv2DTranspose);
CARVE_REGISTER_KERNEL("nn.conv3d_transpose", carve::nn_kernels::Conv3DTranspose);
