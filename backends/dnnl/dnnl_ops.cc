// oneDNN kernels for the dnnl backend's single ops: eltwise, softmax,
// pooling, binary add / multiply and layer normalization.
#include <algorithm>
#include <unordered_map>

#include "backends/dnnl/dnnl_common.h"
#include "backends/dnnl/dnnl_kernels.h"
#include "backends/json/attr_codec.h"
#include "fmt/format.h"
#include "support/status_macros.h"

namespace carve::dnnl_backend {
namespace {

using dnnl::memory;

// A primitive reading inputs (by DNNL_ARG, each a node input with its
// descriptor) and writing one float32 output of the node's shape.
class PrimitiveKernel : public IntoKernel {
 public:
  struct Arg {
    int dnnl_arg;
    size_t input;
    memory::desc desc;
  };

  // `scratchpad`: the primitive's (made with UserScratchpadAttr), allocated
  // here once.
  PrimitiveKernel(dnnl::primitive p, std::vector<Arg> args, memory::desc dst,
                  std::vector<int64_t> out_shape, const memory::desc& scratchpad)
      : primitive_(std::move(p)),
        args_(std::move(args)),
        dst_(std::move(dst)),
        stream_(Engine()),
        scratchpad_(ScratchpadFor(scratchpad)),
        arg_mems_(args_.size()) {
    out_shape_ = std::move(out_shape);
  }

  // A buffer of `desc` passed as `dnnl_arg` on every call (outputs the node
  // does not return, such as layer normalization's mean and variance).
  void AddBuffer(int dnnl_arg, const memory::desc& desc) {
    if (desc.get_size() > 0) buffers_.emplace_back(dnnl_arg, TouchedMemory(desc));
  }

  absl::Status RunInto(std::span<const NDArray> inputs, NDArray& out) override {
    return Guard([&] {
      std::unordered_map<int, memory>& args = call_args_;  // the same keys on every call
      args[DNNL_ARG_DST] = Rebind(dst_mem_, dst_, out);
      for (size_t i = 0; i < args_.size(); ++i) {
        const Arg& a = args_[i];
        args[a.dnnl_arg] = Rebind(arg_mems_[i], a.desc, inputs[a.input]);
      }
      if (scratchpad_) args[DNNL_ARG_SCRATCHPAD] = scratchpad_.Get();
      for (const auto& [arg, mem] : buffers_) args[arg] = mem;
      primitive_.execute(stream_, args);
      stream_.wait();
    });
  }

 private:
  dnnl::primitive primitive_;
  std::vector<Arg> args_;
  memory::desc dst_;
  dnnl::stream stream_;
  SharedMemory scratchpad_;
  // The call's tensors, re-pointed on every call (Rebind).
  std::vector<memory> arg_mems_;
  memory dst_mem_;
  std::vector<std::pair<int, memory>> buffers_;
  std::unordered_map<int, memory> call_args_;
};

// oneDNN's channel-blocked layout of 4-D data on this CPU: blocks of 16 on
// AVX-512, else of 8 (what its JIT kernels take).
memory::format_tag ChannelBlockTag() {
  const int isa = int(dnnl::get_effective_cpu_isa());
  const int avx512 = int(dnnl::cpu_isa::avx512_core);
  return (isa & avx512) == avx512 ? memory::format_tag::nChw16c : memory::format_tag::nChw8c;
}

// A pool of plain 4-D data run on the channel-blocked layout: oneDNN 2.6
// has no JIT pool for NCHW (its simple_nchw loop took 0.45 ms for ppocr's
// 1x200x2x96 2x2 max pool, 47 ns an output), and has one for blocks.
// The data is converted in and the result out with carve's transposes
// (LayoutReorder), the buffers made when the kernel is built.
class BlockedPoolKernel : public IntoKernel {
 public:
  // nullptr when oneDNN offers only a reference implementation for blocks.
  static std::unique_ptr<NodeKernel> Make(const dnnl::pooling_v2_forward::desc& plain_desc,
                                          const memory::desc& src, const memory::desc& dst,
                                          std::vector<int64_t> out_shape) {
    if (src.dims().size() != 4) return nullptr;
    memory::desc bsrc(src.dims(), memory::data_type::f32, ChannelBlockTag());
    memory::desc bdst(dst.dims(), memory::data_type::f32, ChannelBlockTag());
    dnnl::pooling_v2_forward::desc d = plain_desc;
    d.data.src_desc = bsrc.data;
    d.data.dst_desc = bdst.data;
    dnnl::pooling_v2_forward::primitive_desc pd(d, UserScratchpadAttr(), Engine());
    std::string_view impl = pd.impl_info_str();
    if (impl.starts_with("ref") || impl.starts_with("simple")) return nullptr;
    auto k = std::unique_ptr<BlockedPoolKernel>(new BlockedPoolKernel());
    k->primitive_ = dnnl::pooling_v2_forward(pd);
    k->src_ = src, k->dst_ = dst;
    k->in_ = LayoutReorder(src, bsrc);
    k->in_.ShareApply(Scratch::kSource);
    k->out_ = LayoutReorder(bdst, dst);
    k->blocked_dst_ = SharedMemory(bdst, Scratch::kResult);
    k->scratchpad_ = ScratchpadFor(pd.scratchpad_desc());
    k->stream_ = dnnl::stream(Engine());
    k->out_shape_ = std::move(out_shape);
    return k;
  }

