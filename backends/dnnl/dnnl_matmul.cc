// oneDNN matmul for nn.dense (with the composite's bias, sum and activation
// as bias and post-ops) and nn.batch_matmul.
#include <cstring>
#include <optional>
#include <unordered_map>

#include "backends/dnnl/dnnl_common.h"
#include "backends/dnnl/dnnl_kernels.h"
#include "backends/json/attr_codec.h"
#include "fmt/format.h"
#include "support/status_macros.h"

namespace carve::dnnl_backend {
namespace {

using dnnl::memory;

bool AllF32(const NodeBuildContext& ctx) {
  for (size_t i = 0; i < ctx.node().inputs.size(); ++i) {
    if (ctx.InputDType(i) != DataType::Float(32)) return false;
  }
  return ctx.node().dtypes[0] == DataType::Float(32);
}

memory::desc Any(const memory::desc& d) {
  return memory::desc(d.dims(), memory::data_type::f32, memory::format_tag::any);
}

// A prepared matmul: src x weights (+ bias) -> dst, each with a user
// descriptor; constant weights are packed once.
class MatmulKernel : public IntoKernel {
 public:
  struct Plan {
    memory::desc src, weights, dst, bias;  // bias: empty when absent
    size_t src_input = 0, weights_input = 1;
    std::optional<size_t> bias_input, sum_input;
    std::vector<int64_t> out_shape;
    dnnl::primitive_attr attr;
  };

  absl::Status Build(const NodeBuildContext& ctx, Plan plan) {
    plan_ = std::move(plan);
    out_shape_ = plan_.out_shape;
    return Guard([&] {
      memory::desc bias = plan_.bias_input ? plan_.bias : memory::desc();
      dnnl::matmul::desc d(plan_.src, Any(plan_.weights), bias, plan_.dst);
      plan_.attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      dnnl::matmul::primitive_desc pd(d, plan_.attr, Engine());
      weights_ = pd.weights_desc();
      scratchpad_ = ScratchpadFor(pd.scratchpad_desc());
      primitive_ = dnnl::matmul(pd);
      stream_ = dnnl::stream(Engine());
      const NDArray& w = ctx.const_inputs[plan_.weights_input];
      if (w.defined()) {
        weight_keep_ = w;
        packed_ = Reorder(Wrap(plan_.weights, w), weights_, stream_);
        stream_.wait();
      } else {
        weight_reorder_ = LayoutReorder(plan_.weights, weights_);
        weight_reorder_.PrepareApply();
      }
      WarmUp();
    });
  }

  absl::Status RunInto(std::span<const NDArray> inputs, NDArray& out) override {
    return Guard([&] {
      memory weights = packed_ ? packed_
                               : weight_reorder_.Apply(
                                     Rebind(weights_mem_, plan_.weights, inputs[plan_.weights_input]),
                                     stream_);
      memory dst = Rebind(dst_mem_, plan_.dst, out);
      if (plan_.sum_input) {
        std::memcpy(out.raw_data(), inputs[*plan_.sum_input].raw_data(), out.nbytes());
      }
      std::unordered_map<int, memory>& args = call_args_;  // the same keys on every call
      args[DNNL_ARG_SRC] = Rebind(src_mem_, plan_.src, inputs[plan_.src_input]);
      args[DNNL_ARG_WEIGHTS] = weights;
      args[DNNL_ARG_DST] = dst;
      if (plan_.bias_input) {
        args[DNNL_ARG_BIAS] = Rebind(bias_mem_, plan_.bias, inputs[*plan_.bias_input]);
      }
      if (scratchpad_) args[DNNL_ARG_SCRATCHPAD] = scratchpad_.Get();
      primitive_.execute(stream_, args);
      stream_.wait();
    });
  }

 private:
  // oneDNN 2.6's matmul on AVX2 (gemm:jit) generates its GEMM kernels on
  // the primitive's first execution, not when it is made: tiny_transformer's
  // first call took 21 ms of CPU (8x ORT's first run), later calls 0.7 ms.
  // One execution on zeros while the runtime is prepared does that work
  // there, as ORT's session creation does; no later result depends on it.
  // A primitive this cannot run (an argument it lacks) stays cold.
  void WarmUp() {
    try {
      std::unordered_map<int, memory> args{
          {DNNL_ARG_SRC, TouchedMemory(plan_.src)},
          {DNNL_ARG_WEIGHTS, packed_ ? packed_ : TouchedMemory(weights_)},
          {DNNL_ARG_DST, TouchedMemory(plan_.dst)}};
      if (plan_.bias_input) args[DNNL_ARG_BIAS] = TouchedMemory(plan_.bias);
      if (scratchpad_) args[DNNL_ARG_SCRATCHPAD] = scratchpad_.Get();
      primitive_.execute(stream_, args);
      stream_.wait();
    } catch (const dnnl::error&) {
    }
  }

