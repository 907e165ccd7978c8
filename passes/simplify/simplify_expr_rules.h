// The rules of SimplifyExpr (simplify_expr.h), one factory per TVM v0.16
// rewrite class, grouped by file:
//   simplify_expr_like.cc:      Concretize{ZerosLike,OnesLike,FullLike,
//                               ReshapeLike,CollapseSumLike,BroadcastToLike,
//                               CastLike}
//   simplify_expr_arith.cc:     SimplifyAdd, SimplifyRSqrt, EliminateIdentity,
//                               FullElementwise, SwitchAddMultiply,
//                               SimplifyAdjacentMultiplyOrAdd, SimplifyDQArg*,
//                               SimplifyBinomial
//   simplify_expr_layout.cc:    SimplifyReshape, SimplifyTranspose,
//                               SimplifyNoOpTranspose
//   simplify_expr_cast.cc:      SimplifySameCast, SimplifyConsecutiveCast,
//                               SimplifyClipAndConsecutiveCast, SimplifyClip
// Every node a rule builds gets its checked type (TypedOpCall), so later
// rules of the same round can read types as TVM's do after its InferType.
#pragma once

#include <initializer_list>
#include <span>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/expr.h"
#include "patterns/rewrite.h"

namespace carve::simplify {

// A call of op `op` on typed `args` (attrs: the op's defaults when null),
// typed by the op's type relation.
absl::StatusOr<const Expr*> TypedOpCall(IRBuilder& b, std::string_view op,
                                        std::span<const Expr* const> args,
                                        const Attrs* attrs = nullptr);
inline absl::StatusOr<const Expr*> TypedOpCall(IRBuilder& b, std::string_view op,
                                               std::initializer_list<const Expr*> args,
                                               const Attrs* attrs = nullptr) {
  return TypedOpCall(b, op, std::span<const Expr* const>(args.begin(), args.size()), attrs);
}
// A typed rank-0 constant (TVM's MakeConstantScalar).
const Expr* TypedScalar(IRBuilder& b, DataType dtype, double value);

// simplify_expr_like.cc
RewriteRule ConcretizeZerosLike();
RewriteRule ConcretizeOnesLike();
RewriteRule ConcretizeFullLike();
RewriteRule ConcretizeReshapeLike();
RewriteRule ConcretizeCollapseSumLike();
RewriteRule ConcretizeBroadcastToLike();
RewriteRule ConcretizeCastLike();

// simplify_expr_arith.cc
RewriteRule SimplifyAdd();
RewriteRule SimplifyRSqrt();
RewriteRule EliminateIdentity();
RewriteRule FullElementwise();
RewriteRule SwitchAddMultiply();
RewriteRule SimplifyAdjacentMultiplyOrAdd();
RewriteRule SimplifyDQArg(std::string_view arg_op);
RewriteRule SimplifyBinomial();

// simplify_expr_layout.cc
RewriteRule SimplifyReshape();
RewriteRule SimplifyTranspose();
RewriteRule SimplifyNoOpTranspose();

// simplify_expr_cast.cc
RewriteRule SimplifySameCast();
RewriteRule SimplifyConsecutiveCast();
RewriteRule SimplifyClipAndConsecutiveCast();
RewriteRule SimplifyClip(absl::flat_hash_set<const OpInfo*> keep_after);

}  // namespace carve::simplify