  absl::Status RunInto(std::span<const NDArray> inputs, NDArray& out) override {
    return Guard([&] {
      memory src = in_.Apply(Rebind(src_mem_, src_, inputs[0]), stream_);
      std::unordered_map<int, memory>& args = call_args_;
      const memory& blocked_dst = blocked_dst_.Get();
      args[DNNL_ARG_SRC] = src, args[DNNL_ARG_DST] = blocked_dst;
      if (scratchpad_) args[DNNL_ARG_SCRATCHPAD] = scratchpad_.Get();
      primitive_.execute(stream_, args);
      out_.Into(blocked_dst, Rebind(dst_mem_, dst_, out), stream_);
      stream_.wait();
    });
  }

 private:
  BlockedPoolKernel() = default;
  dnnl::primitive primitive_;
  memory::desc src_, dst_;
  LayoutReorder in_, out_;
  SharedMemory blocked_dst_, scratchpad_;
  memory src_mem_, dst_mem_;
  dnnl::stream stream_;
  std::unordered_map<int, memory> call_args_;
};

// A global average pool of plain NCHW data (the squeeze of ppocr's ten SE
// modules), computed in place of BlockedPoolKernel, whose conversion of the
// whole input into channel blocks cost more than the pool: per channel the
// pixels summed one by one from zero in row-major order, then divided by
// their count, the arithmetic of oneDNN's JIT pool on blocks (its plain
// pool's bits: tests/backends/dnnl_pool_layout_test.cc checks all three
// agree).
class PlainGlobalAverageKernel : public IntoKernel {
 public:
  PlainGlobalAverageKernel(int64_t batch, int64_t channels, int64_t pixels,
                           std::vector<int64_t> out_shape)
      : batch_(batch), channels_(channels), pixels_(pixels) {
    out_shape_ = std::move(out_shape);
  }

  absl::Status RunInto(std::span<const NDArray> inputs, NDArray& out) override {
    const float* x = inputs[0].data<float>();
    float* y = out.data<float>();
    // An empty plane averages to 0, as the reference kernels and oneDNN's
    // pool (which writes nothing into a zeroed output) give it.
    const float count = float(std::max<int64_t>(1, pixels_));
    for (int64_t c0 = 0; c0 < batch_ * channels_; c0 += 8) {
      // Eight channels at a time: eight independent sums, each in order.
      const int64_t n = std::min<int64_t>(8, batch_ * channels_ - c0);
      float sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      const float* row = x + c0 * pixels_;
      int64_t p = 0;
      if (n == 8) {
        // 8 x 8 tiles transposed (channels become the inner index), so
        // each step adds one pixel of all eight channels as one vector.
        alignas(32) float tile[64];
        for (; p + 8 <= pixels_; p += 8) {
          TransposeMatrix(row + p, 8, 8, pixels_, tile, 8);
          for (int j = 0; j < 8; ++j) {
            for (int k = 0; k < 8; ++k) sum[k] += tile[j * 8 + k];
          }
        }
      }
      for (; p < pixels_; ++p) {
        for (int64_t k = 0; k < n; ++k) sum[k] += row[k * pixels_ + p];
      }
      for (int64_t k = 0; k < n; ++k) y[c0 + k] = sum[k] / count;
    }
    return absl::OkStatus();
  }

