#include "interpreter/machine.h"

#include <algorithm>

#include "fmt/format.h"
#include "support/cancellation.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// Bytes of tensor storage a value holds (closures count as nothing).
int64_t ValueBytes(const Value& v) { return v.TensorBytes(); }

}  // namespace

absl::StatusOr<Value> Machine::Invoke(const Value& callee, std::vector<Value> args,
                                      bool dispatch_external) {
  CARVE_RETURN_IF_ERROR(Enter(callee, std::move(args), Span{}, dispatch_external));
  return RunTasks();
}

absl::StatusOr<Value> Machine::CallFromPlan(const Value& callee, std::vector<Value> args, Span span,
                                    int64_t outer_retained, bool* result_fresh) {
  retained_bytes_ = outer_retained;
  external_result_fresh_ = false;
  CARVE_RETURN_IF_ERROR(Enter(callee, std::move(args), span));
  // With no task left, Enter computed the value itself: an external call
  // (which sets the flag), a plan run or a constructor (which do not).
  if (result_fresh != nullptr) *result_fresh = tasks_.empty() && external_result_fresh_;
  return RunTasks();
}

absl::StatusOr<Value> Machine::RunTasks() {
  while (!tasks_.empty()) {
    Task task = tasks_.back();
    tasks_.pop_back();
    CARVE_RETURN_IF_ERROR(CheckCancellation());  // Ctrl-C in the REPL
    CARVE_RETURN_IF_ERROR(Step(task));
  }
  if (values_.size() != 1 || !frames_.empty()) {
    return absl::InternalError("evaluator stacks are unbalanced");
  }
  return PopValue();
}

absl::Status Machine::Step(const Task& task) {
  switch (task.op) {
    case Op::kEval:
      return Eval(task.expr);
    case Op::kMemo: {
      Frame& f = frames_.back();
      const Value& v = values_.back();
      int64_t bytes = ValueBytes(v);
      f.memo[task.expr] = Slot{v, f.info->Uses(task.expr) - 1, bytes};
      Retain(f, bytes);
      return absl::OkStatus();
    }
    case Op::kApply:
      return Apply(Cast<Call>(task.expr));
    case Op::kBind: {
      const Let* let = Cast<Let>(task.expr);
      Bind(frames_.back(), let->var(), PopValue());
      tasks_.push_back({Op::kEval, let->body()});
      return absl::OkStatus();
    }
    case Op::kBranch:
      return Branch(Cast<If>(task.expr));
    case Op::kMakeTuple: {
      size_t n = Cast<Tuple>(task.expr)->fields().size();
      std::vector<Value> fields(std::make_move_iterator(values_.end() - n),
                                std::make_move_iterator(values_.end()));
      values_.resize(values_.size() - n);
      values_.push_back(Value::Tuple(std::move(fields)));
      return absl::OkStatus();
    }
    case Op::kProject:
      return Project(Cast<TupleGetItem>(task.expr));
    case Op::kReturn:
      PopFrame();
      return absl::OkStatus();
    case Op::kObserve: {
      Observation& o = observations_[task.aux];
      ExternalCallEvent event;
      event.function = o.function;
      event.compiler = o.function->GetStringAttr("Compiler");
      event.composite = o.function->GetStringAttr("Composite");
      event.args = o.args;
      event.result = &values_.back();
      interp_.opts_.observer(event);
      observations_.pop_back();  // observations nest, so task.aux is the last
      return absl::OkStatus();
    }
    case Op::kRefNew:
      values_.back() = Value::NewRef(std::move(values_.back()));
      return absl::OkStatus();
    case Op::kRefRead:
    case Op::kRefWrite:
      return RefAccess(task);
    case Op::kMatch:
      return MatchClause(Cast<Match>(task.expr));
  }
  return absl::InternalError("unknown evaluator task");
}

// Leaves push their value at once; any other node schedules its children
// (once per frame when it is shared: later uses read the memo).
absl::Status Machine::Eval(const Expr* e) {
  switch (e->kind()) {
    case ExprKind::kVar:
      return EvalVar(Cast<Var>(e));
    case ExprKind::kConstant:
      values_.push_back(Cast<Constant>(e)->data());
      return absl::OkStatus();
    case ExprKind::kGlobalVar:
      values_.push_back(Value::Global(Cast<GlobalVar>(e)));
      return absl::OkStatus();
    case ExprKind::kOp:
      return AtSpan(e->span(), absl::UnimplementedError(fmt::format("operator '{}' used as a value",
                                                                    Cast<OpExpr>(e)->name())));
    case ExprKind::kConstructor:
      values_.push_back(Value::ConstructorFn(Cast<Constructor>(e)));
      return absl::OkStatus();
    default:
      return Schedule(e);
  }
}

