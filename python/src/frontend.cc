// carve.relay.frontend.from_onnx: the ONNX importer of `carve import` for
// Python, returning (IRModule, params) as TVM's relay.frontend.from_onnx does.
#include <map>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.h"
#include "convert.h"
#include "errors.h"
#include "frontend/onnx/import.h"
#include "handles.h"
#include "passes/infer/type_annotations.h"

namespace py = pybind11;

namespace carve::python {
namespace {

py::tuple FromOnnxBytes(const py::bytes& model, const std::map<std::string, std::vector<int64_t>>& shapes,
                        bool freeze, const std::string& base_dir) {
  onnx_import::ImportOptions options;
  options.freeze = freeze;
  options.shapes = shapes;
  options.base_dir = base_dir;
  std::string_view bytes = model;
  onnx_import::ImportResult result = ValueOrThrow(onnx_import::ImportOnnx(bytes, options));
  py::dict params;
  for (const onnx_import::ImportedParam& p : result.params) {
    params[py::str(p.name)] = TensorToNumpy(p.value, /*writeable=*/false);
  }
  // TVM's from_onnx hands back a typed module (its DynamicToStatic runs
  // InferType, which fills @main's return type): mod["main"].checked_type
  // and ret_type work on it, as they do after carve.load. It is typed afresh,
  // without the importer's own types, so that it prints (astext) as
  // `carve import` prints the model.
  onnx_import::ForgetImportedTypes(result.module);
  ThrowIfError(InferTypeAndAnnotate(result.module).status());
  return py::make_tuple(ModuleHandle{std::move(result.module)}, params);
}

}  // namespace

void BindFrontend(py::module_& m) {
  m.def("from_onnx_bytes", FromOnnxBytes, py::arg("model"), py::arg("shapes"), py::arg("freeze"),
        py::arg("base_dir"),
        "A serialized ONNX ModelProto as (IRModule, {name: array}) (`carve import`).");
}

}  // namespace carve::python
