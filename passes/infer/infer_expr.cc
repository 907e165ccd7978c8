#include "passes/infer/infer_expr.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "fmt/format.h"
#include "ir/tensor_size.h"
#include "ir/visit.h"

namespace carve {
namespace {

// Enough to fix a file in one go without drowning the first error.
constexpr size_t kMaxErrors = 20;

std::string Arguments(size_t n) { return fmt::format("{} argument{}", n, n == 1 ? "" : "s"); }

// How messages name the callee of a non-op call.
std::string DescribeCallee(const Expr* callee) {
  if (auto* gv = DynCast<GlobalVar>(callee)) return fmt::format("@{}", gv->name());
  if (auto* v = DynCast<Var>(callee)) return fmt::format("%{}", v->name());
  if (Isa<Function>(callee)) return "the function";
  if (auto* c = DynCast<Constructor>(callee)) return fmt::format("constructor {}", c->name());
  return "the callee";
}

}  // namespace

void ExprTyper::Reset() {
  errors_at_start_ = diags_.size();
  unifier_.Clear();
  order_.clear();
  recording_ = false;
  binders_.clear();
  stack_.clear();
  deferred_.clear();
  unknown_globals_.clear();
  met_unannotated_ = false;
}

const Type* ExprTyper::Run(const Expr* root) {
  Reset();
  root_ = root;
  stack_.push_back(Frame(root));
  while (!stack_.empty()) {
    Step();
    if (unifier_.has_woken()) Drain();
  }
  ReportUnresolved(ResolveAll());
  const Type* t = Resolved(root);
  Finish(root);
  return unifier_.Classify(t) == TypeUnifier::State::kComplete ? t : TypeUnifier::Poison();
}

// The scratch mark of a node typed in the current run.
constexpr uint8_t kTyped = 1;

bool ExprTyper::IsTyped(const Expr* e) { return e->scratch_mark() == kTyped; }

void ExprTyper::Push(const Expr* e) {
  if (!IsTyped(e)) stack_.push_back(Frame(e));
}

void ExprTyper::SetType(const Expr* e, const Type* t) {
  if (!IsTyped(e)) {
    e->set_scratch_mark(kTyped);
    // Until a type is not complete (a hole, Poison), every type set is
    // final and nothing needs to be resolved later.
    recording_ = recording_ || unifier_.Classify(t) != TypeUnifier::State::kComplete;
    if (recording_) order_.push_back(e);
  }
  e->set_checked_type(t);
}

void ExprTyper::Done(const Expr* e, const Type* t) {
  SetType(e, t);
  stack_.pop_back();
}

const Type* ExprTyper::TypeOf(const Expr* e) const {
  return IsTyped(e) ? e->checked_type() : TypeUnifier::Poison();
}

// One step of the node on top of the stack: either push its children (and
// advance its stage) or, once they are typed, compute its type and pop it.
void ExprTyper::Step() {
  // The frame stays valid while children are pushed (a deque moves no
  // element when it grows).
  Frame& frame = stack_.back();
  const Expr* e = frame.e();
  if (frame.stage() == 0 && IsTyped(e)) {  // shared node, already typed
    stack_.pop_back();
    return;
  }
  switch (e->kind()) {
    case ExprKind::kVar:  // bound variables are typed at their binding site
      return Done(e, FreeVarType(Cast<Var>(e)));
    case ExprKind::kGlobalVar:
      return Done(e, GlobalType(Cast<GlobalVar>(e)));
    case ExprKind::kConstant:
      return Done(e, ConstantType(Cast<Constant>(e)));
    case ExprKind::kOp:
      return Done(e, Error(e->span(),
                           fmt::format("operator {} can only be called", Cast<OpExpr>(e)->name())));
    case ExprKind::kCall:
      return StepCall(frame);
    case ExprKind::kTuple:
      return StepTuple(frame);
    case ExprKind::kTupleGetItem: {
      auto* g = Cast<TupleGetItem>(e);
      if (frame.Advance() == 0) return Push(g->tuple());
      return Done(e, TypeProjection(g));
    }
    case ExprKind::kLet:
      return StepLet(frame);
    case ExprKind::kIf:
      return StepIf(frame);
    case ExprKind::kFunction:
      return StepFunction(frame);
    case ExprKind::kRefCreate: {
      auto* r = Cast<RefCreate>(e);
      if (frame.Advance() == 0) return Push(r->value());
      return Done(e, RefTy(TypeOf(r->value())));
    }
    case ExprKind::kRefRead: {
      auto* r = Cast<RefRead>(e);
      if (frame.Advance() == 0) return Push(r->ref());
      return Done(e, TypeRefRead(r));
    }
    case ExprKind::kRefWrite:
      return StepRefWrite(frame);
    case ExprKind::kConstructor:
      return Done(e, TypeConstructor(Cast<Constructor>(e)));
    case ExprKind::kMatch:
      return StepMatch(frame);
  }
}

void ExprTyper::StepTuple(Frame& frame) {
  auto* t = Cast<Tuple>(frame.e());
  if (frame.Advance() == 0) {
    for (size_t k = t->fields().size(); k-- > 0;) Push(t->fields()[k]);
    return;
  }
  scratch_.clear();
  for (const Expr* f : t->fields()) scratch_.push_back(TypeOf(f));
  Done(t, TupleTy(scratch_));
}

void ExprTyper::StepIf(Frame& frame) {
  auto* x = Cast<If>(frame.e());
  if (frame.Advance() == 0) {
    Push(x->else_branch());
    Push(x->then_branch());
    Push(x->cond());
    return;
  }
  Done(x, TypeIf(x));
}

void ExprTyper::StepRefWrite(Frame& frame) {
  auto* w = Cast<RefWrite>(frame.e());
  if (frame.Advance() == 0) {
    Push(w->value());
    Push(w->ref());
    return;
  }
  Done(w, TypeRefWrite(w));
}

void ExprTyper::StepCall(Frame& frame) {
  auto* call = Cast<Call>(frame.e());
  if (frame.Advance() == 0) {
    for (size_t k = call->args().size(); k-- > 0;) Push(call->args()[k]);
    // Operators are not values: they have no type of their own here.
    if (!Isa<OpExpr>(call->callee())) Push(call->callee());
    return;
  }
  Done(call, call->op() != nullptr ? TypeOpCall(call) : TypeClosureCall(call));
}

void ExprTyper::StepLet(Frame& frame) {
  auto* let = Cast<Let>(frame.e());
  switch (frame.Advance()) {
    case 0:
      // A function literal may call itself through the variable (the seed's
      // `let %while_loop = fn (...) {... %while_loop(...) ...}`), so the
      // variable is bound before the value is typed, as in TVM.
      if (Isa<Function>(let->value())) {
        const Var* v = let->var();
        met_unannotated_ = met_unannotated_ || v->annotation() == nullptr;
        SetType(v, v->annotation() ? v->annotation() : unifier_.NewHole());
        binders_.push_back(Binder{v, false});
      }
      return Push(let->value());
    case 1:
      BindLetVar(let);
      return Push(let->body());
    default:
      return Done(let, TypeOf(let->body()));
  }
}

void ExprTyper::StepFunction(Frame& frame) {
  auto* fn = Cast<Function>(frame.e());
  if (frame.Advance() == 0) {
    // Parameters without annotations are holes, filled from the call site.
    for (const Var* p : fn->params()) {
      met_unannotated_ = met_unannotated_ || p->annotation() == nullptr;
      const Type* t = p->annotation() ? p->annotation() : unifier_.NewHole();
      SetType(p, t);
      // A complete annotation can never be reported as unresolved.
      if (unifier_.Classify(t) != TypeUnifier::State::kComplete) {
        binders_.push_back(Binder{p, false});
      }
    }
    return Push(fn->body());
  }
  Done(fn, FunctionType(fn));
}

const Type* ExprTyper::FreeVarType(const Var* v) {
  met_unannotated_ = met_unannotated_ || v->annotation() == nullptr;
  binders_.push_back(Binder{v, true});
  return v->annotation() ? v->annotation() : unifier_.NewHole();
}

const Type* ExprTyper::GlobalType(const GlobalVar* gv) {
  if (!globals_.has_module) {
    return Error(gv->span(), fmt::format("@{} cannot be typed without its module", gv->name()));
  }
  auto it = globals_.types.find(gv->name());
  if (it == globals_.types.end()) {
    return Error(gv->span(), fmt::format("@{} is not defined", gv->name()));
  }
  if (it->second == nullptr && globals_.defer_unknown) {
    if (std::find(unknown_globals_.begin(), unknown_globals_.end(), gv->name()) ==
        unknown_globals_.end()) {
      unknown_globals_.push_back(gv->name());
    }
    return TypeUnifier::Poison();
  }
  if (it->second == nullptr) {
    return Error(gv->span(),
                 fmt::format("the type of @{} is not known: run InferType on the module or "
                             "annotate its parameters and return type",
                             gv->name()));
  }
  return it->second;
}

const Type* ExprTyper::ConstantType(const Constant* c) {
  absl::InlinedVector<Dim, 8> dims;
  for (int64_t d : c->data().shape()) dims.push_back(Dim{d, false});
  return TensorTy(c->data().dtype(), dims);
}

const Type* ExprTyper::TypeOpCall(const Call* call) {
  const OpInfo* op = call->op();
  if (op->num_inputs >= 0 && call->args().size() != size_t(op->num_inputs)) {
    return Error(call->span(), fmt::format("{} expects {}, got {}", op->name,
                                           Arguments(op->num_inputs), call->args().size()));
  }
  scratch_.clear();
  for (const Expr* a : call->args()) scratch_.push_back(Resolved(a));
  for (const Type* t : scratch_) {
    switch (unifier_.Classify(t)) {
      case TypeUnifier::State::kPoisoned:
        return TypeUnifier::Poison();
      case TypeUnifier::State::kHoles:
        return Defer(call);
      case TypeUnifier::State::kComplete:
        break;
    }
  }
  return RunRelation(call);
}

// Applies the op's type relation to the resolved argument types in scratch_.
const Type* ExprTyper::RunRelation(const Call* call) {
  const OpInfo* op = call->op();
  if (op->type_rel == nullptr) {
    return Error(call->span(), fmt::format("{}: no type relation is registered", op->name));
  }
  // Errors are not cached: their message is built again, which is rare.
  const size_t n = scratch_.size();
  // The argument types are written one word at a time: a copy into the key
  // by memcpy would make the hash's loads of them wait for its wide stores.
  RelationKey key{op, call->attrs(), n,
                  {n > 0 ? scratch_[0] : nullptr, n > 1 ? scratch_[1] : nullptr,
                   n > 2 ? scratch_[2] : nullptr}};
  bool cacheable = n <= key.args.size();
  RecentRelation* recent = nullptr;
  if (cacheable) {
    recent = &recent_relations_[RecentSlot(key)];
    if (recent->type != nullptr && recent->key == key) return recent->type;
    auto it = relation_cache_.find(key);
    if (it != relation_cache_.end()) {
      *recent = RecentRelation{key, it->second};
      return it->second;
    }
  }
  absl::StatusOr<const Type*> out = op->type_rel(TypeRelCall{op, scratch_, call->attrs()});
  // A result no tensor can have (`zeros(shape=[2^32, 2^32, 16])`, a
  // broadcast of two huge dims): every size computed from it would overflow.
  if (out.ok() && *out != nullptr) {
    if (const TensorType* big = FindOversizedTensor(*out)) {
      out = absl::InvalidArgumentError(fmt::format("the result {}", OversizedMessage(*big)));
    }
  }
  if (out.ok() && *out != nullptr && cacheable) {
    relation_cache_.emplace(key, *out);
    *recent = RecentRelation{key, *out};
  }
  if (!out.ok()) {
    std::string message(out.status().message());
    return Error(call->span(), fmt::format("{}: {}", op->name, message));
  }
  if (*out == nullptr) {
    return Error(call->span(), fmt::format("{}: the type relation gave no type", op->name));
  }
  return *out;
}

size_t ExprTyper::RecentSlot(const RelationKey& key) {
  auto word = [](const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); };
  uint64_t h = word(key.op) ^ (word(key.attrs) * 0x9E3779B97F4A7C15ull) ^
               (word(key.args[0]) * 0xC2B2AE3D27D4EB4Full) ^
               (word(key.args[1]) * 0x165667B19E3779F9ull) ^
               (word(key.args[2]) * 0xD6E8FEB86659FD93ull) ^ key.num_args;
  h *= 0xFF51AFD7ED558CCDull;
  return static_cast<size_t>(h >> 56) % kRecentRelations;
}

