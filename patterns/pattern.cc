#include "patterns/pattern.h"

#include "patterns/predicate.h"

namespace carve {

PatternNode::PatternNode(PatternKind kind, std::vector<Pattern> children)
    : kind_(kind), children_(std::move(children)) {
  // Inherit the first construction error of a child, so that checking the
  // root is enough (construction is bottom-up, so this is O(1) per node).
  for (const Pattern& c : children_) {
    if (c && c->error_ != nullptr) {
      error_ = c->error_;
      break;
    }
  }
}

void PatternNode::set_error(std::string message) {
  error_ = std::make_shared<const std::string>(std::move(message));
}

absl::Status Pattern::status() const {
  if (node_ == nullptr) return absl::InvalidArgumentError("null pattern");
  if (node_->error() != nullptr) return absl::InvalidArgumentError(*node_->error());
  return absl::OkStatus();
}

bool DimPattern::Matches(const Dim& d) const {
  switch (kind) {
    case Kind::kAny:
      return true;
    case Kind::kDynamic:
      return d.is_any();
    case Kind::kValue:
      return !d.is_any() && d.value == value;
  }
  return false;
}

bool ShapePattern::Matches(std::span<const Dim> shape) const {
  if (shape.size() != dims_.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!dims_[i].Matches(shape[i])) return false;
  }
  return true;
}

namespace {

std::vector<Pattern> Prepend(Pattern first, std::vector<Pattern> rest) {
  rest.insert(rest.begin(), std::move(first));
  return rest;
}

std::vector<Pattern> Append(std::vector<Pattern> init, Pattern last) {
  init.push_back(std::move(last));
  return init;
}

}  // namespace

CallPattern::CallPattern(Pattern callee, std::vector<Pattern> args, bool any_args)
    : PatternNode(kKind, Prepend(std::move(callee), std::move(args))), any_args_(any_args) {}

const OpInfo* CallPattern::op() const {
  const auto* op = DynCast<OperatorPattern>(callee().get());
  return op ? op->op() : nullptr;
}

FunctionPattern::FunctionPattern(std::vector<Pattern> params, Pattern body, bool any_params)
    : PatternNode(kKind, Append(std::move(params), std::move(body))), any_params_(any_params) {}

WherePattern::WherePattern(Pattern inner, std::shared_ptr<const Predicate> predicate)
    : PatternNode(kKind, {std::move(inner)}), predicate_(std::move(predicate)) {}

InvalidPattern::InvalidPattern(std::string message) : PatternNode(kKind, {}) {
  set_error(std::move(message));
}

std::string_view PatternKindName(PatternKind kind) {
  switch (kind) {
    case PatternKind::kWildcard:
      return "wildcard";
    case PatternKind::kOp:
      return "op";
    case PatternKind::kExpr:
      return "expr";
    case PatternKind::kVar:
      return "var";
    case PatternKind::kConstant:
      return "constant";
    case PatternKind::kCall:
      return "call";
    case PatternKind::kTuple:
      return "tuple";
    case PatternKind::kTupleGetItem:
      return "tuple item";
    case PatternKind::kIf:
      return "if";
    case PatternKind::kLet:
      return "let";
    case PatternKind::kFunction:
      return "function";
    case PatternKind::kAlt:
      return "alternation";
    case PatternKind::kAttr:
      return "attr";
    case PatternKind::kType:
      return "type";
    case PatternKind::kDType:
      return "dtype";
    case PatternKind::kShape:
      return "shape";
    case PatternKind::kDominator:
      return "dominator";
    case PatternKind::kCapture:
      return "capture";
    case PatternKind::kWhere:
      return "where";
    case PatternKind::kRecursive:
      return "recursive reference";
    case PatternKind::kInvalid:
      return "invalid";
  }
  return "pattern";
}

}  // namespace carve
