#include "passes/byoc/placement_record.h"

#include <algorithm>
#include <map>
#include <set>
#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/byoc/annotation.h"
#include "passes/byoc/partition_report.h"  // ReachableFromMain
#include "patterns/compile.h"
#include "support/natural_order.h"
#include "patterns/explain.h"
#include "patterns/matcher.h"

namespace carve {
namespace {

bool IsOpCall(const Expr* e) {
  const Call* call = DynCast<Call>(e);
  return call != nullptr && call->op() != nullptr && !IsCompilerAnnotation(call);
}

// Why `rule` rejects `call`: the clause that failed with the value it saw
// (EvaluatePredicate names it), else the built-in check's description.
// Empty when the rule accepts.
std::string RuleRefusal(const OpRule& rule, const Call* call) {
  if (rule.pattern) {
    // `op nn.conv2d(?x, const as ?w) where ...`: the pattern says where.
    auto compiled = CompilePattern(rule.pattern);
    if (compiled.ok()) {
      Explanation e = Explain(*compiled, call);
      if (!e.matched()) {
        std::string path = PathToString(e.path);
        return path.empty() ? e.reason : fmt::format("{}: {}", path, e.reason);
      }
    }
  }
  if (rule.where != nullptr) {
    CaptureResolver resolve = [call](std::string_view name) -> const Expr* {
      return name.empty() ? call : nullptr;
    };
    std::string clause;
    if (EvaluatePredicate(*rule.where, resolve, &clause) != Truth::kTrue) {
      return clause.empty() ? PredicateToString(*rule.where) : clause;
    }
  }
  if (rule.check != nullptr && !rule.check(call)) {
    return rule.description.empty() ? "built-in check"
                                    : fmt::format("{} (built-in check)", rule.description);
  }
  return "";
}

// Adds the op calls inside the match clauses of `fn` to `out`.
void AddCallsInMatchClauses(const Function* fn, absl::flat_hash_set<const Expr*>& out) {
  PostOrderVisit(fn->body(), [&](const Expr* e) {
    const Match* match = DynCast<Match>(e);
    if (match == nullptr) return;
    for (const Clause& c : match->clauses()) {
      PostOrderVisit(c.rhs, [&](const Expr* x) {
        if (IsOpCall(x)) out.insert(x);
      });
    }
  });
}

// One backend's rules, with its composites compiled once.
struct BackendRules {
  const TargetSpec* spec = nullptr;
  std::vector<std::shared_ptr<const CompiledPattern>> composites;  // null: did not compile
};

BackendRules CompileRules(const TargetSpec& spec) {
  BackendRules rules{&spec, {}};
  for (const CompositeRule& c : spec.composites()) {
    auto compiled = CompilePattern(c.pattern);
    rules.composites.push_back(compiled.ok() ? *compiled : nullptr);
  }
  return rules;
}

// Explains a composite rooted at `call`: "<name>: <where>: <why>".
std::string NoMatchText(const Explanation& e, std::string_view name) {
  std::string path = PathToString(e.path);
  return path.empty() ? fmt::format("{}: {}", name, e.reason)
                      : fmt::format("{}: {}: {}", name, path, e.reason);
}

// The verdict of backend `rules` on `call` from the rules alone (no other
// backend, no region-level rule): offloaded means "some rule accepts it".
Verdict RulesVerdict(const BackendRules& rules, const Call* call) {
  const TargetSpec& spec = *rules.spec;
  std::string first_failure;
  for (const OpRule& rule : spec.OpRules(call->op())) {
    std::string why = RuleRefusal(rule, call);
    if (why.empty()) return {Verdict::Kind::kOffloaded, "single-op rule"};
    if (first_failure.empty()) first_failure = std::move(why);
  }
  if (!first_failure.empty()) return {Verdict::Kind::kFailedCheck, first_failure};
  // Composites rooted at the op: the first that fails its check, else the
  // first that does not match, in the table's priority order.
  // Of the composites that do not match, the one that came closest (the
  // failure deepest into the graph; the first in priority on a tie).
  std::string no_match;
  size_t no_match_depth = 0;
  Verdict::Kind no_match_kind = Verdict::Kind::kNoMatch;
  for (size_t i = 0; i < rules.composites.size(); ++i) {
    const auto& compiled = rules.composites[i];
    if (compiled == nullptr || !compiled->root_filter().Admits(call)) continue;
    const CompositeRule& rule = spec.composites()[i];
    Explanation e = Explain(compiled, call);
    if (!e.matched()) {
      if (no_match.empty() || e.path.size() > no_match_depth) {
        no_match = NoMatchText(e, rule.name);
        no_match_depth = e.path.size();
        // The shape matched and a `where` clause failed: a failed check.
        no_match_kind = e.sub_pattern != nullptr && e.sub_pattern->kind() == PatternKind::kWhere
                            ? Verdict::Kind::kFailedCheck
                            : Verdict::Kind::kNoMatch;
      }
      continue;
    }
    if (std::string why = CompositeCheckRefusal(rule, call); !why.empty()) {
      return {Verdict::Kind::kFailedCheck, fmt::format("{}: {}", rule.name, why)};
    }
    return {Verdict::Kind::kOffloaded, fmt::format("composite {}", rule.name)};
  }
  if (!no_match.empty()) return {no_match_kind, no_match};
  return {Verdict::Kind::kUnsupportedOp, ""};
}

class Builder {
 public:
  Builder(const Module& mod, const std::vector<TargetSpecPtr>& backends, const PrunedOps* pruned,
          const Module* annotator_input)
      : mod_(mod), backends_(backends), pruned_(pruned) {
    if (annotator_input != nullptr) {
      for (const Call* call : PlacementRecord::Order(*annotator_input)) {
        if (call->span().valid()) input_calls_[PrunedOps::Key(call)].push_back(call);
      }
    }
    const Module& judged = annotator_input != nullptr ? *annotator_input : mod;
    judged_in_clauses_ = OpCallsInMatchClauses(judged);
    // Partitions @main never calls never run (a region whose result TVM
    // left unbound); without a @main nothing is known to run.
    if (mod.Lookup("main") != nullptr) {
      reachable_ = ReachableFromMain(mod);
      know_reachable_ = true;
    }
    if (const Function* main = judged.Lookup("main")) {
      for (const Var* v : main->params()) main_param_names_.insert(std::string(v->name()));
    }
    for (const TargetSpecPtr& b : backends) rules_.push_back(CompileRules(*b));
  }