const Type* ExprTyper::TypeClosureCall(const Call* call) {
  const Type* callee_type = unifier_.Shallow(TypeOf(call->callee()));
  if (callee_type == TypeUnifier::Poison()) return callee_type;
  auto args = call->args();
  if (Isa<IncompleteType>(callee_type)) {
    // Not known yet (a let-bound closure without annotation called from its
    // own body): it must be a function of these arguments.
    scratch_.clear();
    for (const Expr* a : args) scratch_.push_back(TypeOf(a));
    const Type* ret = unifier_.NewHole();
    if (unifier_.Unify(callee_type, FuncTy(scratch_, ret)) == nullptr) {
      return Error(call->span(),
                   fmt::format("{} would have to accept itself", DescribeCallee(call->callee())));
    }
    return ret;
  }
  auto* ft = DynCast<FuncType>(callee_type);
  if (ft == nullptr) {
    return Error(call->span(), fmt::format("{} has type {} and cannot be called",
                                           DescribeCallee(call->callee()), Show(callee_type)));
  }
  ft = static_cast<const FuncType*>(unifier_.Instantiate(ft));
  if (ft->params().size() != args.size()) {
    return Error(call->span(), fmt::format("{} expects {}, got {}", DescribeCallee(call->callee()),
                                           Arguments(ft->params().size()), args.size()));
  }
  for (size_t k = 0; k < args.size(); ++k) {
    const Type* param = ft->params()[k];
    const Type* arg = TypeOf(args[k]);
    if (unifier_.Unify(param, arg) == nullptr) {
      return Error(call->span(),
                   fmt::format("{}: argument {} has type {} but the parameter has type {}",
                               DescribeCallee(call->callee()), k, Show(arg), Show(param)));
    }
  }
  return ft->ret();
}

