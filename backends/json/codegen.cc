#include "backends/json/codegen.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/backend.h"
#include "fmt/format.h"
#include "interpreter/npy.h"
#include "support/status_macros.h"

namespace carve {

absl::StatusOr<std::vector<CodegenArtifact>> CodegenModule(const Module& mod,
                                                           std::string_view backend) {
  std::vector<CodegenArtifact> out;
  for (const auto& [gv, fn] : mod.Functions()) {
    std::string_view compiler = fn->GetStringAttr("Compiler");
    if (compiler.empty() || (!backend.empty() && compiler != backend)) continue;
    CodegenArtifact artifact;
    artifact.global = std::string(gv->name());
    artifact.compiler = std::string(compiler);
    CARVE_ASSIGN_OR_RETURN(artifact.function,
                           SerializeFunction(fn, ExternalSymbol(fn, gv->name())));
    out.push_back(std::move(artifact));
  }
  return out;
}

absl::StatusOr<std::map<std::string, std::string>> ArtifactFiles(
    const std::vector<CodegenArtifact>& artifacts) {
  std::map<std::string, std::string> files;
  for (const CodegenArtifact& a : artifacts) {
    const SerializedFunction& f = a.function;
    files[f.graph.symbol + ".json"] = WriteJsonGraph(f.graph);
    for (const auto& [name, tensor] : f.constants) {
      CARVE_ASSIGN_OR_RETURN(files[name + ".npy"], SerializeNpy(tensor));
    }
    // Files the backend adds (nnapi: its model description).
    const BackendDescriptor* backend = FindBackend(a.compiler);
    if (backend != nullptr && backend->codegen_files) {
      CARVE_RETURN_IF_ERROR(backend->codegen_files(f, files));
    }
  }
  return files;
}

absl::StatusOr<LoadedGraph> LoadArtifact(const std::string& dir, std::string_view symbol) {
  std::filesystem::path path = std::filesystem::path(dir) / fmt::format("{}.json", symbol);
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(fmt::format("cannot open '{}'", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  LoadedGraph loaded;
  absl::StatusOr<JsonGraph> graph = ParseJsonGraph(text.str());
  if (!graph.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", path.string(), std::string(graph.status().message())));
  }
  loaded.graph = *std::move(graph);
  for (const JsonNode& node : loaded.graph.nodes) {
    if (node.op != "const") continue;
    std::string file = (std::filesystem::path(dir) / (node.name + ".npy")).string();
    CARVE_ASSIGN_OR_RETURN(NDArray tensor, ReadNpyFile(file));
    loaded.constants.emplace(node.name, std::move(tensor));
  }
  return loaded;
}

}  // namespace carve
