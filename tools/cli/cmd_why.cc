// `carve why`: two questions about one node of FILE, named as `carve fmt
// FILE` prints it (`%N`, `%var`, or `@f` for the final expression of @f;
// a let-bound `%var` names the value it is bound to).
//
//   carve why PATTERN FILE --at NODE [--raw]
//     Does PATTERN match at NODE, and if not, where and why? With a backend's
//     rule (`@dnnl:conv2d_bias_relu`, `@bnns:nn.conv2d`) the module is first
//     prepared by that backend's preparation passes, as `carve partition`
//     does (`--raw` skips them), a composite's built-in C++ check is applied
//     after its pattern matches, and a single-op rule is judged like
//     AnnotateTarget judges it.
//   carve why FILE --backend NAME[,NAME...] --at NODE [--json]
//     What went where: the node's entry in the placement record of `carve
//     partition` (passes/byoc/placement_record.h): which backend runs it and by
//     which rule, and for every other backend why not. --json prints the
//     entry as the objects of `partition --report=json`'s "ops".
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/partition.h"
#include "backends/placement.h"
#include "backends/specs.h"
#include "fmt/format.h"
#include "grammar/pattern_node_names.h"
#include "ir/op.h"
#include "ir/visit.h"
#include "passes/infer/infer_type.h"
#include "passes/pass_gate.h"
#include "passes/pass_registry.h"
#include "passes/byoc/placement_record.h"
#include "patterns/explain.h"
#include "support/status_macros.h"
#include "tools/cli/backend_names.h"
#include "tools/cli/cli.h"
#include "tools/cli/load.h"
#include "tools/cli/load_model.h"
#include "tools/cli/module_queries.h"
#include "tools/cli/node_name_hint.h"
#include "tools/cli/run_inputs.h"