const Type* ExprTyper::TypeProjection(const TupleGetItem* g) {
  const Type* t = unifier_.Shallow(TypeOf(g->tuple()));
  if (t == TypeUnifier::Poison()) return t;
  if (Isa<IncompleteType>(t)) return Defer(g);  // the arity is not known yet
  return Project(g, t);
}

const Type* ExprTyper::Project(const TupleGetItem* g, const Type* tuple_type) {
  auto* tt = DynCast<TupleType>(tuple_type);
  if (tt == nullptr) {
    return Error(g->span(), fmt::format("cannot take field {} of non-tuple type {}", g->index(),
                                        Show(tuple_type)));
  }
  if (g->index() < 0 || size_t(g->index()) >= tt->fields().size()) {
    return Error(g->span(), fmt::format("tuple index {} out of range for a {}-tuple", g->index(),
                                        tt->fields().size()));
  }
  return tt->fields()[g->index()];
}

const Type* ExprTyper::TypeIf(const If* e) {
  const Type* cond = unifier_.Shallow(TypeOf(e->cond()));
  const Type* bool_scalar = ScalarTy(DataType::Bool());
  if (Isa<IncompleteType>(cond) && cond != TypeUnifier::Poison()) {
    unifier_.Unify(cond, bool_scalar);
  } else if (cond != bool_scalar && cond != TypeUnifier::Poison()) {
    Error(e->span(), fmt::format("if: the condition must be a bool scalar, got {}", Show(cond)));
  }
  const Type* then_type = TypeOf(e->then_branch());
  const Type* else_type = TypeOf(e->else_branch());
  const Type* t = unifier_.Unify(then_type, else_type);
  if (t == nullptr) {
    return Error(e->span(), fmt::format("if: branches have different types: {} and {}",
                                        Show(then_type), Show(else_type)));
  }
  return t;
}

