// Decoding a composite node into the fused computation it stands for.
//
// The backends' composites are chains around one anchor op:
//
//   [nn.pad] -> ANCHOR -> [bias: add | nn.bias_add] -> [sum: add]
//            -> [activation] -> [qnn.requantize]
//
// where the activation is a unary op (nn.relu, sigmoid, tanh, clip) or one of
// the multi-op forms the pattern tables spell out: erf-GELU (DNNL: divide,
// erf, add, multiply, multiply), tanh-GELU (BNNS: power, multiply, add,
// multiply, tanh, add, multiply, multiply), swish (sigmoid, multiply) and
// mish (exp, add, log, tanh, multiply). The node's `body` attribute
// (serializer.h) lists the ops in this order with their arguments, and its
// inputs are the body's leaves in the same order, so the body says which
// input is the data, the weight, the bias and each constant of the
// activation, and proves that the ops do form such a chain.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/json/json_graph.h"

namespace carve {

enum class Activation : uint8_t {
  kNone,
  kRelu,
  kSigmoid,
  kTanh,
  kClip,      // min(max(x, lo), hi)
  kGeluErf,   // x * (erf(x / div) + add) * mul; (sqrt 2, 1, 0.5) is GELU
  kGeluTanh,  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  kSwish,     // x * sigmoid(x)
  kMish,      // x * tanh(log(exp(x) + add)); add = 1 is mish
};

// "relu", "gelu_erf", ... for messages.
std::string_view ActivationName(Activation a);

struct ActivationSpec {
  Activation kind = Activation::kNone;
  // Clip bounds.
  double lo = 0, hi = 0;
  // Inputs holding the scalar constants of kGeluErf (div, add, mul) and
  // kMish (add), in that order.
  std::vector<size_t> scalars;
};

struct FusionSpec {
  std::string anchor;  // the anchor op's name
  size_t data = 0;
  std::optional<size_t> weight;          // absent for single-input anchors (pools)
  std::vector<size_t> anchor_extra;      // further anchor inputs (qnn zero points, scales)
  std::optional<size_t> pad_value;       // a pad op (pad_op) before the anchor
  std::string pad_op;
  std::optional<size_t> bias;
  std::string bias_op;                   // an op of FusionRule::kBias ("add", "nn.bias_add")
  std::optional<size_t> sum;             // a second add of a whole tensor (DNNL *_sum)
  ActivationSpec activation;
  // qnn.requantize after the anchor: input_scale, input_zero_point,
  // output_scale, output_zero_point.
  std::vector<size_t> requantize;
};

// Whether the bias op of `spec` broadcasts its bias along an axis attribute
// (nn.bias_add) rather than numpy-style (add): an op fact, see ir/op_rules.h.
bool BiasAlongAxisAttr(const FusionSpec& spec);

// Decodes `node` (a composite kernel node). InvalidArgument when the body is
// missing or does not have the shape above, or when the inputs do not match
// it; the message names the op that does not fit.
absl::StatusOr<FusionSpec> DecodeFusion(const JsonNode& node);

// The index of the channel axis of the anchor's output: the position of 'C'
// in out_layout (else data_layout, else layout) for convolutions and pools,
// the last axis for dense and batch_matmul.
absl::StatusOr<int64_t> OutputChannelAxis(const JsonNode& node, const FusionSpec& spec);

// Whether the bias of `spec` (of shape `bias_shape`) adds one value per
// channel along `axis` of the node's output: an nn.bias_add whose axis is
// that axis, or an `add` operand that broadcasts along that axis only. A
// bias of as many elements as channels along another axis (bias_add's
// default axis 1 on a rank-3 dense) is not: kernels that add per channel
// must not take it.
bool BiasPerChannel(const JsonNode& node, const FusionSpec& spec,
                    const std::vector<int64_t>& bias_shape, int64_t axis);

}  // namespace carve
