// Passes as Python objects, and running them on modules.
#pragma once

#include <pybind11/pybind11.h>

#include "handles.h"
#include "passes/pass.h"
#include "passes/byoc/target.h"

namespace carve::python {

struct PassHandle {
  PassPtr pass;
  // Made by transform.Sequential: asks the pass context which members run
  // (nested sequences included), as TVM's Sequential does. Any other pass
  // applied directly runs whole, as a TVM pass applied directly does and as
  // `carve opt -p` does (TVM's FoldScaleAxis, itself a Sequential, would
  // skip its level-3 members below opt_level 3).
  bool tvm_sequential = false;
};

// Runs `pass` on a copy of `mod` (modules are values: the input is left as
// it was) and returns the result; raises CarveError on failure.
ModuleHandle RunOnCopy(const Pass& pass, const ModuleHandle& mod);

// The composite table of a Python pattern table: a list of (name, pattern)
// or (name, pattern, check) tuples (TVM's MergeComposite argument).
std::vector<CompositeRule> CompositeTable(const pybind11::sequence& table);

}  // namespace carve::python
