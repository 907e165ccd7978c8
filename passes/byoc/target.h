// Target specs: what a BYOC backend accepts, in the form the passes consume.
//
// A TargetSpec holds, for one target (the `Compiler` name, e.g. "dnnl"):
//   - single-op rules: the ops AnnotateTarget may offload, each with an
//     optional condition on the typed call (TVM's `target.<name>` op attrs);
//   - the composite pattern table, in priority order (TVM's
//     `register_pattern_table`): each entry is named `<target>.<name>`, has a
//     pattern and an optional check on the typed root of a match;
//   - an optional hook run on every partitioned function
//     (`relay.ext.<target>.optimize`);
//   - the recipe `carve partition` follows (TVM's `partition_for_<target>`).
//
// Specs are registered by name in a TargetRegistry. Tests and the `.pat` DSL
// (`backend NAME { ... }`) register their own; the registry starts with the
// seed demo's `byoc_target` (and `byoc-target`, the seed notebook's spelling)
// and `dnnl_like`, a DNNL-shaped table used by the benchmarks.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "patterns/pattern.h"
#include "patterns/predicate.h"

namespace carve {

// A condition on a typed call (C++ form of a check). Returns true when the
// call is accepted.
using CallCheck = std::function<bool(const Call* call)>;
// A condition on the typed root of a composite match.
using RootCheck = std::function<bool(const Expr* root)>;
// Why a condition rejects the typed root of a composite match: the clause
// that failed and the values it saw; "" when it accepts.
using RootRefusal = std::function<std::string(const Expr* root)>;

// An op the target accepts, under a condition. Without `where` and `check`
// every call of the op is accepted; with both, both must hold.
struct OpRule {
  const OpInfo* op = nullptr;
  // A DSL predicate where `?` is the call (`?.layout == "NCHW"`).
  std::shared_ptr<const Predicate> where;
  // A C++ predicate on the call.
  CallCheck check;
  // The condition as text, for reports ("layout == NCHW"); defaults to the
  // predicate's DSL text.
  std::string description;
  // The DSL pattern `check` matches (`op nn.conv2d(?x, const as ?w) where
  // ...`), when the rule came from one: explanations say which part of it
  // failed (passes/byoc/placement_record.h).
  Pattern pattern;
};

// One composite pattern of the table.
struct CompositeRule {
  std::string name;  // full name, `<target>.<name>`
  Pattern pattern;
  RootCheck check;          // optional
  std::string description;  // the check as text, for reports
  // Optional, beside `check`: why it rejects a root, for the placement
  // record and `carve why` (passes/byoc/placement_record.h).
  RootRefusal refusal;
};

// Why a call is or is not accepted by a target's single-op rules.
struct OpVerdict {
  enum class Kind { kAccepted, kUnsupportedOp, kFailedCheck };
  Kind kind = Kind::kUnsupportedOp;
  // For kFailedCheck: the condition that failed and, when known, why.
  std::string detail;
  bool accepted() const { return kind == Kind::kAccepted; }
};

// How `carve partition` runs the flow for a target (TVM's
// `partition_for_<target>`): prep passes, then MergeComposite,
// AnnotateTarget and, optionally, MergeCompilerRegions, then PartitionGraph.
struct PartitionRecipe {
  std::string prep_pipeline;          // pipeline text run before MergeComposite ("" = none)
  bool annotate_non_call_ops = true;  // AnnotateTarget's include_non_call_ops
  bool merge_regions = true;          // run MergeCompilerRegions
};

// Applied by PartitionGraph to each function it creates for the target
// (TVM's `relay.ext.<target>.optimize`). Returns the new function.
using PartitionHook =
    std::function<absl::StatusOr<const Function*>(const Function* fn, Arena* arena)>;

class TargetSpec {
 public:
  explicit TargetSpec(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }

  // Adds a single-op rule. Several rules for one op: a call is accepted when
  // any of them accepts it.
  void AddOp(OpRule rule);
  // Shorthand: accept every call of `op_name`. InvalidArgument for an unknown
  // op (with the nearest registered name).
  absl::Status AddOp(std::string_view op_name, CallCheck check = nullptr,
                     std::string description = "");
  // Appends a composite pattern (lowest priority so far). The name is
  // prefixed with `<target>.` unless it already is.
  void AddComposite(CompositeRule rule);

