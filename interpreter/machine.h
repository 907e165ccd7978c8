// The evaluator's abstract machine (internal to interpreter/; the public API
// is interpreter/evaluator.h).
//
// State: a task stack (what to do next), a value stack (results not yet
// consumed) and a frame stack (one activation per function call, holding
// its variable bindings and the values of shared nodes). Each task runs to
// completion without recursion; a function call pushes a frame and a Return
// task, and a call in tail position (the next task is the caller's Return)
// replaces the caller's frame instead, so loops written as recursion run in
// constant space.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "interpreter/evaluator.h"

namespace carve {

class Machine {
 public:
  explicit Machine(Interpreter& interp) : interp_(interp) {}

  // Applies a closure or global value to `args` and runs to completion.
  // With `dispatch_external` false, the callee itself runs on the reference
  // kernels even when it is a Compiler / Composite function (calls inside
  // it still dispatch).
  absl::StatusOr<Value> Invoke(const Value& callee, std::vector<Value> args,
                               bool dispatch_external = true);

  // Calls `callee` for a function-call step of an execution plan: as
  // Invoke, with `span` (the call's) on errors, and `outer_retained` bytes
  // held by the plan counted in the live-bytes statistics. `*result_fresh`
  // (when given) says whether the callee was an external runtime that
  // returned fresh storage (ExternalCall::result_fresh) and no observer saw it.
  absl::StatusOr<Value> CallFromPlan(const Value& callee, std::vector<Value> args, Span span,
                             int64_t outer_retained, bool* result_fresh = nullptr);

  // Runs the kernel of the op call `call` on `args`: the call's static
  // inferred type, else the op's type relation on the runtime types; the
  // tensor-size limit; the kernel-call and live-bytes counters (`retained`
  // is what the caller holds besides the fresh outputs). Errors carry the
  // call's span. Shared by the tree walker and execution plans (which may
  // pass `destination`: KernelContext::destination).
  static absl::StatusOr<Value> CallKernel(Interpreter& interp, const Call* call, KernelFn kernel,
                                          std::span<const Value> args, int64_t retained,
                                          uint64_t constant_args = 0,
                                          std::unique_ptr<KernelStepState>* state = nullptr,
                                          NDArray* destination = nullptr);
  // Field `e->index()` of `tuple`, or an error at e's span.
  static absl::StatusOr<Value> ProjectField(const TupleGetItem* e, const Value& tuple);
  // Adds `span` (when valid) to a failure that carries none yet.
  static absl::Status AtSpan(Span span, const absl::Status& status);

 private:
  // A bound variable or a memoised node value, with the reads left before
  // it is dropped.
  struct Slot {
    Value value;
    uint32_t remaining = 0;
    int64_t bytes = 0;
  };
  struct Frame {
    const FunctionInfo* info = nullptr;
    absl::flat_hash_map<const Var*, Slot> env;
    absl::flat_hash_map<const Expr*, Slot> memo;
    int64_t retained_bytes = 0;
  };
  enum class Op : uint8_t {
    kEval,       // evaluate expr, push its value
    kMemo,       // remember the top value as expr's (a shared node)
    kApply,      // pop callee (unless an op) and args of call expr, call
    kBind,       // pop a let's value, bind its var, evaluate the body
    kBranch,     // pop an if's condition, evaluate a branch
    kMakeTuple,  // pop the fields of tuple expr, push the tuple
    kProject,    // pop a tuple, push field expr->index()
    kReturn,     // leave the current frame (its result stays pushed)
    kObserve,    // report observations_[aux] with the top value as result
    kRefNew,     // pop a value, push a new cell holding it
    kRefRead,    // pop a cell, push its contents
    kRefWrite,   // pop a cell and a value, store the value, push `()`
    kMatch,      // pop a match's data, bind the first matching clause, evaluate its rhs
  };
  struct Task {
    Op op;
    const Expr* expr = nullptr;
    size_t aux = 0;
  };
  // A Compiler / Composite call evaluated by the reference kernels, waiting
  // for its result to be reported to the observer.
  struct Observation {
    const Function* function;
    std::vector<Value> args;
  };

  // Runs the task stack to completion and returns the one value left.
  absl::StatusOr<Value> RunTasks();
  // Runs `plan` for a call of `fn` (no frame: its result is pushed).
  absl::Status RunPlan(const Plan& plan, const Value& callee, std::vector<Value> args);
  absl::Status Step(const Task& task);
  absl::Status Eval(const Expr* e);
  absl::Status Schedule(const Expr* e);
  absl::Status PushChildren(const Expr* e);
  absl::Status EvalVar(const Var* v);
  absl::Status EvalFunction(const Function* fn);
  absl::Status Apply(const Call* call);
  absl::Status CallOp(const Call* call, const OpInfo* op, std::vector<Value> args);
  // Calls a closure / global: external dispatch, or a new (or reused) frame.
  // (machine_call.cc, with the op calls.)
  absl::Status Enter(const Value& callee, std::vector<Value> args, Span span,
                     bool dispatch_external = true);
  // The function a global or closure value calls, or an error at `span`.
  absl::StatusOr<const Function*> CalledFunction(const Value& callee, Span span) const;
  // Schedules the report of a Compiler / Composite call to the observer.
  void Observe(const Function* fn, std::span<const Value> args);
  // Pushes fn's frame (captures, then parameters bound) and its body.
  void PushFrame(const Function* fn, const Value& callee, std::vector<Value> args);
  absl::Status CallExternal(const Function* fn, const ExternalFn& handler, std::string_view name,
                            std::vector<Value> args, Span span);
  absl::Status Branch(const If* e);
  absl::Status Project(const TupleGetItem* e);
  absl::Status RefAccess(const Task& task);
  // Algebraic data types (machine.cc): the first clause whose pattern
  // matches the data, with its variables bound in the current frame.
  absl::Status MatchClause(const Match* match);
  // Whether `pattern` matches `value`; appends the bindings it makes.
  static bool MatchAdtPattern(const AdtPattern* pattern, const Value& value,
                                std::vector<std::pair<const Var*, Value>>* bindings);

  // Binds `v` in the current frame for its number of reads (dropped at once
  // when it is never read).
  void Bind(Frame& frame, const Var* v, Value value);
  void Retain(Frame& frame, int64_t bytes);
  void Release(Frame& frame, int64_t bytes);
  void PopFrame();
  Value PopValue();

  Interpreter& interp_;
  std::vector<Task> tasks_;
  std::vector<Value> values_;
  std::vector<Frame> frames_;
  std::vector<Observation> observations_;
  int64_t retained_bytes_ = 0;
  // Set by CallExternal: its result is fresh storage (see CallFromPlan).
  bool external_result_fresh_ = false;
};

}  // namespace carve
