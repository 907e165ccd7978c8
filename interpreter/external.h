// External dispatch: how BYOC functions run.
//
// After partitioning, offloaded regions are functions with the attribute
// Compiler="<backend>", and fused op groups are function literals with
// Composite="<backend>.<pattern>". A backend registers
//   (a) a runtime for its Compiler functions: it receives the function and
//       its argument values and returns the result value; and/or
//   (b) a kernel for each of its composites: it receives the composite
//       function and its arguments, and returns the result.
// Without a registration the interpreter evaluates the function's body with
// the reference kernels, so any partitioned module runs. The interpreter
// never includes a backend; backends call the registry.
//
// An observer sees every Compiler / Composite function call with its inputs
// and output (for `carve run --compare`, which diffs each composite against
// the reference kernels).
#pragma once

#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "interpreter/value.h"
#include "ir/expr.h"

namespace carve {

class Interpreter;

// What an external runtime or composite kernel is handed.
struct ExternalCall {
  // The Compiler or Composite function being called.
  const Function* function = nullptr;
  // The attribute value that selected the handler ("dnnl", "dnnl.conv2d_relu").
  std::string_view name;
  // The arguments, one per parameter of `function`.
  std::span<const Value> args;
  // The function's result type when known (its checked or annotated return
  // type), else nullptr.
  const Type* ret_type = nullptr;
  // The calling interpreter; a handler may use it to evaluate parts of the
  // function with the reference kernels (Interpreter::Call is re-entrant).
  Interpreter* interpreter = nullptr;
  // Set by a handler whose result's tensors are storage it allocated for
  // this call and holds no reference to (not an argument, a constant or a
  // buffer kept across calls): an execution plan may then overwrite them
  // in place (interpreter/plan.cc).
  mutable bool result_fresh = false;
};

using ExternalFn = std::function<absl::StatusOr<Value>(const ExternalCall& call)>;

// A table of external runtimes (by Compiler name) and composite kernels (by
// Composite name). Thread-safe.
class ExternalRegistry {
 public:
  // The process-wide registry backends register into.
  static ExternalRegistry& Global();

  // Registers the runtime for Compiler="<compiler>" (the last one wins).
  void RegisterRuntime(std::string_view compiler, ExternalFn fn);
  // Registers the kernel for Composite="<composite>" (the last one wins).
  void RegisterComposite(std::string_view composite, ExternalFn fn);
  // Removes a registration (no-op when absent).
  void UnregisterRuntime(std::string_view compiler);
  void UnregisterComposite(std::string_view composite);

  // The handler, or an empty function.
  ExternalFn FindRuntime(std::string_view compiler) const;
  ExternalFn FindComposite(std::string_view composite) const;

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, ExternalFn> runtimes_;
  absl::flat_hash_map<std::string, ExternalFn> composites_;
};

// One completed call of a Compiler or Composite function.
struct ExternalCallEvent {
  const Function* function = nullptr;
  std::string_view compiler;   // the Compiler attribute, or ""
  std::string_view composite;  // the Composite attribute, or ""
  std::span<const Value> args;
  const Value* result = nullptr;
  // True when a registered runtime or composite kernel computed the result;
  // false when the reference kernels evaluated the body.
  bool offloaded = false;
};

// Called after each Compiler / Composite function call returns.
using ExternalCallObserver = std::function<void(const ExternalCallEvent& event)>;

}  // namespace carve
