// The machine's calls: op calls (the reference kernels, also used by
// execution plans), and calls of constructors, globals and closures, which
// dispatch to an external runtime, run a plan, or push a frame.
#include <algorithm>

#include "fmt/format.h"
#include "interpreter/machine.h"
#include "interpreter/plan.h"
#include "ir/tensor_limit.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// Plans nested through function calls (each nests a Machine on the C++
// stack); deeper calls walk their bodies on the heap-allocated stacks.
constexpr int kMaxPlanDepth = 64;

// True for a tensor type without `?` dims, or a tuple of such types.
bool IsStaticType(const Type* t) {
  if (const TensorType* tt = DynCast<TensorType>(t)) return tt->is_static();
  if (const TupleType* tup = DynCast<TupleType>(t)) {
    return std::all_of(tup->fields().begin(), tup->fields().end(), IsStaticType);
  }
  return false;
}

std::string FunctionName(const Value& callee) {
  if (callee.is_global()) return fmt::format("@{}", callee.global()->name());
  return "function";
}

// The result type of `fn` when known.
const Type* ReturnType(const Function* fn) {
  if (const FuncType* ft = DynCast<FuncType>(fn->checked_type())) return ft->ret();
  return fn->ret_type();
}

// Checks arity and the type of each argument against its parameter.
absl::Status CheckArguments(const Value& callee, const Function* fn, std::span<const Value> args) {
  if (args.size() != fn->params().size()) {
    return absl::InvalidArgumentError(fmt::format("{} expects {} argument(s), got {}",
                                                  FunctionName(callee), fn->params().size(),
                                                  args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const Var* p = fn->params()[i];
    const Type* want = p->annotation() ? p->annotation() : p->checked_type();
    absl::Status s = CheckValueType(args[i], want);
    if (!s.ok()) {
      return absl::InvalidArgumentError(fmt::format("{}: argument '{}': {}", FunctionName(callee),
                                                    p->name(), std::string(s.message())));
    }
  }
  return absl::OkStatus();
}

// The output type of an op call: its static inferred type, else the op's
// type relation applied to the runtime types of `args`.
absl::StatusOr<const Type*> OutputType(const Call* call, std::span<const Value> args) {
  const Type* out_type = call->checked_type();
  if (IsStaticType(out_type)) return out_type;
  const OpInfo* op = call->op();
  if (op->type_rel == nullptr) {
    return Machine::AtSpan(call->span(), absl::FailedPreconditionError(fmt::format(
                                             "{}: no output type (run InferType)", op->name)));
  }
  std::vector<const Type*> arg_types;
  for (const Value& a : args) arg_types.push_back(RuntimeType(a));
  auto t = op->type_rel(TypeRelCall{op, arg_types, call->attrs()});
  if (!t.ok()) {
    return Machine::AtSpan(call->span(), absl::InvalidArgumentError(fmt::format(
                                             "{}: {}", op->name, std::string(t.status().message()))));
  }
  return *t;
}

// A kernel's outputs as one value of `out_type`: a tuple or one tensor.
absl::StatusOr<Value> PackOutputs(const Call* call, const Type* out_type,
                                  std::vector<NDArray> outputs) {
  const OpInfo* op = call->op();
  if (const TupleType* tt = DynCast<TupleType>(out_type)) {
    if (outputs.size() != tt->fields().size()) {
      return Machine::AtSpan(call->span(), absl::InternalError(fmt::format(
                                               "{}: kernel returned {} outputs for {}", op->name,
                                               outputs.size(), TypeToString(out_type))));
    }
    std::vector<Value> fields(outputs.begin(), outputs.end());
    return Value::Tuple(std::move(fields));
  }
  if (outputs.size() != 1) {
    return Machine::AtSpan(call->span(), absl::InternalError(fmt::format(
                                             "{}: kernel returned {} outputs for one tensor",
                                             op->name, outputs.size())));
  }
  return Value(std::move(outputs[0]));
}

}  // namespace

absl::Status Machine::CallOp(const Call* call, const OpInfo* op, std::vector<Value> args) {
  KernelFn kernel = interp_.Kernel(op);
  if (kernel == nullptr) {
    return AtSpan(call->span(),
                  absl::UnimplementedError(fmt::format("no kernel for op '{}'", op->name)));
  }
  // Live during the kernel: the retained values plus its fresh outputs.
  // Inputs consumed here without being retained are not counted (telling
  // them apart from retained ones would need buffer identities), so the
  // peak is a lower bound.
  CARVE_ASSIGN_OR_RETURN(Value out, CallKernel(interp_, call, kernel, args, retained_bytes_));
  values_.push_back(std::move(out));
  return absl::OkStatus();
}

absl::StatusOr<Value> Machine::CallKernel(Interpreter& interp, const Call* call, KernelFn kernel,
                                          std::span<const Value> args, int64_t retained,
                                          uint64_t constant_args,
                                          std::unique_ptr<KernelStepState>* state,
                                          NDArray* destination) {
  const OpInfo* op = call->op();
  std::vector<NDArray> inputs;
  inputs.reserve(args.size());
  for (const Value& a : args) {
    if (a.is_tensor()) {
      inputs.push_back(a.tensor());
    } else {
      constant_args = 0;  // flattened tuples shift the input indices
      for (NDArray& t : FlattenTensors(a)) inputs.push_back(std::move(t));
    }
  }
  CARVE_ASSIGN_OR_RETURN(const Type* out_type, OutputType(call, args));
  // Checked here, where every output type is concrete, so no kernel is
  // asked to allocate what cannot or should not be allocated.
  if (absl::Status fits = CheckTensorFits(out_type, interp.opts_.max_tensor_bytes,
                                          fmt::format("{}: the result", op->name));
      !fits.ok()) {
    return AtSpan(call->span(), fits);
  }
  KernelContext ctx;
  ctx.op = op;
  ctx.inputs = inputs;
  ctx.attrs = call->attrs();
  ctx.out_type = out_type;
  ctx.device = interp.opts_.device;
  ctx.constant_inputs = constant_args;
  ctx.state = state;
  ctx.destination = destination;
  ++interp.stats_.kernel_calls;
  auto outputs = kernel(ctx);
  if (!outputs.ok()) return AtSpan(call->span(), outputs.status());
  int64_t output_bytes = 0;
  for (const NDArray& t : *outputs) output_bytes += static_cast<int64_t>(t.nbytes());
  interp.stats_.peak_live_bytes =
      std::max(interp.stats_.peak_live_bytes, retained + output_bytes);
  return PackOutputs(call, out_type, *std::move(outputs));
}

absl::Status Machine::Enter(const Value& callee, std::vector<Value> args, Span span,
                            bool dispatch_external) {
  if (callee.is_constructor()) {  // builds the value: no frame
    const Constructor* ctor = callee.constructor();
    if (args.size() != ctor->inputs().size()) {
      return AtSpan(span, absl::InvalidArgumentError(
                              fmt::format("constructor {} expects {} argument(s), got {}",
                                          ctor->name(), ctor->inputs().size(), args.size())));
    }
    values_.push_back(Value::Adt(ctor, std::move(args)));
    return absl::OkStatus();
  }
  CARVE_ASSIGN_OR_RETURN(const Function* fn, CalledFunction(callee, span));
  absl::Status arg_status = CheckArguments(callee, fn, args);
  if (!arg_status.ok()) return AtSpan(span, arg_status);

  const std::string_view compiler = fn->GetStringAttr("Compiler");
  const std::string_view composite = fn->GetStringAttr("Composite");
  const ExternalRegistry* ext = dispatch_external ? interp_.opts_.external : nullptr;
  if (ext != nullptr) {
    ExternalFn handler = compiler.empty() ? nullptr : ext->FindRuntime(compiler);
    if (handler) return CallExternal(fn, handler, compiler, std::move(args), span);
    handler = composite.empty() ? nullptr : ext->FindComposite(composite);
    if (handler) return CallExternal(fn, handler, composite, std::move(args), span);
  }
  ++interp_.stats_.function_calls;
  const bool observe = interp_.opts_.observer && (!compiler.empty() || !composite.empty());
  if (interp_.plan_depth_ < kMaxPlanDepth) {
    if (const Plan* plan = interp_.PlanFor(fn)) {
      if (observe) Observe(fn, args);
      return RunPlan(*plan, callee, std::move(args));
    }
  }
  if (!observe && !tasks_.empty() && tasks_.back().op == Op::kReturn) {
    PopFrame();  // tail call: the caller has nothing left to do
    ++interp_.stats_.tail_calls;
  } else {
    if (observe) Observe(fn, args);
    tasks_.push_back({Op::kReturn});
  }
  PushFrame(fn, callee, std::move(args));
  return absl::OkStatus();
}

absl::StatusOr<const Function*> Machine::CalledFunction(const Value& callee, Span span) const {
  if (callee.is_closure()) return callee.closure().function;
  if (!callee.is_global()) {
    return AtSpan(span, absl::InvalidArgumentError(
                            fmt::format("cannot call a value of type {}", DescribeValue(callee))));
  }
  const Function* fn = interp_.mod_->Lookup(callee.global()->name());
  if (fn == nullptr) {
    return AtSpan(span, absl::InvalidArgumentError(
                            fmt::format("call of undefined function @{}", callee.global()->name())));
  }
  return fn;
}

void Machine::Observe(const Function* fn, std::span<const Value> args) {
  observations_.push_back({fn, std::vector<Value>(args.begin(), args.end())});
  tasks_.push_back({Op::kObserve, nullptr, observations_.size() - 1});
}

void Machine::PushFrame(const Function* fn, const Value& callee, std::vector<Value> args) {
  frames_.emplace_back();
  Frame& frame = frames_.back();
  frame.info = &interp_.Info(fn);
  interp_.stats_.max_frame_depth =
      std::max<int64_t>(interp_.stats_.max_frame_depth, frames_.size());
  if (callee.is_closure()) {
    const Closure& c = callee.closure();
    for (const auto& [var, value] : c.captured) Bind(frame, var, value);
    if (c.self != nullptr) Bind(frame, c.self, callee);
  }
  for (size_t i = 0; i < args.size(); ++i) Bind(frame, fn->params()[i], std::move(args[i]));
  tasks_.push_back({Op::kEval, fn->body()});
}

absl::Status Machine::RunPlan(const Plan& plan, const Value& callee, std::vector<Value> args) {
  const Closure* closure = callee.is_closure() ? &callee.closure() : nullptr;
  ++interp_.plan_depth_;
  absl::StatusOr<Value> result = plan.Run(interp_, std::move(args), closure, retained_bytes_);
  --interp_.plan_depth_;
  if (!result.ok()) return result.status();
  values_.push_back(*std::move(result));
  return absl::OkStatus();
}

absl::Status Machine::CallExternal(const Function* fn, const ExternalFn& handler,
                                   std::string_view name, std::vector<Value> args, Span span) {
  ExternalCall call;
  call.function = fn;
  call.name = name;
  call.args = args;
  call.ret_type = ReturnType(fn);
  call.interpreter = &interp_;
  absl::StatusOr<Value> result = handler(call);
  if (!result.ok()) return AtSpan(span, result.status());
  external_result_fresh_ = call.result_fresh && !interp_.opts_.observer;
  if (call.ret_type != nullptr) {
    absl::Status s = CheckValueType(*result, call.ret_type);
    if (!s.ok()) {
      return AtSpan(span, absl::InternalError(fmt::format("external '{}' returned a bad value: {}",
                                                          name, std::string(s.message()))));
    }
  }
  if (interp_.opts_.observer) {
    ExternalCallEvent event;
    event.function = fn;
    event.compiler = fn->GetStringAttr("Compiler");
    event.composite = fn->GetStringAttr("Composite");
    event.args = args;
    event.result = &*result;
    event.offloaded = true;
    interp_.opts_.observer(event);
  }
  values_.push_back(*std::move(result));
  return absl::OkStatus();
}

}  // namespace carve
