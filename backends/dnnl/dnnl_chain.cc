// multiply(x, clip(add(x, k), lo, hi)) in one pass over x: the hard-swish of
// MobileNetV3-style networks (k = 3, clip to [0, 6]; the `/ 6` stays on the
// host, TVM's dnnl partition does not offload divide). As separate nodes
// this is a binary add, an eltwise clip and a binary multiply, each a oneDNN
// primitive with its own output tensor: in ppocr's dnnl partition 54 of the
// ~200 primitive executions of a call. The multiply's kernel computes the
// chain from x, and the runtime skips the add and the clip, which nothing
// else reads (NodeKernel::ReadsInput).
//
// The values are those of the three primitives: x + k and x * t are single
// IEEE operations either way, and clip differs from oneDNN's only on NaN
// (oneDNN's max returns the bound, this loop the NaN), where x itself is
// NaN and so is the product.
#include <cmath>
#include <optional>

#include "backends/dnnl/dnnl_kernels.h"
#include "backends/json/attr_codec.h"
#include "fmt/format.h"
#include "ir/ndarray_uninitialized.h"

namespace carve::dnnl_backend {
namespace {

struct ClipMultiply {
  size_t x_input = 0;  // the multiply's operand that is x (the other is the clip)
  float k = 0, lo = 0, hi = 0;
};

bool IsKernel(const JsonNode& node, std::string_view name, size_t inputs) {
  return node.op == "kernel" && node.name == name && node.inputs.size() == inputs &&
         node.num_outputs == 1 && node.dtypes[0] == DataType::Float(32);
}

// The chain ending at the multiply `ctx.node()`, when the add and the clip
// have no other reader, k is a finite float32 scalar constant and no
// operand is broadcast.
std::optional<ClipMultiply> MatchClipMultiply(const NodeBuildContext& ctx) {
  if (ctx.entry_readers == nullptr || ctx.entry_constants == nullptr || ctx.row_ptr == nullptr) {
    return std::nullopt;
  }
  const JsonGraph& g = *ctx.graph;
  const JsonNode& mul = ctx.node();
  if (!IsKernel(mul, "multiply", 2)) return std::nullopt;
  const std::vector<uint32_t>& readers = *ctx.entry_readers;
  for (size_t c_input = 0; c_input < 2; ++c_input) {
    const size_t x_input = 1 - c_input;
    const JsonEntry& x = mul.inputs[x_input];
    const JsonNode& clip = g.nodes[mul.inputs[c_input].node];
    if (ctx.InputDType(x_input) != DataType::Float(32) || ctx.InputShape(x_input) != mul.shapes[0]) {
      continue;
    }
    if (!IsKernel(clip, "clip", 1) || clip.shapes[0] != mul.shapes[0] ||
        readers[ctx.EntryOf(ctx.nid, c_input)] != 1) {
      continue;
    }
    const uint32_t add_id = clip.inputs[0].node;
    const JsonNode& add = g.nodes[add_id];
    if (!IsKernel(add, "add", 2) || add.shapes[0] != mul.shapes[0] ||
        readers[(*ctx.row_ptr)[add_id] + clip.inputs[0].index] != 1) {
      continue;
    }
    for (size_t k_input = 0; k_input < 2; ++k_input) {
      const JsonEntry& other = add.inputs[1 - k_input];
      if (other.node != x.node || other.index != x.index) continue;
      const NDArray& k = (*ctx.entry_constants)[ctx.EntryOf(add_id, k_input)];
      if (!k.defined() || k.dtype() != DataType::Float(32) || k.num_elements() != 1) continue;
      absl::StatusOr<double> lo = NodeFloat(clip, "a_min"), hi = NodeFloat(clip, "a_max");
      if (!lo.ok() || !hi.ok()) continue;
      ClipMultiply m{x_input, k.data<float>()[0], float(*lo), float(*hi)};
      if (!std::isfinite(m.k) || !(m.lo <= m.hi)) continue;
      return m;
    }
  }
  return std::nullopt;
}

class ClipMultiplyKernel : public NodeKernel {
 public:
  ClipMultiplyKernel(ClipMultiply m, std::vector<int64_t> shape) : m_(m), shape_(std::move(shape)) {}

  bool ReadsInput(size_t input) const override { return input == m_.x_input; }

  absl::StatusOr<std::vector<NDArray>> Run(std::span<const NDArray> inputs) override {
    const NDArray& x = inputs[m_.x_input];
    NDArray out = UninitializedNDArray(DataType::Float(32), shape_);  // the loop writes it all
    const float* in = x.data<float>();
    float* o = out.data<float>();
    const float k = m_.k, lo = m_.lo, hi = m_.hi;
    const int64_t n = out.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      float t = in[i] + k;
      t = t < lo ? lo : t;
      t = t > hi ? hi : t;
      o[i] = in[i] * t;
    }
    return std::vector<NDArray>{std::move(out)};
  }

 private:
  ClipMultiply m_;
  std::vector<int64_t> shape_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlMultiply(const NodeBuildContext& ctx) {
  if (std::optional<ClipMultiply> m = MatchClipMultiply(ctx)) {
    return std::make_unique<ClipMultiplyKernel>(*m, ctx.node().shapes[0]);
  }
  return MakeDnnlBinary(ctx);
}

}  // namespace carve::dnnl_backend