  // The verdict of the single-op rules on a typed call of an op.
  OpVerdict CheckCall(const Call* call) const;
  bool Accepts(const Call* call) const { return CheckCall(call).accepted(); }
  // True when some rule mentions `op`.
  bool HasOpRule(const OpInfo* op) const { return op_rules_.contains(op); }
  // The rules of `op` (empty when none).
  std::span<const OpRule> OpRules(const OpInfo* op) const;
  // Every op with a rule, sorted by name.
  std::vector<const OpInfo*> SupportedOps() const;

  std::span<const CompositeRule> composites() const { return composites_; }

  const PartitionRecipe& recipe() const { return recipe_; }
  void set_recipe(PartitionRecipe recipe) { recipe_ = std::move(recipe); }
  const PartitionHook& partition_hook() const { return hook_; }
  void set_partition_hook(PartitionHook hook) { hook_ = std::move(hook); }

 private:
  std::string name_;
  absl::flat_hash_map<const OpInfo*, std::vector<OpRule>> op_rules_;
  std::vector<CompositeRule> composites_;
  PartitionRecipe recipe_;
  PartitionHook hook_;
};

using TargetSpecPtr = std::shared_ptr<const TargetSpec>;

// Target specs by name. Thread-safe.
class TargetRegistry {
 public:
  // The process-wide registry, holding the built-in specs.
  static TargetRegistry& Global();

  // Registers `spec` under its name, replacing an earlier spec of that name
  // (a `.pat` file may redefine a built-in backend).
  void Register(TargetSpecPtr spec);
  // Registers a table that pass arguments may name (`MergeComposite(x)`)
  // but that is no backend for a user to partition for (the benchmarks'
  // `dnnl_like`): IsInternal says so, and the CLI leaves it out of the
  // backends it offers. Register() of that name later makes it a backend.
  void RegisterInternal(TargetSpecPtr spec);
  bool IsInternal(std::string_view name) const;
  // The spec called `name`, or nullptr.
  TargetSpecPtr Find(std::string_view name) const;
  // The spec called `name`; else the error a provider reported for that
  // name (a built-in backend whose `.pat` file does not parse: the file's
  // diagnostics); else InvalidArgument "unknown target 'x' (did you mean
  // 'y'?)".
  absl::StatusOr<TargetSpecPtr> Get(std::string_view name) const;
  // Registered names, sorted.
  std::vector<std::string> Names() const;

  // Adds a provider that registers specs the first time the registry is
  // consulted. Built-in backends load their `.pat` specs this way, so a
  // command that never looks a target up (fmt, check, run) never parses them.
  using Provider = std::function<void(TargetRegistry&)>;
  void AddProvider(Provider provider);
  // Called by a provider that could not load the spec called `name`: Get
  // returns `error` for that name until a spec of that name is registered.
  void ReportLoadError(std::string_view name, absl::Status error);

 private:
  // Runs the pending providers (each once; re-entrant calls see none left).
  void RunProviders() const;

  mutable std::mutex mu_;
  std::vector<TargetSpecPtr> specs_;
  std::vector<std::string> internal_;
  std::vector<std::pair<std::string, absl::Status>> load_errors_;
  mutable std::vector<Provider> providers_;
};

// The seed demo's target under `name`: single ops reshape and add; patterns
// `<name>.conv2d_relu_with_bias` (conv2d -> bias_add -> relu) then
// `<name>.conv2d_relu_wo_bias` (conv2d -> relu).
TargetSpecPtr MakeByocDemoTarget(std::string name = "byoc_target");

// A DNNL-shaped spec for benchmarks: the DNNL single-op list (tvm-reference
// 4.3, without its int64 / ceil_mode guard) and a table of conv2d / dense
// patterns with optional bias (add or bias_add) and relu / tanh / sigmoid.
TargetSpecPtr MakeDnnlLikeTarget(std::string name = "dnnl_like");

}  // namespace carve