  std::vector<Placement> Build() {
    std::vector<Placement> out;
    for (const auto& [gv, fn] : SortedFunctions(mod_)) {
      std::string_view compiler = fn->GetStringAttr(attr::kCompiler);
      int owner = BackendIndex(compiler);
      // A partition the input already had, for a backend not asked about.
      std::string_view foreign = owner < 0 ? compiler : "";
      never_called_ = owner >= 0 && know_reachable_ && !reachable_.contains(fn);
      absl::flat_hash_map<const Expr*, std::string> composite_of = Composites(fn);
      in_clauses_ = compiler.empty() ? CallsInMatchClauses(fn) : absl::flat_hash_set<const Expr*>{};
      for (const Expr* e : PostOrder(fn)) {
        if (!IsOpCall(e)) continue;
        Placement p;
        p.call = Cast<Call>(e);
        p.op = std::string(p.call->op()->name);
        p.function = std::string(gv->name());
        p.backend = owner;
        auto it = composite_of.find(e);
        if (it != composite_of.end()) p.composite = it->second;
        Decide(p, foreign);
        NoteUnboundParams(p);
        out.push_back(std::move(p));
      }
    }
    return out;
  }

  static std::vector<std::pair<const GlobalVar*, const Function*>> SortedFunctions(
      const Module& mod) {
    auto fns = mod.Functions();
    // By number (main_2 before main_10), as the report lists partitions.
    std::sort(fns.begin(), fns.end(), [](const auto& a, const auto& b) {
      return NaturalLess(a.first->name(), b.first->name());
    });
    return fns;
  }

