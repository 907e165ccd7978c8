// The dataflow pattern IR (TVM Relay's DFPattern language), data only.
//
// A pattern is a DAG of immutable PatternNodes held through `Pattern`, a cheap
// shared handle. Sharing is meaningful: a node used twice must bind the same
// expression both times (diamonds), exactly as in TVM. Matching, explaining,
// grouping and rewriting live in separate files (matcher.h, explain.h,
// group.h, partition.h, rewrite.h); the C++ builders with TVM's vocabulary
// are in builders.h, and the `.pat` text form in grammar/pattern_parser.h.
//
// Construction errors (IsOp of an unknown operator, a malformed shape) are
// deferred: the builder returns a pattern that carries the error, every
// pattern built on top of it inherits it, and CompilePattern (or any entry
// point that takes a pattern) returns it as a Status. This keeps the builders
// fluent (`IsOp("nn.conv2d")(x, w).HasAttr(...)`) without StatusOr plumbing.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ir/attrs.h"
#include "ir/dtype.h"
#include "ir/expr.h"
#include "ir/op.h"
#include "ir/type.h"

namespace carve {

class PatternNode;
class Predicate;

enum class PatternKind : uint8_t {
  kWildcard,      // any expression
  kOp,            // the operator node itself (a call's callee)
  kExpr,          // an expression structurally equal to a given one
  kVar,           // any variable, optionally with a given name
  kConstant,      // any constant
  kCall,          // callee and args pairwise, or any args
  kTuple,         // fields pairwise, or any tuple
  kTupleGetItem,  // projection of a matching tuple, fixed or any index
  kIf,            // cond / then / else
  kLet,           // var / value / body
  kFunction,      // params pairwise (or any) and body
  kAlt,           // ordered choice: left, else right
  kAttr,          // inner, and attributes equal the given values
  kType,          // inner, and the inferred type equals a type
  kDType,         // inner, and the inferred tensor dtype equals a dtype
  kShape,         // inner, and the inferred tensor shape matches dims
  kDominator,     // child dominates parent through path (TVM DominatorPattern)
  kCapture,       // inner, bound to a name (`?x`, `p as ?x`)
  kWhere,         // inner, and a predicate over captures holds
  kRecursive,     // a reference to an enclosing pattern (recursion)
  kInvalid,       // a construction error (see header comment)
};

// A shared, immutable handle to a pattern node. Default-constructed handles
// are null; builders never return null.
class Pattern {
 public:
  Pattern() = default;
  explicit Pattern(std::shared_ptr<const PatternNode> node) : node_(std::move(node)) {}

  const PatternNode* get() const { return node_.get(); }
  const PatternNode* operator->() const { return node_.get(); }
  const PatternNode& operator*() const { return *node_; }
  explicit operator bool() const { return node_ != nullptr; }
  const std::shared_ptr<const PatternNode>& shared() const { return node_; }
  friend bool operator==(const Pattern& a, const Pattern& b) { return a.node_ == b.node_; }

  // The first construction error anywhere in this pattern, or OK.
  absl::Status status() const;

  // --- Fluent builders (TVM's DFPattern methods) ---
  // A call of this pattern with args matched pairwise (same arity).
  Pattern operator()(std::vector<Pattern> args) const;
  template <typename... P>
  Pattern operator()(const Pattern& first, const P&... rest) const {
    return (*this)(std::vector<Pattern>{first, rest...});
  }
  // A call of this pattern with any number of any args (TVM `p(None)`).
  Pattern CallAnyArgs() const;
  // Ordered choice: this, else `other`.
  Pattern operator|(const Pattern& other) const;
  // `this | f(this)` (TVM `p.optional(f)`).
  Pattern Optional(const std::function<Pattern(const Pattern&)>& f) const;
  // Attribute constraints: a call's attrs, a function's attrs or an op's
  // attr map (TOpPattern, TOpIsStateful, TNonComputational).
  Pattern HasAttr(std::vector<AttrEntry> attrs) const;
  Pattern HasType(const Type* type) const;
  Pattern HasDType(DataType dtype) const;
  Pattern HasDType(std::string_view dtype) const;
  Pattern HasShape(std::vector<struct DimPattern> dims) const;
  // Binds the matched node to `name` (`p as ?name`).
  Pattern As(std::string_view name) const;
  // Requires `predicate` over the captures bound inside this pattern.
  Pattern Where(std::shared_ptr<const Predicate> predicate) const;
  // TVM `child.dominates(parent, path)`: this is the child.
  Pattern Dominates(const Pattern& parent, const Pattern& path) const;

 private:
  std::shared_ptr<const PatternNode> node_;
};

// One dimension of a shape constraint: an extent, `_` (any extent) or `?`
// (a dynamic dimension, matching only `?`).
struct DimPattern {
  enum class Kind : uint8_t { kValue, kAny, kDynamic };
  Kind kind = Kind::kValue;
  int64_t value = 0;

