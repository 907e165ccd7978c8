// oneDNN convolution and deconvolution (nn.conv{1,2,3}d, nn.conv{2,3}d_transpose)
// with the composite's bias, sum and activation as one primitive
// (convolution_forward with a bias and sum / eltwise post-ops), as TVM's DNNL
// JSON runtime builds them.
#include <optional>
#include <tuple>
#include <unordered_map>

#include "backends/dnnl/dnnl_common.h"
#include "backends/dnnl/dnnl_kernels.h"
#include "backends/json/attr_codec.h"
#include "fmt/format.h"
#include "support/status_macros.h"

namespace carve::dnnl_backend {
namespace {

using dnnl::memory;

struct ConvShapes {
  int spatial = 2;
  bool transpose = false;
  int64_t groups = 1;
  std::vector<int64_t> strides, dilates, pad_l, pad_r;
  memory::desc src, weights, dst, bias;
  bool has_bias = false;
};

std::string SpatialLetters(int spatial) { return std::string("DHW").substr(3 - spatial); }

// TVM's get_pad_tuple: 1, `n` or 2n values.
std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> SplitPadding(
    const std::vector<int64_t>& p, int n) {
  std::vector<int64_t> l(n), r(n);
  if (p.size() == size_t(2 * n)) {
    for (int i = 0; i < n; ++i) l[i] = p[i], r[i] = p[i + n];
  } else if (p.size() == 1 || p.size() == size_t(n)) {
    for (int i = 0; i < n; ++i) l[i] = r[i] = p[p.size() == 1 ? 0 : i];
  } else {
    return std::nullopt;
  }
  return std::make_pair(l, r);
}

absl::Status Unsupported(std::string what) { return absl::UnimplementedError(std::move(what)); }

// Descriptors of data-like tensors: logical (N, C, spatial...) over `layout`.
absl::StatusOr<memory::desc> DataDesc(std::string_view layout, const std::vector<int64_t>& shape,
                                      int spatial) {
  std::string logical = "NC" + SpatialLetters(spatial);
  std::optional<std::vector<int64_t>> strides = LogicalStrides(layout, shape, logical);
  if (!strides) return Unsupported(fmt::format("data layout {}", layout));
  std::vector<int64_t> dims;
  for (char c : logical) dims.push_back(shape[layout.find(c)]);
  return F32Desc(dims, *strides);
}

// Weights: logical (O, I, spatial...) or, grouped, (G, O/G, I/G, spatial...).
// Relay splits the group off O for convolutions (shape O x I/G) and off I
// for transposed ones (shape I x O/G).
absl::StatusOr<memory::desc> WeightsDesc(std::string_view layout, const std::vector<int64_t>& shape,
                                         int spatial, int64_t groups, bool transpose,
                                         int64_t out_channels) {
  std::string logical = "OI" + SpatialLetters(spatial);
  if (groups > 1 && layout.find('G') != std::string_view::npos) {
    // Already grouped (dnnl's legalize_group_conv: GOIHW, GIOHW): G, O and
    // I hold oneDNN's (G, O/G, I/G) directly, conv and deconv alike.
    std::string grouped = "G" + logical;
    std::optional<std::vector<int64_t>> strides = LogicalStrides(layout, shape, grouped);
    if (!strides) return Unsupported(fmt::format("kernel layout {}", layout));
    std::vector<int64_t> dims;
    for (char c : grouped) dims.push_back(shape[layout.find(c)]);
    return F32Desc(dims, *strides);
  }
  std::optional<std::vector<int64_t>> strides = LogicalStrides(layout, shape, logical);
  if (!strides) return Unsupported(fmt::format("kernel layout {}", layout));
  std::vector<int64_t> dims;
  for (char c : logical) dims.push_back(shape[layout.find(c)]);
  if (groups == 1) return F32Desc(dims, *strides);
  if (!transpose && dims[0] == groups && dims[1] > 1 && dims[1] * groups == out_channels) {
    // TVM's depthwise weight (C, M, k...) (Conv2DRel's depthwise rule) is
    // oneDNN's (G = C, O/G = M, I/G = 1, k...).
    std::vector<int64_t> gdims{groups, dims[1], 1}, gstrides{(*strides)[0], (*strides)[1], 1};
    for (size_t i = 2; i < dims.size(); ++i) {
      gdims.push_back(dims[i]);
      gstrides.push_back((*strides)[i]);
    }
    return F32Desc(gdims, gstrides);
  }
  // dims: conv (O, I/G, k...), transpose (O/G, I, k...).
  int split = transpose ? 1 : 0;  // the axis holding all groups
  int64_t per_group = dims[split] / groups;
  std::vector<int64_t> gdims{groups}, gstrides{(*strides)[split] * per_group};
  for (size_t i = 0; i < dims.size(); ++i) {
    gdims.push_back(int(i) == split ? per_group : dims[i]);
    gstrides.push_back((*strides)[i]);
  }
  return F32Desc(gdims, gstrides);
}

absl::StatusOr<ConvShapes> DescribeConv(const NodeBuildContext& ctx, const FusionSpec& spec) {
  const JsonNode& node = ctx.node();
  ConvShapes c;
  const std::string& op = spec.anchor;
  c.transpose = op.find("transpose") != std::string::npos;
  c.spatial = op.find("1d") != std::string::npos ? 1 : op.find("3d") != std::string::npos ? 3 : 2;
  for (size_t i : {spec.data, *spec.weight}) {
    if (ctx.InputDType(i) != DataType::Float(32)) return Unsupported("non-float32 operands");
  }
  if (node.dtypes[0] != DataType::Float(32)) return Unsupported("a non-float32 output");
  CARVE_ASSIGN_OR_RETURN(c.groups, NodeInt(node, "groups"));
  CARVE_ASSIGN_OR_RETURN(c.strides, NodeInts(node, "strides"));
  CARVE_ASSIGN_OR_RETURN(c.dilates, NodeInts(node, "dilation"));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> padding, NodeInts(node, "padding"));
  auto pads = SplitPadding(padding, c.spatial);
  if (!pads || c.strides.size() != size_t(c.spatial) || c.dilates.size() != size_t(c.spatial)) {
    return Unsupported("strides / dilation / padding of another rank");
  }
  std::tie(c.pad_l, c.pad_r) = *pads;
  for (int64_t& d : c.dilates) d -= 1;  // oneDNN counts extra taps
  CARVE_ASSIGN_OR_RETURN(std::string data_layout, NodeString(node, "data_layout"));
  CARVE_ASSIGN_OR_RETURN(std::string kernel_layout, NodeString(node, "kernel_layout"));
  std::string out_layout = NodeString(node, "out_layout").value_or("");
  if (out_layout.empty()) out_layout = data_layout;
  if (c.transpose) {
    // output_padding grows the output on the far side.
    std::vector<int64_t> extra = NodeInts(node, "output_padding").value_or(std::vector<int64_t>{});
    for (size_t i = 0; i < extra.size() && i < c.pad_r.size(); ++i) c.pad_r[i] -= extra[i];
  }
  std::vector<int64_t> out_shape = node.shapes[0];
  CARVE_ASSIGN_OR_RETURN(c.src, DataDesc(data_layout, ctx.InputShape(spec.data), c.spatial));
  CARVE_ASSIGN_OR_RETURN(c.dst, DataDesc(out_layout, out_shape, c.spatial));
  size_t out_c = out_layout.find('C');
  int64_t out_channels = out_c < out_shape.size() ? out_shape[out_c] : -1;
  CARVE_ASSIGN_OR_RETURN(c.weights, WeightsDesc(kernel_layout, ctx.InputShape(*spec.weight),
                                                c.spatial, c.groups, c.transpose, out_channels));
  return c;
}

// oneDNN's blocked layout of data with `ndims` dims: channels in blocks of
// 16 (nCw16c, nChw16c, nCdhw16c), undef for other ranks.
memory::format_tag Blocked16(int ndims) {
  switch (ndims) {
    case 3: return memory::format_tag::nCw16c;
    case 4: return memory::format_tag::nChw16c;
    case 5: return memory::format_tag::nCdhw16c;
    default: return memory::format_tag::undef;
  }
}

// Whether every convolution of the graph has its channels in whole blocks
// of 16 (or, on input, fewer than 16): then all take and make the blocked
// layout, and activations pass between them without conversion. One
// convolution in another layout among them costs a conversion on each side.
bool AllConvolutionsInBlocks(const NodeBuildContext& ctx) {
  const JsonGraph& g = *ctx.graph;
  for (const JsonNode& node : g.nodes) {
    if (node.op != "kernel" || !node.attrs.contains("kernel_layout") || node.inputs.empty()) continue;
    std::string layout = NodeString(node, "data_layout").value_or("NCHW");
    std::string out_layout = NodeString(node, "out_layout").value_or("");
    if (out_layout.empty()) out_layout = layout;
    const std::vector<int64_t>& in = g.nodes[node.inputs[0].node].shapes[node.inputs[0].index];
    const std::vector<int64_t>& out = node.shapes[0];
    size_t ci = layout.find('C'), co = out_layout.find('C');
    if (ci >= in.size() || co >= out.size()) return false;
    if (out[co] % 16 != 0 || (in[ci] % 16 != 0 && in[ci] >= 16)) return false;
  }
  return true;
}

// The convolution primitive, its activations preferably in channel blocks
// of 16. With `any`, oneDNN 2.6 picks channels-last (brgconv) on AVX-512,
// whose conversions from and to Relay's NCHW at a region's boundaries cost
// 2-4x those of the blocked layout (squeezenet1_1: 128x55x55 NCHW to NHWC
// 159 us, to nChw16c 40 us, one thread) while its convolutions run at the
// same speed or faster (ppocr's 1x1 convolutions: 0.30 ms in blocks, 0.55
// ms channels-last). Only when every convolution of the graph has its
// channels in whole blocks of 16 (`graph_in_blocks`; ppocr's 8, 40 or 88
// channels padded to blocks, or mixed with channels-last neighbours, took
// 6-10% longer in all); the source stays `any` when its
// channels are few (the first convolution of a network reads NCHW
// directly); `any` everywhere when oneDNN has no blocked implementation
// but its reference one.
dnnl::convolution_forward::primitive_desc ConvPrimitive(const ConvShapes& c,
                                                        const dnnl::primitive_attr& attr,
                                                        const memory::desc& bias,
                                                        bool graph_in_blocks) {
  auto with = [](const memory::desc& d, memory::format_tag tag) {
    return memory::desc(d.dims(), memory::data_type::f32, tag);
  };
  auto make = [&](memory::format_tag src, memory::format_tag dst,
                  dnnl::algorithm algorithm = dnnl::algorithm::convolution_direct) {
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, algorithm,
                                      with(c.src, src), with(c.weights, memory::format_tag::any),
                                      bias, with(c.dst, dst), c.strides, c.dilates, c.pad_l,
                                      c.pad_r);
    return dnnl::convolution_forward::primitive_desc(d, attr, Engine());
  };
  const memory::format_tag blocked = Blocked16(c.src.dims().size());
  const memory::format_tag any = memory::format_tag::any;
  if (blocked != memory::format_tag::undef && graph_in_blocks) {
    const bool few_channels = c.src.dims()[1] < 16;
    if (!few_channels) {
      // Winograd F(2x2, 3x3) where oneDNN has it (3x3, stride 1, channels
      // in blocks): 1.3-1.7x faster than the direct kernel on squeezenet1_1's
      // 3x3 convolutions, with rounding errors within --compare's tolerance.
      try {
        return make(blocked, blocked, dnnl::algorithm::convolution_winograd);
      } catch (const dnnl::error& e) {
        if (e.status != dnnl_unimplemented) throw;
      }
    }
    try {
      dnnl::convolution_forward::primitive_desc pd = make(few_channels ? any : blocked, blocked);
      // A reference implementation (a depthwise convolution of 8 channels
      // in blocks of 16) is 50x slower than a JIT one in another layout.
      if (!std::string_view(pd.impl_info_str()).starts_with("ref")) return pd;
    } catch (const dnnl::error& e) {
      if (e.status != dnnl_unimplemented) throw;
    }
  }
  return make(any, any);
}

