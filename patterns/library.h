// A loaded `.pat` file as data: named patterns, rewrite rules and backend
// specs (grammar/pattern_parser.h builds it; passes use it without depending
// on the text format). A backend lists the single ops it accepts (with an
// optional predicate on the call, `?` being the call) and its composite table
// in priority order, names already prefixed (`dnnl.conv2d_bias_relu`).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expr.h"
#include "patterns/partition.h"
#include "patterns/pattern.h"
#include "patterns/predicate.h"
#include "patterns/rewrite.h"
#include "patterns/template.h"
#include "support/arena.h"
#include "support/source.h"

namespace carve {

struct NamedPattern {
  std::string name;
  Pattern pattern;
  Span span;
};

struct RuleSpec {
  std::string name;
  Pattern lhs;
  std::shared_ptr<const Template> rhs;
  Span span;
};

struct BackendOpRule {
  const OpInfo* op = nullptr;
  std::shared_ptr<const Predicate> predicate;  // null: always supported
  Span span;
  // Set for `op nn.conv2d(?x, const as ?w) where ...`: the call pattern with
  // the where clause folded in, which the call must match (its captures let
  // the predicate test arguments). Null: `?` alone is tested.
  Pattern pattern;
};

struct BackendSpec {
  std::string name;
  std::vector<BackendOpRule> ops;
  std::vector<NamedPattern> composites;  // names are "<backend>.<name>"
  Span span;

  // The rule for `op`, or nullptr when the backend does not list it.
  const BackendOpRule* FindOp(const OpInfo* op) const;
  // True when the backend lists the call's op and its predicate (if any)
  // holds for the call (AnnotateTarget's per-op check).
  bool Supports(const Call* call) const;
  // The composite table (MergeComposite input).
  std::vector<CompositeEntry> CompositeTable() const;
};

class PatternLibrary {
 public:
  PatternLibrary() : arena_(std::make_shared<Arena>()) {}

  const std::vector<NamedPattern>& patterns() const { return patterns_; }
  const std::vector<RuleSpec>& rules() const { return rules_; }
  const std::vector<BackendSpec>& backends() const { return backends_; }
  // nullptr when absent.
  const NamedPattern* FindPattern(std::string_view name) const;
  const RuleSpec* FindRule(std::string_view name) const;
  const BackendSpec* FindBackend(std::string_view name) const;
  // Every rule as a RewriteRule (template callbacks), in file order.
  std::vector<RewriteRule> RewriteRules() const;

  // For builders of libraries (the DSL parser).
  void AddPattern(NamedPattern p) { patterns_.push_back(std::move(p)); }
  void AddRule(RuleSpec r) { rules_.push_back(std::move(r)); }
  void AddBackend(BackendSpec b) { backends_.push_back(std::move(b)); }
  // Owns constants made for literals (`1f`); patterns keep it alive too.
  const std::shared_ptr<Arena>& arena() const { return arena_; }

 private:
  std::shared_ptr<Arena> arena_;
  std::vector<NamedPattern> patterns_;
  std::vector<RuleSpec> rules_;
  std::vector<BackendSpec> backends_;
};

}  // namespace carve
