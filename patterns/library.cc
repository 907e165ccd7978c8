#include "patterns/library.h"

#include "patterns/compile.h"
#include "patterns/matcher.h"

namespace carve {

const BackendOpRule* BackendSpec::FindOp(const OpInfo* op) const {
  for (const BackendOpRule& r : ops) {
    if (r.op == op) return &r;
  }
  return nullptr;
}

bool BackendSpec::Supports(const Call* call) const {
  const BackendOpRule* rule = call->op() ? FindOp(call->op()) : nullptr;
  if (rule == nullptr) return false;
  if (rule->pattern) return MatchPattern(rule->pattern, call);
  if (rule->predicate == nullptr) return true;
  CaptureResolver self = [call](std::string_view name) -> const Expr* {
    return name.empty() ? call : nullptr;
  };
  return EvaluatePredicate(*rule->predicate, self) == Truth::kTrue;
}

std::vector<CompositeEntry> BackendSpec::CompositeTable() const {
  std::vector<CompositeEntry> table;
  for (const NamedPattern& c : composites) table.push_back({c.name, c.pattern, {}});
  return table;
}

const NamedPattern* PatternLibrary::FindPattern(std::string_view name) const {
  for (const NamedPattern& p : patterns_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const RuleSpec* PatternLibrary::FindRule(std::string_view name) const {
  for (const RuleSpec& r : rules_) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

const BackendSpec* PatternLibrary::FindBackend(std::string_view name) const {
  for (const BackendSpec& b : backends_) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

std::vector<RewriteRule> PatternLibrary::RewriteRules() const {
  std::vector<RewriteRule> out;
  for (const RuleSpec& r : rules_) {
    RewriteRule rule;
    rule.name = r.name;
    rule.pattern = r.lhs;
    rule.rewrite = TemplateRewrite(r.rhs);
    auto compiled = CompilePattern(r.lhs);
    rule.require_type = compiled.ok() && (*compiled)->needs_types();
    out.push_back(std::move(rule));
  }
  return out;
}

}  // namespace carve
