// The unifier behind InferType: type holes (IncompleteType) joined by
// union-find, bound to types as inference learns them, and watched by the
// deferred type relations that wait for them.
//
// Holes appear only where the program leaves a type open: parameters without
// annotations (the composite functions MergeComposite creates), let-bound
// function literals without annotations, calls of values whose type is still
// a hole, and `_` annotations. Fully annotated programs never create one.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "ir/type.h"

namespace carve {

class TypeUnifier {
 public:
  // A fresh, unbound hole.
  const IncompleteType* NewHole();

  // The type of an expression whose error has already been reported. It
  // unifies with everything and spreads silently, so one mistake yields one
  // diagnostic.
  static const Type* Poison();

  // `t` with every bound hole replaced by its binding, recursively. Unbound
  // holes are replaced by the representative of their class.
  const Type* Resolve(const Type* t);

  // One level of Resolve: follows a hole to its binding (or representative);
  // other types are returned as they are.
  const Type* Shallow(const Type* t);

  enum class State : uint8_t { kComplete, kHoles, kPoisoned };
  // Whether a resolved type is complete, still has unbound holes, or contains
  // Poison (which dominates).
  State Classify(const Type* resolved) const {
    // Tensors first, inline: almost every type a typer meets is one.
    if (resolved != nullptr && resolved->kind() == TypeKind::kTensor) return State::kComplete;
    return ClassifyOther(resolved);
  }

  // Appends the unbound holes of a resolved type to `out`.
  void CollectHoles(const Type* resolved, std::vector<const IncompleteType*>& out) const;

  // Makes `a` and `b` equal by binding holes and returns the unified type, or
  // nullptr when they cannot be equal (holes bound before the conflict stay
  // bound; the caller reports the error). Tensor dims unify when equal or
  // when either is `?` (giving `?`), as in TVM's type solver. Poison on
  // either side gives Poison.
  const Type* Unify(const Type* a, const Type* b);

  // `t` with its type parameters replaced by fresh holes (the instantiation
  // of a polymorphic function type at a call); `t` itself when it has none.
  const Type* Instantiate(const FuncType* t);

  // `t` with each type variable that is a key of `map` replaced by its value
  // (a constructor's field types at a data type's arguments).
  const Type* Substitute(const Type* t, const absl::flat_hash_map<const Type*, const Type*>& map);

  // Registers `watcher` to be woken when `hole`'s class gets bound.
  void Watch(const IncompleteType* hole, uint32_t watcher);

  // Watchers whose holes were bound since the last call, in order.
  std::vector<uint32_t> TakeWoken();
  bool has_woken() const { return !woken_.empty(); }

  // Forgets every hole (capacity is kept for the next function).
  void Clear();

 private:
  struct HoleInfo {
    uint32_t parent;
    const Type* binding = nullptr;
    std::vector<uint32_t> watchers;
  };

  State ClassifyOther(const Type* resolved) const;
  State ClassifyComposite(const Type* resolved) const;
  // Index of `hole` in holes_, registering holes created elsewhere (`_`
  // annotations written in the program) on first sight.
  uint32_t IndexOf(const IncompleteType* hole);
  // Resolves each of `types`; when any changes, writes all of them to `out`
  // and returns true (else leaves `out` alone).
  bool ResolveAll(std::span<const Type* const> types, absl::InlinedVector<const Type*, 8>& out);
  uint32_t Find(uint32_t i);
  bool Occurs(uint32_t root, const Type* resolved);
  void Bind(uint32_t root, const Type* t);
  void Union(uint32_t a, uint32_t b);
  const Type* UnifyTensors(const TensorType* a, const TensorType* b);
  // Binds the hole `a` or `b` (one of them is a hole) to the other type.
  const Type* UnifyWithHole(const Type* a, const Type* b, bool a_hole);
  // Unify of two types of one kind, field by field.
  const Type* UnifyTuples(const TupleType* a, const TupleType* b);
  const Type* UnifyFuncs(const FuncType* x, const FuncType* y);
  const Type* UnifyTypeCalls(const TypeCall* x, const TypeCall* y);
  // `x` with the type parameters `y` lacks instantiated with fresh holes and
  // the others renamed to `y`'s, in order (TVM's type solver).
  const FuncType* MatchTypeParams(const FuncType* x, const FuncType* y);

  std::vector<HoleInfo> holes_;
  std::vector<const IncompleteType*> hole_types_;
  absl::flat_hash_map<const IncompleteType*, uint32_t> index_;
  std::vector<uint32_t> woken_;
  // Composite types found complete (no hole, no Poison). Types are interned
  // and immutable, so one stays complete: Classify and Resolve of a tuple
  // type nested N deep cost O(1) after the first time, not O(N) per use
  // (a chain of 20000 nested tuples took 11 s to type-check).
  mutable absl::flat_hash_set<const Type*> complete_;
};

}  // namespace carve
