// Relay types: tensor types with static or dynamic (`?`) dims, tuple types,
// function types, reference types, type variables, incomplete types
// (inference holes), and the names and applications of algebraic data types
// (`List`, `List[float32]`; their definitions are TypeData, ir/adt.h).
//
// Tensor, tuple, function and reference types are interned in a process-wide store, so
// two structurally equal types are the same pointer and compare with `==`.
// Types are immutable and never freed.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"

namespace carve {

enum class TypeKind : uint8_t {
  kTensor,
  kTuple,
  kFunc,
  kTypeVar,
  kIncomplete,
  kRef,
  kGlobalTypeVar,
  kTypeCall,
};

// One dimension of a tensor shape: a constant extent or `?` (Any). `wide`
// records that the extent was written as an int64 IntImm (`3i64`), which TVM
// prints differently.
struct Dim {
  static constexpr int64_t kAny = -1;
  int64_t value = 0;
  bool wide = false;

  static Dim Any() { return Dim{kAny, false}; }
  bool is_any() const { return value == kAny; }
  friend bool operator==(const Dim& a, const Dim& b) {
    return a.value == b.value && a.wide == b.wide;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Dim& d) {
    return H::combine(std::move(h), d.value, d.wide);
  }
};

class Type {
 public:
  TypeKind kind() const { return kind_; }

 protected:
  explicit Type(TypeKind kind) : kind_(kind) {}

 private:
  TypeKind kind_;
};

class TensorType : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::kTensor;
  TensorType(DataType dtype, std::span<const Dim> shape)
      : Type(kKind), dtype_(dtype), shape_(shape) {}
  DataType dtype() const { return dtype_; }
  std::span<const Dim> shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  // True when no dim is `?`.
  bool is_static() const;
  // Product of the dims (only meaningful when is_static()).
  int64_t num_elements() const;

 private:
  DataType dtype_;
  std::span<const Dim> shape_;
};

class TupleType : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::kTuple;
  explicit TupleType(std::span<const Type* const> fields) : Type(kKind), fields_(fields) {}
  std::span<const Type* const> fields() const { return fields_; }

 private:
  std::span<const Type* const> fields_;
};

class TypeVar : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::kTypeVar;
  TypeVar(std::string_view name, uint32_t id) : Type(kKind), name_(name), id_(id) {}
  std::string_view name() const { return name_; }
  uint32_t id() const { return id_; }

 private:
  std::string_view name_;
  uint32_t id_;
};

class FuncType : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::kFunc;
  FuncType(std::span<const Type* const> params, const Type* ret,
           std::span<const TypeVar* const> type_params)
      : Type(kKind), params_(params), ret_(ret), type_params_(type_params) {}
  std::span<const Type* const> params() const { return params_; }
  const Type* ret() const { return ret_; }
  std::span<const TypeVar* const> type_params() const { return type_params_; }

 private:
  std::span<const Type* const> params_;
  const Type* ret_;
  std::span<const TypeVar* const> type_params_;
};

// The type of a mutable cell holding a `value()` (TVM's RelayRefType,
// printed `ref(T)`).
class RefType : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::kRef;
  explicit RefType(const Type* value) : Type(kKind), value_(value) {}
  const Type* value() const { return value_; }

 private:
  const Type* value_;
};

// The name of an algebraic data type (TVM's GlobalTypeVar, kind AdtHandle).
// Interned by name: `List` in two modules is one pointer, so types that
// mention it stay interned and comparable with `==`.
class GlobalTypeVar : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::kGlobalTypeVar;
  explicit GlobalTypeVar(std::string_view name) : Type(kKind), name_(name) {}
  std::string_view name() const { return name_; }

 private:
  std::string_view name_;
};

// An algebraic data type applied to its type arguments: `List[float32]`
// (TVM's TypeCall; `func` is a GlobalTypeVar). TVM's parser makes a bare
// `Foo` a call with no arguments, printed `Foo[]`.
class TypeCall : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::kTypeCall;
  TypeCall(const Type* func, std::span<const Type* const> args)
      : Type(kKind), func_(func), args_(args) {}
  const Type* func() const { return func_; }
  std::span<const Type* const> args() const { return args_; }

 private:
  const Type* func_;
  std::span<const Type* const> args_;
};

// `_` in the text format: a type to be inferred. Each one is distinct.
class IncompleteType : public Type {
 public:
  static constexpr TypeKind kKind = TypeKind::kIncomplete;
  explicit IncompleteType(uint32_t id) : Type(kKind), id_(id) {}
  uint32_t id() const { return id_; }

 private:
  uint32_t id_;
};

template <typename T>
bool Isa(const Type* t) {
  return t != nullptr && t->kind() == T::kKind;
}
template <typename T>
const T* DynCast(const Type* t) {
  return Isa<T>(t) ? static_cast<const T*>(t) : nullptr;
}

// Interning constructors.
const TensorType* TensorTy(DataType dtype, std::span<const Dim> shape);
const TensorType* TensorTy(DataType dtype, std::initializer_list<int64_t> shape);
// A rank-0 tensor type ("float32").
const TensorType* ScalarTy(DataType dtype);
const TupleType* TupleTy(std::span<const Type* const> fields);
const FuncType* FuncTy(std::span<const Type* const> params, const Type* ret,
                       std::span<const TypeVar* const> type_params = {});
const RefType* RefTy(const Type* value);
const GlobalTypeVar* GlobalTypeVarTy(std::string_view name);
const TypeCall* TypeCallTy(const Type* func, std::span<const Type* const> args);
// Fresh, never interned.
const TypeVar* NewTypeVar(std::string_view name);
const IncompleteType* NewIncompleteType();

// TVM's text: `Tensor[(1, 3), float32]`, `float32`, `(T1, T2)`, `(T,)`,
// `fn (T1) -> R`, `ref(T)`, `List[A]`, `?` dims, `3i64` for wide dims, `_` for incomplete.
std::string TypeToString(const Type* t);
// "(1, 3)" / "(4,)" for messages.
std::string ShapeToString(std::span<const Dim> shape);

}  // namespace carve
