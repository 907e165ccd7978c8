// Runtime values of the interpreter: a tensor, a tuple of values, a closure
// (a function literal with the values of its free variables), or a
// reference to a module-level function.
//
// Values are cheap to copy: tensors share their buffer, tuples and closures
// are shared immutable nodes.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ir/expr.h"
#include "ir/ndarray.h"
#include "ir/type.h"

namespace carve {

class Value;

struct Closure;

class Value {
 public:
  enum class Kind : uint8_t { kTensor, kTuple, kClosure, kGlobal };

  // The empty tuple `()`.
  Value() : data_(std::shared_ptr<const std::vector<Value>>()) {}
  // A tensor.
  Value(NDArray tensor) : data_(std::move(tensor)) {}  // NOLINT: implicit by design
  static Value Tuple(std::vector<Value> fields);
  static Value MakeClosure(Closure closure);
  // A module-level function, by name (`@f` used as a value).
  static Value Global(const GlobalVar* gv) { return Value(gv); }

  Kind kind() const { return static_cast<Kind>(data_.index()); }
  bool is_tensor() const { return kind() == Kind::kTensor; }
  bool is_tuple() const { return kind() == Kind::kTuple; }
  bool is_closure() const { return kind() == Kind::kClosure; }
  bool is_global() const { return kind() == Kind::kGlobal; }

  // Accessors; the kind must match.
  const NDArray& tensor() const { return std::get<NDArray>(data_); }
  std::span<const Value> fields() const;
  const Closure& closure() const { return *std::get<std::shared_ptr<const Closure>>(data_); }
  const GlobalVar* global() const { return std::get<const GlobalVar*>(data_); }

 private:
  explicit Value(const GlobalVar* gv) : data_(gv) {}

  std::variant<NDArray, std::shared_ptr<const std::vector<Value>>, std::shared_ptr<const Closure>,
               const GlobalVar*>
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

// The tensors of `v` in order, tuples flattened depth first (TVM's output
// order). Closures and globals contribute nothing.
std::vector<NDArray> FlattenTensors(const Value& v);

// The runtime type of a value: TensorType / TupleType of the contents, the
// function's checked type (or nullptr) for closures and globals.
const Type* RuntimeType(const Value& v);

// A short description for messages: "Tensor[(1, 3), float32]", "(…, …)",
// "closure", "@name".
std::string DescribeValue(const Value& v);

}  // namespace carve
