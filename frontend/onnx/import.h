// `carve import`: an ONNX model (protobuf bytes) to a Relay module, following
// TVM v0.16's ONNX frontend op for op (python/tvm/relay/frontend/onnx.py).
//
// @main's parameters are the graph inputs that are not initializers, in the
// graph's input order, then (unless `freeze`) the initializers the graph
// uses, in initializer order. Names go through RelayName(). A graph with
// several outputs returns a tuple of them in output order.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "ir/ndarray.h"

namespace carve::onnx_import {

struct ImportOptions {
  // Initializers become constants of the module (TVM's freeze_params=True)
  // instead of parameters.
  bool freeze = false;
  // Shapes for graph inputs by ONNX name; they replace the model's declared
  // shape (symbolic dimensions included).
  std::map<std::string, std::vector<int64_t>> shapes;
  // Values of graph inputs known in advance (by ONNX name). The inputs stay
  // parameters of @main, but converters that need an operand at import time
  // (a Reshape's shape, a Slice's starts) may read it, as they read
  // initializers kept as parameters. The node-test runner gives the integer
  // and bool inputs of its test data this way.
  std::map<std::string, NDArray> input_values;
  // The model's folder, where external data files are looked up; "" when
  // the model came from standard input.
  std::string base_dir;
};

struct ImportedParam {
  std::string name;  // the @main parameter name (RelayName of the ONNX name)
  NDArray value;
};

struct ImportResult {
  Module module;
  // The initializers kept as @main parameters, in parameter order.
  std::vector<ImportedParam> params;
  int opset = 0;
  // ONNX op type -> node count, for --summary.
  std::map<std::string, int> op_counts;
  // The graph inputs (@main's first parameters) by Relay name, with types.
  std::vector<std::pair<std::string, const Type*>> inputs;
  // Bytes of initializer data read.
  int64_t initializer_bytes = 0;
};

// Imports a serialized ModelProto.
absl::StatusOr<ImportResult> ImportOnnx(std::string_view bytes, const ImportOptions& options);

// Clears the checked types ImportOnnx gave every node while building it, so
// that the module prints as `carve fmt` prints its text read back: the
// parser builds an untyped module, and which dimensions of the #[metadata]
// constants are one shape object (grammar/printer_dim_identity.h) is read
// from the types. `carve import`, the REPL's `load` and Python's from_onnx
// call it (the last two then type the module afresh, as for Relay text).
void ForgetImportedTypes(const Module& mod);

// The Relay variable name of an ONNX value name: every character outside
// [A-Za-z0-9_] becomes '_', and a name that does not start with a letter (or
// is empty) gets a leading 'v', as the printer writes such names
// ("onnx::Conv_1" -> "onnx__Conv_1", "0" -> "v0", "_x" -> "v_x").
// ImportOnnx appends "_1", "_2", ... to a name already taken.
std::string RelayName(std::string_view onnx_name);

// The ONNX op types (default domain) the importer converts, sorted.
std::vector<std::string> SupportedOnnxOps();

}  // namespace carve::onnx_import
