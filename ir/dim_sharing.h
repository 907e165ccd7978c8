// Which dimension objects a type relation shares between its inputs and its
// output: the companion of each relation in ir/rel_*.cc, one rule per
// relation, in ir/dim_sharing_*.cc (one file per family of relations).
//
// TVM's relations build types from PrimExpr objects: a relation that copies
// an input's extent into the output (or into the type it assigns to another
// input) shares that IntImm object, and a computed extent is a new object.
// Nothing in carve's own types depends on object identity, but TVM's
// `#[metadata]` section writes each object once and refers to it afterwards,
// so the printer (grammar/printer_dim_identity.h) replays these rules to
// print constants' types exactly as TVM does. A relation without a rule
// gives its output fresh objects, as TVM does for computed extents.
//
// Dimension objects are tokens (int64_t): equal tokens are one object.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/expr.h"
#include "ir/op.h"

namespace carve {

// The tokens of a value: one per dim of a tensor, or one tree per field of a
// tuple.
struct DimTokens {
  bool tuple = false;
  std::vector<int64_t> dims;
  std::vector<DimTokens> fields;
};

// One call seen by a rule: its inputs' tokens and where the rule writes.
class DimSharingCall {
 public:
  virtual ~DimSharingCall() = default;
  virtual const Call* call() const = 0;
  // The tokens of tensor argument `i` (fresh ones when it is not a tensor
  // whose tokens match its rank).
  virtual std::vector<int64_t> ArgDims(size_t i) = 0;
  // The token tree of argument `i` (tuples included).
  virtual const DimTokens& ArgTokens(size_t i) = 0;
  // A new object (a computed extent, an attribute's own IntImm).
  virtual int64_t Fresh() = 0;
  virtual std::vector<int64_t> FreshDims(size_t n) = 0;
  // The relation assigns a type with these dims to argument `i`.
  virtual void Assign(size_t i, std::vector<int64_t> dims) = 0;
  // The output's dims (ignored unless they match the output's rank).
  virtual void SetOut(std::vector<int64_t> dims) = 0;
  // The output's token tree (tuple outputs).
  virtual void SetOutTokens(DimTokens tokens) = 0;

  // Shorthands over call().
  const Attrs* attrs() const { return call()->attrs(); }
  std::span<const Expr* const> args() const { return call()->args(); }
  const TensorType* out_type() const { return DynCast<TensorType>(call()->checked_type()); }
  // The first argument's tensor type, or nullptr.
  const TensorType* data() const {
    return args().empty() ? nullptr : DynCast<TensorType>(args()[0]->checked_type());
  }
};

using DimSharingRule = void (*)(DimSharingCall& c);

// The rule of relation `rel`, or nullptr (the output's dims are new).
DimSharingRule FindDimSharingRule(TypeRelation rel);

}  // namespace carve
