#include "patterns/builders.h"

#include "fmt/format.h"
#include "patterns/predicate.h"

namespace carve {
namespace {

template <typename T, typename... Args>
Pattern Make(Args&&... args) {
  return Pattern(std::make_shared<const T>(std::forward<Args>(args)...));
}

// Attribute keys are stored as string_views: intern them so that the
// pattern does not depend on the caller's strings.
std::vector<AttrEntry> InternKeys(std::vector<AttrEntry> attrs) {
  for (AttrEntry& e : attrs) e.key = InternString(e.key);
  return attrs;
}

}  // namespace

Pattern Wildcard() { return Make<WildcardPattern>(); }

Pattern IsOp(std::string_view name) {
  const OpInfo* op = FindOp(name);
  if (op == nullptr) return InvalidPatternWithError(UnknownOpMessage(name));
  return IsOp(op);
}

Pattern IsOp(const OpInfo* op) { return Make<OperatorPattern>(op); }

Pattern IsExpr(const Expr* expr) { return Make<ExprPattern>(expr, nullptr); }

Pattern IsExpr(const Expr* expr, std::shared_ptr<const void> keep_alive) {
  return Make<ExprPattern>(expr, std::move(keep_alive));
}

Pattern IsVar(std::string_view name) { return Make<VarPattern>(std::string(name)); }

Pattern IsConstant() { return Make<ConstantPattern>(); }

Pattern IsCall(Pattern callee, std::vector<Pattern> args) {
  return Make<CallPattern>(std::move(callee), std::move(args), false);
}

Pattern IsCallAnyArgs(Pattern callee) {
  return Make<CallPattern>(std::move(callee), std::vector<Pattern>{}, true);
}

Pattern IsTuple(std::vector<Pattern> fields) {
  return Make<TuplePattern>(std::move(fields), false);
}

Pattern IsAnyTuple() { return Make<TuplePattern>(std::vector<Pattern>{}, true); }

Pattern IsTupleGetItem(Pattern tuple, int index) {
  return Make<TupleGetItemPattern>(std::move(tuple), index);
}

Pattern IsIf(Pattern cond, Pattern then_branch, Pattern else_branch) {
  return Make<IfPattern>(std::move(cond), std::move(then_branch), std::move(else_branch));
}

Pattern IsLet(Pattern var, Pattern value, Pattern body) {
  return Make<LetPattern>(std::move(var), std::move(value), std::move(body));
}

Pattern IsFunction(std::vector<Pattern> params, Pattern body) {
  return Make<FunctionPattern>(std::move(params), std::move(body), false);
}

Pattern IsFunctionAnyParams(Pattern body) {
  return Make<FunctionPattern>(std::vector<Pattern>{}, std::move(body), true);
}

Pattern Alt(Pattern left, Pattern right) {
  return Make<AltPattern>(std::move(left), std::move(right));
}

Pattern Optional(const Pattern& p, const std::function<Pattern(const Pattern&)>& f) {
  return Alt(p, f(p));
}

Pattern HasAttr(std::vector<AttrEntry> attrs, Pattern inner) {
  return Make<AttrPattern>(std::move(inner), InternKeys(std::move(attrs)));
}

Pattern HasType(const Type* type, Pattern inner) {
  return Make<TypePattern>(std::move(inner), type);
}

Pattern HasDType(DataType dtype, Pattern inner) {
  return Make<DTypePattern>(std::move(inner), dtype);
}

Pattern HasDType(std::string_view dtype, Pattern inner) {
  std::optional<DataType> parsed = DataType::Parse(dtype);
  if (!parsed) return InvalidPatternWithError(fmt::format("unknown dtype '{}'", dtype));
  return HasDType(*parsed, std::move(inner));
}

Pattern HasShape(std::vector<DimPattern> dims, Pattern inner) {
  return Make<ShapePattern>(std::move(inner), std::move(dims));
}

Pattern Dominates(Pattern parent, Pattern path, Pattern child) {
  return Make<DominatorPattern>(std::move(parent), std::move(path), std::move(child));
}

Pattern Capture(std::string_view name, Pattern inner) {
  return Make<CapturePattern>(std::move(inner), std::string(name));
}

Pattern Where(Pattern inner, std::shared_ptr<const Predicate> predicate) {
  return Make<WherePattern>(std::move(inner), std::move(predicate));
}

Pattern Recursive(std::string_view name, const std::function<Pattern(const Pattern&)>& body) {
  auto ref = std::make_shared<const RecursivePattern>(std::string(name));
  Pattern root = body(Pattern(ref));
  ref->SetTarget(root);
  return root;
}

Pattern InvalidPatternWithError(std::string message) {
  return Make<InvalidPattern>(std::move(message));
}

Pattern operator+(const Pattern& a, const Pattern& b) { return IsOp("add")(a, b); }
Pattern operator-(const Pattern& a, const Pattern& b) { return IsOp("subtract")(a, b); }
Pattern operator*(const Pattern& a, const Pattern& b) { return IsOp("multiply")(a, b); }
Pattern operator/(const Pattern& a, const Pattern& b) { return IsOp("divide")(a, b); }

// --- Pattern's fluent methods ---

Pattern Pattern::operator()(std::vector<Pattern> args) const {
  return IsCall(*this, std::move(args));
}

Pattern Pattern::CallAnyArgs() const { return IsCallAnyArgs(*this); }

Pattern Pattern::operator|(const Pattern& other) const { return Alt(*this, other); }

Pattern Pattern::Optional(const std::function<Pattern(const Pattern&)>& f) const {
  return carve::Optional(*this, f);
}

Pattern Pattern::HasAttr(std::vector<AttrEntry> attrs) const {
  return carve::HasAttr(std::move(attrs), *this);
}

Pattern Pattern::HasType(const Type* type) const { return carve::HasType(type, *this); }

Pattern Pattern::HasDType(DataType dtype) const { return carve::HasDType(dtype, *this); }

Pattern Pattern::HasDType(std::string_view dtype) const { return carve::HasDType(dtype, *this); }

Pattern Pattern::HasShape(std::vector<DimPattern> dims) const {
  return carve::HasShape(std::move(dims), *this);
}

Pattern Pattern::As(std::string_view name) const { return Capture(name, *this); }

Pattern Pattern::Where(std::shared_ptr<const Predicate> predicate) const {
  return carve::Where(*this, std::move(predicate));
}

Pattern Pattern::Dominates(const Pattern& parent, const Pattern& path) const {
  return carve::Dominates(parent, path, *this);
}

}  // namespace carve
