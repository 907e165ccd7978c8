// FoldConstant (TVM v0.16 src/relay/transforms/fold_constant.cc): replaces op
// calls whose arguments are all constants (or tuples of constants) by their
// value, projections of tuple literals by the field, and let-bound
// constants by the constant.
//
// Skipped, as in TVM: calls without arguments, calls of non-ops, stateful
// ops, non-computational ops (annotations; qnn ops unless fold_qnn), and
// everything inside `Primitive` functions (partitions, fused functions).
//
// Computing a value needs kernels, which live in the interpreter; passes do
// not link it. The pass therefore takes a ConstantEvaluator. Tools install
// the interpreter's (SetConstantEvaluator); without one, only the calls that
// move no data are folded: reshape, expand_dims, squeeze, nn.batch_flatten
// and copy (a reshaped view of the constant).
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/ndarray.h"
#include "passes/pass.h"

namespace carve {

// Computes a typed op call on constant arguments (tuple arguments
// flattened, in order). Returns the result: one tensor, or the fields of a
// tuple-typed result.
using ConstantEvaluator = std::function<absl::StatusOr<std::vector<NDArray>>(
    const Call* call, std::span<const NDArray> args)>;

// Installs the process-wide evaluator FoldConstant uses (null: none).
void SetConstantEvaluator(ConstantEvaluator evaluator);
// The installed evaluator, or null.
ConstantEvaluator GetConstantEvaluator();

// Folds one typed function with `evaluator` (may be null).
absl::StatusOr<const Function*> FoldConstantFunction(const Function* fn,
                                                     const ConstantEvaluator& evaluator,
                                                     bool fold_qnn, Arena* arena);

// The pass, with the installed evaluator.
PassPtr FoldConstant(bool fold_qnn = false);

}  // namespace carve
