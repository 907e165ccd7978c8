// The dnnl runtime: the graphs of Compiler="dnnl" functions on Intel's
// oneDNN library (Debian's libdnnl, C++ API), as TVM's DNNL JSON runtime.
//
// Convolutions, deconvolutions and dense layers (alone or as the anchors of
// dnnl.conv2d_bias_relu, dnnl.dense_bias_gelu, dnnl.conv2d_bias_sum_relu,
// ...) become one oneDNN primitive with the bias as its bias operand and the
// sum and activation as post-ops (sum, eltwise relu / logistic / tanh / clip
// / gelu_erf / gelu_tanh / swish / mish). Eltwise ops, softmax, pooling,
// add / multiply, batch_matmul and layer_norm are oneDNN primitives too.
// Whatever oneDNN cannot take exactly (another dtype, a broadcast it lacks,
// a GELU spelled with other constants, the qnn chains) runs on carve's
// kernels instead: composites on the fused Eigen kernels, ops on the
// reference kernels.
#include "backends/dnnl/dnnl_common.h"
#include "backends/dnnl/dnnl_kernels.h"
#include "backends/kernels/eigen_backend.h"
#include "backends/runtime/backend_runtime.h"
#include "backends/runtime/json_runtime.h"

namespace carve::dnnl_backend {
namespace {

using Factory = std::function<absl::StatusOr<std::unique_ptr<NodeKernel>>(const NodeBuildContext&)>;

// Whether every input and output of the node has a static, non-empty shape.
// oneDNN primitives are created for fixed dims: a `?` dim (-1) is no dim to
// it (its descriptors throw), and a zero extent divides by zero inside some
// primitives (a dense of batch 0) or is rejected by others (batch_matmul),
// so such nodes run on carve's kernels, which size them at run time.
bool OneDnnCanTake(const NodeBuildContext& ctx) {
  auto fixed = [](const std::vector<int64_t>& shape) {
    for (int64_t d : shape) {
      if (d <= 0) return false;
    }
    return true;
  };
  for (size_t i = 0; i < ctx.node().inputs.size(); ++i) {
    if (!fixed(ctx.InputShape(i))) return false;
  }
  for (const std::vector<int64_t>& shape : ctx.node().shapes) {
    if (!fixed(shape)) return false;
  }
  return true;
}

// `primary`, or `fallback` when `primary` reports a node it cannot take.
// oneDNN errors while building never escape: they become statuses.
NodeKernelFactory WithFallback(Factory primary, NodeKernelFactory fallback) {
  return [primary, fallback](const NodeBuildContext& ctx) -> absl::StatusOr<std::unique_ptr<NodeKernel>> {
    if (!OneDnnCanTake(ctx)) return fallback(ctx);
    absl::StatusOr<std::unique_ptr<NodeKernel>> k;
    absl::Status guarded = Guard([&] { k = primary(ctx); });
    if (!guarded.ok()) k = guarded;
    if (k.ok() || !IsFallback(k.status())) return k;
    return fallback(ctx);
  };
}

// Composite and single conv / dense nodes: the anchor with its chain.
absl::StatusOr<std::unique_ptr<NodeKernel>> AnchorKernel(const NodeBuildContext& ctx,
                                                         const FusionSpec& spec) {
  const std::string& anchor = spec.anchor;
  if (!spec.weight) return absl::UnimplementedError("an anchor without weights");
  if (anchor == "nn.dense") return MakeDnnlDense(ctx, spec);
  if (anchor.starts_with("nn.conv")) return MakeDnnlConv(ctx, spec);
  return absl::UnimplementedError(anchor);
}

absl::StatusOr<std::unique_ptr<NodeKernel>> CompositeKernel(const NodeBuildContext& ctx) {
  absl::StatusOr<FusionSpec> spec = DecodeFusion(ctx.node());
  if (!spec.ok()) return absl::UnimplementedError(std::string(spec.status().message()));
  return AnchorKernel(ctx, *spec);
}

absl::StatusOr<std::unique_ptr<NodeKernel>> SingleAnchorKernel(const NodeBuildContext& ctx) {
  FusionSpec spec;
  spec.anchor = ctx.node().name;
  spec.data = 0;
  spec.weight = 1;
  return AnchorKernel(ctx, spec);
}

}  // namespace

std::shared_ptr<BackendKernels> MakeDnnlKernels(std::string name) {
  auto kernels = std::make_shared<BackendKernels>(std::move(name));
  kernels->SetThreadControl(SetOneDnnThreads);
  kernels->SetCompositeDefault(WithFallback(CompositeKernel, FusedOrChainFactory()));
  NodeKernelFactory reference = MakeReferenceKernel;
  for (const char* op : {"nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.conv2d_transpose",
                         "nn.conv3d_transpose", "nn.dense"}) {
    kernels->Add(op, WithFallback(SingleAnchorKernel, reference));
  }
  for (const char* op : {"nn.relu", "tanh", "sigmoid", "exp", "log", "sqrt", "abs", "round", "clip",
                         "nn.leaky_relu"}) {
    kernels->Add(op, WithFallback(MakeDnnlEltwise, reference));
  }
  for (const char* op : {"nn.max_pool2d", "nn.avg_pool2d", "nn.max_pool3d", "nn.avg_pool3d",
                         "nn.global_avg_pool2d"}) {
    kernels->Add(op, WithFallback(MakeDnnlPool, reference));
  }
  kernels->Add("nn.softmax", WithFallback(MakeDnnlSoftmax, reference));
  kernels->Add("add", WithFallback(MakeDnnlBinary, reference));
  kernels->Add("multiply", WithFallback(MakeDnnlMultiply, reference));
  kernels->Add("nn.batch_matmul", WithFallback(MakeDnnlBatchMatmul, reference));
  kernels->Add("nn.layer_norm", WithFallback(MakeDnnlLayerNorm, reference));
  return kernels;
}

namespace {

std::shared_ptr<const BackendKernels> MakeDefaultDnnlKernels() { return MakeDnnlKernels(); }

}  // namespace

CARVE_REGISTER_BACKEND_RUNTIME(MakeDefaultDnnlKernels);

}  // namespace carve::dnnl_backend
