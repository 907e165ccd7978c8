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
#include <algorithm>
#include <cmath>
#include <optional>

#include "backends/dnnl/dnnl_common.h"
#include "backends/dnnl/dnnl_kernels.h"
#include "backends/dnnl/dnnl_transpose.h"
#include "backends/json/attr_codec.h"
#include "fmt/format.h"
#include "support/status_macros.h"

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

// The chain on n values of x into out (out may be x).
void ClipMultiplyLoop(const ClipMultiply& m, const float* x, int64_t n, float* out) {
  const float k = m.k, lo = m.lo, hi = m.hi;
  for (int64_t i = 0; i < n; ++i) {
    float t = x[i] + k;
    t = t < lo ? lo : t;
    t = t > hi ? hi : t;
    out[i] = x[i] * t;
  }
}

class ClipMultiplyKernel : public NodeKernel {
 public:
  ClipMultiplyKernel(ClipMultiply m, std::vector<int64_t> shape) : m_(m), shape_(std::move(shape)) {}

  bool ReadsInput(size_t input) const override { return input == m_.x_input; }
  bool FreshOutputs() const override { return true; }  // Run and FromBlocks allocate it

  absl::StatusOr<std::vector<NDArray>> Run(std::span<const NDArray> inputs) override {
    const NDArray& x = inputs[m_.x_input];
    NDArray out = NDArray::Uninitialized(DataType::Float(32), shape_);  // the loop writes it all
    ClipMultiplyLoop(m_, x.data<float>(), out.num_elements(), out.data<float>());
    return OneTensor(std::move(out));
  }

  // x may come in a convolution's channel blocks (the last op of most of
  // ppocr's regions is this chain on a convolution's result): the chain
  // then runs on the blocks, a few pixels at a time into a buffer that
  // stays in L1, and the buffer is transposed into the plain result. One
  // pass over the tensor instead of two (the conversion to plain, then the
  // chain), and the same values: the chain is elementwise.
  bool TakesNative(size_t input) const override { return input == m_.x_input; }

  absl::StatusOr<std::vector<KernelValue>> RunNative(std::span<const KernelValue> inputs,
                                                     bool native_output) override {
    if (native_output) return absl::InternalError("the hard-swish chain makes plain tensors only");
    const KernelValue& x = inputs[m_.x_input];
    std::vector<NDArray> plain(inputs.size());
    if (x.native == nullptr) {
      plain[m_.x_input] = x.plain;
    } else {
      const auto* tensor = dynamic_cast<const DnnlTensor*>(x.native.get());
      if (tensor == nullptr) return absl::InternalError("a native input not made by oneDNN");
      if (std::optional<NDArray> out = FromBlocks(*tensor)) return OnePlainValue(*std::move(out));
      CARVE_ASSIGN_OR_RETURN(plain[m_.x_input], tensor->ToPlain());
    }
    CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> out, Run(plain));
    return OnePlainValue(std::move(out[0]));
  }

 private:
  // The chain's result from x in channel blocks, when x is (else nullopt).
  std::optional<NDArray> FromBlocks(const DnnlTensor& x) {
    const dnnl::memory::desc from = x.memory().get_desc();
    if (!(from == blocks_from_)) {
      blocks_from_ = from;
      blocks_ = PlanChannelsTranspose(from, x.plain());
      if (blocks_ && (blocks_->block == 0 || blocks_->to_blocked)) blocks_.reset();
      if (blocks_) buffer_.resize(size_t(kChunk * blocks_->block));
    }
    if (!blocks_) return std::nullopt;
    const ChannelsTranspose& t = *blocks_;
    NDArray out = NDArray::Uninitialized(DataType::Float(32), shape_);  // every real channel written
    const float* src = static_cast<const float*>(x.memory().get_data_handle());
    float* dst = out.data<float>();
    const int64_t pixels = t.cols, blk = t.block;
    for (int64_t n = 0; n < t.batch; ++n) {
      for (int64_t c0 = 0; c0 < t.rows; c0 += blk) {
        const int64_t real = std::min(blk, t.channels - c0);
        // Block c0 / blk: a pixels x blk matrix.
        const float* block = src + (n * t.rows + c0) * pixels;
        float* plane = dst + (n * t.channels + c0) * pixels;
        for (int64_t p0 = 0; p0 < pixels; p0 += kChunk) {
          const int64_t len = std::min(kChunk, pixels - p0);
          ClipMultiplyLoop(m_, block + p0 * blk, len * blk, buffer_.data());
          TransposeMatrix(buffer_.data(), len, real, blk, plane + p0, pixels);
        }
      }
    }
    return out;
  }

  static constexpr int64_t kChunk = 128;  // pixels per buffer: 4 KB (blocks of 8) or 8 KB
  ClipMultiply m_;
  std::vector<int64_t> shape_;
  dnnl::memory::desc blocks_from_;  // the layout blocks_ was planned for
  std::optional<ChannelsTranspose> blocks_;
  std::vector<float> buffer_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeDnnlMultiply(const NodeBuildContext& ctx) {
  if (std::optional<ClipMultiply> m = MatchClipMultiply(ctx)) {
    return std::make_unique<ClipMultiplyKernel>(*m, ctx.node().shapes[0]);
  }
  return MakeDnnlBinary(ctx);
}

}  // namespace carve::dnnl_backend
