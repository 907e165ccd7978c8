// Which shape dimensions of the printed constants are one object in TVM.
//
// TVM's `#[metadata]` section serialises each meta[relay.Constant][i] with its
// checked type, whose shape is an Array of IntImm objects; the JSON writer
// writes an object once and refers to it by index afterwards. After InferType
// a constant's checked type is not always its own shape: when a type relation
// assigns a type to an input (bias_add's bias, a dense or conv weight given
// units / channels and kernel_size, batch_norm's gamma/beta/mean/var, ...),
// the solver resolves the constant to the relation's type, whose dims are the
// objects the relation took from its other inputs or its attributes. So a
// bias constant after a dense layer shares the dense's `units` IntImm with the
// dense weight, and a second dense's weight shares the first one's.
//
// DimIdentity models that object identity: every dim of every value gets a
// token, and each call's relation copies tokens where TVM's relation copies
// the PrimExpr object and mints new ones where TVM computes a new value (the
// rules live next to the relations: ir/dim_sharing.h). Relations without a
// rule give fresh tokens, which is what TVM does for any computed extent.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/dim_sharing.h"
#include "ir/expr.h"

namespace carve::print_internal {

class DimIdentity {
 public:
  // Tokens for every node reachable from `root` (a definition's function).
  void Analyse(const Expr* root);
  // One token per dim of `constant`'s shape: equal tokens are one IntImm
  // object in TVM. Constants Analyse did not reach get fresh tokens.
  std::vector<int64_t> ConstantDims(const Constant* constant);

 private:
  using Toks = DimTokens;
  // One call as the rules of ir/dim_sharing.h see it.
  class CallView;
  Toks Fresh(const Type* type);
  std::vector<int64_t> FreshDims(size_t n);
  const Toks* Lookup(const Expr* e);
  void VisitCall(const Call* call);
  // The relation of `call` assigns `toks` to its argument `arg`.
  void Assign(const Expr* arg, std::vector<int64_t> toks);

  int64_t next_ = 0;
  absl::flat_hash_map<const Expr*, Toks> toks_;
  absl::flat_hash_map<const Var*, const Expr*> let_values_;
  absl::flat_hash_map<const Constant*, std::vector<int64_t>> assigned_;
};

}  // namespace carve::print_internal
