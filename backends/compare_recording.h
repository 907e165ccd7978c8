// What `run --compare` records while the partitioned module runs on the
// backends' runtimes (the first call of @main only): every composite node a
// runtime executed, with its inputs and output, and every call of an
// offloaded function, with its arguments and result. compare.cc runs each
// again on the reference kernels. Internal to backends/compare*.cc.
#pragma once

#include <string>
#include <vector>

#include "backends/runtime/backend_runtime.h"
#include "interpreter/external.h"
#include "interpreter/value.h"
#include "ir/expr.h"

namespace carve::compare_internal {

// One composite node run inside an offloaded function.
struct CompositeRun {
  std::string name;
  const Function* composite = nullptr;
  std::vector<Value> args;  // in the composite's parameter order
  NDArray output;
};

// One call of an offloaded (Compiler) function: what its backend runtime
// received and returned on the first call of @main. Deep copies: the host's
// memory plan may reuse the result's buffer afterwards.
struct FunctionRun {
  const Function* function = nullptr;
  std::vector<Value> args;
  Value output;
};

// Records every composite node the backend runtimes execute into `runs`
// while `recording` is set (the first call of @main; repeated ones are
// timed only). Both must outlive the observer.
OffloadedNodeObserver RecordComposites(std::vector<CompositeRun>& runs, const bool& recording);

// `runtime`, recording each call it serves into `runs` while `recording`
// is set.
ExternalFn RecordFunctions(ExternalFn runtime, std::vector<FunctionRun>& runs,
                           const bool& recording);

// The tensors of a (nested) tuple value, in order.
void FlattenTensors(const Value& v, std::vector<NDArray>& out);

}  // namespace carve::compare_internal