 private:
  int BackendIndex(std::string_view name) const {
    if (name.empty()) return -1;
    for (size_t i = 0; i < backends_.size(); ++i) {
      if (backends_[i]->name() == name) return static_cast<int>(i);
    }
    return -1;
  }

  // The composite name of every node inside a composite function of `fn`.
  static absl::flat_hash_map<const Expr*, std::string> Composites(const Function* fn) {
    absl::flat_hash_map<const Expr*, std::string> out;
    PostOrderVisit(fn->body(), [&](const Expr* e) {
      const Call* call = DynCast<Call>(e);
      std::string_view name = call == nullptr ? "" : CompositeName(call);
      if (name.empty()) return;
      PostOrderVisit(Cast<Function>(call->callee())->body(),
                     [&](const Expr* inner) { out.try_emplace(inner, name); });
    });
    return out;
  }

  // The calls inside the match clauses of host function `fn`.
  static absl::flat_hash_set<const Expr*> CallsInMatchClauses(const Function* fn) {
    absl::flat_hash_set<const Expr*> out;
    AddCallsInMatchClauses(fn, out);
    return out;
  }

  // The call the annotator judged: the one of its input with the same span
  // and op, else `call` itself.
  const Call* Judged(const Call* call) const {
    auto it = input_calls_.find(PrunedOps::Key(call));
    if (it == input_calls_.end()) return call;
    for (const Call* c : it->second) {
      if (c->op() == call->op()) return c;
    }
    return call;
  }

  // The backend a composite belongs to: the prefix before the first `.`, as
  // AnnotateTarget reads it.
  int CompositeBackend(std::string_view composite) const {
    return BackendIndex(composite.substr(0, composite.find('.')));
  }

  void Decide(Placement& p, std::string_view foreign) const {
    if (!foreign.empty()) {
      for (size_t b = 0; b < backends_.size(); ++b) {
        p.verdicts.push_back({Verdict::Kind::kOffloadedElsewhere, std::string(foreign)});
      }
      return;
    }
    if (never_called_) return DecideNeverCalled(p);
    const PrunedOps::Entry* pruned = nullptr;
    if (pruned_ != nullptr && p.backend < 0) pruned = pruned_->Find(p.call);
    const int pruned_by = pruned != nullptr ? pruned->backend : -1;
    int composite_backend = p.composite.empty() ? -1 : CompositeBackend(p.composite);
    for (size_t b = 0; b < backends_.size(); ++b) {
      const int bi = static_cast<int>(b);
      if (bi == p.backend) {
        p.verdicts.push_back(
            {Verdict::Kind::kOffloaded,
             p.composite.empty() ? "single-op rule" : fmt::format("composite {}", p.composite)});
      } else if (bi == pruned_by) {
        p.verdicts.push_back({Verdict::Kind::kPruned, pruned->reason, pruned->region});
      } else if (!p.composite.empty() && composite_backend != bi) {
        p.verdicts.push_back(
            {Verdict::Kind::kInComposite, ThenPruned(p.composite, composite_backend, pruned)});
      } else if (!p.composite.empty()) {
        // This backend's own composite, on the host: AnnotateTarget gives
        // every composite to its backend, so only a region-level rule sent
        // it back (pruned_by names the rule when the spans are known).
        p.verdicts.push_back(
            {Verdict::Kind::kPruned,
             fmt::format("its composite {} was partitioned, then sent back", p.composite)});
      } else {
        Verdict v = ElsewhereVerdict(RulesVerdict(rules_[b], Judged(p.call)), Judged(p.call), bi,
                                     p.backend);
        if (v.kind == Verdict::Kind::kClaimed && pruned_by >= 0 &&
            v.detail == backends_[pruned_by]->name()) {
          v.detail = ThenPruned(v.detail, pruned_by, pruned);
        }
        // Accepted and on the host inside a match clause: AnnotateTarget
        // opened its region there and nothing closed it.
        if (v.kind == Verdict::Kind::kKeptOnHost && in_clauses_.contains(p.call)) {
          v = {Verdict::Kind::kUnclosedRegion, ""};
        }
        p.verdicts.push_back(std::move(v));
      }
    }
  }