void ExprTyper::BindLetVar(const Let* let) {
  const Var* var = let->var();
  met_unannotated_ = met_unannotated_ || var->annotation() == nullptr;
  const Type* value = TypeOf(let->value());
  bool bound = IsTyped(var);  // pre-bound for a function literal
  if (!bound) binders_.push_back(Binder{var, false});
  const Type* declared = bound ? TypeOf(var) : var->annotation();
  if (declared == nullptr) return SetType(var, value);
  const Type* t = unifier_.Unify(declared, value);
  if (t == nullptr) {
    std::string message =
        var->annotation()
            ? fmt::format("let %{} is annotated {} but its value has type {}", var->name(),
                          Show(var->annotation()), Show(value))
            : fmt::format("the type of %{} would contain itself: {}", var->name(), Show(value));
    Error(let->span(), std::move(message));
    t = var->annotation() ? var->annotation() : TypeUnifier::Poison();
  }
  SetType(var, t);
}

const Type* ExprTyper::FunctionType(const Function* fn) {
  met_unannotated_ = met_unannotated_ || (fn->ret_type() == nullptr && fn != root_);
  const Type* body = TypeOf(fn->body());
  // A polymorphic function returned is instantiated, as TVM's InferType does.
  if (auto* ft = DynCast<FuncType>(unifier_.Shallow(body))) body = unifier_.Instantiate(ft);
  const Type* ret = body;
  if (fn->ret_type() != nullptr) {
    ret = unifier_.Unify(fn->ret_type(), body);
    if (ret == nullptr) {
      Error(fn->span(), fmt::format("function returns {} but is declared to return {}", Show(body),
                                    Show(fn->ret_type())));
      ret = fn->ret_type();  // callers can rely on the declaration
    }
  }
  scratch_.clear();
  for (const Var* p : fn->params()) scratch_.push_back(TypeOf(p));
  return FuncTy(scratch_, ret, fn->type_params());
}

