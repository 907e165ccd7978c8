// `where` predicates: a small boolean language over the captures of a match
// (patterns.md section 2):
//
//   ?c.groups == 1 and ?c.data_layout == "NCHW"      attributes of a capture
//   ?w is const                                      node kind
//   rank(?x) == 2 and dtype(?x) in [float32, float16]
//   shape(?x)[0] == 1, shape(?x) == [1, 3, 224, 224]
//   not (...), a or b                                 Kleene logic
//   ?.layout == "NCHW"                               `?` is the matched node
//
// Predicates are immutable and shared. Evaluation is three-valued: a term
// whose value does not exist (a missing attribute, an untyped node) makes a
// comparison unknown, and only a definitely true predicate lets a match pass.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attrs.h"
#include "ir/expr.h"

namespace carve {

// A value in a comparison.
struct PredicateTerm {
  enum class Kind : uint8_t {
    kLiteral,   // literal
    kAttr,      // capture.key: call attr, function attr
    kDType,     // dtype(capture): the tensor dtype name, as a string
    kShape,     // shape(capture): an int array (`?` dims are -1)
    kShapeDim,  // shape(capture)[index] (negative counts from the end)
    kRank,      // rank(capture)
  };
  Kind kind = Kind::kLiteral;
  std::string capture;  // "" names the matched node itself (`?`)
  std::string key;      // kAttr
  int64_t index = 0;    // kShapeDim
  AttrValue literal;    // kLiteral

  static PredicateTerm Literal(AttrValue v);
  static PredicateTerm Attr(std::string capture, std::string key);
  static PredicateTerm DType(std::string capture);
  static PredicateTerm Shape(std::string capture);
  static PredicateTerm ShapeDim(std::string capture, int64_t index);
  static PredicateTerm Rank(std::string capture);
  friend bool operator==(const PredicateTerm& a, const PredicateTerm& b);
};

enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
// The node kinds `?x is ...` can test.
enum class NodeClass : uint8_t { kConst, kVar, kCall, kTuple, kFunction };

class Predicate {
 public:
  enum class Kind : uint8_t { kAnd, kOr, kNot, kCompare, kIn, kIs };

  static std::shared_ptr<const Predicate> And(std::shared_ptr<const Predicate> a,
                                              std::shared_ptr<const Predicate> b);
  static std::shared_ptr<const Predicate> Or(std::shared_ptr<const Predicate> a,
                                             std::shared_ptr<const Predicate> b);
  static std::shared_ptr<const Predicate> Not(std::shared_ptr<const Predicate> a);
  static std::shared_ptr<const Predicate> Compare(PredicateTerm lhs, CompareOp op,
                                                  PredicateTerm rhs);
  // `term in [items...]`.
  static std::shared_ptr<const Predicate> In(PredicateTerm term, std::vector<PredicateTerm> items);
  // `?capture is const|var|call|tuple|fn`.
  static std::shared_ptr<const Predicate> Is(std::string capture, NodeClass cls);

  Kind kind() const { return kind_; }
  // kAnd/kOr: two operands; kNot: one.
  const std::vector<std::shared_ptr<const Predicate>>& operands() const { return operands_; }
  // kCompare: {lhs, rhs}; kIn: {term, items...}.
  const std::vector<PredicateTerm>& terms() const { return terms_; }
  CompareOp compare_op() const { return op_; }
  // kIs.
  const std::string& capture() const { return capture_; }
  NodeClass node_class() const { return class_; }

  // Every capture name the predicate mentions ("" for `?`), in order.
  std::vector<std::string> Captures() const;

 private:
  explicit Predicate(Kind kind) : kind_(kind) {}
  Kind kind_;
  std::vector<std::shared_ptr<const Predicate>> operands_;
  std::vector<PredicateTerm> terms_;
  CompareOp op_ = CompareOp::kEq;
  std::string capture_;
  NodeClass class_ = NodeClass::kConst;
};

// Resolves a capture name ("" = the matched node) to its expression, or
// nullptr when unbound.
using CaptureResolver = std::function<const Expr*(std::string_view name)>;

enum class Truth : uint8_t { kFalse, kTrue, kUnknown };

// Evaluates `p`. On a result other than kTrue, `why` (when non-null) receives
// the first clause that failed, e.g. "rank(?x) == 2 is false (rank(?x) is 4)".
Truth EvaluatePredicate(const Predicate& p, const CaptureResolver& resolve,
                        std::string* why = nullptr);

// The value of a term, or nullopt when it does not exist.
std::optional<AttrValue> EvaluateTerm(const PredicateTerm& t, const CaptureResolver& resolve);

// DSL text: `?c.groups == 1 and not (?w is const)`. Used by explanations and
// by the DSL printer (grammar/pattern_printer.h).
std::string PredicateToString(const Predicate& p);
std::string TermToString(const PredicateTerm& t);
// A literal in DSL syntax, exact and re-readable by the lexer: `1`, `3i64`,
// `0.1f`, `True`, `"NCHW"`, `None`, `[1, 1]`.
std::string AttrLiteralToString(const AttrValue& v);
// "==", "!=", ...
std::string_view CompareOpSpelling(CompareOp op);
// "const", "var", ...
std::string_view NodeClassSpelling(NodeClass cls);

// Structural equality of predicates.
bool PredicateEqual(const Predicate& a, const Predicate& b);

}  // namespace carve
