// Algebraic data types, as TVM v0.16 has them (include/tvm/ir/adt.h,
// include/tvm/relay/adt.h):
//
//   type List[A] { Cons(A, List[A]), Nil, }        -- a TypeData
//   Cons(%x, Nil)                                 -- constructor calls
//   match (%l) { Cons(%h, _) => { %h }, Nil => { 0 }, }
//
// A Constructor is an expression (an atom, like an op): calling it builds a
// value of its type. A Match tries its clauses in order; `match?` (not
// complete) may fall through, which is an error at run time. Patterns bind
// variables (PatternVar), ignore (`_`), test a constructor and its fields,
// or take a tuple apart.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ir/expr.h"

namespace carve {

class Constructor : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kConstructor;
  Constructor(std::string_view name, std::span<const Type* const> inputs,
              const GlobalTypeVar* belongs_to, int32_t tag, Span span)
      : Expr(kKind, span), name_(name), inputs_(inputs), belongs_to_(belongs_to), tag_(tag) {}
  std::string_view name() const { return name_; }
  // Field types, over the type parameters of the data type.
  std::span<const Type* const> inputs() const { return inputs_; }
  const GlobalTypeVar* belongs_to() const { return belongs_to_; }
  // Index among its data type's constructors (TVM's tag).
  int32_t tag() const { return tag_; }

 private:
  std::string_view name_;
  std::span<const Type* const> inputs_;
  const GlobalTypeVar* belongs_to_;
  int32_t tag_;
};

// A data type definition: `type Name[T, ...] { C1(T1, ...), C2, }`.
class TypeData {
 public:
  TypeData(const GlobalTypeVar* header, std::span<const TypeVar* const> type_vars,
           std::span<const Constructor* const> constructors, Span span)
      : header_(header), type_vars_(type_vars), constructors_(constructors), span_(span) {}
  const GlobalTypeVar* header() const { return header_; }
  std::span<const TypeVar* const> type_vars() const { return type_vars_; }
  std::span<const Constructor* const> constructors() const { return constructors_; }
  Span span() const { return span_; }

 private:
  const GlobalTypeVar* header_;
  std::span<const TypeVar* const> type_vars_;
  std::span<const Constructor* const> constructors_;
  Span span_;
};

// A pattern of a match clause.
class AdtPattern {
 public:
  enum class Kind : uint8_t { kWildcard, kVar, kConstructor, kTuple };
  static AdtPattern Wildcard() { return AdtPattern(Kind::kWildcard, nullptr, nullptr, {}); }
  static AdtPattern Bind(const Var* var) { return AdtPattern(Kind::kVar, var, nullptr, {}); }
  static AdtPattern Of(const Constructor* ctor, std::span<const AdtPattern* const> fields) {
    return AdtPattern(Kind::kConstructor, nullptr, ctor, fields);
  }
  static AdtPattern TupleOf(std::span<const AdtPattern* const> fields) {
    return AdtPattern(Kind::kTuple, nullptr, nullptr, fields);
  }

  Kind kind() const { return kind_; }
  const Var* var() const { return var_; }                  // kVar
  const Constructor* constructor() const { return ctor_; }  // kConstructor
  // Sub-patterns: the constructor's fields or the tuple's.
  std::span<const AdtPattern* const> fields() const { return fields_; }

 private:
  AdtPattern(Kind kind, const Var* var, const Constructor* ctor,
               std::span<const AdtPattern* const> fields)
      : kind_(kind), var_(var), ctor_(ctor), fields_(fields) {}
  Kind kind_;
  const Var* var_;
  const Constructor* ctor_;
  std::span<const AdtPattern* const> fields_;
};

struct Clause {
  const AdtPattern* lhs;
  const Expr* rhs;
};

class Match : public Expr {
 public:
  static constexpr ExprKind kKind = ExprKind::kMatch;
  Match(const Expr* data, std::span<const Clause> clauses, bool complete, Span span)
      : Expr(kKind, span), data_(data), clauses_(clauses), complete_(complete) {}
  const Expr* data() const { return data_; }
  std::span<const Clause> clauses() const { return clauses_; }
  // `match` (true) or `match?` (false).
  bool complete() const { return complete_; }

 private:
  const Expr* data_;
  std::span<const Clause> clauses_;
  bool complete_;
};

// Arena constructors (the spans are copied into the arena).
const Constructor* MakeConstructor(Arena* arena, std::string_view name,
                                   std::span<const Type* const> inputs,
                                   const GlobalTypeVar* belongs_to, int32_t tag, Span span = {});
const TypeData* MakeTypeData(Arena* arena, const GlobalTypeVar* header,
                             std::span<const TypeVar* const> type_vars,
                             std::span<const Constructor* const> constructors, Span span = {});
const AdtPattern* MakePattern(Arena* arena, const AdtPattern& pattern);
const Match* MakeMatch(Arena* arena, const Expr* data, std::span<const Clause> clauses,
                       bool complete, Span span = {});

// The data type `ctor` builds, applied to its type variables
// (`List[A]` for Cons), and the constructor's type as a function
// (`fn [A](A, List[A]) -> List[A]`), as TVM's InferType types a constructor.
const Type* ConstructorResultType(const TypeData& data);
const FuncType* ConstructorType(const TypeData& data, const Constructor& ctor);

// Calls f(var) for each variable `pattern` binds, left to right.
template <typename F>
void ForEachPatternVar(const AdtPattern* pattern, F&& f) {
  if (pattern->kind() == AdtPattern::Kind::kVar) {
    f(pattern->var());
    return;
  }
  for (const AdtPattern* field : pattern->fields()) ForEachPatternVar(field, f);
}

}  // namespace carve