namespace carve::cli {
namespace {

constexpr const char* kUsage =
    "carve why PATTERN FILE --at NODE [--raw] | carve why FILE --backend NAME[,NAME...] --at "
    "NODE [--json] (FILE.onnx: [--shape NAME=D1,...]...)";

// The input's printed names, typed; the node --at names.
struct Named {
  NodeNames names;
  NodeNames::Named target;
};

// The expression a name stands for through lets: `let %a = add(...)`
// prints the call as %a, so --at %a asks about the call; a function whose
// body is a chain of lets (`--at @main`) ends in the chain's last body.
const Expr* ThroughLets(const Expr* node, const Function* fn) {
  absl::flat_hash_map<const Expr*, const Expr*> bound;  // let var -> value
  if (fn != nullptr) {
    PostOrderVisit(fn->body(), [&](const Expr* e) {
      if (const Let* let = DynCast<Let>(e)) bound.emplace(let->var(), let->value());
    });
  }
  // Each step moves to a node the previous one binds or holds: a finite chain.
  for (size_t steps = 0; steps <= 2 * bound.size() + 1; ++steps) {
    if (const Let* let = DynCast<Let>(node)) {
      node = let->body();
      continue;
    }
    auto it = bound.find(node);
    if (it == bound.end()) break;
    node = it->second;
  }
  return node;
}

absl::StatusOr<Named> LoadNamedNode(Env& env, const ParsedArgs& args, const std::string& file) {
  CARVE_ASSIGN_OR_RETURN(InputShapes shapes, ShapeOptions(args));  // checked by RunWhy
  CARVE_ASSIGN_OR_RETURN(Module mod, LoadModelOrText(env, file, "why", shapes));
  CARVE_RETURN_IF_ERROR(InferType(mod));
  CARVE_ASSIGN_OR_RETURN(NodeNames names, NodeNames::ForModule(mod));
  CARVE_RETURN_IF_ERROR(InferType(names.module()));
  const std::string at = *args.Get("--at");
  NodeNames::Named target = names.Lookup(at);
  if (target.node == nullptr) {
    // An .onnx file's names are those of its import, printed.
    std::string printer = file.ends_with(".onnx") ? "import" : "fmt";
    std::string hint = SuggestNodeName(
        at, [&](const std::string& n) { return names.Lookup(n).node != nullptr; });
    return absl::InvalidArgumentError(fmt::format(
        "{}: no node named '{}'{} (use the %N, %var and @function names `carve {} {}` prints)",
        file, at, hint.empty() ? "" : fmt::format("; did you mean {}?", hint), printer, file));
  }
  target.node = ThroughLets(target.node, target.function);
  return Named{std::move(names), target};
}

SpanKey KeyOf(const Expr* e) { return PrunedOps::Key(e); }

// "nn.dense" for an op call, else the node's kind in words.
std::string WhatIs(const Expr* e) {
  const Call* call = DynCast<Call>(e);
  if (call != nullptr && call->op() != nullptr) return std::string(call->op()->name);
  return DescribeExpr(e);
}

// The node of `mod` that stands for `node` of the named input: the one with
// the same source span and kind, preferring the same op (a pass that
// rewrites a call keeps its span: dnnl's rewrites turn nn.bias_add into an
// add); nullptr when the passes removed it.
const Expr* Counterpart(const Module& mod, const Expr* node) {
  if (!node->span().valid()) return nullptr;
  const Call* want = DynCast<Call>(node);
  const Expr* same_op = nullptr;
  const Expr* other = nullptr;
  for (const auto& [gv, fn] : mod.Functions()) {
    PostOrderVisit(fn, [&](const Expr* e) {
      if (e->kind() != node->kind() || KeyOf(e) != KeyOf(node)) return;
      const Call* call = DynCast<Call>(e);
      bool same = want == nullptr || call->op() == want->op();
      if (same && same_op == nullptr) same_op = e;
      if (!same && other == nullptr) other = e;
    });
  }
  return same_op != nullptr ? same_op : other;
}

// Names nodes of a prepared or partitioned module by the input's names of
// the nodes with the same span.
NodeNamer SpanNamer(const NodeNames& names) {
  auto by_span = std::make_shared<absl::flat_hash_map<SpanKey, std::string>>();
  for (const auto& [gv, fn] : names.module().Functions()) {
    PostOrderVisit(fn, [&](const Expr* e) {
      if (!e->span().valid() || !names.HasHandle(e)) return;
      by_span->try_emplace(KeyOf(e), names.Name(e));
    });
  }
  return [by_span, &names](const Expr* e) -> NodeRef {
    if (names.HasHandle(e)) return {names.Name(e), names.Role(e)};
    auto it = by_span->find(KeyOf(e));
    return it == by_span->end() ? NodeRef{} : NodeRef{it->second, ""};
  };
}

// ---- carve why FILE --backend B --at NODE ------------------------------------

std::string PlacementText(const Placement& p, const std::vector<TargetSpecPtr>& backends) {
  std::string out;
  for (size_t b = 0; b < backends.size(); ++b) {
    std::string where;
    if (static_cast<int>(b) == p.backend) where = fmt::format(" (in {})", p.function);
    if (!p.verdicts[b].region.empty()) where = fmt::format(" (partition {})", p.verdicts[b].region);
    out += fmt::format("  {}: {}{}\n", backends[b]->name(), p.verdicts[b].Text(), where);
  }
  if (!p.unbound_params.empty()) {
    out += fmt::format(
        "  hint: {} {} a parameter of @main where a rule wants a constant: bind it with "
        "--params DIR\n",
        fmt::join(p.unbound_params, ", "), p.unbound_params.size() == 1 ? "is" : "are each");
  }
  return out;
}

std::vector<std::string> BackendNames(const std::vector<TargetSpecPtr>& backends) {
  std::vector<std::string> names;
  for (const TargetSpecPtr& b : backends) names.push_back(b->name());
  return names;
}

// Why `call` (of `input`, the module that was partitioned) has no
// counterpart in the partitioned module: the preparation removed it (the
// fact the report's "before partitioning" section counts), or a backend put
// it in a partition @main never called, deleted as unused (the report's
// "lost to" rows), or a region-level rule's partition went.
std::string GoneText(const PartitionResult& result, const std::vector<TargetSpecPtr>& backends,
                     const Module& input, const Call* call) {
  if (const PreparedAway::Removed* removed = result.prepared.Find(KeyOf(call))) {
    return fmt::format("  not in the partitioned module: {}\n", result.prepared.Text(*removed));
  }
  const bool in_clause = OpCallsInMatchClauses(input).contains(call);
  if (const PrunedOps::Entry* lost = result.pruned.Find(call, /*never_called=*/true)) {
    return fmt::format(
        "  {}: lost to {}: @main never calls its partition, so it never runs (partition {}, "
        "deleted as unused)\n",
        backends[lost->backend]->name(), LostToText(in_clause), lost->region);
  }
  // PartitionGraph made no partition of its region (TVM's does the same):
  // what `partition` warns of and the report counts as lost.
  if (!UnboundInputsOfMain(result.module).empty()) {
    return fmt::format(
        "  not in the partitioned module: lost to {}: partitioning for {} left nothing that "
        "computes it, so it never runs (`carve partition` warns of it and says the way out)\n",
        LostToText(in_clause), fmt::join(BackendNames(backends), ","));
  }
  return fmt::format("  not in the partitioned module: partitioning for {} removed it\n",
                     backends.front()->name());
}

// The line before the placements of a node that became several op calls:
// what made them, so that "1 of 2" reads as one of the node's parts, not
// as a copy of the module or a second backend.
std::string SeveralText(const std::vector<const Placement*>& found, const Call* call,
                        const std::string& prepared_by) {
  std::vector<std::string> ops;
  for (const Placement* p : found) ops.push_back(p->op);
  if (found.front()->call->op() != call->op()) {
    return fmt::format(
        " {}'s preparation passes rewrote it into {} ops ({}), each placed on its own:\n",
        prepared_by, found.size(), fmt::join(ops, ", "));
  }
  return fmt::format(
      " {} calls of {} in the partitioned module come from it (same source position), each "
      "placed on its own:\n",
      found.size(), call->op()->name);
}

absl::Status WhyPlacement(const ParsedArgs& args, Env& env) {
  const std::string& file = args.positional()[0];
  CARVE_ASSIGN_OR_RETURN(std::vector<TargetSpecPtr> backends,
                         ResolveBackends(*args.Get("--backend")));
  CARVE_ASSIGN_OR_RETURN(Named named, LoadNamedNode(env, args, file));
  const std::string at = *args.Get("--at");
  const Expr* node = named.target.node;
  const Call* call = DynCast<Call>(node);
  if (call == nullptr || call->op() == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: {} is {}, not an operator call: only operator calls are placed on a backend", file, at,
        DescribeExpr(node)));
  }
  // Partition the named module itself, so its spans are the names' spans.
  Module mod = named.names.module();
  if (args.Has("--params")) {
    const Function* main = mod.Lookup("main");
    if (main == nullptr) return absl::InvalidArgumentError("--params: the module has no @main");
    CARVE_RETURN_IF_ERROR(CheckParamsDir(*args.Get("--params"), *main));
    CARVE_ASSIGN_OR_RETURN(ParamMap params, ReadParamsOption(env, args));
    CARVE_RETURN_IF_ERROR(BindParams(mod, params).status());
  }
  CARVE_ASSIGN_OR_RETURN(PartitionResult result, PartitionWithRecord(std::move(mod), backends));
  // The node's calls in the result, by span: the same op, else what the
  // preparation passes rewrote it into (dnnl's nn.bias_add becomes add).
  std::vector<const Placement*> found;
  std::vector<const Placement*> rewritten;
  for (const Placement& p : result.record.placements()) {
    if (KeyOf(p.call) != KeyOf(call)) continue;
    (p.call->op() == call->op() ? found : rewritten).push_back(&p);
  }
  if (found.empty()) found = rewritten;
  if (args.Has("--json")) {
    std::string out = fmt::format("{{\"node\": {}, \"op\": {}, \"placements\": [", JsonString(at),
                                  JsonString(call->op()->name));
    for (size_t i = 0; i < found.size(); ++i) {
      out += (i ? ",\n  " : "\n  ") + PlacementJson(*found[i], backends, "");
    }
    *env.out << out << (found.empty() ? "]}\n" : "\n]}\n");
    return absl::OkStatus();
  }
  std::string out = fmt::format("{} = {}:\n", at, call->op()->name);
  if (found.empty()) out += GoneText(result, backends, named.names.module(), call);
  if (found.size() > 1) out += SeveralText(found, call, backends.front()->name());
  for (size_t i = 0; i < found.size(); ++i) {
    if (found.size() > 1) {
      out += fmt::format(" {} ({} of {}):\n", found[i]->op, i + 1, found.size());
    } else if (found[i]->call->op() != call->op()) {
      out += fmt::format("  (rewritten into {} by {}'s preparation passes)\n", found[i]->op,
                         backends.front()->name());
    }
    out += PlacementText(*found[i], backends);
  }
  *env.out << out;
  return absl::OkStatus();
}