class DnnlConvKernel : public IntoKernel {
 public:
  absl::Status Build(const NodeBuildContext& ctx, const FusionSpec& spec) {
    spec_ = spec;
    if (spec.pad_value || !spec.anchor_extra.empty() || !spec.requantize.empty()) {
      return Unsupported("a padded or quantized convolution");
    }
    CARVE_ASSIGN_OR_RETURN(ConvShapes c, DescribeConv(ctx, spec));
    CARVE_ASSIGN_OR_RETURN(int64_t channel_axis, OutputChannelAxis(ctx.node(), spec));
    int64_t channels = ctx.node().shapes[0][channel_axis];
    if (spec.bias) {
      if (ctx.InputDType(*spec.bias) != DataType::Float(32)) return Unsupported("a non-f32 bias");
      int64_t n = 1;
      for (int64_t d : ctx.InputShape(*spec.bias)) n *= d;
      if (n != channels || !BiasPerChannel(ctx.node(), spec, ctx.InputShape(*spec.bias),
                                           channel_axis)) {
        return Unsupported("a bias that is not per channel");
      }
      c.bias = F32Plain({channels});
      bias_desc_ = c.bias;
    }
    if (spec.sum && ctx.InputShape(*spec.sum) != ctx.node().shapes[0]) {
      return Unsupported("a sum operand of another shape");
    }
    dnnl::post_ops ops;
    if (spec.sum) ops.append_sum(1.f);
    CARVE_RETURN_IF_ERROR(AppendActivation(spec.activation, ctx, ops));
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    user_src_ = c.src;
    user_dst_ = c.dst;
    user_weights_ = c.weights;
    has_bias_ = spec.bias.has_value();
    out_shape_ = ctx.node().shapes[0];
    return Guard([&] { CreatePrimitive(c, attr, ctx); });
  }

