#include "tools/cli/load_model.h"

#include <filesystem>

#include "fmt/format.h"
#include "frontend/onnx/import.h"
#include "passes/infer/type_annotations.h"
#include "support/cancellation.h"
#include "support/status_macros.h"
#include "tools/cli/load.h"

namespace carve::cli {

absl::StatusOr<Module> LoadModelOrText(Env& env, const std::string& path,
                                       const std::string& command) {
  if (std::filesystem::path(path).extension() != ".onnx") return LoadModule(env, path);
  CARVE_ASSIGN_OR_RETURN(std::string bytes, ReadInput(env, path));
  onnx_import::ImportOptions options;
  options.freeze = true;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  options.base_dir = parent.empty() ? "." : parent.string();  // external weight files
  absl::StatusOr<onnx_import::ImportResult> imported = onnx_import::ImportOnnx(bytes, options);
  if (CancellationRequested()) {
    return absl::CancelledError(fmt::format("interrupted while importing '{}'", path));
  }
  if (!imported.ok()) {
    // Options of the import (--shape, --params-out) belong to `carve
    // import`: say how to import first and give the .relay file instead.
    return absl::Status(
        imported.status().code(),
        fmt::format("{}: {}\n(`carve {}` imports an .onnx file with `carve import`'s defaults; "
                    "for other options run `carve import {} [--shape NAME=D1,...] -o model.relay` "
                    "and give model.relay)",
                    path, std::string(imported.status().message()), command, path));
  }
  CARVE_RETURN_IF_ERROR(InferTypeAndAnnotate(imported->module).status());
  return std::move(imported->module);
}

}  // namespace carve::cli