absl::Status Machine::Schedule(const Expr* e) {
  Frame& frame = frames_.back();
  if (frame.info->Uses(e) > 1) {
    if (auto it = frame.memo.find(e); it != frame.memo.end()) {
      values_.push_back(it->second.value);
      if (--it->second.remaining == 0) {
        Release(frame, it->second.bytes);
        frame.memo.erase(it);
      }
      return absl::OkStatus();
    }
    tasks_.push_back({Op::kMemo, e});
  }
  return PushChildren(e);
}

// Pushes the task that consumes e's children, then the children's Eval
// tasks in reverse, so they run first and left to right.
absl::Status Machine::PushChildren(const Expr* e) {
  switch (e->kind()) {
    case ExprKind::kCall: {
      const Call* call = Cast<Call>(e);
      tasks_.push_back({Op::kApply, e});
      for (size_t i = call->args().size(); i-- > 0;) tasks_.push_back({Op::kEval, call->args()[i]});
      if (call->op() == nullptr) tasks_.push_back({Op::kEval, call->callee()});
      return absl::OkStatus();
    }
    case ExprKind::kTuple: {
      auto fields = Cast<Tuple>(e)->fields();
      tasks_.push_back({Op::kMakeTuple, e});
      for (size_t i = fields.size(); i-- > 0;) tasks_.push_back({Op::kEval, fields[i]});
      return absl::OkStatus();
    }
    case ExprKind::kTupleGetItem:
      tasks_.push_back({Op::kProject, e});
      tasks_.push_back({Op::kEval, Cast<TupleGetItem>(e)->tuple()});
      return absl::OkStatus();
    case ExprKind::kLet:
      tasks_.push_back({Op::kBind, e});
      tasks_.push_back({Op::kEval, Cast<Let>(e)->value()});
      return absl::OkStatus();
    case ExprKind::kIf:
      tasks_.push_back({Op::kBranch, e});
      tasks_.push_back({Op::kEval, Cast<If>(e)->cond()});
      return absl::OkStatus();
    case ExprKind::kFunction:
      return EvalFunction(Cast<Function>(e));
    case ExprKind::kRefCreate:
      tasks_.push_back({Op::kRefNew, e});
      tasks_.push_back({Op::kEval, Cast<RefCreate>(e)->value()});
      return absl::OkStatus();
    case ExprKind::kRefRead:
      tasks_.push_back({Op::kRefRead, e});
      tasks_.push_back({Op::kEval, Cast<RefRead>(e)->ref()});
      return absl::OkStatus();
    case ExprKind::kRefWrite: {
      const RefWrite* w = Cast<RefWrite>(e);
      tasks_.push_back({Op::kRefWrite, e});
      tasks_.push_back({Op::kEval, w->value()});
      tasks_.push_back({Op::kEval, w->ref()});
      return absl::OkStatus();
    }
    case ExprKind::kMatch:
      tasks_.push_back({Op::kMatch, e});
      tasks_.push_back({Op::kEval, Cast<Match>(e)->data()});
      return absl::OkStatus();
    default:
      return absl::InternalError("unexpected expression kind");
  }
}

absl::Status Machine::EvalVar(const Var* v) {
  Frame& frame = frames_.back();
  auto it = frame.env.find(v);
  if (it == frame.env.end()) {
    return AtSpan(v->span(),
                  absl::InvalidArgumentError(fmt::format("unbound variable %{}", v->name())));
  }
  values_.push_back(it->second.value);
  if (--it->second.remaining == 0) {
    Release(frame, it->second.bytes);
    frame.env.erase(it);
  }
  return absl::OkStatus();
}

// A closure captures the current values of the function's free variables,
// except its own let variable when it is recursive (bound on each call).
absl::Status Machine::EvalFunction(const Function* fn) {
  const FunctionInfo& info = interp_.Info(fn);
  Closure closure;
  closure.function = fn;
  auto rec = frames_.back().info->recursive_var.find(fn);
  if (rec != frames_.back().info->recursive_var.end()) closure.self = rec->second;
  for (const Var* v : info.free_vars) {
    if (v == closure.self) continue;
    CARVE_RETURN_IF_ERROR(EvalVar(v));
    closure.captured.emplace_back(v, PopValue());
  }
  values_.push_back(Value::MakeClosure(std::move(closure)));
  return absl::OkStatus();
}

absl::Status Machine::Apply(const Call* call) {
  const size_t n = call->args().size();
  std::vector<Value> args(std::make_move_iterator(values_.end() - n),
                          std::make_move_iterator(values_.end()));
  values_.resize(values_.size() - n);
  if (const OpInfo* op = call->op()) return CallOp(call, op, std::move(args));
  Value callee = PopValue();
  return Enter(callee, std::move(args), call->span());
}

absl::Status Machine::Branch(const If* e) {
  Value cond = PopValue();
  if (!cond.is_tensor() || cond.tensor().num_elements() != 1) {
    return AtSpan(e->span(), absl::InvalidArgumentError(fmt::format(
                                 "if condition must be a scalar, got {}", DescribeValue(cond))));
  }
  const bool taken = cond.tensor().GetAsDouble(0) != 0;
  tasks_.push_back({Op::kEval, taken ? e->then_branch() : e->else_branch()});
  return absl::OkStatus();
}

