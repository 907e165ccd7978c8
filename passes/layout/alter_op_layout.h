// AlterOpLayout (TVM v0.16 src/relay/transforms/alter_op_layout.cc, opt
// level 3): TVM's layout rewriter with each op's target-specific
// FTVMAlterOpLayout. carve has no target: like TVM with no target in scope
// (the generic conv2d / dense alter functions return None), no op changes
// its layout. What remains is the rewriter's broadcast rule
// (BinaryBroadcastLayout): next to a value whose layout an op's
// FInferCorrectLayout defines (the output of a convolution, dense, pool or
// resize, and of the elementwise ops, transpose, strided_slice, split,
// squeeze, norms and reductions after it), a broadcast operand of lower
// rank is expand_dims'ed to the other operand's rank, so a conv2d's `add` bias of
// shape (C, 1, 1) becomes (1, C, 1, 1) and a dense's (units) becomes
// (1, units). partition_for_bnns runs it (then FoldConstant folds the
// expand_dims into the constant). nn.bias_add has no layout rule in TVM
// and keeps its rank-1 bias.
#pragma once

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"

namespace carve {

absl::StatusOr<const Function*> AlterOpLayoutFunction(const Function* fn, Arena* arena);

PassPtr AlterOpLayout();

}  // namespace carve
