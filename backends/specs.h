// The backend specs: TVM v0.16's annotation rules and pattern tables of each
// registered backend (backend.h), written in the `.pat` DSL
// (backends/<name>/<name>.pat). Their text is compiled into carve
// (embedded_specs.h), so the binary and the libraries work without the
// source tree; a user can still copy one, edit it and pass it with
// `--patterns`, or point $CARVE_BACKENDS_DIR at a folder of edited copies.
// This file turns the DSL's `backend NAME { ... }` blocks into the
// TargetSpecs the passes use, with each backend's partition recipe and
// composite checks from its descriptor (TVM's `partition_for_<name>`, which
// the DSL does not describe; see partition.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/byoc/target.h"
#include "patterns/library.h"

namespace carve {

// The registered backends (backend.h), in the order `carve partition --help`
// lists them.
std::vector<std::string_view> BuiltinBackendNames();

// The text of a built-in backend's spec and the name its diagnostics use.
struct SpecSource {
  std::string path;  // "backends/dnnl/dnnl.pat", or the file under $CARVE_BACKENDS_DIR
  std::string text;
};

// The spec of built-in backend `name`: $CARVE_BACKENDS_DIR/<name>/<name>.pat
// when that variable is set (NotFound when the file is missing), else the
// text compiled into carve. InvalidArgument for an unknown name (with the
// nearest one).
absl::StatusOr<SpecSource> BuiltinSpecSource(std::string_view name);

// BuiltinSpecSource(name), parsed.
absl::StatusOr<PatternLibrary> LoadBuiltinSpecFile(std::string_view name);

// The recipe of a registered backend, or the default one (InferType,
// MergeComposite, AnnotateTarget, MergeCompilerRegions, PartitionGraph) for
// other names.
PartitionRecipe RecipeFor(std::string_view backend);

// A TargetSpec from a DSL backend: its op rules (with their `where`
// conditions) and composite table in order (with the C++ checks of the
// registered backend of that name), with `recipe`.
TargetSpecPtr MakeTargetSpec(const BackendSpec& backend, PartitionRecipe recipe);

// Every backend of `library` as a TargetSpec (recipes by name).
std::vector<TargetSpecPtr> TargetSpecsOf(const PatternLibrary& library);

// The spec of a built-in backend, parsed from its `.pat` file on first use
// and cached. InvalidArgument for an unknown name (with the nearest one),
// the file's diagnostics when it does not parse.
absl::StatusOr<TargetSpecPtr> BuiltinBackendSpec(std::string_view name);

// Loads a `.pat` file and registers each of its backends in `registry`
// (replacing a built-in backend of the same name). Returns the names.
absl::StatusOr<std::vector<std::string>> RegisterBackendFile(const std::string& path,
                                                             TargetRegistry& registry);

// Registers every built-in backend whose spec loads in `registry`; returns
// the first error (the others are still registered).
absl::Status RegisterBuiltinBackends(TargetRegistry& registry);

}  // namespace carve
