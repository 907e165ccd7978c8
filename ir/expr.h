// The Relay expression tree.
//
// Nodes are immutable, allocated in an Arena owned (shared) by modules, and
// linked by plain pointers. There is no hash-consing: two equal calls in the
// source stay two nodes, as in TVM. The only mutable field is the checked
// type, a cache filled by InferType.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ir/attrs.h"
#include "ir/ndarray.h"
#include "ir/op.h"
#include "ir/type.h"
#include "ir/virtual_device.h"
#include "support/arena.h"
#include "support/source.h"

namespace carve {

enum class ExprKind : uint8_t {
  kVar,
  kGlobalVar,
  kConstant,
  kOp,
  kCall,
  kTuple,
  kTupleGetItem,
  kLet,
  kIf,
  kFunction,
  // References (TVM's RefCreate / RefRead / RefWrite): ir/expr.h's last block.
  kRefCreate,
  kRefRead,
  kRefWrite,
  // Algebraic data types (TVM's Constructor and Match): ir/adt.h.
  kConstructor,
  kMatch,
};

// Var, GlobalVar, Constant, Op and Constructor are atoms: the printer always
// inlines them.
constexpr bool IsAtomKind(ExprKind kind) {
  return kind <= ExprKind::kOp || kind == ExprKind::kConstructor;
}

class Expr {
 public:
  ExprKind kind() const { return kind_; }
  Span span() const { return span_; }
  // The type InferType assigned, or nullptr.
  const Type* checked_type() const { return checked_type_; }
  void set_checked_type(const Type* t) const { checked_type_ = t; }
  bool is_atom() const { return IsAtomKind(kind_); }

  // A scratch byte for the one traversal that runs at a time (InferType
  // marks the nodes it has typed here instead of in a side table: a hash map
  // of a million nodes costs more memory than the nodes). Zero between
  // traversals: a pass that sets it clears it before returning. It lives in
  // padding, so it costs no space.
  uint8_t scratch_mark() const { return mark_; }
  void set_scratch_mark(uint8_t mark) const { mark_ = mark; }

 protected:
  Expr(ExprKind kind, Span span) : kind_(kind), span_(span) {}

  // Operand lists of Call and Tuple follow the node in its allocation (see
  // IRBuilder). A count below kLargeCount lives here, in the header's
  // padding; a larger one in the word before the operands.
  static constexpr uint16_t kLargeCount = UINT16_MAX;
  template <typename Node>
  static std::span<const Expr* const> OperandsOf(const Node* node) {
    auto* base = reinterpret_cast<const Expr* const*>(node + 1);
    uint16_t count = node->operand_count_;
    if (count != kLargeCount) return {base, count};
    return {base + 1, static_cast<size_t>(reinterpret_cast<const uintptr_t*>(base)[0])};
  }

 private:
  friend class IRBuilder;
  ExprKind kind_;
  mutable uint8_t mark_ = 0;
  uint16_t operand_count_ = 0;
  Span span_;
  mutable const Type* checked_type_ = nullptr;
};

// A local variable, bound by a function parameter or a let.
class Var : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kVar;
  Var(std::string_view name, const Type* annotation, Span span,
      const VirtualDevice* virtual_device = nullptr)
      : Expr(kKind, span),
        name_(name),
        annotation_(annotation),
        virtual_device_(virtual_device) {}
  std::string_view name() const { return name_; }
  // The written type annotation, or nullptr.
  const Type* annotation() const { return annotation_; }
  // TVM's virtual_device_ (set on parameters by PlanDevices, written
  // `%x {virtual_device=meta[VirtualDevice][0]}: T`); nullptr when fully
  // unconstrained. Part of structural equality, as in TVM's VarNode.
  const VirtualDevice* virtual_device() const { return virtual_device_; }

 private:
  std::string_view name_;
  const Type* annotation_;
  const VirtualDevice* virtual_device_;
};

// A module-level function name (`@main`).
class GlobalVar : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kGlobalVar;
  GlobalVar(std::string_view name, Span span) : Expr(kKind, span), name_(name) {}
  std::string_view name() const { return name_; }

 private:
  std::string_view name_;
};

class Constant : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kConstant;
  Constant(NDArray data, Span span) : Expr(kKind, span), data_(std::move(data)) {}
  const NDArray& data() const { return data_; }
  bool is_scalar() const { return data_.rank() == 0; }

 private:
  NDArray data_;
};

// An operator used as a callee. One node per registered op (see GetOp).
class OpExpr : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kOp;
  explicit OpExpr(const OpInfo* info) : Expr(kKind, Span{}), info_(info) {}
  const OpInfo* info() const { return info_; }
  std::string_view name() const { return info_->name; }

 private:
  const OpInfo* info_;
};