  // The data may come in a convolution's channel blocks (squeezenet1_1's
  // last region: conv 512 -> 1000 on 13 x 13, relu, global average): then
  // oneDNN's JIT pool runs on the blocks (the same bits: the test above),
  // instead of converting all 169 000 values to plain for a 1000-value
  // result.
  bool TakesNative(size_t input) const override { return input == 0; }

  absl::StatusOr<std::vector<KernelValue>> RunNative(std::span<const KernelValue> inputs,
                                                     bool native_output) override {
    if (native_output) return absl::InternalError("the global average makes plain tensors only");
    NDArray x = inputs[0].plain;
    if (inputs[0].native != nullptr) {
      const auto* tensor = dynamic_cast<const DnnlTensor*>(inputs[0].native.get());
      if (tensor == nullptr) return absl::InternalError("a native input not made by oneDNN");
      if (PoolOnBlocks(tensor->memory().get_desc())) {
        NDArray out = AllocOutput(inputs);
        CARVE_RETURN_IF_ERROR(Guard([&] { RunOnBlocks(tensor->memory(), out); }));
        return OnePlainValue(std::move(out));
      }
      CARVE_ASSIGN_OR_RETURN(x, tensor->ToPlain());
    }
    NDArray out = AllocOutput(std::span<const NDArray>(&x, 1));
    CARVE_RETURN_IF_ERROR(RunInto(std::span<const NDArray>(&x, 1), out));
    return OnePlainValue(std::move(out));
  }

 private:
  // Whether oneDNN has a JIT pool for data laid out as `from` (made and
  // kept for the last such layout).
  bool PoolOnBlocks(const memory::desc& from) {
    if (from == blocks_from_) return bool(blocks_pool_);
    blocks_from_ = from;
    blocks_pool_ = dnnl::primitive();
    const memory::dims dims = from.dims();
    if (dims.size() != 4 || dims[2] * dims[3] != pixels_) return false;
    absl::Status made = Guard([&] {
      memory::desc dst({dims[0], dims[1], 1, 1}, memory::data_type::f32, memory::format_tag::any);
      dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::pooling_avg_exclude_padding, from, dst,
                                       {1, 1}, {dims[2], dims[3]}, {0, 0}, {0, 0}, {0, 0});
      dnnl::pooling_v2_forward::primitive_desc pd(d, UserScratchpadAttr(), Engine());
      std::string_view impl = pd.impl_info_str();
      if (impl.starts_with("ref") || impl.starts_with("simple")) return;
      blocks_pool_ = dnnl::pooling_v2_forward(pd);
      blocks_dst_ = TouchedMemory(pd.dst_desc());
      blocks_scratchpad_ = ScratchpadFor(pd.scratchpad_desc());
      to_plain_ = LayoutReorder(pd.dst_desc(), F32Plain({dims[0], dims[1], 1, 1}));
      stream_ = dnnl::stream(Engine());
    });
    if (!made.ok()) blocks_pool_ = dnnl::primitive();
    return bool(blocks_pool_);
  }

  void RunOnBlocks(const memory& src, NDArray& out) {
    std::unordered_map<int, memory>& args = call_args_;
    args[DNNL_ARG_SRC] = src, args[DNNL_ARG_DST] = blocks_dst_;
    if (blocks_scratchpad_) args[DNNL_ARG_SCRATCHPAD] = blocks_scratchpad_.Get();
    blocks_pool_.execute(stream_, args);
    to_plain_.Into(blocks_dst_, Rebind(out_mem_, F32Plain(out_shape_4d()), out), stream_);
    stream_.wait();
  }

  memory::dims out_shape_4d() const { return {batch_, channels_, 1, 1}; }

  int64_t batch_, channels_, pixels_;
  memory::desc blocks_from_;  // the layout blocks_pool_ was made for
  dnnl::primitive blocks_pool_;
  memory blocks_dst_, out_mem_;
  SharedMemory blocks_scratchpad_;
  LayoutReorder to_plain_;
  dnnl::stream stream_;
  std::unordered_map<int, memory> call_args_;
};

// Whether `d` is dense row-major.
bool IsRowMajor(const memory::desc& d) {
  const memory::dims dims = d.dims();
  const dnnl_memory_desc_t& m = d.data;
  if (m.format_kind != dnnl_blocked || m.format_desc.blocking.inner_nblks != 0) return false;
  int64_t expected = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    if (dims[i] != 1 && m.format_desc.blocking.strides[i] != expected) return false;
    expected *= dims[i];
  }
  return true;
}

