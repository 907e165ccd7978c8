#include "passes/byoc/target.h"

#include <algorithm>
#include <utility>

#include "fmt/format.h"
#include "support/edit_distance.h"

namespace carve {
namespace {

// Evaluates one rule on a call; on failure `why` names the condition.
bool RuleAccepts(const OpRule& rule, const Call* call, std::string* why) {
  if (rule.where != nullptr) {
    CaptureResolver resolve = [call](std::string_view name) -> const Expr* {
      return name.empty() ? call : nullptr;
    };
    std::string reason;
    if (EvaluatePredicate(*rule.where, resolve, &reason) != Truth::kTrue) {
      *why = rule.description.empty() ? PredicateToString(*rule.where) : rule.description;
      if (!reason.empty()) *why += fmt::format(" ({})", reason);
      return false;
    }
  }
  if (rule.check != nullptr && !rule.check(call)) {
    *why = rule.description.empty() ? "target check" : rule.description;
    return false;
  }
  return true;
}

}  // namespace

void TargetSpec::AddOp(OpRule rule) {
  if (rule.description.empty() && rule.where != nullptr) {
    rule.description = PredicateToString(*rule.where);
  }
  const OpInfo* op = rule.op;
  op_rules_[op].push_back(std::move(rule));
}

absl::Status TargetSpec::AddOp(std::string_view op_name, CallCheck check,
                               std::string description) {
  const OpInfo* op = FindOp(op_name);
  if (op == nullptr) return absl::InvalidArgumentError(UnknownOpMessage(op_name));
  AddOp(OpRule{op, nullptr, std::move(check), std::move(description)});
  return absl::OkStatus();
}

void TargetSpec::AddComposite(CompositeRule rule) {
  std::string prefix = name_ + ".";
  if (!rule.name.starts_with(prefix)) rule.name = prefix + rule.name;
  composites_.push_back(std::move(rule));
}

OpVerdict TargetSpec::CheckCall(const Call* call) const {
  const OpInfo* op = call->op();
  auto it = op == nullptr ? op_rules_.end() : op_rules_.find(op);
  if (it == op_rules_.end()) return OpVerdict{OpVerdict::Kind::kUnsupportedOp, ""};
  std::string why;
  for (const OpRule& rule : it->second) {
    std::string reason;
    if (RuleAccepts(rule, call, &reason)) return OpVerdict{OpVerdict::Kind::kAccepted, ""};
    if (why.empty()) why = std::move(reason);
  }
  return OpVerdict{OpVerdict::Kind::kFailedCheck, why};
}

std::span<const OpRule> TargetSpec::OpRules(const OpInfo* op) const {
  auto it = op_rules_.find(op);
  if (it == op_rules_.end()) return {};
  return it->second;
}

std::vector<const OpInfo*> TargetSpec::SupportedOps() const {
  std::vector<const OpInfo*> ops;
  for (const auto& [op, rules] : op_rules_) ops.push_back(op);
  std::sort(ops.begin(), ops.end(),
            [](const OpInfo* a, const OpInfo* b) { return a->name < b->name; });
  return ops;
}

TargetRegistry& TargetRegistry::Global() {
  static TargetRegistry* registry = [] {
    auto* r = new TargetRegistry();
    r->Register(MakeByocDemoTarget("byoc_target"));
    r->Register(MakeByocDemoTarget("byoc-target"));
    return r;
  }();
  return *registry;
}

void TargetRegistry::AddProvider(Provider provider) {
  std::lock_guard<std::mutex> lock(mu_);
  providers_.push_back(std::move(provider));
}

void TargetRegistry::RunProviders() const {
  std::vector<Provider> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (providers_.empty()) return;
    pending.swap(providers_);
  }
  for (Provider& provider : pending) provider(const_cast<TargetRegistry&>(*this));
}

void TargetRegistry::ReportLoadError(std::string_view name, absl::Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  load_errors_.emplace_back(std::string(name), std::move(error));
}

void TargetRegistry::Register(TargetSpecPtr spec) {
  RunProviders();  // a user's spec replaces a built-in one, never the reverse
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(load_errors_, [&](const auto& e) { return e.first == spec->name(); });
  for (TargetSpecPtr& existing : specs_) {
    if (existing->name() == spec->name()) {
      existing = std::move(spec);
      return;
    }
  }
  specs_.push_back(std::move(spec));
}

TargetSpecPtr TargetRegistry::Find(std::string_view name) const {
  RunProviders();
  std::lock_guard<std::mutex> lock(mu_);
  for (const TargetSpecPtr& spec : specs_) {
    if (spec->name() == name) return spec;
  }
  return nullptr;
}

absl::StatusOr<TargetSpecPtr> TargetRegistry::Get(std::string_view name) const {
  if (TargetSpecPtr spec = Find(name)) return spec;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [failed, error] : load_errors_) {
      if (failed == name) return error;
    }
  }
  std::vector<std::string> names = Names();
  std::string near = NearestName(name, names);
  if (near.empty()) {
    return absl::InvalidArgumentError(fmt::format("unknown target '{}' (known targets: {})",
                                                  name, fmt::join(names, ", ")));
  }
  return absl::InvalidArgumentError(
      fmt::format("unknown target '{}' (did you mean '{}'?)", name, near));
}

std::vector<std::string> TargetRegistry::Names() const {
  RunProviders();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const TargetSpecPtr& spec : specs_) names.push_back(spec->name());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace carve
