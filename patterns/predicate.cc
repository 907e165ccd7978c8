#include "patterns/predicate.h"

#include <cmath>

#include "fmt/format.h"
#include "ir/type.h"
#include "patterns/attr_match.h"

namespace carve {

PredicateTerm PredicateTerm::Literal(AttrValue v) {
  PredicateTerm t;
  t.kind = Kind::kLiteral;
  t.literal = v;
  return t;
}

PredicateTerm PredicateTerm::Attr(std::string capture, std::string key) {
  PredicateTerm t;
  t.kind = Kind::kAttr;
  t.capture = std::move(capture);
  t.key = std::move(key);
  return t;
}

PredicateTerm PredicateTerm::DType(std::string capture) {
  PredicateTerm t;
  t.kind = Kind::kDType;
  t.capture = std::move(capture);
  return t;
}

PredicateTerm PredicateTerm::Shape(std::string capture) {
  PredicateTerm t;
  t.kind = Kind::kShape;
  t.capture = std::move(capture);
  return t;
}

PredicateTerm PredicateTerm::ShapeDim(std::string capture, int64_t index) {
  PredicateTerm t;
  t.kind = Kind::kShapeDim;
  t.capture = std::move(capture);
  t.index = index;
  return t;
}

PredicateTerm PredicateTerm::Rank(std::string capture) {
  PredicateTerm t;
  t.kind = Kind::kRank;
  t.capture = std::move(capture);
  return t;
}

bool operator==(const PredicateTerm& a, const PredicateTerm& b) {
  if (a.kind != b.kind || a.capture != b.capture || a.key != b.key || a.index != b.index) {
    return false;
  }
  // Literal kinds matter for printing (1 vs 1.0), so compare exactly.
  return a.literal.kind() == b.literal.kind() && a.literal == b.literal;
}

std::shared_ptr<const Predicate> Predicate::And(std::shared_ptr<const Predicate> a,
                                                std::shared_ptr<const Predicate> b) {
  auto p = std::shared_ptr<Predicate>(new Predicate(Kind::kAnd));
  p->operands_ = {std::move(a), std::move(b)};
  return p;
}

std::shared_ptr<const Predicate> Predicate::Or(std::shared_ptr<const Predicate> a,
                                               std::shared_ptr<const Predicate> b) {
  auto p = std::shared_ptr<Predicate>(new Predicate(Kind::kOr));
  p->operands_ = {std::move(a), std::move(b)};
  return p;
}

std::shared_ptr<const Predicate> Predicate::Not(std::shared_ptr<const Predicate> a) {
  auto p = std::shared_ptr<Predicate>(new Predicate(Kind::kNot));
  p->operands_ = {std::move(a)};
  return p;
}

std::shared_ptr<const Predicate> Predicate::Compare(PredicateTerm lhs, CompareOp op,
                                                    PredicateTerm rhs) {
  auto p = std::shared_ptr<Predicate>(new Predicate(Kind::kCompare));
  p->terms_ = {std::move(lhs), std::move(rhs)};
  p->op_ = op;
  return p;
}

std::shared_ptr<const Predicate> Predicate::In(PredicateTerm term,
                                               std::vector<PredicateTerm> items) {
  auto p = std::shared_ptr<Predicate>(new Predicate(Kind::kIn));
  p->terms_.push_back(std::move(term));
  for (PredicateTerm& t : items) p->terms_.push_back(std::move(t));
  return p;
}

std::shared_ptr<const Predicate> Predicate::Is(std::string capture, NodeClass cls) {
  auto p = std::shared_ptr<Predicate>(new Predicate(Kind::kIs));
  p->capture_ = std::move(capture);
  p->class_ = cls;
  return p;
}

std::vector<std::string> Predicate::Captures() const {
  std::vector<std::string> out;
  std::vector<const Predicate*> stack = {this};
  while (!stack.empty()) {
    const Predicate* p = stack.back();
    stack.pop_back();
    if (p->kind_ == Kind::kIs) out.push_back(p->capture_);
    for (const PredicateTerm& t : p->terms_) {
      if (t.kind != PredicateTerm::Kind::kLiteral) out.push_back(t.capture);
    }
    for (auto it = p->operands_.rbegin(); it != p->operands_.rend(); ++it) {
      stack.push_back(it->get());
    }
  }
  return out;
}

namespace {

const TensorType* TensorTypeOf(const Expr* e) {
  return e == nullptr ? nullptr : DynCast<TensorType>(e->checked_type());
}

bool HasClass(const Expr* e, NodeClass cls) {
  switch (cls) {
    case NodeClass::kConst:
      return Isa<Constant>(e);
    case NodeClass::kVar:
      return Isa<Var>(e);
    case NodeClass::kCall:
      return Isa<Call>(e);
    case NodeClass::kTuple:
      return Isa<Tuple>(e);
    case NodeClass::kFunction:
      return Isa<Function>(e);
  }
  return false;
}

Truth FromBool(bool b) { return b ? Truth::kTrue : Truth::kFalse; }

Truth ApplyCompare(CompareOp op, const AttrValue& a, const AttrValue& b) {
  if (op == CompareOp::kEq) return FromBool(AttrValueMatches(a, b));
  if (op == CompareOp::kNe) return FromBool(!AttrValueMatches(a, b));
  std::optional<int> c = CompareAttrValues(a, b);
  if (!c) return Truth::kUnknown;
  switch (op) {
    case CompareOp::kLt:
      return FromBool(*c < 0);
    case CompareOp::kLe:
      return FromBool(*c <= 0);
    case CompareOp::kGt:
      return FromBool(*c > 0);
    case CompareOp::kGe:
      return FromBool(*c >= 0);
    default:
      return Truth::kUnknown;
  }
}

std::string ValueText(const std::optional<AttrValue>& v) {
  return v ? AttrValueToString(*v) : std::string("undefined");
}

// Evaluates a comparison or membership test; explains a non-true result.
Truth EvaluateLeaf(const Predicate& p, const CaptureResolver& resolve, std::string* why) {
  const auto& terms = p.terms();
  std::optional<AttrValue> lhs = EvaluateTerm(terms[0], resolve);
  Truth result = Truth::kUnknown;
  if (lhs) {
    result = Truth::kFalse;
    for (size_t i = 1; i < terms.size() && result != Truth::kTrue; ++i) {
      std::optional<AttrValue> rhs = EvaluateTerm(terms[i], resolve);
      Truth t = !rhs                               ? Truth::kUnknown
                : p.kind() == Predicate::Kind::kIn ? FromBool(AttrValueMatches(*rhs, *lhs))
                                                   : ApplyCompare(p.compare_op(), *lhs, *rhs);
      if (t == Truth::kTrue || (t == Truth::kUnknown && result == Truth::kFalse)) result = t;
    }
  }
  if (result != Truth::kTrue && why != nullptr) {
    std::string detail = terms[0].kind == PredicateTerm::Kind::kLiteral
                             ? std::string()
                             : fmt::format(" ({} is {})", TermToString(terms[0]), ValueText(lhs));
    *why = fmt::format("`{}` is {}{}", PredicateToString(p),
                       result == Truth::kFalse ? "false" : "undefined", detail);
  }
  return result;
}

}  // namespace

std::optional<AttrValue> EvaluateTerm(const PredicateTerm& t, const CaptureResolver& resolve) {
  if (t.kind == PredicateTerm::Kind::kLiteral) return t.literal;
  const Expr* e = resolve(t.capture);
  if (e == nullptr) return std::nullopt;
  if (t.kind == PredicateTerm::Kind::kAttr) return NodeAttr(e, t.key);
  const TensorType* tt = TensorTypeOf(e);
  if (tt == nullptr) return std::nullopt;
  switch (t.kind) {
    case PredicateTerm::Kind::kDType:
      return AttrValue::Str(tt->dtype().ToString());
    case PredicateTerm::Kind::kRank:
      return AttrValue::Int(static_cast<int64_t>(tt->rank()));
    case PredicateTerm::Kind::kShape: {
      std::vector<AttrValue> dims;
      for (const Dim& d : tt->shape()) dims.push_back(AttrValue::Int(d.value));
      return AttrValue::Array(dims);
    }
    case PredicateTerm::Kind::kShapeDim: {
      int64_t rank = static_cast<int64_t>(tt->rank());
      int64_t i = t.index < 0 ? t.index + rank : t.index;
      if (i < 0 || i >= rank) return std::nullopt;
      return AttrValue::Int(tt->shape()[i].value);
    }
    default:
      return std::nullopt;
  }
}

Truth EvaluatePredicate(const Predicate& p, const CaptureResolver& resolve, std::string* why) {
  switch (p.kind()) {
    case Predicate::Kind::kAnd: {
      Truth a = EvaluatePredicate(*p.operands()[0], resolve, why);
      if (a == Truth::kFalse) return a;
      Truth b = EvaluatePredicate(*p.operands()[1], resolve, a == Truth::kTrue ? why : nullptr);
      if (b == Truth::kFalse) return b;
      return a == Truth::kTrue ? b : Truth::kUnknown;
    }
    case Predicate::Kind::kOr: {
      Truth a = EvaluatePredicate(*p.operands()[0], resolve, nullptr);
      if (a == Truth::kTrue) return a;
      Truth b = EvaluatePredicate(*p.operands()[1], resolve, nullptr);
      if (b == Truth::kTrue) return b;
      Truth r = (a == Truth::kUnknown || b == Truth::kUnknown) ? Truth::kUnknown : Truth::kFalse;
      if (why != nullptr) *why = fmt::format("`{}` is false", PredicateToString(p));
      return r;
    }
    case Predicate::Kind::kNot: {
      Truth a = EvaluatePredicate(*p.operands()[0], resolve, nullptr);
      if (a == Truth::kUnknown) {
        if (why != nullptr) *why = fmt::format("`{}` is undefined", PredicateToString(p));
        return a;
      }
      if (a == Truth::kTrue && why != nullptr) {
        *why = fmt::format("`{}` is false", PredicateToString(p));
      }
      return a == Truth::kTrue ? Truth::kFalse : Truth::kTrue;
    }
    case Predicate::Kind::kIs: {
      const Expr* e = resolve(p.capture());
      Truth r = e == nullptr ? Truth::kUnknown : FromBool(HasClass(e, p.node_class()));
      if (r != Truth::kTrue && why != nullptr) {
        *why = fmt::format("`{}` is {}", PredicateToString(p),
                           r == Truth::kFalse ? "false" : "undefined");
      }
      return r;
    }
    case Predicate::Kind::kCompare:
    case Predicate::Kind::kIn:
      return EvaluateLeaf(p, resolve, why);
  }
  return Truth::kUnknown;
}

std::string AttrLiteralToString(const AttrValue& v) {
  switch (v.kind()) {
    case AttrValue::Kind::kInt: {
      std::string_view suffix = v.int_bits() == 64   ? "i64"
                                : v.int_bits() == 16 ? "i16"
                                : v.int_bits() == 8  ? "i8"
                                                     : "";
      return fmt::format("{}{}", v.as_int(), suffix);
    }
    case AttrValue::Kind::kFloat: {
      double d = v.as_float();
      if (std::isinf(d)) return d > 0 ? "inff" : "-inff";
      if (std::isnan(d)) return "nanf";
      return fmt::format("{}f", d);  // shortest text that reads back exactly
    }
    case AttrValue::Kind::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < v.as_array().size(); ++i) {
        if (i > 0) out += ", ";
        out += AttrLiteralToString(v.as_array()[i]);
      }
      return out + "]";
    }
    default:
      return AttrValueToString(v);  // None, True/False, quoted strings
  }
}

