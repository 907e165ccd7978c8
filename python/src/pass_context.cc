#include "pass_context.h"

#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "errors.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace py = pybind11;

namespace carve::python {
namespace {

// One context object; entering pushes its gate, leaving pops it.
struct PassContextHandle {
  PassGate gate;
};

// Python threads each have their own stack, as TVM's contexts are per thread.
thread_local std::vector<PassGate> active_gates;

PassContextHandle MakePassContext(int opt_level, const py::object& required_pass,
                                  const py::object& disabled_pass, const py::object& instruments,
                                  const py::object& config) {
  // What carve's passes have no use for is an error rather than ignored.
  if (!required_pass.is_none() && py::len(required_pass) > 0) {
    throw py::value_error(
        "PassContext: carve has no required_pass: every pass a pipeline names runs unless its opt "
        "level or disabled_pass excludes it");
  }
  if (!instruments.is_none() && py::len(instruments) > 0) {
    throw py::value_error(
        "PassContext: carve has no pass instruments in Python (the CLI has --print-ir-after-all "
        "and --pass-timing)");
  }
  if (!config.is_none() && py::len(config) > 0) {
    std::vector<std::string> keys;
    for (auto item : config.cast<py::dict>()) keys.push_back(py::str(item.first));
    throw py::value_error(fmt::format("PassContext: carve knows no pass config option ({})",
                                      fmt::join(keys, ", ")));
  }
  if (opt_level < 0 || opt_level > 4) {
    throw py::value_error(
        fmt::format("PassContext: opt_level is 0, 1, 2, 3 or 4 (TVM's levels), got {}", opt_level));
  }
  PassContextHandle ctx;
  ctx.gate.opt_level = opt_level;
  if (!disabled_pass.is_none()) {
    for (const std::string& name : disabled_pass.cast<std::vector<std::string>>()) {
      absl::StatusOr<std::vector<std::string>> known = ParseDisabledPasses(name);
      if (!known.ok() || known->size() != 1) {
        throw py::value_error(fmt::format(
            "PassContext: {}", known.ok() ? std::string("a pass name has no commas")
                                                 : std::string(known.status().message())));
      }
      ctx.gate.disabled.push_back(name);
    }
  }
  return ctx;
}

}  // namespace

std::optional<PassGate> ActivePassGate() {
  if (active_gates.empty()) return std::nullopt;
  return active_gates.back();
}

void BindPassContext(py::module_& m) {
  py::class_<PassContextHandle>(m, "PassContext",
                                  "TVM's PassContext: `with PassContext(opt_level=3, disabled_pass=[...])`\n"
                                  "governs Sequential and partition_for inside the block. Outside any `with`,\n"
                                  "Sequential runs at opt_level 2 and partition_for in its backend's own\n"
                                  "context.")
      .def(py::init(&MakePassContext), py::arg("opt_level") = PassGate::kDefaultOptLevel,
           py::arg("required_pass") = py::none(), py::arg("disabled_pass") = py::none(),
           py::arg("instruments") = py::none(), py::arg("config") = py::none())
      .def("__enter__",
           [](PassContextHandle& self) {
             active_gates.push_back(self.gate);
             return self;
           })
      .def("__exit__",
           [](PassContextHandle&, const py::object&, const py::object&, const py::object&) {
             if (!active_gates.empty()) active_gates.pop_back();
           })
      .def_property_readonly("opt_level", [](const PassContextHandle& c) { return c.gate.opt_level; })
      .def_property_readonly("disabled_pass",
                             [](const PassContextHandle& c) { return c.gate.disabled; })
      .def_static("current",
                  []() { return PassContextHandle{ActivePassGate().value_or(PassGate{})}; })
      .def("__repr__", [](const PassContextHandle& c) {
        return fmt::format("PassContext({})", DescribeGate(c.gate));
      });
}

}  // namespace carve::python
