// carve.partition_for (TVM's partition_for_<backend>) and carve.codegen (the
// BYOC JSON graphs of the offloaded functions).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "backends/json/codegen.h"
#include "backends/json/json_graph.h"
#include "backends/partition.h"
#include "backends/specs.h"
#include "bindings.h"
#include "callbacks.h"
#include "convert.h"
#include "errors.h"
#include "fmt/format.h"
#include "handles.h"
#include "params.h"
#include "pass_context.h"

namespace py = pybind11;

namespace carve::python {

ParamMap ToParamMap(const py::object& params, std::string_view what) {
  ParamMap out;
  if (params.is_none()) return out;
  // TypeErrors that say what was expected, not pybind11's cast messages.
  if (!py::isinstance<py::dict>(params)) {
    throw py::type_error(fmt::format("{} must be a dict {{name: numpy array}}, not {}", what,
                                     std::string(py::str(params.get_type().attr("__name__")))));
  }
  for (auto [name, value] : params.cast<py::dict>()) {
    if (!py::isinstance<py::str>(name)) {
      throw py::type_error(fmt::format("{}: a name is a str, not {}", what,
                                       std::string(py::repr(name))));
    }
    if (value.is_none()) {
      throw py::type_error(fmt::format("{}['{}'] is None, not an array", what,
                                       std::string(py::str(name))));
    }
    out[std::string(py::str(name))] = NumpyToTensor(py::array::ensure(value));
  }
  return out;
}

std::string BackendNames(const py::object& backends) {
  // A TypeError, not pybind11's RuntimeError "Unable to cast Python instance".
  bool names_only = py::isinstance<py::str>(backends) || py::isinstance<py::sequence>(backends);
  if (names_only && !py::isinstance<py::str>(backends)) {
    for (py::handle h : backends.cast<py::sequence>()) names_only &= py::isinstance<py::str>(h);
  }
  if (!names_only) {
    throw py::type_error(fmt::format("a backend is named by a str or a list of str, not {}",
                                     std::string(py::str(backends.get_type().attr("__name__")))));
  }
  std::vector<std::string> list;
  if (py::isinstance<py::str>(backends)) {
    // "dnnl,tensorrt", as `carve partition --backend` takes it.
    const std::string text = backends.cast<std::string>();
    for (size_t start = 0; start <= text.size();) {
      size_t comma = std::min(text.find(',', start), text.size());
      list.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
  } else {
    list = backends.cast<std::vector<std::string>>();
  }
  // An empty name ("dnnl," or ["dnnl", ""]) is a name lost in editing:
  // skipping it would partition for a list the caller did not write.
  std::string names;
  for (const std::string& n : list) {
    if (n.empty()) {
      std::string known;
      for (std::string_view k : BuiltinBackendNames()) {
        known += fmt::format("{}{}", known.empty() ? "" : ", ", k);
      }
      ThrowIfError(absl::InvalidArgumentError(
          fmt::format("an empty backend name in {} (known: {})",
                      std::string(py::repr(backends)), known)));
    }
    names += (names.empty() ? "" : ",") + n;
  }
  return names;
}

namespace {

ModuleHandle PartitionFor(const ModuleHandle& mod, const py::object& backends,
                          const py::object& params, const std::string& mod_name, bool prune) {
  std::vector<TargetSpecPtr> specs = ValueOrThrow(ResolveBackends(BackendNames(backends)));
  BackendPartitionOptions options;
  options.params = ToParamMap(params);
  options.mod_name = mod_name;
  options.prune = prune;
  // Inside `with PassContext(...)` the flow runs in that context (as
  // `carve partition --opt-level`); outside, in the backend's own.
  options.gate = ActivePassGate();
  // Rules registered from Python (register_op_attr) run inside.
  return ModuleHandle{ValueOrThrow(WithCallbacks(
      mod.mod.shared_arena(), [&] { return PartitionForBackends(mod.mod, specs, options); }))};
}

bool HasCompiler(const Module& mod, std::string_view backend) {
  for (const auto& [gv, fn] : mod.Functions()) {
    if (fn->GetStringAttr("Compiler") == backend) return true;
  }
  return false;
}

void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out) ThrowIfError(absl::PermissionDeniedError(fmt::format("cannot write '{}'", path.string())));
}

// The artifacts of `backend`'s functions (the module is partitioned first
// when it has none, as `carve codegen` does). With `dir`, writes the files
// and returns their paths; without, returns {symbol: {"graph": json text,
// "constants": {name: array}}}.
py::object Codegen(const ModuleHandle& input, const std::string& backend, const py::object& dir,
                   const py::object& params) {
  // One backend, named: "" found no functions and returned nothing.
  if (backend.empty() || backend.find(',') != std::string::npos) {
    ThrowIfError(absl::InvalidArgumentError(fmt::format(
        "codegen takes one backend name, got '{}' (known: {})", backend,
        fmt::join(BuiltinBackendNames(), ", "))));
  }
  Module mod = input.mod;
  if (!HasCompiler(mod, backend)) {
    std::vector<TargetSpecPtr> specs = ValueOrThrow(ResolveBackends(backend));
    BackendPartitionOptions options;
    options.params = ToParamMap(params);
    options.gate = ActivePassGate();
    mod = ValueOrThrow(WithCallbacks(mod.shared_arena(),
                                     [&] { return PartitionForBackends(mod, specs, options); }));
  } else if (!params.is_none()) {
    ThrowIfError(absl::InvalidArgumentError(
        "codegen: params apply only when codegen partitions the module, and it is already "
        "partitioned"));
  }
  std::vector<CodegenArtifact> artifacts = ValueOrThrow(CodegenModule(mod, backend));
  if (!dir.is_none()) {
    std::filesystem::path root(py::str(dir).cast<std::string>());
    std::error_code ec;
    std::filesystem::create_directories(root, ec);
    if (ec) {
      ThrowIfError(absl::PermissionDeniedError(
          fmt::format("cannot create '{}': {}", root.string(), ec.message())));
    }
    std::vector<std::string> written;
    for (const auto& [name, bytes] : ValueOrThrow(ArtifactFiles(artifacts))) {
      WriteFile(root / name, bytes);
      written.push_back((root / name).string());
    }
    return py::cast(written);
  }
  py::dict out;
  for (const CodegenArtifact& a : artifacts) {
    py::dict constants;
    for (const auto& [name, tensor] : a.function.constants) {
      constants[py::str(name)] = TensorToNumpy(tensor, /*writeable=*/false);
    }
    py::dict entry;
    entry["global"] = a.global;
    entry["compiler"] = a.compiler;
    entry["graph"] = WriteJsonGraph(a.function.graph);
    entry["constants"] = constants;
    out[py::str(a.function.graph.symbol)] = entry;
  }
  return out;
}

}  // namespace

