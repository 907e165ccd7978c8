// The placement record: for every operator call of a partitioned module,
// which backend runs it and by which rule, or, for each backend that does
// not, why not. It is computed once and read by `carve partition --report`
// (text and JSON), `carve why FILE --backend B --at %N` and `carve viz`, so
// the three give the same answer.
//
// A backend does not run a call because
//   - the op has no single-op rule and no composite of the backend is rooted
//     at it ("unsupported op");
//   - a single-op rule's condition failed: the clause that failed with the
//     value it saw, or the built-in C++ check's description ("failed check");
//   - a composite rooted at the op did not match: where and why, from the
//     pattern explainer ("no match"); or its shape matched and a `where`
//     clause failed, or it matched and its built-in C++ check failed
//     ("failed check: <composite>: <the condition and the values seen>");
//   - another backend took it: an earlier one in the priority list
//     ("claimed by"), or a later one that grouped it in a composite
//     ("offloaded to");
//   - its region was removed after partitioning by a region-level rule of the
//     backend (dnnl's and tensorrt's subgraph pruning, nnapi's cost rule):
//     the rule and the numbers ("pruned");
//   - it sits in a composite of another backend ("in composite");
//   - it sits in a match clause, where TVM v0.16's AnnotateTarget (no rule
//     for Match) opens its region and never closes it, so PartitionGraph
//     leaves it on the host ("lost to an unclosed region in a match clause");
//   - a backend took it, but @main never calls the partition it sits in
//     (the region's result was a let-bound value or a match clause's, which
//     TVM v0.16 leaves as a free variable of @main): it never runs anywhere
//     ("lost to a let-bound region: @main never calls its partition").
// "kept on the host" remains only for a call a backend accepts for which
// none of these is known.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/module.h"
#include "passes/byoc/target.h"

namespace carve {

// One backend's verdict on one call.
struct Verdict {
  enum class Kind : uint8_t {
    kOffloaded,           // this backend runs it: detail = the rule
    kUnsupportedOp,       // no rule for the op
    kFailedCheck,         // single-op rule or composite check: detail = the clause
    kNoMatch,             // a composite rooted here did not match: detail = where
    kClaimed,             // an earlier backend runs it: detail = its name
    kOffloadedElsewhere,  // a later backend runs it: detail = its name
    kPruned,              // region removed by a region-level rule: detail = rule
    kInComposite,         // inside another backend's composite: detail = its name
    kUnclosedRegion,      // accepted, but in a match clause its region is never closed
    kNeverRuns,           // in a partition @main never calls: detail = lost to what
    kKeptOnHost,          // accepted, no reason known
  };
  Verdict() = default;
  Verdict(Kind kind, std::string detail, std::string region = "")
      : kind(kind), detail(std::move(detail)), region(std::move(region)) {}

  Kind kind = Kind::kKeptOnHost;
  std::string detail;
  // kPruned: the partition the rule removed (tvmgen_default_nnapi_main_3);
  // kNeverRuns: the partition @main never calls.
  std::string region;

