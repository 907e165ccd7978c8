// The binding functions of the extension, one per source file.
#pragma once

#include <pybind11/pybind11.h>

namespace carve::python {

void BindIR(pybind11::module_& m);          // ir.cc: modules, expressions, text, equality
void BindBuilder(pybind11::module_& m);     // builder.cc: building expressions (relay.*)
void BindPasses(pybind11::module_& m);      // passes.cc: transform.*
void BindPassContext(pybind11::module_& m); // pass_context.cc: transform.PassContext
void BindPatterns(pybind11::module_& m);    // patterns.cc: dataflow patterns, match, why
void BindRewrite(pybind11::module_& m);     // rewrite.cc: dataflow_pattern.rewrite with callbacks
void BindBackends(pybind11::module_& m);    // backends.cc: partition_for, codegen
void BindRun(pybind11::module_& m);         // run.cc: run, compare
void BindFrontend(pybind11::module_& m);    // frontend.cc: relay.frontend.from_onnx

}  // namespace carve::python