void BindBackends(py::module_& m) {
  m.def("partition_for", PartitionFor, py::arg("mod"), py::arg("backend"),
        py::arg("params") = py::none(), py::arg("mod_name") = "default", py::arg("prune") = true,
        "The BYOC flow of a built-in backend, as TVM's partition_for_<backend>.\n\n"
        "backend: a name ('dnnl'), 'dnnl,tensorrt' or a list of names (builtin_backends()).\n"
        "params: {name: numpy array}, bound as constants of @main first; a name that is no\n"
        "parameter of @main is skipped, as TVM's bind_params_by_name skips it.\n"
        "mod_name: the prefix of the partitions' names (tvmgen_<mod_name>_<backend>_main_N).\n"
        "prune: drop partitions the backend's pruning rules reject (TVM's prune_subgraphs).\n"
        "Inside `with PassContext(...)` the flow runs in that context, else in the backend's\n"
        "own. Returns a new module; `mod` is unchanged. Raises CarveError.");
  m.def("codegen", Codegen, py::arg("mod"), py::arg("backend"), py::arg("dir") = py::none(),
        py::arg("params") = py::none(),
        "The offloaded functions of one backend as TVM BYOC JSON graphs (`carve codegen`).\n\n"
        "The module is partitioned first (with params) unless it has functions of the backend.\n"
        "With dir: writes <symbol>.json and the .npy constants there and returns the paths;\n"
        "without: returns {symbol: {'global', 'compiler', 'graph': json text,\n"
        "'constants': {name: array}}}.");
}

}  // namespace carve::python