// ---- carve why PATTERN FILE --at NODE ------------------------------------

// A rule of a backend named by `@BACKEND:NAME`.
struct BackendRule {
  TargetSpecPtr spec;
  const CompositeRule* composite = nullptr;  // a composite, or
  const OpInfo* op = nullptr;                // a single-op rule
};

std::optional<BackendRule> FindBackendRule(const std::string& arg) {
  if (!arg.starts_with('@')) return std::nullopt;
  size_t colon = arg.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string backend = arg.substr(1, colon - 1);
  std::string name = arg.substr(colon + 1);
  absl::StatusOr<std::vector<TargetSpecPtr>> specs = ResolveBackends(backend);
  if (!specs.ok() || specs->size() != 1) return std::nullopt;
  BackendRule rule{specs->front()};
  for (const CompositeRule& c : rule.spec->composites()) {
    if (c.name == name || c.name == fmt::format("{}.{}", backend, name)) {
      rule.composite = &c;
      return rule;
    }
  }
  if (const OpInfo* op = FindOp(name); op != nullptr && rule.spec->HasOpRule(op)) {
    rule.op = op;
    return rule;
  }
  return std::nullopt;
}

// The module the backend's annotator sees: the input after the preparation
// passes, gated as `carve partition` gates them (and MergeComposite does not
// change single nodes' matches); `removed` says which pass removed what.
absl::StatusOr<Module> Prepare(const Module& input, const TargetSpecPtr& spec,
                               PreparedAway& removed) {
  Module mod = input;
  if (spec->recipe().prep_pipeline.empty()) return mod;
  CARVE_ASSIGN_OR_RETURN(PassPtr prep, ParsePipeline(spec->recipe().prep_pipeline));
  prep = GatePipeline(prep, DefaultBackendGate({spec}));
  EnsureConstantEvaluator();
  PassContext ctx;
  auto watch = std::make_shared<PreparationWatch>(spec->name());
  ctx.AddInstrument(watch);
  CARVE_RETURN_IF_ERROR(RunPipeline(*prep, mod, ctx).status());
  removed = watch->result();
  return mod;
}