std::string_view CompareOpSpelling(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
      return "==";
    case CompareOp::kNe:
      return "!=";
    case CompareOp::kLt:
      return "<";
    case CompareOp::kLe:
      return "<=";
    case CompareOp::kGt:
      return ">";
    case CompareOp::kGe:
      return ">=";
  }
  return "==";
}

std::string_view NodeClassSpelling(NodeClass cls) {
  switch (cls) {
    case NodeClass::kConst:
      return "const";
    case NodeClass::kVar:
      return "var";
    case NodeClass::kCall:
      return "call";
    case NodeClass::kTuple:
      return "tuple";
    case NodeClass::kFunction:
      return "fn";
  }
  return "const";
}

namespace {

std::string CaptureText(const std::string& name) { return "?" + name; }

// Precedence for printing: or < and < not < leaf.
int Precedence(const Predicate& p) {
  switch (p.kind()) {
    case Predicate::Kind::kOr:
      return 1;
    case Predicate::Kind::kAnd:
      return 2;
    case Predicate::Kind::kNot:
      return 3;
    default:
      return 4;
  }
}

std::string Operand(const Predicate& p, int min_prec) {
  std::string s = PredicateToString(p);
  return Precedence(p) < min_prec ? "(" + s + ")" : s;
}

}  // namespace

