// Runtime values of the interpreter: a tensor, a tuple of values, a closure
// (a function literal with the values of its free variables), a reference
// to a module-level function, a mutable cell (`ref(v)`, TVM's RefValue), a
// constructor of an algebraic data type (a function value) or a value built
// by one (TVM's ConstructorValue: the constructor and its fields).
//
// Values are cheap to copy: tensors share their buffer, tuples and closures
// are shared immutable nodes; a cell is shared and mutable (copies of a
// `ref` value alias one cell, as in TVM). Destroying the last reference to a deeply
// nested value (a tuple accumulated by a 1M-iteration loop, a chain of
// closures capturing closures) is iterative: the destructor unlinks nested
// nodes onto a worklist instead of recursing.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ir/adt.h"
#include "ir/expr.h"
#include "ir/ndarray.h"
#include "ir/type.h"

namespace carve {

class Value;

struct Closure;
struct TupleNode;
struct RefCell;
struct AdtNode;

class Value {
 public:
  enum class Kind : uint8_t { kTensor, kTuple, kClosure, kGlobal, kRef, kConstructor, kAdt };

  // The empty tuple `()`.
  Value() : data_(std::shared_ptr<TupleNode>()) {}
  // A tensor.
  Value(NDArray tensor) : data_(std::move(tensor)) {}  // NOLINT: implicit by design
  Value(const Value&) = default;
  Value(Value&&) noexcept = default;
  Value& operator=(const Value&) = default;
  Value& operator=(Value&&) noexcept = default;
  ~Value() {
    if (!is_tensor() && !is_global() && !is_constructor()) DestroyNested();
  }
  static Value Tuple(std::vector<Value> fields);
  static Value MakeClosure(Closure closure);
  // A module-level function, by name (`@f` used as a value).
  static Value Global(const GlobalVar* gv) { return Value(gv); }
  // A new cell holding `contents`.
  static Value NewRef(Value contents);
  // A constructor used as a function value (`Cons` unapplied).
  static Value ConstructorFn(const Constructor* ctor) { return Value(ctor); }
  // The value `ctor(fields...)`.
  static Value Adt(const Constructor* ctor, std::vector<Value> fields);

  Kind kind() const { return static_cast<Kind>(data_.index()); }
  bool is_tensor() const { return kind() == Kind::kTensor; }
  bool is_tuple() const { return kind() == Kind::kTuple; }
  bool is_closure() const { return kind() == Kind::kClosure; }
  bool is_global() const { return kind() == Kind::kGlobal; }
  bool is_ref() const { return kind() == Kind::kRef; }
  bool is_constructor() const { return kind() == Kind::kConstructor; }
  bool is_adt() const { return kind() == Kind::kAdt; }

  // Accessors; the kind must match.
  const NDArray& tensor() const { return std::get<NDArray>(data_); }
  std::span<const Value> fields() const;
  const Closure& closure() const { return *std::get<std::shared_ptr<Closure>>(data_); }
  const GlobalVar* global() const { return std::get<const GlobalVar*>(data_); }
  // The cell's current contents, and its update (seen through every copy).
  const Value& ref_contents() const;
  void RefWrite(Value contents) const;
  // kConstructor: the constructor; kAdt: the one that built the value.
  const Constructor* constructor() const;
  // kAdt: the constructor's fields.
  std::span<const Value> adt_fields() const;

  // Bytes of tensor storage reachable through tuples (closures count as
  // nothing); O(1): tuples cache the sum of their fields.
  int64_t TensorBytes() const;

 private:
  explicit Value(const GlobalVar* gv) : data_(gv) {}
  explicit Value(const Constructor* ctor) : data_(ctor) {}
  // The destructor's iterative part, for tuples and closures.
  void DestroyNested();
  // When this value holds the last reference to a tuple or closure node,
  // moves that node's nested tuple / closure values into `out`.
  void UnlinkChildren(std::vector<Value>& out);

  // Tuple and closure nodes are mutable only so that the destructor can
  // unlink their children; they are never modified while shared.
  std::variant<NDArray, std::shared_ptr<TupleNode>, std::shared_ptr<Closure>, const GlobalVar*,
               std::shared_ptr<RefCell>, const Constructor*, std::shared_ptr<AdtNode>>
      data_;
};

// A function literal evaluated in an environment. A let-bound function that
// calls itself (`let %loop = fn (...) { ... %loop(...) ... }`) has `self`
// set to that variable; calls bind it to the closure again, so the closure
// needs no reference to itself.
struct Closure {
  const Function* function = nullptr;
  // Values of the function's free variables, captured at creation.
  std::vector<std::pair<const Var*, Value>> captured;
  const Var* self = nullptr;
};

struct TupleNode {
  std::vector<Value> fields;
  int64_t tensor_bytes = 0;  // Σ fields' TensorBytes()
};

struct RefCell {
  Value contents;
};

struct AdtNode {
  const Constructor* ctor;
  std::vector<Value> fields;
};

// The tensors of `v` in order, tuples flattened depth first (TVM's output
// order). Closures and globals contribute nothing.
std::vector<NDArray> FlattenTensors(const Value& v);

// The runtime type of a value: TensorType / TupleType of the contents, the
// function's checked type (or nullptr) for closures and globals, ref(T) of
// the current contents for a cell.
const Type* RuntimeType(const Value& v);

// A short description for messages: "Tensor[(1, 3), float32]", "(…, …)",
// "closure", "@name", "ref(…)". Tuples nested deeper than a few levels print as
// "(...)", so the text stays short and the walk shallow.
std::string DescribeValue(const Value& v);

}  // namespace carve