  absl::Status RunInto(std::span<const NDArray> inputs, NDArray& out) override {
    return Guard([&] {
      Execute(src_reorder_.Apply(Rebind(src_mem_, user_src_, inputs[spec_.data]), stream_), inputs,
              out);
    });
  }

  // The data may come, and the result may go, in the layout the primitives
  // chose (oneDNN's blocked formats): consecutive convolutions of a region
  // then pass activations without converting them.
  bool TakesNative(size_t input) const override { return input == spec_.data; }
  bool MakesNative() const override { return true; }

  // A native result outlives the call: it gets a buffer of its own, made
  // now rather than in the first call.
  void NativePlanned(std::span<const bool>, bool native_output) override {
    if (native_output && !dst_buffer_) dst_buffer_ = TouchedMemory(dst_);
  }

  absl::StatusOr<std::vector<KernelValue>> RunNative(std::span<const KernelValue> inputs,
                                                     bool native_output) override {
    // The other operands are read where they are (copying the inputs
    // into a vector of plain tensors allocated their shapes on every call).
    std::vector<KernelValue> out(1);
    absl::Status guarded = Guard([&] {
      memory src = Source(inputs[spec_.data]);
      if (!native_output) {
        out[0].plain = AllocOutput(inputs);
        Execute(src, inputs, out[0].plain);
        return;
      }
      // One buffer for every call: the runtime drops a native entry after
      // its last reader, within the call that made it, and runs each node
      // once a call. (A fresh oneDNN memory a call was zero-filled by
      // oneDNN: 2% of ppocr's time.)
      if (!dst_buffer_) dst_buffer_ = TouchedMemory(dst_);
      memory dst = dst_buffer_;
      Compute(src, inputs, dst);
      stream_.wait();
      out[0].native = std::make_shared<DnnlTensor>(dst, user_dst_, out_shape_);
    });
    if (!guarded.ok()) return guarded;
    return out;
  }

