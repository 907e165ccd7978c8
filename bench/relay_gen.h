// Generators of large, realistic Relay programs for benchmarks and stress
// tests. Output is Relay text (v0.0.5) that carve and TVM both parse.
#pragma once

#include <cstdint>
#include <string>

namespace carve::bench {

enum class GraphKind {
  kResNet,       // conv2d -> bias_add -> relu chains with residual adds
  kTransformer,  // dense / batch_matmul / softmax / layer_norm blocks
  kChain,        // one long add chain (stack-depth stress)
};

// About `num_ops` operator calls of the given kind.
std::string GenerateRelay(GraphKind kind, int64_t num_ops);

}  // namespace carve::bench
