#include "backends/specs.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>

#include "fmt/format.h"
#include "backends/backend.h"
#include "backends/embedded_specs.h"
#include "grammar/pattern_parser.h"
#include "support/edit_distance.h"
#include "patterns/compile.h"
#include "patterns/matcher.h"
#include "support/status_macros.h"

namespace carve {
namespace {

struct SpecCache {
  std::mutex mu;
  std::map<std::string, TargetSpecPtr, std::less<>> specs;
};

SpecCache& Cache() {
  static auto* cache = new SpecCache();
  return *cache;
}

absl::Status UnknownBackend(std::string_view name) {
  std::string hint;
  size_t best = 4;
  std::string known;
  for (std::string_view b : BuiltinBackendNames()) {
    size_t d = EditDistance(name, b);
    if (d < best) best = d, hint = fmt::format(" (did you mean '{}'?)", b);
    known += fmt::format("{}{}", known.empty() ? "" : ", ", b);
  }
  if (hint.empty()) hint = fmt::format(" (known: {})", known);
  return absl::InvalidArgumentError(fmt::format("unknown backend '{}'{}", name, hint));
}

}  // namespace

std::vector<std::string_view> BuiltinBackendNames() { return RegisteredBackendNames(); }

absl::StatusOr<SpecSource> BuiltinSpecSource(std::string_view name) {
  const BackendDescriptor* backend = FindBackend(name);
  if (backend == nullptr) return UnknownBackend(name);
  if (!backend->spec_text.empty()) return SpecSource{backend->spec_path, backend->spec_text};
  const char* dir = std::getenv("CARVE_BACKENDS_DIR");
  if (dir != nullptr && *dir != '\0') {
    SpecSource source;
    source.path = (std::filesystem::path(dir) / std::string(name) / fmt::format("{}.pat", name))
                      .string();
    std::ifstream in(source.path, std::ios::binary);
    if (!in) {
      return absl::NotFoundError(
          fmt::format("cannot open '{}' (CARVE_BACKENDS_DIR is set)", source.path));
    }
    source.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return source;
  }
  for (const EmbeddedSpec& spec : EmbeddedSpecs()) {
    if (spec.name == name) return SpecSource{std::string(spec.path), std::string(spec.text)};
  }
  // A registered backend without backends/<name>/<name>.pat or its own
  // spec text: a build error that specs_test catches.
  return absl::InternalError(fmt::format("carve was built without the spec of '{}'", name));
}

absl::StatusOr<PatternLibrary> LoadBuiltinSpecFile(std::string_view name) {
  CARVE_ASSIGN_OR_RETURN(SpecSource source, BuiltinSpecSource(name));
  return ParsePatternFile(source.path, std::move(source.text));
}

PartitionRecipe RecipeFor(std::string_view backend) {
  const BackendDescriptor* descriptor = FindBackend(backend);
  return descriptor != nullptr ? descriptor->recipe : BackendDescriptor().recipe;
}

TargetSpecPtr MakeTargetSpec(const BackendSpec& backend, PartitionRecipe recipe) {
  auto spec = std::make_shared<TargetSpec>(backend.name);
  for (const BackendOpRule& rule : backend.ops) {
    OpRule op;
    op.op = rule.op;
    if (rule.pattern) {
      // `op nn.conv2d(?x, const as ?w) where ...`: the call must match the
      // pattern, whose where clause reads the arguments' captures.
      // Compiled once here, not per call: AnnotateTarget asks this of every
      // call of the op (CompilePattern was 23% of partitioning a 100k chain).
      Pattern pattern = rule.pattern;
      absl::StatusOr<std::shared_ptr<const CompiledPattern>> compiled = CompilePattern(pattern);
      std::shared_ptr<const CompiledPattern> program = compiled.ok() ? *compiled : nullptr;
      op.check = [program](const Call* call) {
        return program != nullptr && Matcher(program, nullptr).Match(call);
      };
      op.pattern = pattern;
    } else {
      op.where = rule.predicate;
    }
    if (rule.predicate != nullptr) op.description = PredicateToString(*rule.predicate);
    spec->AddOp(std::move(op));
  }
  // The checks the DSL cannot state exactly, from the backend's folder.
  const BackendDescriptor* descriptor = FindBackend(backend.name);
  for (const NamedPattern& c : backend.composites) {
    RootRefusal refusal = descriptor != nullptr && descriptor->composite_check
                              ? descriptor->composite_check(c.name)
                              : nullptr;
    RootCheck check;
    if (refusal) check = [refusal](const Expr* root) { return refusal(root).empty(); };
    spec->AddComposite(CompositeRule{c.name, c.pattern, std::move(check), "", std::move(refusal)});
  }
  spec->set_recipe(std::move(recipe));
  return spec;
}

std::vector<TargetSpecPtr> TargetSpecsOf(const PatternLibrary& library) {
  std::vector<TargetSpecPtr> out;
  for (const BackendSpec& b : library.backends()) out.push_back(MakeTargetSpec(b, RecipeFor(b.name)));
  return out;
}

absl::StatusOr<TargetSpecPtr> BuiltinBackendSpec(std::string_view name) {
  SpecCache& cache = Cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  if (auto it = cache.specs.find(name); it != cache.specs.end()) return it->second;
  CARVE_ASSIGN_OR_RETURN(SpecSource source, BuiltinSpecSource(name));
  std::string path = source.path;
  CARVE_ASSIGN_OR_RETURN(PatternLibrary library, ParsePatternFile(path, std::move(source.text)));
  const BackendSpec* backend = library.FindBackend(name);
  if (backend == nullptr) {
    return absl::InvalidArgumentError(fmt::format("{} defines no backend '{}'", path, name));
  }
  TargetSpecPtr spec = MakeTargetSpec(*backend, RecipeFor(name));
  cache.specs.emplace(std::string(name), spec);
  return spec;
}

absl::StatusOr<std::vector<std::string>> RegisterBackendFile(const std::string& path,
                                                             TargetRegistry& registry) {
  CARVE_ASSIGN_OR_RETURN(PatternLibrary library, LoadPatternFile(path));
  std::vector<std::string> names;
  for (const TargetSpecPtr& spec : TargetSpecsOf(library)) {
    names.push_back(spec->name());
    registry.Register(spec);
  }
  return names;
}

absl::Status RegisterBuiltinBackends(TargetRegistry& registry) {
  absl::Status first = absl::OkStatus();
  for (std::string_view name : BuiltinBackendNames()) {
    absl::StatusOr<TargetSpecPtr> spec = BuiltinBackendSpec(name);
    if (spec.ok()) {
      registry.Register(*spec);
    } else if (first.ok()) {
      first = spec.status();
    }
  }
  return first;
}

}  // namespace carve