std::string TermToString(const PredicateTerm& t) {
  switch (t.kind) {
    case PredicateTerm::Kind::kLiteral:
      return AttrLiteralToString(t.literal);
    case PredicateTerm::Kind::kAttr:
      return CaptureText(t.capture) + "." + t.key;
    case PredicateTerm::Kind::kDType:
      return "dtype(" + CaptureText(t.capture) + ")";
    case PredicateTerm::Kind::kShape:
      return "shape(" + CaptureText(t.capture) + ")";
    case PredicateTerm::Kind::kShapeDim:
      return fmt::format("shape({})[{}]", CaptureText(t.capture), t.index);
    case PredicateTerm::Kind::kRank:
      return "rank(" + CaptureText(t.capture) + ")";
  }
  return "";
}

std::string PredicateToString(const Predicate& p) {
  switch (p.kind()) {
    case Predicate::Kind::kAnd:
      return Operand(*p.operands()[0], 2) + " and " + Operand(*p.operands()[1], 3);
    case Predicate::Kind::kOr:
      return Operand(*p.operands()[0], 1) + " or " + Operand(*p.operands()[1], 2);
    case Predicate::Kind::kNot:
      return "not " + Operand(*p.operands()[0], 3);
    case Predicate::Kind::kIs:
      return fmt::format("{} is {}", CaptureText(p.capture()), NodeClassSpelling(p.node_class()));
    case Predicate::Kind::kCompare:
      return fmt::format("{} {} {}", TermToString(p.terms()[0]), CompareOpSpelling(p.compare_op()),
                         TermToString(p.terms()[1]));
    case Predicate::Kind::kIn: {
      std::string out = TermToString(p.terms()[0]) + " in [";
      for (size_t i = 1; i < p.terms().size(); ++i) {
        if (i > 1) out += ", ";
        out += TermToString(p.terms()[i]);
      }
      return out + "]";
    }
  }
  return "";
}

bool PredicateEqual(const Predicate& a, const Predicate& b) {
  if (a.kind() != b.kind() || a.compare_op() != b.compare_op() || a.capture() != b.capture() ||
      a.node_class() != b.node_class() || a.terms() != b.terms() ||
      a.operands().size() != b.operands().size()) {
    return false;
  }
  for (size_t i = 0; i < a.operands().size(); ++i) {
    if (!PredicateEqual(*a.operands()[i], *b.operands()[i])) return false;
  }
  return true;
}

}  // namespace carve
