#include "patterns/attr_match.h"

#include <algorithm>
#include <cmath>

namespace carve {
namespace {

bool IsNumber(const AttrValue& v) {
  return v.kind() == AttrValue::Kind::kInt || v.kind() == AttrValue::Kind::kBool ||
         v.kind() == AttrValue::Kind::kFloat;
}

bool IsIntegral(const AttrValue& v) {
  return v.kind() == AttrValue::Kind::kInt || v.kind() == AttrValue::Kind::kBool;
}

}  // namespace

bool AttrValueMatches(const AttrValue& expected, const AttrValue& actual) {
  if (IsNumber(expected) && IsNumber(actual)) {
    if (IsIntegral(expected) && IsIntegral(actual)) return expected.as_int() == actual.as_int();
    return expected.as_float() == actual.as_float();
  }
  if (expected.kind() != actual.kind()) return false;
  switch (expected.kind()) {
    case AttrValue::Kind::kNull:
      return true;
    case AttrValue::Kind::kString:
      return expected.as_string() == actual.as_string();
    case AttrValue::Kind::kArray: {
      auto a = expected.as_array();
      auto b = actual.as_array();
      return std::equal(a.begin(), a.end(), b.begin(), b.end(), AttrValueMatches);
    }
    default:
      return false;
  }
}

bool CallAttrMatches(const AttrValue& expected, const AttrValue& actual) {
  using K = AttrValue::Kind;
  switch (actual.kind()) {
    case K::kInt:
    case K::kBool:
      return IsIntegral(expected) && expected.as_int() == actual.as_int();
    case K::kFloat:
      return expected.kind() == K::kFloat && expected.as_float() == actual.as_float();
    case K::kString:
      return expected.kind() == K::kString && expected.as_string() == actual.as_string();
    case K::kArray:
      return AttrValuesStructurallyEqual(expected, actual);
    case K::kNull:
      return expected.is_null();
  }
  return false;
}

bool AttrValuesStructurallyEqual(const AttrValue& a, const AttrValue& b) {
  using K = AttrValue::Kind;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::kNull:
      return true;
    case K::kInt:
      return a.as_int() == b.as_int() && a.int_bits() == b.int_bits();
    case K::kBool:
      return a.as_int() == b.as_int();
    case K::kFloat:
      return a.as_float() == b.as_float();
    case K::kString:
      return a.as_string() == b.as_string();
    case K::kArray: {
      auto x = a.as_array();
      auto y = b.as_array();
      return std::equal(x.begin(), x.end(), y.begin(), y.end(), AttrValuesStructurallyEqual);
    }
  }
  return false;
}

std::optional<int> CompareAttrValues(const AttrValue& a, const AttrValue& b) {
  if (IsNumber(a) && IsNumber(b)) {
    if (IsIntegral(a) && IsIntegral(b)) {
      return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int() ? 1 : 0);
    }
    double x = a.as_float(), y = b.as_float();
    if (std::isnan(x) || std::isnan(y)) return std::nullopt;
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.kind() == AttrValue::Kind::kString && b.kind() == AttrValue::Kind::kString) {
    int c = a.as_string().compare(b.as_string());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return std::nullopt;
}

std::optional<AttrValue> OpAttrMapValue(const OpInfo& op, std::string_view key) {
  if (key == "TOpPattern") {
    if (op.pattern == OpPattern::kNone) return std::nullopt;
    return AttrValue::Int(static_cast<int64_t>(op.pattern));
  }
  if (key == "TOpIsStateful") return AttrValue::Bool(op.flags & kOpStateful);
  if (key == "TNonComputational") return AttrValue::Bool(op.flags & kOpNonComputational);
  return std::nullopt;
}

std::optional<AttrValue> NodeAttr(const Expr* node, std::string_view key) {
  const Attrs* attrs = nullptr;
  if (const auto* call = DynCast<Call>(node)) {
    attrs = call->attrs();
  } else if (const auto* fn = DynCast<Function>(node)) {
    attrs = fn->attrs();
  } else if (const auto* op = DynCast<OpExpr>(node)) {
    return OpAttrMapValue(*op->info(), key);
  }
  if (attrs == nullptr) return std::nullopt;
  const AttrValue* v = attrs->Find(key);
  if (v == nullptr) return std::nullopt;
  return *v;
}

}  // namespace carve
