// Helpers for the type-relation tests: tensor types from short shape
// literals and a one-call driver that runs an op's relation on default attrs
// with some fields replaced, rendering the result (or error) as a string.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/attrs.h"
#include "ir/op.h"
#include "ir/type.h"

namespace carve::testing {

// A dim literal: -1 is `?`.
inline constexpr int64_t kAny = -1;

// The element types the relation tests spell most.
inline const DataType kI8 = DataType::Int(8);
inline const DataType kU8 = DataType::UInt(8);
inline const DataType kI32 = DataType::Int(32);
inline const DataType kF32 = DataType::Float(32);

// Tensor[(shape), dtype]; -1 entries become `?`.
inline const TensorType* T(std::initializer_list<int64_t> shape,
                           DataType dtype = DataType::Float(32)) {
  std::vector<Dim> dims;
  for (int64_t d : shape) dims.push_back(d == kAny ? Dim::Any() : Dim{d, false});
  return TensorTy(dtype, dims);
}

// Same with every dim wide (int64, printed `3i64`).
inline const TensorType* TWide(std::initializer_list<int64_t> shape,
                               DataType dtype = DataType::Float(32)) {
  std::vector<Dim> dims;
  for (int64_t d : shape) dims.push_back(Dim{d, true});
  return TensorTy(dtype, dims);
}

inline const Type* Tup(std::initializer_list<const Type*> fields) {
  std::vector<const Type*> v(fields);
  return TupleTy(v);
}

inline AttrValue Ints(std::initializer_list<int64_t> v) { return AttrValue::Ints(v); }
inline AttrValue Int(int64_t v) { return AttrValue::Int(v); }
inline AttrValue Bool(bool v) { return AttrValue::Bool(v); }
inline AttrValue Float(double v) { return AttrValue::Float(v); }
inline AttrValue Str(std::string_view s) { return AttrValue::Str(s); }

using Fields = std::initializer_list<std::pair<std::string_view, AttrValue>>;

// The attrs of a call to `op`: DefaultAttrs(schema) with `fields` replaced;
// EmptyAttrs() for ops without a schema.
inline const Attrs* MakeAttrs(const OpInfo* op, Fields fields) {
  if (op->attrs == nullptr) return EmptyAttrs();
  const Attrs* attrs = DefaultAttrs(op->attrs);
  for (const auto& [key, value] : fields) attrs = WithField(attrs, key, value);
  return attrs;
}

// Runs `op_name`'s relation and renders the output type, or "error: <msg>".
inline std::string Infer(std::string_view op_name, std::initializer_list<const Type*> args,
                         Fields fields = {}) {
  const OpInfo* op = FindOp(op_name);
  if (op == nullptr) return "error: no op " + std::string(op_name);
  std::vector<const Type*> arg_vec(args);
  TypeRelCall call{op, arg_vec, MakeAttrs(op, fields)};
  absl::StatusOr<const Type*> result = op->type_rel(call);
  if (!result.ok()) {
    return "error: " +
           std::string(result.status().message().data(), result.status().message().size());
  }
  return TypeToString(*result);
}

}  // namespace carve::testing
