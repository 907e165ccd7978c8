// Small rewriting helpers shared by the passes (RebuildNode, the one-node
// rebuild primitive, lives in patterns/rebuild.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/attrs.h"
#include "ir/expr.h"
#include "ir/type.h"
#include "ir/visit.h"

namespace carve {

// The tensor type InferType gave `e`, or nullptr (untyped, not a tensor, or
// e is null).
const TensorType* TensorTypeOf(const Expr* e);

// The default attributes of op `op` with `fields` set.
const Attrs* OpAttrs(std::string_view op, std::initializer_list<AttrEntry> fields);

// A call of the registered op `op` (its default attributes when `attrs` is
// null).
const Call* MakeOpCall(IRBuilder& builder, std::string_view op,
                       std::initializer_list<const Expr*> args, const Attrs* attrs = nullptr,
                       Span span = {});

// TVM's ExpandBiasToMatchAxis for one axis: a bias for axis `axis` of an
// `ndim`-dimensional tensor becomes expand_dims(bias, axis=1,
// num_newaxis=ndim-axis-1), so that it broadcasts; `bias` itself when
// `axis` is the last one.
const Expr* ExpandBiasToMatchAxis(IRBuilder& builder, const Expr* bias, int64_t ndim,
                                  int64_t axis, Span span = {});

// An ExprMutator whose rebuilt nodes keep the checked type of the node they
// replace, so a pass that does not change types leaves a typed graph typed.
class TypedMutator : public ExprMutator {
 public:
  using ExprMutator::ExprMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override { return RebuildTyped(e); }
  // Rebuild(e), with e's checked type on a new node.
  const Expr* RebuildTyped(const Expr* e);

  // A let binding a pass keeps, with its (possibly rewritten) value.
  using KeptLet = std::pair<const Let*, const Expr*>;
  // Wraps `body` in the kept bindings of a let chain, outermost first in
  // `kept`, iteratively; a binding whose value and body are unchanged is
  // reused, so an untouched chain stays the same node.
  const Expr* RewrapLetChain(const std::vector<KeptLet>& kept, const Expr* body);
};

}  // namespace carve