  Plan plan_;
  memory::desc weights_;
  dnnl::primitive primitive_;
  dnnl::stream stream_;
  NDArray weight_keep_;
  memory packed_;
  LayoutReorder weight_reorder_;  // weights that are not constants
  SharedMemory scratchpad_;
  // The call's tensors, re-pointed on every call (Rebind).
  memory src_mem_, weights_mem_, dst_mem_, bias_mem_;
  std::unordered_map<int, memory> call_args_;
};

int64_t Product(const std::vector<int64_t>& v, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= v[i];
  return p;
}

}  // namespace

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlDense(const NodeBuildContext& ctx,
                                                          const FusionSpec& spec) {
  if (!AllF32(ctx)) return absl::UnimplementedError("non-float32 operands");
  if (spec.pad_value || !spec.anchor_extra.empty() || !spec.requantize.empty()) {
    return absl::UnimplementedError("a quantized dense");
  }
  std::vector<int64_t> x = ctx.InputShape(spec.data), w = ctx.InputShape(*spec.weight);
  const std::vector<int64_t>& out = ctx.node().shapes[0];
  if (x.empty() || w.size() != 2) return absl::UnimplementedError("dense operands of this rank");
  int64_t m = Product(x, 0, x.size() - 1), k = x.back(), n = w[0];
  MatmulKernel::Plan plan;
  plan.src = F32Plain({m, k});
  plan.weights = F32Desc({k, n}, {1, k});  // W is (units, K): its transpose
  plan.dst = F32Plain({m, n});
  plan.src_input = spec.data;
  plan.weights_input = *spec.weight;
  plan.out_shape = out;
  if (spec.bias) {
    std::vector<int64_t> bias = ctx.InputShape(*spec.bias);
    if (Product(bias, 0, bias.size()) != n ||
        !BiasPerChannel(ctx.node(), spec, bias, int64_t(out.size()) - 1)) {
      return absl::UnimplementedError("a bias that is not per unit");
    }
    plan.bias = F32Plain({1, n});
    plan.bias_input = spec.bias;
  }
  if (spec.sum) {
    if (ctx.InputShape(*spec.sum) != out) return absl::UnimplementedError("a broadcast sum");
    plan.sum_input = spec.sum;
  }
  dnnl::post_ops ops;
  if (spec.sum) ops.append_sum(1.f);
  CARVE_RETURN_IF_ERROR(AppendActivation(spec.activation, ctx, ops));
  plan.attr.set_post_ops(ops);
  auto kernel = std::make_unique<MatmulKernel>();
  CARVE_RETURN_IF_ERROR(kernel->Build(ctx, std::move(plan)));
  return std::unique_ptr<NodeKernel>(std::move(kernel));
}

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlBatchMatmul(const NodeBuildContext& ctx) {
  if (!AllF32(ctx)) return absl::UnimplementedError("non-float32 operands");
  const JsonNode& node = ctx.node();
  bool ta = NodeInt(node, "transpose_a").value_or(0) != 0;
  bool tb = NodeInt(node, "transpose_b").value_or(1) != 0;
  std::vector<int64_t> a = ctx.InputShape(0), b = ctx.InputShape(1);
  if (a.size() != 3 || b.size() != 3) return absl::UnimplementedError("batch_matmul of rank != 3");
  int64_t m = ta ? a[2] : a[1], k = ta ? a[1] : a[2], n = tb ? b[1] : b[2];
  // Logical (B, M, K) x (B, K, N) over the stored (B, rows, cols) tensors.
  auto desc = [](const std::vector<int64_t>& s, bool transposed, int64_t rows, int64_t cols) {
    int64_t batch_stride = s[1] * s[2];
    return transposed ? F32Desc({s[0], rows, cols}, {batch_stride, 1, s[2]})
                      : F32Desc({s[0], rows, cols}, {batch_stride, s[2], 1});
  };
  MatmulKernel::Plan plan;
  plan.src = desc(a, ta, m, k);
  plan.weights = desc(b, tb, k, n);
  plan.out_shape = node.shapes[0];
  plan.dst = F32Plain(plan.out_shape);
  auto kernel = std::make_unique<MatmulKernel>();
  CARVE_RETURN_IF_ERROR(kernel->Build(ctx, std::move(plan)));
  return std::unique_ptr<NodeKernel>(std::move(kernel));
}

}  // namespace carve::dnnl_backend
