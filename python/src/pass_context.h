// carve.transform.PassContext: TVM's `with tvm.transform.PassContext(opt_level=3,
// disabled_pass=[...])`, a per-thread stack of pass gates (passes/pass_gate.h).
// A Sequential asks the innermost context which members run (TVM's default
// context, opt_level 2, outside any `with`); partition_for runs its backend's
// flow in the innermost context, or in the backend's own outside any `with`.
#pragma once

#include <optional>

#include <pybind11/pybind11.h>

#include "passes/pass_gate.h"

namespace carve::python {

// The innermost active context's gate; nullopt outside any `with`.
std::optional<PassGate> ActivePassGate();

void BindPassContext(pybind11::module_& m);

}  // namespace carve::python