 private:
  void CreatePrimitive(const ConvShapes& c, const dnnl::primitive_attr& attr,
                       const NodeBuildContext& ctx) {
    auto any = [](const memory::desc& d) {
      return memory::desc(d.dims(), memory::data_type::f32, memory::format_tag::any);
    };
    memory::desc bias = has_bias_ ? c.bias : memory::desc();
    auto prop = dnnl::prop_kind::forward_inference;
    if (c.transpose) {
      dnnl::deconvolution_forward::desc d(prop, dnnl::algorithm::deconvolution_direct, any(c.src),
                                          any(c.weights), bias, any(c.dst), c.strides, c.dilates,
                                          c.pad_l, c.pad_r);
      dnnl::deconvolution_forward::primitive_desc pd(d, attr, Engine());
      src_ = pd.src_desc(), weights_ = pd.weights_desc(), dst_ = pd.dst_desc();
      scratchpad_ = ScratchpadFor(pd.scratchpad_desc());
      primitive_ = dnnl::deconvolution_forward(pd);
    } else {
      dnnl::convolution_forward::primitive_desc pd =
          ConvPrimitive(c, attr, bias, AllConvolutionsInBlocks(ctx));
      src_ = pd.src_desc(), weights_ = pd.weights_desc(), dst_ = pd.dst_desc();
      scratchpad_ = ScratchpadFor(pd.scratchpad_desc());
      primitive_ = dnnl::convolution_forward(pd);
    }
    stream_ = dnnl::stream(Engine());
    // The per-call conversions between the Relay layouts and the
    // primitive's, prepared once with their buffers.
    src_reorder_ = LayoutReorder(user_src_, src_);
    src_reorder_.ShareApply(Scratch::kSource);
    dst_reorder_ = LayoutReorder(dst_, user_dst_);
    if (spec_.sum) sum_reorder_ = LayoutReorder(user_dst_, dst_);
    if (!dst_reorder_.identity()) dst_shared_ = SharedMemory(dst_, Scratch::kResult);
    // Constant weights are reordered into the primitive's layout once.
    const NDArray& w = ctx.const_inputs[*spec_.weight];
    if (w.defined()) {
      weight_keep_ = w;
      packed_weights_ = Reorder(Wrap(user_weights_, w), weights_, stream_);
      stream_.wait();
    } else {
      weight_reorder_ = LayoutReorder(user_weights_, weights_);
      weight_reorder_.PrepareApply();
    }
  }

