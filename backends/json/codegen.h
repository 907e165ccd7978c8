// Module-level JSON codegen: every offloaded function of a partitioned module
// serialized for its backend, and the files `carve codegen -o DIR` writes:
//
//   DIR/<symbol>.json                 the graph (json_graph.h)
//   DIR/<symbol>_const_<k>.npy        one file per constant, in const order
//   DIR/...                           the files the function's backend adds
//                                     (BackendDescriptor::codegen_files; nnapi:
//                                     <symbol>.nnapi.json, <symbol>_nnapi_<k>.npy)
//
// which is what TVM's JSON runtime modules hold (graph JSON plus the
// ConstLoaderModule's named tensors), as plain files.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/json/serializer.h"
#include "ir/module.h"

namespace carve {

struct CodegenArtifact {
  std::string global;    // the global function's name
  std::string compiler;  // its Compiler attribute
  SerializedFunction function;
};

// Serializes every function of `mod` whose Compiler attribute is `backend`
// (every Compiler function when `backend` is empty), in name order. The
// module must be typed.
absl::StatusOr<std::vector<CodegenArtifact>> CodegenModule(const Module& mod,
                                                           std::string_view backend);

// The files of `artifacts`, by name relative to the output directory, in
// the order they are listed above.
absl::StatusOr<std::map<std::string, std::string>> ArtifactFiles(
    const std::vector<CodegenArtifact>& artifacts);

// A serialized function loaded back from files: the graph and its constants.
struct LoadedGraph {
  JsonGraph graph;
  std::map<std::string, NDArray, std::less<>> constants;
};

// Reads DIR/<symbol>.json and the .npy file of each of its const nodes.
absl::StatusOr<LoadedGraph> LoadArtifact(const std::string& dir, std::string_view symbol);

}  // namespace carve
