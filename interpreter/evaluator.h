// The Relay evaluator: runs any function of a module on the reference
// kernels (interpreter/kernels), with closures, recursion, let, if, tuples,
// calls of globals and function literals, and external dispatch of BYOC
// functions (interpreter/external.h).
//
// Properties:
//   - Iterative: an explicit task stack and frame stack replace the C++
//     stack, so a million-node chain evaluates, and calls in tail position
//     (the recursive call of a loop written as a recursive function) reuse
//     their frame, so a 100k-iteration loop runs in constant stack.
//   - Each node of a dataflow graph is evaluated once per activation, and a
//     value is dropped after its last consumer runs (use counts computed
//     once per function body), so peak memory follows the live set.
//   - Op calls go through FindKernel with the call's output type: its
//     checked_type when InferType ran and it is static, else the op's type
//     relation applied to the runtime argument types (so un-typed IR and
//     dynamic `?` shapes also run).
//   - Errors are statuses: a missing kernel is Unimplemented "no kernel for
//     op 'x'"; arguments that do not match a parameter's type are
//     InvalidArgument naming the parameter; kernel failures carry the span of
//     the failing call.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "interpreter/external.h"
#include "interpreter/function_info.h"
#include "interpreter/kernel.h"
#include "interpreter/value.h"
#include "ir/module.h"

namespace carve {

class Plan;

struct InterpreterOptions {
  // Where Compiler / Composite functions are dispatched; nullptr evaluates
  // every function body with the reference kernels.
  const ExternalRegistry* external = &ExternalRegistry::Global();
  // Called after every Compiler / Composite function call (may be empty).
  ExternalCallObserver observer;
  // Thread pool handed to kernels (KernelContext::device); nullptr = one
  // thread.
  const Eigen::ThreadPoolDevice* device = nullptr;
  // The largest tensor an op call may produce, in bytes; a larger one stops
  // the run with ResourceExhausted before it is allocated. 0 = the limit in
  // force when the interpreter is made (ir/tensor_limit.h).
  int64_t max_tensor_bytes = 0;
  // Run dataflow functions through their execution plans
  // (interpreter/plan.h); false walks every body (the plans' differential
  // reference: both give bit-identical results).
  bool use_plans = true;
};

// Counters of the most recent outermost Run / Call / Apply (calls made by
// external handlers during a run add to it). For tests and benchmarks.
struct InterpreterStats {
  int64_t kernel_calls = 0;
  int64_t function_calls = 0;   // activations entered (tail calls included)
  int64_t tail_calls = 0;       // activations that replaced their caller's
  int64_t max_frame_depth = 0;  // deepest frame stack
  // Largest number of bytes held at once in memo tables and variable
  // bindings (shared values and bound variables; operands in flight are
  // not counted).
  int64_t peak_retained_bytes = 0;
  // Largest live set seen by a kernel: the retained bytes plus the running
  // kernel's outputs (a lower bound: inputs consumed by that kernel without
  // being retained are not counted).
  int64_t peak_live_bytes = 0;
};

class Interpreter {
 public:
  // `mod` must outlive the interpreter.
  explicit Interpreter(const Module& mod, InterpreterOptions opts = {});
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Calls the global function `@global` (e.g. "main") with `args`.
  absl::StatusOr<Value> Run(std::string_view global, std::span<const Value> args);
  // Same, taking ownership of the arguments: each is released after its
  // last use inside the callee (the caller keeps no reference), so a
  // model's weights are freed layer by layer as the run consumes them.
  absl::StatusOr<Value> RunConsuming(std::string_view global, std::vector<Value> args);
  // Same, with tensor arguments, returning the output tensors flattened
  // depth first (TVM's output order): what `carve run` prints and writes.
  absl::StatusOr<std::vector<NDArray>> RunFlat(std::string_view global,
                                               std::span<const NDArray> args);
  // Calls a function without free variables (a global's definition or a
  // closed literal such as a composite function).
  absl::StatusOr<Value> Call(const Function* fn, std::span<const Value> args);
  // Calls a closure or global value.
  absl::StatusOr<Value> Apply(const Value& callee, std::span<const Value> args);
  // Evaluates a closed function's body on the reference kernels even when
  // it carries Compiler / Composite (functions called inside it are still
  // dispatched): what an external handler calls to fall back, or `--compare`
  // calls to get the reference result of a composite.
  absl::StatusOr<Value> CallReference(const Function* fn, std::span<const Value> args);

  const Module& module() const { return *mod_; }
  const InterpreterOptions& options() const { return opts_; }
  const InterpreterStats& stats() const { return stats_; }

  // The cached analysis of `fn` (computed on first use).
  const FunctionInfo& Info(const Function* fn);
  // The kernel of `op` (cached), or nullptr.
  KernelFn Kernel(const OpInfo* op);
  // The execution plan of `fn` (lowered on first use), or nullptr when its
  // body is not pure dataflow or plans are off.
  const Plan* PlanFor(const Function* fn);

 private:
  friend class Machine;
  friend class Plan;

  absl::StatusOr<Value> Invoke(const Value& callee, std::vector<Value> args,
                               bool dispatch_external);

  const Module* mod_;
  InterpreterOptions opts_;
  InterpreterStats stats_;
  int active_runs_ = 0;  // > 0 while a machine runs (handlers may re-enter)
  absl::flat_hash_map<const Function*, std::unique_ptr<FunctionInfo>> info_;
  absl::flat_hash_map<const OpInfo*, KernelFn> kernels_;
  absl::flat_hash_map<const Function*, std::unique_ptr<Plan>> plans_;
  // Plans running on the C++ stack (a plan's function call nests an
  // evaluator, which may run another plan); past a bound, bodies are walked.
  int plan_depth_ = 0;
};

// Checks that `arg` fits `type` (dtype and static dims of tensors, tuple
// arity and fields recursively; `?` dims and non-tensor types accept any
// matching kind). The message names what is expected and what was given.
absl::Status CheckValueType(const Value& arg, const Type* type);

}  // namespace carve