  // An op in a partition of backend p.backend that @main never calls: lost
  // for that backend; the others say who took it, and that it was lost.
  void DecideNeverCalled(Placement& p) const {
    const bool in_clause = judged_in_clauses_.contains(Judged(p.call));
    const std::string lost(LostToText(in_clause));
    const std::string& owner = backends_[p.backend]->name();
    for (size_t b = 0; b < backends_.size(); ++b) {
      const int bi = static_cast<int>(b);
      if (bi == p.backend) {
        p.verdicts.push_back({Verdict::Kind::kNeverRuns, lost, p.function});
        continue;
      }
      Verdict::Kind kind = !p.composite.empty() ? Verdict::Kind::kInComposite
                           : p.backend < bi      ? Verdict::Kind::kClaimed
                                                 : Verdict::Kind::kOffloadedElsewhere;
      p.verdicts.push_back({kind, fmt::format("{}, then lost to {} (never runs)",
                                              p.composite.empty() ? owner : p.composite, lost)});
    }
  }

  // `who` (a backend, or a composite of one), and when backend `owner` took the call
  // and then its region-level rule sent it back to the host, that rule's
  // reason: "claimed by nnapi" alone reads as if nnapi ran it, and the
  // other backends never saw it.
  std::string ThenPruned(const std::string& who, int owner,
                         const PrunedOps::Entry* pruned) const {
    if (pruned == nullptr || owner < 0 || pruned->backend != owner) return who;
    return fmt::format("{}, then kept on the host by {}'s {}", who, backends_[owner]->name(),
                       pruned->reason);
  }

  // The parameters of @main among the judged call's arguments, when a
  // verdict wanted a constant.
  void NoteUnboundParams(Placement& p) const {
    if (p.backend >= 0 ||
        std::none_of(p.verdicts.begin(), p.verdicts.end(), WantsConstant)) {
      return;
    }
    std::set<std::string> names;
    for (const Verdict& v : p.verdicts) {
      if (!WantsConstant(v)) continue;
      // The explainer names the variable: "expected a constant, got the
      // variable %w" (perhaps deeper than the call's own arguments).
      constexpr std::string_view kGot = "got the variable %";
      size_t at = v.detail.find(kGot);
      if (at != std::string::npos) {
        size_t begin = at + kGot.size();
        size_t end = v.detail.find_first_of(" ,)", begin);
        names.insert(v.detail.substr(begin, end == std::string::npos ? end : end - begin));
        continue;
      }
      // A `?w is const` clause names a capture: the call's variable
      // operands but the first (the data operand of every op with weights).
      const auto& args = Judged(p.call)->args();
      for (size_t i = 1; i < args.size(); ++i) {
        if (const Var* var = DynCast<Var>(args[i])) names.insert(std::string(var->name()));
      }
    }
    for (const std::string& name : names) {
      if (main_param_names_.contains(name)) p.unbound_params.push_back(fmt::format("%{}", name));
    }
  }

  // A verdict "offloaded" by the rules alone, for a call backend `b` does
  // not run: who does, which earlier backend AnnotateTarget gave it to, or
  // that it stayed on the host for no known reason.
  Verdict ElsewhereVerdict(Verdict v, const Call* call, int b, int owner) const {
    if (v.kind != Verdict::Kind::kOffloaded) return v;
    if (owner >= 0) {
      const std::string& name = backends_[owner]->name();
      return owner < b ? Verdict{Verdict::Kind::kClaimed, name}
                       : Verdict{Verdict::Kind::kOffloadedElsewhere, name};
    }
    for (int other = 0; other < b; ++other) {
      if (RulesVerdict(rules_[other], call).kind == Verdict::Kind::kOffloaded) {
        return {Verdict::Kind::kClaimed, backends_[other]->name()};
      }
    }
    return {Verdict::Kind::kKeptOnHost, fmt::format("accepted by its {}", v.detail)};
  }

