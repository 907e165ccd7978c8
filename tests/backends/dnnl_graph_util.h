// For the dnnl runtime tests: @part of a module as a JSON graph on the dnnl
// kernels, and @main run on the reference kernels.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/dnnl/dnnl_kernels.h"
#include "backends/json/serializer.h"
#include "backends/runtime/json_runtime.h"
#include "interpreter/evaluator.h"

namespace carve::testing {

struct DnnlGraph {
  SerializedFunction serialized;
  std::unique_ptr<JsonRuntime> runtime;
};

// @part (Compiler="dnnl") serialized and prepared on the dnnl kernels.
inline DnnlGraph BuildDnnlGraph(const Module& mod) {
  DnnlGraph g;
  g.serialized = SerializeFunction(mod.Lookup("part"), "part").value();
  std::map<std::string, NDArray, std::less<>> constants(g.serialized.constants.begin(),
                                                        g.serialized.constants.end());
  static const auto kernels = dnnl_backend::MakeDnnlKernels();
  g.runtime = JsonRuntime::Create(g.serialized.graph, constants, *kernels).value();
  return g;
}

// @main on the reference kernels (no backend runtime).
inline std::vector<NDArray> ReferenceOutputs(const Module& mod, const std::vector<NDArray>& inputs) {
  InterpreterOptions plain;
  plain.external = nullptr;
  Interpreter interpreter(mod, plain);
  return interpreter.RunFlat("main", inputs).value();
}

}  // namespace carve::testing
