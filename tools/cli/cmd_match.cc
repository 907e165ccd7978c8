// `carve match PATTERN FILE`, and the queries `carve why` (cmd_why.cc) and
// the REPL share.
//
// PATTERN is DSL text (patterns.md section 2), `-` (that text on standard
// input) or `@file.pat:name`, naming a
// pattern, a rule (its left side) or a backend composite of that file;
// `@BACKEND:name` reads a built-in backend's spec (`@dnnl:conv2d_relu`).
// Nodes are named as `carve fmt FILE` prints them (grammar/pattern_node_names.h),
// and types are inferred before matching so that type constraints work.
#include <algorithm>

#include "fmt/format.h"
#include "backends/specs.h"
#include "grammar/pattern_node_names.h"
#include "grammar/pattern_parser.h"
#include "passes/infer/infer_type.h"
#include "patterns/explain.h"
#include "patterns/query.h"
#include "support/edit_distance.h"
#include "support/natural_order.h"
#include "support/status_macros.h"
#include "tools/cli/cli.h"
#include "tools/cli/load.h"
#include "tools/cli/module_queries.h"

namespace carve::cli {
namespace {

// Every name a library defines that a query can use, in file order.
std::vector<std::string> NamesIn(const PatternLibrary& lib) {
  std::vector<std::string> names;
  for (const NamedPattern& p : lib.patterns()) names.push_back(p.name);
  for (const RuleSpec& r : lib.rules()) names.push_back(r.name);
  for (const BackendSpec& b : lib.backends()) {
    for (const NamedPattern& c : b.composites) names.push_back(c.name);
  }
  return names;
}

// "did you mean 'x'?" for a close name, else the first few names.
std::string NameHint(const std::vector<std::string>& names, std::string_view wanted) {
  if (names.empty()) return "it defines no patterns";
  if (std::string best = NearestName(wanted, names); !best.empty()) {
    return fmt::format("did you mean '{}'?", best);
  }
  constexpr size_t kShown = 8;
  std::string out = "it defines ";
  for (size_t i = 0; i < names.size() && i < kShown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kShown) out += fmt::format(", ... ({} in all)", names.size());
  return out;
}

// `@file.pat:name` (or `@BACKEND:name`).
absl::StatusOr<NamedQuery> LoadNamedPattern(Env& env, std::string_view ref) {
  size_t colon = ref.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == ref.size()) {
    return absl::InvalidArgumentError(
        fmt::format("'@{}': name the pattern as @FILE.pat:NAME", ref));
  }
  std::string file(ref.substr(0, colon));
  std::string name(ref.substr(colon + 1));
  auto builtin = BuiltinBackendNames();
  bool is_builtin = std::find(builtin.begin(), builtin.end(), file) != builtin.end();
  PatternLibrary lib;
  if (is_builtin) {
    CARVE_ASSIGN_OR_RETURN(lib, LoadBuiltinSpecFile(file));
  } else {
    CARVE_ASSIGN_OR_RETURN(std::string text, ReadInput(env, file));
    CARVE_ASSIGN_OR_RETURN(lib, ParsePatternFile(file, std::move(text)));
  }
  return FindInLibrary(std::make_shared<const PatternLibrary>(std::move(lib)), file, name);
}

// The module with the printer's node names, typed. Diagnostics (parse and
// type errors) point into the user's file: it is typed before re-printing.
absl::StatusOr<NodeNames> LoadNamed(Env& env, const std::string& path) {
  CARVE_ASSIGN_OR_RETURN(Module mod, LoadModule(env, path));
  CARVE_RETURN_IF_ERROR(InferType(mod));
  CARVE_ASSIGN_OR_RETURN(NodeNames names, NodeNames::ForModule(mod));
  CARVE_RETURN_IF_ERROR(InferType(names.module()));
  return names;
}

NodeNamer NamerFor(const NodeNames& names) {
  return [&names](const Expr* e) -> NodeRef {
    if (!names.HasHandle(e) && !Isa<Constant>(e)) return {};
    return {names.Name(e), names.Role(e)};
  };
}

// What a match root is, after its name: the op of an op call, else its kind.
std::string RootKind(const Expr* e, const NodeNames& names) {
  switch (e->kind()) {
    case ExprKind::kCall: {
      const auto* c = Cast<Call>(e);
      if (c->op() != nullptr) return std::string(c->op()->name);
      return fmt::format("call of {}", names.Name(c->callee()));
    }
    case ExprKind::kTuple:
      return "tuple";
    case ExprKind::kTupleGetItem:
      return fmt::format("projection .{}", Cast<TupleGetItem>(e)->index());
    case ExprKind::kFunction:
      return "fn";
    case ExprKind::kLet:
      return "let";
    case ExprKind::kIf:
      return "if";
    case ExprKind::kVar:
      return "var";
    case ExprKind::kConstant:
      return "constant";
    case ExprKind::kGlobalVar:
      return "global";
    case ExprKind::kOp:
      return "op";
    case ExprKind::kRefCreate:
      return "ref";
    case ExprKind::kRefRead:
      return "ref_read";
    case ExprKind::kRefWrite:
      return "ref_write";
    case ExprKind::kConstructor:
      return "constructor";
    case ExprKind::kMatch:
      return "match";
  }
  return "node";
}

// By name in natural order (@f2 before @f10), as partition names are
// listed by the report and the placement record.
std::vector<std::pair<const GlobalVar*, const Function*>> SortedFunctions(const Module& mod) {
  auto fns = mod.Functions();
  std::sort(fns.begin(), fns.end(), [](const auto& a, const auto& b) {
    return NaturalLess(a.first->name(), b.first->name());
  });
  return fns;
}

absl::Status Match(const ParsedArgs& args, Env& env) {
  CARVE_ASSIGN_OR_RETURN(NamedQuery query, LoadQuery(env, args.positional()[0]));
  CARVE_ASSIGN_OR_RETURN(NodeNames names, LoadNamed(env, args.positional()[1]));
  CARVE_ASSIGN_OR_RETURN(std::string out, MatchReport(query, names, args.Has("--captures")));
  *env.out << out;
  return absl::OkStatus();
}

int RunMatch(const ParsedArgs& args, Env& env) {
  if (args.positional().size() != 2) {
    return UsageError(env, "match", "expected PATTERN and FILE");
  }
  absl::Status s = Match(args, env);
  return s.ok() ? kExitOk : ReportError(env, s);
}

}  // namespace

