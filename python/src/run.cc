// carve.run (evaluate @main on the reference interpreter, offloaded
// functions on their backends' runtimes) and carve.compare.
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "backends/compare.h"
#include "backends/partition.h"
#include "bindings.h"
#include "callbacks.h"
#include "convert.h"
#include "errors.h"
#include "fmt/format.h"
#include "handles.h"
#include "interpreter/evaluator.h"
#include "params.h"

namespace py = pybind11;

namespace carve::python {
namespace {

// One tensor per parameter of `main`, by name from `inputs`; every parameter
// needs one and every name must be a parameter.
std::vector<NDArray> Arguments(const Function& main, ParamMap inputs) {
  std::vector<NDArray> args;
  std::vector<std::string> missing;
  std::string known;
  for (const Var* p : main.params()) {
    known += fmt::format("{}%{}", known.empty() ? "" : ", ", p->name());
    auto it = inputs.find(p->name());
    if (it == inputs.end()) {
      missing.emplace_back(p->name());
      continue;
    }
    args.push_back(it->second);
    inputs.erase(it);
  }
  // A misspelt name makes both an unknown and a missing one: the unknown
  // one, with the names @main has, says what went wrong.
  if (!inputs.empty()) {
    ThrowIfError(absl::InvalidArgumentError(fmt::format(
        "@main has no parameter %{} (its parameters: {})", inputs.begin()->first, known)));
  }
  if (!missing.empty()) {
    std::string names;
    for (const std::string& n : missing) names += (names.empty() ? "%" : ", %") + n;
    ThrowIfError(absl::InvalidArgumentError(
        fmt::format("no value for {} (give every parameter of @main in inputs or params)",
                    names)));
  }
  return args;
}

ParamMap AllInputs(const ModuleHandle& mod, const py::object& inputs, const py::object& params);

py::list Run(const ModuleHandle& mod, const py::object& inputs, const py::object& params) {
  ParamMap values = AllInputs(mod, inputs, params);
  std::vector<NDArray> args = Arguments(*mod.mod.Lookup("main"), std::move(values));
  Module typed = mod.mod;
  EnsureConstantEvaluator();
  Interpreter interpreter(typed);
  std::vector<NDArray> outputs = ValueOrThrow(interpreter.RunFlat("main", args));
  py::list out;
  // The arrays view the interpreter's output buffers (no copy); read-only,
  // since an output may share its buffer with a constant of the module.
  for (const NDArray& t : outputs) out.append(TensorToNumpy(t, /*writeable=*/false));
  return out;
}

// The inputs of `mod`'s @main from `inputs` and `params` (which may not
// name one parameter twice), checked against its parameters.
ParamMap AllInputs(const ModuleHandle& mod, const py::object& inputs, const py::object& params) {
  const Function* main = mod.mod.Lookup("main");
  if (main == nullptr) ThrowIfError(absl::InvalidArgumentError("the module has no @main"));
  ParamMap values = ToParamMap(inputs, "inputs");
  for (auto& [name, tensor] : ToParamMap(params)) {
    if (!values.emplace(name, tensor).second) {
      ThrowIfError(absl::InvalidArgumentError(
          fmt::format("%{} is given both as an input and as a param", name)));
    }
  }
  Arguments(*main, values);  // checks the names
  return values;
}

py::object ErrorToPy(const ErrorStats& e) {
  py::dict d;
  d["max_abs"] = e.max_abs;
  d["max_rel"] = e.max_rel;
  d["within"] = e.within;
  d["rtol"] = e.rtol;
  d["atol"] = e.atol;
  // The rule(s) that applied, as the report names them (backends/compare.h).
  d["rule"] = e.norm_rule ? "|a-b| <= atol + rtol*|b| or |a-b| <= rtol*max|b|"
                          : "|a-b| <= atol + rtol*|b|";
  d["scale"] = e.norm_rule ? py::object(py::float_(e.scale)) : py::object(py::none());
  d["elements"] = e.elements;
  d["out_of_tolerance"] = e.out_of_tolerance;
  d["by_norm_rule"] = e.by_norm_rule;
  d["nan_one_side"] = e.nan_one_side;
  d["nonfinite_both"] = e.nonfinite_both;
  d["max_magnitude"] = e.max_magnitude;
  d["exploded"] = e.exploded();
  if (e.has_worst) {
    d["worst_index"] = py::tuple(py::cast(e.worst_index));
    d["worst_got"] = e.worst_got;
    d["worst_ref"] = e.worst_ref;
  } else {
    d["worst_index"] = py::none();
    d["worst_got"] = py::none();
    d["worst_ref"] = py::none();
  }
  return d;
}

py::object Compare(const ModuleHandle& mod, const py::object& backends, const py::object& inputs,
                   const py::object& params, const std::optional<double>& rtol,
                   const std::optional<double>& atol, bool require_offload) {
  for (const auto& tol : {rtol, atol}) {
    if (tol && !(*tol >= 0)) ThrowIfError(absl::InvalidArgumentError("tolerances are non-negative"));
  }
  // The backends first: an unknown one is the caller's first problem (and
  // the error lists the known ones), whatever the inputs.
  std::vector<TargetSpecPtr> specs = ValueOrThrow(ResolveBackends(BackendNames(backends)));
  ParamMap values = AllInputs(mod, inputs, params);
  CompareOptions options;
  options.rtol = rtol;
  options.atol = atol;
  options.params = ToParamMap(params);
  EnsureConstantEvaluator();
  std::map<std::string, NDArray> named(values.begin(), values.end());
  CompareReport report = ValueOrThrow(WithCallbacks(
      mod.mod.shared_arena(), [&] { return CompareWithBackends(mod.mod, specs, named, options); }));
  py::list outputs, composites;
  for (const OutputComparison& o : report.outputs) {
    py::dict d = ErrorToPy(o.error);
    d["type"] = o.type;
    outputs.append(d);
  }
  for (const CompositeComparison& c : report.composites) {
    py::dict d = ErrorToPy(c.error);
    d["name"] = c.name;
    d["calls"] = c.error.count;
    d["worst_call"] = c.error.has_worst ? py::object(py::int_(c.error.worst_call)) : py::none();
    composites.append(d);
  }
  py::dict fields;
  fields["ok"] = ComparePassed(report, require_offload);
  fields["within_tolerance"] = report.ok;
  fields["backends"] = report.backends;
  fields["offloaded"] = report.offloaded;
  fields["outputs"] = outputs;
  fields["composites"] = composites;
  fields["partitioned"] = ModuleHandle{report.partitioned};
  fields["note"] = report.note;
  fields["text"] = report.note + RenderCompareReport(report) +
                   RenderCompareResult(report, require_offload);
  return py::module_::import("carve.compare").attr("CompareReport")(**fields);
}

}  // namespace

void BindRun(py::module_& m) {
  m.def("run", Run, py::arg("mod"), py::arg("inputs") = py::none(), py::arg("params") = py::none(),
        "Evaluates @main on carve's reference interpreter (`carve run`); offloaded functions\n"
        "run on their backend's runtime (dnnl on oneDNN).\n\n"
        "inputs, params: {name: numpy array}; together they give every parameter of @main\n"
        "once (an unknown or missing name raises CarveError). Returns the outputs as a list\n"
        "of read-only numpy arrays (a tuple result gives one array per field).");
  m.def("compare", Compare, py::arg("mod"), py::arg("backend"), py::arg("inputs") = py::none(),
        py::arg("params") = py::none(), py::arg("rtol") = py::none(), py::arg("atol") = py::none(),
        py::arg("require_offload") = false);
}

}  // namespace carve::python
