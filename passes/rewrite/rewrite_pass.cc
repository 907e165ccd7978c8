#include "passes/rewrite/rewrite_pass.h"

#include <algorithm>
#include <string>
#include <utility>

#include "fmt/format.h"
#include "support/edit_distance.h"
#include "passes/infer/infer_type.h"
#include "passes/infer/type_annotations.h"
#include "patterns/rewrite.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {
namespace {

constexpr int kDefaultMaxRounds = 100;
constexpr int64_t kDefaultMaxRewrites = int64_t{1} << 24;

RuleFiles& Installed() {
  static RuleFiles* files = new RuleFiles();
  return *files;
}

// The pass as pipeline text, with the arguments that differ from defaults.
std::string Describe(const RewritePassOptions& o) {
  std::vector<std::string> args;
  if (!o.file.empty()) args.push_back(o.file);
  if (!o.rules.empty()) args.push_back(fmt::format("rules=[{}]", fmt::join(o.rules, ",")));
  if (o.max_rounds != kDefaultMaxRounds) args.push_back(fmt::format("max_rounds={}", o.max_rounds));
  if (o.max_rewrites != kDefaultMaxRewrites) {
    args.push_back(fmt::format("max_rewrites={}", o.max_rewrites));
  }
  if (o.max_nodes != 0) args.push_back(fmt::format("max_nodes={}", o.max_nodes));
  return args.empty() ? "Rewrite" : fmt::format("Rewrite({})", fmt::join(args, ","));
}

// "rules.pat", or "the --patterns files (a.pat, b.pat)".
std::string Origin(const RewritePassOptions& o, const std::vector<std::string>& paths) {
  if (!o.file.empty()) return o.file;
  return fmt::format("the --patterns file{} ({})", paths.size() == 1 ? "" : "s",
                     fmt::join(paths, ", "));
}

bool HasSpannedDiagnostic(const absl::Status& status) {
  for (const Diagnostic& d : StatusToDiagnostics(status)) {
    if (d.span.valid()) return true;
  }
  return false;
}

// `status` with "Rewrite: " + `prefix` before its first message and `suffix`
// after it; spans, notes and further diagnostics are kept.
absl::Status Annotate(const absl::Status& status, std::string_view prefix,
                      std::string_view suffix = "") {
  std::vector<Diagnostic> diags = StatusToDiagnostics(status);
  if (diags.empty()) return status;
  diags[0].message = fmt::format("Rewrite: {}{}{}", prefix, diags[0].message, suffix);
  return DiagnosticsToStatus(diags, status.code());
}

absl::Status UnknownRule(const std::string& name, const std::vector<std::string>& known,
                         const std::string& origin) {
  std::string near = NearestName(name, known);
  std::string hint = !near.empty() ? fmt::format(" (did you mean '{}'?)", near)
                                   : fmt::format(" (its rules: {})", fmt::join(known, ", "));
  bool plural = origin.starts_with("the --patterns files");
  return absl::InvalidArgumentError(
      fmt::format("{} {} no rule '{}'{}", origin, plural ? "have" : "has", name, hint));
}

// The rules of `libraries` named by `names` (in that order), or all of them.
absl::StatusOr<std::vector<RewriteRule>> SelectRules(
    const std::vector<std::shared_ptr<const PatternLibrary>>& libraries,
    const std::vector<std::string>& names, const std::string& origin) {
  std::vector<RewriteRule> all;
  for (const auto& lib : libraries) {
    for (RewriteRule& r : lib->RewriteRules()) all.push_back(std::move(r));
  }
  if (all.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("no rule (`rule NAME = PATTERN => REPLACEMENT;`) in {}", origin));
  }
  if (names.empty()) return all;
  std::vector<std::string> known;
  for (const RewriteRule& r : all) known.push_back(r.name);
  std::vector<RewriteRule> selected;
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (names[j] == names[i]) {
        return absl::InvalidArgumentError(fmt::format("rule '{}' is named twice", names[i]));
      }
    }
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const RewriteRule& r) { return r.name == names[i]; });
    if (it == all.end()) return UnknownRule(names[i], known, origin);
    selected.push_back(*it);
  }
  return selected;
}

// The error of rewriting that did not converge, with how to raise the limit.
absl::Status NotConverged(const absl::Status& status, const RewritePassOptions& options) {
  RewritePassOptions raised = options;
  bool by_rewrites = status.message().find("rewrite limit reached") != absl::string_view::npos;
  bool by_nodes = status.message().find("over the node limit of") != absl::string_view::npos;
  if (by_nodes) {
    // The limit the driver used is in the message; four times it.
    std::string text(status.message());
    size_t at = text.find("over the node limit of ") + std::string_view("over the node limit of ").size();
    int64_t used = std::strtoll(text.c_str() + at, nullptr, 10);
    raised.max_nodes = used > (int64_t{1} << 60) ? used : used * 4;
  } else if (by_rewrites) {
    raised.max_rewrites = options.max_rewrites > (int64_t{1} << 60) ? options.max_rewrites
                                                                    : options.max_rewrites * 4;
  } else {
    raised.max_rounds =
        static_cast<int>(std::min<int64_t>(int64_t{options.max_rounds} * 10, 1000000000));
  }
  std::string_view why = by_nodes ? "Rules that keep growing the graph never stop"
                                  : "Rules that undo each other never converge";
  return Annotate(status, "",
                  fmt::format(". {}; if these do, raise the limit: {}", why, Describe(raised)));
}