absl::Status RequireF32(const NodeBuildContext& ctx) {
  for (size_t i = 0; i < ctx.node().inputs.size(); ++i) {
    if (ctx.InputDType(i) != DataType::Float(32)) return absl::UnimplementedError("non-float32 operands");
  }
  if (ctx.node().dtypes[0] != DataType::Float(32)) return absl::UnimplementedError("a non-float32 output");
  return absl::OkStatus();
}

template <typename Make>
absl::StatusOr<std::unique_ptr<NodeKernel>> Create(Make make) {
  std::unique_ptr<NodeKernel> kernel;
  CARVE_RETURN_IF_ERROR(Guard([&] { kernel = make(); }));
  return kernel;
}

struct EltwiseForm {
  dnnl::algorithm algorithm;
  float alpha = 0, beta = 0;
};

absl::StatusOr<EltwiseForm> EltwiseOf(const JsonNode& node) {
  using dnnl::algorithm;
  const std::string& op = node.name;
  if (op == "nn.relu") return EltwiseForm{algorithm::eltwise_relu};
  if (op == "tanh") return EltwiseForm{algorithm::eltwise_tanh};
  if (op == "sigmoid") return EltwiseForm{algorithm::eltwise_logistic};
  if (op == "exp") return EltwiseForm{algorithm::eltwise_exp};
  if (op == "log") return EltwiseForm{algorithm::eltwise_log};
  if (op == "sqrt") return EltwiseForm{algorithm::eltwise_sqrt};
  if (op == "abs") return EltwiseForm{algorithm::eltwise_abs};
  if (op == "round") return EltwiseForm{algorithm::eltwise_round};
  if (op == "nn.leaky_relu") {
    CARVE_ASSIGN_OR_RETURN(double alpha, NodeFloat(node, "alpha"));
    return EltwiseForm{algorithm::eltwise_relu, float(alpha)};
  }
  if (op == "clip") {
    CARVE_ASSIGN_OR_RETURN(double lo, NodeFloat(node, "a_min"));
    CARVE_ASSIGN_OR_RETURN(double hi, NodeFloat(node, "a_max"));
    return EltwiseForm{algorithm::eltwise_clip, float(lo), float(hi)};
  }
  return absl::UnimplementedError(fmt::format("{} is not an eltwise op", op));
}

// Pool geometry over a Relay pool layout ("NCHW", "NHWC", "NCDHW", ...).
struct PoolPlan {
  memory::desc src, dst;
  std::vector<int64_t> kernel, strides, dilation, pad_l, pad_r;
};

