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

  absl::Status Step(const Task& task);
  absl::Status Eval(const Expr* e);
  absl::Status EvalVar(const Var* v);
  absl::Status EvalFunction(const Function* fn);
  absl::Status Apply(const Call* call);
  absl::Status CallOp(const Call* call, const OpInfo* op, std::vector<Value> args);
  // Calls a closure / global: external dispatch, or a new (or reused) frame.
  absl::Status Enter(const Value& callee, std::vector<Value> args, Span span,
                     bool dispatch_external = true);
  absl::Status CallExternal(const Function* fn, const ExternalFn& handler, std::string_view name,
                            std::vector<Value> args, Span span);
  absl::Status Branch(const If* e);
  absl::Status Project(const TupleGetItem* e);

  // Binds `v` in the current frame for its number of reads (dropped at once
  // when it is never read).
  void Bind(Frame& frame, const Var* v, Value value);
  void Retain(Frame& frame, int64_t bytes);
  void Release(Frame& frame, int64_t bytes);
  void PopFrame();
  Value PopValue();
  // Adds the call's span (when it has one) to a failure.
  absl::Status AtSpan(Span span, const absl::Status& status) const;

  Interpreter& interp_;
  std::vector<Task> tasks_;
  std::vector<Value> values_;
  std::vector<Frame> frames_;
  std::vector<Observation> observations_;
  int64_t retained_bytes_ = 0;
};

}  // namespace carve