// Calls and tuples keep their operands right after the node, in the same
// arena allocation (IRBuilder places them), which saves a pointer, a count
// and a second allocation per node: a graph holds a million of them.
class Call : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kCall;
  const Expr* callee() const { return callee_; }
  std::span<const Expr* const> args() const { return OperandsOf(this); }
  // For op calls with an attrs schema: the full schema instance. Otherwise
  // nullptr (no attributes) or a dictionary.
  const Attrs* attrs() const { return attrs_; }
  // The op when the callee is an operator, else nullptr. Inline: matchers
  // and walks ask it of every call.
  const OpInfo* op() const {
    return callee_->kind() == ExprKind::kOp ? static_cast<const OpExpr*>(callee_)->info() : nullptr;
  }

 private:
  friend class IRBuilder;
  Call(const Expr* callee, const Attrs* attrs, Span span)
      : Expr(kKind, span), callee_(callee), attrs_(attrs) {}

  const Expr* callee_;
  const Attrs* attrs_;
};

class Tuple : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kTuple;
  std::span<const Expr* const> fields() const { return OperandsOf(this); }

 private:
  friend class IRBuilder;
  explicit Tuple(Span span) : Expr(kKind, span) {}
};

class TupleGetItem : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kTupleGetItem;
  TupleGetItem(const Expr* tuple, int index, Span span)
      : Expr(kKind, span), tuple_(tuple), index_(index) {}
  const Expr* tuple() const { return tuple_; }
  int index() const { return index_; }

 private:
  const Expr* tuple_;
  int index_;
};

class Let : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kLet;
  Let(const Var* var, const Expr* value, const Expr* body, Span span)
      : Expr(kKind, span), var_(var), value_(value), body_(body) {}
  const Var* var() const { return var_; }
  const Expr* value() const { return value_; }
  const Expr* body() const { return body_; }

 private:
  const Var* var_;
  const Expr* value_;
  const Expr* body_;
};

class If : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kIf;
  If(const Expr* cond, const Expr* then_branch, const Expr* else_branch, Span span)
      : Expr(kKind, span), cond_(cond), then_(then_branch), else_(else_branch) {}
  const Expr* cond() const { return cond_; }
  const Expr* then_branch() const { return then_; }
  const Expr* else_branch() const { return else_; }

 private:
  const Expr* cond_;
  const Expr* then_;
  const Expr* else_;
};

class Function : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kFunction;
  Function(std::span<const Var* const> params, const Expr* body, const Type* ret_type,
           const Attrs* attrs, std::span<const TypeVar* const> type_params, Span span,
           const VirtualDevice* virtual_device = nullptr)
      : Expr(kKind, span),
        params_(params),
        body_(body),
        ret_type_(ret_type),
        attrs_(attrs),
        type_params_(type_params),
        virtual_device_(virtual_device) {}
  std::span<const Var* const> params() const { return params_; }
  const Expr* body() const { return body_; }
  // The written return type, or nullptr.
  const Type* ret_type() const { return ret_type_; }
  // Dictionary attributes (never null; possibly empty).
  const Attrs* attrs() const { return attrs_; }
  std::span<const TypeVar* const> type_params() const { return type_params_; }
  // Where the function's result lives (TVM's virtual_device_, printed as a
  // trailing `virtual_device=meta[VirtualDevice][i]` parameter); nullptr
  // when fully unconstrained. Not part of structural equality (TVM's
  // FunctionNode::SEqualReduce leaves it out; its parameters' count).
  const VirtualDevice* virtual_device() const { return virtual_device_; }
  // Shorthands for attrs()->Find(...) as a string ("" when absent).
  std::string_view GetStringAttr(std::string_view key) const;
  bool HasAttr(std::string_view key) const { return attrs_->Find(key) != nullptr; }

 private:
  std::span<const Var* const> params_;
  const Expr* body_;
  const Type* ret_type_;
  const Attrs* attrs_;
  std::span<const TypeVar* const> type_params_;
  const VirtualDevice* virtual_device_;
};

// ---- References: `ref(v)`, `ref_read(r)`, `ref_write(r, v)` ----
// A mutable cell, as in TVM: ref(v) allocates a new cell holding v (type
// `ref(T)`), ref_read reads it, ref_write stores a value and yields `()`.

class RefCreate : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kRefCreate;
  RefCreate(const Expr* value, Span span) : Expr(kKind, span), value_(value) {}
  const Expr* value() const { return value_; }

 private:
  const Expr* value_;
};