  // The report's wording: "unsupported op", "failed check: rank(?) == 2 is
  // false (rank(?) is 4)", "offloaded by composite dnnl.conv2d_relu", ...
  std::string Text() const;
  // Text() without what varies from node to node, for counting nodes by
  // reason (the report): a mismatch's ", got ..." and a pruned partition's
  // name.
  std::string Summary() const;
  // Stable machine name for JSON: "offloaded", "unsupported_op",
  // "failed_check", "no_match", "claimed", "offloaded_elsewhere", "pruned",
  // "in_composite", "unclosed_region", "never_runs", "kept_on_host".
  static std::string_view KindName(Kind kind);
};

// One operator call of the module.
struct Placement {
  const Call* call = nullptr;  // in the module the record was built on
  std::string op;
  std::string function;           // the global function holding it (region or host)
  int backend = -1;               // index of the backend that runs it; -1: the host
  std::string composite;          // the composite function it sits in, "" if none
  std::vector<Verdict> verdicts;  // one per backend, in priority order
  // When a backend's rule wanted a constant where the call reads a
  // parameter of @main ("expected a constant", "`?w is const` is false"):
  // those parameters ("%w"). Bound with `--params DIR` they would be
  // constants, so the op may stay on the host only because they are not.
  std::vector<std::string> unbound_params;
};

// The op calls of `mod` inside the clauses of a match expression.
absl::flat_hash_set<const Expr*> OpCallsInMatchClauses(const Module& mod);

// What an op in a partition @main never calls was lost to: "a let-bound
// region", or "an unclosed region in a match clause" (`in_clause`): the
// ways TVM v0.16's flow leaves a region's result unbound.
std::string_view LostToText(bool in_clause);

// True when `v` rejects a call because an argument is not a constant.
bool WantsConstant(const Verdict& v);

// Source spans of the ops of partitions a backend's region-level rule
// removed after partitioning (pruning inlines them back into @main, keeping
// their spans), with the reason: "prune_dnnl_subgraphs: no compute op".
using SpanKey = std::tuple<uint32_t, uint32_t, uint32_t>;
// Several ops can share a span (a preparation pass that unpacks
// nn.batch_norm gives every op it makes the batch_norm's span).
struct PrunedOps {
  struct Entry {
    int backend = -1;
    std::string reason;  // the rule and its numbers
    std::string region;  // the partition it removed
    const OpInfo* op = nullptr;
    // @main never called the partition (lost to a let-bound region or a
    // match clause) and it was deleted as unused: no region-level rule sent
    // the op back, it never runs.
    bool never_called = false;
  };
  absl::flat_hash_map<SpanKey, std::vector<Entry>> by_span;
  static SpanKey Key(const Expr* e);
  // Records that `call`'s partition was removed.
  void Add(const Call* call, Entry entry);
  // The entry of `call` (same span and op) whose never_called is
  // `never_called`, or nullptr.
  const Entry* Find(const Call* call, bool never_called = false) const;
};

class PlacementRecord {
 public:
  // Every op call of `mod` (typed, partitioned for `backends` in priority
  // order), in Order(mod)'s order. `pruned` (optional) names the ops a
  // region-level rule sent back to the host. `annotator_input` (optional)
  // is the module AnnotateTarget received (after MergeComposite): the rules
  // are judged there, on the call with the same source span and op, where
  // its arguments are still the producers rather than partition
  // parameters or partition calls.
  static PlacementRecord Build(const Module& mod, const std::vector<TargetSpecPtr>& backends,
                               const PrunedOps* pruned = nullptr,
                               const Module* annotator_input = nullptr);

  // The op calls of `mod` in the record's order: global functions by name
  // in natural order (main_2 before main_10), each in post-order (composite
  // bodies included, annotations left out).
  // Equal for a module and its printed-and-reparsed copy.
  static std::vector<const Call*> Order(const Module& mod);

  const std::vector<TargetSpecPtr>& backends() const { return backends_; }
  const std::vector<Placement>& placements() const { return placements_; }
  // The placement of `call` (a node of the module the record was built on),
  // or nullptr.
  const Placement* Find(const Call* call) const;

  // The record as JSON (docs/backends.md "The placement record"), one
  // placement per line; `names` (optional, same length as placements())
  // gives each call's printed name.
  std::string ToJson(const std::vector<std::string>* names = nullptr) const;

 private:
  std::vector<TargetSpecPtr> backends_;
  std::vector<Placement> placements_;
  absl::flat_hash_map<const Call*, size_t> index_;
};

// The verdict of `spec`'s rules alone on a typed op call, in the graph it
// sits in (no other backend, no region-level rule): kOffloaded ("single-op
// rule" or "composite NAME") when a single-op rule accepts it or a composite
// rooted at it matches and passes its check; else the failing clause, the
// closest composite's mismatch, or kUnsupportedOp.
Verdict JudgeByRules(const TargetSpec& spec, const Call* call);

// Why the built-in C++ check of composite `rule` rejects the typed root of
// a match: its refusal (the failed condition with the values it saw), else
// its description; "" when it accepts or has no check.
std::string CompositeCheckRefusal(const CompositeRule& rule, const Expr* root);

// Why the single-op rules of `spec` for the op of `call` reject it (the
// first rule's failing clause or built-in check); "" when one accepts.
// Precondition: spec.HasOpRule(call->op()).
std::string OpRulesRefusal(const TargetSpec& spec, const Call* call);

// One placement as a JSON object (the "ops" entries of ToJson); `name` is
// the call's printed name or "".
std::string PlacementJson(const Placement& p, const std::vector<TargetSpecPtr>& backends,
                          std::string_view name);

// JSON string literal of `s` (quotes and escapes).
std::string JsonString(std::string_view s);

}  // namespace carve
