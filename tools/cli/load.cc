#include "tools/cli/load.h"

#include "fmt/format.h"
#include "grammar/parser.h"
#include "passes/infer/infer_type.h"
#include "passes/infer/type_annotations.h"
#include "support/cancellation.h"
#include "support/status_macros.h"

namespace carve::cli {

absl::StatusOr<Module> LoadModule(Env& env, const std::string& path) {
  // Binary protobuf parsed as Relay text gives a screen of "unexpected
  // character" errors: say what to run instead.
  if (path.ends_with(".onnx")) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: an ONNX model, and this command reads Relay text: run `carve import {} -o "
        "model.relay` first and give model.relay (`carve viz` and `carve why` read .onnx too)",
        path, path));
  }
  CARVE_ASSIGN_OR_RETURN(SourceText text, ReadSourceInput(env, path));
  CARVE_ASSIGN_OR_RETURN(Module mod, ParseModule(path == "-" ? "<stdin>" : path, std::move(text)));
  // The parser does not poll for Ctrl-C (a 20 MB file parses in a tenth of
  // a second): a request that came meanwhile stops the command here.
  if (CancellationRequested()) {
    return absl::CancelledError(fmt::format("interrupted while loading '{}'", path));
  }
  return mod;
}

absl::StatusOr<Module> LoadTypedModule(Env& env, const std::string& path) {
  CARVE_ASSIGN_OR_RETURN(Module mod, LoadModule(env, path));
  // TVM's parser ends with InferType, whose resolver fills missing
  // annotations (a parameter written without a type, a function without a
  // return type), so everything downstream sees them as TVM's users do.
  CARVE_RETURN_IF_ERROR(InferTypeAndAnnotate(mod).status());
  return mod;
}

absl::StatusOr<Module> LoadCheckedModule(Env& env, const std::string& path) {
  CARVE_ASSIGN_OR_RETURN(Module mod, LoadModule(env, path));
  CARVE_RETURN_IF_ERROR(InferType(mod));
  return mod;
}

}  // namespace carve::cli