const Type* ExprTyper::Defer(const Expr* node) {
  const IncompleteType* out = unifier_.NewHole();
  uint32_t id = uint32_t(deferred_.size());
  deferred_.push_back(Deferred{node, out, false});
  // Watching one open input is enough: when it is bound, Solve looks again
  // and watches the next one that is still open.
  if (auto* g = DynCast<TupleGetItem>(node)) {
    WatchFirstHole(Resolved(g->tuple()), id);
  } else {
    for (const Type* t : scratch_) {
      if (WatchFirstHole(t, id)) break;
    }
  }
  return out;
}

bool ExprTyper::WatchFirstHole(const Type* resolved, uint32_t id) {
  std::vector<const IncompleteType*> found;
  unifier_.CollectHoles(resolved, found);
  if (found.empty()) return false;
  unifier_.Watch(found.front(), id);
  return true;
}

void ExprTyper::Drain() {
  while (unifier_.has_woken()) {
    for (uint32_t id : unifier_.TakeWoken()) Solve(id);
  }
}

void ExprTyper::Solve(uint32_t id) {
  if (deferred_[id].done) return;
  const Expr* node = deferred_[id].node;
  const Type* result;
  if (auto* g = DynCast<TupleGetItem>(node)) {
    const Type* t = unifier_.Shallow(TypeOf(g->tuple()));
    if (Isa<IncompleteType>(t) && t != TypeUnifier::Poison()) {
      WatchFirstHole(t, id);
      return;
    }
    result = t == TypeUnifier::Poison() ? t : Project(g, t);
  } else {
    auto* call = Cast<Call>(node);
    scratch_.clear();
    for (const Expr* a : call->args()) scratch_.push_back(Resolved(a));
    bool poisoned = false;
    for (const Type* t : scratch_) {
      TypeUnifier::State state = unifier_.Classify(t);
      if (state == TypeUnifier::State::kHoles) {
        WatchFirstHole(t, id);
        return;
      }
      poisoned |= state == TypeUnifier::State::kPoisoned;
    }
    result = poisoned ? TypeUnifier::Poison() : RunRelation(call);
  }
  deferred_[id].done = true;
  const Type* out = deferred_[id].out;
  const Type* expected = unifier_.Resolve(out);  // before Unify binds parts of it
  if (unifier_.Unify(out, result) == nullptr) {
    const OpInfo* op = Isa<Call>(node) ? Cast<Call>(node)->op() : nullptr;
    Error(node->span(),
          fmt::format("{}: the result has type {} but {} is required here",
                      op ? op->name : "projection", Show(result), TypeToString(expected)));
  }
}