  // The data in the primitive's layout, from a plain or a native tensor.
  memory Source(const KernelValue& data) {
    if (data.native == nullptr) {
      return src_reorder_.Apply(Rebind(src_mem_, user_src_, data.plain), stream_);
    }
    const auto* tensor = dynamic_cast<const DnnlTensor*>(data.native.get());
    if (tensor == nullptr) {
      throw dnnl::error(dnnl_invalid_arguments, "a native input not made by oneDNN");
    }
    const memory& m = tensor->memory();
    if (tensor->plain() != user_src_) {
      // The same row-major bytes read with other logical dims (an NCHW
      // result read as NHWC data): through the plain tensor.
      relaid_ = NDArray::Empty(DataType::Float(32), {int64_t(user_src_.get_size() / 4)});
      memory plain = Wrap(tensor->plain(), relaid_), source = m;
      dnnl::reorder(source, plain).execute(stream_, source, plain);
      return src_reorder_.Apply(Rebind(src_mem_, user_src_, relaid_), stream_);
    }
    if (m.get_desc() == src_) return m;
    // Another primitive's layout: converted, with a reorder kept for it.
    if (native_from_ != m.get_desc()) {
      native_from_ = m.get_desc();
      native_reorder_ = LayoutReorder(native_from_, src_);
    }
    return native_reorder_.Apply(m, stream_);
  }

