#include "tools/cli/load.h"

#include "grammar/parser.h"
#include "passes/infer_type.h"
#include "support/status_macros.h"

namespace carve::cli {

absl::StatusOr<Module> LoadModule(Env& env, const std::string& path) {
  CARVE_ASSIGN_OR_RETURN(std::string text, ReadInput(env, path));
  return ParseModule(path == "-" ? "<stdin>" : path, std::move(text));
}

absl::StatusOr<Module> LoadTypedModule(Env& env, const std::string& path) {
  CARVE_ASSIGN_OR_RETURN(Module mod, LoadModule(env, path));
  CARVE_RETURN_IF_ERROR(InferType(mod));
  return mod;
}

}  // namespace carve::cli
