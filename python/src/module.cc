// The extension `carve._carve`: the bindings, one file per area. The Python
// package (python/carve) arranges them under TVM's names.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "errors.h"

PYBIND11_MODULE(_carve, m) {
  m.doc() = "carve: Relay graphs, dataflow patterns and BYOC partitioning (C++ core)";
  carve::python::BindErrors(m);
  carve::python::BindIR(m);
  carve::python::BindBuilder(m);
  carve::python::BindPasses(m);
  carve::python::BindPassContext(m);
  carve::python::BindPatterns(m);
  carve::python::BindRewrite(m);
  carve::python::BindBackends(m);
  carve::python::BindRun(m);
  carve::python::BindFrontend(m);
}