// The function of `mod` holding `node`.
const Function* FunctionOf(const Module& mod, const Expr* node) {
  const Function* holder = nullptr;
  for (const auto& entry : mod.Functions()) {
    // Not a structured binding: clang 14 (the sanitizer build) cannot
    // capture one in a lambda.
    const Function* fn = entry.second;
    PostOrderVisit(fn, [&](const Expr* e) {
      if (e == node) holder = fn;
    });
  }
  return holder;
}

std::string ExplainRule(const BackendRule& rule, const Module& mod, const Expr* node,
                        const std::string& at, const NodeNamer& namer) {
  const TargetSpec& spec = *rule.spec;
  if (rule.op != nullptr) {
    const Call* call = DynCast<Call>(node);
    std::string title = fmt::format("{} single-op rule {}", spec.name(), rule.op->name);
    if (call == nullptr || call->op() != rule.op) {
      return fmt::format("{} at {}: not a call of {} ({})\n", title, at, rule.op->name,
                         WhatIs(node));
    }
    std::string refusal = OpRulesRefusal(spec, call);
    return refusal.empty() ? fmt::format("{} accepts {}\n", title, at)
                           : fmt::format("{} at {}: failed check: {}\n", title, at, refusal);
  }
  auto compiled = CompilePattern(rule.composite->pattern);
  if (!compiled.ok())
    return fmt::format("{}: {}\n", rule.composite->name, std::string(compiled.status().message()));
  Explanation e = ExplainInGraph(*compiled, FunctionOf(mod, node), node, namer);
  std::string text = RenderExplanation(e, rule.composite->name, namer);
  if (e.matched()) {
    if (std::string why = CompositeCheckRefusal(*rule.composite, node); !why.empty()) {
      text = fmt::format("{} at {}: matches, but its built-in check fails: {}",
                         rule.composite->name, at, why);
    }
  }
  return text + "\n";
}

