// SimplifyInference (TVM's src/relay/transforms/simplify_inference.cc):
// rewrites the normalisation ops an inference graph no longer needs as ops
// into plain arithmetic, so later passes (FoldConstant, FoldScaleAxis) and
// backend patterns see multiply/add chains:
//   - `nn.batch_norm(x, g, b, m, v).0` ->
//       add(multiply(x, E(s)), E(add(multiply(negative(m), s), b)))
//     with s = multiply(divide(1, sqrt(add(v, eps))), g) and E the
//     expand_dims that broadcasts a per-channel vector against x's axis
//     (`g` only when scale=True, `b` only when center=True; the two scalar
//     constants have x's dtype). The other fields of the tuple are left.
//   - `nn.dropout(x).0` -> x.
//   - `nn.layer_norm`, `nn.instance_norm` -> mean / variance / sqrt /
//     divide, then multiply by E(gamma) and add E(beta).
// TVM also rewrites nn.group_norm and nn.l2_normalize; carve's op registry
// has neither, so no parsed graph can contain them.
// Requires types (the data's type gives rank and dtype); a norm whose data
// is untyped or not a tensor is left alone (TVM would abort).
#pragma once

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"

namespace carve {

absl::StatusOr<const Function*> SimplifyInferenceFunction(const Function* fn, Arena* arena);
PassPtr SimplifyInference();

}  // namespace carve