bool Machine::MatchAdtPattern(const AdtPattern* pattern, const Value& value,
                                std::vector<std::pair<const Var*, Value>>* bindings) {
  switch (pattern->kind()) {
    case AdtPattern::Kind::kWildcard:
      return true;
    case AdtPattern::Kind::kVar:
      bindings->emplace_back(pattern->var(), value);
      return true;
    case AdtPattern::Kind::kConstructor: {
      // Constructors compare by tag within their data type, as TVM's
      // interpreter does.
      if (!value.is_adt()) return false;
      const Constructor* ctor = value.constructor();
      const Constructor* want = pattern->constructor();
      if (ctor != want && (ctor->tag() != want->tag() || ctor->belongs_to() != want->belongs_to())) {
        return false;
      }
      auto fields = value.adt_fields();
      if (fields.size() != pattern->fields().size()) return false;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (!MatchAdtPattern(pattern->fields()[i], fields[i], bindings)) return false;
      }
      return true;
    }
    case AdtPattern::Kind::kTuple: {
      if (!value.is_tuple() || value.fields().size() != pattern->fields().size()) return false;
      for (size_t i = 0; i < pattern->fields().size(); ++i) {
        if (!MatchAdtPattern(pattern->fields()[i], value.fields()[i], bindings)) return false;
      }
      return true;
    }
  }
  return false;
}

absl::Status Machine::MatchClause(const Match* match) {
  Value data = PopValue();
  std::vector<std::pair<const Var*, Value>> bindings;
  for (const Clause& clause : match->clauses()) {
    bindings.clear();
    if (!MatchAdtPattern(clause.lhs, data, &bindings)) continue;
    Frame& frame = frames_.back();
    for (auto& [var, value] : bindings) Bind(frame, var, std::move(value));
    tasks_.push_back({Op::kEval, clause.rhs});
    return absl::OkStatus();
  }
  return AtSpan(match->span(),
                absl::InvalidArgumentError(fmt::format(
                    "{}: no clause matches the value {}", match->complete() ? "match" : "match?",
                    DescribeValue(data))));
}

// ref_read and ref_write, on the cell (and value) evaluated before them.
absl::Status Machine::RefAccess(const Task& task) {
  Value value;
  if (task.op == Op::kRefWrite) value = PopValue();
  Value cell = PopValue();
  if (!cell.is_ref()) {
    return AtSpan(task.expr->span(),
                  absl::InvalidArgumentError(fmt::format(
                      "{} expects a reference, got {}",
                      task.op == Op::kRefWrite ? "ref_write" : "ref_read", DescribeValue(cell))));
  }
  if (task.op == Op::kRefRead) {
    values_.push_back(cell.ref_contents());
  } else {
    cell.RefWrite(std::move(value));
    values_.push_back(Value());
  }
  return absl::OkStatus();
}

absl::Status Machine::Project(const TupleGetItem* e) {
  CARVE_ASSIGN_OR_RETURN(Value field, ProjectField(e, PopValue()));
  values_.push_back(std::move(field));
  return absl::OkStatus();
}

absl::StatusOr<Value> Machine::ProjectField(const TupleGetItem* e, const Value& tuple) {
  if (!tuple.is_tuple() || e->index() < 0 ||
      static_cast<size_t>(e->index()) >= tuple.fields().size()) {
    return AtSpan(e->span(), absl::InvalidArgumentError(fmt::format(
                                 "cannot take field {} of {}", e->index(), DescribeValue(tuple))));
  }
  return tuple.fields()[e->index()];
}

void Machine::Bind(Frame& frame, const Var* v, Value value) {
  const uint32_t reads = frame.info->Reads(v);
  if (reads == 0) return;  // never read: drop it now
  const int64_t bytes = ValueBytes(value);
  frame.env[v] = Slot{std::move(value), reads, bytes};
  Retain(frame, bytes);
}

void Machine::Retain(Frame& frame, int64_t bytes) {
  frame.retained_bytes += bytes;
  retained_bytes_ += bytes;
  interp_.stats_.peak_retained_bytes =
      std::max(interp_.stats_.peak_retained_bytes, retained_bytes_);
}

void Machine::Release(Frame& frame, int64_t bytes) {
  frame.retained_bytes -= bytes;
  retained_bytes_ -= bytes;
}

void Machine::PopFrame() {
  retained_bytes_ -= frames_.back().retained_bytes;
  frames_.pop_back();
}

Value Machine::PopValue() {
  Value v = std::move(values_.back());
  values_.pop_back();
  return v;
}

absl::Status Machine::AtSpan(Span span, const absl::Status& status) {
  if (!span.valid() || status.ok()) return status;
  // Keep a span that an inner failure already carries.
  std::vector<Diagnostic> diags = StatusToDiagnostics(status);
  if (!diags.empty() && diags[0].span.valid()) return status;
  return SpanError(span, std::string(status.message()), status.code());
}

}  // namespace carve