absl::Status WhyPattern(const ParsedArgs& args, Env& env) {
  const std::string& arg = args.positional()[0];
  const std::string& file = args.positional()[1];
  const std::string at = *args.Get("--at");
  CARVE_RETURN_IF_ERROR(RegisterPatternFiles(args, env));
  std::optional<BackendRule> rule = FindBackendRule(arg);
  if (!rule) {
    // A pattern of a file, DSL text, or a pattern of a backend's file that
    // is no rule of it: matched on the module as written.
    CARVE_ASSIGN_OR_RETURN(NamedQuery query, LoadQuery(env, arg));
    CARVE_ASSIGN_OR_RETURN(Named named, LoadNamedNode(env, args, file));
    CARVE_ASSIGN_OR_RETURN(std::string out, WhyReport(query, named.names, at, file));
    *env.out << out;
    return absl::OkStatus();
  }
  CARVE_ASSIGN_OR_RETURN(Named named, LoadNamedNode(env, args, file));
  NodeNamer namer = SpanNamer(named.names);
  if (args.Has("--raw") || rule->spec->recipe().prep_pipeline.empty()) {
    *env.out << ExplainRule(*rule, named.names.module(), named.target.node, at, namer);
    return absl::OkStatus();
  }
  PreparedAway removed;
  CARVE_ASSIGN_OR_RETURN(Module prepared, Prepare(named.names.module(), rule->spec, removed));
  const Expr* node = Counterpart(prepared, named.target.node);
  if (node == nullptr) {
    const PreparedAway::Removed* r = removed.Find(KeyOf(named.target.node));
    *env.out << fmt::format("{} ({}) is gone: {} (--raw explains the module as written)\n", at,
                            WhatIs(named.target.node),
                            r != nullptr ? removed.Text(*r)
                                         : fmt::format("{}'s preparation passes removed it",
                                                       rule->spec->name()));
    return absl::OkStatus();
  }
  if (WhatIs(node) != WhatIs(named.target.node)) {
    *env.out << fmt::format("{} ({}) is {} after {}'s preparation passes\n", at,
                            WhatIs(named.target.node), WhatIs(node), rule->spec->name());
  }
  *env.out << ExplainRule(*rule, prepared, node, at, namer);
  return absl::OkStatus();
}

int RunWhy(const ParsedArgs& args, Env& env) {
  const bool placement = args.Has("--backend");
  const size_t want = placement ? 1 : 2;
  if (args.positional().size() != want || !args.Has("--at")) {
    // One positional without --backend: most likely FILE, the placement
    // question without its backends.
    std::string hint = !placement && args.positional().size() == 1
                           ? "\n(to ask which backend runs a node of FILE and why not the "
                             "others, give --backend NAME[,NAME...])"
                           : "";
    *env.err << fmt::format("carve why: expected {} and --at NODE{}\nusage: {}\n",
                            placement ? "FILE" : "PATTERN, FILE", hint, kUsage);
    return kExitUsage;
  }
  // A malformed --shape is bad usage, as for `carve import`.
  if (absl::StatusOr<InputShapes> shapes = ShapeOptions(args); !shapes.ok()) {
    *env.err << fmt::format("carve why: {}\nusage: {}\n", std::string(shapes.status().message()),
                            kUsage);
    return kExitUsage;
  }
  if (placement) {
    // Pattern files first: their backends are names --backend may give.
    if (absl::Status loaded = RegisterPatternFiles(args, env); !loaded.ok()) {
      return ReportError(env, loaded);
    }
    // A backend name that names nothing is bad usage, as for `partition`.
    if (absl::Status names = CheckBackendNames(*args.Get("--backend")); !names.ok()) {
      *env.err << fmt::format("carve why: --backend: {}\n", std::string(names.message()));
      return kExitUsage;
    }
  }
  absl::Status s = placement ? WhyPlacement(args, env) : WhyPattern(args, env);
  return s.ok() ? kExitOk : ReportError(env, s);
}

}  // namespace

void AddWhyCommands(std::vector<Command>& commands) {
  const std::vector<std::string> pattern = {"pattern"};
  const std::vector<std::string> placement = {"placement"};
  commands.push_back(Command{
      "why",
      kUsage,
      "explain why PATTERN does or does not match a node, or where --backend put it and why",
      {
          {"--at", true, false, "",
           "the node: %N, %var, or @function (its final expression), as `carve fmt` prints"},
          {"--raw", false, false, "",
           "judge a backend's rule on the module as written, without its preparation passes",
           pattern},
          {"--backend", true, false, "",
           "say which of these backends runs the node, by which rule, and why the others not"},
          {"--json", false, false, "", "print the node's placement record as JSON", placement},
          {"--params", true, false, "", "bind DIR/NAME.npy to the parameter %NAME of @main first",
           placement},
          {"--patterns", true, true, "", "F.pat: load backend specs (replacing built-in ones)"},
          {"--shape", true, true, "",
           "NAME=D1,D2,...: the shape of input NAME of an .onnx FILE (as carve import)"},
      },
      RunWhy,
      {{"pattern", ""}, {"placement", "--backend"}}});
  // --backend runs the partition pipelines, whose passes stop on Ctrl-C.
  commands.back().cancellable = true;
}

}  // namespace carve::cli
