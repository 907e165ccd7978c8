// Execution plans: a function whose body is pure dataflow (op calls,
// tuples, projections, lets, constants and calls of other functions) is
// lowered once into a flat list of steps over numbered value slots, and the
// plan is what runs: no task stack, no memo hash tables, no type relation
// when the call is typed, each kernel resolved once.
//
//   - Order: steps follow the tree walker's evaluation order exactly
//     (post-order, callee before arguments, left to right, a let's value
//     before its body, each shared node once), so kernels see the same
//     inputs in the same order, the first failing call is the same one, and
//     results are bit-identical (tests/interpreter_core/plan_test.cc).
//   - Memory: each slot is freed after the step that reads it last
//     (liveness computed at lowering), so a run holds the same live set as
//     the tree walker; constants are held by the plan, not copied.
//   - In place: an element-wise step (interpreter/kernel_inplace.h) whose
//     first operand was written fresh by a kernel step and is read last (and
//     once) by this step overwrites that tensor instead of allocating its
//     result, so conv -> bias_add -> relu runs in one buffer, and so does
//     x * sigmoid(pool(x)). Freshness is checked per run: the producer's op
//     pattern is computational and its outputs share no storage with its
//     inputs or with each other, and no earlier reader made a result that
//     may share the tensor (a view, a tuple, a function call's result).
//   - Joins without a copy: when a step concatenates (an op of
//     interpreter/kernel_join.h) a tuple of slots only it reads, the kernel
//     step that starts each input's chain (conv -> bias_add -> relu, the
//     later ones in place) writes into a slice of one block allocated per
//     run, the slices adjacent in the tuple's order, so the join is a view
//     of the block (squeezenet's fire modules). When a chain does not end in
//     its slice after all (an in-place step that did not apply), the join
//     sees inputs that are not adjacent and copies them, as without a block.
//   - Calls of globals and closures inside a plan go back to the evaluator
//     (which dispatches Compiler / Composite functions and runs the callee's
//     own plan when it has one).
//
// Bodies with `if`, function literals that capture variables, or ops
// without a kernel are not planned: the tree walker (interpreter/machine.h)
// runs them and calls into the plans of the dataflow functions they call.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "interpreter/evaluator.h"
#include "interpreter/kernel_inplace.h"

namespace carve {

class Plan {
 public:
  // Lowers `fn`, or returns nullptr when its body is not pure dataflow (see
  // above). Iterative: million-node bodies lower in linear time.
  static std::unique_ptr<Plan> Lower(Interpreter& interp, const Function* fn);

  // Runs the plan with the function's arguments (moved in: each is freed
  // after its last read) and, for a closure, its captured values.
  // `outer_retained` is what the calling evaluator holds (for the live-bytes
  // counters).
  absl::StatusOr<Value> Run(Interpreter& interp, std::vector<Value> args, const Closure* closure,
                            int64_t outer_retained) const;

  // Number of steps (kernel calls, tuples, projections, function calls).
  size_t num_steps() const { return steps_.size(); }
  // Number of kernel-call steps.
  size_t num_kernel_steps() const { return kernel_steps_; }
  // Number of kernel steps that may run in place (when, at run time, their
  // first operand turns out fresh).
  size_t num_inplace_steps() const {
    return std::count_if(steps_.begin(), steps_.end(),
                         [](const Step& s) { return s.inplace != nullptr; });
  }
  // Number of joins whose inputs the plan places in one block.
  size_t num_join_blocks() const { return join_block_bytes_.size(); }

 private:
  // Runs `call` with its in-place variant over in[0]'s tensor (which no one
  // else holds); false when the variant does not apply.
  static bool RunInPlace(Interpreter& interp, const Call* call, InPlaceKernelFn fn,
                         std::span<const Value> in, int64_t retained, Value* out);

  enum class StepKind : uint8_t { kKernel, kTuple, kProject, kInvoke };
  struct Step {
    StepKind kind;
    const Expr* expr;           // the Call / Tuple / TupleGetItem
    KernelFn kernel = nullptr;  // kKernel
    // kKernel: the in-place variant, set when this step is the last reader
    // of its first operand, reads it once, and it is not a preset,
    // parameter or the result.
    InPlaceKernelFn inplace = nullptr;
    uint32_t out = 0;           // slot written
    uint32_t in_begin = 0;      // operands: operands_[in_begin, in_end)
    uint32_t in_end = 0;        // (kInvoke: the callee first)
    uint32_t free_begin = 0;    // slots read for the last time here:
    uint32_t free_end = 0;      // frees_[free_begin, free_end)
    // kKernel: bit i set when operand i is a constant of the module, and
    // what the kernel keeps across runs (built on the first run).
    uint64_t constant_operands = 0;
    mutable std::unique_ptr<KernelStepState> state;
    // kKernel: index into join_slices_ when the step writes its output into
    // a join's block, else -1.
    int32_t join_slice = -1;
  };
  // Where a join input's chain head writes: bytes [offset, offset + the
  // output's size) of block `block` (sizes in join_block_bytes_). The run
  // lets go of the block at its last slice (in step order): from then on
  // the slices' tensors alone keep it alive.
  struct JoinSlice {
    uint32_t block = 0;
    size_t offset = 0;
    bool last = false;
    DataType dtype;
    std::vector<int64_t> shape;
  };
  friend class PlanBuilder;

  std::vector<Step> steps_;
  std::vector<uint32_t> operands_;
  std::vector<uint32_t> frees_;
  uint32_t num_slots_ = 0;
  // Slots of the parameters, in order, and of captured variables.
  std::vector<uint32_t> param_slots_;
  absl::flat_hash_map<const Var*, uint32_t> captured_slots_;
  // Slots preset on every run: constants, globals, closed function literals.
  std::vector<std::pair<uint32_t, Value>> presets_;
  // Slots read by no step (freed as soon as they are written).
  std::vector<bool> unread_;
  // Slots read by exactly one operand of one step.
  std::vector<bool> read_once_;
  uint32_t result_ = 0;
  size_t kernel_steps_ = 0;
  std::vector<JoinSlice> join_slices_;
  std::vector<size_t> join_block_bytes_;
};

}  // namespace carve
