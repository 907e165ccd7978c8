// Arguments shared by the backend and run bindings.
#pragma once

#include <string>
#include <string_view>

#include <pybind11/pybind11.h>

#include "passes/fold/bind_params.h"

namespace carve::python {

// {name: array-like} (or None) as tensors by name (copied). A TypeError,
// naming the argument as `what`, for anything but a dict of str to arrays.
ParamMap ToParamMap(const pybind11::object& params, std::string_view what = "params");
// "dnnl", "dnnl,bnns" or ["dnnl", "bnns"] as "dnnl,bnns"; TypeError for
// another type, CarveError for an empty name.
std::string BackendNames(const pybind11::object& backends);

}  // namespace carve::python