  // Input `i` of `inputs` as a plain tensor (the operands other than the
  // data are never native).
  static const NDArray& PlainAt(std::span<const NDArray> inputs, size_t i) { return inputs[i]; }
  static const NDArray& PlainAt(std::span<const KernelValue> inputs, size_t i) {
    return inputs[i].plain;
  }

  // Runs on `src` (in the primitive's layout) into `out` (plain).
  template <typename Inputs>
  void Execute(const memory& src, Inputs inputs, NDArray& out) {
    memory user_dst = Rebind(dst_mem_, user_dst_, out);
    memory dst = dst_reorder_.identity() ? user_dst : dst_shared_.Get();
    Compute(src, inputs, dst);
    if (!dst_reorder_.identity()) dst_reorder_.Into(dst, user_dst, stream_);
    stream_.wait();
  }

  // The primitive on `src` into `dst` (both in its layouts); the other
  // operands are the plain `inputs`.
  template <typename Inputs>
  void Compute(const memory& src, Inputs inputs, const memory& dst) {
    memory weights = packed_weights_
                         ? packed_weights_
                         : weight_reorder_.Apply(
                               Rebind(weights_mem_, user_weights_, PlainAt(inputs, *spec_.weight)),
                               stream_);
    // The sum post-op accumulates into the destination.
    if (spec_.sum) {
      sum_reorder_.Into(Rebind(sum_mem_, user_dst_, PlainAt(inputs, *spec_.sum)), dst, stream_);
    }
    std::unordered_map<int, memory>& args = call_args_;  // the same keys on every call
    args[DNNL_ARG_SRC] = src, args[DNNL_ARG_WEIGHTS] = weights, args[DNNL_ARG_DST] = dst;
    if (has_bias_) args[DNNL_ARG_BIAS] = Rebind(bias_mem_, bias_desc_, PlainAt(inputs, *spec_.bias));
    if (scratchpad_) args[DNNL_ARG_SCRATCHPAD] = scratchpad_.Get();
    primitive_.execute(stream_, args);
  }

  FusionSpec spec_;
  memory::desc user_src_, user_dst_, user_weights_;
  memory::desc src_, weights_, dst_, bias_desc_;
  bool has_bias_ = false;
  dnnl::primitive primitive_;
  dnnl::stream stream_;
  NDArray weight_keep_;
  memory packed_weights_;
  LayoutReorder src_reorder_, dst_reorder_, sum_reorder_, weight_reorder_;
  // The primitive's result before its conversion to Relay's layout
  // (shared), or handed on native (its own).
  SharedMemory dst_shared_, scratchpad_;
  memory dst_buffer_;
  // The call's tensors, re-pointed on every call (Rebind).
  memory src_mem_, weights_mem_, dst_mem_, sum_mem_, bias_mem_;
  // Native data in another layout than src_: the last such layout's reorder.
  memory::desc native_from_;
  LayoutReorder native_reorder_;
  NDArray relaid_;  // native data read with other dims, made plain
  std::unordered_map<int, memory> call_args_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlConv(const NodeBuildContext& ctx,
                                                         const FusionSpec& spec) {
  auto kernel = std::make_unique<DnnlConvKernel>();
  CARVE_RETURN_IF_ERROR(kernel->Build(ctx, spec));
  return std::unique_ptr<NodeKernel>(std::move(kernel));
}

}  // namespace carve::dnnl_backend