// A pattern, rule or composite of `lib` by name; composites also by their
// short name when unambiguous (`conv2d_relu` for `dnnl.conv2d_relu`).
absl::StatusOr<NamedQuery> FindInLibrary(std::shared_ptr<const PatternLibrary> lib,
                                         const std::string& file, const std::string& name) {
  if (const NamedPattern* p = lib->FindPattern(name)) return NamedQuery{name, p->pattern, lib};
  if (const RuleSpec* r = lib->FindRule(name)) return NamedQuery{name, r->lhs, lib};
  const NamedPattern* found = nullptr;
  int short_hits = 0;
  for (const BackendSpec& b : lib->backends()) {
    for (const NamedPattern& c : b.composites) {
      if (c.name == name) return NamedQuery{c.name, c.pattern, lib};
      if (c.name == fmt::format("{}.{}", b.name, name)) {
        found = &c;
        ++short_hits;
      }
    }
  }
  if (short_hits == 1) return NamedQuery{found->name, found->pattern, lib};
  return absl::InvalidArgumentError(
      fmt::format("{}: no pattern named '{}' ({})", file, name, NameHint(NamesIn(*lib), name)));
}

// PATTERN: `@file.pat:name`, `-` (the pattern's text on standard input), or
// the pattern's text.
absl::StatusOr<NamedQuery> LoadQuery(Env& env, const std::string& arg) {
  if (arg.starts_with('@')) return LoadNamedPattern(env, std::string_view(arg).substr(1));
  if (arg == "-") {
    CARVE_ASSIGN_OR_RETURN(std::string text, ReadInput(env, "-"));
    CARVE_ASSIGN_OR_RETURN(Pattern p, ParsePattern("<stdin>", std::move(text)));
    return NamedQuery{"pattern", std::move(p), nullptr};
  }
  CARVE_ASSIGN_OR_RETURN(Pattern p, ParsePattern("<pattern>", arg));
  return NamedQuery{"pattern", std::move(p), nullptr};
}

absl::StatusOr<std::string> MatchReport(const NamedQuery& query, const NodeNames& names,
                                        bool captures) {
  CARVE_ASSIGN_OR_RETURN(auto compiled, CompilePattern(query.pattern));
  size_t count = 0;
  std::string out;
  for (const auto& [gv, fn] : SortedFunctions(names.module())) {
    for (const FoundMatch& m : FindMatches(compiled, fn)) {
      ++count;
      out += fmt::format("{}: {}", names.Name(m.root), RootKind(m.root, names));
      if (captures) {
        std::string caps;
        for (const auto& [name, e] : m.captures) {
          if (e != nullptr) caps += fmt::format(" ?{}={}", name, names.Name(e));
        }
        out += caps;
      }
      out += "\n";
    }
  }
  return out + fmt::format("matches: {}\n", count);
}

absl::StatusOr<std::string> WhyReport(const NamedQuery& query, const NodeNames& names,
                                      const std::string& at, const std::string& file) {
  CARVE_ASSIGN_OR_RETURN(auto compiled, CompilePattern(query.pattern));
  NodeNames::Named target = names.Lookup(at);
  if (target.node == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: no node named '{}' (use the %N, %var and @function names `carve fmt {}` prints)",
        file, at, file));
  }
  NodeNamer namer = NamerFor(names);
  Explanation e = ExplainInGraph(compiled, target.function, target.node, namer);
  return RenderExplanation(e, query.name, namer) + "\n";
}

void AddPatternCommands(std::vector<Command>& commands) {
  commands.push_back(Command{
      "match",
      "carve match PATTERN FILE [--captures]",
      "print every node where PATTERN matches (PATTERN: DSL text or @file.pat:name)",
      {{"--captures", false, false, "", "also print each match's captures (?x=%3)"}},
      RunMatch});
  commands.back().cancellable = true;
}

}  // namespace carve::cli