class RefRead : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kRefRead;
  RefRead(const Expr* ref, Span span) : Expr(kKind, span), ref_(ref) {}
  const Expr* ref() const { return ref_; }

 private:
  const Expr* ref_;
};

class RefWrite : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kRefWrite;
  RefWrite(const Expr* ref, const Expr* value, Span span)
      : Expr(kKind, span), ref_(ref), value_(value) {}
  const Expr* ref() const { return ref_; }
  const Expr* value() const { return value_; }

 private:
  const Expr* ref_;
  const Expr* value_;
};

// Every node's allocation spans at least this many bytes (nodes smaller
// than that, an empty Tuple, get padding), so tables may key on address
// grains of this size (ir/address_map.h).
inline constexpr size_t kMinNodeAllocation = 32;

// LLVM-style casting.
template <typename T>
bool Isa(const Expr* e) {
  return e != nullptr && e->kind() == T::kKind;
}
template <typename T>
const T* DynCast(const Expr* e) {
  return Isa<T>(e) ? static_cast<const T*>(e) : nullptr;
}
template <typename T>
const T* Cast(const Expr* e) {
  return static_cast<const T*>(e);
}

// The unique node for a registered op.
const OpExpr* GetOp(const OpInfo* info);
// Same, by name; nullptr when not registered.
const OpExpr* GetOp(std::string_view name);

// True when `e` is a call of the op named `name`.
bool IsOpCall(const Expr* e, std::string_view name);

// Creates nodes in an arena. Stateless apart from the arena pointer.
class IRBuilder {
 public:
  explicit IRBuilder(Arena* arena) : arena_(arena) {}
  Arena* arena() const { return arena_; }

  const Var* MakeVar(std::string_view name, const Type* annotation = nullptr, Span span = {});
  // Same without copying `name`, which must outlive every module that can
  // reach the variable: the parser passes views into source texts, which
  // SourceManager keeps for the life of the process.
  const Var* MakeVarWithStableName(std::string_view name, const Type* annotation, Span span,
                                   const VirtualDevice* virtual_device = nullptr);
  // A new variable like `v` (name, annotation, virtual device) with another
  // annotation: passes that retype a parameter keep where it lives.
  const Var* MakeVarLike(const Var* v, const Type* annotation);
  const GlobalVar* MakeGlobalVar(std::string_view name, Span span = {});
  const Constant* MakeConstant(NDArray data, Span span = {});
  const Constant* MakeScalar(DataType dtype, double value, Span span = {});
  // An op call; `attrs` nullptr means the op's default attributes.
  const Call* MakeCall(const Expr* callee, std::span<const Expr* const> args,
                       const Attrs* attrs = nullptr, Span span = {});
  const Call* MakeCall(const Expr* callee, std::initializer_list<const Expr*> args,
                       const Attrs* attrs = nullptr, Span span = {}) {
    return MakeCall(callee, std::span<const Expr* const>(args.begin(), args.size()), attrs,
                    span);
  }
  const Tuple* MakeTuple(std::span<const Expr* const> fields, Span span = {});
  const TupleGetItem* MakeTupleGetItem(const Expr* tuple, int index, Span span = {});
  const Let* MakeLet(const Var* var, const Expr* value, const Expr* body, Span span = {});
  const If* MakeIf(const Expr* cond, const Expr* then_branch, const Expr* else_branch,
                   Span span = {});
  const RefCreate* MakeRefCreate(const Expr* value, Span span = {});
  const RefRead* MakeRefRead(const Expr* ref, Span span = {});
  const RefWrite* MakeRefWrite(const Expr* ref, const Expr* value, Span span = {});
  // Allocates a Call or Tuple node with its operands after it.
  template <typename Node, typename... Args>
  const Node* NewWithOperands(std::span<const Expr* const> operands, Args&&... args);

  const Function* MakeFunction(std::span<const Var* const> params, const Expr* body,
                               const Type* ret_type = nullptr, const Attrs* attrs = nullptr,
                               std::span<const TypeVar* const> type_params = {},
                               Span span = {}, const VirtualDevice* virtual_device = nullptr);
  // Same over the parameter and type parameter lists of `params_of`, shared
  // instead of copied: rebuilding a function whose body changed copied its
  // whole parameter list (a large graph's main has tens of thousands of
  // weights). The lists live as long as the Var nodes they hold, which the
  // new function refers to anyway. The new function keeps params_of's
  // virtual device: it is a rebuild of that function.
  const Function* MakeFunctionWithParamsOf(const Function* params_of, const Expr* body,
                                           const Type* ret_type, const Attrs* attrs,
                                           Span span = {});

 private:
  Arena* arena_;
};

}  // namespace carve