absl::StatusOr<PoolPlan> PlanPool(const NodeBuildContext& ctx, bool global) {
  const JsonNode& node = ctx.node();
  CARVE_ASSIGN_OR_RETURN(std::string layout, NodeString(node, "layout"));
  int spatial = int(layout.size()) - 2;
  std::string logical = "NC" + std::string("DHW").substr(3 - spatial);
  std::vector<int64_t> in = ctx.InputShape(0), out = node.shapes[0];
  auto src_strides = LogicalStrides(layout, in, logical);
  auto dst_strides = LogicalStrides(layout, out, logical);
  if (!src_strides || !dst_strides || spatial < 1) {
    return absl::UnimplementedError(fmt::format("pool layout {}", layout));
  }
  std::vector<int64_t> in_dims, out_dims;
  for (char c : logical) in_dims.push_back(in[layout.find(c)]), out_dims.push_back(out[layout.find(c)]);
  PoolPlan p;
  p.src = F32Desc(in_dims, *src_strides);
  p.dst = F32Desc(out_dims, *dst_strides);
  std::vector<int64_t> padding;
  if (global) {
    p.kernel.assign(in_dims.begin() + 2, in_dims.end());
    p.strides.assign(spatial, 1);
    p.dilation.assign(spatial, 1);
    padding.assign(spatial, 0);
  } else {
    CARVE_ASSIGN_OR_RETURN(p.kernel, NodeInts(node, "pool_size"));
    CARVE_ASSIGN_OR_RETURN(p.strides, NodeInts(node, "strides"));
    p.dilation = NodeInts(node, "dilation").value_or(std::vector<int64_t>(spatial, 1));
    CARVE_ASSIGN_OR_RETURN(padding, NodeInts(node, "padding"));
  }
  if (p.kernel.size() != size_t(spatial) || p.strides.size() != size_t(spatial) ||
      p.dilation.size() != size_t(spatial)) {
    return absl::UnimplementedError("pool attributes of another rank");
  }
  p.pad_l.assign(spatial, 0);
  for (int i = 0; i < spatial; ++i) {
    p.pad_l[i] = padding.size() == size_t(2 * spatial) ? padding[i]
                 : padding.size() == size_t(spatial) ? padding[i]
                 : padding.empty()                   ? 0
                                                     : padding[0];
  }
  // The far-side padding that yields Relay's output size (this also covers
  // ceil_mode, which rounds the output size up).
  p.pad_r.resize(spatial);
  for (int i = 0; i < spatial; ++i) {
    int64_t span = (p.kernel[i] - 1) * p.dilation[i] + 1;
    p.pad_r[i] = (out_dims[i + 2] - 1) * p.strides[i] + span - in_dims[i + 2] - p.pad_l[i];
  }
  for (int64_t& d : p.dilation) d -= 1;
  return p;
}

}  // namespace

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlEltwise(const NodeBuildContext& ctx) {
  CARVE_RETURN_IF_ERROR(RequireF32(ctx));
  CARVE_ASSIGN_OR_RETURN(EltwiseForm form, EltwiseOf(ctx.node()));
  memory::desc md = F32Plain(ctx.InputShape(0));
  std::vector<int64_t> shape = ctx.node().shapes[0];
  return Create([&] {
    dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, form.algorithm, md,
                                  form.alpha, form.beta);
    dnnl::eltwise_forward::primitive_desc pd(d, UserScratchpadAttr(), Engine());
    return std::make_unique<PrimitiveKernel>(dnnl::eltwise_forward(pd),
                                             std::vector<PrimitiveKernel::Arg>{{DNNL_ARG_SRC, 0, md}},
                                             md, shape, pd.scratchpad_desc());
  });
}

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlSoftmax(const NodeBuildContext& ctx) {
  CARVE_RETURN_IF_ERROR(RequireF32(ctx));
  std::vector<int64_t> shape = ctx.InputShape(0);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NodeInt(ctx.node(), "axis"));
  if (axis < 0) axis += int64_t(shape.size());
  if (axis < 0 || axis >= int64_t(shape.size())) return absl::InvalidArgumentError("softmax axis out of range");
  memory::desc md = F32Plain(shape);
  return Create([&] {
    dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, md, int(axis));
    dnnl::softmax_forward::primitive_desc pd(d, UserScratchpadAttr(), Engine());
    return std::make_unique<PrimitiveKernel>(dnnl::softmax_forward(pd),
                                             std::vector<PrimitiveKernel::Arg>{{DNNL_ARG_SRC, 0, md}},
                                             md, shape, pd.scratchpad_desc());
  });
}

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlPool(const NodeBuildContext& ctx) {
  CARVE_RETURN_IF_ERROR(RequireF32(ctx));
  const std::string& op = ctx.node().name;
  bool global = op.find("global") != std::string::npos;
  bool max = op.find("max") != std::string::npos;
  CARVE_ASSIGN_OR_RETURN(PoolPlan p, PlanPool(ctx, global));
  dnnl::algorithm algorithm = dnnl::algorithm::pooling_max;
  if (!max) {
    bool include = NodeInt(ctx.node(), "count_include_pad").value_or(0) != 0;
    algorithm = include ? dnnl::algorithm::pooling_avg_include_padding
                        : dnnl::algorithm::pooling_avg_exclude_padding;
  }
  std::vector<int64_t> shape = ctx.node().shapes[0];
  const memory::dims in_dims = p.src.dims();
  if (global && !max && in_dims.size() == 4 && IsRowMajor(p.src) && IsRowMajor(p.dst)) {
    return std::make_unique<PlainGlobalAverageKernel>(in_dims[0], in_dims[1],
                                                      in_dims[2] * in_dims[3], shape);
  }
  return Create([&]() -> std::unique_ptr<NodeKernel> {
    dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, algorithm, p.src, p.dst,
                                     p.strides, p.kernel, p.dilation, p.pad_l, p.pad_r);
    // oneDNN's JIT pool on blocks takes the same taps in the same order
    // and divides as its plain pool does: the same bits, averages included
    // (tests/backends/dnnl_pool_layout_test.cc).
    if (std::unique_ptr<NodeKernel> k = BlockedPoolKernel::Make(d, p.src, p.dst, shape)) return k;
    dnnl::pooling_v2_forward::primitive_desc pd(d, UserScratchpadAttr(), Engine());
    return std::make_unique<PrimitiveKernel>(
        dnnl::pooling_v2_forward(pd), std::vector<PrimitiveKernel::Arg>{{DNNL_ARG_SRC, 0, p.src}},
        p.dst, shape, pd.scratchpad_desc());
  });
}

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlBinary(const NodeBuildContext& ctx) {
  CARVE_RETURN_IF_ERROR(RequireF32(ctx));
  const std::string& op = ctx.node().name;
  std::vector<int64_t> out = ctx.node().shapes[0];
  // oneDNN broadcasts the second operand only; both ops commute.
  size_t full = ctx.InputShape(0) == out ? 0 : ctx.InputShape(1) == out ? 1 : 2;
  if (full == 2) return absl::UnimplementedError("a broadcast of both operands");
  std::vector<int64_t> other = ctx.InputShape(1 - full);
  if (other.size() > out.size()) return absl::UnimplementedError("a broadcast operand of higher rank");
  other.insert(other.begin(), out.size() - other.size(), 1);
  memory::desc a = F32Plain(out), b = F32Plain(other);
  dnnl::algorithm algorithm =
      op == "add" ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_mul;
  return Create([&] {
    dnnl::binary::desc d(algorithm, a, b, a);
    dnnl::binary::primitive_desc pd(d, UserScratchpadAttr(), Engine());
    return std::make_unique<PrimitiveKernel>(
        dnnl::binary(pd),
        std::vector<PrimitiveKernel::Arg>{{DNNL_ARG_SRC_0, full, a}, {DNNL_ARG_SRC_1, 1 - full, b}},
        a, out, pd.scratchpad_desc());
  });
}

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlLayerNorm(const NodeBuildContext& ctx) {
  CARVE_RETURN_IF_ERROR(RequireF32(ctx));
  const JsonNode& node = ctx.node();
  std::vector<int64_t> shape = ctx.InputShape(0);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NodeInt(node, "axis"));
  if (axis < 0) axis += int64_t(shape.size());
  // oneDNN normalizes over the last dimension only, of 2 to 5 dims (a
  // vector is one row).
  if (shape.empty() || shape.size() > 5 || axis != int64_t(shape.size()) - 1) {
    return absl::UnimplementedError("a layer_norm over another axis than the last, or of rank > 5");
  }
  const std::vector<int64_t> channels{shape.back()};
  if (ctx.InputShape(1) != channels || ctx.InputShape(2) != channels) {
    return absl::UnimplementedError("gamma / beta of another shape than the normalized axis");
  }
  CARVE_ASSIGN_OR_RETURN(double epsilon, NodeFloat(node, "epsilon"));
  CARVE_ASSIGN_OR_RETURN(int64_t center, NodeInt(node, "center"));
  CARVE_ASSIGN_OR_RETURN(int64_t scale, NodeInt(node, "scale"));
  auto flags = dnnl::normalization_flags::none;
  const memory::desc md = F32Plain(shape.size() == 1 ? std::vector<int64_t>{1, shape[0]} : shape);
  std::vector<PrimitiveKernel::Arg> args{{DNNL_ARG_SRC, 0, md}};
  if (scale) {
    flags |= dnnl::normalization_flags::use_scale;
    args.push_back({DNNL_ARG_SCALE, 1, F32Plain(channels)});
  }
  if (center) {
    flags |= dnnl::normalization_flags::use_shift;
    args.push_back({DNNL_ARG_SHIFT, 2, F32Plain(channels)});
  }
  return Create([&] {
    dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, md,
                                              float(epsilon), flags);
    dnnl::layer_normalization_forward::primitive_desc pd(d, UserScratchpadAttr(), Engine());
    auto kernel = std::make_unique<PrimitiveKernel>(dnnl::layer_normalization_forward(pd), args,
                                                    md, shape, pd.scratchpad_desc());
    kernel->AddBuffer(DNNL_ARG_MEAN, pd.mean_desc());
    kernel->AddBuffer(DNNL_ARG_VARIANCE, pd.variance_desc());
    return kernel;
  });
}

}  // namespace carve::dnnl_backend
