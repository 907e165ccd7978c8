#include "tools/cli/load_model.h"

#include <filesystem>

#include "fmt/format.h"
#include "frontend/onnx/import.h"
#include "passes/infer/type_annotations.h"
#include "support/cancellation.h"
#include "support/status_macros.h"
#include "tools/cli/load.h"
#include "tools/cli/shared_options.h"

namespace carve::cli {

absl::StatusOr<InputShapes> ShapeOptions(const ParsedArgs& args) {
  InputShapes shapes;
  for (const std::string& spec : args.GetAll("--shape")) {
    CARVE_RETURN_IF_ERROR(ParseShapeOption(spec, shapes));
  }
  return shapes;
}

absl::StatusOr<Module> LoadModelOrText(Env& env, const std::string& path,
                                       const std::string& command, const InputShapes& shapes) {
  if (std::filesystem::path(path).extension() != ".onnx") {
    // As `carve import`'s --shape, it names ONNX graph inputs: on Relay text
    // it would be ignored, so it is refused.
    if (!shapes.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "--shape applies only to an .onnx model, and '{}' is Relay text (its parameters' "
          "types give the shapes)",
          path));
    }
    return LoadModule(env, path);
  }
  CARVE_ASSIGN_OR_RETURN(std::string bytes, ReadInput(env, path));
  onnx_import::ImportOptions options;
  options.freeze = true;
  options.shapes = shapes;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  options.base_dir = parent.empty() ? "." : parent.string();  // external weight files
  absl::StatusOr<onnx_import::ImportResult> imported = onnx_import::ImportOnnx(bytes, options);
  if (CancellationRequested()) {
    return absl::CancelledError(fmt::format("interrupted while importing '{}'", path));
  }
  if (!imported.ok()) {
    // --shape is taken here as by `carve import` (the importer's message
    // says which); the other import options (--params-out) are not: say how
    // to import first and give the .relay file instead.
    return absl::Status(
        imported.status().code(),
        fmt::format("{}: {}\n(`{}` imports an .onnx file as `carve import` does, taking "
                    "--shape; for other import options run `carve import {} ... -o model.relay` "
                    "and give model.relay)",
                    path, std::string(imported.status().message()),
                    command == "load" ? "load" : "carve " + command, path));
  }
  CARVE_RETURN_IF_ERROR(InferTypeAndAnnotate(imported->module).status());
  return std::move(imported->module);
}

}  // namespace carve::cli