absl::StatusOr<bool> RunRewrite(const std::vector<RewriteRule>& rules,
                                const RewritePassOptions& options, Module& mod,
                                PassContext& ctx) {
  CARVE_RETURN_IF_ERROR(EnsureTyped(mod));
  RewriteOptions ro;
  ro.max_rounds = options.max_rounds;
  ro.max_rewrites = options.max_rewrites;
  ro.max_nodes = options.max_nodes;
  // Rules whose patterns read types see the function re-typed (globals are
  // resolved in the module).
  ro.retype = [&mod](const Expr* e) -> absl::StatusOr<const Expr*> {
    CARVE_RETURN_IF_ERROR(InferExprType(e, &mod).status());
    return e;
  };
  std::vector<std::pair<const GlobalVar*, const Function*>> before = mod.Functions();
  absl::StatusOr<RewriteResult> result = RewriteModule(rules, mod, ro);
  if (!result.ok()) {
    if (absl::IsResourceExhausted(result.status())) return NotConverged(result.status(), options);
    return Annotate(result.status(), "");
  }
  bool changed = false;
  for (const auto& [gv, fn] : before) changed = changed || mod.Lookup(gv) != fn;
  // As TVM's passes end: the module typed, missing annotations filled.
  if (changed) {
    absl::StatusOr<bool> typed = RetypeIfNeeded(mod);
    if (!typed.ok()) {
      return Annotate(typed.status(), "the rewritten module does not type-check: ");
    }
  } else if (!ctx.input_annotated()) {
    CARVE_RETURN_IF_ERROR(FillMissingTypeAnnotations(mod).status());
  }
  ctx.set_output_annotated();
  return changed;
}

}  // namespace

ScopedRuleFiles::ScopedRuleFiles(RuleFiles files) : previous_(std::move(Installed())) {
  Installed() = std::move(files);
}

ScopedRuleFiles::~ScopedRuleFiles() { Installed() = std::move(previous_); }

absl::StatusOr<PassPtr> RewritePass(const RewritePassOptions& options) {
  if (options.max_rounds < 1) {
    return absl::InvalidArgumentError(
        fmt::format("max_rounds must be at least 1, got {}", options.max_rounds));
  }
  if (options.max_rewrites < 1) {
    return absl::InvalidArgumentError(
        fmt::format("max_rewrites must be at least 1, got {}", options.max_rewrites));
  }
  if (options.max_nodes < 0) {
    return absl::InvalidArgumentError(
        fmt::format("max_nodes must be 0 (automatic) or more, got {}", options.max_nodes));
  }
  const RuleFiles& files = Installed();
  if (!files.load) {
    return absl::FailedPreconditionError(
        "no rule-file loader is installed (the carve tool installs one: ScopedRuleFiles)");
  }
  std::vector<std::string> paths =
      options.file.empty() ? files.defaults : std::vector<std::string>{options.file};
  if (paths.empty()) {
    return absl::InvalidArgumentError(
        "no rule file: write Rewrite(FILE.pat), or load rules with --patterns FILE.pat");
  }
  std::vector<std::shared_ptr<const PatternLibrary>> libraries;
  for (const std::string& path : paths) {
    absl::StatusOr<std::shared_ptr<const PatternLibrary>> lib = files.load(path);
    if (!lib.ok()) {
      // The file's diagnostics keep their `file:line:col` (the pipeline
      // parser adds a note at the pass), and come before any pass runs.
      if (HasSpannedDiagnostic(lib.status())) return lib.status();
      if (!path.ends_with(".pat") && options.rules.empty()) {
        return absl::Status(lib.status().code(),
                            fmt::format("{} (the first argument is the rule file: "
                                        "Rewrite(FILE.pat,{}) or Rewrite(rules=[{}]))",
                                        std::string(lib.status().message()), path, path));
      }
      return lib.status();
    }
    libraries.push_back(*std::move(lib));
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<RewriteRule> rules,
                         SelectRules(libraries, options.rules, Origin(options, paths)));
  return RewritePass(std::move(rules), std::move(libraries), options);
}

PassPtr RewritePass(std::vector<RewriteRule> rules,
                    std::vector<std::shared_ptr<const PatternLibrary>> libraries,
                    const RewritePassOptions& options) {
  return MakeModulePass(
      "Rewrite", Describe(options),
      [rules = std::move(rules), libraries = std::move(libraries), options](
          Module& mod, PassContext& ctx) -> absl::StatusOr<bool> {
        return RunRewrite(rules, options, mod, ctx);
      });
}

}  // namespace carve