const Expr* ExprTyper::ResolveAll() {
  const Expr* first_open = nullptr;
  for (const Expr* e : order_) {
    const Type* t = unifier_.Resolve(e->checked_type());
    e->set_checked_type(t);
    if (first_open == nullptr && unifier_.Classify(t) == TypeUnifier::State::kHoles) {
      first_open = e;
    }
  }
  return first_open;
}

void ExprTyper::Finish(const Expr* root) {
  // Clear the marks of every typed node: they are all reachable from the
  // root through typed nodes (operators, never typed, have no children).
  clear_stack_.assign(1, root);
  root->set_scratch_mark(0);
  while (!clear_stack_.empty()) {
    const Expr* e = clear_stack_.back();
    clear_stack_.pop_back();
    ForEachChild(e, [this](const Expr* child) {
      if (!IsTyped(child)) return;
      child->set_scratch_mark(0);
      clear_stack_.push_back(child);
    });
    // The variables a match binds are not its children.
    if (auto* match = DynCast<Match>(e)) {
      for (const Clause& clause : match->clauses()) {
        ForEachPatternVar(clause.lhs, [](const Var* v) { v->set_scratch_mark(0); });
      }
    }
  }
  for (const Expr* e : order_) {
    if (unifier_.Classify(e->checked_type()) != TypeUnifier::State::kComplete) {
      e->set_checked_type(nullptr);
    }
  }
  order_.clear();
}

void ExprTyper::ReportUnresolved(const Expr* first_open) {
  // Open holes after an error are its consequences, not news.
  if (first_open == nullptr || diags_.size() > errors_at_start_) return;
  // The roots of the unknowns are the variables whose whole type is open (the
  // parameter of a function never called); a closure whose type merely
  // contains them is a consequence, reported only when there is no root.
  for (bool bare_only : {true, false}) {
    bool reported = false;
    for (const Binder& b : binders_) {
      const Type* t = Resolved(b.var);
      if (unifier_.Classify(t) != TypeUnifier::State::kHoles) continue;
      if (bare_only && !Isa<IncompleteType>(t)) continue;
      Error(b.var->span(), fmt::format("cannot infer the type of {}%{}: add a type annotation",
                                       b.free ? "free variable " : "", b.var->name()));
      reported = true;
    }
    if (reported) return;
  }
  Error(first_open->span(), "cannot infer the type of this expression");
}

const Type* ExprTyper::Error(Span span, std::string message) {
  if (diags_.size() < kMaxErrors) {
    diags_.Error(span, std::move(message));
  } else if (diags_.size() == kMaxErrors) {
    diags_.Error(Span{}, "too many errors; the rest are not shown");
  }
  return TypeUnifier::Poison();
}

}  // namespace carve