  DimPattern(int64_t v) : kind(Kind::kValue), value(v) {}  // NOLINT: implicit on purpose
  static DimPattern Any() { return DimPattern(Kind::kAny); }
  static DimPattern Dynamic() { return DimPattern(Kind::kDynamic); }
  bool Matches(const Dim& d) const;
  friend bool operator==(const DimPattern& a, const DimPattern& b) {
    return a.kind == b.kind && a.value == b.value;
  }

 private:
  explicit DimPattern(Kind k) : kind(k) {}
};

class PatternNode {
 public:
  virtual ~PatternNode() = default;
  PatternKind kind() const { return kind_; }
  // Sub-patterns in TVM's visit order: callee then args; params then body;
  // fields; tuple; cond/then/else; var/value/body; left/right; inner;
  // parent/path/child. A recursive reference has none (see RecursivePattern).
  std::span<const Pattern> children() const { return children_; }
  // The first construction error in this subtree, or nullptr.
  const std::string* error() const { return error_.get(); }

 protected:
  PatternNode(PatternKind kind, std::vector<Pattern> children);
  void set_error(std::string message);

 private:
  PatternKind kind_;
  std::vector<Pattern> children_;
  std::shared_ptr<const std::string> error_;
};

template <typename T>
bool Isa(const PatternNode* p) {
  return p != nullptr && p->kind() == T::kKind;
}
template <typename T>
const T* DynCast(const PatternNode* p) {
  return Isa<T>(p) ? static_cast<const T*>(p) : nullptr;
}
template <typename T>
const T* Cast(const PatternNode* p) {
  return static_cast<const T*>(p);
}

class WildcardPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kWildcard;
  WildcardPattern() : PatternNode(kKind, {}) {}
};

class OperatorPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kOp;
  explicit OperatorPattern(const OpInfo* op) : PatternNode(kKind, {}), op_(op) {}
  const OpInfo* op() const { return op_; }

 private:
  const OpInfo* op_;
};

// Matches expressions structurally equal to `expr()` (vars by identity,
// constants by dtype, shape and bytes). `keep_alive` owns the arena of a
// pattern-made expression (DSL literals such as `1f`); for IsExpr(e) the
// caller keeps e's module alive.
class ExprPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kExpr;
  ExprPattern(const Expr* expr, std::shared_ptr<const void> keep_alive)
      : PatternNode(kKind, {}), expr_(expr), keep_alive_(std::move(keep_alive)) {}
  const Expr* expr() const { return expr_; }

 private:
  const Expr* expr_;
  std::shared_ptr<const void> keep_alive_;
};

class VarPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kVar;
  explicit VarPattern(std::string name) : PatternNode(kKind, {}), name_(std::move(name)) {}
  // Empty: any variable.
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

class ConstantPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kConstant;
  ConstantPattern() : PatternNode(kKind, {}) {}
};

class CallPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kCall;
  // children = {callee, args...}; any_args: match any arity (args empty).
  CallPattern(Pattern callee, std::vector<Pattern> args, bool any_args);
  const Pattern& callee() const { return children()[0]; }
  std::span<const Pattern> args() const { return children().subspan(1); }
  bool any_args() const { return any_args_; }
  // The op when the callee is an OperatorPattern, else nullptr.
  const OpInfo* op() const;

 private:
  bool any_args_;
};

class TuplePattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kTuple;
  TuplePattern(std::vector<Pattern> fields, bool any_fields)
      : PatternNode(kKind, std::move(fields)), any_fields_(any_fields) {}
  std::span<const Pattern> fields() const { return children(); }
  bool any_fields() const { return any_fields_; }

 private:
  bool any_fields_;
};

class TupleGetItemPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kTupleGetItem;
  static constexpr int kAnyIndex = -1;
  TupleGetItemPattern(Pattern tuple, int index)
      : PatternNode(kKind, {std::move(tuple)}), index_(index) {}
  const Pattern& tuple() const { return children()[0]; }
  // kAnyIndex: any index.
  int index() const { return index_; }

 private:
  int index_;
};

class IfPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kIf;
  IfPattern(Pattern cond, Pattern then_branch, Pattern else_branch)
      : PatternNode(kKind, {std::move(cond), std::move(then_branch), std::move(else_branch)}) {}
  const Pattern& cond() const { return children()[0]; }
  const Pattern& then_branch() const { return children()[1]; }
  const Pattern& else_branch() const { return children()[2]; }
};

class LetPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kLet;
  LetPattern(Pattern var, Pattern value, Pattern body)
      : PatternNode(kKind, {std::move(var), std::move(value), std::move(body)}) {}
  const Pattern& var() const { return children()[0]; }
  const Pattern& value() const { return children()[1]; }
  const Pattern& body() const { return children()[2]; }
};

class FunctionPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kFunction;
  // children = {params..., body}; any_params: any number of any params.
  FunctionPattern(std::vector<Pattern> params, Pattern body, bool any_params);
  std::span<const Pattern> params() const { return children().first(children().size() - 1); }
  const Pattern& body() const { return children().back(); }
  bool any_params() const { return any_params_; }

 private:
  bool any_params_;
};

class AltPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kAlt;
  AltPattern(Pattern left, Pattern right)
      : PatternNode(kKind, {std::move(left), std::move(right)}) {}
  const Pattern& left() const { return children()[0]; }
  const Pattern& right() const { return children()[1]; }
};

// Attribute constraints. The keys are checked against the matched node:
// a call's attrs (schema fields or dictionary), a function's attrs, or an
// op's attr map. A missing key fails; no keys match any call or function.
class AttrPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kAttr;
  AttrPattern(Pattern inner, std::vector<AttrEntry> attrs)
      : PatternNode(kKind, {std::move(inner)}), attrs_(std::move(attrs)) {}
  const Pattern& inner() const { return children()[0]; }
  std::span<const AttrEntry> attrs() const { return attrs_; }

 private:
  std::vector<AttrEntry> attrs_;  // values interned (AttrValue storage is global)
};

// The inferred type (Expr::checked_type()) equals `type()` (types are
// interned: pointer equality).
class TypePattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kType;
  TypePattern(Pattern inner, const Type* type)
      : PatternNode(kKind, {std::move(inner)}), type_(type) {}
  const Pattern& inner() const { return children()[0]; }
  const Type* type() const { return type_; }

 private:
  const Type* type_;
};

class DTypePattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kDType;
  DTypePattern(Pattern inner, DataType dtype)
      : PatternNode(kKind, {std::move(inner)}), dtype_(dtype) {}
  const Pattern& inner() const { return children()[0]; }
  DataType dtype() const { return dtype_; }

 private:
  DataType dtype_;
};

class ShapePattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kShape;
  ShapePattern(Pattern inner, std::vector<DimPattern> dims)
      : PatternNode(kKind, {std::move(inner)}), dims_(std::move(dims)) {}
  const Pattern& inner() const { return children()[0]; }
  std::span<const DimPattern> dims() const { return dims_; }
  // True when `shape` has the same rank and every dim matches.
  bool Matches(std::span<const Dim> shape) const;

 private:
  std::vector<DimPattern> dims_;
};

// TVM's DominatorPattern: `child` matches the root; every input path from the
// root leads, through nodes matching `path`, to one node matching `parent`,
// and the root post-dominates that parent.
class DominatorPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kDominator;
  DominatorPattern(Pattern parent, Pattern path, Pattern child)
      : PatternNode(kKind, {std::move(parent), std::move(path), std::move(child)}) {}
  const Pattern& parent() const { return children()[0]; }
  const Pattern& path() const { return children()[1]; }
  const Pattern& child() const { return children()[2]; }
};

// Binds the node matched by `inner` to `name`. One name, one node: the DSL's
// second `?x` reuses the first one's CapturePattern.
class CapturePattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kCapture;
  CapturePattern(Pattern inner, std::string name)
      : PatternNode(kKind, {std::move(inner)}), name_(std::move(name)) {}
  const Pattern& inner() const { return children()[0]; }
  const std::string& name() const { return name_; }
  // True for `?x` (a captured wildcard).
  bool is_bare() const { return inner()->kind() == PatternKind::kWildcard; }

 private:
  std::string name_;
};

// `inner where predicate`: after `inner` matched node n, `predicate` is
// evaluated over the captures bound inside `inner` (`?` is n itself).
class WherePattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kWhere;
  WherePattern(Pattern inner, std::shared_ptr<const Predicate> predicate);
  const Pattern& inner() const { return children()[0]; }
  const Predicate& predicate() const { return *predicate_; }
  const std::shared_ptr<const Predicate>& shared_predicate() const { return predicate_; }

 private:
  std::shared_ptr<const Predicate> predicate_;
};

// A reference to an enclosing pattern, for recursive patterns (TVM's
// `wildcard().redirect_to(p)`). Built by Recursive() (builders.h), which
// sets the target once, before the pattern is used. The reference is weak so
// that the cycle does not leak: the root returned by Recursive() owns it.
class RecursivePattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kRecursive;
  explicit RecursivePattern(std::string name) : PatternNode(kKind, {}), name_(std::move(name)) {}
  // The referenced pattern, or null when unset or released.
  Pattern target() const { return Pattern(target_.lock()); }
  // The name the DSL printer uses for the reference (the enclosing pattern).
  const std::string& name() const { return name_; }
  // Sets the target; only Recursive() and the DSL parser call this, once.
  void SetTarget(const Pattern& target) const { target_ = target.shared(); }

 private:
  std::string name_;
  mutable std::weak_ptr<const PatternNode> target_;
};

class InvalidPattern : public PatternNode {
 public:
  static constexpr PatternKind kKind = PatternKind::kInvalid;
  explicit InvalidPattern(std::string message);
};

// "wildcard", "call", ... (for messages).
std::string_view PatternKindName(PatternKind kind);

}  // namespace carve
