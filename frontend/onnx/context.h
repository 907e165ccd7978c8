// The importer's working state: the values of the ONNX graph as Relay
// expressions with their types, and the helpers converters build calls with.
//
// Every call is typed as it is built (the op's type relation on the argument
// types), so converters can read shapes, as TVM's converters do with
// infer_shape. A call whose arguments are all constants is evaluated at once
// with the interpreter's kernel and becomes a constant: this folds the static
// shape arithmetic of exported models (Shape -> Gather -> Concat -> Reshape).
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/ndarray.h"

namespace carve::onnx_import {

// A value of the graph.
struct TValue {
  const Expr* expr = nullptr;
  // TensorType, or TupleType for tuples.
  const Type* type = nullptr;
  // The contents when known at import time (constants, initializers).
  NDArray value;
  // True when `expr` is a Constant (or a tuple of them): calls on constants
  // fold. An initializer kept as a parameter has a value but is not constant.
  bool constant = false;
  // The fields of a tuple built by ImportContext (empty otherwise).
  std::vector<TValue> fields;

  const TensorType* tensor() const { return DynCast<TensorType>(type); }
  bool is_tensor() const { return tensor() != nullptr; }
  DataType dtype() const;
  int rank() const;
  // Static extents; -1 for `?`.
  std::vector<int64_t> shape() const;
  bool has_static_shape() const;
};

// Attribute overrides for a call: the op's defaults with these fields set.
using AttrList = std::vector<std::pair<std::string_view, AttrValue>>;

// Shorthands for attribute values.
AttrValue IntAttr(int64_t v);
AttrValue BoolAttr(bool v);
AttrValue FloatAttr(double v);
AttrValue StrAttr(std::string_view s);
AttrValue IntsAttr(std::span<const int64_t> v);
AttrValue DoublesAttr(std::span<const double> v);

class ImportContext {
 public:
  explicit ImportContext(IRBuilder builder) : b_(builder) {}
  IRBuilder& builder() { return b_; }

  // `op(args...)` with `attrs` over the op's defaults, typed; folded to a
  // constant when every argument is constant. Errors: unknown op (a bug),
  // type relation failures (with the relation's message).
  absl::StatusOr<TValue> Op(std::string_view op, std::vector<TValue> args,
                            const AttrList& attrs = {});
  // A constant tensor.
  TValue Const(NDArray array);
  TValue Scalar(DataType dtype, double v);
  // A 1-D int64 constant.
  TValue Ints(std::span<const int64_t> values);
  // A tuple of `fields` (constant when all are).
  TValue Tuple(std::vector<TValue> fields);
  // Field `index` of a tuple value.
  absl::StatusOr<TValue> GetItem(const TValue& tuple, int index);
  // A parameter of @main.
  TValue Param(std::string_view name, const Type* type);

  // `x` cast to `dtype` (x itself when it already has it).
  absl::StatusOr<TValue> CastTo(const TValue& x, DataType dtype);

 private:
  absl::StatusOr<TValue> Fold(const OpInfo* op, const std::vector<TValue>& args,
                              const Attrs* attrs, const Type* out_type);
  IRBuilder b_;
};

}  // namespace carve::onnx_import