  const Module& mod_;
  const std::vector<TargetSpecPtr>& backends_;
  const PrunedOps* pruned_;
  std::vector<BackendRules> rules_;
  absl::flat_hash_map<SpanKey, std::vector<const Call*>> input_calls_;
  absl::flat_hash_set<std::string> main_param_names_;  // of the judged module's @main
  absl::flat_hash_set<const Expr*> in_clauses_;  // CallsInMatchClauses of the function at hand
  absl::flat_hash_set<const Expr*> judged_in_clauses_;  // of the judged module
  absl::flat_hash_set<const Function*> reachable_;      // from @main
  bool know_reachable_ = false;                         // the module has a @main
  bool never_called_ = false;  // the function at hand is a partition @main never calls
};

}  // namespace

absl::flat_hash_set<const Expr*> OpCallsInMatchClauses(const Module& mod) {
  absl::flat_hash_set<const Expr*> out;
  for (const auto& entry : mod.Functions()) AddCallsInMatchClauses(entry.second, out);
  return out;
}

std::string_view LostToText(bool in_clause) {
  return in_clause ? "an unclosed region in a match clause" : "a let-bound region";
}

bool WantsConstant(const Verdict& v) {
  if (v.kind != Verdict::Kind::kNoMatch && v.kind != Verdict::Kind::kFailedCheck) return false;
  // The explainer's words for a `const` sub-pattern and for `is const`.
  return v.detail.find("expected a constant") != std::string::npos ||
         v.detail.find(" is const` is false") != std::string::npos;
}

std::string_view Verdict::KindName(Kind kind) {
  switch (kind) {
    case Kind::kOffloaded:
      return "offloaded";
    case Kind::kUnsupportedOp:
      return "unsupported_op";
    case Kind::kFailedCheck:
      return "failed_check";
    case Kind::kNoMatch:
      return "no_match";
    case Kind::kClaimed:
      return "claimed";
    case Kind::kOffloadedElsewhere:
      return "offloaded_elsewhere";
    case Kind::kPruned:
      return "pruned";
    case Kind::kInComposite:
      return "in_composite";
    case Kind::kUnclosedRegion:
      return "unclosed_region";
    case Kind::kNeverRuns:
      return "never_runs";
    case Kind::kKeptOnHost:
      return "kept_on_host";
  }
  return "kept_on_host";
}

std::string Verdict::Text() const {
  switch (kind) {
    case Kind::kOffloaded:
      return fmt::format("offloaded by {}", detail);
    case Kind::kUnsupportedOp:
      return "unsupported op";
    case Kind::kFailedCheck:
      return fmt::format("failed check: {}", detail);
    case Kind::kNoMatch:
      return fmt::format("no match: {}", detail);
    case Kind::kClaimed:
      return fmt::format("claimed by {}", detail);
    case Kind::kOffloadedElsewhere:
      return fmt::format("offloaded to {}", detail);
    case Kind::kPruned:
      return fmt::format("pruned: {}", detail);  // the region is said apart
    case Kind::kInComposite:
      return fmt::format("in composite {}", detail);
    case Kind::kUnclosedRegion:
      return "lost to an unclosed region in a match clause (runs on the host)";
    case Kind::kNeverRuns:  // the partition is said apart, as for kPruned
      return fmt::format("lost to {}: @main never calls its partition, so it never runs", detail);
    case Kind::kKeptOnHost:
      return detail.empty() ? "kept on the host" : fmt::format("kept on the host: {}", detail);
  }
  return detail;
}

std::string Verdict::Summary() const {
  if (kind == Kind::kNoMatch) {
    size_t got = detail.rfind(", got ");
    return got == std::string::npos ? Text() : fmt::format("no match: {}", detail.substr(0, got));
  }
  return Text();
}

SpanKey PrunedOps::Key(const Expr* e) {
  Span s = e->span();
  return {s.file, s.begin, s.end};
}

void PrunedOps::Add(const Call* call, Entry entry) {
  entry.op = call->op();
  std::vector<Entry>& entries = by_span[Key(call)];
  for (const Entry& e : entries) {
    if (e.op == entry.op && e.region == entry.region) return;
  }
  entries.push_back(std::move(entry));
}

const PrunedOps::Entry* PrunedOps::Find(const Call* call, bool never_called) const {
  auto it = by_span.find(Key(call));
  if (it == by_span.end()) return nullptr;
  for (const Entry& e : it->second) {
    if (e.op == call->op() && e.never_called == never_called) return &e;
  }
  return nullptr;
}

PlacementRecord PlacementRecord::Build(const Module& mod,
                                       const std::vector<TargetSpecPtr>& backends,
                                       const PrunedOps* pruned, const Module* annotator_input) {
  PlacementRecord r;
  r.backends_ = backends;
  r.placements_ = Builder(mod, backends, pruned, annotator_input).Build();
  for (size_t i = 0; i < r.placements_.size(); ++i) r.index_[r.placements_[i].call] = i;
  return r;
}

std::vector<const Call*> PlacementRecord::Order(const Module& mod) {
  std::vector<const Call*> out;
  for (const auto& [gv, fn] : Builder::SortedFunctions(mod)) {
    for (const Expr* e : PostOrder(fn)) {
      if (IsOpCall(e)) out.push_back(Cast<Call>(e));
    }
  }
  return out;
}

const Placement* PlacementRecord::Find(const Call* call) const {
  auto it = index_.find(call);
  return it == index_.end() ? nullptr : &placements_[it->second];
}

std::string JsonString(std::string_view s) {
  // Invalid UTF-8 (an op or file name from a hostile input) becomes U+FFFD
  // instead of an exception.
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string PlacementJson(const Placement& p, const std::vector<TargetSpecPtr>& backends,
                          std::string_view name) {
  std::string out = "{";
  if (!name.empty()) out += fmt::format("\"node\": {}, ", JsonString(name));
  out += fmt::format("\"op\": {}, \"function\": {}, \"target\": {}, \"composite\": {}, ",
                     JsonString(p.op), JsonString(p.function),
                     p.backend < 0 ? "null" : JsonString(backends[p.backend]->name()),
                     p.composite.empty() ? "null" : JsonString(p.composite));
  if (!p.unbound_params.empty()) {
    std::string names;
    for (const std::string& n : p.unbound_params) {
      names += (names.empty() ? "" : ", ") + JsonString(n);
    }
    out += fmt::format("\"unbound_params\": [{}], ", names);
  }
  out += "\"verdicts\": [";
  for (size_t b = 0; b < p.verdicts.size(); ++b) {
    const Verdict& v = p.verdicts[b];
    out += fmt::format(
        "{}{{\"backend\": {}, \"kind\": \"{}\", \"detail\": {}{}}}", b ? ", " : "",
        JsonString(backends[b]->name()), Verdict::KindName(v.kind), JsonString(v.detail),
        v.region.empty() ? "" : fmt::format(", \"region\": {}", JsonString(v.region)));
  }
  return out + "]}";
}

std::string PlacementRecord::ToJson(const std::vector<std::string>* names) const {
  std::string out = "{\"backends\": [";
  for (size_t b = 0; b < backends_.size(); ++b) {
    out += (b ? ", " : "") + JsonString(backends_[b]->name());
  }
  out += "],\n \"ops\": [";
  for (size_t i = 0; i < placements_.size(); ++i) {
    out += i ? ",\n  " : "\n  ";
    std::string name = names != nullptr && i < names->size() ? (*names)[i] : "";
    out += PlacementJson(placements_[i], backends_, name);
  }
  out += "\n ]}\n";
  return out;
}

Verdict JudgeByRules(const TargetSpec& spec, const Call* call) {
  return RulesVerdict(CompileRules(spec), call);
}

std::string CompositeCheckRefusal(const CompositeRule& rule, const Expr* root) {
  if (rule.refusal) return rule.refusal(root);
  if (rule.check == nullptr || rule.check(root)) return "";
  return rule.description.empty() ? "its built-in check fails"
                                  : fmt::format("{} (built-in check)", rule.description);
}

std::string OpRulesRefusal(const TargetSpec& spec, const Call* call) {
  std::string first;
  for (const OpRule& rule : spec.OpRules(call->op())) {
    std::string why = RuleRefusal(rule, call);
    if (why.empty()) return "";
    if (first.empty()) first = std::move(why);
  }
  return first;
}

}  // namespace carve
