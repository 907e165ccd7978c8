// `carve import --summary`: what a model holds (opset, inputs, weights, ONNX
// ops), read from the ModelProto itself so that it is printed even when the
// conversion fails (a dynamic input a converter needs: the summary is how a
// user finds the shape to give with --shape).
#pragma once

#include <string>
#include <string_view>

#include "frontend/onnx/import.h"

namespace carve::cli {

// The summary of the serialized model `bytes`. `result` is the import's
// result, or nullptr when the import failed: then the inputs are the
// model's declared ones (symbolic dimensions by name, with the --shape
// option that fixes them) and the parameters line says they were not made.
// A model that does not parse gives "".
std::string ImportSummary(std::string_view bytes, const onnx_import::ImportOptions& options,
                          const onnx_import::ImportResult* result);

}  // namespace carve::cli
