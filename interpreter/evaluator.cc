#include "interpreter/evaluator.h"

#include "fmt/format.h"
#include "interpreter/machine.h"
#include "interpreter/plan.h"
#include "ir/tensor_limit.h"
#include "support/status_macros.h"

namespace carve {

Interpreter::Interpreter(const Module& mod, InterpreterOptions opts)
    : mod_(&mod), opts_(std::move(opts)) {
  if (opts_.max_tensor_bytes <= 0) opts_.max_tensor_bytes = MaxTensorBytes();
}

Interpreter::~Interpreter() = default;

absl::StatusOr<Value> Interpreter::Run(std::string_view global, std::span<const Value> args) {
  const GlobalVar* gv = mod_->FindGlobalVar(global);
  if (gv == nullptr || mod_->Lookup(global) == nullptr) {
    return absl::NotFoundError(fmt::format("no function @{} in the module", global));
  }
  return Apply(Value::Global(gv), args);
}

absl::StatusOr<Value> Interpreter::RunConsuming(std::string_view global, std::vector<Value> args) {
  const GlobalVar* gv = mod_->FindGlobalVar(global);
  if (gv == nullptr || mod_->Lookup(global) == nullptr) {
    return absl::NotFoundError(fmt::format("no function @{} in the module", global));
  }
  return Invoke(Value::Global(gv), std::move(args), /*dispatch_external=*/true);
}

absl::StatusOr<std::vector<NDArray>> Interpreter::RunFlat(std::string_view global,
                                                          std::span<const NDArray> args) {
  std::vector<Value> values(args.begin(), args.end());
  CARVE_ASSIGN_OR_RETURN(Value result, Run(global, values));
  return FlattenTensors(result);
}

namespace {

absl::StatusOr<Value> ClosedFunction(Interpreter& interp, const Function* fn) {
  if (!interp.Info(fn).free_vars.empty()) {
    return absl::InvalidArgumentError(fmt::format("cannot call a function with free variable %{}",
                                                  interp.Info(fn).free_vars[0]->name()));
  }
  Closure closure;
  closure.function = fn;
  return Value::MakeClosure(std::move(closure));
}

}  // namespace

absl::StatusOr<Value> Interpreter::Call(const Function* fn, std::span<const Value> args) {
  CARVE_ASSIGN_OR_RETURN(Value callee, ClosedFunction(*this, fn));
  return Invoke(callee, std::vector<Value>(args.begin(), args.end()), /*dispatch_external=*/true);
}

absl::StatusOr<Value> Interpreter::CallReference(const Function* fn, std::span<const Value> args) {
  CARVE_ASSIGN_OR_RETURN(Value callee, ClosedFunction(*this, fn));
  return Invoke(callee, std::vector<Value>(args.begin(), args.end()), /*dispatch_external=*/false);
}

absl::StatusOr<Value> Interpreter::Apply(const Value& callee, std::span<const Value> args) {
  return Invoke(callee, std::vector<Value>(args.begin(), args.end()), /*dispatch_external=*/true);
}

absl::StatusOr<Value> Interpreter::Invoke(const Value& callee, std::vector<Value> args,
                                          bool dispatch_external) {
  if (active_runs_ == 0) stats_ = InterpreterStats{};
  ++active_runs_;
  Machine machine(*this);
  auto result = machine.Invoke(callee, std::move(args), dispatch_external);
  --active_runs_;
  return result;
}

const FunctionInfo& Interpreter::Info(const Function* fn) {
  auto [it, inserted] = info_.try_emplace(fn, nullptr);
  if (inserted) it->second = std::make_unique<FunctionInfo>(AnalyzeFunction(fn));
  return *it->second;
}

const Plan* Interpreter::PlanFor(const Function* fn) {
  if (!opts_.use_plans) return nullptr;
  auto [it, inserted] = plans_.try_emplace(fn, nullptr);
  if (inserted) it->second = Plan::Lower(*this, fn);
  return it->second.get();
}

KernelFn Interpreter::Kernel(const OpInfo* op) {
  auto [it, inserted] = kernels_.try_emplace(op, nullptr);
  if (inserted) it->second = FindKernel(op->name);
  return it->second;
}

absl::Status CheckValueType(const Value& arg, const Type* type) {
  if (const TensorType* t = DynCast<TensorType>(type)) {
    bool ok =
        arg.is_tensor() && arg.tensor().dtype() == t->dtype() && arg.tensor().rank() == t->rank();
    for (size_t d = 0; ok && d < t->rank(); ++d) {
      ok = t->shape()[d].is_any() || t->shape()[d].value == arg.tensor().shape()[d];
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          fmt::format("expected {}, got {}", TypeToString(type), DescribeValue(arg)));
    }
    return absl::OkStatus();
  }
  if (const TupleType* t = DynCast<TupleType>(type)) {
    if (!arg.is_tuple() || arg.fields().size() != t->fields().size()) {
      return absl::InvalidArgumentError(
          fmt::format("expected {}, got {}", TypeToString(type), DescribeValue(arg)));
    }
    for (size_t i = 0; i < t->fields().size(); ++i) {
      CARVE_RETURN_IF_ERROR(CheckValueType(arg.fields()[i], t->fields()[i]));
    }
    return absl::OkStatus();
  }
  if (const RefType* r = DynCast<RefType>(type)) {
    if (!arg.is_ref()) {
      return absl::InvalidArgumentError(
          fmt::format("expected {}, got {}", TypeToString(type), DescribeValue(arg)));
    }
    return CheckValueType(arg.ref_contents(), r->value());
  }
  if (const TypeCall* data = DynCast<TypeCall>(type)) {  // a value of that data type
    if (!arg.is_adt() || arg.constructor()->belongs_to() != data->func()) {
      return absl::InvalidArgumentError(
          fmt::format("expected {}, got {}", TypeToString(type), DescribeValue(arg)));
    }
    return absl::OkStatus();
  }
  if (Isa<FuncType>(type) && !arg.is_closure() && !arg.is_global() && !arg.is_constructor()) {
    return absl::InvalidArgumentError(
        fmt::format("expected {}, got {}", TypeToString(type), DescribeValue(arg)));
  }
  return absl::OkStatus();  // unknown, type variables, incomplete types
}

}  // namespace carve
