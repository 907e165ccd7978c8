#include "backends/specs.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>

#include "fmt/format.h"
#include "backends/dnnl/dnnl_checks.h"
#include "backends/embedded_specs.h"
#include "backends/tensorrt/tensorrt_checks.h"
#include "grammar/pattern_parser.h"
#include "passes/edit_distance.h"
#include "patterns/matcher.h"
#include "support/status_macros.h"

namespace carve {
namespace {

constexpr std::string_view kBuiltins[] = {"bnns", "arm_compute_lib", "nnapi", "dnnl", "tensorrt"};

// TVM v0.16's partition_for_<name> (tvm-reference 4), in the passes carve
// has. Passes TVM runs that carve lacks, and why leaving them out does not
// change which ops are offloaded on the models carve handles, are noted in
// docs/backends.md.
const std::map<std::string, PartitionRecipe, std::less<>>& Recipes() {
  static const auto* recipes = new std::map<std::string, PartitionRecipe, std::less<>>{
      // InferType, FoldConstant, (FoldScaleAxis, DynamicToStatic,
      // AlterOpLayout), FoldConstant; no MergeCompilerRegions.
      {"bnns", {"InferType,FoldConstant", true, false}},
      // InferType; AnnotateTarget(include_non_call_ops=False); no merging.
      {"arm_compute_lib", {"InferType", false, false}},
      // test_dnnl.py's pipeline: CanonicalizeOps, InferType, SimplifyInference,
      // FoldConstant, FoldScaleAxis (Backward-, ForwardFoldScaleAxis, FoldConstant),
      // SimplifyExpr, FoldConstant, Legalize with legalize_group_conv
      // (DnnlLegalize), FoldConstant, (AlterOpLayout), rewrite_layer_norm, rewrite_dense_bias_gelu_reshape_last
      // (DnnlRewrites), (legalize_qnn_for_dnnl).
      {"dnnl",
       {"CanonicalizeOps,InferType,SimplifyInference,FoldConstant,BackwardFoldScaleAxis,"
        "ForwardFoldScaleAxis,FoldConstant,SimplifyExpr,FoldConstant,DnnlLegalize,FoldConstant,"
        "DnnlRewrites",
        true, true}},
      // InferType, RemoveDropout, RemoveUnusedFunctions (registered by
      // backend_passes.h), (ConvertLayout), FoldConstant. ConvertLayout is an
      // opt_level 3 pass: partition_for_tensorrt's Sequential skips it under
      // TVM's default PassContext (opt_level 2), and with it the
      // CanonicalizeOps it requires; carve follows the default.
      {"tensorrt", {"InferType,RemoveDropout,RemoveUnusedFunctions,FoldConstant", true, true}},
      // The NNAPI RFC's second option: AnnotateTarget over registered ops and
      // patterns; NNAPI compiles a whole model, so regions are merged.
      {"nnapi", {"InferType,FoldConstant", true, true}},
  };
  return *recipes;
}

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
  for (std::string_view b : kBuiltins) {
    size_t d = EditDistance(name, b);
    if (d < best) best = d, hint = fmt::format(" (did you mean '{}'?)", b);
  }
  return absl::InvalidArgumentError(fmt::format("unknown backend '{}'{}", name, hint));
}

}  // namespace

std::span<const std::string_view> BuiltinBackendNames() { return kBuiltins; }

absl::StatusOr<SpecSource> BuiltinSpecSource(std::string_view name) {
  bool builtin = false;
  for (std::string_view b : kBuiltins) builtin = builtin || b == name;
  if (!builtin) return UnknownBackend(name);
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
  // A name in kBuiltins without backends/<name>/<name>.pat: a build error
  // that specs_test catches.
  return absl::InternalError(fmt::format("carve was built without the spec of '{}'", name));
}

absl::StatusOr<PatternLibrary> LoadBuiltinSpecFile(std::string_view name) {
  CARVE_ASSIGN_OR_RETURN(SpecSource source, BuiltinSpecSource(name));
  return ParsePatternFile(source.path, std::move(source.text));
}

PartitionRecipe RecipeFor(std::string_view backend) {
  auto it = Recipes().find(backend);
  return it == Recipes().end() ? PartitionRecipe{"InferType", true, true} : it->second;
}

TargetSpecPtr MakeTargetSpec(const BackendSpec& backend, PartitionRecipe recipe) {
  auto spec = std::make_shared<TargetSpec>(backend.name);
  for (const BackendOpRule& rule : backend.ops) {
    OpRule op;
    op.op = rule.op;
    if (rule.pattern) {
      // `op nn.conv2d(?x, const as ?w) where ...`: the call must match the
      // pattern, whose where clause reads the arguments' captures.
      Pattern pattern = rule.pattern;
      op.check = [pattern](const Call* call) { return MatchPattern(pattern, call); };
      op.pattern = pattern;
    } else {
      op.where = rule.predicate;
    }
    if (rule.predicate != nullptr) op.description = PredicateToString(*rule.predicate);
    spec->AddOp(std::move(op));
  }
  for (const NamedPattern& c : backend.composites) {
    // TensorRT and DNNL checks the DSL cannot state exactly (tensorrt_checks.h,
    // dnnl_checks.h).
    RootCheck check = backend.name == "tensorrt" ? TensorRtCompositeCheck(c.name)
                      : backend.name == "dnnl"   ? DnnlCompositeCheck(c.name)
                                                 : nullptr;
    spec->AddComposite(CompositeRule{c.name, c.pattern, std::move(check), ""});
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
  for (std::string_view name : kBuiltins) {
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
